//! Garbage collection in the foreground and background, victims, aged and used drives,
//! histories, a die that fills.

use super::*;

/// Fills the drive in order, then writes `n` random pages over `span` of it.
fn used(policy: &str, span: u64, n: u64) -> SsdStats {
    let mut sim = drive(policy);
    let pages = sim.info.capacity / 4096;
    for i in 0..pages {
        write(&mut sim, i * 4096, i);
    }
    let before = sim.stats();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for i in 0..n {
        write(&mut sim, below(&mut rng, span / 4096) * 4096, pages + i);
    }
    let after = sim.stats();
    SsdStats {
        host_bytes: after.host_bytes - before.host_bytes,
        nand_bytes: after.nand_bytes - before.nand_bytes,
        gc_pages: after.gc_pages - before.gc_pages,
        erases: after.erases - before.erases,
        merges: 0,
        page_reads: 0,
        read_retries: 0,
        folded_bytes: 0,
    }
}

#[test]
fn garbage_collection_copies_and_counts_write_amplification() {
    // Random writes over the whole of a full drive: every victim still holds valid pages.
    let s = used("greedy", 256 << 20, 200_000);
    assert!(s.gc_pages > 0 && s.erases > 0, "{s:?}");
    let wa = s.write_amplification();
    assert!(wa > 1.5 && wa < 20.0, "write amplification {wa}");
}

