//! Synthetic storage-bench traces from a profile: exact read and write counts, the size mix,
//! the share of sequential requests, the average queue depth at issue and the footprint
//! the profile gives, from a seed.

use serde::Deserialize;

use super::{Format, Trace, TraceOp, TraceRequest};
use crate::config::{BlockSizes, Ident};
use crate::config::{Count, Duration, Fraction, Size};
use crate::rng::{below, stream};

/// A workload description (`suites/profiles/NAME.yaml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Name; must match the file name.
    pub name: Ident,
    /// Title shown on the site.
    pub title: String,
    /// Reads in the trace.
    pub reads: Count,
    /// Writes in the trace.
    pub writes: Count,
    /// Size mix in percent (weights summing to 100).
    pub sizes: BlockSizes,
    /// Share of requests that continue the previous request of the same kind.
    pub sequential: Fraction,
    /// Average queue depth at issue.
    pub queue_depth: f64,
    /// Length of the recording.
    pub duration: Duration,
    /// Bytes of LBA space the trace touches at most.
    pub footprint: Size,
}

impl Profile {
    /// Checks what serde cannot: the mix sums to 100, the queue depth is reachable.
    pub fn validate(&self) -> Result<(), String> {
        let total: u32 = self.sizes.0.iter().map(|(_, w)| w).sum();
        if total != 100 {
            return Err(format!(
                "sizes: expected percentages adding up to 100, found {total}"
            ));
        }
        if !(1.0..=32.0).contains(&self.queue_depth) {
            return Err(format!(
                "queue_depth: expected an average from 1 to 32, found {}",
                self.queue_depth
            ));
        }
        if self.footprint.0 < 64 * self.sizes.max() {
            return Err("footprint: expected room for at least 64 of the largest requests".into());
        }
        Ok(())
    }
}

/// Fisher–Yates with our own uniform draws (stable across versions).
fn shuffle<T>(v: &mut [T], rng: &mut rand_chacha::ChaCha8Rng) {
    for i in (1..v.len()).rev() {
        let j = below(rng, i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

/// Exact counts for `shares` (weights) of `n`: largest remainders, so each share is within
/// one request of its target.
fn apportion(n: u64, shares: &[u32]) -> Vec<u64> {
    let total: u64 = shares.iter().map(|&s| s as u64).sum::<u64>().max(1);
    let mut counts: Vec<u64> = shares.iter().map(|&s| n * s as u64 / total).collect();
    let mut rest: Vec<(u64, usize)> = shares
        .iter()
        .enumerate()
        .map(|(i, &s)| (n * s as u64 % total, i))
        .collect();
    rest.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let missing = n - counts.iter().sum::<u64>();
    for (_, i) in rest.into_iter().take(missing as usize) {
        counts[i] += 1;
    }
    counts
}

/// Generates the trace a profile describes, from `seed`.
pub fn generate(p: &Profile, seed: u64) -> Trace {
    let mut rng = stream(seed, &format!("trace-gen/{}", p.name));
    let n = p.reads.0 + p.writes.0;
    // Exact read and write counts, in random order.
    let mut ops: Vec<TraceOp> = std::iter::repeat_n(TraceOp::Read, p.reads.0 as usize)
        .chain(std::iter::repeat_n(TraceOp::Write, p.writes.0 as usize))
        .collect();
    shuffle(&mut ops, &mut rng);
    // Exact size counts, in random order.
    let counts = apportion(n, &p.sizes.0.iter().map(|(_, w)| *w).collect::<Vec<_>>());
    let mut sizes: Vec<u64> = p
        .sizes
        .0
        .iter()
        .zip(&counts)
        .flat_map(|((s, _), c)| std::iter::repeat_n(*s, *c as usize))
        .collect();
    shuffle(&mut sizes, &mut rng);
    // Exactly this many sequential requests (a request that cannot continue its stream,
    // because it is the first of its kind or the stream reached the end of the footprint,
    // hands its turn to the next one).
    let want_seq = (p.sequential.0 * n as f64).round() as u64;
    let mut seq_flags: Vec<bool> = (0..n).map(|i| i < want_seq).collect();
    shuffle(&mut seq_flags, &mut rng);
    // Queue depth at issue: 1 + a geometric draw, then nudged until the mean is exact.
    let target_sum = (p.queue_depth * n as f64).round() as u64;
    let extra = (p.queue_depth - 1.0).max(0.0);
    let mut qds: Vec<u32> = (0..n)
        .map(|_| {
            // Geometric with mean `extra`: count failures before a success of probability 1/(1+extra).
            let mut k = 0u32;
            while k < 31 && below(&mut rng, 1_000_000) as f64 >= 1_000_000.0 / (1.0 + extra) {
                k += 1;
            }
            1 + k
        })
        .collect();
    let mut sum: u64 = qds.iter().map(|&q| q as u64).sum();
    while sum != target_sum {
        let i = below(&mut rng, n) as usize;
        if sum > target_sum && qds[i] > 1 {
            qds[i] -= 1;
            sum -= 1;
        } else if sum < target_sum && qds[i] < 32 {
            qds[i] += 1;
            sum += 1;
        }
    }
    // Issue times spread over the recording.
    let mut times: Vec<u64> = (0..n)
        .map(|_| below(&mut rng, p.duration.0.max(1)))
        .collect();
    times.sort_unstable();
    let t0 = times.first().copied().unwrap_or(0);
    let footprint = p.footprint.0 / 4096 * 4096;
    let mut prev_end = [None::<u64>; 2];
    let mut debt = 0u64;
    let mut requests = Vec::with_capacity(n as usize);
    for i in 0..n as usize {
        let op = ops[i];
        let len = sizes[i];
        let k = (op == TraceOp::Write) as usize;
        let wants_seq = seq_flags[i] || debt > 0;
        let continues = prev_end[k].filter(|e| e + len <= footprint);
        let offset = match (wants_seq, continues) {
            (true, Some(end)) => {
                if !seq_flags[i] {
                    debt -= 1;
                }
                end
            }
            _ => {
                if seq_flags[i] {
                    debt += 1;
                }
                loop {
                    let o = below(&mut rng, (footprint - len) / 4096 + 1) * 4096;
                    if Some(o) != prev_end[k] {
                        break o;
                    }
                }
            }
        };
        prev_end[k] = Some(offset + len);
        requests.push(TraceRequest {
            time_ns: times[i] - t0,
            op,
            offset,
            len: len as u32,
            complete_ns: None,
            qd: Some(qds[i]),
            process: None,
        });
    }
    Trace {
        requests,
        format: Format::Roundup,
        skipped: 0,
        devices: Vec::new(),
    }
}

/// Where a profile named in a suite is: `suites/profiles/NAME.yaml` in the lab, else the
/// path in the lab; `None` when neither is a file.
pub fn find_profile(lab_root: &std::path::Path, name_or_path: &str) -> Option<std::path::PathBuf> {
    let by_name = lab_root
        .join("suites/profiles")
        .join(format!("{name_or_path}.yaml"));
    let by_path = lab_root.join(name_or_path);
    [by_name, by_path].into_iter().find(|p| p.is_file())
}

/// The names of the lab's profiles (`suites/profiles/NAME.yaml`), sorted.
pub fn profile_names(lab_root: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(lab_root.join("suites/profiles"))
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "yaml").then_some(())?;
            Some(path.file_stem()?.to_str()?.to_string())
        })
        .collect();
    names.sort();
    names
}

