//! The block layer's counters of a device (its sysfs `stat`, a line of /proc/diskstats):
//! read before and after a job, they give the depth the device itself saw, which an engine
//! that stamps completions as it reaps them cannot measure (iostat's `aqu-sz`).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The counters of one device at one moment (Documentation/block/stat.rst).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockCounters {
    /// Read requests completed.
    pub reads: u64,
    /// Their time in the block layer, summed (ms).
    pub read_ms: u64,
    /// Write requests completed.
    pub writes: u64,
    /// Their time in the block layer, summed (ms).
    pub write_ms: u64,
    /// Time with at least one request in flight (ms).
    pub busy_ms: u64,
    /// Every request's time in flight, summed (ms): its rise over an interval, divided by
    /// the interval, is the time-averaged number in flight.
    pub queue_ms: u64,
}

impl BlockCounters {
    /// Parses a sysfs `stat` file's fields (at least the eleven every kernel since 2.6 has).
    pub fn parse(text: &str) -> Option<BlockCounters> {
        let f: Vec<u64> = text
            .split_whitespace()
            .map(|w| w.parse().ok())
            .collect::<Option<_>>()?;
        (f.len() >= 11).then(|| BlockCounters {
            reads: f[0],
            read_ms: f[3],
            writes: f[4],
            write_ms: f[7],
            busy_ms: f[9],
            queue_ms: f[10],
        })
    }
}

/// A device's counters read at a moment.
#[derive(Debug, Clone, Copy)]
pub struct Reading {
    /// When they were read.
    pub at: Instant,
    /// What they said.
    pub counters: BlockCounters,
}

/// The block device behind a target: a block device itself, or the one holding a file's
/// filesystem (a partition's own counters where it is one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockStat {
    /// Its kernel name (`vda`, `vda1`, `zram0`, `loop3`).
    pub name: String,
    stat: PathBuf,
}

impl BlockStat {
    /// The device behind `meta` (a block device's or a file's metadata); none where there
    /// is no block device (tmpfs, overlay) or the kernel gives no counters.
    pub fn of(meta: &fs::Metadata) -> Option<BlockStat> {
        let (major, minor) = super::device::dev_numbers(meta);
        Self::in_dir(&super::device::sysfs_of(major, minor)?)
    }

    /// The device whose sysfs folder is `dir`, if it has counters.
    fn in_dir(dir: &Path) -> Option<BlockStat> {
        let stat = dir.join("stat");
        BlockCounters::parse(&fs::read_to_string(&stat).ok()?)?;
        Some(BlockStat {
            name: dir.file_name()?.to_string_lossy().into_owned(),
            stat,
        })
    }

    /// Its counters now; none if they cannot be read.
    pub fn read(&self) -> Option<Reading> {
        let text = fs::read_to_string(&self.stat).ok()?;
        Some(Reading {
            at: Instant::now(),
            counters: BlockCounters::parse(&text)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_its_counters_and_a_short_or_odd_one_none() {
        // A 6.x kernel's 17 fields: reads, merges, sectors, ticks; writes, ...; in flight,
        // io_ticks, time_in_queue; discards...; flushes...
        let line = "  462837 0 3702696 76972 12 3 120 40 0 4100 77012 0 0 0 0 0 0\n";
        assert_eq!(
            BlockCounters::parse(line),
            Some(BlockCounters {
                reads: 462837,
                read_ms: 76972,
                writes: 12,
                write_ms: 40,
                busy_ms: 4100,
                queue_ms: 77012,
            })
        );
        assert_eq!(BlockCounters::parse("1 2 3 4 5 6 7 8 9 10"), None);
        assert_eq!(BlockCounters::parse("1 2 3 4 5 6 7 8 9 10 x"), None);
    }

    #[test]
    fn a_folder_without_counters_is_no_device() {
        let dir = std::env::temp_dir().join(format!("roundup-diskstats-{}", std::process::id()));
        fs::create_dir_all(dir.join("sda")).unwrap();
        assert_eq!(BlockStat::in_dir(&dir.join("sda")), None);
        fs::write(dir.join("sda/stat"), "1 0 8 2 0 0 0 0 0 2 2\n").unwrap();
        let s = BlockStat::in_dir(&dir.join("sda")).unwrap();
        assert_eq!(s.name, "sda");
        assert_eq!(s.read().unwrap().counters.reads, 1);
        fs::remove_dir_all(&dir).unwrap();
    }
}
