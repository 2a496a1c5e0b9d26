//! A write's path: the controller's time per write and per unit, combined stripes, a
//! buffer written out whole, the work left for a program's end, programs by page type,
//! planes and one-shot, SLC mode and the native rate.

use super::*;

#[test]
fn random_bytes_and_the_random_mark_are_served_alike() {
    // A compressing controller stores fresh random bytes as they are: marked random
    // (the engine then generates none), every write completes when it did with the
    // bytes themselves, of every size from 512 B to 128 KiB.
    let yaml = small_yaml("greedy", false) + "  compression: true\n";
    let (mut bytes, mut marked) = (from_yaml(&yaml), from_yaml(&yaml));
    let mut filler =
        crate::workload::DataFiller::new(crate::workload::DataKind::Incompressible, 0.0, 9);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut buf = vec![0u8; 128 << 10];
    for seq in 0..20_000u64 {
        let len = 512u32 << below(&mut rng, 9);
        let req = IoRequest {
            seq,
            op: Op::Write,
            offset: below(&mut rng, (200 << 20) / len as u64) * len as u64,
            len,
        };
        filler.fill(&mut buf[..len as usize]);
        let a = bytes
            .serve(
                bytes.clock,
                &req,
                Some(WriteData::Bytes(&buf[..len as usize])),
            )
            .unwrap();
        let b = marked
            .serve(marked.clock, &req, Some(WriteData::Random))
            .unwrap();
        assert_eq!(a, b, "write {seq} of {len} bytes");
        bytes.clock = a;
        marked.clock = b;
    }
    assert_eq!(bytes.stats().nand_bytes, marked.stats().nand_bytes);
}

#[test]
fn paired_pages_alternate_lower_and_upper_around_the_mean_program_time() {
    let yaml = small_yaml("greedy", false) + "  upper_page_program: 2.7\n";
    let mut sim = from_yaml(&yaml);
    // 850 µs against 2.3 ms in the reference: 486 and 1,314 µs around 900.
    assert_eq!(sim.p.t_prog_pair, [486_486, 1_313_514]);
    let times: Vec<u64> = (0..4).map(|_| sim.next_program(1, 4096).time).collect();
    assert_eq!(times, [486_486, 1_313_514, 486_486, 1_313_514]);
    // Each die keeps its own turn.
    assert_eq!(sim.next_program(0, 4096).time, 486_486);
    // Without the ratio every page takes `program`.
    let mut plain = drive_aged("greedy", false);
    assert_eq!(plain.next_program(0, 4096).time, 900_000);
    assert_eq!(plain.next_program(0, 4096).time, 900_000);
}

#[test]
fn one_shot_programs_a_wordlines_pages_together() {
    // Three pages to a wordline: a die programs when it holds three, in 3 × 900 µs.
    let mut sim = from_yaml(&tlc_yaml("  one_shot: true\n"));
    assert_eq!(sim.p.program_pages, 3);
    assert_eq!(sim.program_unit(), 3 * 4096);
    for i in 0..2 {
        write(&mut sim, i * 4096, i);
    }
    assert_eq!(sim.die[0].busy, 0, "two pages wait for the third");
    write(&mut sim, 2 * 4096, 2);
    let busy = sim.die[0].busy;
    assert!(busy > 2_700_000 && busy < 2_700_000 + 1_000_000, "{busy}");
    // Page by page, the same three pages go one to a die, each 900 µs.
    let mut plain = from_yaml(&tlc_yaml(""));
    for i in 0..3 {
        write(&mut plain, i * 4096, i);
    }
    let dies: Vec<u64> = plain.die.iter().map(|d| d.busy).collect();
    assert!(
        dies[..3].iter().all(|&b| b > 900_000 && b < 1_900_000),
        "{dies:?}"
    );
    // In SLC mode a cell holds one bit: a program is a page again, until the cache is full.
    let cache = "  one_shot: true\n  slc_cache: {bits: 3, static: 8KiB, program: 100us}\n";
    let mut cached = from_yaml(&tlc_yaml(cache));
    assert_eq!(cached.program_unit(), 4096);
    write(&mut cached, 0, 0);
    let busy = cached.die[0].busy;
    assert!(busy > 100_000 && busy < 1_000_000, "{busy}");
    write(&mut cached, 4096, 1);
    assert_eq!(cached.program_unit(), 3 * 4096);
    // Neither one-shot without the page types, nor page types and an MLC ratio.
    for (extra, key) in [
        ("  one_shot: true\n", "ssd.one_shot"),
        ("  read_senses: [2, 3, 3]\n", "ssd.read_senses"),
        (
            "  read_senses: [2, 3, 2]\n  upper_page_read: 1.5\n",
            "ssd.read_senses",
        ),
        (
            "  read_senses: [2, 3, 2]\n  slc_cache: {bits: 4, program: 100us}\n",
            "ssd.read_senses",
        ),
    ] {
        let yaml = small_yaml("greedy", false) + extra;
        let err = refusal(&yaml);
        assert!(err.contains(key), "{extra}: {err}");
    }
    // Block-mapped drives program a page at a time here.
    let yaml = tlc_yaml("  one_shot: true\n").replace("ftl: page", "ftl: block\n  log_blocks: 4");
    let err = refusal(&yaml);
    assert!(
        err.contains("ssd.one_shot: only a page-mapped FTL"),
        "{err}"
    );
}

