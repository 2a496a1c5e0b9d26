//! Write data: incompressible (fresh random bytes), compressible (a random fraction of each
//! 4 KiB, the rest a fixed repeating pattern) and zeros.

use rand::RngCore;
use rand_chacha::ChaCha8Rng;

use super::stream;
use crate::suite::DataKind;

/// The fixed part of compressible data: a short repeating pattern.
const PATTERN: &[u8; 16] = b"roundup-pattern.";
/// Compressible data mixes random and pattern bytes within each chunk of this size, so that
/// a controller compressing per page sees the same ratio as one compressing whole requests.
const CHUNK: usize = 4096;

/// Fills write buffers according to a data kind, from the job's seeded data stream.
pub struct DataFiller {
    kind: DataKind,
    fraction: f64,
    rng: ChaCha8Rng,
}

impl DataFiller {
    /// A filler for `kind`; `fraction` is the random share of compressible data.
    pub fn new(kind: DataKind, fraction: f64, seed: u64) -> DataFiller {
        DataFiller {
            kind,
            fraction: fraction.clamp(0.0, 1.0),
            rng: stream(seed, "data"),
        }
    }

    /// Writes fresh data into `buf`.
    pub fn fill(&mut self, buf: &mut [u8]) {
        match self.kind {
            DataKind::Incompressible => self.rng.fill_bytes(buf),
            DataKind::Zeros => buf.fill(0),
            DataKind::Compressible => {
                for chunk in buf.chunks_mut(CHUNK) {
                    let random = ((chunk.len() as f64) * self.fraction).round() as usize;
                    let (head, tail) = chunk.split_at_mut(random);
                    self.rng.fill_bytes(head);
                    for (i, b) in tail.iter_mut().enumerate() {
                        *b = PATTERN[i % PATTERN.len()];
                    }
                }
            }
        }
    }
}

/// The compressed size of `data` with zstd at level 3, as a fraction of its size: what a
/// chart means by "compressible".
pub fn compressed_fraction(data: &[u8]) -> f64 {
    if data.is_empty() {
        return 1.0;
    }
    let compressed = zstd::bulk::compress(data, 3)
        .map(|c| c.len())
        .unwrap_or(data.len());
    compressed as f64 / data.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measure(kind: DataKind, fraction: f64, len: usize) -> f64 {
        let mut f = DataFiller::new(kind, fraction, 5);
        let mut total = 0.0;
        for _ in 0..16 {
            let mut buf = vec![0u8; len];
            f.fill(&mut buf);
            total += compressed_fraction(&buf);
        }
        total / 16.0
    }

    #[test]
    fn incompressible_does_not_shrink() {
        let r = measure(DataKind::Incompressible, 0.0, 131072);
        assert!(r > 0.99, "incompressible data compressed to {r}");
    }

    #[test]
    fn compressible_shrinks_by_its_fraction() {
        for fraction in [0.1, 0.25, 0.5] {
            let r = measure(DataKind::Compressible, fraction, 131072);
            assert!(
                (r - fraction).abs() < 0.05,
                "fraction {fraction} compressed to {r}"
            );
        }
        let r = measure(DataKind::Compressible, 0.25, 4096);
        assert!((r - 0.25).abs() < 0.06, "a 4 KiB block compressed to {r}");
    }

    #[test]
    fn zeros_compress_to_almost_nothing() {
        assert!(measure(DataKind::Zeros, 0.0, 131072) < 0.01);
    }

    #[test]
    fn every_write_gets_fresh_data() {
        let mut f = DataFiller::new(DataKind::Incompressible, 0.0, 5);
        let (mut a, mut b) = (vec![0u8; 4096], vec![0u8; 4096]);
        f.fill(&mut a);
        f.fill(&mut b);
        assert_ne!(a, b);
    }
}
