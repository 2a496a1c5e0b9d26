//! The NVMe-era simulated drives (docs/simulated-drives.md, "The NVMe era"): their
//! whole-drive fills, spec-sheet figures and the SLC cache's recovery in idle time, each
//! from running the model, against the published figures
//! (shared/reference/modern-drives.md).

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{repo_drive_file as drive_file, stderr, TestLab};

/// The shipped suite's test `id` (its YAML, up to the next test).
fn shipped_test(suite: &str, id: &str) -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("suites/{suite}.yaml")),
    )
    .unwrap();
    let from = text.find(&format!("  - id: {id}\n")).unwrap();
    let rest = &text[from + 1..];
    let to = rest
        .find("\n  - id: ")
        .map_or(text.len(), |k| from + 1 + k + 1);
    text[from..to].to_string()
}

/// A suite of the shipped modern-2026's whole-drive fill alone.
fn fill_suite() -> String {
    format!(
        "name: t\ntitle: t\nseed: 1\ntests:\n{}",
        shipped_test("modern-2026", "fill")
    )
}

/// Runs `suite` on `drives` and returns each (drive, test)'s first summary row.
fn run(drives: &[&str], suite: &str) -> BTreeMap<(String, String), serde_json::Value> {
    let lab = TestLab::new();
    for d in drives {
        lab.write(&format!("drives/{d}.yaml"), &drive_file(d));
    }
    suite_rows(&lab, suite)
        .into_iter()
        .filter(|r| r["repeat"] == 1)
        .map(|r| {
            let key = (
                r["drive"].as_str().unwrap().to_string(),
                r["test"].as_str().unwrap().to_string(),
            );
            (key, r)
        })
        .collect()
}

/// The figure `key` of `drive` on `test` in [`run`]'s rows (NaN where it has none).
fn value(
    rows: &BTreeMap<(String, String), serde_json::Value>,
    drive: &str,
    test: &str,
    key: &str,
) -> f64 {
    rows[&(drive.to_string(), test.to_string())][key]
        .as_f64()
        .unwrap_or(f64::NAN)
}

/// The whole-drive fill's figure `key` (`cache_gb`, `after_cache_mb_per_s`, …) of `drive`.
fn fill_figure(
    rows: &BTreeMap<(String, String), serde_json::Value>,
    drive: &str,
    key: &str,
) -> f64 {
    rows[&(drive.to_string(), "fill".to_string())]["fill"][key]
        .as_f64()
        .unwrap_or(f64::NAN)
}

/// `model` within `tolerance` (a share: 0.2 for ±20%) of the published `review`.
fn near(model: f64, review: f64, tolerance: f64, what: &str) {
    let r = model / review;
    assert!(
        (1.0 - tolerance..=1.0 + tolerance).contains(&r),
        "{what}: model {model:.1}, review {review}, ratio {r:.3}"
    );
}

#[test]
fn whole_drive_fills_match_the_reviews() {
    let drives = [
        "samsung-970-evo-plus-250gb",
        "samsung-970-evo-plus-500gb",
        "samsung-970-evo-plus-1tb",
        "crucial-p1-1tb",
    ];
    let suite = fill_suite();
    let rows = run(&drives, &suite);
    let fill = |d: &str, key: &str| fill_figure(&rows, d, key);
    // The 970 EVO Plus: Samsung's figures after the cache (400 / 900 / 1,700 MB/s; the
    // 1 TB's was fitted, the others follow from the dies) and the cache (13 / 22 / 42 GB).
    // A fitted figure is held to 5% or less, a predicted one to the 20%: a mechanism
    // that moves a fitted figure shows (one did, unseen under 20%: the NM790's, below).
    for (d, after, cache, tolerance) in [
        ("samsung-970-evo-plus-250gb", 400.0, 13.0, 0.2),
        ("samsung-970-evo-plus-500gb", 900.0, 22.0, 0.2),
        ("samsung-970-evo-plus-1tb", 1700.0, 42.0, 0.05),
    ] {
        near(
            fill(d, "after_cache_mb_per_s"),
            after,
            tolerance,
            &format!("{d} after the cache"),
        );
        near(fill(d, "cache_gb"), cache, 0.2, &format!("{d} cache"));
    }
    // TechPowerUp's fill of the Crucial P1 1 TB (the 980 PRO's: its own test, below).
    let d = "crucial-p1-1tb";
    near(
        fill(d, "in_cache_mb_per_s"),
        1600.0,
        0.03,
        "P1 in the cache",
    );
    near(fill(d, "cache_gb"), 140.0, 0.03, "P1 cache");
    near(
        fill(d, "after_cache_mb_per_s"),
        150.0,
        0.03,
        "P1 after the cache",
    );
    // PC Perspective: the post-cache speed scales with the dies, the burst with the link.
    let ratio = fill("samsung-970-evo-plus-1tb", "after_cache_mb_per_s")
        / fill("samsung-970-evo-plus-500gb", "after_cache_mb_per_s");
    assert!(
        (1.8..2.2).contains(&ratio),
        "1 TB / 500 GB after the cache: {ratio}"
    );
}

/// The SATA drives of 4 TB: the QLC drive's fill as KitGuru measured it, the TLC drive's
/// as TechPowerUp did. A 4 TB fill is four million 1 MiB writes.
#[test]
fn the_sata_4tb_drives_fill_as_measured() {
    let suite = fill_suite();
    let rows = run(&["samsung-870-qvo-4tb", "samsung-870-evo-4tb"], &suite);
    let fill = |d: &str, key: &str| fill_figure(&rows, d, key);
    let d = "samsung-870-qvo-4tb";
    // KitGuru: 487 MB/s in the cache (the link's rate here: predicted), 169 after (the
    // controller's limit for native data fitted to Samsung's 160); the cache Samsung's 6 +
    // 72 GB (input).
    near(
        fill(d, "in_cache_mb_per_s"),
        487.0,
        0.2,
        "870 QVO in the cache",
    );
    near(fill(d, "cache_gb"), 78.0, 0.2, "870 QVO cache");
    near(fill(d, "after_cache_mb_per_s"), 169.0, 0.2, "870 QVO after");
    // TechPowerUp's 870 EVO: ~480 MB/s in the cache (predicted: the link's), 400 after
    // (the controller's native rate, fitted), 416 on average (predicted). Its cache is
    // Samsung's 78 GB (input) where TechPowerUp saw the drop after 24: a reported miss.
    let d = "samsung-870-evo-4tb";
    near(
        fill(d, "in_cache_mb_per_s"),
        480.0,
        0.2,
        "870 EVO in the cache",
    );
    near(fill(d, "after_cache_mb_per_s"), 400.0, 0.2, "870 EVO after");
    near(
        fill(d, "average_mb_per_s"),
        416.0,
        0.2,
        "870 EVO whole drive",
    );
    near(fill(d, "cache_gb"), 78.0, 0.2, "870 EVO cache (Samsung's)");
}

/// The lab's PCIe 4.0 drive with a large dynamic cache, the Lexar NM790 2 TB, against
/// TechPowerUp's fill (review lexar-nm790-2-tb, p6): almost 5 GB/s for 280 GB (SLC program
/// time and cache size fitted), 2.5 GB/s after it (TLC program time fitted) until about
/// 1,300 GB, then slower where the user area runs out of room beside the cache (where:
/// predicted). How far it falls there (800 MB/s) and the whole-drive average (1.45 GB/s)
/// the model misses (docs/simulated-drives.md): it folds the cache twice as fast.
#[test]
fn the_pcie4_drive_fills_in_three_stretches() {
    let lab = TestLab::new();
    lab.repo_drive("lexar-nm790-2tb");
    lab.write("suites/t.yaml", &fill_suite());
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (jobs, problems) = roundup::store::scan(&lab.path().join("results"));
    assert!(problems.is_empty() && jobs.len() == 1, "{problems:?}");
    let summary = roundup::analysis::summarize_job(&jobs[0]).unwrap();
    let fill = summary.fill.expect("a fill");
    near(fill.in_cache_mb_per_s, 5000.0, 0.2, "NM790 in the cache");
    near(fill.cache_gb.unwrap(), 280.0, 0.2, "NM790 cache");
    // The speed over a stretch of the curve, GB to GB.
    let speed = |from: f64, to: f64| {
        let p: Vec<f64> = (fill.points.iter())
            .filter(|p| p.gb > from && p.gb <= to)
            .map(|p| p.mb_per_s)
            .collect();
        p.iter().sum::<f64>() / p.len() as f64
    };
    // Fitted (the TLC program time), so held to 3%: a mechanism that moves it shows here
    // (programs of their own lengths, issue 31, moved it +8% unseen under the review's 20%).
    near(speed(400.0, 1200.0), 2500.0, 0.03, "NM790 after the cache");
    // Where it drops again: the first point past 1,000 GB below 85% of the plateau.
    let plateau = speed(400.0, 1000.0);
    let second = (fill.points.iter())
        .find(|p| p.gb > 1000.0 && p.mb_per_s < 0.85 * plateau)
        .expect("a second drop");
    near(second.gb, 1300.0, 0.2, "NM790 second drop");
    assert!(speed(second.gb + 50.0, 2000.0) < 0.85 * plateau);
    // The whole drive as docs/simulated-drives.md reports it (a miss of the review's 1,450).
    near(fill.average_mb_per_s, 2345.0, 0.03, "NM790 whole drive");
}

/// The drive written whole, then 4 KiB random reads at QD1 over 8 GiB (`near`) and over the
/// whole drive (`far`).
const MAP_READS: &str = "name: t
title: t
seed: 1
tests:
  - {id: fill, title: f, operation: write, pattern: sequential, block_size: 1MiB, span: full, queue_depth: 4, passes: 1, precondition: {purge: true}, samples: histogram, metric: mb_per_s}
  - {id: near, title: n, operation: read, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 1, duration: 1s, warmup: 500ms, samples: histogram, metric: lat_mean_us}
  - {id: far, title: f, operation: read, pattern: random, block_size: 4KiB, span: full, queue_depth: 1, duration: 1s, warmup: 500ms, samples: histogram, metric: lat_mean_us}
";

/// The lab's DRAM-less drive: written whole, its random reads at QD1 over the whole drive
/// read a map page first where the 64 MB host memory buffer's map does not reach (it
/// covers a quarter of the drive); over 8 GiB every map page is held.
#[test]
fn the_dram_less_p3_reads_slower_where_its_map_cache_does_not_reach() {
    let rows = run(&["crucial-p3-1tb"], MAP_READS);
    let mean = |t: &str| value(&rows, "crucial-p3-1tb", t, "lat_mean_us");
    let (near, far) = (mean("near"), mean("far"));
    assert!(far > 1.5 * near, "far {far} µs, near {near} µs");
}

/// 128 KiB sequential and 4 KiB random (QD32 × 4 threads, as Samsung measures) figures.
const SPEC: &str = "name: t
title: t
seed: 1
tests:
  - {id: seq-read, title: r, operation: read, pattern: sequential, block_size: 128KiB, span: 8GiB, queue_depth: 32, duration: 1s, precondition: {purge: true, fill: 1}, samples: histogram, metric: mb_per_s}
  - {id: seq-write, title: w, operation: write, pattern: sequential, block_size: 128KiB, span: 8GiB, queue_depth: 32, duration: 1s, samples: histogram, metric: mb_per_s}
  - {id: rnd-read, title: rr, operation: read, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 32, threads: 4, duration: 500ms, samples: histogram, metric: iops}
  - {id: rnd-write, title: rw, operation: write, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 32, threads: 4, duration: 500ms, samples: histogram, metric: iops}
";