#[test]
fn foreground_collection_holds_the_host_background_passes_the_die_over() {
    // The same drive, written whole and then at random over a quarter of it at queue
    // depth 1: collecting on the controller makes a write wait for a victim's copies and
    // erase; collecting on a die lets the writes go to the others.
    // Returns the writes that waited longer than 3 ms, and the victims collected.
    let stalls = |mode: &str| {
        // The small drive with four channels of four dies.
        let yaml = small_yaml("greedy", false).replace(
            "channels: 2\n  dies_per_channel: 2",
            "channels: 4\n  dies_per_channel: 4",
        ) + &format!("  gc: {mode}\n");
        let mut sim = from_yaml(&yaml);
        let pages = sim.info.capacity / 4096;
        for i in 0..pages {
            write(&mut sim, i * 4096, i);
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let erases = sim.stats().erases;
        let mut slow = 0;
        for i in 0..40_000 {
            let t = sim.clock;
            let done = write(&mut sim, below(&mut rng, pages / 4) * 4096, pages + i);
            slow += u64::from(done - t > 3_000_000);
        }
        (slow, sim.stats().erases - erases)
    };
    let (fg, victims) = stalls("foreground");
    let (bg, _) = stalls("background");
    assert!(victims > 1000, "{victims} victims");
    // Every victim holds up one write (the one after which it was collected), at least
    // for its erase.
    assert!(
        fg >= victims,
        "foreground: {fg} writes over 3 ms, {victims} victims"
    );
    assert!(
        bg * 10 < fg,
        "background: {bg} writes over 3 ms, foreground {fg}"
    );
}

#[test]
fn a_host_operation_waits_for_one_step_of_background_collection() {
    // 100 ms of copies queued at 0 in steps of 1 ms; a read ready at 10.3 ms waits for
    // the step running then, and the collection ends later by the read's time.
    let mut die = Die::default();
    assert_eq!(die.background(0, 100_000_000, 1_000_000), 100_000_000);
    let start = die.start(10_300_000);
    assert_eq!(start, 11_000_000);
    die.book(start + 50_000);
    assert_eq!(die.free_at(), 100_050_000);
    // An erase (one 3.5 ms step) is waited for whole.
    assert_eq!(die.background(0, 3_500_000, 3_500_000), 103_550_000);
    assert_eq!(die.start(100_100_000), 103_550_000);
    // Past the end of the collection nothing waits.
    assert_eq!(die.start(200_000_000), 200_000_000);
    // A program into the block a victim's erase frees goes right after that erase,
    // before the next victim's copies.
    let mut die = Die::default();
    die.background(0, 10_000_000, 1_000_000);
    die.background(0, 3_500_000, 3_500_000);
    die.background(0, 10_000_000, 1_000_000);
    assert_eq!(die.background_after(0, 13_500_000, 900_000), 14_400_000);
    assert_eq!(die.free_at(), 24_400_000);
    // The block's next page is programmed after it, not before.
    assert_eq!(die.background_after(0, 13_500_000, 900_000), 15_300_000);
    assert_eq!(die.free_at(), 25_300_000);
    // The stretch a program follows is the first that ends at or after the time asked
    // (stretches ending at 2, 5, 6 and 10 ms; before the first, on a boundary, between
    // two, past the end).
    for (after, end) in [
        (0, 2_000_000),
        (2_000_000, 2_000_000),
        (2_000_001, 5_000_000),
        (5_500_000, 6_000_000),
        (6_000_000, 6_000_000),
        (9_000_000, 10_000_000),
        (12_000_000, 10_000_000),
    ] {
        let mut die = Die::default();
        for (work, step) in [(2, 1), (3, 3), (1, 1), (4, 2)] {
            die.background(0, work * 1_000_000, step * 1_000_000);
        }
        assert_eq!(
            die.background_after(0, after, 500_000),
            end + 500_000,
            "{after}"
        );
        assert_eq!(die.free_at(), 10_500_000);
    }
    // Collection the host must wait for ends after everything queued before it.
    let mut die = Die::default();
    die.background(0, 5_000_000, 1_000_000);
    assert_eq!(die.block(1_000_000, 2_000_000), 7_000_000);
    assert_eq!(die.start(1_000_000), 7_000_000);
}

/// Eight 4 KiB writes, 1 MiB apart, all issued at time zero: on a used drive at its
/// collection watermark, they reach every die twice.
fn burst_at_zero(sim: &mut SsdSim) {
    for i in 0..8 {
        let req = IoRequest {
            seq: i,
            op: Op::Write,
            offset: i * (1 << 20),
            len: 4096,
        };
        sim.serve(0, &req, None).unwrap();
    }
}

#[test]
fn an_idle_interval_lets_the_collection_finish() {
    // A used drive's burst of writes leaves every die collecting; a benchmark's
    // interval (`Target::idle`) moves the clock on and the victims are done by then.
    let mut sim = drive_aged("greedy", true);
    burst_at_zero(&mut sim);
    let now = sim.clock;
    assert!(sim.die.iter_mut().all(|d| d.collecting(now)));
    sim.idle(1_000_000_000, &std::sync::atomic::AtomicBool::new(false));
    assert_eq!(sim.clock, now + 1_000_000_000);
    let later = sim.clock;
    assert!(sim.die.iter_mut().all(|d| !d.collecting(later)));
}

#[test]
fn a_die_collects_one_victim_at_a_time_in_the_background() {
    // A used drive starts at its collection watermark. Writes in a burst reach every die
    // twice; each die takes one victim (its copies take room in the die's open block as
    // they are booked) and the next only once that one is erased, so the host's pages
    // find room in blocks already erased instead of waiting behind several victims.
    let mut sim = drive_aged("greedy", true);
    let victim_at_most = 32 * (50_000 + 900_000) + 3_500_000;
    burst_at_zero(&mut sim);
    for (d, die) in sim.die.iter_mut().enumerate() {
        assert!(die.collecting(0), "die {d} collects");
        assert!(
            die.bg_left <= victim_at_most,
            "die {d}: {} ms of collection queued, more than one victim",
            die.bg_left / 1_000_000
        );
    }
    // Once the victim is erased, the die's next write starts another.
    let later = victim_at_most + 1;
    let Ftl::Page(f) = &sim.ftl else { panic!() };
    let die = f.die;
    assert!(!sim.die[die].collecting(later));
    let req = IoRequest {
        seq: 8,
        op: Op::Write,
        offset: 9 << 20,
        len: 4096,
    };
    sim.serve(later, &req, None).unwrap();
    assert!(sim.die.iter_mut().any(|d| d.collecting(later)));
}

#[test]
fn reads_on_a_used_drive_pass_between_the_steps_of_its_collection() {
    // A used drive written and read at random, a read after every write: its victims
    // keep dies busy for tens of milliseconds in the background, and a read waits for
    // a step (a page moved, or an erase) at most, never for a whole victim.
    let mut sim = drive_aged("greedy", true);
    let pages = sim.info.capacity / 4096;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let erases = sim.stats().erases;
    let mut longest = 0;
    for i in 0..20_000 {
        write(&mut sim, below(&mut rng, pages) * 4096, 2 * i);
        let req = IoRequest {
            seq: 2 * i + 1,
            op: Op::Read,
            offset: below(&mut rng, pages) * 4096,
            len: 4096,
        };
        let t = sim.clock;
        let done = sim.serve(t, &req, None).unwrap();
        sim.clock = done;
        longest = longest.max(done - t);
    }
    // Victims of 32 pages, most of them valid: a collection takes 20 to 30 ms. A read
    // waits at most for an erase (3.5 ms) and a program (0.9 ms) before its own turn.
    assert!(sim.stats().erases - erases > 500, "{:?}", sim.stats());
    assert!(
        longest < 8_000_000,
        "a read waited {:.1} ms",
        longest as f64 / 1e6
    );
}

#[test]
fn fifo_victims_copy_cold_data_greedy_ones_do_not() {
    // Hot data in a quarter of the drive, the rest cold (written once).
    let greedy = used("greedy", 64 << 20, 150_000).write_amplification();
    let fifo = used("fifo", 64 << 20, 150_000).write_amplification();
    assert!(fifo > 1.3 * greedy, "fifo {fifo:.2} vs greedy {greedy:.2}");
}

#[test]
fn a_die_its_data_fills_is_an_error_not_a_hang() {
    // The least spare area a drive file may give (four blocks a die), used and full:
    // writes go to the dies in turn while the pages they replace are anywhere, so one
    // die's valid data grows until no victim there frees a block. Collection must say
    // so; it used to take victims forever. (A watchdog fails the test if it hangs.)
    let yaml = small_yaml("fifo", true).replace("raw_capacity: 288MiB", "raw_capacity: 258MiB");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut sim = from_yaml(&yaml);
        let pages = sim.info.capacity / 4096;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut outcome = Ok(());
        for i in 0..2_000_000 {
            let req = IoRequest {
                seq: i,
                op: Op::Write,
                offset: below(&mut rng, pages) * 4096,
                len: 4096,
            };
            match sim.serve(sim.clock, &req, None) {
                Ok(done) => sim.clock = sim.clock.max(done),
                Err(e) => {
                    outcome = Err(e.to_string());
                    break;
                }
            }
        }
        let _ = tx.send(outcome);
    });
    let outcome = rx
        .recv_timeout(std::time::Duration::from_secs(300))
        .expect("garbage collection still running after 5 minutes");
    let e = outcome.expect_err("a die runs out of room");
    assert!(
        e.contains("cannot free a block") && e.contains("spare area"),
        "{e}"
    );
}

