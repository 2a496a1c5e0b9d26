//! SNIA PTS steady state: per-round figures, counted as I/Os complete, and the window test.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::workload::{Metric, SteadyState};

/// The figures of one round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundFigures {
    /// Round number, from 1.
    pub round: u32,
    /// Start of the round on the queue clock (ns).
    pub start_ns: u64,
    /// End of the round (ns).
    pub end_ns: u64,
    /// I/Os completed in the round.
    pub ios: u64,
    /// IOPS over the round.
    pub iops: f64,
    /// MB/s over the round.
    pub mb_per_s: f64,
    /// Mean latency of the round's I/Os, µs.
    pub lat_mean_us: f64,
}

impl RoundFigures {
    /// The round's figure that `metric` tracks (mean latency for the latency metrics).
    pub fn tracked(&self, metric: Metric) -> f64 {
        match metric {
            Metric::Iops => self.iops,
            Metric::MbPerS => self.mb_per_s,
            _ => self.lat_mean_us,
        }
    }
}

/// Whether and where steady state was reached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The criteria held over a window.
    pub reached: bool,
    /// The round that closed the first window that held (1-based).
    pub round: Option<u32>,
    /// The figure tracked (`iops`, `mb_per_s`, `lat_mean_us`).
    pub tracked: String,
    /// First round of the measurement window (the one that held, else the last rounds run).
    pub window_first: u32,
    /// Last round of the measurement window.
    pub window_last: u32,
    /// Start of the window on the queue clock (ns): results are computed over it.
    pub window_start_ns: u64,
    /// End of the window (ns).
    pub window_end_ns: u64,
}

/// SNIA PTS criteria over a window of a tracked figure: the range within 20% of the
/// average, and the least-squares line's excursion across the window within 10%.
pub fn is_steady(values: &[f64]) -> bool {
    let n = values.len();
    if n < 2 {
        return false;
    }
    let avg = values.iter().sum::<f64>() / n as f64;
    if avg.is_nan() || avg <= 0.0 {
        return false;
    }
    let (min, max) = values
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    if max - min > 0.2 * avg {
        return false;
    }
    let xm = (n - 1) as f64 / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in values.iter().enumerate() {
        sxy += (i as f64 - xm) * (y - avg);
        sxx += (i as f64 - xm) * (i as f64 - xm);
    }
    let slope = sxy / sxx;
    slope.abs() * (n - 1) as f64 <= 0.1 * avg
}

/// Counts completions into rounds (shared by the loops of a job) and decides, at each
/// round boundary, whether the last `window` rounds are steady; then it moves the job's end
/// to that boundary.
pub struct Tracker {
    spec: SteadyState,
    warmup: u64,
    round_ns: u64,
    ios: Vec<AtomicU64>,
    bytes: Vec<AtomicU64>,
    lat: Vec<AtomicU64>,
    end_at: AtomicU64,
    evaluated: AtomicU32,
    verdict: Mutex<Option<Verdict>>,
}

impl Tracker {
    /// A tracker for rounds of `round_ns` after `warmup`.
    pub fn new(spec: SteadyState, warmup: u64, round_ns: u64) -> Tracker {
        let n = spec.max_rounds as usize;
        let zeros = || (0..n).map(|_| AtomicU64::new(0)).collect::<Vec<_>>();
        Tracker {
            spec,
            warmup,
            round_ns: round_ns.max(1),
            ios: zeros(),
            bytes: zeros(),
            lat: zeros(),
            end_at: AtomicU64::new(warmup + round_ns * spec.max_rounds as u64),
            evaluated: AtomicU32::new(0),
            verdict: Mutex::new(None),
        }
    }

    /// When the job ends (queue clock, ns): after the last round, or at the boundary where
    /// steady state was reached.
    pub fn end_at(&self) -> u64 {
        self.end_at.load(Ordering::Relaxed)
    }

    /// Counts a completed I/O into the round its completion falls in.
    #[inline]
    pub fn record(&self, done_ns: u64, bytes: u64, latency_ns: u64) {
        if done_ns < self.warmup {
            return;
        }
        let r = ((done_ns - self.warmup) / self.round_ns) as usize;
        if r < self.ios.len() {
            self.ios[r].fetch_add(1, Ordering::Relaxed);
            self.bytes[r].fetch_add(bytes, Ordering::Relaxed);
            self.lat[r].fetch_add(latency_ns, Ordering::Relaxed);
        }
    }

