//! A read's path: page types, the spread of senses, bit errors and retries, the decoder,
//! planes that sense together or apart, cache reads, suspension of programs, read-ahead.

use super::*;

#[test]
fn a_read_suspends_a_program_or_erase_at_its_next_break_point() {
    let sus = die::Suspension {
        step: 100_000,
        resume: 20_000,
        max: 2,
    };
    // A program booked from 0 to 1 ms; a read ready at 250 µs starts at the break
    // point at 300 µs, holds the die 50 µs, and the program ends 70 µs later.
    let mut die = Die::suspending(Some(sus));
    die.book_program(0, 1_000_000);
    assert_eq!(die.start_read(250_000), 300_000);
    die.book(350_000);
    assert_eq!(die.free_at(), 1_070_000);
    // A second read ready during the first goes after it, the program still suspended
    // (one resumption for both).
    assert_eq!(die.start_read(320_000), 350_000);
    die.book(400_000);
    assert_eq!(die.free_at(), 1_120_000);
    // The program restarted at 400 µs: a read at 450 µs waits for the point at 500.
    assert_eq!(die.start_read(450_000), 500_000);
    die.book(550_000);
    assert_eq!(die.free_at(), 1_190_000);
    // Two suspensions is this program's limit: the next read waits for its end.
    assert_eq!(die.start_read(700_000), 1_190_000);
    // Without suspension the read waits for the program.
    let mut die = Die::default();
    die.book_program(0, 1_000_000);
    assert_eq!(die.start_read(250_000), 1_000_000);
    // A read ready before a program starts goes first, and the program after it.
    let mut die = Die::suspending(Some(sus));
    die.book(100_000);
    die.book_program(400_000, 1_400_000);
    assert_eq!(die.start_read(150_000), 150_000);
    die.book(450_000);
    assert_eq!(die.free_at(), 1_450_000);
    // A background erase (one 3.5 ms step from 0): a read ready at 1.25 ms starts at
    // 1.3 ms; the rest of the erase, 2.2 ms and the resumption, follows the read.
    let mut die = Die::suspending(Some(sus));
    die.background(0, 3_500_000, 3_500_000);
    assert_eq!(die.start_read(1_250_000), 1_300_000);
    die.book(1_350_000);
    assert_eq!(die.free_at(), 1_350_000 + 2_200_000 + 20_000);
    // A host program still waits for the step under way.
    assert_eq!(die.start(1_400_000), 1_350_000 + 2_220_000);
}

#[test]
fn an_upper_page_reads_longer_than_a_lower_one_around_the_mean() {
    let yaml = small_yaml("greedy", false) + "  upper_page_read: 1.5\n";
    let mut sim = from_yaml(&yaml);
    // 40 and 60 µs around the 50 µs `read`.
    assert_eq!(sim.p.t_read_types, [40_000, 60_000, 0, 0]);
    // Pages written in order on one die: its block's wordlines alternate lower, upper.
    let dies = sim.p.dies as u64;
    for i in 0..4 * dies {
        write(&mut sim, i * 4096, i);
    }
    sim.settle().unwrap();
    let types: Vec<bool> = (0..4 * dies)
        .map(|lpn| sim.locate(lpn).unwrap().kind == 1)
        .collect();
    assert_eq!(types.iter().filter(|&&u| u).count() as u64, 2 * dies);
    let lower = types.iter().position(|&u| !u).unwrap() as u64;
    let upper = types.iter().position(|&u| u).unwrap() as u64;
    let (l, u) = (
        read_alone(&mut sim, lower, 1000),
        read_alone(&mut sim, upper, 1001),
    );
    assert_eq!(u - l, 20_000, "lower {l} ns, upper {u} ns");
    // Without the ratio both take `read`.
    let plain = drive_aged("greedy", false);
    assert_eq!(plain.p.t_read_types, [50_000, 50_000, 0, 0]);
}