#[test]
fn spec_sheet_figures_where_the_model_has_the_mechanism() {
    let rows = run(
        &[
            "samsung-970-evo-plus-250gb",
            "samsung-970-evo-plus-500gb",
            "samsung-970-evo-plus-1tb",
            "samsung-980-pro-1tb",
            "crucial-p3-1tb",
            "crucial-p1-1tb",
            "lexar-nm790-2tb",
            "samsung-870-evo-4tb",
            "samsung-870-qvo-4tb",
        ],
        SPEC,
    );
    let at = |d: &str, t: &str, key: &str| value(&rows, d, t, key);
    // "Up to" figures: within −25% / +10%.
    let up_to = |d: &str, t: &str, key: &str, spec: f64| {
        let r = at(d, t, key) / spec;
        assert!((0.75..=1.10).contains(&r), "{d} {t}: {r:.3} of {spec}");
    };
    for (d, write) in [
        ("samsung-970-evo-plus-250gb", 2300.0),
        ("samsung-970-evo-plus-500gb", 3200.0),
        ("samsung-970-evo-plus-1tb", 3300.0),
    ] {
        up_to(d, "seq-write", "mb_per_s", write);
        up_to(d, "rnd-write", "iops", 550_000.0);
    }
    // Eight dies read at the link's rate only as multi-plane reads: a wordline's two
    // pages in one sense (2,312 MB/s a page at a time).
    for d in [
        "samsung-970-evo-plus-250gb",
        "samsung-970-evo-plus-500gb",
        "samsung-970-evo-plus-1tb",
    ] {
        up_to(d, "seq-read", "mb_per_s", 3500.0);
    }
    up_to("samsung-970-evo-plus-1tb", "rnd-read", "iops", 600_000.0);
    let d = "samsung-980-pro-1tb";
    up_to(d, "seq-read", "mb_per_s", 7000.0);
    // The controller's path to the channels (fitted to TechPowerUp's 4 GB/s in the cache).
    up_to(d, "seq-write", "mb_per_s", 5000.0);
    up_to(d, "rnd-write", "iops", 1_000_000.0);
    // Planes that read apart (chosen for this figure: 591K a page a die at a time) and the
    // controller's time per read (fitted to it and the 2 TB's).
    up_to(d, "rnd-read", "iops", 1_000_000.0);
    // The DRAM-less P3: its SLC program time fitted to the write, the read predicted.
    up_to("crucial-p3-1tb", "seq-write", "mb_per_s", 3000.0);
    up_to("crucial-p3-1tb", "seq-read", "mb_per_s", 3500.0);
    // The planes of a die sense a page each together, of any wordline (the mechanism
    // chosen from the 250 GB's 250K; a wordline's pages together gave 162K), and the
    // controller's time per read bounds the 1 TB (fitted to its 600K): the 500 GB's 480K
    // is predicted.
    up_to("samsung-970-evo-plus-250gb", "rnd-read", "iops", 250_000.0);
    up_to("samsung-970-evo-plus-500gb", "rnd-read", "iops", 480_000.0);
    // The P1 (Crucial's sheet, as TechReport printed it: 2,000 / 1,700 MB/s, 170K / 240K
    // IOPS): planes that sense together chosen from the 170K random reads, its decoder's
    // rate from the 2,000 MB/s sequential read (its channels gave 2,541: a miss until
    // then); its writes predicted.
    let p1 = "crucial-p1-1tb";
    up_to(p1, "rnd-read", "iops", 170_000.0);
    up_to(p1, "rnd-write", "iops", 240_000.0);
    up_to(p1, "seq-write", "mb_per_s", 1700.0);
    up_to(p1, "seq-read", "mb_per_s", 2000.0);
    assert!(at(p1, "seq-read", "mb_per_s") < at("crucial-p3-1tb", "seq-read", "mb_per_s"));
    // The NM790 (Lexar's sheet: 7,400 / 6,500 MB/s): the link fitted to the read, the write
    // its 16 dies' in SLC mode (that program time fitted to TechPowerUp's fill), predicted.
    up_to("lexar-nm790-2tb", "seq-read", "mb_per_s", 7400.0);
    up_to("lexar-nm790-2tb", "seq-write", "mb_per_s", 6500.0);
    // The ordering a reviewer expects: the PCIe 4.0 drive reads sequentially twice as fast.
    assert!(
        at(d, "seq-read", "mb_per_s")
            > 1.9 * at("samsung-970-evo-plus-1tb", "seq-read", "mb_per_s")
    );
    // The 870s (Samsung's sheet: 560 / 530 MB/s, 98K / 88K IOPS on every capacity): the
    // SATA link's, one frame at a time, a frame's time on it fitted to the 88K writes, the
    // rest predicted.
    for d in ["samsung-870-evo-4tb", "samsung-870-qvo-4tb"] {
        up_to(d, "seq-read", "mb_per_s", 560.0);
        up_to(d, "seq-write", "mb_per_s", 530.0);
        up_to(d, "rnd-read", "iops", 98_000.0);
        up_to(d, "rnd-write", "iops", 88_000.0);
        eprintln!(
            "{d}: {:.0} / {:.0} MB/s, {:.0} / {:.0} IOPS",
            at(d, "seq-read", "mb_per_s"),
            at(d, "seq-write", "mb_per_s"),
            at(d, "rnd-read", "iops"),
            at(d, "rnd-write", "iops"),
        );
        // The drive asks for each frame of a write's data and sends a read's unasked:
        // sequential reads above writes, as the sheet has them (560 / 530), within 2% of it.
        near(at(d, "seq-read", "mb_per_s"), 560.0, 0.02, "870 seq. read");
        near(
            at(d, "seq-write", "mb_per_s"),
            530.0,
            0.02,
            "870 seq. write",
        );
    }
    // The EVO's random reads above its writes, as its sheet, PC World's and KitGuru's
    // measurements have them; the QVO's QLC dies still hold its reads below (reported),
    // within 1% of them since the link sends what is ready first (2% below before).
    let d = "samsung-870-evo-4tb";
    assert!(at(d, "rnd-read", "iops") > 1.04 * at(d, "rnd-write", "iops"));
    let d = "samsung-870-qvo-4tb";
    assert!(at(d, "rnd-read", "iops") < at(d, "rnd-write", "iops"));
    assert!(at(d, "rnd-read", "iops") > 0.99 * at(d, "rnd-write", "iops"));
}

#[test]
fn the_870s_link_sends_what_is_ready_first_at_every_depth() {
    // 4 KiB random reads on the 870 EVO at QD8 and QD32: where the SATA link binds in part,
    // a link that books each read's data when the read is issued leaves the gaps shorter
    // than a read's data unused (QD8 carried 0.71 of QD32 so); one that sends what is
    // ready first loses none of them (0.82).
    let suite = "name: t\ntitle: t\nseed: 1\ntests:
  - {id: rr, title: r, operation: read, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 8, duration: 1s, precondition: {fill: 1}, samples: histogram, metric: iops, variants: {queue_depth: [8, 32]}}
";
    let d = "samsung-870-evo-4tb";
    let rows = suite_rows(&lab_of(&[d], &[]), suite);
    let at = |qd: &str| {
        rows.iter()
            .find(|r| r["variant"] == qd)
            .and_then(|r| r["iops"].as_f64())
            .unwrap_or(f64::NAN)
    };
    let share = at("qd-8") / at("qd-32");
    eprintln!(
        "{d}: QD8 {:.0}, QD32 {:.0} IOPS ({share:.3})",
        at("qd-8"),
        at("qd-32")
    );
    assert!(share > 0.78, "{share:.3}");
}

#[test]
fn a_stream_of_reads_smaller_than_a_page_reads_as_fast_as_scattered_ones() {
    // 4 KiB reads at QD8 on drives of 16 KiB pages, in a stream and at random over the same
    // 8 GiB: the stream's pages are sensed once for its four requests each (read ahead
    // whole), so it reads at least as fast as scattered reads of the same size. With a
    // read-ahead that read each page again for every request, the stream read at a third
    // of the random rate (the 970 EVO Plus 1 TB 171 against 525 MB/s).
    let suite = "name: t\ntitle: t\nseed: 1\ntests:
  - {id: seq, title: s, operation: read, pattern: sequential, block_size: 4KiB, span: 8GiB, queue_depth: 8, duration: 1s, precondition: {fill: 1}, samples: histogram, metric: mb_per_s}
  - {id: rnd, title: r, operation: read, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 8, duration: 1s, samples: histogram, metric: mb_per_s}
";
    let drives = ["samsung-970-evo-plus-1tb", "samsung-870-qvo-4tb"];
    let rows = run(&drives, suite);
    for d in drives {
        let (seq, rnd) = (
            value(&rows, d, "seq", "mb_per_s"),
            value(&rows, d, "rnd", "mb_per_s"),
        );
        eprintln!("{d}: 4 KiB at QD8, sequential {seq:.0} MB/s, random {rnd:.0}");
        assert!(seq >= rnd, "{d}: sequential {seq:.0} MB/s, random {rnd:.0}");
    }
}

#[test]
fn the_970_evo_plus_writes_at_random_after_its_cache_as_samsung_states() {
    // Samsung's data sheet for the 970 EVO Plus gives, beside its writes after the cache
    // (400 / 900 / 1,700 MB/s), 4 KiB random writes at QD32 × 4 "for the portion of data
    // exceeding" the cache: 100K / 200K / 400K IOPS for the 250 GB / 500 GB / 1 TB. Here
    // 64 GB written in one stream (past each cache) and then 4 KiB random writes over the
    // whole drive, new places: what its TLC dies write, nothing fitted to them (predicted,
    // ±20% as the issue asks of the speeds after the cache).
    let suite = "name: t\ntitle: t\nseed: 1\ntests:
  - {id: past-the-cache, title: w, operation: write, pattern: sequential, block_size: 1MiB, span: 64GB, queue_depth: 4, passes: 1, precondition: {purge: true}, data: incompressible, metric: mb_per_s}
  - {id: rnd-write-after, title: rw, operation: write, pattern: random, block_size: 4KiB, span: full, queue_depth: 32, threads: 4, duration: 2s, samples: histogram, metric: iops}
";
    let rows = run(
        &[
            "samsung-970-evo-plus-250gb",
            "samsung-970-evo-plus-500gb",
            "samsung-970-evo-plus-1tb",
        ],
        suite,
    );
    for (d, stated) in [
        ("samsung-970-evo-plus-250gb", 100_000.0),
        ("samsung-970-evo-plus-500gb", 200_000.0),
        ("samsung-970-evo-plus-1tb", 400_000.0),
    ] {
        near(
            value(&rows, d, "rnd-write-after", "iops"),
            stated,
            0.2,
            &format!("{d} random writes after the cache"),
        );
    }
}

#[test]
fn the_p1s_other_capacities_derived_from_its_file() {
    // The 2 TB and 500 GB P1 (16 and 4 dies), derived from the 1 TB's file as the capacity
    // siblings are (not shipped; docs/simulated-drives.md, "The NVMe era"), on the spec
    // test, against Crucial's sheet as TechReport printed it.
    let rows = family_on_the_spec_test(
        "crucial-p1-1tb",
        &[
            ("crucial-p1-2tb", "2TB", "4", "280GB", "2048GiB"),
            ("crucial-p1-500", "500GB", "1", "70GB", "512GiB"),
        ],
    );
    // The decoder's rate, fitted on the 1 TB, predicts the 2 TB's read (its channels alone
    // gave 2,667); the encoder's, the SM2263's advertised write, its write (its dies alone
    // gave 2,734). The 500 GB's lone die a channel senses its next page while the last
    // crosses the channel (cache reads): its read is the decoder's, as the 1 TB's is (a
    // miss, −27% of the sheet, without).
    within_the_sheet(
        &rows,
        &[
            ("crucial-p1-2tb", "seq-read", "mb_per_s", 2000.0),
            ("crucial-p1-2tb", "seq-write", "mb_per_s", 1750.0),
            ("crucial-p1-2tb", "rnd-read", "iops", 250_000.0),
            ("crucial-p1-2tb", "rnd-write", "iops", 250_000.0),
            ("crucial-p1-500", "seq-read", "mb_per_s", 1900.0),
            ("crucial-p1-500", "seq-write", "mb_per_s", 950.0),
            ("crucial-p1-500", "rnd-read", "iops", 90_000.0),
            ("crucial-p1-500", "rnd-write", "iops", 220_000.0),
        ],
    );
    // The 500 GB's read as a share of the 1 TB's, where CDRLabs measured 0.98 (0.70 without
    // cache reads).
    let share = |t: &str| {
        figure(&rows, "crucial-p1-500", t, "mb_per_s")
            / figure(&rows, "crucial-p1-1tb", t, "mb_per_s")
    };
    let read = share("seq-read");
    assert!((0.90..=1.05).contains(&read), "{read:.3} of the 1 TB's");
    // Its write, half the dies in SLC mode, against CDRLabs' secure-erased drives (900 and
    // 1,584 MB/s: 0.568), within ±15 points as the capacity siblings' shares are held.
    let write = share("seq-write");
    assert!((write - 0.568).abs() <= 0.15, "{write:.3} of the 1 TB's");
}

#[test]
fn the_980_pros_other_capacities_derived_from_its_file() {
    // The 980 PRO 250 GB, 500 GB and 2 TB (8, 16 and 64 dies: one, two and eight a
    // channel), derived from the 1 TB's file as the capacity siblings are (not shipped; the
    // dynamic cache scaled with the capacity, which the spec test does not reach), on the
    // spec test, against Samsung's sheet: the 250 and 500 GB as LegitReviews printed it,
    // the 2 TB as Puget Systems lists it (docs/simulated-drives.md, "The NVMe era").
    let rows = family_on_the_spec_test(
        "samsung-980-pro-1tb",
        &[
            ("samsung-980-pro-250gb", "250GB", "1", "27GB", "256GiB"),
            ("samsung-980-pro-500gb", "500GB", "2", "54GB", "512GiB"),
            ("samsung-980-pro-2tb", "2TB", "8", "216GB", "2048GiB"),
        ],
    );
    // The 250 GB's write is its dies' (the SLC program time is fitted to it) and the 2 TB's
    // random read the controller's (its time per read, fitted to the sheet's flat 1M); the
    // rest predicted: the writes of 16 and 64 dies bound by the controller's path to the
    // channels (fitted to TechPowerUp's 4 GB/s on the 1 TB), the reads of 16 and more dies
    // by the link, and those of fewer by their dies, which sense a page while the last
    // crosses the channel (cache reads: 4,721 MB/s and 587K IOPS, misses, without).
    within_the_sheet(
        &rows,
        &[
            ("samsung-980-pro-250gb", "seq-read", "mb_per_s", 6400.0),
            ("samsung-980-pro-250gb", "seq-write", "mb_per_s", 2700.0),
            ("samsung-980-pro-500gb", "seq-read", "mb_per_s", 6900.0),
            ("samsung-980-pro-500gb", "rnd-read", "iops", 800_000.0),
            ("samsung-980-pro-500gb", "seq-write", "mb_per_s", 5000.0),
            ("samsung-980-pro-2tb", "seq-read", "mb_per_s", 7000.0),
            ("samsung-980-pro-2tb", "seq-write", "mb_per_s", 5100.0),
            ("samsung-980-pro-2tb", "rnd-read", "iops", 1_000_000.0),
            ("samsung-980-pro-2tb", "rnd-write", "iops", 1_000_000.0),
        ],
    );
    // The reported miss, where eight dies bind the reads: 500K random reads need more
    // reads a die at once than two planes of 45 µs senses give.
    below_the_sheet(
        &rows,
        &[("samsung-980-pro-250gb", "rnd-read", "iops", 500_000.0)],
    );
}