#[test]
fn an_aged_drive_is_laid_out_as_random_use_leaves_it() {
    let mut built = drive_aged("greedy", true);
    let pages = built.info.capacity / 4096;
    let Ftl::Page(f) = &built.ftl else { panic!() };
    // Every logical page stored exactly once.
    let mapped = f.map.iter().filter(|w| **w != 0).count() as u64;
    assert_eq!(mapped, pages);
    let valid: u64 = f.blocks.iter().map(|b| b.valid).sum();
    assert_eq!(valid, pages * 4096);
    // Against a drive really aged by writing it full and then four times over at random:
    // the next random writes cost about as much NAND work on both.
    let mut aged = drive("greedy");
    for i in 0..pages {
        write(&mut aged, i * 4096, i);
    }
    random_wa(&mut aged, 4 * pages, 1);
    let really = random_wa(&mut aged, pages / 2, 2);
    let direct = random_wa(&mut built, pages / 2, 2);
    assert!(
        really > 2.0 && (direct / really - 1.0).abs() < 0.25,
        "write amplification: built {direct:.2}, aged by writes {really:.2}"
    );
}

#[test]
fn an_aged_layout_is_the_same_bits_on_every_machine() {
    // The lab's used X25-M as its file lays it out: how many pages of each block hold
    // data comes from exp() and pow(). std's `powi` there, whose precision varies by
    // platform and Rust version, gave a few of these counts otherwise than `libm`'s pow,
    // and the drive's longest waits moved by tens of milliseconds with them
    // (docs/simulated-drives.md). The digest pins the layout: a change to it changes
    // every used drive's results and must be deliberate (the last: `full` 0.986 → 0.989,
    // 2026-12-07).
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/drives/intel-x25m-g2-160-used.yaml"
    ))
    .unwrap();
    let sim = from_yaml(&text);
    let Ftl::Page(f) = &sim.ftl else { panic!() };
    let counts: Vec<u8> = f
        .blocks
        .iter()
        .flat_map(|b| b.valid.to_le_bytes())
        .collect();
    assert_eq!(
        crate::config::sha256_hex(&counts),
        "18238442ca924c0930c015e2d77539dece80155113bdc26d3330d119bd9d0815"
    );
}

