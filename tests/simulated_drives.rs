//! The simulated drives of the shipped lab (drives/) against the reviews' figures and
//! relations (shared/reference/review-methods.md). Each test runs the model; the figures
//! come from its mechanisms, the tolerances from the issue (±20%).

mod common;

use std::collections::BTreeMap;
use std::fs;

use common::{
    repo_drive_edited as drive_edited, repo_drive_file as drive_file, repo_suite_file, stderr,
    TestLab,
};

/// A lab with these drives from the repository's drives/ and one suite.
fn lab(drives: &[&str], suite: &str) -> TestLab {
    let lab = TestLab::new();
    for d in drives {
        lab.write(&format!("drives/{d}.yaml"), &drive_file(d));
    }
    lab.write("suites/t.yaml", suite);
    lab
}

/// The simulated SSDs of the repository's drives/: (id, drive file's text).
fn shipped_ssds() -> Vec<(String, String)> {
    let dir = format!("{}/drives", env!("CARGO_MANIFEST_DIR"));
    let mut ssds = Vec::new();
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = fs::read_to_string(&path).unwrap();
        if text.contains("\nssd:\n") {
            let id = path.file_stem().unwrap().to_string_lossy().to_string();
            ssds.push((id, text));
        }
    }
    ssds
}

/// A lab of the shipped SSDs that start new and page-mapped (not block-mapped, used or
/// full: their state moves from job to job) and whose file `keep` keeps; their (id, text).
fn new_page_mapped_ssds(keep: impl Fn(&str) -> bool) -> (TestLab, Vec<(String, String)>) {
    let lab = TestLab::new();
    let ssds: Vec<_> = shipped_ssds()
        .into_iter()
        .filter(|(_, t)| {
            keep(t)
                && !t.contains("\n  ftl: block")
                && !t.contains("\n  history:")
                && !t.contains("\n  full:")
        })
        .collect();
    for (id, text) in &ssds {
        lab.write(&format!("drives/{id}.yaml"), text);
    }
    (lab, ssds)
}

