//! The map: trims, a page's units stored apart, and the books (valid bytes against
//! held) after any mix of writes.

use super::*;

#[test]
fn a_partial_trim_leaves_every_block_in_its_victim_bucket() {
    let (mut trimmed, mut twin) = (drive_aged("greedy", true), drive_aged("greedy", true));
    let pages = trimmed.info.capacity / 4096;
    random_wa(&mut trimmed, pages, 3);
    random_wa(&mut twin, pages, 3);
    // The middle half, from inside a page to inside another.
    trimmed
        .trim(pages / 4 * 4096 + 100, pages / 2 * 4096)
        .unwrap();
    let p = trimmed.p;
    let Ftl::Page(f) = &trimmed.ftl else {
        unreachable!("a page-mapped drive")
    };
    assert!(
        f.map[(pages / 4) as usize] != 0,
        "a page trimmed in part keeps its data"
    );
    assert!(f.map[(pages / 4 + 1) as usize] == 0);
    assert!(f.map[(pages * 3 / 4) as usize] != 0);
    let mut listed = 0;
    for (die, victims) in f.closed.iter().enumerate() {
        for (k, list) in victims.buckets.iter().enumerate() {
            for (pos, &b) in list.iter().enumerate() {
                let block = &f.blocks[b as usize];
                assert!(block.closed && b as u64 / p.blocks_per_die == die as u64);
                assert_eq!((k, pos), (bucket_of(block.valid, p), block.pos as usize));
                listed += 1;
            }
        }
    }
    assert_eq!(listed, f.blocks.iter().filter(|b| b.closed).count());
    // Every block knows its die, erased and reused or not.
    assert!(f.blocks.iter().any(|b| b.erased > 0));
    for (k, b) in f.blocks.iter().enumerate() {
        assert_eq!(b.die as u64, k as u64 / p.blocks_per_die);
    }
    // The space comes back: the same writes copy less than on the untrimmed twin.
    assert!(random_wa(&mut trimmed, pages / 2, 4) < random_wa(&mut twin, pages / 2, 4));
}

#[test]
fn trim_gives_the_space_back() {
    let mut sim = drive("greedy");
    let pages = sim.info.capacity / 4096;
    for i in 0..pages {
        write(&mut sim, i * 4096, i);
    }
    assert!(sim.locate(5).is_some());
    sim.trim(0, sim.info.capacity).unwrap();
    // A discarded page reads without touching the NAND.
    assert!(sim.locate(5).is_none());
    let before = sim.stats();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for i in 0..50_000 {
        write(&mut sim, below(&mut rng, pages) * 4096, i);
    }
    let s = sim.stats();
    assert_eq!(
        s.gc_pages, before.gc_pages,
        "nothing valid to copy after a TRIM"
    );
}

/// Sums of the page FTL's books: the valid bytes its blocks count, and the bytes its
/// logical pages hold.
fn valid_and_held(sim: &SsdSim) -> (u64, u64) {
    let Ftl::Page(f) = &sim.ftl else {
        panic!("a page FTL")
    };
    let valid = f.blocks.iter().map(|b| b.valid).sum();
    let held = (0..f.map.len() as u64).map(|lpn| f.held_bytes(lpn)).sum();
    (valid, held)
}

