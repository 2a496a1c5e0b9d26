//! I/O buffers aligned for O_DIRECT.

use std::alloc::{alloc_zeroed, dealloc, Layout};

/// A heap buffer aligned to 4 KiB (enough for any logical block size), owned by one slot.
#[derive(Debug)]
pub struct AlignedBuf {
    ptr: *mut u8,
    /// Its bytes, a multiple of [`BUF_ALIGN`], and in the lowest bit (which the size never
    /// uses) whether it stands for random bytes ([`AlignedBuf::mark_random`]). Two words
    /// and no padding: a buffer moves with every request, and a struct with padding was
    /// moved in pieces whose loads overlapped the stores before them (a stall on each).
    size_and_mark: usize,
}

// SAFETY: the buffer is uniquely owned heap memory; moving it between threads is sound.
unsafe impl Send for AlignedBuf {}

/// The alignment of every buffer.
pub const BUF_ALIGN: usize = 4096;

impl AlignedBuf {
    /// The bytes a buffer of `len` bytes takes: `len` rounded up to the alignment.
    pub fn footprint(len: u64) -> u64 {
        len.div_ceil(BUF_ALIGN as u64) * BUF_ALIGN as u64
    }

    /// A zeroed buffer of `len` bytes (rounded up to the alignment). One of no bytes is a
    /// token that allocates nothing (a slot whose target reads no byte of it).
    pub fn new(len: usize) -> AlignedBuf {
        let size = Self::footprint(len as u64) as usize;
        let layout = Layout::from_size_align(size, BUF_ALIGN).expect("valid layout");
        if size == 0 {
            return AlignedBuf {
                // Aligned and never dereferenced: slices of it are empty.
                ptr: std::ptr::without_provenance_mut(BUF_ALIGN),
                size_and_mark: size,
            };
        }
        // SAFETY: layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        AlignedBuf {
            ptr,
            size_and_mark: size,
        }
    }

    /// Marks the buffer as standing for fresh random bytes it does not hold (see
    /// [`Target::random_as_mark`](super::Target::random_as_mark)), or clears the mark.
    pub fn mark_random(&mut self, random: bool) {
        self.size_and_mark = self.size() | random as usize;
    }

    /// Whether the buffer stands for fresh random bytes instead of holding its data.
    pub fn is_random(&self) -> bool {
        self.size_and_mark & 1 == 1
    }

    /// Its bytes.
    #[inline]
    fn size(&self) -> usize {
        self.size_and_mark & !1
    }

    /// The whole buffer.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for size bytes for the life of self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.size()) }
    }

    /// The whole buffer, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self guarantees exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.size()) }
    }

    /// Raw pointer for system calls.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }

    /// Capacity in bytes.
    pub fn len(&self) -> usize {
        self.size()
    }

    /// Whether this is a token of no bytes.
    pub fn is_empty(&self) -> bool {
        self.size() == 0
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        if self.size() > 0 {
            // SAFETY: allocated in new() with this size and BUF_ALIGN, a layout it checked.
            unsafe {
                dealloc(
                    self.ptr,
                    Layout::from_size_align_unchecked(self.size(), BUF_ALIGN),
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_sized() {
        let b = AlignedBuf::new(5000);
        assert_eq!(b.len(), 8192);
        assert_eq!(b.as_slice().as_ptr() as usize % BUF_ALIGN, 0);
        let token = AlignedBuf::new(0);
        assert!(token.is_empty() && token.as_slice().is_empty());
        assert_eq!(AlignedBuf::footprint(0), 0);
    }

    #[test]
    fn the_random_mark_is_kept_apart_from_the_size() {
        for len in [0, 4096, 5000] {
            let mut b = AlignedBuf::new(len);
            let size = b.len();
            assert!(!b.is_random());
            b.mark_random(true);
            b.mark_random(true);
            assert!(b.is_random());
            assert_eq!((b.len(), b.as_mut_slice().len()), (size, size));
            b.mark_random(false);
            assert!(!b.is_random());
            assert_eq!(b.as_slice().len(), size);
        }
    }
}
