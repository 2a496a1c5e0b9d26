//! A DRAM-less drive's map cache (`ssd.map_cache`): the part of the logical-to-physical map
//! the controller holds (its SRAM and the host memory buffer). A read whose map entry is
//! not held first reads the map's page from NAND, then the data: random reads over a span
//! larger than the cache covers take two reads each.

use std::collections::BTreeMap;

/// The held map pages, least recently used first.
#[derive(Debug, Clone)]
pub(super) struct MapCache {
    /// Map entries (4 bytes each) in one map page.
    entries_per_page: u64,
    /// Map pages held at most.
    capacity: usize,
    /// Map page → when it was last used; and the reverse, oldest first.
    used: BTreeMap<u64, u64>,
    by_age: BTreeMap<u64, u64>,
    tick: u64,
}

impl MapCache {
    /// A cache of `bytes` of map for a drive of `page`-byte logical pages.
    pub fn new(bytes: u64, page: u64) -> MapCache {
        MapCache {
            entries_per_page: (page / 4).max(1),
            capacity: (bytes / page).max(1) as usize,
            used: BTreeMap::new(),
            by_age: BTreeMap::new(),
            tick: 0,
        }
    }

    /// Looks up logical page `lpn`'s entry: `None` if its map page is held, else the map
    /// page to read first (which is then held, the least recently used one dropped).
    pub fn miss(&mut self, lpn: u64) -> Option<u64> {
        let page = lpn / self.entries_per_page;
        self.tick += 1;
        let hit = match self.used.insert(page, self.tick) {
            Some(age) => {
                self.by_age.remove(&age);
                true
            }
            None => false,
        };
        self.by_age.insert(self.tick, page);
        if self.used.len() > self.capacity {
            if let Some((_, oldest)) = self.by_age.pop_first() {
                self.used.remove(&oldest);
            }
        }
        (!hit).then_some(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_map_page_goes() {
        // Two map pages of 4 entries each (16-byte pages).
        let mut m = MapCache::new(32, 16);
        assert_eq!(m.miss(0), Some(0));
        assert_eq!(m.miss(3), None);
        assert_eq!(m.miss(4), Some(1));
        assert_eq!(m.miss(1), None, "page 0 used again");
        assert_eq!(m.miss(8), Some(2), "page 1 dropped");
        assert_eq!(m.miss(5), Some(1));
        assert_eq!(m.miss(2), Some(0));
    }
}
