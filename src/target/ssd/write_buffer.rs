//! The controller's write buffer.

/// The write buffer: bytes held until the page they are in is programmed.
pub(super) struct Buffer {
    pub(super) cap: u64,
    pub(super) used: u64,
    /// Bytes freed when their page is programmed: (when, bytes), in time order. A new
    /// page's program ends after nearly every one before it, so it goes in a few places
    /// from the back.
    pub(super) frees: std::collections::VecDeque<(u64, u64)>,
}

impl Buffer {
    /// When `bytes` fit, arriving at `at`.
    pub(super) fn admit(&mut self, bytes: u64, at: u64) -> u64 {
        let mut t = at;
        while self.used + bytes > self.cap {
            match self.frees.pop_front() {
                Some((when, b)) => {
                    self.used -= b.min(self.used);
                    t = t.max(when);
                }
                None => break,
            }
        }
        self.used += bytes;
        t
    }
    pub(super) fn release(&mut self, at: u64, bytes: u64) {
        let i = self.frees.len()
            - self
                .frees
                .iter()
                .rev()
                .take_while(|&&(when, _)| when > at)
                .count();
        self.frees.insert(i, (at, bytes));
    }
}