#[test]
fn reads_of_a_page_vary_from_read_to_read_around_its_mean() {
    let spread = |fastest: &str| {
        small_yaml("greedy", false).replace(
            "read_spread: {fastest: 1, slowest: 1}",
            &format!("read_spread: {{fastest: {fastest}, slowest: 1.5}}"),
        )
    };
    let reads = |yaml: &str| {
        let mut sim = from_yaml(yaml);
        write(&mut sim, 0, 0);
        sim.settle().unwrap();
        let mut l: Vec<u64> = (0..4000).map(|i| read_alone(&mut sim, 0, 1 + i)).collect();
        l.sort_unstable();
        l
    };
    let plain = reads(&small_yaml("greedy", false));
    assert_eq!(plain[0], plain[3999], "no spread: one latency");
    // Bates's MLC read: 60, 80 and 120 µs at least, typically and at most (0.75, 1, 1.5 of
    // the typical read), scaled to the file's 50 µs mean: 34.6 to 69.2 µs, mostly near 46.
    let l = reads(&spread("0.75"));
    let mean = l.iter().sum::<u64>() as f64 / l.len() as f64;
    let base = plain[0] as f64 - 50_000.0;
    assert!(
        (mean - plain[0] as f64).abs() < 500.0,
        "mean {mean} against {}",
        plain[0]
    );
    assert!(
        l[0] as f64 >= base + 34_600.0 && (l[0] as f64) < base + 37_000.0,
        "{}",
        l[0]
    );
    assert!(
        l[3999] as f64 <= base + 69_300.0 && l[3999] as f64 > base + 64_000.0,
        "{}",
        l[3999]
    );
    // Skewed as the reads are: the slowest hundredth well above the median.
    let (p50, p99) = (l[2000] as f64 - base, l[3960] as f64 - base);
    assert!(p99 > 1.25 * p50, "sense p50 {p50} p99 {p99}");
    // The same drive draws the same times.
    assert_eq!(l, reads(&spread("0.75")));
}

#[test]
fn tlc_pages_read_in_proportion_to_their_sensing_steps() {
    let mut sim = from_yaml(&tlc_yaml(""));
    // 1 + 2, 1 + 3 and 1 + 2 senses' worth around the 50 µs mean: 45, 60 and 45 µs.
    assert_eq!(sim.p.t_read_types, [45_000, 60_000, 45_000, 0]);
    assert_eq!(sim.p.page_types, 3);
    let dies = sim.p.dies as u64;
    for i in 0..6 * dies {
        write(&mut sim, i * 4096, i);
    }
    sim.settle().unwrap();
    // A die's pages in order: lower, middle, upper, lower, ...
    let kinds: Vec<usize> = (0..6 * dies)
        .map(|lpn| sim.locate(lpn).unwrap().kind)
        .collect();
    for k in 0..3 {
        assert_eq!(kinds.iter().filter(|&&x| x == k).count() as u64, 2 * dies);
    }
    let took: Vec<u64> = (0..3)
        .map(|k| {
            let lpn = kinds.iter().position(|&x| x == k).unwrap() as u64;
            read_alone(&mut sim, lpn, 1000 + k as u64)
        })
        .collect();
    assert_eq!(took[1] - took[0], 15_000, "{took:?}");
    assert_eq!(took[2], took[0], "{took:?}");
}

#[test]
fn bit_errors_spread_read_latency_and_a_failed_decode_reads_again() {
    let yaml = |ecc: &str| small_yaml("greedy", false) + ecc;
    // Four pages read one at a time, each from an idle drive, many times over.
    let latencies = |sim: &mut SsdSim| -> Vec<u64> {
        for i in 0..4 {
            write(sim, i * 4096, i);
        }
        sim.settle().unwrap();
        (0..2000u64)
            .map(|i| {
                let now = sim.clock + 10_000_000 * (i + 1);
                let req = IoRequest {
                    seq: 10 + i,
                    op: Op::Read,
                    // Never where the last read ended: no read-ahead.
                    offset: (i * 3 % 4) * 4096,
                    len: 4096,
                };
                sim.serve(now, &req, None).unwrap() - now
            })
            .collect()
    };
    let plain = latencies(&mut from_yaml(&yaml("")));
    assert!(
        plain.iter().all(|&l| l == plain[0]),
        "no errors: one latency"
    );
    // About 3.3 bit errors a 4 KiB page: most reads correct one to four codewords of
    // eight, each 5 µs; one read in ten is read again.
    let ecc = "  ecc: {bit_error_rate: 1e-4, correct: 5us, retry: 0.1}\n";
    let mut sim = from_yaml(&yaml(ecc));
    let spread = latencies(&mut sim);
    assert!(spread.iter().all(|&l| l >= plain[0]));
    let distinct: std::collections::BTreeSet<u64> = spread.iter().copied().collect();
    assert!(distinct.len() > 5, "{distinct:?}");
    let retried = sim.stats().read_retries;
    assert!(
        (150..=250).contains(&retried),
        "{retried} retries of 2000 reads"
    );
    // A retry senses and transfers the page again: at least tR more.
    assert!(spread.iter().any(|&l| l > plain[0] + 50_000));
    // The same drive gives the same errors.
    assert_eq!(spread, latencies(&mut from_yaml(&yaml(ecc))));
}