#[test]
fn a_controllers_native_rate_holds_native_programs_not_slc_ones() {
    // A page of SLC cache, then native cells; the controller passes 4 MB/s of host data
    // into native programs (1.024 ms a 4 KiB page), one after another.
    let cache = |rate: &str| {
        tlc_yaml(&format!(
            "  slc_cache: {{bits: 3, static: 4KiB, program: 100us{rate}}}\n"
        ))
    };
    let mut limited = from_yaml(&cache(", native_rate: 4MB/s"));
    let mut free = from_yaml(&cache(""));
    // The SLC-mode page is programmed as soon as it is sent on both drives.
    write(&mut limited, 0, 0);
    write(&mut free, 0, 0);
    assert!(free.die[0].busy > 0);
    assert_eq!(limited.die[0].busy, free.die[0].busy);
    for sim in [&mut limited, &mut free] {
        for i in 1..5 {
            write(sim, i * 4096, i);
        }
    }
    let ends = |s: &SsdSim| s.die.iter().map(|d| d.busy).max().unwrap();
    let native_first = |s: &SsdSim| s.die[1].busy;
    assert_eq!(native_first(&limited), native_first(&free) + 1_024_000);
    // Four native pages on four dies: at once on the one, a page every 1.024 ms on the other.
    let late = ends(&limited) - ends(&free);
    assert!((3_000_000..5_000_000).contains(&late), "{late}");
}

#[test]
fn two_planes_program_twice_the_pages_in_a_program_time() {
    // The small drive's 4 dies bound its sequential writes (4 KiB per 0.9 ms each);
    // with two planes each program writes two pages, and a block is one on each plane.
    let elapsed = |planes: &str| {
        let mut sim = from_yaml(&(small_yaml("greedy", false) + planes));
        for i in 0..16_384 {
            write(&mut sim, i * 4096, i);
        }
        sim.settle().unwrap();
        sim.clock
    };
    let (one, two) = (elapsed(""), elapsed("  planes: 2\n"));
    let ratio = one as f64 / two as f64;
    assert!((1.8..2.05).contains(&ratio), "one plane / two: {ratio:.2}");
    let sim = from_yaml(&(small_yaml("greedy", false) + "  planes: 2\n"));
    assert_eq!(sim.p.pages_per_block, 64);
}

