//! The block-mapped FTL: merges and its cache written out whole.

use super::*;

/// A block-mapped drive (JMF602-like) with a cache of `cache`, used (data in every
/// page) or new.
fn block_drive(cache: &str, aged: bool) -> SsdSim {
    from_yaml(&format!(
        "id: jm\nvendor: Acme\nmodel: Jm\ncapacity: 256MiB\nssd:\n  link_rate: 280MB/s\n  command_overhead: 40us\n  channels: 2\n  dies_per_channel: 2\n  channel_rate: 40MB/s\n  page: 4KiB\n  pages_per_block: 32\n  read: 50us\n  program: 900us\n  erase: 3500us\n  raw_capacity: 288MiB\n  buffer: {cache}\n  ftl: block\n  log_blocks: 1\n  remap: false\n  aged: {aged}\n"
    ))
}

#[test]
fn a_merge_copies_only_the_pages_that_hold_data() {
    // A 4 KiB cache (one page): every scattered write after the first merges the
    // logical block of the one before. Used, each merge copies a whole block on every
    // die (32 pages each); new, only the page written there.
    let wait = |aged: bool| {
        let mut sim = block_drive("4KiB", aged);
        (0..8u64)
            .map(|i| {
                let t = sim.clock;
                write(&mut sim, i * 3 * 512 * 1024 + 4096, i) - t
            })
            .max()
            .unwrap_or(0)
    };
    let (used, new) = (wait(true), wait(false));
    let erases = 2 * 3_500_000;
    assert!(
        used > 32 * 950_000 + erases && new < 2 * 950_000 + erases + 1_000_000,
        "longest wait: used {used} ns, new {new} ns"
    );
}

#[test]
fn a_block_mapped_cache_twice_as_large_pauses_half_as_often_twice_as_long() {
    // Scattered writes, one at a time, each to another logical block (512 KiB here) and
    // not to its first page (a log written in order from there is switched in whole).
    let waits = |cache: &str| {
        let mut sim = block_drive(cache, true);
        (0..48u64)
            .map(|i| {
                let t = sim.clock;
                write(&mut sim, (i * 37 % 512) * 512 * 1024 + 5 * 4096, i) - t
            })
            .collect::<Vec<u64>>()
    };
    let pauses = |w: &[u64]| {
        w.iter()
            .copied()
            .filter(|&t| t > 10_000_000)
            .collect::<Vec<_>>()
    };
    let (small, large) = (waits("16KiB"), waits("32KiB"));
    let (a, b) = (pauses(&small), pauses(&large));
    // The writes between pauses complete in the cache.
    assert!(small
        .iter()
        .chain(&large)
        .all(|&t| !(1_000_000..=10_000_000).contains(&t)));
    assert!(
        (a.len() as f64 / b.len() as f64 - 2.0).abs() < 0.3,
        "pauses: {} with 4 pages of cache, {} with 8",
        a.len(),
        b.len()
    );
    // A pause writes the whole cache out: a merge of a 32-page block per page.
    let merge = 32 * (50_000 + 900_000) + 2 * 3_500_000;
    let longest = |p: &[u64]| p.iter().copied().max().unwrap_or(0) as f64 / merge as f64;
    assert!(
        (longest(&a) - 4.0).abs() < 0.5 && (longest(&b) - 8.0).abs() < 0.5,
        "longest pause in merges: {:.2} and {:.2}",
        longest(&a),
        longest(&b)
    );
}
