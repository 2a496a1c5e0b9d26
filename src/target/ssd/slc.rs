//! The SLC cache of a TLC or QLC drive ([`crate::drive::SlcSpec`]): where each program of
//! host data goes (SLC mode or native cells), and what must be folded first.
//!
//! The cache is kept as amounts of host data, not as blocks: the FTL places the pages as
//! it always does, and this decides each host program's time and the folding work booked
//! before it. Data that goes stale (overwritten, trimmed) is taken from the cache and the
//! native cells in proportion to what each holds, as its place is not tracked page by page.

use crate::drive::SlcSpec;

/// The cache's state.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slc {
    /// Native bits a cell.
    bits: u64,
    /// The static and dynamic cache's most host data.
    static_cap: u64,
    dynamic_cap: u64,
    /// The user area's room, in native bytes (the drive's capacity).
    user: u64,
    /// SLC program time.
    pub t_prog: u64,
    /// Whether idle time folds the cache.
    pub fold_in_idle: bool,
    /// The controller's time a byte of host data programmed natively (0: no limit).
    pub native_ns_per_byte: f64,
    /// Bytes of the dynamic cache flushed with each byte placed natively (0: none).
    flush: f64,
    /// Whether host data goes to native cells until the flush has emptied the dynamic cache.
    flushing: bool,
    /// Host data in the static cache, in the dynamic cache, and in native cells.
    held_static: u64,
    held_dynamic: u64,
    native: u64,
}

/// Where a program of host data goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Placement {
    /// In SLC mode.
    Slc,
    /// In native cells, after `fold` bytes of the dynamic cache are folded to make room.
    Native { fold: u64 },
}

impl Slc {
    /// An empty cache for a drive of `capacity` bytes.
    pub fn new(s: &SlcSpec, capacity: u64) -> Slc {
        Slc {
            bits: s.bits as u64,
            static_cap: s.r#static.map_or(0, |b| b.0),
            dynamic_cap: s.dynamic.map_or(0, |b| b.0),
            user: capacity,
            t_prog: s.program.0,
            fold_in_idle: s.fold_in_idle.unwrap_or(true),
            native_ns_per_byte: s.native_rate.map_or(0.0, |r| 1e9 / r.0),
            flush: s.flush.unwrap_or(0.0),
            flushing: false,
            held_static: 0,
            held_dynamic: 0,
            native: 0,
        }
    }

    /// Native room the data takes now: the dynamic cache's `bits` a byte.
    fn used(&self) -> u64 {
        self.native + self.held_dynamic * self.bits
    }

    /// Whether [`Slc::place`] would put `bytes` of host data in SLC mode now.
    pub fn takes(&self, bytes: u64) -> bool {
        let flushing = self.flushing && self.held_dynamic > 0;
        self.held_static + bytes <= self.static_cap
            || (!flushing
                && self.held_dynamic + bytes <= self.dynamic_cap
                && self.used() + bytes * self.bits <= self.user)
    }

    /// Places `bytes` of host data: in the static cache while it has room, then the dynamic
    /// one while it has room and the user area can take it in SLC mode, else in native
    /// cells, folding as much of the dynamic cache first as the user area needs. With
    /// `flush`, each native placement folds that share of `bytes` more, and host data stays
    /// native until the dynamic cache is empty.
    pub fn place(&mut self, bytes: u64) -> Placement {
        if self.held_static + bytes <= self.static_cap {
            self.held_static += bytes;
            return Placement::Slc;
        }
        if self.takes(bytes) {
            self.held_dynamic += bytes;
            return Placement::Slc;
        }
        let over = (self.used() + bytes).saturating_sub(self.user);
        // Each byte folded frees `bits` − 1 bytes of native room.
        let needed = over.div_ceil(self.bits - 1).min(self.held_dynamic);
        let flushed = super::params::scaled(bytes, self.flush).min(self.held_dynamic - needed);
        let fold = needed + flushed;
        self.held_dynamic -= fold;
        self.native += fold + bytes;
        self.flushing = self.flush > 0.0 && self.held_dynamic > 0;
        Placement::Native { fold }
    }

    /// Data already on the drive, in native cells (an aged drive's).
    pub fn hold_native(&mut self, bytes: u64) {
        self.native = bytes;
    }