#[test]
fn a_decoder_for_all_channels_bounds_their_reads_and_keeps_up_with_one() {
    // The small drive's two 40 MB/s channels, its pages decoded as they cross.
    let yaml = |rate: &str| {
        let ecc = format!("  ecc: {{bit_error_rate: 0, correct: 5us{rate}}}\n");
        small_yaml("greedy", false) + &ecc
    };
    let (channels, slow) = (
        written_then_read_at_once(&mut from_yaml(&yaml("")), 64),
        written_then_read_at_once(&mut from_yaml(&yaml(", decode_rate: 20MB/s")), 64),
    );
    // 64 pages: 3.3 ms over the two channels, 13.1 ms through a 20 MB/s decoder.
    assert!(channels < 4_000_000, "{channels}");
    assert!((13_107_200..13_700_000).contains(&slow), "{slow}");
    // One read alone: a decoder faster than the channel decodes its last codeword after the
    // page has crossed (512 B at 200 MB/s: 2.56 µs); a slower one takes the page's whole
    // time from the first codeword's arrival (4 KiB at 20 MB/s against 40: 115 µs more).
    let alone = |rate: &str| {
        let mut sim = from_yaml(&yaml(rate));
        write(&mut sim, 0, 0);
        sim.settle().unwrap();
        read_alone(&mut sim, 0, 1)
    };
    let plain = alone("");
    assert_eq!(alone(", decode_rate: 200MB/s"), plain + 2_560);
    assert_eq!(alone(", decode_rate: 20MB/s"), plain + 115_200);
    let e = refusal(&yaml(", decode_rate: 0.5MB/s"));
    assert!(
        e.contains("ssd.ecc.decode_rate: expected a rate of 1 MB/s or more"),
        "{e}"
    );
}

/// The small drive with `extra` lines in its file, its first `pages` logical pages written
/// in order and settled.
fn written_in_order(extra: &str, pages: u64) -> SsdSim {
    let mut sim = from_yaml(&(small_yaml("greedy", false) + extra));
    for i in 0..pages {
        write(&mut sim, i * 4096, i);
    }
    sim.settle().unwrap();
    sim
}

/// Reads asked for at once, well after the drive settled (offset, length): the time until
/// the last is done.
fn read_at_once(sim: &mut SsdSim, reads: &[(u64, u32)]) -> u64 {
    let now = sim.clock + 10_000_000;
    let reqs: Vec<IoRequest> = reads
        .iter()
        .zip(100..)
        .map(|(&(offset, len), seq)| IoRequest {
            seq,
            op: Op::Read,
            offset,
            len,
        })
        .collect();
    sim.serve_together(now, &reqs).into_iter().max().unwrap() - now
}

#[test]
fn a_half_duplex_link_takes_the_commands_between_the_reads_data() {
    // Channels fast enough that the link binds 64 reads sent at once: their data, 4 KiB
    // at 280 MB/s (14.6 µs each), comes back while the commands (10 µs each) go out on a
    // link whose directions are apart, and takes turns with them on a half-duplex one.
    let yaml = |extra: &str| {
        small_yaml("greedy", false).replace("channel_rate: 40MB/s", "channel_rate: 2000MB/s")
            + extra
    };
    let apart = written_then_read_at_once(&mut from_yaml(&yaml("")), 64);
    let turns = written_then_read_at_once(&mut from_yaml(&yaml("  half_duplex: true\n")), 64);
    // 64 × 14.6 µs of data alone, and 64 × 10 µs of commands besides.
    assert!((936_000..1_100_000).contains(&apart), "{apart}");
    assert!((1_576_000..1_750_000).contains(&turns), "{turns}");
}