/// A member of a drive family derived from its parent's file: its id, capacity, dies a
/// channel, dynamic cache and raw capacity.
type Member<'a> = (&'a str, &'a str, &'a str, &'a str, &'a str);

/// A figure of a sheet: the drive, the spec test's test, the summary's key, the figure.
type SheetFigure<'a> = (&'a str, &'a str, &'a str, f64);

/// Runs the spec test on `base` and on `members`, each derived from its file; returns every
/// row.
fn family_on_the_spec_test(base: &str, members: &[Member]) -> Vec<serde_json::Value> {
    let lab = TestLab::new();
    lab.write(&format!("drives/{base}.yaml"), &drive_file(base));
    for &(id, capacity, dies, cache, raw) in members {
        let file = family_member(base, id, capacity, dies, cache, raw);
        lab.write(&format!("drives/{id}.yaml"), &file);
    }
    suite_rows(&lab, SPEC)
}

/// Each figure of `sheet` as an "up to" figure: the model within −25% / +10% of it.
fn within_the_sheet(rows: &[serde_json::Value], sheet: &[SheetFigure]) {
    for &(d, t, key, figure_of_sheet) in sheet {
        let r = figure(rows, d, t, key) / figure_of_sheet;
        assert!(
            (0.75..=1.10).contains(&r),
            "{d} {t}: {r:.3} of {figure_of_sheet}"
        );
    }
}

/// Each figure of `sheet` a reported miss: the model below 0.75 of it.
fn below_the_sheet(rows: &[serde_json::Value], sheet: &[SheetFigure]) {
    for &(d, t, key, figure_of_sheet) in sheet {
        let r = figure(rows, d, t, key) / figure_of_sheet;
        assert!(r < 0.75, "{d} {t}: {r:.3} of {figure_of_sheet}");
    }
}

/// PC World's "450GB Single-File Write" (its 870 EVO review, March 2021), as one stream of
/// 1 MiB writes on an erased drive: a test to add to a suite.
const WRITE_450GB: &str = "  - {id: write-450gb, title: w, operation: write, pattern: sequential, block_size: 1MiB, span: 450GB, queue_depth: 4, passes: 1, precondition: {purge: true}, data: incompressible, metric: mb_per_s}\n";

#[test]
fn the_870_qvo_family_derived_from_its_4tb_file() {
    // The 870 QVO 1 TB and 2 TB: the 4 TB's file with a quarter and a half of its dies (8
    // and 16 of the same 1 Tbit QLC dies) and Samsung's cache for each (6 + 36 and 6 + 72
    // GB), not shipped; on the spec test, the whole-drive fill and PC World's 450 GB write
    // (docs/simulated-drives.md, "The NVMe era").
    let lab = TestLab::new();
    for (id, capacity, dies, cache, raw) in [
        ("samsung-870-qvo-1tb", "1TB", "1", "36GB", "1024GiB"),
        ("samsung-870-qvo-2tb", "2TB", "2", "72GB", "2048GiB"),
    ] {
        let file = family_member("samsung-870-qvo-4tb", id, capacity, dies, cache, raw);
        lab.write(&format!("drives/{id}.yaml"), &file);
    }
    let suite = format!("{SPEC}{WRITE_450GB}{}", shipped_test("modern-2026", "fill"));
    let rows = suite_rows(&lab, &suite);
    let fill = |id: &str, key: &str| fill_of(&rows, id, "fill", key);
    // Samsung's sheet gives every capacity 560 / 530 MB/s and 98K / 88K IOPS; as "up to"
    // figures within −25% / +10%: the link's rates, the dies' random reads (a page a sense:
    // random pages rarely share a wordline) and the SATA link's random writes (a frame's
    // time fitted to the 4 TB's 88K).
    for id in ["samsung-870-qvo-1tb", "samsung-870-qvo-2tb"] {
        for (t, key, sheet) in [
            ("seq-read", "mb_per_s", 560.0),
            ("seq-write", "mb_per_s", 530.0),
            ("rnd-read", "iops", 98_000.0),
            ("rnd-write", "iops", 88_000.0),
        ] {
            let r = figure(&rows, id, t, key) / sheet;
            eprintln!("{id} {t}: {r:.3} of {sheet}");
            assert!((0.75..=1.10).contains(&r), "{id} {t}: {r:.3} of {sheet}");
        }
    }
    // After the cache: the 1 TB's eight dies bind at Samsung's 80 MB/s (the QLC program time
    // is fitted to it); the 2 TB's sixteen and the controller's limit for native data (the
    // 4 TB's 160, fitted) come out at PC World's measured 150 (predicted; ±20%), within
    // Samsung's "up to" 160.
    near(
        fill("samsung-870-qvo-1tb", "cache_gb"),
        42.0,
        0.05,
        "1 TB cache (input)",
    );
    near(
        fill("samsung-870-qvo-2tb", "cache_gb"),
        78.0,
        0.05,
        "2 TB cache (input)",
    );
    let after = |id: &str| fill(id, "after_cache_mb_per_s");
    near(
        after("samsung-870-qvo-1tb"),
        80.0,
        0.05,
        "1 TB after the cache (fitted)",
    );
    near(
        after("samsung-870-qvo-2tb"),
        150.0,
        0.2,
        "2 TB after the cache (PC World)",
    );
    let r = after("samsung-870-qvo-2tb") / 160.0;
    assert!(
        (0.75..=1.10).contains(&r),
        "2 TB after the cache: {r:.3} of 160"
    );
    // PC World's 450 GB on the 2 TB took 2,686 s (predicted; ±20%).
    let secs = 450e3 / figure(&rows, "samsung-870-qvo-2tb", "write-450gb", "mb_per_s");
    eprintln!("870 QVO 2 TB: 450 GB in {secs:.0} s");
    near(secs, 2686.0, 0.2, "2 TB, 450 GB written (PC World)");
}

#[test]
fn the_870_evo_4tb_and_a_1tb_derived_from_it_against_the_reviews() {
    // PC World's 870 EVO review (March 2021, pp. 68-70) wrote one 450 GB file to the 1 TB
    // and the 4 TB EVO, 5 s apart, the three drives beside the QVO taking 997 to 1,024 s.
    // The 4 TB's file and the 1 TB derived from it as the QVO's family is (a quarter of its
    // dies, Samsung's 6 + 36 GB cache), one stream of 1 MiB writes on an erased drive: both
    // predicted (docs/simulated-drives.md, "The NVMe era").
    let one = family_member(
        "samsung-870-evo-4tb",
        "samsung-870-evo-1tb",
        "1TB",
        "4",
        "36GB",
        "1024GiB",
    );
    let lab = lab_of(&["samsung-870-evo-4tb"], &[("samsung-870-evo-1tb", &one)]);
    let qd1 = "  - {id: qd1-read, title: q, operation: read, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 1, duration: 1s, metric: iops}
  - {id: qd1-write, title: q, operation: write, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 1, duration: 1s, metric: iops}
";
    let rows = suite_rows(&lab, &format!("{SPEC}{qd1}{WRITE_450GB}"));
    // Samsung's sheet at QD1, every capacity (as KitGuru's review of the 1 TB quotes it):
    // 13,000 IOPS of 4 KiB random reads and 36,000 of writes. The writes hold ("up to":
    // −25% / +10%); the reads come out faster than the sheet's, a reported miss (found
    // 2026-12-05): the model's read at QD1 is its NAND's sense (the 980 PRO's), its
    // channel, decoder and link, and whatever else the MKX and a SATA host take before a
    // read at QD1 it does not have.
    for d in ["samsung-870-evo-4tb", "samsung-870-evo-1tb"] {
        within_the_sheet(&rows, &[(d, "qd1-write", "iops", 36_000.0)]);
        let r = figure(&rows, d, "qd1-read", "iops") / 13_000.0;
        eprintln!("{d} qd1-read: {r:.3} of 13,000");
        assert!(r > 1.10, "{d} qd1-read: {r:.3} of 13,000");
    }
    // KitGuru measured the 1 TB at QD32: 94,003 IOPS of 4 KiB random reads, 84,058 of
    // writes (its review, p10; predicted, ±20%).
    for (t, measured) in [("rnd-read", 94_003.0), ("rnd-write", 84_058.0)] {
        let iops = figure(&rows, "samsung-870-evo-1tb", t, "iops");
        eprintln!("870 EVO 1 TB {t}: {iops:.0} IOPS against KitGuru's {measured}");
        near(iops, measured, 0.2, "870 EVO 1 TB at QD32 (KitGuru)");
    }
    // Its reads above its writes, as KitGuru's (1.12 times): a write's data frames are
    // each asked for on the SATA link (predicted).
    let (reads, writes) = (
        figure(&rows, "samsung-870-evo-1tb", "rnd-read", "iops"),
        figure(&rows, "samsung-870-evo-1tb", "rnd-write", "iops"),
    );
    assert!(
        reads > writes,
        "{reads:.0} reads against {writes:.0} writes"
    );
    let secs = |id: &str| 450e3 / figure(&rows, id, "write-450gb", "mb_per_s");
    let (one, four) = (secs("samsung-870-evo-1tb"), secs("samsung-870-evo-4tb"));
    eprintln!("870 EVO: 450 GB in {one:.0} s (1 TB), {four:.0} s (4 TB)");
    for (what, t) in [("1 TB", one), ("4 TB", four)] {
        assert!(
            (997.0 * 0.8..=1024.0 * 1.2).contains(&t),
            "{what}: 450 GB in {t:.0} s against PC World's 997-1,024"
        );
    }
    // Apart by what the 1 TB's smaller cache costs at the native rate (36 GB at 400 MB/s
    // instead of the link's ~540), 2-3%; PC World's were 5 s apart, "well within the
    // expected variation".
    let apart = one / four - 1.0;
    assert!((0.0..0.04).contains(&apart), "1 TB {apart:.3} slower");
}