#[test]
fn a_small_write_remaps_its_units_and_leaves_the_rest_of_the_page_where_it_was() {
    // 16 KiB pages on a remapping drive: the map tracks each 4 KiB unit apart.
    let yaml = small_yaml("greedy", false).replace("page: 4KiB", "page: 16KiB");
    let mut sim = from_yaml(&yaml);
    assert_eq!(sim.p.map_units, 4);
    let page = 16384u64;
    let rw = |sim: &mut SsdSim, op: Op, offset: u64, len: u32, seq: u64| {
        let req = IoRequest {
            seq,
            op,
            offset,
            len,
        };
        let t = sim.clock;
        let done = sim.serve(t, &req, None).unwrap();
        sim.clock = sim.clock.max(done);
        done - t
    };
    for i in 0..64 {
        rw(&mut sim, Op::Write, i * page, page as u32, i);
    }
    // The second 4 KiB of each of the first 16 pages written again.
    for i in 0..16 {
        rw(&mut sim, Op::Write, i * page + 4096, 4096, 100 + i);
    }
    sim.settle().unwrap();
    let (valid, held) = valid_and_held(&sim);
    assert_eq!(held, 64 * page, "every page still holds all its data");
    assert_eq!(valid, held, "the blocks count what the pages hold");
    let Ftl::Page(f) = &sim.ftl else { panic!() };
    assert!(matches!(f.mapping(3), page_ftl::Mapping::Split(_)));
    assert!(matches!(f.mapping(40), page_ftl::Mapping::Whole(_)));
    // Reading a split page moves all its bytes, from its two places: its 16 KiB cross the
    // 40 MB/s channels (410 µs), where its 4 KiB alone would take a quarter of that.
    let idle = |sim: &mut SsdSim| sim.clock += 10_000_000;
    idle(&mut sim);
    let split = rw(&mut sim, Op::Read, 3 * page, page as u32, 200);
    idle(&mut sim);
    let whole = rw(&mut sim, Op::Read, 40 * page, page as u32, 201);
    idle(&mut sim);
    let unit = rw(&mut sim, Op::Read, 3 * page + 4096, 4096, 202);
    assert!(
        split >= whole * 9 / 10,
        "split {split} ns, whole {whole} ns"
    );
    assert!(
        unit * 2 < whole,
        "its new unit alone {unit} ns, a whole page {whole} ns"
    );
    // Garbage collection moves split pages' units with their shares, and a page written
    // whole again or trimmed gives its units back: the books still agree.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let units = sim.info.capacity / 4096;
    for i in 0..150_000 {
        rw(
            &mut sim,
            Op::Write,
            below(&mut rng, units) * 4096,
            4096,
            300 + i,
        );
    }
    rw(&mut sim, Op::Write, 0, 4 * page as u32, 200_000);
    sim.discard(page * 8, page * 4);
    sim.settle().unwrap();
    assert!(sim.stats().gc_pages > 0, "the writes collected garbage");
    let (valid, held) = valid_and_held(&sim);
    assert_eq!(
        valid, held,
        "the blocks count what the pages hold after collection"
    );
    let Ftl::Page(f) = &sim.ftl else { panic!() };
    assert!(matches!(f.mapping(0), page_ftl::Mapping::Whole(_)));
    assert_eq!(f.mapping(9), page_ftl::Mapping::Unmapped);
}

