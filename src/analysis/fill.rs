//! A whole-drive fill (a sequential write of `passes:` over the span), as TechPowerUp
//! charts it: the write speed against the data written (not time), and the figures read
//! off it: the cache size (data written before the speed drops), the speed in the cache,
//! after it, and over the whole fill.

use serde::Serialize;

/// The most points a fill's curve has: each the speed over an equal share of the data.
pub const FILL_POINTS: usize = 500;

/// A drop: the speed over the stretches after a point below this share of the speed over
/// those before it, and the median of the rest of the fill below it too. TechPowerUp calls
/// the 870 EVO's 480 → 400 MB/s a drop (0.83), and the MSI M480's 5 → 3.5 GB/s (0.7).
pub const FILL_DROP: f64 = 0.85;

/// One point of a fill's curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FillPoint {
    /// Data written by the end of the stretch, decimal GB.
    pub gb: f64,
    /// The speed over the stretch, decimal MB/s.
    pub mb_per_s: f64,
}

/// A fill's curve and its figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fill {
    /// The speed over each stretch of the data written, in order.
    #[serde(skip)]
    pub points: Vec<FillPoint>,
    /// Data written, decimal GB.
    pub written_gb: f64,
    /// Data written before the speed dropped (the cache, as a review reports it), GB; none
    /// where it never dropped.
    pub cache_gb: Option<f64>,
    /// The speed up to the drop (the whole fill's without one), MB/s.
    pub in_cache_mb_per_s: f64,
    /// The speed from the drop until the speed comes back to the cache's (a cache taken
    /// again once flushed) or the fill ends, MB/s.
    pub after_cache_mb_per_s: Option<f64>,
    /// The speed over the whole fill, MB/s.
    pub average_mb_per_s: f64,
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