#[test]
fn a_link_whose_data_takes_turns_carries_reads_and_writes_no_faster_than_one_way() {
    // 32 reads and 32 writes of 4 KiB asked at once, with 1 µs commands, on fast NAND and
    // channels behind a buffer that takes every write: the link binds. With its directions
    // apart a write's data goes out while a read's comes back: the commands and the writes'
    // data, 64 µs and 32 × 14.6 µs, bound it. Where the data takes turns (SATA), all 64
    // transfers' 14.6 µs do.
    let yaml = |extra: &str| {
        small_yaml("greedy", false)
            .replace("channel_rate: 40MB/s", "channel_rate: 2000MB/s")
            .replace("command_overhead: 10us", "command_overhead: 1us")
            .replace("buffer: 256KiB", "buffer: 4MiB")
            .replace("program: 900us", "program: 20us")
            .replace("read: 50us", "read: 5us")
            + extra
    };
    let mixed = |extra: &str| {
        let mut sim = from_yaml(&yaml(extra));
        for i in 0..32 {
            write(&mut sim, i * 4096, i);
        }
        sim.settle().unwrap();
        let now = sim.clock + 10_000_000;
        let reqs: Vec<IoRequest> = (0..64u64)
            .map(|k| IoRequest {
                seq: 100 + k,
                op: if k % 2 == 0 { Op::Read } else { Op::Write },
                offset: if k % 2 == 0 { k / 2 } else { 64 + k / 2 } * 4096,
                len: 4096,
            })
            .collect();
        sim.serve_together(now, &reqs).into_iter().max().unwrap() - now
    };
    let apart = mixed("");
    let turns = mixed("  data_half_duplex: true\n");
    assert!((532_000..700_000).contains(&apart), "{apart}");
    assert!((936_000..1_050_000).contains(&turns), "{turns}");
    // Reads alone, or writes alone, are not moved by it.
    let alone = |extra: &str| written_then_read_at_once(&mut from_yaml(&yaml(extra)), 64);
    assert_eq!(alone(""), alone("  data_half_duplex: true\n"));
    let refused = refusal(&yaml("  half_duplex: true\n  data_half_duplex: true\n"));
    assert!(
        refused.contains("ssd.data_half_duplex: expected without half_duplex: true"),
        "{refused}"
    );
}

#[test]
fn a_sata_link_asks_for_each_frame_of_a_writes_data_and_sends_a_reads_unasked() {
    // SATA's NCQ frames, 1 µs each beside the data, on a link that binds (fast channels):
    // a read of 4 KiB takes five (its command, the drive's acceptance, its DMA setup, one
    // data frame, its completion) and of 16 KiB six (two data frames of 8 KiB); a write
    // takes a DMA Activate besides before each data frame (the drive asks for its data):
    // six and eight.
    let yaml = |frames: &str| {
        small_yaml("greedy", false).replace("channel_rate: 40MB/s", "channel_rate: 2000MB/s")
            + "  half_duplex: true\n"
            + frames
    };
    for (len, write_frames, read_frames) in [(4096, 6, 5), (16384, 8, 6)] {
        let (mut plain, mut framed) = (
            from_yaml(&yaml("")),
            from_yaml(&yaml("  frame_overhead: 1us\n")),
        );
        let written = |sim: &mut SsdSim| {
            let req = IoRequest {
                seq: 0,
                op: Op::Write,
                offset: 0,
                len,
            };
            let done = sim.serve(0, &req, None).unwrap();
            sim.settle().unwrap();
            done
        };
        let late = written(&mut framed) - written(&mut plain);
        assert_eq!(late, write_frames * 1000, "a write of {len} B");
        let late = read_at_once(&mut framed, &[(0, len)]) - read_at_once(&mut plain, &[(0, len)]);
        assert_eq!(late, read_frames * 1000, "a read of {len} B");
    }
    // Frames are a SATA link's: only with half_duplex.
    let refused = refusal(&(small_yaml("greedy", false) + "  frame_overhead: 1us\n"));
    assert!(
        refused.contains("ssd.frame_overhead: expected only with half_duplex: true"),
        "{refused}"
    );
}