/// Where a profile that is not found might be: the lab's profiles, and the one `name`
/// was probably meant to be (`; profiles here: heavy, light; did you mean "light"?`).
pub fn profile_hint(lab_root: &std::path::Path, name: &str) -> String {
    let names = profile_names(lab_root);
    if names.is_empty() {
        return String::new();
    }
    let suggestion = crate::config::suggest(name, names.iter().map(String::as_str))
        .map(|hint| format!("; {hint}"))
        .unwrap_or_default();
    format!("; profiles here: {}{suggestion}", names.join(", "))
}

/// Loads a profile by name from the lab (`suites/profiles/NAME.yaml`) or from a path.
pub fn load_profile(
    lab_root: &std::path::Path,
    name_or_path: &str,
) -> crate::error::Result<Profile> {
    let path = find_profile(lab_root, name_or_path).unwrap_or_else(|| lab_root.join(name_or_path));
    let rel = path.strip_prefix(lab_root).unwrap_or(&path).to_path_buf();
    let bytes = std::fs::read(&path).map_err(|e| {
        crate::error::InputError::new(
            &rel,
            "",
            format!(
                "cannot read the profile ({e}); profiles live in suites/profiles/NAME.yaml{}",
                profile_hint(lab_root, name_or_path)
            ),
        )
    })?;
    let text = crate::config::utf8_text(&rel, &bytes)?;
    let p: Profile = crate::config::from_yaml(&rel, text)?;
    p.validate()
        .map_err(|m| crate::error::InputError::new(&rel, "", m))?;
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apportion_is_exact() {
        assert_eq!(apportion(10, &[1, 1, 1]), vec![4, 3, 3]);
        assert_eq!(
            apportion(57769, &[32, 10, 11, 22, 13, 12])
                .iter()
                .sum::<u64>(),
            57769
        );
    }
}