#[test]
fn the_980_pros_fills_against_techpowerup_and_anandtech() {
    // TechPowerUp's fill of the 1 TB (shared/reference: 1 MiB at QD4): 4 GB/s for 113 GB,
    // ~1.5 GB/s after ("the fuller the drive gets, the higher the write speed"), 1.9 GB/s
    // over the drive. AnandTech's (16087, p3: 128 KiB at QD32): the 1 TB 5 GB/s into ~170
    // GB of cache, and "partway through ... performance returns to SLC speeds", over a
    // third of the fill at that speed; the 250 GB 2.6 GB/s into ~60 GB (Samsung's 4 + 45
    // GB; derived here with them, not shipped). The file's TLC program time is Samsung's
    // 450 µs a page (input) and its controller flushes the cache as it writes natively
    // (`slc_cache.flush`, fitted to TechPowerUp's 1.5 GB/s); the rest predicted, but the
    // 250 GB's speed in the cache (its SLC program time fitted to Samsung's 2,700) and the
    // 1 TB's (the controller's path, fitted to TechPowerUp's 4 GB/s). Misses held where
    // they stand: AnandTech's 5 GB/s and ~170 GB on the 1 TB (docs/simulated-drives.md,
    // "AnandTech's fills of the 980 PRO").
    let mut quarter = family_member(
        "samsung-980-pro-1tb",
        "samsung-980-pro-250gb",
        "250GB",
        "1",
        "45GB",
        "256GiB",
    );
    quarter = quarter.replacen("\n    static: 6GB\n", "\n    static: 4GB\n", 1);
    assert!(quarter.contains("\n    static: 4GB\n"));
    let lab = lab_of(
        &["samsung-980-pro-1tb"],
        &[("samsung-980-pro-250gb", &quarter)],
    );
    let suite = format!(
        "name: t\ntitle: t\nseed: 1\ntests:\n{}{}",
        shipped_test("modern-2026", "fill"),
        "  - {id: anandtech, title: f, operation: write, pattern: sequential, block_size: 128KiB, span: full, queue_depth: 32, passes: 1, precondition: {purge: true}, data: incompressible, metric: mb_per_s}\n"
    );
    let rows = suite_rows(&lab, &suite);
    let fill = |id: &str, test: &str, key: &str| fill_of(&rows, id, test, key);
    let out = lab.roundup(&["render", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Each fill's curve: the speed over each stretch, against the data written by its end.
    let curve = |id: &str, test: &str| -> Vec<(f64, f64)> {
        let csv = std::fs::read_to_string(
            lab.path()
                .join(format!("site/charts/suites/t/{test}.base.fill.csv")),
        )
        .unwrap();
        csv.lines()
            .filter(|l| l.starts_with(&format!("{id},")))
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[2].parse().unwrap(), f[3].parse().unwrap())
            })
            .collect()
    };
    let (one, quarter) = ("samsung-980-pro-1tb", "samsung-980-pro-250gb");
    let mean = |v: &[(f64, f64)]| v.iter().map(|p| p.1).sum::<f64>() / v.len() as f64;
    // TechPowerUp's.
    let tpu = curve(one, "fill");
    assert!(tpu.len() >= 400, "{}", tpu.len());
    let cache = fill(one, "fill", "cache_gb");
    // After the cache: from the drop until the cache is taken again (the analysis's).
    let after = fill(one, "fill", "after_cache_mb_per_s");
    let second_half: Vec<(f64, f64)> = tpu.iter().copied().filter(|(gb, _)| *gb > 500.0).collect();
    eprintln!(
        "1 TB, TechPowerUp's fill: {:.0} MB/s in a cache of {cache:.1} GB, {after:.0} after it, \
         {:.0} over the second half, {:.0} over the drive",
        fill(one, "fill", "in_cache_mb_per_s"),
        mean(&second_half),
        fill(one, "fill", "average_mb_per_s")
    );
    near(
        fill(one, "fill", "in_cache_mb_per_s"),
        4000.0,
        0.03,
        "in the cache",
    );
    near(cache, 113.0, 0.2, "cache");
    near(after, 1500.0, 0.03, "after the cache (the flush, fitted)");
    near(
        fill(one, "fill", "average_mb_per_s"),
        1900.0,
        0.2,
        "whole drive",
    );
    assert!(mean(&second_half) > 1.1 * after, "faster as it fills");
    // AnandTech's.
    let at = curve(one, "anandtech");
    let in_cache = fill(one, "anandtech", "in_cache_mb_per_s");
    let at_slc = |v: &[(f64, f64)]| {
        let step = v[1].0 - v[0].0;
        v.iter().filter(|p| p.1 >= 0.9 * in_cache).count() as f64 * step
    };
    let returned: Vec<(f64, f64)> = at
        .iter()
        .copied()
        .filter(|(gb, _)| *gb > fill(one, "anandtech", "cache_gb") + 10.0)
        .collect();
    eprintln!(
        "1 TB, AnandTech's fill: {in_cache:.0} MB/s in a cache of {:.1} GB; {:.0} GB at that \
         speed after it, {:.0} GB of {:.0} in all",
        fill(one, "anandtech", "cache_gb"),
        at_slc(&returned),
        at_slc(&at),
        fill(one, "anandtech", "written_gb")
    );
    assert!(at_slc(&returned) >= 90.0, "back at the SLC speed partway");
    assert!(
        at_slc(&at) >= 0.3 * fill(one, "anandtech", "written_gb"),
        "about a third"
    );
    // Reported misses, held where they stand.
    near(
        in_cache,
        4000.0,
        0.02,
        "1 TB in the cache (AnandTech: 5 GB/s)",
    );
    near(
        fill(one, "anandtech", "cache_gb"),
        114.0,
        0.02,
        "1 TB cache (~170)",
    );
    near(
        fill(quarter, "anandtech", "in_cache_mb_per_s"),
        2600.0,
        0.05,
        "250 GB in the cache",
    );
    near(
        fill(quarter, "anandtech", "cache_gb"),
        60.0,
        0.2,
        "250 GB cache",
    );
}

#[test]
fn the_870_qvo_8tb_and_1tb_derived_against_anandtech() {
    // AnandTech's review of the 870 QVO 8 TB (16136, p8, 2020): its cache is "just 78GB,
    // the same as on the 2TB and 4TB models", and "the lack of performance scaling beyond
    // the 2TB model is a controller limitation rather than a NAND limitation" (its 64 dies
    // would write more). The 4 TB's file with twice its dies (64, eight a channel), its
    // capacity and raw capacity, not shipped; 120 GiB written in one stream on an erased
    // drive. The cache is Samsung's (input); after it, the controller's limit for native
    // data (`native_rate`, fitted to the 4 TB's 160) binds the 8 TB too: predicted, where
    // the program time alone (the file before 2026-12-05) would have doubled it.
    // Its random reads (p5; AnandTech 15887 for the 1 and 4 TB): 4 KiB at QD1 in bursts
    // over 16 GB, the 1 TB ahead of the 4 TB and the 8 TB "even worse" ("other significant
    // sources of overhead affecting the higher capacity models"); sustained, the mean of
    // QD1, 2 and 4 over 64 GB, the 8 TB "a bit slower than the 4TB" and the 1 TB last.
    let eight = family_member(
        "samsung-870-qvo-4tb",
        "samsung-870-qvo-8tb",
        "8TB",
        "8",
        "72GB",
        "8192GiB",
    );
    let one = family_member(
        "samsung-870-qvo-4tb",
        "samsung-870-qvo-1tb",
        "1TB",
        "1",
        "36GB",
        "1024GiB",
    );
    let lab = lab_of(
        &["samsung-870-qvo-4tb"],
        &[
            ("samsung-870-qvo-8tb", &eight),
            ("samsung-870-qvo-1tb", &one),
        ],
    );
    let suite = "name: t\ntitle: t\nseed: 1\ntests:
  - {id: fill, title: f, operation: write, pattern: sequential, block_size: 1MiB, span: 120GiB, queue_depth: 4, passes: 1, precondition: {purge: true}, data: incompressible, metric: mb_per_s}
  - {id: burst-qd1, title: b, operation: read, pattern: random, block_size: 4KiB, span: 16GiB, queue_depth: 1, duration: 1s, precondition: {fill: 1}, metric: iops}
  - {id: sustained-qd1, title: s, operation: read, pattern: random, block_size: 4KiB, span: 64GiB, queue_depth: 1, duration: 1s, precondition: {fill: 1}, metric: iops}
  - {id: sustained-qd2, title: s, operation: read, pattern: random, block_size: 4KiB, span: 64GiB, queue_depth: 2, duration: 1s, metric: iops}
  - {id: sustained-qd4, title: s, operation: read, pattern: random, block_size: 4KiB, span: 64GiB, queue_depth: 4, duration: 1s, metric: iops}
";
    let rows = suite_rows(&lab, suite);
    let fill = |id: &str, key: &str| fill_of(&rows, id, "fill", key);
    let (one, four, eight) = (
        "samsung-870-qvo-1tb",
        "samsung-870-qvo-4tb",
        "samsung-870-qvo-8tb",
    );
    for id in [four, eight] {
        eprintln!(
            "{id}: cache {:.1} GB, after it {:.1} MB/s",
            fill(id, "cache_gb"),
            fill(id, "after_cache_mb_per_s")
        );
    }
    near(
        fill(eight, "cache_gb"),
        78.0,
        0.05,
        "8 TB cache (AnandTech: the 4 TB's)",
    );
    near(
        fill(eight, "after_cache_mb_per_s"),
        fill(four, "after_cache_mb_per_s"),
        0.05,
        "8 TB after the cache against the 4 TB's (AnandTech: no scaling beyond 2 TB)",
    );
    let burst = |id: &str| figure(&rows, id, "burst-qd1", "iops");
    let sustained = |id: &str| sustained_mean(&rows, id, "sustained", "iops");
    for id in [one, four, eight] {
        eprintln!(
            "{id}: reads at QD1 in bursts {:.0} IOPS, sustained (QD1, 2, 4) {:.0}",
            burst(id),
            sustained(id)
        );
    }
    // Held: the 1 TB's eight dies put it last on the sustained reads (predicted).
    assert!(sustained(one) < sustained(four) && sustained(one) < sustained(eight));
    // Reported misses: a read at QD1 is one die's sense and the same path on every
    // capacity, so the three read alike in bursts (AnandTech: the larger the slower), and
    // the 8 TB's extra dies keep it level with the 4 TB when sustained (AnandTech: a bit
    // slower).
    for id in [one, eight] {
        near(burst(id), burst(four), 0.01, &format!("{id} QD1 bursts"));
    }
    near(
        sustained(eight),
        sustained(four),
        0.03,
        "8 TB sustained reads",
    );
}

/// AnandTech's burst tests of 2018-2021 as suite lines, their ids after `prefix`: 1 GB of
/// 4 KiB random reads at QD1 over 16 GB in bursts of 32 MB (`burst`) and 1 GB of 128 KiB
/// sequential reads at QD1 in bursts of 128 MB (`seq-burst`), each at a 20% duty cycle.
fn anandtechs_bursts(prefix: &str) -> String {
    format!(
        "  - {{id: {prefix}burst, title: b, operation: read, pattern: random, block_size: 4KiB, span: 16GiB, queue_depth: 1, count: 262144, burst: {{size: 32MiB, duty_cycle: 20%}}, metric: iops}}
  - {{id: {prefix}seq-burst, title: b, operation: read, pattern: sequential, block_size: 128KiB, span: 16GiB, queue_depth: 1, count: 8192, burst: {{size: 128MiB, duty_cycle: 20%}}, metric: mb_per_s}}
"
    )
}