#[test]
fn an_encoder_for_all_channels_bounds_their_programs_and_keeps_up_with_the_dies() {
    // The small drive's 4 dies write 4 KiB per 0.9 ms each (18 MB/s); every page
    // programmed passes the controller's one encoder first.
    let elapsed = |rate: &str| {
        let ecc = format!("  ecc: {{bit_error_rate: 0, correct: 5us{rate}}}\n");
        let mut sim = from_yaml(&(small_yaml("greedy", false) + &ecc));
        for i in 0..4_096 {
            write(&mut sim, i * 4096, i);
        }
        sim.settle().unwrap();
        sim.clock
    };
    let (dies, fast, slow) = (
        elapsed(""),
        elapsed(", encode_rate: 200MB/s"),
        elapsed(", encode_rate: 4MB/s"),
    );
    // 16 MiB through a 4 MB/s encoder: 4.19 s at least; a 200 MB/s one hides behind the dies.
    assert!((4_194_304_000..4_300_000_000).contains(&slow), "{slow}");
    assert!(dies < 1_000_000_000, "{dies}");
    assert!(fast.abs_diff(dies) * 100 < dies, "{fast} against {dies}");
    let e = refusal(
        &(small_yaml("greedy", false)
            + "  ecc: {bit_error_rate: 0, correct: 5us, encode_rate: 0.5MB/s}\n"),
    );
    assert!(
        e.contains("ssd.ecc.encode_rate: expected a rate of 1 MB/s or more"),
        "{e}"
    );
}

#[test]
fn the_controller_pays_per_write_and_per_page_of_data() {
    // The same write on a fresh drive with and without 20 µs a page. The controller works
    // on the pages as their data crosses the link (280 MB/s), and on the last one after it:
    // the difference is its time beyond the link's, and at least a page's.
    let took = |page_overhead: &str, offset: u64, len: u32| {
        let mut sim = from_yaml(&(small_yaml("greedy", false) + page_overhead));
        let req = IoRequest {
            seq: 0,
            op: Op::Write,
            offset,
            len,
        };
        sim.serve(0, &req, None).unwrap()
    };
    let extra = |offset, len| took("  page_overhead: 20us\n", offset, len) - took("", offset, len);
    let link = |len: u64| (len as f64 * 1e9 / 280e6) as u64;
    assert_eq!(
        extra(0, 128 << 10),
        32 * 20_000 - link(128 << 10),
        "32 pages of 128 KiB"
    );
    assert_eq!(extra(0, 16 << 10), 4 * 20_000 - link(16 << 10), "4 pages");
    assert_eq!(extra(0, 4096), 20_000, "one page");
    // 4 KiB at a 512 B offset spans two pages but carries one page of data, remapped.
    assert_eq!(extra(512, 4096), 20_000, "an unaligned page");
}