/// Runs the lab and returns every summary row (each job).
fn run_rows(lab: &TestLab) -> Vec<serde_json::Value> {
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = lab.roundup(&["summary", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Runs the lab and returns each (drive, test, variant)'s summary row (first repeat).
fn run(lab: &TestLab) -> BTreeMap<(String, String, String), serde_json::Value> {
    first_repeats(run_rows(lab))
}

/// Each (drive, test, variant)'s summary row of the first repeat.
fn first_repeats(
    rows: Vec<serde_json::Value>,
) -> BTreeMap<(String, String, String), serde_json::Value> {
    rows.into_iter()
        .filter(|r| r["repeat"] == 1)
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap().to_string();
            ((s("drive"), s("test"), s("variant")), r)
        })
        .collect()
}

/// One figure of a summary row: `key` of `drive`'s `test` in `variant`.
fn figure(
    r: &BTreeMap<(String, String, String), serde_json::Value>,
    drive: &str,
    test: &str,
    variant: &str,
    key: &str,
) -> f64 {
    let row = &r[&(drive.into(), test.into(), variant.into())];
    row[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{drive} {test} {variant}: no figure {key}"))
}

/// Runs the lab; for a test id, `drive`'s IOPS over `other`'s.
fn iops_ratios(lab: &TestLab, drive: &str, other: &str) -> impl Fn(&str) -> f64 {
    let r = run(lab);
    let (drive, other) = (drive.to_string(), other.to_string());
    move |t| figure(&r, &drive, t, "base", "iops") / figure(&r, &other, t, "base", "iops")
}

fn near(value: f64, review: f64, what: &str) {
    assert!(
        (value / review - 1.0).abs() <= 0.20,
        "{what}: model {value:.3}, review {review} (more than 20% apart)"
    );
}

/// bit-tech's random-write test as it ran (4 KiB random write, QD3, 4 GiB, two minutes,
/// three repeats, incompressible data), a suite `t` of one test `rw` with this seed.
fn bit_tech_random_write(seed: u64) -> String {
    format!("name: t\ntitle: t\nseed: {seed}\ntests:\n  - id: rw\n    title: rw\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    span: 4GiB\n    queue_depth: 3\n    duration: 2m\n    repeats: 3\n    data: incompressible\n    metric: mb_per_s\n")
}

#[test]
fn bit_tech_random_write_figures_and_order() {
    // bit-tech's test as it ran (4 KiB random write, QD3, 4 GiB, two minutes, three
    // repeats) on the raw drive: the span holds what the drive's history left
    // (bit-tech-2009.yaml). The figures are the first repeat's but for the used X25-M's.
    let lab = lab(
        &[
            "intel-x25m-g2-160",
            "intel-x25m-g2-160-used",
            "ocz-vertex-120",
            "ocz-core-64",
            "gskill-titan-256",
        ],
        &bit_tech_random_write(2009),
    );
    let rows = run_rows(&lab);
    let x25m: Vec<serde_json::Value> = rows
        .iter()
        .filter(|r| r["drive"] == "intel-x25m-g2-160-used")
        .cloned()
        .collect();
    assert_eq!(x25m.len(), 3);
    // The used X25-M (drives/intel-x25m-g2-160-used.yaml): its collection keeps up with the
    // controller but now and then a victim is late, and the host waits for its erase.
    // Each repeat near bit-tech's 28.87 MB/s, the longest wait of the three near its 104 ms.
    let mut longest = 0.0f64;
    for r in &x25m {
        let (mbs, mean_us) = (
            r["mb_per_s"].as_f64().unwrap(),
            r["lat_mean_us"].as_f64().unwrap(),
        );
        near(mbs, 28.87, "X25-M MB/s");
        // Three always in flight: the mean is 3 / IOPS (Little's law), not bit-tech's 0.3 ms.
        let little_us = 3.0 / (mbs * 1e6 / 4096.0) * 1e6;
        assert!(
            (mean_us / little_us - 1.0).abs() < 0.02,
            "mean {mean_us} µs, 3 / IOPS {little_us} µs"
        );
        longest = longest.max(r["lat_max_us"].as_f64().unwrap() / 1e3);
    }
    // Fitted (`full`) to bit-tech's 104 ms on the median of twelve draws of this test
    // (seeds 1 to 12, benches/draws.py: 102 ms, the draws 75 to 153): one late victim's
    // wait, it moves by half from draw to draw (docs/simulated-drives.md, "A block's pages
    // in order"). This draw's is 93 ms.
    near(longest, 104.0, "X25-M longest wait, ms");
    let r = first_repeats(rows);
    let get = |d: &str, k: &str| figure(&r, d, "rw", "base", k);
    // New, the X25-M writes as fast with nothing to collect, and never waits long: its
    // longest wait is for a combined stripe's work (40 pages at 32 µs) behind two writes,
    // not the used drive's collection.
    near(
        get("intel-x25m-g2-160", "mb_per_s"),
        28.87,
        "new X25-M MB/s",
    );
    assert!(get("intel-x25m-g2-160", "lat_max_us") < 2000.0);
    near(get("ocz-vertex-120", "mb_per_s"), 9.97, "Vertex MB/s");
    near(
        get("ocz-vertex-120", "lat_mean_us") / 1e3,
        1.16,
        "Vertex mean ms",
    );
    // Its longest wait is its buffer written out, every die programming its share while
    // no write comes in (the buffer's size fitted to bit-tech's 10.06 ms).
    near(
        get("ocz-vertex-120", "lat_max_us") / 1e3,
        10.06,
        "Vertex longest wait, ms",
    );
    // bit-tech's single-JMF602 drives: a used JMF602A (drives/ocz-core-64.yaml), whose
    // cache, written out whole when full, makes the longest waits.
    near(
        get("ocz-core-64", "lat_mean_us") / 1e3,
        350.0,
        "JMF602 mean ms",
    );
    near(
        get("ocz-core-64", "lat_max_us") / 1e3,
        650.0,
        "JMF602 max ms",
    );
    // The Titan, new: its merges copy only the few pages written so far.
    near(
        get("gskill-titan-256", "lat_mean_us") / 1e3,
        25.0,
        "Titan mean ms",
    );
    let order = [
        "intel-x25m-g2-160-used",
        "ocz-vertex-120",
        "gskill-titan-256",
        "ocz-core-64",
    ]
    .map(|d| get(d, "mb_per_s"));
    assert!(
        order.windows(2).all(|w| w[0] > w[1]) && order[1] > 10.0 * order[2],
        "the order of the drives: {order:?}"
    );
}

#[test]
fn the_used_x25ms_longest_wait_is_fitted_on_the_median_of_twelve_draws() {
    // bit-tech's 104 ms is one draw of the real drive, and a longest wait is one late
    // victim's, which moves by half from draw to draw; `full` is fitted so that the median
    // over the suite's seeds 1 to 12 is the review's (benches/draws.py runs the same draws;
    // docs/simulated-drives.md, "A block's pages in order": 75 to 153 ms, the median 102).
    let mut longest: Vec<f64> = (1..=12)
        .map(|seed| {
            let lab = lab(&["intel-x25m-g2-160-used"], &bit_tech_random_write(seed));
            run_rows(&lab)
                .iter()
                .map(|r| r["lat_max_us"].as_f64().unwrap() / 1e3)
                .fold(0.0, f64::max)
        })
        .collect();
    longest.sort_by(f64::total_cmp);
    let median = (longest[5] + longest[6]) / 2.0;
    near(
        median,
        104.0,
        "the used X25-M's longest wait, median of 12 draws, ms",
    );
    // The draws spread (why their median is fitted): the longest well above the shortest.
    assert!(
        longest[11] > 1.3 * longest[0],
        "the draws' longest waits: {longest:?}"
    );
}

#[test]
fn sandforce_differs_with_the_data_others_do_not() {
    let lab = lab(
        &["ocz-vertex-le-100", "intel-x25m-g2-160"],
        "name: t\ntitle: t\nseed: 1\ntests:\n  - id: sw\n    title: sw\n    operation: write\n    pattern: sequential\n    block_size: 128KiB\n    span: full\n    queue_depth: 1\n    duration: 5s\n    metric: mb_per_s\n    variants:\n      data: [compressible, incompressible]\n",
    );
    let r = run(&lab);
    let get = |d: &str, v: &str| figure(&r, d, "sw", &format!("data-{v}"), "mb_per_s");
    let sf = get("ocz-vertex-le-100", "compressible") / get("ocz-vertex-le-100", "incompressible");
    assert!(
        sf > 1.5,
        "SandForce compressible / incompressible = {sf:.2}"
    );
    let intel =
        get("intel-x25m-g2-160", "compressible") / get("intel-x25m-g2-160", "incompressible");
    assert!((intel - 1.0).abs() < 0.02, "Intel: {intel:.3}");
    // The same suite, drives and seed give the same samples, byte for byte.
    let again = lab.roundup(&["run"]);
    assert!(again.status.success());
    let file = "results/drive=ocz-vertex-le-100/firmware=1.0/suite=t/test=sw/variant=data-compressible/repeat=1/samples.parquet";
    let before = fs::read(lab.path().join(file)).unwrap();
    let other = self::lab(
        &["ocz-vertex-le-100", "intel-x25m-g2-160"],
        &fs::read_to_string(lab.path().join("suites/t.yaml")).unwrap(),
    );
    assert!(other.roundup(&["run"]).status.success());
    assert_eq!(before, fs::read(other.path().join(file)).unwrap());
}

#[test]
fn sandforce_random_writes_on_iometers_normal_and_random_data() {
    // AnandTech 3667 (the Agility 2 review, 2010, p6): 4 KiB aligned random writes at QD3
    // over 8 GB, Iometer's normal (compressible) data and its random data: the SF-1500 (or
    // an SF-1200 on the 3.0.1 firmware) 164.6 and 122.5 MB/s, the Agility 2 on the
    // mass-production firmware 44.2 and 46.3. The Vertex LE (SF-1500) and the Agility 2,
    // the span written first as anandtech-2010 does. Predicted but the Agility 2's cap
    // (`small_write_iops`, set from the 44 MB/s).
    let lab = lab(
        &["ocz-vertex-le-100", "ocz-agility2-100"],
        "name: t\ntitle: t\nseed: 2010\ntests:\n  - id: rw\n    title: rw\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    align: 4KiB\n    span: 8GiB\n    queue_depth: 3\n    duration: 20s\n    precondition: {fill: 1}\n    metric: mb_per_s\n    variants:\n      data: [compressible, incompressible]\n",
    );
    let r = run(&lab);
    let get = |d: &str, v: &str| figure(&r, d, "rw", &format!("data-{v}"), "mb_per_s");
    for (d, v, review) in [
        ("ocz-vertex-le-100", "compressible", 164.6),
        ("ocz-vertex-le-100", "incompressible", 122.5),
        ("ocz-agility2-100", "compressible", 44.2),
        ("ocz-agility2-100", "incompressible", 46.3),
    ] {
        near(get(d, v), review, &format!("{d}, {v} data"));
    }
    // The uncapped drive loses with random data; the review's 0.744, the model's ~0.90
    // (reported as a miss of the drop's size: docs/simulated-drives.md, AnandTech 2010).
    let (c, i) = (
        get("ocz-vertex-le-100", "compressible"),
        get("ocz-vertex-le-100", "incompressible"),
    );
    assert!(
        i < c,
        "Vertex LE: incompressible {i:.1} against {c:.1} MB/s"
    );
    eprintln!("Vertex LE incompressible / compressible: {:.3}", i / c);
}

/// The Vertex 3 240 GB's file as the 120 GB: the facts that differ (16 dies on 128 GiB of
/// NAND, 120 GB), the rest as it is.
const VERTEX3_120: [(&str, &str); 3] = [
    ("raw_capacity: 256GiB", "raw_capacity: 128GiB"),
    ("capacity: 240GB", "capacity: 120GB"),
    ("dies_per_channel: 4", "dies_per_channel: 2"),
];

#[test]
fn half_the_dies_writes_incompressible_data_slower() {
    // "What if this drive had half the dies": the Vertex 3 240 GB (32 dies) against the same
    // drive file with 16, as in the 120 GB model (128 GiB of NAND). The reviews: a smaller
    // model of the same controller is slower, most of all on incompressible writes.
    let lab = lab(
        &["ocz-vertex3-240"],
        "name: t\ntitle: t\nseed: 1\ntests:\n  - id: sw\n    title: sw\n    operation: write\n    pattern: sequential\n    block_size: 128KiB\n    span: full\n    queue_depth: 1\n    duration: 5s\n    metric: mb_per_s\n    variants:\n      data: [compressible, incompressible]\n",
    );
    let half = drive_edited(
        "ocz-vertex3-240",
        &[
            [("id: ocz-vertex3-240", "id: half")].as_slice(),
            &VERTEX3_120,
        ]
        .concat(),
    );
    lab.write("drives/half.yaml", &half);
    let r = run(&lab);
    let share = |v: &str| {
        let get = |d: &str| figure(&r, d, "sw", &format!("data-{v}"), "mb_per_s");
        get("half") / get("ocz-vertex3-240")
    };
    let (compressible, incompressible) = (share("compressible"), share("incompressible"));
    assert!(
        incompressible < 0.7,
        "incompressible: half the dies write {incompressible:.2} of the full drive"
    );
    assert!(
        compressible > incompressible + 0.2,
        "compressible {compressible:.2} against incompressible {incompressible:.2}"
    );
}

#[test]
fn the_120gb_vertex3_keeps_anandtechs_share_of_incompressible_random_writes() {
    // AnandTech 4256 ("The OCZ Vertex 3 Review (120GB)", 2011), 4 KiB random writes at QD3
    // over 8 GB: the 120 GB just as fast as the 240 GB with compressible data; with
    // incompressible data 84% of it; on a 3 Gbps port the two identical; at QD32 the gap
    // "grows a little bit". The 120 GB is the 240 GB's file with half the dies and the other
    // facts that differ (`VERTEX3_120`): every share predicted, none of the file's
    // parameters set from a write at QD3.
    let suite = "name: t\ntitle: t\nseed: 2011\ntests:\n  - id: rw\n    title: rw\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    align: 4KiB\n    span: 8GiB\n    queue_depth: 3\n    duration: 10s\n    precondition: {fill: 1}\n    metric: mb_per_s\n    variants:\n      data: [compressible, incompressible]\n  - id: rw32\n    title: rw32\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    align: 4KiB\n    span: 8GiB\n    queue_depth: 32\n    duration: 10s\n    data: incompressible\n    metric: mb_per_s\n";
    let lab = lab(&["ocz-vertex3-240"], suite);
    let half = VERTEX3_120;
    let on_3g = ("link_rate: 550MB/s", "link_rate: 280MB/s");
    let derived = [
        ("v3-120", half.to_vec()),
        ("v3-240-3g", vec![on_3g]),
        ("v3-120-3g", [half.as_slice(), &[on_3g]].concat()),
    ];
    for (id, edits) in derived {
        let id_line = format!("id: {id}");
        let mut edits = edits.clone();
        edits.insert(0, ("id: ocz-vertex3-240", id_line.as_str()));
        lab.write(
            &format!("drives/{id}.yaml"),
            &drive_edited("ocz-vertex3-240", &edits),
        );
    }
    let r = run(&lab);
    let get = |d: &str, t: &str, v: &str| figure(&r, d, t, v, "mb_per_s");
    let share = |big: &str, small: &str, t: &str, v: &str| get(small, t, v) / get(big, t, v);
    let compressible = share("ocz-vertex3-240", "v3-120", "rw", "data-compressible");
    let incompressible = share("ocz-vertex3-240", "v3-120", "rw", "data-incompressible");
    let qd32 = share("ocz-vertex3-240", "v3-120", "rw32", "base");
    let on_3g = share("v3-240-3g", "v3-120-3g", "rw", "data-incompressible");
    eprintln!(
        "120 / 240 GB: compressible {compressible:.3}, incompressible {incompressible:.3}, \
         QD32 {qd32:.3}, on 3 Gbps {on_3g:.3}"
    );
    assert!(
        compressible > 0.95,
        "compressible: the 120 GB {compressible:.2} of the 240 GB"
    );
    assert!(
        (incompressible - 0.84).abs() <= 0.15,
        "incompressible: the 120 GB {incompressible:.2} of the 240 GB, AnandTech 0.84"
    );
    assert!(
        (0.97..=1.03).contains(&on_3g),
        "on 3 Gbps: the 120 GB {on_3g:.2} of the 240 GB, AnandTech identical"
    );
    assert!(
        qd32 <= incompressible && qd32 > incompressible - 0.15,
        "QD32 {qd32:.2} against QD3 {incompressible:.2}: the gap grows a little"
    );
}

#[test]
fn alignment_costs_the_c300_a_read_modify_write() {
    let lab = lab(
        &[
            "crucial-c300-256",
            "intel-x25m-g2-160",
            "intel-x25-e-64",
            "ocz-vertex-120",
            "ocz-vertex-le-100",
        ],
        "name: t\ntitle: t\nseed: 2010\ntests:\n  - id: fill\n    title: fill\n    operation: write\n    pattern: sequential\n    block_size: 128KiB\n    span: 8GiB\n    queue_depth: 4\n    count: 65536\n    metric: mb_per_s\n  - id: rw\n    title: rw\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    span: 8GiB\n    queue_depth: 3\n    duration: 5s\n    data: compressible\n    metric: mb_per_s\n    variants:\n      align: [512B, 4KiB]\n",
    );
    let r = run(&lab);
    let get = |d: &str, v: &str| figure(&r, d, "rw", &format!("align-{v}"), "mb_per_s");
    let c300 = (
        get("crucial-c300-256", "512b"),
        get("crucial-c300-256", "4k"),
    );
    // On a used span (filled first), as the reviews' drives were.
    assert!(c300.1 > 3.0 * c300.0, "C300 512 B vs 4 KiB: {c300:?}");
    let sandforce = (
        get("ocz-vertex-le-100", "512b"),
        get("ocz-vertex-le-100", "4k"),
    );
    // At 4 KiB the Vertex LE and the C300 above 160 MB/s; Intel and Indilinx gain little.
    assert!(
        c300.1 > 160.0 && sandforce.1 > 160.0,
        "C300 {c300:?}, Vertex LE {sandforce:?}"
    );
    for d in ["intel-x25m-g2-160", "intel-x25-e-64", "ocz-vertex-120"] {
        let (a, b) = (get(d, "512b"), get(d, "4k"));
        assert!(b >= a && b / a < 1.15, "{d} gains little: {a:.1} to {b:.1}");
    }
    // At 512 B: the Vertex LE above even the X25-E; the C300 a bit above the Indilinx
    // drive and far below both Intel drives.
    let (x25m, x25e) = (
        get("intel-x25m-g2-160", "512b"),
        get("intel-x25-e-64", "512b"),
    );
    assert!(
        sandforce.0 > x25e,
        "Vertex LE {sandforce:?} vs X25-E {x25e:.1}"
    );
    let indilinx = get("ocz-vertex-120", "512b");
    assert!(
        c300.0 > indilinx && c300.0 < 1.6 * indilinx,
        "C300 a bit above Indilinx at 512 B: {c300:?} vs {indilinx}"
    );
    assert!(
        c300.0 < 0.6 * x25m.min(x25e),
        "C300 far below Intel at 512 B: {c300:?} vs X25-M {x25m:.1}, X25-E {x25e:.1}"
    );
}

#[test]
fn a_faster_drive_is_capped_by_a_3gbps_link() {
    let drive = |id: &str, link: &str| {
        format!(
            "id: {id}\nvendor: Acme\nmodel: Fast\ncapacity: 64GB\nssd:\n  link_rate: {link}\n  command_overhead: 10us\n  channels: 16\n  dies_per_channel: 2\n  channel_rate: 100MB/s\n  page: 4KiB\n  pages_per_block: 128\n  read: 50us\n  program: 900us\n  erase: 3500us\n  raw_capacity: 70GB\n  buffer: 64MiB\n  ftl: page\n  remap: true\n"
        )
    };
    let lab = TestLab::new();
    lab.write("drives/on-3g.yaml", &drive("on-3g", "280MB/s"));
    lab.write("drives/on-6g.yaml", &drive("on-6g", "550MB/s"));
    lab.write(
        "suites/t.yaml",
        "name: t\ntitle: t\nseed: 1\ntests:\n  - id: fill\n    title: fill\n    operation: write\n    pattern: sequential\n    block_size: 128KiB\n    span: 2GiB\n    queue_depth: 8\n    count: 16384\n    metric: mb_per_s\n  - id: sr\n    title: sr\n    operation: read\n    pattern: sequential\n    block_size: 128KiB\n    span: 2GiB\n    queue_depth: 8\n    duration: 2s\n    metric: mb_per_s\n",
    );
    let r = run(&lab);
    let get = |d: &str| figure(&r, d, "sr", "base", "mb_per_s");
    assert!(get("on-3g") <= 280.0, "3 Gbps: {}", get("on-3g"));
    assert!(
        get("on-6g") > 300.0 && get("on-6g") > 1.3 * get("on-3g"),
        "6 Gbps: {} (3 Gbps: {})",
        get("on-6g"),
        get("on-3g")
    );
}

#[test]
fn the_hard_disk_seeks_spins_and_streams() {
    let lab = lab(
        &["samsung-spinpoint-f1-1tb", "ocz-vertex-120"],
        "name: t\ntitle: t\nseed: 2009\ntests:\n  - id: sr\n    title: sr\n    operation: read\n    pattern: sequential\n    block_size: 128KiB\n    span: full\n    queue_depth: 1\n    duration: 5s\n    metric: mb_per_s\n  - id: rr\n    title: rr\n    operation: read\n    pattern: random\n    block_size: 4KiB\n    span: full\n    queue_depth: 1\n    duration: 10s\n    metric: iops\n  - id: rw\n    title: rw\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    span: 4GiB\n    queue_depth: 3\n    duration: 2m\n    data: incompressible\n    metric: mb_per_s\n",
    );
    let r = run(&lab);
    let get = |d: &str, t: &str, k: &str| figure(&r, d, t, "base", k);
    let disk = "samsung-spinpoint-f1-1tb";
    // Streaming from the outer zone at its media rate, read-ahead hiding the gaps.
    let sr = get(disk, "sr", "mb_per_s");
    assert!(sr > 100.0 && sr <= 115.0, "sequential read {sr}");
    // Random reads over the whole disk: an average seek plus half a turn each.
    let rr = get(disk, "rr", "lat_mean_us") / 1e3;
    assert!(rr > 11.0 && rr < 15.5, "random read {rr} ms");
    // bit-tech: the disk's 4 KiB random write about a tenth of the Vertex's.
    let ratio = get(disk, "rw", "mb_per_s") / get("ocz-vertex-120", "rw", "mb_per_s");
    assert!(ratio > 0.07 && ratio < 0.14, "disk / Vertex = {ratio:.3}");
}

#[test]
fn the_hard_disk_reads_a_queued_stream_as_fast_as_one_read_at_a_time() {
    // 4 KiB sequential reads over 1 GiB, one at a time and four at once. Queued reads whose
    // data the head reads ahead while they wait come from the cache, and one a little
    // ahead of the head in its read-ahead is reached as the platter turns on: four at once
    // read no slower (27 against 63 MB/s when such reads were read again from the platter,
    // a seek and a turn each).
    let lab = lab(
        &["samsung-spinpoint-f1-1tb"],
        "name: t\ntitle: t\nseed: 1\ntests:
  - {id: sr, title: sr, operation: read, pattern: sequential, block_size: 4KiB, span: 1GiB, queue_depth: 1, duration: 2s, samples: histogram, metric: mb_per_s, variants: {queue_depth: [1, 4]}}
",
    );
    let r = run(&lab);
    let disk = "samsung-spinpoint-f1-1tb";
    let (one, four) = (
        figure(&r, disk, "sr", "qd-1", "mb_per_s"),
        figure(&r, disk, "sr", "qd-4", "mb_per_s"),
    );
    assert!(four >= one, "QD4 {four:.1} MB/s, QD1 {one:.1}");
}

#[test]
fn the_vertex_stays_constant_over_twenty_repeats_and_stalls_once_used() {
    // bit-tech repeated its random-write test (4 KiB, QD3, 4 GiB, 2 min) twenty times on the
    // Vertex (firmware 1.1) and saw no change; here on a drive written whole first, as a
    // reviewer's drive is. Its figures in the review: 9.97 MB/s, 1.16 ms mean, 10.06 ms max.
    // New spare area holds the first repeats' writes with nothing to collect: the longest
    // write waits for the buffer to be written out (`flush_buffer`, its size fitted to the
    // 10.06 ms); once the spare area is used up the controller also stops for each victim.
    let lab = lab(
        &["ocz-vertex-120"],
        "name: t\ntitle: t\nseed: 2009\ntests:\n  - id: fill\n    title: fill\n    operation: read\n    pattern: random\n    block_size: 4KiB\n    span: full\n    queue_depth: 1\n    count: 10\n    precondition: {fill: 1}\n    metric: iops\n  - id: rw\n    title: rw\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    span: 4GiB\n    queue_depth: 3\n    duration: 2m\n    repeats: 20\n    data: incompressible\n    metric: mb_per_s\n",
    );
    let mut by_repeat: Vec<(u64, f64, f64, f64)> = run_rows(&lab)
        .iter()
        .filter(|r| r["test"] == "rw")
        .map(|r| {
            let get = |k: &str| r[k].as_f64().unwrap();
            (
                r["repeat"].as_u64().unwrap(),
                get("mb_per_s"),
                get("lat_mean_us") / 1e3,
                get("lat_max_us") / 1e3,
            )
        })
        .collect();
    by_repeat.sort_by_key(|r| r.0);
    assert_eq!(by_repeat.len(), 20);
    let first = by_repeat[0];
    assert!(
        (5.0..20.0).contains(&first.3),
        "first repeat, nothing to collect, the buffer written out: max {:.2} ms",
        first.3
    );
    for &(repeat, mb, _, _) in &by_repeat {
        assert!(
            (mb / first.1 - 1.0).abs() < 0.10,
            "repeat {repeat}: {mb:.2} MB/s against {:.2} in the first",
            first.1
        );
    }
    // The last three repeats, as bit-tech reported three.
    let last = &by_repeat[17..];
    for &(repeat, mb, mean, max) in last {
        near(mb, 9.97, &format!("used Vertex MB/s, repeat {repeat}"));
        near(
            mean,
            1.16,
            &format!("used Vertex mean latency, ms, repeat {repeat}"),
        );
        assert!(
            (5.0..20.0).contains(&max),
            "repeat {repeat}: the longest write, the buffer or a victim: {max:.1} ms"
        );
    }
}

#[test]
fn the_jmf602_streams_but_stutters_on_small_random_writes() {
    // A logical block striped over every die: sequential writes fill all of them at once,
    // while each scattered 4 KiB write on a span that holds data costs a whole-block merge.
    let lab = lab(
        &["ocz-core-v2-120"],
        "name: t\ntitle: t\nseed: 1\ntests:\n  - id: sw\n    title: sw\n    operation: write\n    pattern: sequential\n    block_size: 128KiB\n    span: full\n    queue_depth: 1\n    duration: 5s\n    metric: mb_per_s\n  - id: rw\n    title: rw\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    span: 4GiB\n    queue_depth: 3\n    duration: 20s\n    precondition: {fill: 1}\n    metric: mb_per_s\n",
    );
    let r = run(&lab);
    let get = |t: &str| figure(&r, "ocz-core-v2-120", t, "base", "mb_per_s");
    let (sw, rw) = (get("sw"), get("rw"));
    assert!(sw > 30.0, "sequential write {sw:.1} MB/s");
    assert!(sw > 500.0 * rw, "sequential {sw:.1} vs random {rw:.3} MB/s");
}

#[test]
fn the_c300_reads_randomly_ahead_of_the_x25m_and_sandforce_on_either_capacity_and_link() {
    // AnandTech 3812 ("The SSD Diaries: Crucial's RealSSD C300", 2010), 4 KiB random reads
    // at QD3 over 8 GB: the C300 by far the best of any SSD tested, both its 256 and 128 GB,
    // on a 3 Gbps controller too (6 Gbps hardly helps), about 38% ahead of the SF-1200
    // Vertex 2 and the X25-M G2. Predicted: none of these drives' parameters was set from a
    // read at QD3. The span is written first with incompressible data, as anandtech-2010
    // leaves it (its last writes); then again with compressible data, which the SandForce
    // drive reads faster (reported, not held: docs/simulated-drives.md, AnandTech 2010).
    let others = [
        "intel-x25m-g2-160",
        "ocz-agility2-100",
        "intel-x25-e-64",
        "ocz-vertex-le-100",
        "ocz-vertex-120",
    ];
    let mut drives = vec!["crucial-c300-256", "crucial-c300-128"];
    drives.extend(others);
    let phase = |data: &str| {
        format!(
            "  - id: fill-{data}\n    title: fill\n    operation: write\n    pattern: sequential\n    block_size: 128KiB\n    span: 8GiB\n    queue_depth: 4\n    count: 65536\n    data: {data}\n    metric: mb_per_s\n  - id: rr-{data}\n    title: rr\n    operation: read\n    pattern: random\n    block_size: 4KiB\n    span: 8GiB\n    queue_depth: 3\n    duration: 20s\n    metric: mb_per_s\n"
        )
    };
    let lab = lab(
        &drives,
        &format!(
            "name: t\ntitle: t\nseed: 2010\ntests:\n{}{}",
            phase("incompressible"),
            phase("compressible")
        ),
    );
    let on_3g = drive_edited(
        "crucial-c300-256",
        &[
            ("id: crucial-c300-256", "id: c300-on-3g"),
            ("link_rate: 550MB/s", "link_rate: 280MB/s"),
        ],
    );
    lab.write("drives/c300-on-3g.yaml", &on_3g);
    let r = run(&lab);
    let get = |d: &str| figure(&r, d, "rr-incompressible", "base", "mb_per_s");
    let c300 = get("crucial-c300-256");
    let best_other = others.iter().map(|d| get(d)).fold(0.0, f64::max);
    assert!(
        c300 > 1.15 * best_other,
        "C300 {c300:.1} against the best other drive's {best_other:.1} MB/s"
    );
    let share = get("crucial-c300-128") / c300;
    assert!(
        (share - 1.0).abs() <= 0.15,
        "C300 128 / 256 GB at QD3: {share:.2}"
    );
    let on_3g = get("c300-on-3g");
    assert!(
        on_3g < c300 && on_3g > 0.9 * c300,
        "C300 on 3 Gbps {on_3g:.1} against 6 Gbps {c300:.1}"
    );
    for d in ["intel-x25m-g2-160", "ocz-agility2-100"] {
        near(on_3g / get(d), 1.38, &format!("C300 on 3 Gbps over {d}"));
        near(c300 / get(d), 1.38, &format!("C300 over {d}"));
    }
    let compressed = |d: &str| figure(&r, d, "rr-compressible", "base", "mb_per_s");
    eprintln!(
        "compressible span: SF-1200 {:.1} MB/s, C300 {:.1} (incompressible: {:.1}, {c300:.1})",
        compressed("ocz-agility2-100"),
        compressed("crucial-c300-256"),
        get("ocz-agility2-100"),
    );
}

#[test]
fn two_jmf602b_in_raid0_are_barely_faster_than_one_at_queue_depth_3() {
    // The Titan: two Core V2 controllers behind one link, the span written first as in
    // anandtech-2010.yaml. At QD3 the three outstanding writes soon all wait on whichever
    // controller is writing out its cache while the other sits idle with room in its own:
    // AnandTech measured a dual JMF602B at about 1.3 times a single one (7.3 against 5.61
    // IOPS). With 32 outstanding both keep busy.
    let lab = lab(
        &["ocz-core-v2-120", "gskill-titan-256"],
        "name: t\ntitle: t\nseed: 1\ntests:\n  - id: rw\n    title: rw\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    span: 8GiB\n    queue_depth: 3\n    duration: 60s\n    precondition: {fill: 1}\n    metric: iops\n  - id: rw32\n    title: rw32\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    span: 8GiB\n    queue_depth: 32\n    duration: 60s\n    metric: iops\n",
    );
    let ratio = iops_ratios(&lab, "gskill-titan-256", "ocz-core-v2-120");
    let (qd3, qd32) = (ratio("rw"), ratio("rw32"));
    assert!(
        (1.0..1.5).contains(&qd3),
        "Titan / Core V2 at QD3: {qd3:.2}"
    );
    assert!(qd32 > 1.7, "Titan / Core V2 at QD32: {qd32:.2}");
}

#[test]
fn two_x25m_in_host_raid0_write_twice_as_fast_deep_but_read_as_one_shallow() {
    // Readers asked how RAID 0 of two drives behaves. Two X25-M G2 on the host's
    // controller, 128 KiB stripe: 4 KiB random writes are bound by each controller's time
    // per write, so 32 outstanding keep both busy (twice one drive) and 3 keep them busy
    // most of the time; 4 KiB random reads at QD3 are bound by each read's latency (NAND,
    // channel, link), which striping does not shorten; a 128 KiB sequential read at QD1
    // is on one drive at a time.
    let lab = lab(
        &["intel-x25m-g2-160", "intel-x25m-g2-160-raid0"],
        "name: t\ntitle: t\nseed: 1\ntests:\n  - {id: rw32, title: rw32, operation: write, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 32, duration: 20s, metric: iops}\n  - {id: rw3, title: rw3, operation: write, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 3, duration: 20s, metric: iops}\n  - {id: rr3, title: rr3, operation: read, pattern: random, block_size: 4KiB, span: 8GiB, queue_depth: 3, duration: 20s, metric: iops}\n  - {id: sr, title: sr, operation: read, pattern: sequential, block_size: 128KiB, span: full, queue_depth: 1, duration: 10s, metric: mb_per_s}\n",
    );
    let ratio = iops_ratios(&lab, "intel-x25m-g2-160-raid0", "intel-x25m-g2-160");
    let (rw32, rw3, rr3, sr) = (ratio("rw32"), ratio("rw3"), ratio("rr3"), ratio("sr"));
    assert!(
        (1.8..2.05).contains(&rw32),
        "RAID 0 / one at QD32 writes: {rw32:.2}"
    );
    assert!(
        (1.3..1.8).contains(&rw3),
        "RAID 0 / one at QD3 writes: {rw3:.2}"
    );
    assert!(
        (0.95..1.1).contains(&rr3),
        "RAID 0 / one at QD3 reads: {rr3:.2}"
    );
    assert!(
        (0.95..1.15).contains(&sr),
        "RAID 0 / one, 128 KiB reads at QD1: {sr:.2}"
    );
}

#[test]
fn the_used_x25m_is_the_lab_x25m_used() {
    // The two files differ only in the drive's name and state.
    let body = |text: &str| {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let used = drive_edited(
        "intel-x25m-g2-160-used",
        &[
            ("id: intel-x25m-g2-160-used", "id: intel-x25m-g2-160"),
            ("model: X25-M G2 (used)", "model: X25-M G2"),
            ("  aged: true\n  full: 0.989\n", ""),
        ],
    );
    assert_eq!(body(&used), body(&drive_file("intel-x25m-g2-160")));
}

#[test]
fn a_full_used_x25m_is_bound_by_its_garbage_collection() {
    // The lab's used X25-M with every logical page holding data (its file says 98.9%):
    // AnandTech 2009's 4 KiB random write, QD3 over 8 GiB, 3 min, measured 23.1 MB/s on a
    // used X25-M (shared/reference/drives-and-nand.md). Its victims hold more valid pages
    // than the dies can copy at the controller's pace, so collection sets the throughput,
    // and a die that runs out of erased blocks makes the host wait for its victims.
    let lab = lab(
        &[],
        "name: t\ntitle: t\nseed: 2009\ntests:\n  - id: rw\n    title: rw\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    span: 8GiB\n    queue_depth: 3\n    duration: 3m\n    metric: mb_per_s\n",
    );
    let text = drive_edited("intel-x25m-g2-160-used", &[("  full: 0.989\n", "")]);
    lab.write("drives/intel-x25m-g2-160-used.yaml", &text);
    let r = run(&lab);
    let get = |k: &str| figure(&r, "intel-x25m-g2-160-used", "rw", "base", k);
    near(get("mb_per_s"), 23.1, "used X25-M MB/s");
    let max_ms = get("lat_max_us") / 1e3;
    assert!(
        (100.0..1000.0).contains(&max_ms),
        "the longest wait, a victim or more: {max_ms:.1} ms"
    );
}

#[test]
fn the_x25m_original_firmware_halves_on_every_repeat_the_fix_holds() {
    // bit-tech's random-write test (4 KiB, QD3, 4 GiB, 2 min) repeated three times on the
    // lab's used first-generation X25-M 80 GB (98.5% of its logical pages hold data, and a
    // history of small random writes), under its original firmware (8610) and the fix
    // (8820). The original tracks stale data by write-combination vector: each small write
    // leaves a stale page its vector keeps and garbage collection copies, so the spare area
    // its history left goes as the test writes, and bit-tech saw it halve its throughput
    // and double its latency on each repeat; the fix (page by page) holds its speed.
    let lab = lab(
        &[],
        "name: t\ntitle: t\nseed: 2009\ntests:\n  - id: rw\n    title: rw\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    span: 4GiB\n    queue_depth: 3\n    duration: 2m\n    repeats: 3\n    metric: mb_per_s\n",
    );
    for (id, firmware) in [("fixed", "045C8820"), ("original", "045C8610")] {
        let text = drive_edited(
            "intel-x25m-g1-80-used",
            &[
                ("id: intel-x25m-g1-80-used", &format!("id: {id}")),
                ("firmware: 045C8610", &format!("firmware: {firmware}")),
            ],
        );
        lab.write(&format!("drives/{id}.yaml"), &text);
    }
    let rows = run_rows(&lab);
    // Per repeat, in order: (MB/s, mean latency in ms, longest wait in ms).
    let series = |drive: &str| {
        let mut by_repeat: Vec<(u64, f64, f64, f64)> = rows
            .iter()
            .filter(|r| r["drive"] == drive)
            .map(|r| {
                let f = |k: &str| r[k].as_f64().unwrap();
                (
                    r["repeat"].as_u64().unwrap(),
                    f("mb_per_s"),
                    f("lat_mean_us") / 1e3,
                    f("lat_max_us") / 1e3,
                )
            })
            .collect();
        by_repeat.sort_by_key(|r| r.0);
        assert_eq!(by_repeat.len(), 3, "{drive}");
        by_repeat
            .into_iter()
            .map(|r| (r.1, r.2, r.3))
            .collect::<Vec<(f64, f64, f64)>>()
    };
    let (old, new) = (series("original"), series("fixed"));
    // The original: each repeat keeps about half the throughput of the one before (40% to
    // 60%), and its mean latency about doubles (1.6 to 2.5 times).
    for w in old.windows(2) {
        let (kept, slower) = (w[1].0 / w[0].0, w[1].1 / w[0].1);
        assert!(
            (0.4..0.6).contains(&kept) && (1.6..2.5).contains(&slower),
            "original firmware (MB/s, mean ms, longest ms): {old:.2?}"
        );
    }
    // The fix: within 10% of its first repeat, every wait shorter than half the
    // original's shortest longest wait, and twice its speed by the second repeat.
    let waited = old.iter().map(|r| r.2).fold(f64::INFINITY, f64::min);
    for r in &new {
        assert!(r.0 > 0.9 * new[0].0, "fixed firmware: {new:.2?}");
        assert!(
            r.2 < 0.5 * waited,
            "fixed firmware's longest waits: {new:.2?}, the original's {old:.2?}"
        );
    }
    assert!(
        new[1].0 > 2.0 * old[1].0,
        "fixed {new:.2?} against original {old:.2?}"
    );
}

/// Every file under `dir`, with its bytes.
fn contents(dir: &std::path::Path) -> BTreeMap<std::path::PathBuf, Vec<u8>> {
    common::files(dir)
        .into_iter()
        .map(|f| {
            let bytes = fs::read(dir.join(&f)).unwrap();
            (f, bytes)
        })
        .collect()
}

#[test]
fn a_simulated_drives_results_do_not_depend_on_what_else_ran() {
    // The JMF602 merges its log blocks, so what each test finds depends on what the tests
    // before it wrote. Its results must still be those of its suite and drive file alone:
    // the same when the whole lab runs, one test of it, one suite, or a resumed run.
    let test = |id: &str, op: &str, seconds: u32| {
        format!("  - {{id: {id}, title: {id}, operation: {op}, pattern: random, block_size: 4KiB, span: 4GiB, queue_depth: 3, duration: {seconds}s, data: incompressible, metric: mb_per_s}}\n")
    };
    let suite =
        |tests: &[String]| format!("name: t\ntitle: t\nseed: 1\ntests:\n{}", tests.concat());
    let lab = lab(
        &["ocz-core-64"],
        &suite(&[
            test("w1", "write", 3),
            test("w2", "write", 3),
            test("r", "read", 1),
        ]),
    );
    lab.write(
        "suites/u.yaml",
        &format!(
            "name: u\ntitle: u\nseed: 2\ntests:\n{}",
            test("w", "write", 3)
        ),
    );
    let results = lab.path().join("results");
    let roundup = |args: &[&str]| {
        let out = lab.roundup(args);
        assert!(out.status.success(), "{}", stderr(&out));
        common::stdout(&out)
    };
    roundup(&["run"]);
    let whole = contents(&results);
    assert_eq!(whole.len(), 8, "{:?}", whole.keys());
    let of = |test: &str| -> Vec<(&std::path::PathBuf, &Vec<u8>)> {
        whole
            .iter()
            .filter(|(p, _)| p.to_string_lossy().contains(&format!("/test={test}/")))
            .collect()
    };
    // One test: the one before it runs again, unstored, and its results are the whole run's.
    fs::remove_dir_all(&results).unwrap();
    let out = roundup(&["run", "--suite", "t", "--test", "w2"]);
    assert!(
        out.contains("plus 1 earlier job run only for the simulated drives' state"),
        "{out}"
    );
    let now = contents(&results);
    assert_eq!(now.len(), 2);
    for (p, bytes) in of("w2") {
        assert!(now[p] == **bytes, "{p:?} differs from the whole run's");
    }
    // One suite: the same as after the other suite in the whole run.
    let out = roundup(&["run", "--suite", "u"]);
    assert!(out.contains("1 job completed"), "{out}");
    let now = contents(&results);
    for (p, bytes) in of("w") {
        assert!(now[p] == **bytes, "{p:?} differs from the whole run's");
    }
    // Resumed: the complete first write runs again for the state, the missing second is
    // stored as the whole run had it, and the read after it is kept.
    roundup(&["run"]);
    let w2 = of("w2");
    fs::remove_file(
        results
            .join(w2[0].0.parent().unwrap())
            .join("manifest.json"),
    )
    .unwrap();
    let out = roundup(&["run", "--resume", "--dry-run"]);
    assert!(
        out.contains("plan: 1 job on 1 drive, plus 1 earlier job run only for the simulated drives' state, 3 kept from earlier runs"),
        "{out}"
    );
    let out = roundup(&["run", "--resume"]);
    assert!(
        out.contains("1 job completed, 3 kept from earlier runs, 0 failed (1 job run only for the simulated drives' state)"),
        "{out}"
    );
    assert!(
        contents(&results) == whole,
        "the resumed run's results differ"
    );
    // And the state matters: the second write alone, on the drive as its file describes
    // it, gives other results (the same requests: the suite, its seed and the test's id).
    let alone = self::lab(&["ocz-core-64"], &suite(&[test("w2", "write", 3)]));
    let out = alone.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (p, bytes) = w2
        .iter()
        .find(|(p, _)| p.ends_with("samples.parquet"))
        .unwrap();
    assert!(
        fs::read(alone.path().join("results").join(p)).unwrap() != **bytes,
        "{p:?}: the same alone as after the first write"
    );
}

/// A capacity sibling: its file derived from its parent's by the facts that differ between
/// the products, and the shares of the parent's figures the makers published for it.
struct Sibling {
    parent: &'static str,
    id: &'static str,
    /// (from, to) edits of the parent's file: id, capacity, dies, NAND.
    edits: &'static [(&'static str, &'static str)],
    /// (test, published share of the parent's figure).
    published: &'static [(&'static str, f64)],
}

const SIBLINGS: &[Sibling] = &[
    Sibling {
        parent: "intel-x25m-g2-160",
        id: "intel-x25m-g2-80",
        edits: &[
            ("id: intel-x25m-g2-160", "id: intel-x25m-g2-80"),
            ("capacity: 160GB", "capacity: 80GB"),
            ("dies_per_channel: 4", "dies_per_channel: 2"),
            ("raw_capacity: 171.8GB", "raw_capacity: 85.9GB"),
        ],
        // 70 / 100 MB/s, 6,600 / 8,600 IOPS, 35,000 / 35,000 IOPS.
        published: &[
            ("sequential-write-128k-qd32", 0.70),
            ("random-write-4k-qd32", 0.767),
            ("random-read-4k-qd32", 1.0),
        ],
    },
    Sibling {
        parent: "crucial-c300-256",
        id: "crucial-c300-128",
        edits: &[
            ("id: crucial-c300-256", "id: crucial-c300-128"),
            ("capacity: 256GB", "capacity: 128GB"),
            ("dies_per_channel: 8", "dies_per_channel: 4"),
            ("raw_capacity: 256GiB", "raw_capacity: 128GiB"),
        ],
        // 140 / 215 MB/s, 30,000 / 45,000 IOPS, 50,000 / 60,000 IOPS.
        published: &[
            ("sequential-write-128k-qd32", 0.651),
            ("random-write-4k-qd32", 0.667),
            ("random-read-4k-qd32", 0.833),
        ],
    },
    Sibling {
        parent: "crucial-m4-256",
        id: "crucial-m4-128",
        edits: &[
            ("id: crucial-m4-256", "id: crucial-m4-128"),
            ("capacity: 256GB", "capacity: 128GB"),
            ("dies_per_channel: 4", "dies_per_channel: 2"),
            ("raw_capacity: 256GiB", "raw_capacity: 128GiB"),
        ],
        // 175 / 260 MB/s, 35,000 / 50,000 IOPS, 40,000 / 40,000 IOPS.
        published: &[
            ("sequential-write-128k-qd32", 0.673),
            ("random-write-4k-qd32", 0.70),
            ("random-read-4k-qd32", 1.0),
        ],
    },
    Sibling {
        parent: "crucial-m4-128",
        id: "crucial-m4-64",
        edits: &[
            ("id: crucial-m4-128", "id: crucial-m4-64"),
            ("capacity: 128GB", "capacity: 64GB"),
            ("dies_per_channel: 2", "dies_per_channel: 1"),
            ("raw_capacity: 128GiB", "raw_capacity: 64GiB"),
        ],
        // 95 / 175 MB/s, 20,000 / 35,000 IOPS, 40,000 / 40,000 IOPS.
        published: &[
            ("sequential-write-128k-qd32", 0.543),
            ("random-write-4k-qd32", 0.571),
            ("random-read-4k-qd32", 1.0),
        ],
    },
];

/// The predictions that miss by more than 15 points, each as docs/simulated-drives.md
/// reports it ("Capacity siblings"): (sibling, test). Listed so that the docs stay true: a
/// miss that starts to hold fails here until the docs say so.
const KNOWN_MISSES: &[(&str, &str)] = &[
    ("intel-x25m-g2-80", "random-write-4k-qd32"),
    ("crucial-c300-128", "random-read-4k-qd32"),
];

/// Every figure of the seven drives' spec sheets that `capacity-specs` measures, (drive,
/// test, sheet figure): 128 KiB sequential transfers in MB/s, 4 KiB random ones in IOPS,
/// each the model's within the sheets' "up to" band (−25% / +10%) unless listed as a miss
/// (shared/reference/capacity-families.md; docs/simulated-drives.md, "Against the spec
/// sheets", says which were fitted).
const SHEETS: &[(&str, &str, f64)] = &[
    ("intel-x25m-g2-160", "sequential-write-128k-qd32", 100.0),
    ("intel-x25m-g2-160", "random-write-4k-qd32", 8_600.0),
    ("intel-x25m-g2-160", "random-read-4k-qd32", 35_000.0),
    ("intel-x25m-g2-160", "sequential-read-128k-qd32", 250.0),
    ("intel-x25m-g2-80", "sequential-write-128k-qd32", 70.0),
    ("intel-x25m-g2-80", "random-write-4k-qd32", 6_600.0),
    ("intel-x25m-g2-80", "random-read-4k-qd32", 35_000.0),
    ("intel-x25m-g2-80", "sequential-read-128k-qd32", 250.0),
    ("crucial-c300-256", "sequential-write-128k-qd32", 215.0),
    ("crucial-c300-256", "random-write-4k-qd32", 45_000.0),
    ("crucial-c300-256", "random-read-4k-qd32", 60_000.0),
    ("crucial-c300-256", "sequential-read-128k-qd32", 355.0),
    ("crucial-c300-128", "sequential-write-128k-qd32", 140.0),
    ("crucial-c300-128", "random-write-4k-qd32", 30_000.0),
    ("crucial-c300-128", "random-read-4k-qd32", 50_000.0),
    ("crucial-c300-128", "sequential-read-128k-qd32", 355.0),
    ("crucial-m4-256", "sequential-write-128k-qd32", 260.0),
    ("crucial-m4-256", "random-write-4k-qd32", 50_000.0),
    ("crucial-m4-256", "random-read-4k-qd32", 40_000.0),
    ("crucial-m4-256", "sequential-read-128k-qd32", 415.0),
    ("crucial-m4-128", "sequential-write-128k-qd32", 175.0),
    ("crucial-m4-128", "random-write-4k-qd32", 35_000.0),
    ("crucial-m4-128", "random-read-4k-qd32", 40_000.0),
    ("crucial-m4-128", "sequential-read-128k-qd32", 415.0),
    ("crucial-m4-64", "sequential-write-128k-qd32", 95.0),
    ("crucial-m4-64", "random-write-4k-qd32", 20_000.0),
    ("crucial-m4-64", "random-read-4k-qd32", 40_000.0),
    ("crucial-m4-64", "sequential-read-128k-qd32", 415.0),
];

/// The sheet figures the model misses, as the docs report ("Against the spec sheets"): the
/// X25-Ms' sequential writes and reads at depth, every Marvell drive's random writes, the
/// m4 128 GB's sequential write and the C300 128 GB's random reads.
const SHEET_MISSES: &[(&str, &str)] = &[
    ("intel-x25m-g2-160", "sequential-write-128k-qd32"),
    ("intel-x25m-g2-160", "sequential-read-128k-qd32"),
    ("intel-x25m-g2-80", "sequential-write-128k-qd32"),
    ("intel-x25m-g2-80", "sequential-read-128k-qd32"),
    ("crucial-c300-256", "random-write-4k-qd32"),
    ("crucial-c300-128", "random-write-4k-qd32"),
    ("crucial-c300-128", "random-read-4k-qd32"),
    ("crucial-m4-256", "random-write-4k-qd32"),
    ("crucial-m4-128", "sequential-write-128k-qd32"),
    ("crucial-m4-128", "random-write-4k-qd32"),
    ("crucial-m4-64", "random-write-4k-qd32"),
];

/// The text of a drive file without its comment lines.
fn without_comments(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn capacity_siblings_keep_the_published_share_of_their_parents() {
    // Each sibling is its parent's file with only the facts that differ between the
    // products changed, as shipped; the model runs both on the makers' measurements
    // (suites/capacity-specs.yaml) and the sibling's share of each figure is compared with
    // the published one.
    let lab = TestLab::new();
    lab.write(
        "suites/capacity-specs.yaml",
        &repo_suite_file("capacity-specs"),
    );
    for s in SIBLINGS {
        let derived = drive_edited(s.parent, s.edits);
        assert_eq!(
            without_comments(&derived),
            without_comments(&drive_file(s.id)),
            "drives/{}.yaml differs from {}'s in more than its edits",
            s.id,
            s.parent
        );
        lab.write(&format!("drives/{}.yaml", s.parent), &drive_file(s.parent));
        lab.write(&format!("drives/{}.yaml", s.id), &derived);
    }
    let r = run(&lab);
    let mut table = String::new();
    let mut wrong = Vec::new();
    for s in SIBLINGS {
        for &(test, published) in s.published {
            let key = if test.starts_with("sequential") {
                "mb_per_s"
            } else {
                "iops"
            };
            let share =
                figure(&r, s.id, test, "base", key) / figure(&r, s.parent, test, "base", key);
            let holds = (share - published).abs() <= 0.15;
            table += &format!(
                "{} / {} {test}: model {share:.2}, published {published:.2} {}\n",
                s.id,
                s.parent,
                if holds { "✓" } else { "✗" }
            );
            if holds == KNOWN_MISSES.contains(&(s.id, test)) {
                wrong.push(format!("{} {test}", s.id));
            }
        }
    }
    for &(drive, test, sheet) in SHEETS {
        let key = if test.starts_with("sequential") {
            "mb_per_s"
        } else {
            "iops"
        };
        let model = figure(&r, drive, test, "base", key);
        let holds = model >= 0.75 * sheet && model <= 1.10 * sheet;
        table += &format!(
            "{drive} {test}: model {model:.0} {key}, sheet {sheet:.0} ({:+.0}%) {}\n",
            100.0 * (model / sheet - 1.0),
            if holds { "✓" } else { "✗" }
        );
        if holds == SHEET_MISSES.contains(&(drive, test)) {
            wrong.push(format!("{drive} {test} against the sheet"));
        }
    }
    println!("{table}");
    assert!(
        wrong.is_empty(),
        "not as docs/simulated-drives.md says (a miss held, or a prediction missed): {wrong:?}\n{table}"
    );
}

#[test]
fn no_ssd_writes_a_stream_slower_in_larger_writes() {
    // Every SSD of drives/, purged, writes 1 GiB sequentially at QD1 and QD8 in 128 KiB
    // writes and in 1 MiB ones (incompressible, 1 s each): larger writes move no less data
    // a second (3% allowed for what a 64 MiB buffer takes in during the second). When a
    // write waited for room for all of its data at once, a write as large as a 1 MiB buffer
    // waited for it to empty: the Vertex 3 wrote 188 against 301 MB/s at QD8, the SandForce
    // drives and the X25-Ms 6–43% less. While a write's pages went into the buffer only
    // once all its data was in, the drives whose buffer is no larger than 1 MiB wrote 1 MiB
    // at QD1 below 128 KiB: the SandForce drives 134 against 146 MB/s
    // (docs/simulated-drives.md, "The SSD model").
    let lab = TestLab::new();
    let ssds = shipped_ssds();
    for (id, text) in &ssds {
        lab.write(&format!("drives/{id}.yaml"), text);
    }
    lab.write(
        "suites/t.yaml",
        "name: t\ntitle: t\nseed: 1\ntests:
  - {id: w, title: w, operation: write, pattern: sequential, block_size: 128KiB, span: 1GiB, queue_depth: 8, duration: 1s, precondition: {purge: true}, data: incompressible, samples: histogram, metric: mb_per_s, variants: {block_size: [128KiB, 1MiB], queue_depth: [1, 8]}}
",
    );
    let r = run(&lab);
    assert_eq!(r.len(), 4 * ssds.len());
    for (drive, _, _) in r.keys().filter(|k| k.2 == "qd-8_bs-128k") {
        for qd in ["qd-1", "qd-8"] {
            let small = figure(&r, drive, "w", &format!("{qd}_bs-128k"), "mb_per_s");
            let large = figure(&r, drive, "w", &format!("{qd}_bs-1m"), "mb_per_s");
            assert!(
                large >= 0.97 * small,
                "{drive} {qd}: 1 MiB writes {large:.0} MB/s, 128 KiB {small:.0}"
            );
        }
    }
}

#[test]
fn compressible_and_aligned_writes_are_never_the_slower() {
    // Every new page-mapped SSD of drives/ writes 4 KiB at random over 1 GiB, purged and
    // written once before each job, at QD1 and QD4 (1 s each): compressible data no slower
    // than incompressible (AnandTech 2010: "compressible is the maximum, incompressible the
    // minimum", shared/reference/review-methods.md), writes aligned to 4 KiB no slower than
    // ones aligned to 512 B (3% allowed: each variant draws its own offsets). While a
    // compressing controller left each write the same work for its program's end, a
    // program of compressed writes brought many writes' work at once: the Vertex LE wrote
    // compressible data at QD1 at 139 MB/s against 146, the Vertex 3 at QD4 231 against
    // 240 (docs/simulated-drives.md, "Model against the reviews").
    let (lab, ssds) = new_page_mapped_ssds(|_| true);
    let common = "operation: write, pattern: random, block_size: 4KiB, span: 1GiB, queue_depth: 1, duration: 1s, samples: histogram, metric: mb_per_s, precondition: {purge: true, fill: 1}";
    lab.write(
        "suites/t.yaml",
        &format!(
            "name: t\ntitle: t\nseed: 1\ntests:
  - {{id: data, title: data, {common}, variants: {{data: [compressible, incompressible], queue_depth: [1, 4]}}}}
  - {{id: align, title: align, {common}, data: incompressible, variants: {{align: [512B, 4KiB], queue_depth: [1, 4]}}}}
"
        ),
    );
    let r = run(&lab);
    assert_eq!(r.len(), 8 * ssds.len());
    let mut misses = Vec::new();
    for (id, _) in &ssds {
        for qd in ["qd-1", "qd-4"] {
            let pairs = [
                ("data", "data-incompressible", "data-compressible"),
                ("align", "align-512b", "align-4k"),
            ];
            for (test, worse, better) in pairs {
                let low = figure(&r, id, test, &format!("{worse}_{qd}"), "mb_per_s");
                let high = figure(&r, id, test, &format!("{better}_{qd}"), "mb_per_s");
                if high < 0.97 * low {
                    misses.push(format!(
                        "{id} {qd} {better} {high:.0} MB/s, {worse} {low:.0}"
                    ));
                }
            }
        }
    }
    assert!(misses.is_empty(), "{misses:?}");
}

#[test]
fn a_sata_drive_reads_and_writes_at_once_no_faster_than_its_link() {
    // Every new page-mapped SATA SSD of drives/ reads and writes 128 KiB in a stream at
    // QD32 over 1 GiB written once (1 s each), with 30% and 50% writes: a SATA link carries
    // one direction's data at a time, so the two together move no more than its rate (1%
    // allowed). While the classic files' data went both ways at once, the X25-E moved 344
    // MB/s at 30-50% writes over its 3 Gbps link (280 MB/s), and the Vertex 3 770 over its
    // 6 Gbps one (550; docs/simulated-drives.md, "The SSD model").
    let (lab, ssds) = new_page_mapped_ssds(|t| t.contains("\ninterface: SATA"));
    assert!(ssds.len() >= 15, "{}", ssds.len());
    lab.write(
        "suites/t.yaml",
        "name: t\ntitle: t\nseed: 1\ntests:
  - {id: mix, title: mix, operation: read, pattern: sequential, block_size: 128KiB, span: 1GiB, queue_depth: 32, duration: 1s, samples: histogram, metric: mb_per_s, data: incompressible, precondition: {purge: true, fill: 1}, variants: {writes: [30%, 50%]}}
",
    );
    let r = run(&lab);
    let mut misses = Vec::new();
    for (id, text) in &ssds {
        let link: f64 = text
            .lines()
            .find_map(|l| l.strip_prefix("  link_rate: "))
            .and_then(|v| v.trim().strip_suffix("MB/s"))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{id}: no link_rate in MB/s"));
        for mix in ["wr-30", "wr-50"] {
            let both = figure(&r, id, "mix", mix, "mb_per_s");
            if both > 1.01 * link {
                misses.push(format!(
                    "{id} {mix}: {both:.0} MB/s over a {link:.0} MB/s link"
                ));
            }
        }
    }
    assert!(misses.is_empty(), "{misses:?}");
}

#[test]
fn a_larger_capacity_writes_no_slower_at_qd1() {
    // The m4 64 / 128 / 256 GB and the C300 128 / 256 GB as shipped, purged, write 1 GiB
    // sequentially at QD1 in 128 KiB and 1 MiB writes (5 s each, past what their 64 MiB
    // buffers take in): a larger capacity of a family writes no slower (3% allowed), as
    // every sheet of theirs orders them. While the controller began a write only when all
    // its data was in, the work it leaves for a program's end fell into that wait on the
    // smaller drives and into the next command on the larger: the m4 256 GB wrote 1 MiB at
    // 176 MB/s against the 128 GB's 198 (docs/simulated-drives.md, "Sequential writes at QD1
    // by capacity").
    let families: [&[&str]; 2] = [
        &["crucial-m4-64", "crucial-m4-128", "crucial-m4-256"],
        &["crucial-c300-128", "crucial-c300-256"],
    ];
    let lab = lab(
        &families.concat(),
        "name: t\ntitle: t\nseed: 1\ntests:
  - {id: w, title: w, operation: write, pattern: sequential, block_size: 128KiB, span: 1GiB, queue_depth: 1, duration: 5s, precondition: {purge: true}, data: incompressible, samples: histogram, metric: mb_per_s, variants: {block_size: [128KiB, 1MiB]}}
",
    );
    let r = run(&lab);
    for family in families {
        for pair in family.windows(2) {
            for bs in ["bs-128k", "bs-1m"] {
                let small = figure(&r, pair[0], "w", bs, "mb_per_s");
                let large = figure(&r, pair[1], "w", bs, "mb_per_s");
                assert!(
                    large >= 0.97 * small,
                    "{bs}: {} {large:.0} MB/s, {} {small:.0}",
                    pair[1],
                    pair[0]
                );
            }
        }
    }
}

#[test]
fn every_ssds_latencies_spread_as_the_docs_report() {
    // Every SSD of drives/ on the shipped `latency` suite (4 KiB random reads at QD1 over
    // 8 GiB written first, then random writes at QD3 over it; docs/simulated-drives.md,
    // "Latency distributions"): each table is ordered, every read's p99.9 is above its p99
    // (reads vary from read to read) and its longest wait above its p99.9 (a bit error or
    // a retry), no two SSDs read alike, and the TLC drives' reads spread past a tenth above
    // their p50 (their page types). Which rows hold the issue's p99 > 1.1 × p50 and
    // p99.9 > p99 the docs' table says; this keeps their count.
    let lab = TestLab::new();
    let mut tlc = Vec::new();
    for (id, text) in shipped_ssds() {
        if text.contains("    bits: 3\n") {
            tlc.push(id.clone());
        }
        lab.write(&format!("drives/{id}.yaml"), &text);
    }
    lab.write("suites/latency.yaml", &repo_suite_file("latency"));
    let rows = run_rows(&lab);
    assert_eq!(rows.len(), 64, "32 SSDs, two tests each");
    let mut both = 0;
    let mut reads = std::collections::BTreeSet::new();
    for r in &rows {
        let at = |k: &str| r[k].as_f64().unwrap();
        let (p50, p99, p999, max) = (
            at("lat_p50_us"),
            at("lat_p99_us"),
            at("lat_p999_us"),
            at("lat_max_us"),
        );
        let what = format!(
            "{} {}: {p50} / {p99} / {p999} / {max} µs",
            r["drive"], r["test"]
        );
        assert!(p50 <= p99 && p99 <= p999 && p999 <= max, "{what}");
        if r["test"] == "random-read-4k-qd1" {
            assert!(max > p999 && p999 > p99, "{what}");
            assert!(
                reads.insert(format!("{p50} {p99} {p999} {max}")),
                "another SSD read alike: {what}"
            );
            if tlc.iter().any(|d| r["drive"] == d.as_str()) {
                assert!(p99 > 1.1 * p50, "{what}");
            }
        }
        if p99 > 1.1 * p50 && p999 > p99 {
            both += 1;
        }
    }
    assert_eq!(tlc.len(), 9, "{tlc:?}");
    assert_eq!(
        both, 38,
        "rows with p99 > 1.1 × p50 and p99.9 > p99 (docs: 38 of 64)"
    );
}

#[test]
fn a_sandforce_drive_on_25nm_nand_is_predicted_from_its_34nm_self() {
    // AnandTech's "NAND Matrix" (4256; shared/reference/capacity-families.md): the same
    // 120 GB SF-1200 drive on 34 nm and 25 nm IMFT NAND, Storage Bench 2011 heavy and
    // light: 25 nm / 34 nm 0.923 and 0.935. The Force F120 (SF-1200, 120 GB, 34 nm) against
    // the same file with the 25 nm part's facts (Micron's data sheet, as the m4 files have
    // them: 8 GB dies, so half as many; 8 KiB pages, 256 a block, two planes, 1,300 µs
    // programs, 3 ms erases), on the lab's Storage Bench 2010 traces (the 2011 traces'
    // statistics are not in shared/reference), each as anandtech-2010 runs it.
    let lab = TestLab::new();
    lab.write(
        "drives/corsair-force-f120.yaml",
        &drive_file("corsair-force-f120"),
    );
    lab.write(
        "suites/anandtech-2010.yaml",
        &repo_suite_file("anandtech-2010"),
    );
    for p in ["heavy", "light", "gaming"] {
        let file = format!("suites/profiles/{p}.yaml");
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        lab.write(&file, &fs::read_to_string(root.join(&file)).unwrap());
    }
    let nm25 = drive_edited(
        "corsair-force-f120",
        &[
            ("id: corsair-force-f120", "id: f120-25nm"),
            ("dies_per_channel: 4", "dies_per_channel: 2"),
            ("  page: 4KiB\n", "  page: 8KiB\n  planes: 2\n"),
            ("pages_per_block: 128", "pages_per_block: 256"),
            ("  program: 900us\n", "  program: 1300us\n"),
            ("  erase: 3500us\n", "  erase: 3000us\n"),
        ],
    );
    lab.write("drives/f120-25nm.yaml", &nm25);
    let out = lab.roundup(&[
        "run",
        "-q",
        "--test",
        "storage-bench-heavy",
        "--test",
        "storage-bench-light",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = lab.roundup(&["summary", "--json"]);
    let r = first_repeats(serde_json::from_slice(&out.stdout).unwrap());
    let share = |t: &str| {
        let get = |d: &str| figure(&r, d, t, "base", "mb_per_s");
        get("f120-25nm") / get("corsair-force-f120")
    };
    // Predicted: 0.83 on both (the docs), within 15 points of the review's shares, as the
    // capacity siblings are held; slower on 25 nm, as the review found.
    for (t, review) in [
        ("storage-bench-heavy", 0.923),
        ("storage-bench-light", 0.935),
    ] {
        let s = share(t);
        assert!(
            (s - review).abs() <= 0.15 && s < 1.0,
            "{t}: 25 nm / 34 nm {s:.3}, review {review}"
        );
    }
}

/// The Crucial m4 512 GB, not shipped: the 256 GB's file with twice its dies (64, 8 GB a
/// die) and capacity.
const M4_512_FROM_256: [(&str, &str); 4] = [
    ("id: crucial-m4-256", "id: crucial-m4-512"),
    ("capacity: 256GB", "capacity: 512GB"),
    ("  dies_per_channel: 4\n", "  dies_per_channel: 8\n"),
    ("raw_capacity: 256GiB", "raw_capacity: 512GiB"),
];

#[test]
fn family_members_not_shipped_keep_their_published_shares() {
    // Two more members of shared/reference/capacity-families.md's families, each derived
    // from a shipped file with the facts that differ (not shipped), on the spec sheets'
    // test: their shares of the shipped drive's figures are predicted.
    // - Intel's X25-V 40 GB is the X25-M G2 80 GB with five of its ten channels populated:
    //   35 MB/s sequential write against 70 (Tom's Hardware).
    // - The Crucial m4 512 GB has twice the 256 GB's dies (64, derived: 8 GB a die) and
    //   the same sheet: 415 / 260 MB/s, 40,000 random reads.
    let lab = TestLab::new();
    let suite = repo_suite_file("capacity-specs");
    let drives = suite.lines().find(|l| l.starts_with("drives: ")).unwrap();
    lab.write(
        "suites/capacity-specs.yaml",
        &suite.replace(drives, "drives: [\"*\"]"),
    );
    for (parent, edits) in [
        (
            "intel-x25m-g2-80",
            [
                ("id: intel-x25m-g2-80", "id: intel-x25v-40"),
                ("capacity: 80GB", "capacity: 40GB"),
                ("  channels: 10\n", "  channels: 5\n"),
                ("raw_capacity: 85.9GB", "raw_capacity: 42.95GB"),
            ],
        ),
        ("crucial-m4-256", M4_512_FROM_256),
    ] {
        lab.write(&format!("drives/{parent}.yaml"), &drive_file(parent));
        let id = edits[0].1.trim_start_matches("id: ");
        lab.write(&format!("drives/{id}.yaml"), &drive_edited(parent, &edits));
    }
    let r = run(&lab);
    for (derived, parent, test, key, published) in [
        (
            "intel-x25v-40",
            "intel-x25m-g2-80",
            "sequential-write-128k-qd32",
            "mb_per_s",
            0.5,
        ),
        (
            "crucial-m4-512",
            "crucial-m4-256",
            "sequential-write-128k-qd32",
            "mb_per_s",
            1.0,
        ),
        (
            "crucial-m4-512",
            "crucial-m4-256",
            "sequential-read-128k-qd32",
            "mb_per_s",
            1.0,
        ),
        (
            "crucial-m4-512",
            "crucial-m4-256",
            "random-read-4k-qd32",
            "iops",
            1.0,
        ),
    ] {
        let share = figure(&r, derived, test, "base", key) / figure(&r, parent, test, "base", key);
        assert!(
            (share - published).abs() <= 0.15,
            "{derived} / {parent} {test}: {share:.3}, published {published}"
        );
    }
}

#[test]
fn the_m4s_part_with_queue_depth_as_toms_hardware_measured() {
    // Tom's Hardware's mSATA m4s (the same controller and 25 nm NAND, 64 to 256 GB; its
    // mSATA review, p4), 4 KiB random over a 16 GB span: writes "similar" at QD1, the 128
    // and 256 GB "stand apart from the 64 GB" at QD2, the 256 GB "atop" from QD4; reads
    // alike at every depth. No parameter was set from these: the shipped files, predicted.
    // The host's own time a request (`host_latency`) is the era's, fitted on the one QD1
    // figure of an m4 here: a CrystalDiskMark 4.0.3 run on a 256 GB m4
    // (pastebin.com/sbgUA4B6) wrote 4 KiB at QD1 at 14.4K IOPS, 69 µs a write, where the
    // model's 256 GB takes 29 µs (docs/simulated-drives.md, "Writes in stripes").
    let suite = r#"name: t
title: t
seed: 1
tests:
  - id: rw
    title: rw
    operation: write
    pattern: random
    block_size: 4KiB
    span: 16GB
    queue_depth: 1
    duration: 3s
    warmup: 500ms
    metric: iops
    host_latency: 40us
    variants:
      queue_depth: [1, 2, 4, 8, 32]
  - id: rr
    title: rr
    operation: read
    pattern: random
    block_size: 4KiB
    span: 16GB
    queue_depth: 1
    duration: 1s
    warmup: 200ms
    precondition: {fill: 1}
    metric: iops
    host_latency: 40us
    variants:
      queue_depth: [1, 2, 4, 32]
  - id: rw-long
    title: rw-long
    operation: write
    pattern: random
    block_size: 4KiB
    span: 16GB
    queue_depth: 1
    duration: 20s
    warmup: 5s
    metric: iops
    host_latency: 40us
"#;
    let lab = lab(
        &["crucial-m4-64", "crucial-m4-128", "crucial-m4-256"],
        suite,
    );
    // The 512 GB, derived, for Tom's comparison of the 2.5" m4s below.
    lab.write(
        "drives/crucial-m4-512.yaml",
        &drive_edited("crucial-m4-256", &M4_512_FROM_256),
    );
    let r = run(&lab);
    let iops = |d: &str, t: &str, qd: u32| {
        figure(
            &r,
            &format!("crucial-m4-{d}"),
            t,
            &format!("qd-{qd}"),
            "iops",
        )
    };
    let line = |t: &str, qd: u32| {
        format!(
            "{t} QD{qd}: 64 / 128 / 256 / 512 GB {:.1}K / {:.1}K / {:.1}K / {:.1}K IOPS\n",
            iops("64", t, qd) / 1e3,
            iops("128", t, qd) / 1e3,
            iops("256", t, qd) / 1e3,
            iops("512", t, qd) / 1e3
        )
    };
    let table: String = [1, 2, 4, 8, 32]
        .map(|qd| line("rw", qd))
        .into_iter()
        .chain([1, 2, 4, 32].map(|qd| line("rr", qd)))
        .collect();
    println!("{table}");
    let ratio = |a: &str, b: &str, t: &str, qd: u32| iops(a, t, qd) / iops(b, t, qd);
    assert!(ratio("64", "256", "rw", 1) > 0.85, "alike at QD1\n{table}");
    // Over 20 s after 5 s as well: the 64 GB's two stripes are programmed while the host
    // fills the next (before `write_stripes` and `host_latency`, its eight dies bound it
    // there at 0.79, a reported miss).
    let long = |d: &str| figure(&r, &format!("crucial-m4-{d}"), "rw-long", "base", "iops");
    let share = long("64") / long("256");
    println!("rw QD1 over 20 s: 64 GB {share:.3} of the 256 GB's");
    assert!(share > 0.85, "QD1 over 20 s: {share:.3}");
    assert!(
        (ratio("128", "256", "rw", 2) - 1.0).abs() < 0.05,
        "128 and 256 GB together at QD2\n{table}"
    );
    // Apart: a tenth or more below (the review gives words, not figures; 0.86 since the
    // host's time, 0.51 before it).
    assert!(
        ratio("64", "128", "rw", 2) < 0.9,
        "the 64 GB apart at QD2\n{table}"
    );
    for qd in [4, 8, 32] {
        assert!(
            ratio("128", "64", "rw", qd) > 1.0,
            "the 64 GB last at QD{qd}\n{table}"
        );
    }
    for qd in [8, 32] {
        assert!(
            ratio("256", "128", "rw", qd) > 1.0,
            "the 256 GB atop at QD{qd}\n{table}"
        );
    }
    // At QD4 the host's time binds both larger drives (four requests in 80 µs): they tie,
    // the 256 GB 0.4% below the 128 GB, where the review has it atop (a reported miss,
    // held where it stands: docs/simulated-drives.md, "Writes in stripes").
    let qd4 = ratio("256", "128", "rw", 4);
    assert!(
        (0.99..1.0).contains(&qd4),
        "QD4: 256 / 128 GB {qd4:.3}\n{table}"
    );
    // Tom's comparison of the 2.5" m4s (shared/reference/capacity-families.md), run right
    // after a trace had written the drives, has the 512 GB 85% above the 64 and 128 GB at
    // QD1, in random reads by its next page. The model's new drives read alike (below) and
    // write alike at QD1; its 512 GB writes with the 128 GB up to QD4 and with the 256 GB
    // beyond (a reported miss, held where it stands: docs/simulated-drives.md, "Writes in
    // stripes").
    for qd in [1, 2, 4, 8, 32] {
        let (over_64, over_128) = (ratio("512", "64", "rw", qd), ratio("512", "128", "rw", qd));
        assert!(
            over_64 >= 0.99 && (0.99..1.5).contains(&over_128),
            "QD{qd}: 512 GB {over_64:.2} of the 64 GB's, {over_128:.2} of the 128 GB's\n{table}"
        );
    }
    for qd in [1, 2, 4, 32] {
        for d in ["64", "128", "512"] {
            let share = ratio(d, "256", "rr", qd);
            assert!(
                (share - 1.0).abs() < 0.1,
                "reads alike at QD{qd}: {d} GB {share:.3} of the 256 GB's\n{table}"
            );
        }
    }
}

#[test]
fn anandtechs_first_x25m_review_at_qd1_is_reported_as_missed() {
    // AnandTech 2614 (September 2008, p8), 4 KiB random writes at QD1: the X25-M G1 80 GB,
    // new, 11,171 IOPS; the OCZ Core (one JMF602) 4.06 IOPS, 244 ms on average, 991 ms at the
    // longest. The lab's G1 file new (its history, `aged` and `full` taken out) and its Core
    // 64 GB, used, over the whole drive: both predicted, both misses that the docs report
    // ("Not reproduced yet", "Model against the reviews"): the X25-M's controller time is
    // bit-tech's, and so is the JMF602's merge time, where AnandTech's drives were slower.
    let g1 = drive_edited(
        "intel-x25m-g1-80-used",
        &[
            ("id: intel-x25m-g1-80-used\n", "id: intel-x25m-g1-80-new\n"),
            ("  aged: true\n", ""),
            ("  full: 0.985\n", ""),
            (
                "  history: {writes: 5GB, block_size: 4KiB, span: 4GiB, seed: 2009}\n",
                "",
            ),
        ],
    );
    let qd1 = |seconds: u32| {
        format!("name: t\ntitle: t\nseed: 1\ntests:\n  - {{id: w, title: w, operation: write, pattern: random, block_size: 4KiB, span: full, queue_depth: 1, duration: {seconds}s, metric: iops}}\n")
    };
    let x25m = TestLab::new();
    x25m.write("drives/intel-x25m-g1-80-new.yaml", &g1);
    x25m.write("suites/t.yaml", &qd1(20));
    let g1_iops = figure(&run(&x25m), "intel-x25m-g1-80-new", "w", "base", "iops");
    let r = run(&lab(&["ocz-core-64"], &qd1(120)));
    let core_iops = figure(&r, "ocz-core-64", "w", "base", "iops");
    let core_max_ms = figure(&r, "ocz-core-64", "w", "base", "lat_max_us") / 1e3;
    eprintln!("G1 new {g1_iops:.0} IOPS; Core used {core_iops:.2} IOPS, {core_max_ms:.0} ms");
    // The G1 writes about half as fast as AnandTech measured (5,529 IOPS on 2026-12-05).
    assert!((0.4..0.6).contains(&(g1_iops / 11_171.0)), "{g1_iops}");
    // The Core about twice as fast (7.91), its longest wait a fifth short (779 ms).
    assert!((1.7..2.2).contains(&(core_iops / 4.06)), "{core_iops}");
    assert!(
        (0.7..0.85).contains(&(core_max_ms / 991.0)),
        "{core_max_ms}"
    );
}

#[test]
fn a_reviews_host_adds_its_time_to_each_request_not_to_a_deep_queues_rate() {
    // `host_latency`: each request reaches a simulated drive that long after it is issued.
    // At QD1 an idle SSD's reads take that much longer, and so do a disk's (its head then
    // finds the platter elsewhere: a rotation's spread around it); at QD32 the host's time
    // overlaps the drive's, which binds as before (its controller's time per read).
    let test = |id: &str, qd: u32, host: &str| {
        format!(
            "  - {{id: {id}, title: t, operation: read, pattern: random, block_size: 4KiB, \
             span: 1GiB, queue_depth: {qd}, duration: 2s, metric: iops, \
             precondition: {{fill: 1}}{host}}}\n"
        )
    };
    let suite = format!(
        "name: t\ntitle: t\nseed: 1\ntests:\n{}{}{}{}{}{}",
        test("qd1", 1, ""),
        test("qd1-host", 1, ", host_latency: 50us"),
        test("qd32", 32, ""),
        test("qd32-host", 32, ", host_latency: 50us"),
        test("disk", 1, ""),
        test("disk-host", 1, ", host_latency: 20ms"),
    );
    let lab = lab(&["crucial-m4-256", "samsung-spinpoint-f1-1tb"], &suite);
    let r = run(&lab);
    let f = |d: &str, t: &str, k: &str| figure(&r, d, t, "base", k);
    let ssd = "crucial-m4-256";
    let added = f(ssd, "qd1-host", "lat_mean_us") - f(ssd, "qd1", "lat_mean_us");
    println!(
        "QD1 +{added:.1} µs; QD32 {:.0} → {:.0} IOPS; the disk {:.0} → {:.0} µs",
        f(ssd, "qd32", "iops"),
        f(ssd, "qd32-host", "iops"),
        f("samsung-spinpoint-f1-1tb", "disk", "lat_mean_us"),
        f("samsung-spinpoint-f1-1tb", "disk-host", "lat_mean_us")
    );
    assert!((47.0..53.0).contains(&added), "QD1: {added:.1} µs added");
    let deep = f(ssd, "qd32-host", "iops") / f(ssd, "qd32", "iops");
    assert!((0.97..=1.0).contains(&deep), "QD32: {deep:.3} of the rate");
    let disk = "samsung-spinpoint-f1-1tb";
    let added = f(disk, "disk-host", "lat_mean_us") - f(disk, "disk", "lat_mean_us");
    assert!(
        (12e3..28e3).contains(&added),
        "the disk at QD1: {added:.0} µs added"
    );
    // The chart's subtitle says so; the plan hash holds it (a rerun without it is new).
    let manifest = lab
        .stored_manifests()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("test=qd1-host"))
        .unwrap();
    let text = std::fs::read_to_string(lab.path().join("results").join(manifest)).unwrap();
    assert!(
        text.contains("a simulated host's 50 µs a request"),
        "{text}"
    );
}

#[test]
fn a_write_aligned_below_its_page_goes_into_the_buffer_as_an_aligned_one_does() {
    // The m4 64 GB (8 KiB pages, three stripes in its buffer) writes 1 MiB at random at
    // QD1 aligned to 4 KiB as fast as aligned to 1 MiB (3% allowed: each variant draws its
    // own offsets): a write that covers every 4 KiB unit it touches whole has nothing to
    // merge. While the model counted it as merged, it went into the buffer whole, after all
    // its data had crossed the link, and wrote 95 MB/s against 100 (docs/simulated-drives.md,
    // "Writes in stripes").
    let r = run(&lab(
        &["crucial-m4-64"],
        "name: t\ntitle: t\nseed: 1\ntests:
  - {id: w, title: w, operation: write, pattern: random, block_size: 1MiB, span: 8GiB, queue_depth: 1, duration: 3s, samples: histogram, metric: mb_per_s, variants: {align: [4KiB, 1MiB]}}
",
    ));
    let mb = |v: &str| figure(&r, "crucial-m4-64", "w", v, "mb_per_s");
    let (below, aligned) = (mb("align-4k"), mb("align-1m"));
    println!("1 MiB at QD1: aligned to 4 KiB {below:.1} MB/s, to 1 MiB {aligned:.1}");
    assert!(
        below >= 0.97 * aligned,
        "{below:.1} against {aligned:.1} MB/s"
    );
}