/// AnandTech's mixed tests' shares of writes, 0% to 100% in steps of 10%, as a `writes:`
/// variants list.
fn anandtechs_mixes() -> String {
    (0..=10)
        .map(|k| format!("{}%", 10 * k))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `drive`'s MB/s on the mixed test `test` (its [`anandtechs_mixes`] variants), 0% to 100%
/// writes (NaN where a mix has none).
fn mix_curve(rows: &[serde_json::Value], drive: &str, test: &str) -> Vec<f64> {
    (0..=10)
        .map(|k| {
            rows.iter()
                .find(|r| {
                    r["drive"] == drive
                        && r["test"] == test
                        && r["variant"] == format!("wr-{}", 10 * k)
                })
                .and_then(|r| r["mb_per_s"].as_f64())
                .unwrap_or(f64::NAN)
        })
        .collect()
}

/// The mean of `v`.
fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// AnandTech's sustained score: `drive`'s `key` averaged over the tests `{prefix}-qd1`,
/// `-qd2` and `-qd4`.
fn sustained_mean(rows: &[serde_json::Value], drive: &str, prefix: &str, key: &str) -> f64 {
    mean(&[1, 2, 4].map(|qd| figure(rows, drive, &format!("{prefix}-qd{qd}"), key)))
}

#[test]
fn the_p1_against_anandtechs_reads_of_its_cache_and_of_a_full_drive() {
    // AnandTech's review of the P1 1 TB (13512, pp. 6-7, 2018), each test on the drive
    // holding only its test data and again on a full drive. 4 KiB random reads at QD1 in
    // bursts over 16 GB: "excellent" while the SLC cache holds the data, and behind a SATA
    // drive (the MX500) when full. The mean of QD1, 2 and 4 over 64 GB, a minute each and
    // a minute's rest before each: the full drive "about 12% slower". 128 KiB sequential
    // reads at QD1 in bursts over 16 GB: on a full drive "about twice as fast as a SATA
    // SSD" (the lab's is the 870 EVO); sustained (QD1, 2, 4 over 64 GB written in order)
    // "over 1GB/s even when full". The shipped file reads its cache's pages as QLC pages;
    // a P1 whose cache reads in SLC mode (`slc_cache.read`, one sense: 38 us, what the
    // file's 90 us mean over 1 + 4, 4, 4, 3 sensing steps leaves for 1 + 1) is derived
    // here, not shipped (docs/simulated-drives.md, "SLC-mode reads").
    let slc = drive_file("crucial-p1-1tb")
        .replace("id: crucial-p1-1tb", "id: crucial-p1-1tb-slc-reads")
        .replace("  slc_cache:\n", "  slc_cache:\n    read: 38us\n");
    assert!(slc.contains("    read: 38us\n"));
    let lab = lab_of(
        &["crucial-p1-1tb", "samsung-870-evo-4tb"],
        &[("crucial-p1-1tb-slc-reads", &slc)],
    );
    lab.write(
        "suites/sata.yaml",
        "name: sata\ntitle: sata\nseed: 1\ndrives: [samsung-870-evo-4tb]\ntests:
  - {id: sata-seq-burst, title: b, operation: read, pattern: sequential, block_size: 128KiB, span: 16GiB, queue_depth: 1, count: 8192, burst: {size: 128MiB, duty_cycle: 20%}, precondition: {purge: true, fill: 1}, metric: mb_per_s}
",
    );
    let mut suite =
        String::from("name: t\ntitle: t\nseed: 1\ndrives: [\"crucial-p1-*\"]\ntests:\n");
    for (state, fill) in [("empty", "span: 64GiB"), ("full", "span: full")] {
        suite += &format!(
            "  - {{id: {state}-fill, title: f, operation: write, pattern: sequential, block_size: 1MiB, {fill}, queue_depth: 4, passes: 1, precondition: {{purge: true}}, metric: mb_per_s}}
"
        );
        suite += &anandtechs_bursts(&format!("{state}-"));
        for qd in [1, 2, 4] {
            suite += &format!(
                "  - {{id: {state}-random-qd{qd}, title: s, operation: read, pattern: random, block_size: 4KiB, span: 64GiB, queue_depth: {qd}, duration: 60s, interval: 60s, metric: iops}}
  - {{id: {state}-seq-qd{qd}, title: s, operation: read, pattern: sequential, block_size: 128KiB, span: 64GiB, queue_depth: {qd}, duration: 10s, metric: mb_per_s}}
"
            );
        }
    }
    let rows = suite_rows(&lab, &suite);
    let mean = |id: &str, state: &str, kind: &str, key: &str| {
        sustained_mean(&rows, id, &format!("{state}-{kind}"), key)
    };
    let (p1, slc) = ("crucial-p1-1tb", "crucial-p1-1tb-slc-reads");
    for id in [p1, slc] {
        for state in ["empty", "full"] {
            eprintln!(
                "{id}, {state}: random reads in bursts {:.0} IOPS, sustained {:.0}; sequential \
                 in bursts {:.0} MB/s, sustained {:.0}",
                figure(&rows, id, &format!("{state}-burst"), "iops"),
                mean(id, state, "random", "iops"),
                figure(&rows, id, &format!("{state}-seq-burst"), "mb_per_s"),
                mean(id, state, "seq", "mb_per_s"),
            );
        }
    }
    let sata = figure(&rows, "samsung-870-evo-4tb", "sata-seq-burst", "mb_per_s");
    eprintln!("870 EVO: sequential reads in bursts {sata:.0} MB/s");
    // Held, predicted: the full P1's sequential reads.
    near(
        figure(&rows, p1, "full-seq-burst", "mb_per_s") / sata,
        2.0,
        0.2,
        "full P1 over a SATA drive, 128 KiB at QD1 (AnandTech: about twice)",
    );
    assert!(mean(p1, "full", "seq", "mb_per_s") > 1000.0);
    // The shipped file reads its cache as it reads QLC: the random reads of the empty drive
    // and the full one alike, in bursts and sustained (reported misses: AnandTech's bursts
    // "excellent" against behind a SATA drive; sustained, the full drive 0.88 of the empty).
    let burst = |id: &str, state: &str| figure(&rows, id, &format!("{state}-burst"), "iops");
    let bursts = |id: &str| burst(id, "full") / burst(id, "empty");
    let sustained =
        |id: &str| mean(id, "full", "random", "iops") / mean(id, "empty", "random", "iops");
    near(bursts(p1), 1.0, 0.02, "shipped P1, bursts full / empty");
    near(
        sustained(p1),
        1.0,
        0.02,
        "shipped P1, sustained full / empty",
    );
    // Read in SLC mode, the cache's pages take half the time, until the bursts' pauses and
    // the minute's rests fold them: the empty drive's bursts half again the full one's
    // (AnandTech's order, predicted); sustained, the full drive at about three quarters of
    // the empty one's (AnandTech 0.88: the real drive had folded more of the 64 GB by then,
    // and the review does not say how long it rested; a miss the other way).
    assert!(bursts(slc) < 0.7, "{}", bursts(slc));
    let s = sustained(slc);
    assert!((0.7..0.82).contains(&s), "{s}");
    // On the full drive nothing is in the cache: both files read alike.
    near(
        burst(slc, "full"),
        burst(p1, "full"),
        0.02,
        "full drive, bursts",
    );
}

#[test]
fn the_p1_mixes_reads_and_writes_as_anandtech_found_empty_and_full() {
    // AnandTech's P1 review (13512, p8): 4 KiB random reads and writes at QD4 over 64 GB,
    // mixes from pure reads to pure writes in steps of 10%, each up to a minute, a minute's
    // idle before each; "when the drive is full and the SLC cache is at its minimum size,
    // the P1 slows down to 40% of its speed on a drive containing only the test data", its
    // curve "mostly flat [...] rather than the significant performance upswing as the
    // proportion of writes grows beyond 70%". The shipped file, predicted (30 s a mix).
    let mut suite = String::from("name: t\ntitle: t\nseed: 1\ntests:\n");
    for (state, span) in [("empty", "64GiB"), ("full", "full")] {
        suite += &format!(
            "  - {{id: {state}-fill, title: f, operation: write, pattern: sequential, block_size: 1MiB, span: {span}, queue_depth: 4, passes: 1, precondition: {{purge: true}}, metric: mb_per_s}}
  - {{id: {state}-mix, title: m, operation: read, pattern: random, block_size: 4KiB, span: 64GiB, queue_depth: 4, duration: 30s, interval: 60s, variants: {{writes: [{}]}}, metric: mb_per_s}}
",
            anandtechs_mixes()
        );
    }
    let p1 = "crucial-p1-1tb";
    let lab = lab_of(&[p1], &[]);
    let rows = suite_rows(&lab, &suite);
    let (empty, full) = (
        mix_curve(&rows, p1, "empty-mix"),
        mix_curve(&rows, p1, "full-mix"),
    );
    eprintln!("P1, MB/s by writes 0% to 100%: empty {empty:.0?}, full {full:.0?}");
    eprintln!(
        "full / empty, mean over the mixes: {:.3}",
        mean(&full) / mean(&empty)
    );
    near(
        mean(&full) / mean(&empty),
        0.40,
        0.2,
        "full over empty (AnandTech 40%)",
    );
    // The empty drive's upswing beyond 70% writes; the full drive's flatter curve.
    assert!(empty[10] > 2.0 * empty[7], "{empty:?}");
    assert!(full[10] < 1.5 * full[7], "{full:?}");
}

#[test]
fn samsungs_generations_against_each_other_in_anandtechs_reads() {
    // AnandTech's reviews of the 970 EVO Plus (13761, pp. 6-7, 2019) and the 980 PRO (16087,
    // pp. 5-6, 2020), each against the drives before it, on the drive holding its test data.
    // The 970 EVO Plus over the 970 EVO: 4 KiB random reads at QD1 in bursts over 16 GB "an
    // improvement over its predecessor, but not as large as was promised by the spec sheet"
    // (Samsung's 19K against 15K IOPS, +27%); sustained (the mean of QD1, 2 and 4 over 64
    // GB) "tied or ahead of last year's best"; 128 KiB sequential reads at QD1 in bursts "a
    // clear step up from its predecessors". The 980 PRO over them: QD1 bursts "faster than
    // their earlier TLC"; 128 KiB at QD1 in bursts "marginally faster than its
    // predecessors"; sustained 128 KiB reads "no longer [...] a clear advantage". The
    // 1 TB files, predicted (the 970 EVO's files are the Plus's with Samsung's word on the
    // 64-layer part; the 980 PRO's its own, on PCIe 4.0). TechReport's review of the 970 EVO
    // Plus 500 GB (34413, p2; IOMeter over the whole drive): its QD1 random reads "narrowly
    // edging out the 970 EVO 1 TB", and its 128 KiB sequential reads at QD4 breaking 3,000
    // MB/s and surpassing the 970 EVO 1 TB.
    let (evo, plus, pro, plus500) = (
        "samsung-970-evo-1tb",
        "samsung-970-evo-plus-1tb",
        "samsung-980-pro-1tb",
        "samsung-970-evo-plus-500gb",
    );
    let lab = lab_of(&[evo, plus, pro, plus500], &[]);
    let mut suite = String::from("name: t\ntitle: t\nseed: 1\ntests:
  - {id: fill, title: f, operation: write, pattern: sequential, block_size: 1MiB, span: 64GiB, queue_depth: 4, passes: 1, precondition: {purge: true}, metric: mb_per_s}
");
    suite += &anandtechs_bursts("");
    for qd in [1, 2, 4] {
        suite += &format!(
            "  - {{id: random-qd{qd}, title: s, operation: read, pattern: random, block_size: 4KiB, span: 64GiB, queue_depth: {qd}, duration: 10s, metric: iops}}
  - {{id: seq-qd{qd}, title: s, operation: read, pattern: sequential, block_size: 128KiB, span: 64GiB, queue_depth: {qd}, duration: 10s, metric: mb_per_s}}
"
        );
    }
    let rows = suite_rows(&lab, &suite);
    let sustained = |id: &str, kind: &str, key: &str| sustained_mean(&rows, id, kind, key);
    let over = |a: &str, b: &str| {
        [
            figure(&rows, a, "burst", "iops") / figure(&rows, b, "burst", "iops"),
            sustained(a, "random", "iops") / sustained(b, "random", "iops"),
            figure(&rows, a, "seq-burst", "mb_per_s") / figure(&rows, b, "seq-burst", "mb_per_s"),
            sustained(a, "seq", "mb_per_s") / sustained(b, "seq", "mb_per_s"),
        ]
    };
    let (plus_evo, pro_plus) = (over(plus, evo), over(pro, plus));
    for (what, r) in [
        ("970 EVO Plus / 970 EVO", plus_evo),
        ("980 PRO / 970 EVO Plus", pro_plus),
    ] {
        eprintln!(
            "{what}, 1 TB: QD1 bursts {:.3}, sustained random {:.3}, sequential bursts {:.3}, \
             sustained sequential {:.3}",
            r[0], r[1], r[2], r[3]
        );
    }
    // The Plus: an improvement less than the sheets' 27% (its channel moves a page sooner),
    // tied or ahead sustained, a step up in sequential bursts.
    assert!(
        plus_evo[0] > 1.0 && plus_evo[0] < 19.0 / 15.0,
        "{plus_evo:?}"
    );
    assert!(plus_evo[1] >= 1.0 && plus_evo[2] > 1.05, "{plus_evo:?}");
    // The 980 PRO: faster at QD1 (held). Reported misses: 1.22 times the Plus in sequential
    // bursts ("marginally faster") and 1.48 sustained ("no longer [...] a clear advantage"):
    // its faster channels and link count at QD1 to 4 in the model. (The review ran the 980
    // PRO on a new testbed that "imposes a bit more overhead", the Plus on its older one.)
    assert!(pro_plus[0] > 1.0, "{pro_plus:?}");
    assert!((1.1..1.35).contains(&pro_plus[2]), "{pro_plus:?}");
    assert!((1.3..1.7).contains(&pro_plus[3]), "{pro_plus:?}");
    // TechReport's 500 GB Plus: narrowly ahead at QD1 (held); past 3,000 MB/s at QD4 (held)
    // but level with the 970 EVO 1 TB there, both at the link's 3,500 (a reported miss of
    // "surpasses").
    let (qd1, qd4) = (
        figure(&rows, plus500, "random-qd1", "iops") / figure(&rows, evo, "random-qd1", "iops"),
        figure(&rows, plus500, "seq-qd4", "mb_per_s"),
    );
    eprintln!(
        "970 EVO Plus 500 GB: QD1 random reads {qd1:.3} of the 970 EVO 1 TB's; 128 KiB at QD4 \
         {qd4:.0} MB/s against {:.0}",
        figure(&rows, evo, "seq-qd4", "mb_per_s")
    );
    assert!((1.0..1.05).contains(&qd1), "{qd1}");
    assert!(qd4 > 3000.0);
    near(
        qd4,
        figure(&rows, evo, "seq-qd4", "mb_per_s"),
        0.02,
        "500 GB Plus against the 970 EVO 1 TB, 128 KiB at QD4",
    );
}

#[test]
fn the_970_evo_1tb_written_whole_as_benchmark_reviews_did() {
    // Benchmark Reviews' 970 EVO 1 TB review (Olin Coles, 2018, p8; as techplayboy.com
    // carries it): AIDA64's linear write, 1 MB at a time from the first sector to the last
    // on a secure-erased drive, "briefly recorded linear write-to speeds around 2464 MB/s
    // [...] before sequential performance dropped to produce average write speeds around
    // 864 MB/s". The shipped file, predicted: the burst holds; the average is a reported
    // miss, +49%, where PC Perspective's ~1.2 GB/s after the cache (which the file meets)
    // would leave the whole drive near 1.3 GB/s: the two measurements disagree.
    let rows = run(
        &["samsung-970-evo-1tb"],
        "name: t\ntitle: t\nseed: 1\ntests:
  - {id: fill, title: w, operation: write, pattern: sequential, block_size: 1MiB, span: full, queue_depth: 1, passes: 1, precondition: {purge: true}, metric: mb_per_s}
",
    );
    let d = "samsung-970-evo-1tb";
    let (burst, average) = (
        fill_figure(&rows, d, "in_cache_mb_per_s"),
        fill_figure(&rows, d, "average_mb_per_s"),
    );
    eprintln!(
        "970 EVO 1 TB written whole at QD1: {burst:.0} MB/s in the cache, {average:.0} on average"
    );
    near(
        burst,
        2464.0,
        0.05,
        "in the cache (Benchmark Reviews ~2,464)",
    );
    near(
        average,
        864.0 * 1.49,
        0.05,
        "average (Benchmark Reviews 864: a reported miss)",
    );
}

#[test]
fn the_970_evos_sustained_random_writes_fall_with_capacity_as_pc_perspective_found() {
    // PC Perspective's review of the 970 EVO 250 GB, 500 GB and 1 TB (April 2018, p5):
    // "as we reduce the capacity, we also reduce the 970 EVO's ability to handle sustained
    // random writes", 4 KiB over an 8 GB span "with the SSD only half full", though "this
    // workload should fit within the SLC cache area of all three capacities". Each file
    // half written in one stream, then 4 KiB random writes at QD32 over 8 GiB for 20 s;
    // predicted: the half written has filled each cache, and the writes go to TLC, where
    // the dies bound them.
    let ids = [
        "samsung-970-evo-250gb",
        "samsung-970-evo-500gb",
        "samsung-970-evo-1tb",
    ];
    let lab = lab_of(&ids, &[]);
    for (id, half) in ids.iter().zip(["125GB", "250GB"]) {
        lab.write(
            &format!("suites/{id}.yaml"),
            &format!(
                "name: {id}\ntitle: h\nseed: 1\ndrives: [{id}]\ntests:
  - {{id: half, title: h, operation: write, pattern: sequential, block_size: 1MiB, span: {half}, queue_depth: 4, passes: 1, precondition: {{purge: true}}, metric: mb_per_s}}
  - {{id: random-write, title: w, operation: write, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 32, duration: 20s, metric: iops}}
"
            ),
        );
    }
    let rows = suite_rows(
        &lab,
        "name: t\ntitle: h\nseed: 1\ndrives: [samsung-970-evo-1tb]\ntests:
  - {id: half, title: h, operation: write, pattern: sequential, block_size: 1MiB, span: 500GB, queue_depth: 4, passes: 1, precondition: {purge: true}, metric: mb_per_s}
  - {id: random-write, title: w, operation: write, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 32, duration: 20s, metric: iops}
",
    );
    let iops: Vec<f64> = ids
        .iter()
        .map(|id| figure(&rows, id, "random-write", "iops"))
        .collect();
    eprintln!(
        "970 EVO 250 GB / 500 GB / 1 TB, half full, 4 KiB random writes at QD32: {iops:.0?} IOPS"
    );
    assert!(iops[0] < iops[1] && iops[1] < iops[2], "{iops:?}");
}

#[test]
fn pc_worlds_crystaldiskmark_figures_of_the_870s() {
    // PC World's 870 EVO review (March 2021, pp. 68-69) ran CrystalDiskMark 6 on the EVO
    // (1 or 4 TB, the page does not say) and the QVO 2 TB, MB/s: Seq Q32T1 (128 KiB) 562
    // read and 530 written on both; 4K Q32T1 393 / 357 on the EVO, 333 / 280 on the QVO;
    // 4K Q8T8 399 / 351 and 332 / 320; 4K Q1T1 written 126 and 73, read 39 and 47 (the
    // scan's text does not tie these two bars to the drives). Here the EVO's 4 TB file and
    // a 2 TB derived from the QVO's 4 TB file (half its dies), CrystalDiskMark's tests on
    // its 1 GiB file, one run of a second each; every figure predicted
    // (docs/simulated-drives.md, "The NVMe era").
    let two = family_member(
        "samsung-870-qvo-4tb",
        "samsung-870-qvo-2tb",
        "2TB",
        "2",
        "72GB",
        "2048GiB",
    );
    let lab = lab_of(&["samsung-870-evo-4tb"], &[("samsung-870-qvo-2tb", &two)]);
    let suite = "name: t\ntitle: t\nseed: 1\ntests:
  - {id: seq-read, title: s, operation: read, pattern: sequential, block_size: 128KiB, span: 1GiB, queue_depth: 32, duration: 1s, precondition: {fill: 1}, metric: mb_per_s}
  - {id: rnd-read, title: r, operation: read, pattern: random, block_size: 4KiB, span: 1GiB, queue_depth: 32, duration: 1s, metric: mb_per_s}
  - {id: seq-write, title: s, operation: write, pattern: sequential, block_size: 128KiB, span: 1GiB, queue_depth: 32, duration: 1s, metric: mb_per_s}
  - {id: rnd-write, title: r, operation: write, pattern: random, block_size: 4KiB, span: 1GiB, queue_depth: 32, duration: 1s, metric: mb_per_s}
  - {id: rnd-write-qd1, title: r, operation: write, pattern: random, block_size: 4KiB, span: 1GiB, queue_depth: 1, duration: 1s, metric: mb_per_s}
  - {id: rnd-read-q8t8, title: r, operation: read, pattern: random, block_size: 4KiB, span: 1GiB, queue_depth: 8, threads: 8, duration: 1s, metric: mb_per_s}
  - {id: rnd-write-q8t8, title: r, operation: write, pattern: random, block_size: 4KiB, span: 1GiB, queue_depth: 8, threads: 8, duration: 1s, metric: mb_per_s}
  - {id: rnd-read-qd1, title: r, operation: read, pattern: random, block_size: 4KiB, span: 1GiB, queue_depth: 1, duration: 1s, metric: mb_per_s}
";
    let rows = suite_rows(&lab, suite);
    let (evo, qvo) = ("samsung-870-evo-4tb", "samsung-870-qvo-2tb");
    let at = |d: &str, t: &str| figure(&rows, d, t, "mb_per_s");
    for d in [evo, qvo] {
        for t in [
            "seq-read",
            "seq-write",
            "rnd-read",
            "rnd-write",
            "rnd-write-qd1",
            "rnd-read-q8t8",
            "rnd-write-q8t8",
            "rnd-read-qd1",
        ] {
            eprintln!("{d} {t}: {:.1} MB/s", at(d, t));
        }
    }
    // Held (predicted): the sequential figures of both (the SATA link's frames), the
    // EVO's random figures at QD32 and the QVO's reads.
    for (d, t, review) in [
        (evo, "seq-read", 562.0),
        (evo, "seq-write", 530.0),
        (qvo, "seq-read", 562.0),
        (qvo, "seq-write", 530.0),
        (evo, "rnd-read", 393.0),
        (evo, "rnd-write", 357.0),
        (evo, "rnd-read-q8t8", 399.0),
        (evo, "rnd-write-q8t8", 351.0),
    ] {
        near(at(d, t), review, 0.05, &format!("{d} {t} (PC World)"));
    }
    for (t, review) in [
        ("rnd-read", 333.0),
        ("rnd-read-q8t8", 332.0),
        ("rnd-write-q8t8", 320.0),
    ] {
        near(at(qvo, t), review, 0.2, &format!("QVO 2 TB {t} (PC World)"));
    }
    // The QVO's read at QD1 holds against either bar, 39 or 47 (its QLC dies' sense).
    for review in [39.0, 47.0] {
        near(
            at(qvo, "rnd-read-qd1"),
            review,
            0.2,
            "QVO 2 TB 4K Q1T1 read (PC World)",
        );
    }
    // A reported miss: the EVO reads at QD1 faster than either bar (as above Samsung's
    // sheet, `the_870_evo_4tb_and_a_1tb_derived_from_it_against_the_reviews`).
    let r = at(evo, "rnd-read-qd1") / 47.0;
    assert!(
        r > 1.3,
        "EVO 4K Q1T1 read: {r:.3} of PC World's larger bar, 47"
    );
    // Reported misses: the writes that PC World measured below the link's, at QD1 on both
    // and at QD32 on the QVO, where the model's writes land in the buffer and cross the
    // link alike on the two drives.
    for (d, t, review, above) in [
        (evo, "rnd-write-qd1", 126.0, 1.2),
        (qvo, "rnd-write-qd1", 73.0, 1.5),
        (qvo, "rnd-write", 280.0, 1.2),
    ] {
        let r = at(d, t) / review;
        assert!(r > above, "{d} {t}: {r:.3} of PC World's {review}");
    }
}

#[test]
fn the_nm790_4tb_derived_from_its_2tb_file_against_kitguru() {
    // KitGuru's review of the NM790 4 TB (with heatsink, p11): CrystalDiskMark 8's 4 KiB
    // random transfers on its 1 GiB file, IOPS. The 2 TB's file with twice its dies (32 of
    // the same 1 Tbit dies, eight a channel), capacity and raw capacity (its dynamic cache
    // doubled: these tests do not reach it), not shipped; every figure predicted, ±20%
    // (docs/simulated-drives.md, "The NVMe era").
    let lab = TestLab::new();
    let file = family_member(
        "lexar-nm790-2tb",
        "lexar-nm790-4tb",
        "4TB",
        "8",
        "560GB",
        "4096GiB",
    );
    lab.write("drives/lexar-nm790-4tb.yaml", &file);
    let measured = [
        ("read", 1, 1, 20_176.0),
        ("read", 1, 4, 87_037.0),
        ("read", 8, 1, 132_941.0),
        ("read", 8, 4, 479_318.0),
        ("write", 1, 1, 57_109.0),
        ("write", 1, 4, 252_678.0),
    ];
    let mut suite = String::from("name: t\ntitle: t\nseed: 8\ntests:\n");
    for (i, (op, qd, threads, _)) in measured.iter().enumerate() {
        let fill = if i == 0 {
            ", precondition: {fill: 1}"
        } else {
            ""
        };
        suite += &format!(
            "  - {{id: q{qd}t{threads}-{op}, title: t, operation: {op}, pattern: random, block_size: 4KiB, span: 1GiB, queue_depth: {qd}, threads: {threads}, duration: 5s, interval: 5s, data: incompressible, samples: histogram{fill}, metric: iops}}\n"
        );
    }
    let rows = suite_rows(&lab, &suite);
    for (op, qd, threads, kitguru) in measured {
        let id = format!("q{qd}t{threads}-{op}");
        let iops = figure(&rows, "lexar-nm790-4tb", &id, "iops");
        eprintln!(
            "NM790 4 TB RND4K Q{qd}T{threads} {op}: {iops:.0} IOPS against KitGuru's {kitguru}"
        );
        near(iops, kitguru, 0.2, &format!("NM790 4 TB {id} (KitGuru)"));
    }
}

/// A lab of the shipped drive files `shipped` beside derived ones, `(id, text)`.
fn lab_of(shipped: &[&str], derived: &[(&str, &str)]) -> TestLab {
    let lab = TestLab::new();
    for d in shipped {
        lab.write(&format!("drives/{d}.yaml"), &drive_file(d));
    }
    for (id, text) in derived {
        lab.write(&format!("drives/{id}.yaml"), text);
    }
    lab
}

/// Another capacity of `base`'s family, derived from its file as the capacity siblings are:
/// only its id, capacity, dies a channel, dynamic SLC cache and raw capacity differ.
fn family_member(
    base: &str,
    id: &str,
    capacity: &str,
    dies_per_channel: &str,
    dynamic_cache: &str,
    raw_capacity: &str,
) -> String {
    let mut text = drive_file(base);
    for (key, value) in [
        ("id", id),
        ("capacity", capacity),
        ("  dies_per_channel", dies_per_channel),
        ("    dynamic", dynamic_cache),
        ("  raw_capacity", raw_capacity),
    ] {
        let at = text
            .find(&format!("\n{key}: "))
            .unwrap_or_else(|| panic!("{base} has no {key}"))
            + 1;
        let end = at + text[at..].find('\n').unwrap();
        text.replace_range(at..end, &format!("{key}: {value}"));
    }
    text
}

/// Runs `suite` on variants of the drive file `base`, each `(id, from, to)` with one edit of
/// the file, and returns every summary row.
fn run_variants(
    base: &str,
    variants: &[(&str, &str, &str)],
    suite: &str,
) -> Vec<serde_json::Value> {
    let file = drive_file(base);
    let lab = TestLab::new();
    for (id, from, to) in variants {
        let mut text = file.replace(&format!("id: {base}"), &format!("id: {id}"));
        if !from.is_empty() {
            text = text.replace(from, to);
        }
        lab.write(&format!("drives/{id}.yaml"), &text);
    }
    suite_rows(&lab, suite)
}

/// Runs `suite` (as `suites/t.yaml`) on the drives of `lab`; returns every summary row.
fn suite_rows(lab: &TestLab, suite: &str) -> Vec<serde_json::Value> {
    lab.write("suites/t.yaml", suite);
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&lab.roundup(&["summary", "--json"]).stdout).unwrap()
}

/// `drive`'s first job of `test`.
fn row<'a>(
    rows: &'a [serde_json::Value],
    drive: &str,
    test: &str,
) -> Option<&'a serde_json::Value> {
    rows.iter()
        .find(|r| r["drive"] == drive && r["test"] == test)
}