/// `pages` 4 KiB pages written one after another, the drive settled, then all of them read
/// at once: the time until the last read is done.
fn written_then_read_at_once(sim: &mut SsdSim, pages: u64) -> u64 {
    for i in 0..pages {
        write(sim, i * 4096, i);
    }
    sim.settle().unwrap();
    let reads: Vec<(u64, u32)> = (0..pages).map(|i| (i * 4096, 4096)).collect();
    read_at_once(sim, &reads)
}

#[test]
fn planes_read_a_wordline_together_or_each_its_own_page() {
    // Two planes; 16 pages written in order: each die's wordline holds two of them, one a
    // plane. Each page senses in 50 µs, then crosses the 40 MB/s channel in 102 µs.
    let drive = |plane_reads: &str| written_in_order(&format!("  planes: 2\n{plane_reads}"), 16);
    // Logical pages 0 and 1 share die and wordline; the other page of that die is on
    // the second plane of its next wordline.
    let sim = drive("");
    let (a, b) = (sim.locate(0).unwrap(), sim.locate(1).unwrap());
    assert_eq!(
        (a.die, a.wordline, a.plane + 1),
        (b.die, b.wordline, b.plane)
    );
    let apart = (2..16)
        .find(|&l| {
            let s = sim.locate(l).unwrap();
            s.die == a.die && s.plane != a.plane && s.wordline != a.wordline
        })
        .unwrap();
    let sense = 50_000;
    let wordline = [(0, 8192)];
    let random = [(0, 4096), (apart * 4096, 4096)];
    let plain = [
        read_at_once(&mut drive(""), &wordline),
        read_at_once(&mut drive(""), &random),
    ];
    // A multi-plane read senses a wordline's two pages at once; pages on different
    // wordlines are read in turn.
    let multi = || drive("  plane_reads: multi\n");
    assert_eq!(plain[0] - read_at_once(&mut multi(), &wordline), sense);
    assert_eq!(read_at_once(&mut multi(), &random), plain[1]);
    // Independent planes each sense their own page, wherever it is.
    let independent = || drive("  plane_reads: independent\n");
    assert_eq!(
        plain[0] - read_at_once(&mut independent(), &wordline),
        sense
    );
    assert_eq!(plain[1] - read_at_once(&mut independent(), &random), sense);
    // Synchronous planes sense a page each at once, of any wordline, those asked for
    // before the sense starts: the two random pages queued behind a third page of the
    // die are sensed together; asked for while the die is free, in turn.
    let synchronous = || drive("  plane_reads: synchronous\n");
    assert_eq!(
        plain[0] - read_at_once(&mut synchronous(), &wordline),
        sense
    );
    assert_eq!(read_at_once(&mut synchronous(), &random), plain[1]);
    let third = (2..16)
        .find(|&l| l != apart && sim.locate(l).unwrap().die == a.die)
        .unwrap();
    let queued = [(third * 4096, 4096), (0, 4096), (apart * 4096, 4096)];
    assert_eq!(
        read_at_once(&mut drive(""), &queued) - read_at_once(&mut synchronous(), &queued),
        sense
    );
    // One plane has none to read apart.
    let yaml = small_yaml("greedy", false) + "  plane_reads: multi\n";
    assert!(refusal(&yaml).contains("ssd.plane_reads"));
}

