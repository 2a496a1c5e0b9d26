//! Write data: incompressible (fresh random bytes), compressible (a random fraction of each
//! 4 KiB, the rest a fixed repeating pattern) and zeros.
//!
//! Bulk random bytes come from xoshiro256++ (our own code, so its output never changes),
//! seeded for every write from the job's ChaCha8 data stream: statistically random and
//! incompressible, at several GB/s, so that generating fresh data does not limit the
//! engine.

use rand::RngCore;
use rand_chacha::ChaCha8Rng;

use crate::rng::stream;
use crate::workload::DataKind;

/// The fixed part of compressible data: a short repeating pattern.
const PATTERN: &[u8; 16] = b"roundup-pattern.";
/// Compressible data mixes random and pattern bytes within each chunk of this size, so that
/// a controller compressing per page sees the same ratio as one compressing whole requests.
const CHUNK: usize = 4096;
/// The pattern repeated over a whole chunk, copied in one go after a chunk's random bytes.
const PATTERN_CHUNK: [u8; CHUNK] = {
    let mut chunk = [0u8; CHUNK];
    let mut i = 0;
    while i < CHUNK {
        chunk[i] = PATTERN[i % PATTERN.len()];
        i += 1;
    }
    chunk
};

/// xoshiro256++ (Blackman and Vigna), seeded by SplitMix64.
struct Xoshiro([u64; 4]);

impl Xoshiro {
    fn seeded(seed: u64) -> Xoshiro {
        let mut z = seed;
        let mut next = || {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut x = z;
            x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            x ^ (x >> 31)
        };
        Xoshiro([next(), next(), next(), next()])
    }

    #[inline]
    fn next(&mut self) -> u64 {
        let s = &mut self.0;
        let out = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        out
    }

    fn fill(&mut self, buf: &mut [u8]) {
        let mut words = buf.chunks_exact_mut(8);
        for w in &mut words {
            w.copy_from_slice(&self.next().to_le_bytes());
        }
        let rest = words.into_remainder();
        let last = self.next().to_le_bytes();
        rest.copy_from_slice(&last[..rest.len()]);
    }
}

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

    /// For incompressible data, draws what [`fill`](Self::fill) would and writes nothing
    /// (the target takes the buffer as marked random); `false`, drawing nothing, otherwise.
    pub fn skip_random(&mut self) -> bool {
        if self.kind != DataKind::Incompressible {
            return false;
        }
        self.rng.next_u64();
        true
    }

    /// Writes fresh data into `buf`.
    pub fn fill(&mut self, buf: &mut [u8]) {
        match self.kind {
            DataKind::Incompressible => Xoshiro::seeded(self.rng.next_u64()).fill(buf),
            DataKind::Zeros => buf.fill(0),
            DataKind::Compressible => {
                let mut bulk = Xoshiro::seeded(self.rng.next_u64());
                for chunk in buf.chunks_mut(CHUNK) {
                    let random = ((chunk.len() as f64) * self.fraction).round() as usize;
                    let (head, tail) = chunk.split_at_mut(random);
                    bulk.fill(head);
                    tail.copy_from_slice(&PATTERN_CHUNK[..tail.len()]);
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
    fn compressible_chunks_are_random_bytes_then_the_pattern_from_its_start() {
        let mut f = DataFiller::new(DataKind::Compressible, 0.25, 5);
        let mut buf = vec![0u8; 2 * CHUNK + 100];
        f.fill(&mut buf);
        for chunk in buf.chunks(CHUNK) {
            let random = (chunk.len() as f64 * 0.25).round() as usize;
            let tail = &chunk[random..];
            assert!(tail
                .iter()
                .enumerate()
                .all(|(i, b)| *b == PATTERN[i % PATTERN.len()]));
            assert_ne!(&chunk[..16.min(random)], &PATTERN[..16.min(random)]);
        }
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

#[cfg(test)]
mod stability {
    use super::*;

    #[test]
    fn xoshiro_matches_its_reference_output() {
        // xoshiro256++ from the state {1, 2, 3, 4}: the reference implementation's first outputs.
        let mut x = Xoshiro([1, 2, 3, 4]);
        assert_eq!(
            [x.next(), x.next(), x.next()],
            [41943041, 58720359, 3588806011781223]
        );
    }
}