    fn figure(&self, r: usize) -> RoundFigures {
        let ios = self.ios[r].load(Ordering::Relaxed);
        let bytes = self.bytes[r].load(Ordering::Relaxed);
        let lat = self.lat[r].load(Ordering::Relaxed);
        let s = self.round_ns as f64 / 1e9;
        let start_ns = self.warmup + r as u64 * self.round_ns;
        RoundFigures {
            round: r as u32 + 1,
            start_ns,
            end_ns: start_ns + self.round_ns,
            ios,
            iops: ios as f64 / s,
            mb_per_s: bytes as f64 / s / 1e6,
            lat_mean_us: if ios > 0 {
                lat as f64 / ios as f64 / 1e3
            } else {
                0.0
            },
        }
    }

    fn tracked(&self, f: &RoundFigures) -> f64 {
        f.tracked(self.spec.track)
    }

    /// Called by the leading loop as its clock advances: tests every round completed since
    /// the last call.
    pub fn at(&self, now: u64) {
        if now < self.warmup || self.verdict.lock().map(|v| v.is_some()).unwrap_or(true) {
            return;
        }
        let completed = (((now - self.warmup) / self.round_ns) as u32).min(self.spec.max_rounds);
        let window = self.spec.window;
        let from = self.evaluated.load(Ordering::Relaxed) + 1;
        for k in from..=completed {
            self.evaluated.store(k, Ordering::Relaxed);
            if k < window {
                continue;
            }
            let values: Vec<f64> = ((k - window)..k)
                .map(|r| self.tracked(&self.figure(r as usize)))
                .collect();
            if is_steady(&values) {
                self.decide(true, k);
                return;
            }
        }
    }

    fn decide(&self, reached: bool, last: u32) {
        let first = last + 1 - self.spec.window.min(last);
        let v = Verdict {
            reached,
            round: reached.then_some(last),
            tracked: self.spec.track.key().to_string(),
            window_first: first,
            window_last: last,
            window_start_ns: self.warmup + (first as u64 - 1) * self.round_ns,
            window_end_ns: self.warmup + last as u64 * self.round_ns,
        };
        self.end_at.store(v.window_end_ns, Ordering::Relaxed);
        if let Ok(mut g) = self.verdict.lock() {
            *g = Some(v);
        }
    }

    /// Every round that ran and the verdict (not reached: the window is the last rounds).
    pub fn finish(&self, end_ns: u64) -> (Vec<RoundFigures>, Verdict) {
        let ran = (((end_ns.saturating_sub(self.warmup)) / self.round_ns) as u32)
            .min(self.spec.max_rounds)
            .max(1);
        let existing = self.verdict.lock().ok().and_then(|v| v.clone());
        let verdict = existing.unwrap_or_else(|| {
            self.decide(false, ran);
            self.verdict
                .lock()
                .ok()
                .and_then(|v| v.clone())
                .expect("a verdict was just set")
        });
        let rounds = (0..verdict.window_last.max(ran))
            .map(|r| self.figure(r as usize))
            .collect();
        (rounds, verdict)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snia_criteria() {
        assert!(is_steady(&[100.0, 101.0, 99.0, 100.5, 100.0]));
        // Range 30% of the average.
        assert!(!is_steady(&[85.0, 115.0, 100.0, 100.0, 100.0]));
        // Within the range, but a trend: slope 4.5 per round, excursion 18 > 10% of 109.
        assert!(!is_steady(&[100.0, 104.0, 109.0, 114.0, 118.0]));
        assert!(!is_steady(&[0.0, 0.0, 0.0]));
    }

    #[test]
    fn stops_at_the_first_steady_window() {
        let spec = SteadyState {
            max_rounds: 20,
            window: 5,
            track: Metric::Iops,
        };
        let t = Tracker::new(spec, 0, 1_000);
        // Rounds 1-3 fall off (degrading drive), then it settles at 50 I/Os per round.
        let per_round = [200, 120, 80, 50, 50, 50, 50, 50, 50, 50];
        for (r, n) in per_round.iter().enumerate() {
            for i in 0..*n {
                t.record(r as u64 * 1_000 + i, 4096, 100);
            }
            t.at((r as u64 + 1) * 1_000);
        }
        let (rounds, v) = t.finish(10_000);
        assert!(v.reached);
        assert_eq!(v.round, Some(8), "rounds 4-8 are the first steady window");
        assert_eq!((v.window_first, v.window_last), (4, 8));
        assert_eq!((v.window_start_ns, v.window_end_ns), (3_000, 8_000));
        assert_eq!(t.end_at(), 8_000);
        assert_eq!(rounds.len(), 10, "every round that ran is recorded");
        assert_eq!(rounds[0].ios, 200);
    }
}