#[test]
fn a_die_with_cache_reads_senses_its_next_page_while_the_last_crosses_the_channel() {
    // Three pages of one die asked for at once: each senses in 50 µs and crosses the
    // 40 MB/s channel in 102.4 µs. Without cache reads the die is held until its page is
    // across, 3 × 152.4 µs; with them its next sense runs while the last page crosses from
    // the cache register, so the senses after the first are hidden.
    let drive = |extra: &str| written_in_order(extra, 16);
    let sim = drive("");
    let die = sim.locate(0).unwrap().die;
    let pages: Vec<(u64, u32)> = (0..16)
        .filter(|&l| sim.locate(l).unwrap().die == die)
        .take(3)
        .map(|l| (l * 4096, 4096))
        .collect();
    assert_eq!(pages.len(), 3);
    let plain = read_at_once(&mut drive(""), &pages);
    let cached = read_at_once(&mut drive("  cache_reads: true\n"), &pages);
    assert_eq!(plain - cached, 2 * 50_000, "{plain} against {cached} ns");
    // A lone page gains nothing: its sense and transfer still follow each other.
    let one = &pages[..1];
    assert_eq!(
        read_at_once(&mut drive(""), one),
        read_at_once(&mut drive("  cache_reads: true\n"), one)
    );
    // On the die: a page sensed by 50 µs moves to its register and crosses until 150 µs; a
    // sense may start at once, a program (whose data comes in through the registers) not
    // before the register is free, and the plane's next page waits in the die for it.
    let mut die = Die::default();
    let moved = die.in_register(0, 50_000);
    die.book(moved);
    die.hold_register(0, 150_000);
    assert_eq!(die.start_read(60_000), 60_000);
    assert_eq!(die.in_register(0, 110_000), 150_000);
    assert_eq!(die.start(60_000), 150_000);
}

#[test]
fn six_planes_each_read_their_own_page() {
    // Six planes (the 232-layer TLC of 2023): a die's pages on its six planes, read at once
    // where planes read apart, take one sense, not six, before their transfers.
    let drive = |plane_reads: &str| written_in_order(&format!("  planes: 6\n{plane_reads}"), 96);
    let sim = drive("");
    let a = sim.locate(0).unwrap();
    let mut pages: Vec<u64> = Vec::new();
    for plane in 0..6 {
        let lpn = (0..96)
            .find(|&l| {
                let s = sim.locate(l).unwrap();
                s.die == a.die && s.plane == plane && s.wordline != a.wordline
            })
            .unwrap_or_else(|| panic!("a page on plane {plane}"));
        pages.push(lpn);
    }
    let reads: Vec<(u64, u32)> = pages.iter().map(|&lpn| (lpn * 4096, 4096)).collect();
    let (one_by_one, apart) = (
        read_at_once(&mut drive(""), &reads),
        read_at_once(&mut drive("  plane_reads: independent\n"), &reads),
    );
    assert_eq!(
        one_by_one - apart,
        5 * 50_000,
        "{one_by_one} against {apart} ns"
    );
}

#[test]
fn a_controller_that_takes_its_time_per_read_bounds_the_reads_of_many_dies() {
    // 64 reads of pages written over 4 dies, asked for at once: the dies read four at a
    // time; with 100 µs of the controller's a read, the controller is the bound.
    let elapsed = |extra: &str| {
        written_then_read_at_once(&mut from_yaml(&(small_yaml("greedy", false) + extra)), 64)
    };
    let (dies, controller) = (elapsed(""), elapsed("  read_overhead: 100us\n"));
    assert!(dies < 64 * 100_000, "{dies}");
    assert!(controller >= 64 * 100_000, "{controller}");
    assert!(controller < 64 * 100_000 + dies / 4, "{controller}");
}

#[test]
fn a_large_read_streams_over_the_link_while_its_pages_are_read() {
    // 32 pages on 2 channels of 40 MB/s: 16 page transfers a channel, 1.64 ms; the
    // link (280 MB/s) carries 128 KiB in 0.47 ms. Sent page by page as each arrives,
    // most of the link's time hides under the channels'.
    let mut sim = drive("greedy");
    for i in 0..32 {
        write(&mut sim, i * 4096, i);
    }
    sim.settle().unwrap();
    let t = sim.clock;
    let req = IoRequest {
        seq: 32,
        op: Op::Read,
        offset: 0,
        len: 128 << 10,
    };
    let took = sim.serve(t, &req, None).unwrap() - t;
    let channels = 16 * (4096.0 * 1e9 / 40e6) as u64;
    let link = (131_072.0 * 1e9 / 280e6) as u64;
    assert!(
        took >= channels,
        "{took} ns, under the channels' {channels} ns"
    );
    assert!(
        took < channels + link / 3,
        "{took} ns: the link's {link} ns did not overlap the channels' {channels} ns"
    );
}