    /// Host data now held: stale data (`valid` is what the FTL still maps) is taken from the
    /// caches and the native cells in proportion.
    pub fn sync(&mut self, valid: u64) {
        let held = self.held_static + self.held_dynamic + self.native;
        if held <= valid {
            return;
        }
        if valid == 0 {
            (self.held_static, self.held_dynamic, self.native) = (0, 0, 0);
            return;
        }
        let keep = |x: u64| ((x as u128 * valid as u128) / held as u128) as u64;
        self.held_static = keep(self.held_static);
        self.held_dynamic = keep(self.held_dynamic);
        self.native = valid - self.held_static - self.held_dynamic;
    }

    /// Folds up to `most` bytes of the cache into native cells (the dynamic cache first):
    /// returns how many.
    pub fn fold(&mut self, most: u64) -> u64 {
        let from_dynamic = most.min(self.held_dynamic);
        self.held_dynamic -= from_dynamic;
        // The static cache's data needs native room of its own.
        let room = self.user.saturating_sub(self.used() + from_dynamic);
        let from_static = (most - from_dynamic).min(self.held_static).min(room);
        self.held_static -= from_static;
        self.native += from_dynamic + from_static;
        from_dynamic + from_static
    }

    /// Host data in the cache.
    #[cfg(test)]
    pub fn held(&self) -> u64 {
        self.held_static + self.held_dynamic
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(capacity: u64) -> Slc {
        let yaml = "bits: 3\nstatic: 4\ndynamic: 20\nprogram: 100us\n";
        let spec: SlcSpec = serde_yaml::from_str(yaml).unwrap();
        Slc::new(&spec, capacity)
    }

    #[test]
    fn static_then_dynamic_then_native_then_folding() {
        let mut c = cache(60);
        let placed: Vec<Placement> = (0..60).map(|_| c.place(1)).collect();
        // 4 static, 20 dynamic (60 of room at 3 each), 60 − 60 = 0 room: then natives that
        // fold half a byte each.
        assert!(placed[..24].iter().all(|p| *p == Placement::Slc));
        assert_eq!(placed[24], Placement::Native { fold: 1 });
        let folded: u64 = placed[24..]
            .iter()
            .map(|p| match p {
                Placement::Native { fold } => *fold,
                Placement::Slc => 0,
            })
            .sum();
        // 36 written natively; of the 20 dynamic, 18 folded, as 2 still fit the 60 of
        // room beside 54 native: 4 static + 2 dynamic held.
        assert_eq!(folded, 18);
        assert_eq!((c.held(), c.native), (6, 54));
    }

    #[test]
    fn a_flush_empties_the_full_cache_and_then_it_takes_writes_again() {
        let yaml = "bits: 3\nstatic: 4\ndynamic: 20\nprogram: 100us\nflush: 0.5\n";
        let spec: SlcSpec = serde_yaml::from_str(yaml).unwrap();
        let mut c = Slc::new(&spec, 1000);
        let placed: Vec<Placement> = (0..100).map(|_| c.place(2)).collect();
        // 4 static and 20 dynamic in SLC mode (12 writes of 2); then native writes that
        // flush a byte each until the 20 are folded (20 writes), then the cache again.
        assert!(placed[..12].iter().all(|p| *p == Placement::Slc));
        assert!(placed[12..32]
            .iter()
            .all(|p| *p == Placement::Native { fold: 1 }));
        assert!(placed[32..42].iter().all(|p| *p == Placement::Slc));
        assert_eq!(placed[42], Placement::Native { fold: 1 });
        // Without it, the full cache stays full and nothing is folded while room lasts.
        let mut plain = cache(1000);
        let folded: u64 = (0..100)
            .map(|_| match plain.place(2) {
                Placement::Native { fold } => fold,
                Placement::Slc => 0,
            })
            .sum();
        assert_eq!((folded, plain.held()), (0, 24));
    }

    #[test]
    fn the_dynamic_cache_shrinks_as_the_drive_fills() {
        let mut c = cache(30);
        // 4 static; then the dynamic cache until 3 × held reaches the 30 of room.
        let slc = (0..40).take_while(|_| c.place(1) == Placement::Slc).count();
        assert_eq!(slc, 4 + 10);
    }

    #[test]
    fn stale_data_leaves_in_proportion_and_idle_folds() {
        let mut c = cache(1000);
        for _ in 0..30 {
            c.place(1);
        }
        c.sync(15);
        assert_eq!(c.held() + c.native, 15);
        assert_eq!(c.fold(100), 12);
        assert_eq!(c.held(), 0);
        c.sync(0);
        assert_eq!((c.held(), c.native), (0, 0));
    }
}
