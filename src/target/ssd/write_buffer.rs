//! The controller's write buffer.

use std::collections::HashMap;

/// The write buffer: bytes held until the page they are in is programmed, and, with
/// `flush_buffer`, the logical pages held until the buffer is written out whole.
#[derive(Default)]
pub(super) struct Buffer {
    pub(super) cap: u64,
    pub(super) used: u64,
    /// Bytes freed when their page is programmed (`value`), in time order.
    pub(super) frees: super::time_queue::TimeQueue,
    /// With `flush_buffer`: the logical pages written since the buffer was last written
    /// out, in the order they came, where each is in that list, and their bytes.
    held: Vec<Held>,
    held_at: HashMap<u64, usize>,
    pub(super) held_bytes: u64,
    /// When the last write was admitted: writes take room in the order they come.
    admitted: u64,
}

/// A logical page's data held in the buffer until the buffer is written out (0 bytes: its
/// data was trimmed since).
#[derive(Debug, Clone, Copy)]
pub(super) struct Held {
    pub(super) lpn: u64,
    pub(super) bytes: u64,
}

impl Buffer {
    /// An empty buffer of `cap` bytes.
    pub(super) fn new(cap: u64) -> Buffer {
        Buffer {
            cap,
            ..Buffer::default()
        }
    }

    /// When `bytes` fit, arriving at `at`: not before the write ahead of them was admitted
    /// (room freed at a time goes to the first write waiting, not to a later one).
    pub(super) fn admit(&mut self, bytes: u64, at: u64) -> u64 {
        let mut t = at.max(self.admitted);
        while self.used + bytes > self.cap {
            match self.frees.pop_front() {
                Some(super::time_queue::Timed { at: when, value: b }) => {
                    self.used -= b.min(self.used);
                    t = t.max(when);
                }
                None => break,
            }
        }
        self.used += bytes;
        self.admitted = t;
        t
    }
    /// `bytes` leave the buffer when the program holding them ends at `at`.
    pub(super) fn release(&mut self, at: u64, bytes: u64) {
        self.frees.push(at, bytes);
    }

    /// When the last page released is programmed (`None` if none is); the buffer is empty
    /// from then.
    pub(super) fn drain(&mut self) -> Option<u64> {
        self.used = 0;
        let last = self.frees.last_at();
        self.frees.clear();
        last
    }

    /// Whether logical page `lpn`'s data is held until the buffer is written out.
    pub(super) fn is_held(&self, lpn: u64) -> bool {
        !self.held_at.is_empty() && self.held_at.contains_key(&lpn)
    }

    /// Holds `bytes` of logical page `lpn` (in place of what it held of that page).
    pub(super) fn hold(&mut self, lpn: u64, bytes: u64) {
        match self.held_at.get(&lpn) {
            Some(&i) => {
                self.held_bytes = self.held_bytes - self.held[i].bytes + bytes;
                self.held[i].bytes = bytes;
            }
            None => {
                self.held_at.insert(lpn, self.held.len());
                self.held.push(Held { lpn, bytes });
                self.held_bytes += bytes;
            }
        }
    }

    /// Drops the held pages in `first..end` (trimmed).
    pub(super) fn drop_held(&mut self, first: u64, end: u64) {
        for h in self
            .held
            .iter_mut()
            .filter(|h| (first..end).contains(&h.lpn))
        {
            self.held_bytes -= h.bytes;
            h.bytes = 0;
            self.held_at.remove(&h.lpn);
        }
    }

    /// The held pages with data, in the order they came; none is held after.
    pub(super) fn take_held(&mut self) -> Vec<Held> {
        self.held_at.clear();
        self.held_bytes = 0;
        let mut held = std::mem::take(&mut self.held);
        held.retain(|h| h.bytes > 0);
        held
    }
}