/// A figure of `drive`'s first job of `test`.
fn figure(rows: &[serde_json::Value], drive: &str, test: &str, key: &str) -> f64 {
    row(rows, drive, test)
        .and_then(|r| r[key].as_f64())
        .unwrap_or(f64::NAN)
}

/// A fill figure (`fill.key` of the summary) of `drive`'s first job of `test`.
fn fill_of(rows: &[serde_json::Value], drive: &str, test: &str, key: &str) -> f64 {
    row(rows, drive, test)
        .and_then(|r| r["fill"][key].as_f64())
        .unwrap_or(f64::NAN)
}

#[test]
fn an_idle_drive_folds_its_cache_and_writes_fast_again() {
    // 60 GB written past the 970 EVO Plus 1 TB's 42 GB cache; then 4 KiB random writes
    // over the whole drive (new data, mostly), at once and after a minute's idle in which
    // the controller folds the cache: at once they go to the TLC cells; after the idle, to
    // SLC, as fast as the link takes them. The same drive without folding in idle time
    // stays at the first speed.
    let rows = run_variants(
        "samsung-970-evo-plus-1tb",
        &[
            ("fold", "", ""),
            (
                "nofold",
                "    program: 114us\n",
                "    program: 114us\n    fold_in_idle: false\n",
            ),
        ],
        "name: t
title: t
seed: 1
tests:
  - {id: fill, title: f, operation: write, pattern: sequential, block_size: 1MiB, span: 60GB, queue_depth: 4, passes: 1, precondition: {purge: true}, metric: mb_per_s}
  - {id: at-once, title: a, operation: write, pattern: random, block_size: 4KiB, span: full, queue_depth: 32, duration: 1s, samples: histogram, metric: iops}
  - {id: after-idle, title: b, operation: write, pattern: random, block_size: 4KiB, span: full, queue_depth: 32, duration: 1s, interval: 60s, samples: histogram, metric: iops}
",
    );
    let cache = rows
        .iter()
        .find(|r| r["drive"] == "fold" && r["test"] == "fill")
        .and_then(|r| r["fill"]["cache_gb"].as_f64())
        .unwrap();
    near(cache, 42.0, 0.05, "the cache");
    let iops = |d: &str, t: &str| figure(&rows, d, t, "iops");
    let (at_once, after) = (iops("fold", "at-once"), iops("fold", "after-idle"));
    assert!(
        after > 1.05 * at_once,
        "folded in idle: {at_once} then {after}"
    );
    let (at_once, after) = (iops("nofold", "at-once"), iops("nofold", "after-idle"));
    assert!(
        (after / at_once - 1.0).abs() < 0.02,
        "not folded: {at_once} then {after}"
    );
}