#[test]
fn a_sequential_stream_is_read_ahead() {
    // Fast channels (400 MB/s): a 128 KiB read is bound by the link (280 MB/s, 468 µs).
    // The third read of a stream reads the fourth's pages behind its own, so the fourth
    // waits for the link alone; a read elsewhere gets nothing read ahead. Programs all
    // take their time, so the pages go to the dies in turn (a die whose program ran long
    // is passed over), as the bound assumes.
    let yaml = small_yaml("greedy", false).replace(
        "channel_rate: 40MB/s",
        "channel_rate: 400MB/s\n  program_spread: 0",
    );
    let mut sim = from_yaml(&yaml);
    for i in 0..128 {
        write(&mut sim, i * 4096, i);
    }
    sim.settle().unwrap();
    let mut read = |offset: u64, seq: u64| {
        let t = sim.clock;
        let req = IoRequest {
            seq,
            op: Op::Read,
            offset,
            len: 128 << 10,
        };
        let done = sim.serve(t, &req, None).unwrap();
        sim.clock = done;
        done - t
    };
    let (_, _, third) = (read(0, 1), read(128 << 10, 2), read(256 << 10, 3));
    let fourth = read(384 << 10, 4);
    let elsewhere = read(0, 5);
    let link = (131_072.0 * 1e9 / 280e6) as u64;
    assert!(
        fourth >= link && fourth < link + 20_000,
        "fourth read {fourth} ns"
    );
    assert!(
        third > fourth + 40_000,
        "third {third} ns, fourth {fourth} ns"
    );
    assert!(
        elsewhere > fourth + 40_000,
        "a read elsewhere {elsewhere} ns"
    );
}

#[test]
fn planes_that_sense_together_end_with_the_slowest() {
    // Two pages of one die asked for together, on two planes: the second (a slower page
    // type, or a slower draw) joins the sense the first started and is not there before
    // its own sense time, nor sooner than the first.
    let mut die = super::die::Die::suspending(None);
    let first = die.sense_together(1_000, None, 0, 40_000);
    assert_eq!(first, 41_000);
    let second = die.sense_together(1_000, None, 1, 60_000);
    assert_eq!(second, 61_000, "the slower plane's sense ends the pair's");
    // A third plane's faster page ends with the pair, not before it.
    assert_eq!(die.sense_together(1_000, None, 2, 30_000), 61_000);
    // One asked for after the sense started waits for a sense of its own, after the
    // pair's transfers the caller booked.
    die.book(70_000);
    assert_eq!(die.sense_together(2_000, None, 3, 30_000), 100_000);
}

#[test]
fn a_retry_does_not_part_the_planes_that_sense_together() {
    // Four pages of one request, a plane each, asked for together: the second is read
    // again (its decode failed) before the third and fourth are asked for, as a request's
    // pages are served in turn. The retry is a sense of its own after the pair's
    // transfers; the third and fourth still join the sense the four were asked for in.
    let mut die = super::die::Die::suspending(None);
    assert_eq!(die.sense_together(1_000, None, 0, 40_000), 41_000);
    assert_eq!(die.sense_together(1_000, None, 1, 40_000), 41_000);
    die.book(60_000);
    let again = die.start_again(60_000);
    assert_eq!(
        again, 60_000,
        "the retry waits for the die, not for a new sense"
    );
    die.book(again + 40_000 + 20_000);
    assert_eq!(die.sense_together(1_000, None, 2, 40_000), 41_000);
    assert_eq!(die.sense_together(1_000, None, 3, 40_000), 41_000);
    // A read of another request after them is a sense of its own, after the retry.
    assert_eq!(die.sense_together(2_000, None, 0, 40_000), 160_000);
    // Where a read of its own starts on the die in between (`start_read`, not a retry),
    // the sense is over: what comes after it senses anew.
    let mut die = super::die::Die::suspending(None);
    die.sense_together(1_000, None, 0, 40_000);
    die.book(60_000);
    let read = die.start_read(60_000);
    die.book(read + 60_000);
    assert_eq!(die.sense_together(1_000, None, 1, 40_000), 160_000);
}