/// The fill of a job's writes from their submit times, latencies and lengths (in any
/// order): none with fewer than two I/Os or no time between the first and the last.
pub fn fill(submit: &[u64], latency: &[u64], len: &[u32]) -> Option<Fill> {
    let n = submit.len();
    if n < 2 {
        return None;
    }
    let start = *submit.iter().min()?;
    let mut done: Vec<(u64, u32)> = (0..n).map(|i| (submit[i] + latency[i], len[i])).collect();
    done.sort_unstable();
    let end = done[n - 1].0;
    let total: u64 = done.iter().map(|d| d.1 as u64).sum();
    if end <= start || total == 0 {
        return None;
    }
    // Stretches of equal data, at least four I/Os each; a stretch that ends at the same
    // instant as the one before (completions at one time) is merged into the next.
    let stretches = FILL_POINTS.min(n / 4).max(1);
    let stretch = total as f64 / stretches as f64;
    let mut points = Vec::with_capacity(stretches);
    let mut times = Vec::with_capacity(stretches);
    let (mut written, mut k) = (0u64, 1usize);
    let (mut from_t, mut from_b) = (start, 0u64);
    for &(t, l) in &done {
        written += l as u64;
        if written as f64 >= k as f64 * stretch - 0.5 {
            while k as f64 * stretch - 0.5 <= written as f64 {
                k += 1;
            }
            if t > from_t {
                points.push(FillPoint {
                    gb: written as f64 / 1e9,
                    mb_per_s: (written - from_b) as f64 / (t - from_t) as f64 * 1e3,
                });
                times.push(t);
                from_t = t;
                from_b = written;
            }
        }
    }
    let average = total as f64 / (end - start) as f64 * 1e3;
    let speeds: Vec<f64> = points.iter().map(|p| p.mb_per_s).collect();
    let w = (speeds.len() / 100).max(3);
    // The first window whose median drops, and in it the first stretch that does.
    let drop_at = (w..speeds.len().saturating_sub(w).max(w))
        .filter(|&i| i + w <= speeds.len())
        .find_map(|i| {
            let limit = FILL_DROP * median(&speeds[i - w..i]);
            (median(&speeds[i..i + w]) < limit && median(&speeds[i..]) < limit)
                .then(|| (i..i + w).find(|&k| speeds[k] < limit))
                .flatten()
        });
    let (cache_gb, in_cache, after) = match drop_at {
        Some(i) => {
            let (bytes, t) = (points[i - 1].gb * 1e9, times[i - 1]);
            let in_cache = bytes / (t - start) as f64 * 1e3;
            // After the cache until the speed comes back to the cache's (a controller that
            // takes its cache again once flushed), a window's median at the drop's limit,
            // else to the end.
            let limit = FILL_DROP * in_cache;
            let back = (i + w..speeds.len().saturating_sub(w - 1))
                .find(|&j| median(&speeds[j..j + w]) >= limit)
                .and_then(|j| (j..j + w).find(|&k| speeds[k] >= limit));
            let (to_bytes, to_t) = match back {
                Some(k) => (points[k - 1].gb * 1e9, times[k - 1]),
                None => (total as f64, end),
            };
            (
                Some(points[i - 1].gb),
                in_cache,
                Some((to_bytes - bytes) / (to_t - t).max(1) as f64 * 1e3),
            )
        }
        None => (None, average, None),
    };
    Some(Fill {
        points,
        written_gb: total as f64 / 1e9,
        cache_gb,
        in_cache_mb_per_s: in_cache,
        after_cache_mb_per_s: after,
        average_mb_per_s: average,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes of 1 MB back to back: `fast` of them at 1 ms each, the rest at 4 ms.
    fn drive(fast: usize, total: usize) -> (Vec<u64>, Vec<u64>, Vec<u32>) {
        drive_at(fast, total, 4_000_000)
    }

    /// Writes of 1 MB back to back: `fast` of them at 1 ms each, the rest at `slow` ns.
    fn drive_at(fast: usize, total: usize, slow: u64) -> (Vec<u64>, Vec<u64>, Vec<u32>) {
        let mut t = 0;
        let (mut submit, mut latency) = (Vec::new(), Vec::new());
        for i in 0..total {
            let l = if i < fast { 1_000_000 } else { slow };
            submit.push(t);
            latency.push(l);
            t += l;
        }
        (submit, latency, vec![1_000_000; total])
    }

    #[test]
    fn a_drop_in_speed_gives_the_cache_and_both_speeds() {
        let (s, l, n) = drive(3000, 10_000);
        let f = fill(&s, &l, &n).unwrap();
        assert_eq!(f.points.len(), FILL_POINTS);
        assert_eq!(f.written_gb, 10.0);
        assert!(
            (f.cache_gb.unwrap() - 3.0).abs() <= 0.02,
            "{:?}",
            f.cache_gb
        );
        assert!((f.in_cache_mb_per_s - 1000.0).abs() < 10.0);
        assert!((f.after_cache_mb_per_s.unwrap() - 250.0).abs() < 3.0);
        // 10 GB in 3 s + 28 s.
        assert!((f.average_mb_per_s - 10_000.0 / 31.0).abs() < 0.01);
    }

    #[test]
    fn after_the_cache_ends_where_the_cache_is_taken_again() {
        // 2 GB at 1 ms each, 3 GB at 4 ms, 2 GB at 1 ms (the cache again), 3 GB at 4 ms.
        let mut t = 0;
        let (mut s, mut l) = (Vec::new(), Vec::new());
        for i in 0..10_000 {
            let d = if i < 2000 || (5000..7000).contains(&i) {
                1_000_000
            } else {
                4_000_000
            };
            s.push(t);
            l.push(d);
            t += d;
        }
        let f = fill(&s, &l, &[1_000_000; 10_000]).unwrap();
        assert!(
            (f.cache_gb.unwrap() - 2.0).abs() <= 0.02,
            "{:?}",
            f.cache_gb
        );
        assert!((f.after_cache_mb_per_s.unwrap() - 250.0).abs() < 3.0);
        // 10 GB in 4 s + 24 s.
        assert!((f.average_mb_per_s - 10_000.0 / 28.0).abs() < 0.01);
    }

    #[test]
    fn a_drop_of_a_sixth_is_a_drop_and_a_twentieth_is_not() {
        // 1,000 MB/s, then 833 (the 870 EVO's 480 → 400 in TechPowerUp's fill).
        let (s, l, n) = drive_at(3000, 10_000, 1_200_000);
        let f = fill(&s, &l, &n).unwrap();
        assert!(
            (f.cache_gb.unwrap() - 3.0).abs() <= 0.02,
            "{:?}",
            f.cache_gb
        );
        assert!((f.after_cache_mb_per_s.unwrap() - 833.3).abs() < 2.0);
        let (s, l, n) = drive_at(3000, 10_000, 1_050_000);
        assert_eq!(fill(&s, &l, &n).unwrap().cache_gb, None);
    }

    #[test]
    fn a_steady_or_sloping_fill_has_no_cache() {
        let (s, l, n) = drive(10_000, 10_000);
        let f = fill(&s, &l, &n).unwrap();
        assert_eq!(f.cache_gb, None);
        assert!((f.in_cache_mb_per_s - 1000.0).abs() < 0.01);
        // A disk's speed falls from the outer tracks to the inner by half, gradually.
        let mut t = 0;
        let (mut s, mut l) = (Vec::new(), Vec::new());
        for i in 0..10_000u64 {
            let d = 1_000_000 + i * 100;
            s.push(t);
            l.push(d);
            t += d;
        }
        let f = fill(&s, &l, &[1_000_000; 10_000]).unwrap();
        assert_eq!(f.cache_gb, None);
        assert!(f.points[0].mb_per_s > 1.8 * f.points[FILL_POINTS - 1].mb_per_s);
    }

    #[test]
    fn too_little_is_no_fill() {
        assert_eq!(fill(&[0], &[5], &[4096]), None);
        assert_eq!(fill(&[0, 0], &[0, 0], &[4096, 4096]), None);
    }
}