#[test]
fn a_dram_less_drive_reads_slower_where_its_map_cache_does_not_reach() {
    // The 970 EVO Plus 1 TB as if it had no DRAM: 64 MB of map held (a host memory
    // buffer's), which covers 256 GiB of 16 KiB pages. Written whole, then read at random
    // at QD1 over 8 GiB (every map page held after the first reads) and over the whole
    // drive (three reads in four need their map page read first).
    let rows = run_variants(
        "samsung-970-evo-plus-1tb",
        &[
            ("dram", "", ""),
            (
                "hmb",
                "  buffer: 64MiB\n",
                "  buffer: 64MiB\n  map_cache: 64MB\n",
            ),
        ],
        MAP_READS,
    );
    let mean = |d: &str, t: &str| figure(&rows, d, t, "lat_mean_us");
    let (near, far) = (mean("hmb", "near"), mean("hmb", "far"));
    assert!((near / mean("dram", "near") - 1.0).abs() < 0.02, "{near}");
    assert!(far > 1.5 * near, "far {far} µs, near {near} µs");
    assert!((mean("dram", "far") / mean("dram", "near") - 1.0).abs() < 0.05);
}

#[test]
fn tlc_page_types_spread_a_qd1_read_and_qlc_pages_mostly_sense_alike() {
    // 4 KiB random reads at QD1 over a filled 1 GiB: a TLC wordline's pages sense in 2, 3
    // and 2 steps, so two reads in three are fast and the p99 is a middle page's; the
    // balanced QLC code senses three pages of four in four steps, so the p50 is a slow page
    // and the p99 above it by what reads of one page type vary (`read_spread`), less than
    // the TLC's page types spread theirs.
    let suite = "name: t\ntitle: t\nseed: 1\ntests:\n  - id: qd1\n    title: QD1\n    operation: read\n    pattern: random\n    block_size: 4KiB\n    span: 1GiB\n    queue_depth: 1\n    duration: 1s\n    precondition: {fill: 1}\n    metric: lat_mean_us\n";
    let drives = [
        "samsung-970-evo-plus-1tb",
        "samsung-980-pro-1tb",
        "crucial-p1-1tb",
    ];
    let rows = run(&drives, suite);
    let lat = |d: &str, key: &str| value(&rows, d, "qd1", key);
    for d in &drives[..2] {
        let (p50, p99, p999) = (
            lat(d, "lat_p50_us"),
            lat(d, "lat_p99_us"),
            lat(d, "lat_p999_us"),
        );
        assert!(
            p99 > 1.3 * p50 && p999 > p99,
            "{d}: p50 {p50}, p99 {p99}, p99.9 {p999}"
        );
        // The mean stays the file's `read` (the page types share it out).
        assert!(lat(d, "lat_mean_us") > p50, "{d}");
    }
    let (p50, p99) = (
        lat("crucial-p1-1tb", "lat_p50_us"),
        lat("crucial-p1-1tb", "lat_p99_us"),
    );
    assert!(
        p99 > 1.1 * p50 && p99 < 1.3 * p50 && p50 > lat("crucial-p1-1tb", "lat_mean_us"),
        "P1: p50 {p50}, p99 {p99}"
    );
}

/// A figure of the reads of `drive`'s first job of `test` (`by_op`).
fn read_figure(rows: &[serde_json::Value], drive: &str, test: &str, key: &str) -> f64 {
    row(rows, drive, test)
        .and_then(|r| r["by_op"].as_array())
        .and_then(|ops| ops.iter().find(|o| o["op"] == "read"))
        .and_then(|o| o[key].as_f64())
        .unwrap_or(f64::NAN)
}

#[test]
fn a_read_suspends_the_program_under_way_on_its_die() {
    // The P1's 4 KiB random reads at QD4 among 30% writes over 8 GiB, after a fill: as
    // shipped, a read suspends the program or erase on its die at the next break point;
    // without suspension it waits for the whole operation. The reads' p99 and longest wait
    // fall; the writes do not lose.
    let rows = run_variants(
        "crucial-p1-1tb",
        &[
            ("suspending", "", ""),
            (
                "waiting",
                "  suspend: {step: 100us, resume: 20us, max: 5}\n",
                "",
            ),
        ],
        "name: t
title: t
seed: 1
tests:
  - {id: mix, title: m, operation: read, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 4, duration: 2s, precondition: {purge: true, fill: 1}, samples: histogram, metric: iops, variants: {writes: [30%, 60%]}}
",
    );
    assert!(
        drive_file("crucial-p1-1tb").contains("  suspend: {step: 100us, resume: 20us, max: 5}\n")
    );
    let read = |d: &str, key: &str| read_figure(&rows, d, "mix", key);
    let (p99, waiting_p99) = (
        read("suspending", "lat_p99_us"),
        read("waiting", "lat_p99_us"),
    );
    assert!(
        p99 < 0.7 * waiting_p99,
        "p99 {p99} µs, waiting {waiting_p99} µs"
    );
    let (max, waiting_max) = (
        read("suspending", "lat_max_us"),
        read("waiting", "lat_max_us"),
    );
    assert!(max < waiting_max, "max {max} µs, waiting {waiting_max} µs");
    let iops = |d: &str| figure(&rows, d, "mix", "iops");
    assert!(
        iops("suspending") >= iops("waiting"),
        "{} {}",
        iops("suspending"),
        iops("waiting")
    );
}

#[test]
fn the_970_evo_is_predicted_from_the_plus_and_samsungs_word_on_its_nand() {
    // The 970 EVO 250 GB, 500 GB and 1 TB (64-layer V-NAND) are the 970 EVO Plus files with
    // the NAND before it: program times 1.3 times and channels 1 / 1.4 times the Plus's, as
    // Samsung put the 96-layer generation's gain, and one fitted parameter, the
    // controller's time per 4 KiB written (the 1 TB's 2.5 GB/s burst). Nothing else of
    // the files differs.
    for c in ["250gb", "500gb", "1tb"] {
        let body = |id: &str| {
            let text = drive_file(id);
            text[text.find("id: ").unwrap()..].to_string()
        };
        let mut plus = body(&format!("samsung-970-evo-plus-{c}"));
        for (from, to) in [
            ("id: samsung-970-evo-plus-", "id: samsung-970-evo-"),
            ("model: 970 EVO Plus\n", "model: 970 EVO\n"),
            ("firmware: 2B2QEXM7\n", "firmware: 2B2QEXE7\n"),
            ("nand: 96-layer TLC", "nand: 64-layer TLC"),
            (
                "  write_overhead: 150ns\n",
                "  write_overhead: 150ns\n  page_overhead: 1638ns\n  page_overhead_unit: 4KiB\n",
            ),
            ("  channel_rate: 1400MB/s\n", "  channel_rate: 1000MB/s\n"),
            ("  program: 617us\n", "  program: 802us\n"),
            ("    program: 114us\n", "    program: 148us\n"),
        ] {
            assert_eq!(plus.matches(from).count(), 1, "{c}: {from}");
            plus = plus.replace(from, to);
        }
        assert_eq!(plus, body(&format!("samsung-970-evo-{c}")), "{c}");
    }
    let drives = [
        "samsung-970-evo-250gb",
        "samsung-970-evo-500gb",
        "samsung-970-evo-1tb",
    ];
    let suite = fill_suite();
    let rows = run(&drives, &suite);
    let fill = |d: &str, key: &str| fill_figure(&rows, d, key);
    // PC Perspective's burst (in the cache) and sustained (after it) figures, GB/s: the 1
    // TB's burst fitted, the rest predicted.
    for (d, burst, sustained) in [
        ("samsung-970-evo-250gb", 1500.0, 300.0),
        ("samsung-970-evo-500gb", 2500.0, 700.0),
        ("samsung-970-evo-1tb", 2500.0, 1200.0),
    ] {
        near(
            fill(d, "in_cache_mb_per_s"),
            burst,
            0.2,
            &format!("{d} burst"),
        );
        near(
            fill(d, "after_cache_mb_per_s"),
            sustained,
            0.2,
            &format!("{d} sustained"),
        );
    }
    // The 500 GB's whole-drive fill: more than 2 GB/s for about 22 GB, then a bit over
    // 600 MB/s, 663 MB/s over the drive.
    let d = "samsung-970-evo-500gb";
    assert!(fill(d, "in_cache_mb_per_s") > 2000.0);
    near(fill(d, "cache_gb"), 22.0, 0.2, "970 EVO 500 GB cache");
    near(
        fill(d, "after_cache_mb_per_s"),
        600.0,
        0.2,
        "970 EVO 500 GB after the cache",
    );
    near(
        fill(d, "average_mb_per_s"),
        663.0,
        0.2,
        "970 EVO 500 GB whole drive",
    );
}

#[test]
fn the_970_evos_sheet_where_its_files_read_and_write_as_the_plus() {
    // Samsung's sheet for the 970 EVO (KitGuru's review of the 2 TB, p1: 3,400 MB/s reads,
    // writes 1,500 / 2,300 / 2,500 for the 250 GB / 500 GB / 1 TB, 15K / 50K IOPS at QD1
    // on every size; the 1 TB's 500K / 480K at QD32, as CDRinfo's table of the family puts
    // it), against files that are the Plus's but for the NAND's program times and channels
    // and one fitted controller time (docs/simulated-drives.md, "The NVMe era").
    let suite = format!(
        "{SPEC}  - {{id: qd1-read, title: q, operation: read, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 1, duration: 1s, metric: iops}}
  - {{id: qd1-write, title: q, operation: write, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 1, duration: 1s, metric: iops}}
"
    );
    let lab = TestLab::new();
    for d in [
        "samsung-970-evo-250gb",
        "samsung-970-evo-500gb",
        "samsung-970-evo-1tb",
    ] {
        lab.write(&format!("drives/{d}.yaml"), &drive_file(d));
    }
    let rows = suite_rows(&lab, &suite);
    // "Up to" figures within −25% / +10%: the 1 TB's write fitted (its burst), the rest
    // predicted.
    within_the_sheet(
        &rows,
        &[
            ("samsung-970-evo-250gb", "seq-read", "mb_per_s", 3400.0),
            ("samsung-970-evo-500gb", "seq-read", "mb_per_s", 3400.0),
            ("samsung-970-evo-1tb", "seq-read", "mb_per_s", 3400.0),
            ("samsung-970-evo-500gb", "seq-write", "mb_per_s", 2300.0),
            ("samsung-970-evo-1tb", "seq-write", "mb_per_s", 2500.0),
            ("samsung-970-evo-1tb", "qd1-write", "iops", 50_000.0),
        ],
    );
    // The reported misses, all above the sheet: the reads and the link's time per command
    // are the Plus's (its controller, the 96-layer part's reads: what the 64-layer part
    // reads in, Samsung does not say), and the 250 GB's eight dies write in SLC mode
    // faster than the sheet's 1,500 at the 1.3 times the Plus's program time.
    for &(d, t, key, sheet) in &[
        ("samsung-970-evo-250gb", "seq-write", "mb_per_s", 1500.0),
        ("samsung-970-evo-1tb", "qd1-read", "iops", 15_000.0),
        ("samsung-970-evo-1tb", "rnd-read", "iops", 500_000.0),
        ("samsung-970-evo-1tb", "rnd-write", "iops", 480_000.0),
    ] {
        let r = figure(&rows, d, t, key) / sheet;
        assert!(r > 1.10, "{d} {t}: {r:.3} of {sheet}");
    }
}