#[test]
fn a_page_is_sensed_once_for_a_stream_of_reads_smaller_than_it() {
    // 16 KiB pages read by a stream of 4 KiB requests, one at a time: once the stream is
    // read ahead, each page is sensed once for its four requests (read ahead whole),
    // not once for each of them, nor again for every request that reads ahead of it.
    // Fast channels (400 MB/s): a whole page crosses in less than its sense.
    let yaml = small_yaml("greedy", false)
        .replace("page: 4KiB", "page: 16KiB")
        .replace("channel_rate: 40MB/s", "channel_rate: 400MB/s");
    let mut sim = from_yaml(&yaml);
    let pages = 64u64;
    for i in 0..pages {
        let req = IoRequest {
            seq: i,
            op: Op::Write,
            offset: i * 16384,
            len: 16384,
        };
        let t = sim.clock;
        sim.clock = sim.serve(t, &req, None).unwrap();
    }
    sim.settle().unwrap();
    let before = sim.stats().page_reads;
    let mut latencies = Vec::new();
    for i in 0..pages * 4 {
        let req = IoRequest {
            seq: 1000 + i,
            op: Op::Read,
            offset: i * 4096,
            len: 4096,
        };
        let t = sim.clock;
        let done = sim.serve(t, &req, None).unwrap();
        latencies.push(done - t);
        sim.clock = done;
    }
    let sensed = sim.stats().page_reads - before;
    // The first page's four requests and the read-ahead of the second: then one a page.
    assert!(
        sensed <= pages + 4,
        "{sensed} pages sensed for {pages} pages read"
    );
    // And a request that finds its page read ahead waits for no sense: the stream's
    // later requests are faster than its first.
    let late = latencies[pages as usize * 2..].iter().max().unwrap();
    assert!(*late < latencies[0], "{late} ns, first {} ns", latencies[0]);
}

#[test]
fn a_page_in_slc_mode_reads_at_its_sense_time_until_it_is_folded() {
    // A TLC drive (45, 60 and 45 µs by page type) whose cache reads in 20 µs: pages
    // written while the cache takes them read in 20 µs whatever their type.
    let cache = "  slc_cache: {bits: 3, static: 64KiB, program: 200us, read: 20us}\n";
    let mut sim = from_yaml(&tlc_yaml(cache));
    let dies = sim.p.dies as u64;
    // 16 pages fill the 64 KiB cache; the next 16 go to TLC.
    for i in 0..32 {
        write(&mut sim, i * 4096, i);
    }
    sim.settle().unwrap();
    let mut plain = from_yaml(&tlc_yaml(&cache.replace(", read: 20us", "")));
    for i in 0..32 {
        write(&mut plain, i * 4096, i);
    }
    plain.settle().unwrap();
    for lpn in [0, 1, 2, 15] {
        let (fast, slow) = (
            read_alone(&mut sim, lpn, 100 + lpn),
            read_alone(&mut plain, lpn, 100 + lpn),
        );
        let kind = plain.locate(lpn).unwrap().kind;
        assert_eq!(
            slow - fast,
            plain.p.t_read_types[kind] - 20_000,
            "page {lpn}"
        );
    }
    // Native pages read alike on both.
    for lpn in 16..16 + dies {
        assert_eq!(
            read_alone(&mut sim, lpn, 200 + lpn),
            read_alone(&mut plain, lpn, 200 + lpn)
        );
    }
    // Written again with the cache full, a page goes to TLC and leaves the cache; idle folds
    // the cache, and then its pages read at their types' times again.
    write(&mut sim, 0, 300);
    sim.settle().unwrap();
    assert!(!sim.locate(0).unwrap().slc && sim.locate(1).unwrap().slc);
    sim.idle(1_000_000_000, &std::sync::atomic::AtomicBool::new(false));
    assert!((0..32).all(|lpn| !sim.locate(lpn).unwrap().slc));
    let kind = sim.locate(1).unwrap().kind;
    let took = read_alone(&mut sim, 1, 400);
    let base = read_alone(&mut plain, 1, 400) - plain.p.t_read_types[plain.locate(1).unwrap().kind];
    assert_eq!(took - sim.p.t_read_types[kind], base);
    // A sense in SLC mode no slower than the native read, and above zero.
    for bad in ["60us", "0us"] {
        let e = refusal(&tlc_yaml(&cache.replace("20us", bad)));
        assert!(e.contains("ssd.slc_cache.read: expected"), "{e}");
    }
}
