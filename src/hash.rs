//! A hasher for maps keyed by small integers (latencies, packed colours): one multiply a
//! key, where std's SipHash costs more than the work the map is for. Not for keys an
//! adversary picks.

/// Multiplicative hashing of integer keys.
#[derive(Default)]
pub struct IntHasher(u64);

/// The `BuildHasher` of [`IntHasher`], for `HashMap::default()`.
pub type BuildIntHasher = std::hash::BuildHasherDefault<IntHasher>;

impl std::hash::Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ *b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}