#[test]
fn the_books_agree_after_random_writes_of_any_size_trims_and_collection() {
    // Pages of 4, 8 and 16 KiB, one or two planes, new or used, with and without an SLC
    // cache: writes of 512 B to 64 KiB at any 512 B offset, trims and reads, enough to
    // collect garbage many times over. After each round the blocks count exactly what the
    // pages hold.
    let configs = [
        ("4KiB", 1, false, ""),
        ("8KiB", 2, false, ""),
        ("8KiB", 1, true, ""),
        ("16KiB", 1, false, ""),
        (
            "16KiB",
            2,
            false,
            "  read_senses: [2, 3, 2]\n  one_shot: true\n  slc_cache: {bits: 3, static: 4MiB, dynamic: 80MiB, program: 200us}\n",
        ),
    ];
    for (page, planes, aged, extra) in configs {
        let yaml = small_yaml("greedy", aged)
            .replace("page: 4KiB", &format!("page: {page}\n  planes: {planes}"))
            .replace("  ftl: page\n", &format!("{extra}  ftl: page\n"));
        let mut sim = from_yaml(&yaml);
        let cap = sim.info.capacity;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut seq = 0u64;
        for round in 0..6 {
            for _ in 0..12_000 {
                seq += 1;
                let len = match below(&mut rng, 8) {
                    0 => 512,
                    1..=4 => 4096,
                    5 => 12_288,
                    6 => 16_384,
                    _ => 65_536,
                };
                let offset = below(&mut rng, (cap - len) / 512) * 512;
                let op = match below(&mut rng, 10) {
                    0 => Op::Read,
                    _ => Op::Write,
                };
                if below(&mut rng, 200) == 0 {
                    sim.discard(offset, len);
                    continue;
                }
                let req = IoRequest {
                    seq,
                    op,
                    offset,
                    len: len as u32,
                };
                let t = sim.clock;
                let done = sim.serve(t, &req, None).unwrap();
                sim.clock = sim.clock.max(done);
            }
            sim.settle().unwrap();
            let (valid, held) = valid_and_held(&sim);
            assert_eq!(
                valid,
                held,
                "{page} pages, {planes} planes{}: round {round}",
                if extra.is_empty() { "" } else { ", SLC cache" }
            );
            if !extra.is_empty() {
                // The SLC cache's books count what the FTL holds, trims taken off.
                assert_eq!(sim.valid, held, "{page}: the cache's books, round {round}");
            }
        }
        assert!(sim.stats().gc_pages > 0, "{page}, {planes}: collected");
        // A trim of the whole drive (a purge: every block's pages counted out at once).
        sim.discard(0, cap);
        assert_eq!(valid_and_held(&sim), (0, 0), "{page}, {planes}: purged");
        assert_eq!(sim.valid, 0, "{page}, {planes}: the cache's books purged");
        assert!(
            extra.is_empty() || sim.stats().folded_bytes > 0,
            "the SLC cache folded"
        );
    }
}

#[test]
fn a_write_of_part_of_a_map_unit_reads_the_rest_first_and_stores_the_whole_unit() {
    // 16 KiB pages on a remapping drive whose map tracks 4 KiB units: a 512 B write into a
    // unit that holds data waits for that unit to be read (50 µs sense, 102 µs of channel)
    // and the merged 4 KiB is stored; into a unit that holds none nothing is read. A
    // compressing controller packs what comes: it stores the 512 B alone, reading nothing.
    let yaml = small_yaml("greedy", false).replace("page: 4KiB", "page: 16KiB");
    let page = 16384u64;
    let rw = |sim: &mut SsdSim, offset: u64, len: u32, seq: u64| {
        let req = IoRequest {
            seq,
            op: Op::Write,
            offset,
            len,
        };
        let t = sim.clock;
        let done = sim.serve(t, &req, None).unwrap();
        sim.clock = sim.clock.max(done) + 10_000_000;
        done - t
    };
    let written = |yaml: &str| {
        let mut sim = from_yaml(yaml);
        for i in 0..8 {
            rw(&mut sim, i * page, page as u32, i);
        }
        sim.settle().unwrap();
        sim.clock += 10_000_000;
        sim
    };
    let mut sim = written(&yaml);
    let onto_data = rw(&mut sim, page + 512, 512, 100);
    let onto_nothing = rw(&mut sim, 100 * page + 512, 512, 101);
    let whole_unit = rw(&mut sim, 2 * page + 4096, 4096, 102);
    assert!(
        onto_data > onto_nothing + 140_000,
        "onto data {onto_data} ns, onto nothing {onto_nothing} ns"
    );
    assert!(
        whole_unit + 100_000 < onto_data,
        "a whole unit {whole_unit} ns reads nothing either (onto data {onto_data} ns)"
    );
    sim.settle().unwrap();
    let (valid, held) = valid_and_held(&sim);
    assert_eq!(valid, held, "the blocks count what the pages hold");
    let Ftl::Page(f) = &sim.ftl else { panic!() };
    assert_eq!(f.held_bytes(1), page, "the page still holds all its data");
    assert_eq!(f.held_bytes(100), 4096, "the new unit is stored whole");
    // The same on a compressing controller: nothing read, the 512 B stored alone.
    let mut packing = written(&(yaml + "  compression: true\n"));
    let packed = rw(&mut packing, page + 512, 512, 100);
    assert!(
        packed + 100_000 < onto_data,
        "packed {packed} ns, onto data {onto_data} ns"
    );
}