#[test]
fn a_controller_pays_per_unit_of_data_where_its_unit_is_smaller_than_the_page() {
    // 8 KiB pages: by default the controller's time is a page's, so 128 KiB is 16 pages of
    // it (320 µs, within the 468 µs its data takes on the link: only the last page's work
    // follows the data); with a 4 KiB unit (a controller fitted on 4 KiB pages carried to
    // 8 KiB ones) it is 32 (640 µs, beyond the link's), and a 4 KiB write still one.
    let took = |extra: &str, len: u32| {
        let yaml = small_yaml("greedy", false)
            .replace("  page: 4KiB\n", "  page: 8KiB\n")
            .replace("  pages_per_block: 32\n", "  pages_per_block: 16\n");
        let mut sim = from_yaml(&(yaml + extra));
        let req = IoRequest {
            seq: 0,
            op: Op::Write,
            offset: 0,
            len,
        };
        sim.serve(0, &req, None).unwrap()
    };
    let extra =
        |unit: &str, len| took(&format!("  page_overhead: 20us\n{unit}"), len) - took(unit, len);
    let unit = "  page_overhead_unit: 4KiB\n";
    let link = ((128 << 10) as f64 * 1e9 / 280e6) as u64;
    assert_eq!(extra("", 128 << 10), 20_000, "16 pages of 128 KiB");
    assert_eq!(
        extra(unit, 128 << 10),
        32 * 20_000 - link,
        "32 units of 128 KiB"
    );
    assert_eq!(extra("", 4096), 20_000, "half a page");
    assert_eq!(extra(unit, 4096), 20_000, "one unit");
    for bad in ["3KiB", "16KiB", "256B"] {
        let yaml = small_yaml("greedy", false) + &format!("  page_overhead_unit: {bad}\n");
        let e = refusal(&yaml);
        assert!(
            e.contains("ssd.page_overhead_unit: expected a divisor of the page"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn a_combining_controller_does_a_stripes_page_work_at_once() {
    // Writes one after another, each when the last is done: with the pages combined,
    // every stripe's last write waits for the whole stripe's work, the others for none;
    // the total is the same.
    let lat = |extra: &str| -> Vec<u64> {
        let mut sim = from_yaml(&(small_yaml("greedy", false) + "  page_overhead: 20us\n" + extra));
        (0..64u64)
            .map(|i| {
                let t = sim.clock;
                write(&mut sim, i * 4096, i) - t
            })
            .collect()
    };
    let each = lat("");
    let combined = lat("  combine_writes: true\n");
    let stripe = from_yaml(&(small_yaml("greedy", false) + "  combine_writes: true\n"))
        .p
        .combine as usize;
    assert!(stripe > 1 && 64 % stripe == 0, "{stripe}");
    assert_eq!(each.iter().sum::<u64>(), combined.iter().sum::<u64>());
    for (i, (&c, &e)) in combined.iter().zip(&each).enumerate() {
        if (i + 1) % stripe == 0 {
            assert_eq!(c, e + (stripe as u64 - 1) * 20_000, "write {i}");
        } else {
            assert_eq!(c + 20_000, e, "write {i}");
        }
    }
}

#[test]
fn a_controller_that_flushes_its_buffer_whole_takes_no_write_meanwhile() {
    // 4 KiB writes one after another into a 64 KiB buffer (16 pages): the first 16
    // are done once in the buffer; the 17th waits while every die programs its four.
    let yaml = |dies: u32, flush: bool| {
        small_yaml("greedy", false)
            .replace("dies_per_channel: 2", &format!("dies_per_channel: {dies}"))
            .replace("buffer: 256KiB", "buffer: 64KiB")
            + "  write_overhead: 800us\n"
            + if flush { "  flush_buffer: true\n" } else { "" }
    };
    let lat = |dies: u32, flush: bool| -> Vec<u64> {
        let mut sim = from_yaml(&yaml(dies, flush));
        (0..160u64)
            .map(|i| {
                let t = sim.clock;
                write(&mut sim, i * 4096, i) - t
            })
            .collect()
    };
    let flushed = lat(2, true);
    assert!(
        flushed[..16].iter().all(|&t| t == flushed[0]),
        "{flushed:?}"
    );
    assert!(flushed[16] >= flushed[0] + 4 * 900_000, "{flushed:?}");
    // The controller (800 µs a write) bounds a drive that programs while writes come
    // in, whatever its dies; one that stops for every flush is slower, and slower
    // again with half the dies: the two bounds add.
    let total = |v: Vec<u64>| v.iter().sum::<u64>();
    let (eager4, eager2) = (total(lat(2, false)), total(lat(1, false)));
    let (flush4, flush2) = (total(flushed), total(lat(1, true)));
    assert_eq!(eager4, eager2);
    assert!(flush4 > eager4 + 9 * 3_600_000, "{flush4} against {eager4}");
    assert!(flush2 > flush4 + 9 * 3_000_000, "{flush2} against {flush4}");

    // A page still in the buffer is read from there, not from the NAND; trimmed, it is
    // not written out.
    let mut sim = from_yaml(&yaml(2, true));
    write(&mut sim, 0, 0);
    write(&mut sim, 4096, 1);
    let held = read_alone(&mut sim, 0, 2);
    assert!(held < 50_000, "{held}");
    sim.discard(4096, 4096);
    sim.settle().unwrap();
    assert!(sim.locate(0).is_some() && sim.locate(1).is_none());
    assert!(read_alone(&mut sim, 0, 3) > 50_000 + held);
}

#[test]
fn writes_take_the_buffers_room_in_the_order_they_come() {
    // A 12 KiB buffer holding 8 KiB whose program ends at 1 ms: an 8 KiB write at 10 µs
    // waits for that room; a 4 KiB write behind it at 20 µs would fit at once in the
    // 4 KiB left, but the room goes to writes in the order they come, so it is admitted
    // with the 8 KiB one, not before it.
    let mut b = Buffer::new(12 << 10);
    assert_eq!(b.admit(8 << 10, 0), 0);
    b.release(1_000_000, 8 << 10);
    assert_eq!(b.admit(8 << 10, 10_000), 1_000_000);
    assert_eq!(b.admit(4 << 10, 20_000), 1_000_000);
    // One that comes after the wait is over is admitted when it comes.
    b.release(3_000_000, 12 << 10);
    assert_eq!(b.admit(4 << 10, 3_500_000), 3_500_000);
}

/// The small drive with sixteen dies (eight channels of 200 MB/s) of two 8 KiB planes,
/// behind a `buffer` of the size given.
fn sixteen_dies(buffer: &str) -> String {
    small_yaml("greedy", false)
        .replace("channels: 2", "channels: 8")
        .replace("channel_rate: 40MB/s", "channel_rate: 200MB/s")
        .replace("page: 4KiB", "page: 8KiB\n  planes: 2")
        .replace("buffer: 256KiB", &format!("buffer: {buffer}"))
}

#[test]
fn a_write_larger_than_the_buffer_streams_through_it() {
    // A 1 MiB write on an idle small drive (four dies programming a 4 KiB page in 900 µs,
    // a 256 KiB buffer) is done when its last 256 KiB are in the buffer, after 192 of its
    // pages are programmed (48 on each die): not when it has crossed the link (3.7 ms,
    // as when the buffer took a write whole, however large).
    let mut sim = drive("greedy");
    let req = IoRequest {
        seq: 0,
        op: Op::Write,
        offset: 0,
        len: 1 << 20,
    };
    let done = sim.serve(0, &req, None).unwrap();
    assert!(done > 48 * 900_000, "{done}");
    // Its pages go to the dies as they come in, so writes as large as the buffer keep the
    // dies as busy as smaller ones. Sixteen dies of two planes behind a 1 MiB buffer, 16
    // MiB written sequentially at QD8: 1 MiB writes take no longer than 128 KiB ones (12%
    // longer when each waited for room for all of its data at once).
    let yaml = sixteen_dies("1MiB").replace("link_rate: 280MB/s", "link_rate: 2800MB/s");
    let run = |len: u32| -> u64 {
        let mut sim = from_yaml(&yaml);
        let mut flight = std::collections::VecDeque::new();
        let mut now = 0;
        for seq in 0..(16u64 << 20) / len as u64 {
            if flight.len() == 8 {
                now = flight.pop_front().unwrap_or(now);
            }
            let req = IoRequest {
                seq,
                op: Op::Write,
                offset: seq * len as u64,
                len,
            };
            flight.push_back(sim.serve(now, &req, None).unwrap());
        }
        flight.into_iter().max().unwrap_or(now)
    };
    let (small, large) = (run(128 << 10), run(1 << 20));
    assert!(
        large <= small + small / 50,
        "1 MiB: {large} ns; 128 KiB: {small} ns"
    );
}

#[test]
fn a_write_larger_than_the_buffer_goes_to_the_dies_as_its_data_comes_in() {
    // At QD1, where the next write's data waits for this one to be done: sixteen dies of
    // two 8 KiB planes (291 MB/s) behind a 280 MB/s link and a 512 KiB buffer write 8 MiB
    // sequentially as fast in 1 MiB writes as in 256 KiB ones (30.0 and 30.3 ms, the
    // link's). A write's first pages are programmed while its last cross the link; when
    // its pages went to the buffer only once all its data was in, the 1 MiB writes took
    // 47.5 ms, each waiting for the programs of its own first half.
    let yaml = sixteen_dies("512KiB");
    let run = |len: u32| -> u64 {
        let mut sim = from_yaml(&yaml);
        let mut now = 0;
        for seq in 0..(8u64 << 20) / len as u64 {
            let req = IoRequest {
                seq,
                op: Op::Write,
                offset: seq * len as u64,
                len,
            };
            now = sim.serve(now, &req, None).unwrap();
        }
        now
    };
    let (small, large) = (run(256 << 10), run(1 << 20));
    assert!(
        large <= small + small / 50,
        "1 MiB: {large} ns; 256 KiB: {small} ns"
    );
}

#[test]
fn a_writes_deferred_work_holds_the_command_the_controller_serves_when_its_program_ends() {
    // 30 µs of controller time a page, 0.33 of it (9.9 µs) when the page's program ends:
    // a write on an idle drive takes the command (10 µs), its data over the link (a fast
    // one: 0.15 µs) and 20.1 µs; one whose controller time spans the first's program end
    // takes the first's 9.9 µs besides its own.
    let yaml = small_yaml("greedy", false)
        .replace("  link_rate: 280MB/s\n", "  link_rate: 28000MB/s\n")
        .replace(
            "  channels: 2\n",
            "  page_overhead: 30us\n  completion_share: 0.33\n  program_spread: 0\n  channels: 2\n",
        );
    let mut sim = from_yaml(&yaml);
    let link = (4096.0 * 1e9 / 28000e6) as u64;
    let first = write(&mut sim, 0, 0);
    assert_eq!(first, 10_000 + link + 20_100);
    // Its page is programmed on die 0 as soon as it is across the channel.
    let end = sim.die[0].free_at();
    assert!(end > first + 800_000, "program ends at {end} ns");
    sim.clock = end - 20_000;
    let second = write(&mut sim, 4096, 1) - (end - 20_000);
    assert_eq!(second, 10_000 + 20_100 + 9_900);
    // Away from a program's end, a write takes what the first took.
    sim.clock = end + 200_000;
    let third = write(&mut sim, 8192, 2) - (end + 200_000);
    assert_eq!(third, first);
}

#[test]
fn a_compressing_controller_leaves_a_compressed_writes_share_in_proportion_to_what_it_stores() {
    // 30 µs of controller time a page, 0.33 of it (9.9 µs) left for the program's end: a
    // 4 KiB write of random bytes leaves all of it; one of zeros, stored in a few bytes,
    // leaves that share of it (a fraction of a microsecond), so compressible data never
    // costs the controller more than incompressible.
    let yaml = small_yaml("greedy", false).replace(
        "  channels: 2\n",
        "  page_overhead: 30us\n  completion_share: 0.33\n  program_spread: 0\n  channels: 2\n",
    ) + "  compression: true\n";
    let left = |data: &[u8]| {
        let mut sim = from_yaml(&yaml);
        let req = IoRequest {
            seq: 0,
            op: Op::Write,
            offset: 0,
            len: 4096,
        };
        sim.serve(0, &req, Some(WriteData::Bytes(data))).unwrap();
        // Waiting for its page to fill, or booked for its program's end.
        let booked: u64 = sim.completions.iter().map(|c| c.value).sum();
        sim.deferred.iter().sum::<u64>() + booked
    };
    let mut random = vec![0u8; 4096];
    crate::workload::DataFiller::new(crate::workload::DataKind::Incompressible, 0.0, 3)
        .fill(&mut random);
    assert_eq!(left(&random), 9_900);
    let zeros = left(&[0u8; 4096]);
    assert!(zeros > 0 && zeros < 200, "{zeros} ns");
}

#[test]
fn a_controller_that_writes_in_stripes_frees_a_stripe_when_its_slowest_program_ends() {
    // 4 KiB writes one after another on four dies of 4 KiB pages: a stripe is four
    // writes. With room for one stripe the fifth write waits for the first stripe's
    // programs (900 µs); with room for two the ninth does, the fifth to eighth not; with
    // no stripes the 256 KiB buffer takes all twelve at once.
    let lat = |stripes: Option<u32>| -> Vec<u64> {
        let yaml = small_yaml("greedy", false)
            + &stripes.map_or(String::new(), |n| format!("  write_stripes: {n}\n"));
        let mut sim = from_yaml(&yaml);
        (0..12u64)
            .map(|i| {
                let t = sim.clock;
                write(&mut sim, i * 4096, i) - t
            })
            .collect()
    };
    let (one, two, none) = (lat(Some(1)), lat(Some(2)), lat(None));
    let quick = none[0];
    assert!(none.iter().all(|&t| t < 100_000), "{none:?}");
    assert!(one[..4].iter().all(|&t| t == quick), "{one:?}");
    assert!(one[4] > 700_000, "{one:?}");
    assert!(two[..8].iter().all(|&t| t == quick), "{two:?}");
    assert!(two[8] > 500_000, "{two:?}");
}

#[test]
fn a_pause_with_nothing_in_flight_folds_the_cache_from_when_the_drive_is_done() {
    // A burst test's pause or a timed replay's gap (the queue's `wait_until` with nothing
    // in flight) is idle time, as an interval between tests is: the cache folds, every die
    // reading and programming a unit (a page of each plane) at a time, each unit begun only
    // where it is done within the pause, from when the drive's own work is done.
    let cache = "  slc_cache: {bits: 3, static: 64KiB, program: 100us}\n";
    let mut sim = from_yaml(&tlc_yaml(cache));
    let per_unit = sim.p.t_read + sim.p.t_prog;
    let (unit, dies) = (sim.p.page * sim.p.planes, sim.p.dies as u64);
    let held = |sim: &SsdSim| sim.slc.as_ref().unwrap().held();
    for i in 0..16 {
        write(&mut sim, i * 4096, i);
    }
    assert_eq!(held(&sim), 64 << 10);
    let done = sim.busy_until();
    assert!(
        done > sim.clock,
        "the last program outlasts the write's completion"
    );
    sim.idle_until(done + per_unit - 1);
    assert_eq!(held(&sim), 64 << 10);
    sim.idle_until(done + 2 * per_unit);
    assert_eq!(held(&sim), (64 << 10) - 2 * dies * unit);
    // Through a queue: a pause with a read in flight only moves the clock; one with
    // nothing in flight folds the rest.
    let mut queues = sim
        .queues(1, 1, EngineChoice::Auto, &IoOptions::default())
        .unwrap();
    let q = &mut queues[0];
    let read = IoRequest {
        seq: 100,
        op: Op::Read,
        offset: 0,
        len: 4096,
    };
    q.submit(0, read, crate::target::AlignedBuf::new(0))
        .unwrap();
    let mut out = Vec::new();
    q.wait_until(q.now() + 1_000, &mut out).unwrap();
    assert!(out.is_empty());
    q.reap(&mut out).unwrap();
    assert_eq!(out.len(), 1);
    drop(queues);
    assert_eq!(held(&sim), (64 << 10) - 2 * dies * unit);
    let mut queues = sim
        .queues(1, 1, EngineChoice::Auto, &IoOptions::default())
        .unwrap();
    let q = &mut queues[0];
    q.wait_until(10 * per_unit, &mut out).unwrap();
    drop(queues);
    assert_eq!(held(&sim), 0);
}

#[test]
fn an_slc_cache_must_fit_its_drive() {
    // The small drive: 256 MiB on 288 MiB of NAND, 128 KiB blocks on 4 dies, 4 blocks a
    // die kept for collection: 30 MiB spare, 10 MiB of static cache at three bits a cell;
    // the dynamic cache at most a third of the user area.
    let cache = |c: &str| tlc_yaml(&format!("  slc_cache: {{bits: 3, program: 100us, {c}}}\n"));
    assert_eq!(refusal(&cache("static: 10MiB, dynamic: 85MiB")), "");
    let e = refusal(&cache("static: 11MiB"));
    assert!(
        e.contains("ssd.slc_cache.static: expected at most 10.5 MB (")
            && e.contains("from the spare area: 31.5 MB of raw capacity")
            && e.contains("found 11.5 MB"),
        "{e}"
    );
    let e = refusal(&cache("dynamic: 90MiB"));
    assert!(
        e.contains("ssd.slc_cache.dynamic: expected at most 89.5 MB (")
            && e.contains("found 94.4 MB"),
        "{e}"
    );
}