#[test]
fn a_burst_tests_pauses_let_the_drive_fold_its_cache() {
    // A burst test's pauses are idle time for the drive, as a benchmark's interval between
    // tests is: the SLC cache folds in them (TechPowerUp's P1 review: once "the drive is
    // idle, the pSLC cache gets flushed to QLC in the background, and full write
    // performance is restored"). The 970 EVO 250 GB (13 GB of cache) written 1 MiB at a
    // time at QD1, 32 GiB in bursts of 1 GiB at a 20% duty cycle: every burst at the speed
    // of its first GiB on an empty drive; the same 32 GiB in one stream falls to TLC's
    // speed after the cache, and so do the bursts of a drive that folds only when its
    // cache runs out of room (`fold_in_idle: false`, derived here). A timed replay's gaps
    // alike: 32 GiB of 1 MiB writes at QD4, 1 GiB due every 5 s.
    let id = "samsung-970-evo-250gb";
    let lazy = drive_file(id)
        .replace(&format!("id: {id}"), "id: samsung-970-evo-250gb-lazy")
        .replace("  slc_cache:\n", "  slc_cache:\n    fold_in_idle: false\n");
    assert!(lazy.contains("fold_in_idle: false"));
    let lab = lab_of(&[id], &[("samsung-970-evo-250gb-lazy", &lazy)]);
    let line = |test: &str, count: u32, burst: &str| {
        format!(
            "  - {{id: {test}, title: w, operation: write, pattern: sequential, block_size: 1MiB, span: 32GiB, queue_depth: 1, count: {count}, {burst}precondition: {{purge: true}}, metric: mb_per_s}}\n"
        )
    };
    lab.write(
        "traces/gaps.log",
        &common::fio_log(
            (0..32768).map(|i| (i / 1024 * 5000, "write", (i % 16384) << 20, 1 << 20)),
        ),
    );
    let suite = format!(
        "name: t\ntitle: t\nseed: 1\ntests:\n{}{}{}  - {{id: replay, title: r, kind: replay, trace: traces/gaps.log, mode: timed, queue_depth: 4, span: full, precondition: {{purge: true}}, metric: iops}}\n",
        line("first", 1024, ""),
        line("stream", 32768, ""),
        line("bursts", 32768, "burst: {size: 1GiB, duty_cycle: 20%}, "),
    );
    let rows = suite_rows(&lab, &suite);
    let mb = |d: &str, test: &str| figure(&rows, d, test, "mb_per_s");
    let lazy = "samsung-970-evo-250gb-lazy";
    eprintln!(
        "first GiB {:.0} MB/s; 32 GiB in one stream {:.0}, in bursts {:.0}; folding only when \
         full, in bursts {:.0}",
        mb(id, "first"),
        mb(id, "stream"),
        mb(id, "bursts"),
        mb(lazy, "bursts"),
    );
    near(
        mb(id, "bursts"),
        mb(id, "first"),
        0.02,
        "bursts against the first GiB",
    );
    assert!(mb(id, "stream") < 0.5 * mb(id, "first"));
    assert!(mb(lazy, "bursts") < 0.5 * mb(id, "first"));
    near(
        mb(lazy, "first"),
        mb(id, "first"),
        0.01,
        "the first GiB alike",
    );
    let wait = |d: &str| figure(&rows, d, "replay", "lat_p50_us");
    eprintln!(
        "timed replay, median write latency: {:.0} µs, folding only when full {:.0} µs",
        wait(id),
        wait(lazy)
    );
    assert!(wait(lazy) > 1.5 * wait(id));
}

#[test]
fn samsungs_generations_mix_reads_and_writes_as_anandtech_found() {
    // AnandTech's 970 EVO Plus review (13761, p8): reads and writes mixed from pure reads
    // to pure writes in steps of 10%, over 64 GB of the drive holding its test data, each
    // mix up to a minute or 32 GB, idle after each for as long (a 50% duty cycle). 4 KiB
    // at random at QD4: the 1 TB "slightly improves on its predecessor's performance" and
    // "steadily picks up speed as the workload shifts to be more write heavy"; the 250 GB's
    // "performance flattens out during the middle half of the test as its smaller SLC
    // write cache starts to get in the way, but toward the very end it too speeds up".
    // 128 KiB in order at QD1: the 1 TB "a bit faster than the original 970 EVO". The 980
    // PRO's review (16087, p7), the same tests: at random "clearly an improvement over its
    // predecessors", and "the same general behavior as earlier Samsung drives". The
    // shipped files, predicted; 15 s a random mix and 8 s a sequential one (longer mixes, to
    // the review's minute, leave the 1 TB Plus over the EVO within 0.3% and the 250 GB's
    // verdict as it is: docs/simulated-drives.md).
    let (evo, plus, small, pro) = (
        "samsung-970-evo-1tb",
        "samsung-970-evo-plus-1tb",
        "samsung-970-evo-plus-250gb",
        "samsung-980-pro-1tb",
    );
    let lab = lab_of(&[evo, plus, small, pro], &[]);
    let mixes = anandtechs_mixes();
    let fill = "  - {id: fill, title: f, operation: write, pattern: sequential, block_size: 1MiB, span: 64GiB, queue_depth: 4, passes: 1, precondition: {purge: true}, metric: mb_per_s}\n";
    let mix = |duration: u32| {
        format!(
            "  - {{id: mix, title: m, operation: read, pattern: random, block_size: 4KiB, span: 64GiB, queue_depth: 4, duration: {duration}s, interval: {duration}s, variants: {{writes: [{mixes}]}}, metric: mb_per_s}}\n"
        )
    };
    lab.write(
        "suites/small.yaml",
        &format!(
            "name: small\ntitle: s\nseed: 1\ndrives: [{small}]\ntests:\n{fill}{}",
            mix(15)
        ),
    );
    let rows = suite_rows(
        &lab,
        &format!(
            "name: t\ntitle: t\nseed: 1\ndrives: [{evo}, {plus}, {pro}]\ntests:\n{fill}{}  - {{id: seq-mix, title: m, operation: read, pattern: sequential, block_size: 128KiB, span: 64GiB, queue_depth: 1, duration: 8s, interval: 8s, variants: {{writes: [{mixes}]}}, metric: mb_per_s}}\n",
            mix(15)
        ),
    );
    let curve = |drive: &str, test: &str| mix_curve(&rows, drive, test);
    for d in [evo, plus, small, pro] {
        eprintln!(
            "{d}, MB/s by writes 0% to 100%: random {:.0?}",
            curve(d, "mix")
        );
    }
    for d in [evo, plus] {
        eprintln!("{d}: sequential {:.0?}", curve(d, "seq-mix"));
    }
    let random = mean(&curve(plus, "mix")) / mean(&curve(evo, "mix"));
    let sequential = mean(&curve(plus, "seq-mix")) / mean(&curve(evo, "seq-mix"));
    eprintln!("970 EVO Plus / 970 EVO, 1 TB: random {random:.3}, sequential {sequential:.3}");
    // Held, predicted: "slightly", "a bit faster", "steadily picks up speed".
    assert!((1.0..1.15).contains(&random), "{random}");
    assert!((1.0..1.2).contains(&sequential), "{sequential}");
    let big = curve(plus, "mix");
    assert!(big.windows(2).all(|w| w[1] > w[0]), "{big:?}");
    let newer = mean(&curve(pro, "mix")) / mean(&big);
    eprintln!("980 PRO / 970 EVO Plus, 1 TB, random mixes: {newer:.3}");
    assert!(newer > 1.05, "{newer}");
    let pro = curve(pro, "mix");
    assert!(pro.windows(2).all(|w| w[1] > w[0]), "{pro:?}");
    // A reported miss: the 250 GB does not flatten in the middle half (30% to 70% writes),
    // it gains as much there as the 1 TB does, each mix's pause folding what it wrote.
    let small = curve(small, "mix");
    let middle = |v: &[f64]| v[7] / v[3];
    eprintln!(
        "30% to 70% writes: 250 GB x{:.2}, 1 TB x{:.2}",
        middle(&small),
        middle(&big)
    );
    assert!(middle(&small) > 1.3, "{small:?}");
    assert!(small[10] > small[7], "{small:?}");
}

#[test]
fn sequential_reads_of_data_written_at_random_as_anandtech_found() {
    // AnandTech's sustained 128 KiB sequential reads (the mean of QD1, 2 and 4, from a
    // drive holding its 64 GB of test data), run twice: on the data written in order, and
    // again "after the random write test has mixed things up, causing fragmentation inside
    // the SSD". The P1's review (13512, p7): its reads of the data written at random are "no
    // longer competitive with other current NVMe SSDs or even mainstream SATA SSDs" (the
    // lab's SATA drive: the 870 EVO). The 970 EVO Plus's (13761, p7): its "performance has
    // regressed but is still ahead of almost all of the competition, especially the
    // SMI-based drives that score so well on contiguous data" (the lab's Silicon Motion
    // drive: the P1, an SM2263 beside the review's SM2262s). The 980 PRO's (16087, p6): the
    // 1 TB "shows slight improvement in its performance reading back data that wasn't
    // written sequentially". The shipped files, predicted; the test scaled down, 8 GiB
    // written in order and 16 GiB of 4 KiB random writes over it, 4 s a depth: 86% of the
    // 4 KiB blocks written again, each to a page with three others from elsewhere (the
    // review's random write test, up to 32 GB at each of six depths over 64 GB, more).
    let (p1, plus, pro, sata) = (
        "crucial-p1-1tb",
        "samsung-970-evo-plus-1tb",
        "samsung-980-pro-1tb",
        "samsung-870-evo-4tb",
    );
    let lab = lab_of(&[p1, plus, pro, sata], &[]);
    let mut suite = String::from("name: t\ntitle: t\nseed: 1\ntests:\n  - {id: fill, title: f, operation: write, pattern: sequential, block_size: 1MiB, span: 8GiB, queue_depth: 4, passes: 1, precondition: {purge: true}, metric: mb_per_s}\n");
    let reads = |state: &str| {
        [1, 2, 4]
            .map(|qd| format!("  - {{id: {state}-qd{qd}, title: s, operation: read, pattern: sequential, block_size: 128KiB, span: 8GiB, queue_depth: {qd}, duration: 4s, metric: mb_per_s}}\n"))
            .concat()
    };
    suite += &reads("contiguous");
    suite += "  - {id: random-write, title: w, operation: write, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 32, count: 4194304, metric: iops}\n";
    suite += &reads("fragmented");
    let rows = suite_rows(&lab, &suite);
    let read = |drive: &str, state: &str| sustained_mean(&rows, drive, state, "mb_per_s");
    for d in [p1, plus, pro, sata] {
        eprintln!(
            "{d}: 128 KiB at QD1, 2, 4, MB/s: contiguous {:.0}, fragmented {:.0}",
            read(d, "contiguous"),
            read(d, "fragmented")
        );
    }
    // Held, predicted: the Plus regresses and stays ahead of the Silicon Motion drive,
    // which falls behind the NVMe drives.
    assert!(read(plus, "fragmented") < 0.8 * read(plus, "contiguous"));
    assert!(read(p1, "fragmented") < 0.5 * read(plus, "fragmented"));
    assert!(read(p1, "fragmented") < 0.5 * read(p1, "contiguous"));
    // Reported misses, held where they stand: the P1 stays above the SATA drive (1.12 of
    // the 870 EVO, which its link holds at 561 MB/s either way), and the 980 PRO's gain
    // over the Plus is more than slight (1.24).
    let p1_over_sata = read(p1, "fragmented") / read(sata, "fragmented");
    let pro_over_plus = read(pro, "fragmented") / read(plus, "fragmented");
    eprintln!(
        "fragmented: P1 / 870 EVO {p1_over_sata:.3}, 980 PRO / 970 EVO Plus {pro_over_plus:.3}"
    );
    assert!((1.0..1.25).contains(&p1_over_sata), "{p1_over_sata}");
    assert!((1.15..1.35).contains(&pro_over_plus), "{pro_over_plus}");
}

#[test]
fn the_worked_example_of_building_a_drive_runs_as_printed() {
    // docs/building-a-drive.md derives the 970 EVO Plus 500 GB from the 1 TB's file and runs
    // the sheet's four figures on both, printing what `roundup` prints. Its shell block, run
    // from a folder holding the 1 TB's file with this build's `roundup` first on the PATH,
    // must print its text block exactly: a change to the model that moves a figure, or to
    // a command's output, shows here, and the page is brought up to date with it.
    let block = |lang: &str| {
        let blocks = common::doc_blocks("building-a-drive.md", lang);
        assert_eq!(blocks.len(), 1, "one {lang} block in the page");
        blocks[0].clone()
    };
    let (script, printed) = (block("sh"), block("text"));
    let lab = TestLab::new();
    lab.write(
        "drives/samsung-970-evo-plus-1tb.yaml",
        &drive_file("samsung-970-evo-plus-1tb"),
    );
    lab.write("example.sh", &script);
    let bin = Path::new(env!("CARGO_BIN_EXE_roundup")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .args(["-e", "example.sh"])
        .current_dir(lab.path())
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let got = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        got, printed,
        "docs/building-a-drive.md's text block is not what its commands print now; it \
         prints:\n{got}"
    );
}