#[test]
fn a_used_drive_not_full_holds_data_in_its_share_of_every_span() {
    let mut half =
        from_yaml(&small_yaml("greedy", true).replace("aged: true\n", "aged: true\n  full: 0.5\n"));
    let pages = half.info.capacity / 4096;
    let Ftl::Page(f) = &half.ftl else { panic!() };
    let mapped =
        |range: std::ops::Range<u64>| range.filter(|&lpn| f.map[lpn as usize] != 0).count() as f64;
    assert_eq!(mapped(0..pages), (pages / 2) as f64);
    let valid: u64 = f.blocks.iter().map(|b| b.valid).sum();
    assert_eq!(valid, pages / 2 * 4096);
    // The pages without data are spread over the capacity, not left at its end.
    for q in 0..4 {
        let share = mapped(q * pages / 4..(q + 1) * pages / 4) / (pages / 4) as f64;
        assert!(
            (share - 0.5).abs() < 0.05,
            "quarter {q}: {share:.3} holds data"
        );
    }
    // Half full, the drive has room to collect into: its victims hold fewer valid pages
    // and random writes cost less NAND work than on the full one.
    let mut full = drive_aged("greedy", true);
    let (wa_half, wa_full) = (
        random_wa(&mut half, pages / 2, 3),
        random_wa(&mut full, pages / 2, 3),
    );
    assert!(
        wa_half < 0.7 * wa_full,
        "write amplification: half full {wa_half:.2}, full {wa_full:.2}"
    );
}

#[test]
fn stale_data_tracked_by_vector_uses_up_the_spare_area_a_pass_gives_it_back() {
    // The small drive (32 MiB of spare area) written whole in order, then random writes
    // over a quarter of it in batches of 1,000, then a sequential pass over the drive
    // and the same again. Tracked page by page, the quarter's own stale pages make
    // every victim cheap: next to no copies. Tracked by vectors of 8 pages, each write
    // leaves a stale page its vector keeps: no copies either while the spare area
    // lasts, then a victim is nearly all kept copies; the pass leaves every vector
    // wholly stale and gives the spare area back, for as many writes as before.
    let batches = |vector_pages: u32| {
        let yaml = small_yaml("greedy", false) + &format!("  vector_pages: {vector_pages}\n");
        let mut sim = from_yaml(&yaml);
        let pages = sim.info.capacity / 4096;
        let mut seq = 0;
        let mut pass = |sim: &mut SsdSim| {
            for i in 0..pages {
                write(sim, i * 4096, seq);
                seq += 1;
            }
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        // Write amplification of each batch.
        let mut batch = |sim: &mut SsdSim| {
            let before = sim.stats();
            for i in 0..1000 {
                write(sim, below(&mut rng, pages / 4) * 4096, i);
            }
            let after = sim.stats();
            (after.nand_bytes - before.nand_bytes) as f64
                / (after.host_bytes - before.host_bytes) as f64
        };
        let mut wa = Vec::new();
        for _ in 0..2 {
            pass(&mut sim);
            wa.extend((0..8).map(|_| batch(&mut sim)));
        }
        wa
    };
    let (pages, vectors) = (batches(1), batches(8));
    assert!(pages.iter().all(|&w| w < 1.5), "page by page: {pages:.2?}");
    for run in vectors.chunks(8) {
        // The first 7,000 writes into the spare area, the next 1,000 at the wall.
        assert!(
            run[..7].iter().all(|&w| w < 1.1),
            "by vector: {vectors:.2?}"
        );
        assert!(run[7] > 4.0, "by vector: {vectors:.2?}");
    }
}

#[test]
fn a_history_is_played_through_the_model_under_the_drives_firmware() {
    // The small drive used (every page holding data, 32 MiB of spare area), with a
    // history of 16 MiB of random writes over its first 64 MiB. Tracked by vectors of
    // 8 pages, each of those writes left a stale page its vector keeps, half the spare
    // area: random writes after it cost far more NAND work than on the same drive
    // without it. Tracked page by page, the history left only stale pages to collect.
    // The counters start at zero, and the seed, not the run, sets the drive.
    let history = |seed: u64| {
        format!("  history: {{writes: 16MiB, block_size: 4KiB, span: 64MiB, seed: {seed}}}\n")
    };
    let build = |vector_pages: u32, history: &str| {
        from_yaml(
            &(small_yaml("greedy", true) + &format!("  vector_pages: {vector_pages}\n") + history),
        )
    };
    let wa = |vector_pages: u32, history: &str| {
        let mut sim = build(vector_pages, history);
        assert_eq!(sim.stats().host_bytes, 0, "the history is not the tests'");
        random_wa(&mut sim, 8192, 5)
    };
    let (vectors, vectors_used) = (wa(8, ""), wa(8, &history(1)));
    let (pages, pages_used) = (wa(1, ""), wa(1, &history(1)));
    assert!(
        vectors_used > 2.5 * vectors,
        "by vector: {vectors:.2} without the history, {vectors_used:.2} after it"
    );
    assert!(
        pages_used < 1.2 * pages,
        "page by page: {pages:.2} without the history, {pages_used:.2} after it"
    );
    assert_eq!(vectors_used, wa(8, &history(1)));
    assert_ne!(vectors_used, wa(8, &history(2)));
}
