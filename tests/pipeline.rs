//! The spine end to end: a tiny suite on a simulated drive and on a real file (O_DIRECT),
//! samples read back through polars (and pyarrow/DuckDB where installed), `summary --json`,
//! and the rendered site with every drive's bar.

mod common;

use std::fs;

use common::{files, read_parquet, stderr, stdout, TestLab, TINY_SUITE};
use polars::prelude::*;

/// The manifest of `test`'s base variant, first repeat, on `drive` under `firmware`.
fn first_manifest(
    lab: &TestLab,
    drive: &str,
    firmware: &str,
    suite: &str,
    test: &str,
) -> serde_json::Value {
    let path = lab.path().join(format!(
        "results/drive={drive}/firmware={firmware}/suite={suite}/test={test}/variant=base/repeat=1/manifest.json"
    ));
    serde_json::from_slice(&fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"))).unwrap()
}

#[test]
fn tiny_suite_on_a_file_and_a_simulated_drive() {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.sim_drive("sim-a", "Alpha <b>bold</b>", "A1", 8);
    let target = lab.file_drive("scratch", "32MiB");

    let out = lab.roundup(&["check"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = lab.roundup(&["run", "--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("plan: 6 jobs on 2 drives"),
        "{}",
        stdout(&out)
    );
    assert!(
        !lab.path().join("results").exists(),
        "--dry-run stops before running"
    );

    let out = lab.roundup(&["run"]);
    assert!(
        out.status.success(),
        "run failed: {}\n{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("6 jobs completed"),
        "{}",
        stdout(&out)
    );
    // The file target was created and filled (no holes) and marked as roundup's.
    assert_eq!(fs::metadata(&target).unwrap().len(), 32 << 20);
    assert!(lab.path().join("scratch.img.roundup").exists());

    // Hive-style layout, complete files only.
    let results = files(&lab.path().join("results"));
    assert!(
        results
            .iter()
            .all(|p| !p.to_string_lossy().contains(".tmp-")),
        "{results:?}"
    );
    let sample_files: Vec<_> = results
        .iter()
        .filter(|p| p.ends_with("samples.parquet"))
        .collect();
    assert_eq!(sample_files.len(), 6);
    let one = lab.path().join("results/drive=scratch/firmware=unknown/suite=tiny/test=random-write-4k/variant=data-compressible/repeat=1");
    assert!(one.join("samples.parquet").is_file(), "{results:?}");
    assert!(one.join("manifest.json").is_file());

    // Read back through polars: row count and columns.
    let df = read_parquet(&one.join("samples.parquet"));
    assert_eq!(df.height(), 2000);
    let names: Vec<String> = df
        .get_column_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(
        names,
        [
            "job",
            "thread",
            "seq",
            "op",
            "offset",
            "len",
            "submit_ns",
            "latency_ns",
            "qd"
        ]
    );
    let qd = df.column("qd").unwrap().u32().unwrap().max().unwrap();
    assert_eq!(qd, 4, "the engine keeps the queue depth in flight");
    let offsets = df.column("offset").unwrap().u64().unwrap();
    assert!(offsets
        .into_no_null_iter()
        .all(|o| o % 4096 == 0 && o < 16 << 20));
    assert!(
        df.column("latency_ns")
            .unwrap()
            .u64()
            .unwrap()
            .min()
            .unwrap()
            > 0
    );

    // The manifest records provenance.
    let m: serde_json::Value =
        serde_json::from_slice(&fs::read(one.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["samples_rows"], 2000);
    // Every row a write (a random write test): counted, so the analysis skips `op`.
    let writes = df
        .column("op")
        .unwrap()
        .as_materialized_series()
        .equal("write")
        .unwrap()
        .sum()
        .unwrap_or(0);
    assert_eq!(writes, 2000);
    assert_eq!(m["samples_writes"], 2000);
    assert_eq!(m["target"]["kind"], "file");
    assert_eq!(m["engine_requested"], "auto");
    assert!(
        m["engine"] == "io_uring" || m["engine"] == "psync",
        "{}",
        m["engine"]
    );
    assert_eq!(m["clock"], "monotonic");
    assert_eq!(m["suite_file"]["path"], "suites/tiny.yaml");
    assert_eq!(m["suite_file"]["sha256"].as_str().unwrap().len(), 64);
    for key in [
        "roundup_version",
        "git_revision",
        "started_at",
        "finished_at",
        "seed",
        "host",
    ] {
        assert!(!m[key].is_null(), "manifest lacks {key}");
    }

    // Simulated drive: virtual clock; sequential reads are sequential.
    let sim = lab.path().join("results/drive=sim-a/firmware=A1/suite=tiny/test=sequential-read-128k/variant=base/repeat=1");
    let df = read_parquet(&sim.join("samples.parquet"));
    assert_eq!(df.height(), 200);
    let offs: Vec<u64> = df
        .column("offset")
        .unwrap()
        .u64()
        .unwrap()
        .into_no_null_iter()
        .collect();
    assert!(offs.windows(2).all(|w| w[1] == w[0] + 131072 || w[1] == 0));

    // summary --json has the documented keys.
    let out = lab.roundup(&["summary", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 6);
    let keys: Vec<&String> = rows[0].as_object().unwrap().keys().collect();
    let mut want = [
        "by_op",
        "drive",
        "firmware",
        "suite",
        "test",
        "variant",
        "repeat",
        "ios",
        "iops",
        "mb_per_s",
        "lat_mean_us",
        "lat_p50_us",
        "lat_p99_us",
        "lat_p999_us",
        "lat_p9999_us",
        "lat_p999999_us",
        "lat_max_us",
        "duration_s",
        "window_s",
    ];
    want.sort();
    assert_eq!(keys, want.iter().collect::<Vec<_>>());
    for r in &rows {
        assert!(r["iops"].as_f64().unwrap() > 0.0, "{r}");
        // 2000 I/Os or fewer a job: too few for the 99.99th percentile, which is then null.
        assert!(
            r["lat_p9999_us"].is_null() && r["lat_p999999_us"].is_null(),
            "{r}"
        );
        assert!(r["lat_p50_us"].as_f64().unwrap() <= r["lat_p99_us"].as_f64().unwrap());
        assert!(r["lat_p99_us"].as_f64().unwrap() <= r["lat_max_us"].as_f64().unwrap());
    }
    let out = lab.roundup(&["summary"]);
    assert!(stdout(&out).contains("p99.9"), "{}", stdout(&out));
    // CSV for a spreadsheet: the JSON's figures at full precision, in the same order.
    let csv = stdout(&lab.roundup(&["summary", "--csv"]));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), rows.len() + 1, "{csv}");
    assert!(lines[0].starts_with("drive,firmware,suite,test,variant,repeat,iops,"));
    // (Within an ulp or so: serde_json's default float parsing is not always correctly
    // rounded, so the JSON side can be a last bit off the figure it printed.)
    let same = |csv: &str, json: &serde_json::Value| {
        let (a, b) = (csv.parse::<f64>().unwrap(), json.as_f64().unwrap());
        assert!((a - b).abs() <= 1e-12 * b.abs(), "CSV {a} against JSON {b}");
    };
    for (line, r) in lines[1..].iter().zip(&rows) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[0], r["drive"].as_str().unwrap());
        same(cells[6], &r["iops"]);
        same(cells[10], &r["lat_p99_us"]);
    }
    // Markdown to paste into a review: a header, a rule (figures right-aligned), a row each.
    let md = stdout(&lab.roundup(&["summary", "--markdown"]));
    let lines: Vec<&str> = md.lines().collect();
    assert_eq!(lines.len(), rows.len() + 2, "{md}");
    assert!(lines[0].starts_with("| drive | firmware | suite |"), "{md}");
    assert!(lines[1].starts_with("|---|---|---|---|---|---:|"), "{md}");
    assert!(lines[2..]
        .iter()
        .all(|l| l.starts_with("| ") && l.ends_with(" |")));
    // A selection that matches nothing says so, rather than that there are no results.
    let out = lab.roundup(&["summary", "--drive", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("none of the 6 stored jobs matches the selection"),
        "{}",
        stderr(&out)
    );

    // The site: a page per suite, a bar per drive in each chart.
    let out = lab.roundup(&["render"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = fs::read_to_string(lab.path().join("site/suites/tiny.html")).unwrap();
    let index = fs::read_to_string(lab.path().join("site/index.html")).unwrap();
    assert!(index.contains("suites/tiny.html"));
    // The latest runs on real drives: the file drive's with the day it ran; none of the
    // simulated drive's, whose results do not depend on when it ran.
    let runs = &index[index.find("Latest runs").unwrap()..];
    let runs: Vec<&str> = runs[..runs.find("</table>").unwrap()]
        .split("<tr><td>")
        .skip(1)
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert!(runs[0].contains("Scratch file") && runs[0].contains("<time datetime=\"20"));
    let (cdfs, sections): (Vec<&str>, Vec<&str>) = page
        .split("<section class=\"test\"")
        .skip(1)
        .partition(|s| s.starts_with(" id=\"") && s[5..s.find("\">").unwrap()].ends_with(".cdf"));
    assert_eq!(
        sections.len(),
        4,
        "one chart per test variant, and the compressible/incompressible pair"
    );
    assert_eq!(cdfs.len(), 3, "a latency CDF per test variant");
    for s in &cdfs {
        assert!(s.contains("latency (log scale)") && s.contains("lower latency is better"));
        // The PNG is drawn by the reader's browser (`render --png` exports it as a file).
        assert!(s.contains(".cdf.png\">PNG, 1200 px</button>") && s.contains(".cdf.csv\">CSV</a>"));
    }
    for s in &sections {
        let svg = &s[s.find("<svg").unwrap()..s.find("</svg>").unwrap()];
        assert!(
            svg.contains("Test Scratch file 33.6 MB"),
            "file drive's bar label"
        );
        assert!(
            svg.contains("Acme Alpha &lt;b&gt;bold&lt;/b&gt; 16 GB"),
            "sim drive's bar label, escaped"
        );
        // Two drives' bars; a pair chart adds its legend swatch and the second bars.
        let pair = svg.contains("compressible vs incompressible");
        assert_eq!(
            svg.matches("fill=\"#0072B2\"").count(),
            if pair { 3 } else { 2 },
            "two bars"
        );
        assert_eq!(
            svg.matches("fill=\"#D55E00\"").count(),
            if pair { 3 } else { 0 }
        );
        assert!(svg.contains("higher is better") && svg.contains("MB/s"));
    }
    assert!(
        !page.contains("<b>bold</b>"),
        "drive names are escaped on the page"
    );
    assert!(lab
        .path()
        .join("site/static/fonts/DejaVuSans.ttf")
        .is_file());
}

/// Whether python3 imports `modules` (a test that needs them says it is skipped if not).
fn python_has(modules: &str) -> bool {
    let probe = std::process::Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output();
    let has = probe.is_ok_and(|o| o.status.success());
    if !has {
        common::skip_without_tool(&format!("python3 with {modules} is not installed"));
    }
    has
}

/// Runs a Python script with the lab's path as its argument; its standard output, trimmed.
fn python(script: &str, lab: &TestLab) -> String {
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(lab.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out).trim().to_string()
}

#[test]
fn parquet_reads_in_pyarrow_and_duckdb_with_the_same_figures() {
    if !python_has("pyarrow, duckdb") {
        return;
    }
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    // A real file too: its latencies vary from I/O to I/O, so its percentiles mean something.
    lab.file_drive("file-a", "64MiB");
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = lab.roundup(&["summary", "--json"]);
    assert!(summary.status.success(), "{}", stderr(&summary));
    lab.write("summary.json", &stdout(&summary));
    // DuckDB's own figures of each job's samples (percentiles interpolated between ranks,
    // `quantile_cont`) against roundup's summary.
    let script = r#"
import sys, glob, json, pyarrow.parquet as pq, duckdb
lab = sys.argv[1]
files = sorted(glob.glob(lab + '/results/**/samples.parquet', recursive=True))
rows = sum(pq.read_table(f).num_rows for f in files)
t = pq.read_table(files[0])
assert t.column_names == ['job','thread','seq','op','offset','len','submit_ns','latency_ns','qd'], t.column_names
con = duckdb.connect()
n, drives = con.execute("select count(*), count(distinct drive) from read_parquet(?, hive_partitioning=true)", [lab + '/results/**/samples.parquet']).fetchone()
compared = 0
for r in json.load(open(lab + '/summary.json')):
    compared += 1
    job = f"{r['drive']}/{r['suite']}/{r['test']}/{r['variant']}/r{r['repeat']}"
    got = con.execute("select count(*), avg(latency_ns), quantile_cont(latency_ns, 0.5), quantile_cont(latency_ns, 0.99), quantile_cont(latency_ns, 0.999), max(latency_ns), sum(len) from read_parquet(?) where job = ?", [lab + '/results/**/samples.parquet', job]).fetchone()
    ours = (r['ios'], r['lat_mean_us'], r['lat_p50_us'], r['lat_p99_us'], r['lat_p999_us'], r['lat_max_us'], r['mb_per_s'] * 1e6 * r['duration_s'])
    theirs = (got[0],) + tuple(x / 1e3 for x in got[1:6]) + (got[6],)
    for name, a, b in zip(['ios', 'mean', 'p50', 'p99', 'p99.9', 'max', 'bytes'], ours, theirs):
        assert abs(a - b) <= 1e-9 * abs(b), (job, name, a, b)
print(len(files), rows, n, drives, compared)
"#;
    assert_eq!(python(script, &lab), "6 8400 8400 2 6");
}

#[test]
fn simulated_results_and_site_are_byte_identical() {
    // The two labs run and render with different numbers of threads (rayon's for the
    // drives, polars' for encoding and analysis): no partition of the work may reach a
    // result or a page.
    let threads = |n: &'static str| [("RAYON_NUM_THREADS", n), ("POLARS_MAX_THREADS", n)];
    let make = |n| {
        let lab = TestLab::new();
        lab.write("suites/tiny.yaml", TINY_SUITE);
        lab.sim_drive("sim-a", "Alpha", "A1", 8);
        lab.sim_drive("sim-b", "Beta", "B2", 2);
        lab.write(
            "commentary/suites/tiny.md",
            "Intro.\n\n## random-write-4k.data-compressible\nAlpha leads.\n",
        );
        let out = lab.roundup_env(&threads(n), &["run"]);
        assert!(out.status.success(), "{}", stderr(&out));
        lab
    };
    let (a, b) = (make("7"), make("1"));
    // Samples and manifests alike, byte for byte: no clock or machine is recorded.
    let fa = files(&a.path().join("results"));
    assert_eq!(fa, files(&b.path().join("results")));
    assert!(fa.iter().any(|f| f.ends_with("manifest.json")));
    for f in &fa {
        assert!(
            fs::read(a.path().join("results").join(f)).unwrap()
                == fs::read(b.path().join("results").join(f)).unwrap(),
            "{f:?} differs"
        );
    }
    for f in fa.iter().filter(|f| f.ends_with("manifest.json")) {
        let m: serde_json::Value =
            serde_json::from_slice(&fs::read(a.path().join("results").join(f)).unwrap()).unwrap();
        for key in ["started_at", "finished_at", "host"] {
            assert!(m[key].is_null(), "{f:?} records {key}");
        }
    }
    // The second lab's manifests are made to say that its jobs ran on another day and
    // machine, as manifests of format 1 did: the site stays the same.
    for f in fa.iter().filter(|f| f.ends_with("manifest.json")) {
        let p = b.path().join("results").join(f);
        let mut m: serde_json::Value = serde_json::from_slice(&fs::read(&p).unwrap()).unwrap();
        m["format"] = 1.into();
        m["started_at"] = "2009-04-01T10:00:00Z".into();
        m["finished_at"] = "2009-04-01T10:00:01Z".into();
        m["host"] = serde_json::json!({"kernel": "Linux 2.6.30", "cpu": "Core i7 920", "cpus": 8});
        fs::write(&p, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    }
    for (lab, n) in [(&a, "7"), (&b, "1")] {
        // With the PNG exports: they are byte-identical too.
        let out = lab.roundup_env(&threads(n), &["render", "--png"]);
        assert!(out.status.success(), "{}", stderr(&out));
        // The pages are listed and the charts counted.
        let said = stdout(&out);
        assert!(
            said.contains("wrote site/suites/tiny.html")
                && !said.contains("wrote site/charts/")
                && said.contains(" drawn, 0 removed in site/charts/"),
            "{said}"
        );
    }
    let sa = files(&a.path().join("site"));
    assert_eq!(sa, files(&b.path().join("site")));
    // Byte for byte, whenever the runs ran: no day reaches the site of simulated drives.
    for f in &sa {
        assert!(
            fs::read(a.path().join("site").join(f)).unwrap()
                == fs::read(b.path().join("site").join(f)).unwrap(),
            "{f:?} differs"
        );
    }
    assert!(sa.iter().any(|f| f.extension().is_some_and(|e| e == "png")));
    // A second render writes nothing.
    let out = a.roundup(&["render", "--png"]);
    assert!(
        stdout(&out).contains("render: 0 files written"),
        "{}",
        stdout(&out)
    );
    let page = fs::read_to_string(a.path().join("site/suites/tiny.html")).unwrap();
    assert!(page.contains("<p>Alpha leads.</p>"));
    // The site is what the results give, not what was rendered before: with one drive's
    // results gone, a render over the old site equals one into an empty folder.
    for lab in [&a, &b] {
        fs::remove_dir_all(lab.path().join("results/drive=sim-b")).unwrap();
    }
    // A file of the reviewer's own (for the web host) stays; what a killed render left
    // goes (pid_max is at most 2^22: that process is gone).
    fs::write(a.path().join("site/CNAME"), "reviews.example\n").unwrap();
    let left = a.path().join("site/suites/.tiny.html.tmp-4194305");
    fs::write(&left, "<html>half a page").unwrap();
    fs::remove_dir_all(b.path().join("site")).unwrap();
    let out = a.roundup(&["render"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("removed site/drives/sim-b.html (no longer rendered)"),
        "{}",
        stdout(&out)
    );
    let out = b.roundup(&["render"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        a.path().join("site/CNAME").is_file(),
        "the reviewer's file stays"
    );
    assert!(
        !left.exists(),
        "a killed render's temporary file is removed"
    );
    fs::remove_file(a.path().join("site/CNAME")).unwrap();
    let sa = files(&a.path().join("site"));
    assert_eq!(sa, files(&b.path().join("site")));
    assert!(!sa.iter().any(|f| f.to_string_lossy().contains("sim-b")));
    for f in &sa {
        assert!(
            fs::read(a.path().join("site").join(f)).unwrap()
                == fs::read(b.path().join("site").join(f)).unwrap(),
            "{f:?} differs"
        );
    }
    // Nor the folder of its charts.
    assert!(!a.path().join("site/charts/drives/sim-b").exists());
}

#[test]
fn file_target_with_each_engine_and_threads() {
    let lab = TestLab::new();
    let suite = TINY_SUITE.replace(
        "    queue_depth: 4\n    count: 2000\n",
        "    queue_depth: 4\n    threads: 2\n    count: 2000\n",
    );
    lab.write("suites/tiny.yaml", &suite);
    lab.file_drive("scratch", "32MiB");
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    for engine in ["io_uring", "psync"] {
        let out = lab.roundup(&["run", "--engine", engine, "--test", "random-write-4k"]);
        assert!(out.status.success(), "{engine}: {}", stderr(&out));
        let dir = lab.path().join("results/drive=scratch/firmware=unknown/suite=tiny/test=random-write-4k/variant=data-incompressible/repeat=1");
        let m: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(m["engine"], engine);
        assert_eq!(m["engine_requested"], engine);
        let df = read_parquet(&dir.join("samples.parquet"));
        // Two threads, each keeping QD4 and each running the count.
        assert_eq!(df.height(), 4000);
        let threads: Vec<u32> = df
            .column("thread")
            .unwrap()
            .u32()
            .unwrap()
            .unique()
            .unwrap()
            .sort(false)
            .into_no_null_iter()
            .collect();
        assert_eq!(threads, [0, 1]);
        assert_eq!(df.column("qd").unwrap().u32().unwrap().max(), Some(4));
        // The simulated drive runs threads × depth in its one queue.
        let sim = lab.path().join("results/drive=sim-a/firmware=A1/suite=tiny/test=random-write-4k/variant=data-incompressible/repeat=1/samples.parquet");
        let df = read_parquet(&sim);
        assert_eq!(df.column("qd").unwrap().u32().unwrap().max(), Some(8));
        assert_eq!(df.height(), 2000);
    }
    // --resume keeps a real drive's results only if they came from the engine asked for
    // now (a simulated drive has no engine: its results are kept either way).
    let resume = |engine: &str| {
        let out = lab.roundup(&[
            "run",
            "--resume",
            "--engine",
            engine,
            "--test",
            "random-write-4k",
        ]);
        assert!(out.status.success(), "{engine}: {}", stderr(&out));
        stdout(&out)
    };
    let out = resume("psync");
    assert!(
        out.contains("plan: nothing to run, 4 kept from earlier runs")
            && out.contains("0 jobs completed, 4 kept"),
        "{out}"
    );
    // The plan says so before it runs.
    let plan = stdout(&lab.roundup(&[
        "run",
        "--resume",
        "--dry-run",
        "--engine",
        "io_uring",
        "--test",
        "random-write-4k",
    ]));
    assert!(
        plan.contains("plan: 2 jobs on 1 drive, 2 kept from earlier runs"),
        "{plan}"
    );
    let out = resume("io_uring");
    assert!(out.contains("2 jobs completed, 2 kept"), "{out}");
}

#[test]
fn steady_state_rounds_are_recorded_and_the_window_is_reported() {
    let lab = TestLab::new();
    lab.write(
        "suites/ss.yaml",
        "name: ss\ntitle: Steady\ntests:\n  - {id: rw, title: RW, operation: write, pattern: random, block_size: 4KiB, span: 1GiB, queue_depth: 4, duration: 200ms, metric: iops, steady_state: {max_rounds: 12, window: 5}}\n",
    );
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let dir = lab
        .path()
        .join("results/drive=sim-a/firmware=A1/suite=ss/test=rw/variant=base/repeat=1");
    let m: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let v = &m["outcome"]["steady_state"];
    // A drive whose speed does not change is steady over the first five rounds.
    assert_eq!(v["reached"], true, "{v}");
    assert_eq!(v["round"], 5);
    assert_eq!(v["tracked"], "iops");
    assert_eq!(
        (v["window_start_ns"].as_u64(), v["window_end_ns"].as_u64()),
        (Some(0), Some(1_000_000_000))
    );
    let rounds = m["outcome"]["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 5);
    assert!(rounds.iter().all(|r| r["ios"].as_u64().unwrap() > 0));
    let out = lab.roundup(&["summary", "--json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let window_ios: u64 = rounds.iter().map(|r| r["ios"].as_u64().unwrap()).sum();
    let ios = rows[0]["ios"].as_u64().unwrap();
    assert!(
        ios.abs_diff(window_ios) <= 8,
        "summary over the window: {ios} vs {window_ios}"
    );
}

#[test]
fn precondition_purges_and_fills_the_span() {
    use std::os::unix::fs::MetadataExt;
    let lab = TestLab::new();
    lab.write(
        "suites/pc.yaml",
        "name: pc\ntitle: Precondition\ntests:\n  - {id: purged-read, title: R, operation: read, pattern: random, block_size: 4KiB, span: full, queue_depth: 4, count: 500, metric: iops, precondition: {purge: true}}\n  - {id: filled-read, title: R, operation: read, pattern: random, block_size: 4KiB, span: 8MiB, queue_depth: 4, count: 500, repeats: 2, metric: iops, precondition: {purge: true, fill: 2}}\n",
    );
    let target = lab.file_drive("scratch", "32MiB");
    let out = lab.roundup(&["run", "--test", "purged-read"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Punched out: the file keeps its size but holds (almost) no blocks.
    let meta = fs::metadata(&target).unwrap();
    assert_eq!(meta.len(), 32 << 20);
    assert!(
        meta.blocks() * 512 < 1 << 20,
        "{} bytes still allocated",
        meta.blocks() * 512
    );
    let out = lab.roundup(&["run", "--test", "filled-read"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let base = lab
        .path()
        .join("results/drive=scratch/firmware=unknown/suite=pc/test=filled-read/variant=base");
    let m: serde_json::Value =
        serde_json::from_slice(&fs::read(base.join("repeat=1/manifest.json")).unwrap()).unwrap();
    let p = &m["precondition"];
    assert_eq!(p["purged"], true);
    assert_eq!(p["fill_passes"], 2);
    assert_eq!(p["fill_bytes"], 2 * (8u64 << 20));
    // Only before the first repeat, so that repeats can show degradation.
    let m2: serde_json::Value =
        serde_json::from_slice(&fs::read(base.join("repeat=2/manifest.json")).unwrap()).unwrap();
    assert!(m2["precondition"].is_null());
    let meta = fs::metadata(&target).unwrap();
    assert!(
        meta.blocks() * 512 >= 8 << 20,
        "the filled span is allocated again"
    );

    // A span under a fill's 128 KiB request is filled in one request, by roundup's engine
    // and fio's alike (it was not written at all, and fio refused it: found by
    // benches/generated-runs.py).
    lab.write(
        "suites/small.yaml",
        "name: small\ntitle: Small\ntests:\n  - {id: small, title: S, operation: read, pattern: \
         random, block_size: 4KiB, span: 48KiB, queue_depth: 1, count: 10, metric: iops, \
         precondition: {purge: true, fill: 2}}\n",
    );
    for engine in ["io_uring", "fio"] {
        let out = lab.roundup(&["run", "--suite", "small", "--engine", engine]);
        assert!(out.status.success(), "{engine}: {}", stderr(&out));
        let m = first_manifest(&lab, "scratch", "unknown", "small", "small");
        assert_eq!(
            m["precondition"]["fill_bytes"],
            2 * 48 * 1024,
            "{engine}: {m}"
        );
        let head = fs::read(&target).unwrap();
        assert!(
            head[..48 << 10].iter().any(|&b| b != 0),
            "{engine}: not written"
        );
    }
}

#[test]
fn an_offered_load_paces_simulated_and_real_drives_alike() {
    let lab = TestLab::new();
    lab.write(
        "suites/r.yaml",
        "name: r\ntitle: Offered load\nseed: 1\ntests:\n  - {id: free, title: Free, operation: read, pattern: random, block_size: 4KiB, span: 16MiB, queue_depth: 4, duration: 500ms, metric: iops}\n  - {id: paced, title: Paced, operation: read, pattern: random, block_size: 4KiB, span: 16MiB, queue_depth: 16, duration: 1s, metric: iops, rate: 2000 IOPS}\n  - {id: paced-mb, title: Paced MB/s, operation: read, pattern: random, block_size: 16KiB, span: 16MiB, queue_depth: 16, threads: 2, duration: 1s, metric: mb_per_s, rate: 20MB/s}\n",
    );
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    lab.file_drive("scratch", "32MiB");
    let fio = std::process::Command::new("fio")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if fio {
        let target = lab.path().join("by-fio.img");
        lab.write(
            "drives/by-fio.yaml",
            &format!("id: by-fio\nvendor: T\nmodel: F\ncapacity: 32MiB\npath: {}\nsize: 32MiB\nengine: fio\n", target.display()),
        );
    }
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = lab.roundup(&["summary", "--json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
    let drives = if fio { 3 } else { 2 };
    // The job file roundup wrote for fio's drive.
    let fio_job = |test: &str| {
        fs::read_to_string(lab.path().join(format!(
            "results/drive=by-fio/firmware=unknown/suite=r/test={test}/variant=base/repeat=1/job.fio"
        )))
        .unwrap()
    };
    let mut seen = 0;
    for r in &rows {
        let (iops, mb) = (r["iops"].as_f64().unwrap(), r["mb_per_s"].as_f64().unwrap());
        match r["test"].as_str().unwrap() {
            // Free, each drive does far more than the load offered below.
            "free" => assert!(iops > 4000.0, "{r}"),
            "paced" if r["drive"] == "by-fio" => {
                // fio paces its own jobs: it is given the rate (the job file, which is
                // what roundup writes) and keeps to it within a few percent (3% allowed,
                // as for the MB/s rate below, where 1.4% over was seen). How far it falls
                // behind is the machine's and fio's (1911 and 1963 of 2000 seen in CI, 1470
                // beside a test filling a 4 TB simulated drive, 294 once beside this
                // binary's other tests), so no lower bound is asserted here.
                let job = fio_job("paced");
                assert!(job.contains("rate_iops=2000\n"), "{job}");
                assert!(iops < 2060.0 && iops > 0.0, "by-fio: {iops} IOPS");
                seen += 1;
            }
            "paced" if r["drive"] == "sim-a" => {
                // In virtual time the offered load is held to 1%.
                assert!((iops / 2000.0 - 1.0).abs() < 0.01, "sim-a: {iops} IOPS");
                seen += 1;
            }
            "paced" => {
                // A real drive's engine never runs above the rate; how close it keeps to
                // it is the machine's: 1,652 of 2,000 once with the engine's thread short
                // of CPU beside a test filling a 4 TB simulated drive, 1,841 at QD4
                // another time (its timing is not what this checks: half the rate is).
                assert!(
                    iops < 2020.0 && iops > 1000.0,
                    "{}: {iops} IOPS",
                    r["drive"]
                );
                seen += 1;
            }
            "paced-mb" if r["drive"] == "sim-a" => {
                assert!((mb / 20.0 - 1.0).abs() < 0.01, "sim-a: {mb} MB/s");
                seen += 1;
            }
            "paced-mb" if r["drive"] == "by-fio" => {
                // fio's own rate control, two jobs of 10 MB/s each over one second, runs
                // a little ahead of the rate at times (20.28 MB/s seen in CI once, from
                // the first submission to the last completion): 3% is allowed it.
                let job = fio_job("paced-mb");
                assert!(job.contains("rate=10000000\n"), "{job}");
                assert!(mb < 20.6 && mb > 0.0, "by-fio: {mb} MB/s");
                seen += 1;
            }
            "paced-mb" => {
                assert!(mb < 20.2 && mb > 10.0, "{}: {mb} MB/s", r["drive"]);
                seen += 1;
            }
            other => panic!("{other}"),
        }
    }
    assert_eq!(seen, 2 * drives);
    // The subtitle says the load; a replay cannot have one.
    let m = fs::read_to_string(lab.path().join(
        "results/drive=sim-a/firmware=A1/suite=r/test=paced/variant=base/repeat=1/manifest.json",
    ))
    .unwrap();
    assert!(m.contains("offered at 2000 IOPS"), "{m}");
    for (test, line, message) in [
        ("{id: t, title: T, kind: replay, trace: x.log, queue_depth: 1, span: full, metric: iops, rate: 100 IOPS}", "suites/bad.yaml:4:", "rate: expected only in a synthetic test"),
        ("{id: u, title: U, operation: read, pattern: random, block_size: 4KiB, span: 1MiB, queue_depth: 1, count: 10, metric: iops, rate: 0 IOPS}", "suites/bad.yaml:4:", "expected a rate above zero"),
    ] {
        lab.write(
            "suites/bad.yaml",
            &format!("name: bad\ntitle: Bad\ntests:\n  - {test}\n"),
        );
        let err = stderr(&lab.roundup(&["check"]));
        assert!(err.contains(line) && err.contains(message), "{err}");
    }
}

/// What a real target's engine cannot run is refused before any job of the run runs, the
/// key named: before, a test in bursts on fio, or `io_uring:` options on psync, failed at
/// its job, after the jobs before it and its own precondition had written to the drive
/// (found by benches/generated-runs.py on a block device named for destruction).
#[test]
fn what_an_engine_cannot_run_is_refused_before_any_job_runs() {
    let lab = TestLab::new();
    let target = lab.file_drive("scratch", "8MiB");
    let cases = [
        (
            "    engine: fio\n    burst: {size: 1MiB, duty_cycle: 20%}\n",
            "tests[1].burst: on drive scratch, a test in bursts",
        ),
        (
            "    engine: fio\n    steady_state: {max_rounds: 5, window: 5}\n",
            "tests[1].steady_state: on drive scratch, a steady-state test",
        ),
        (
            "    engine: psync\n    io_uring: {fixed_files: true}\n",
            "tests[1].io_uring: on drive scratch, io_uring: fixed_files asked of the psync engine",
        ),
    ];
    for (keys, says) in cases {
        lab.write(
            "suites/e.yaml",
            &format!(
                "name: e\ntitle: E\nseed: 1\ntests:\n  - {{id: first, title: First, operation: \
                 write, pattern: sequential, block_size: 1MiB, span: full, queue_depth: 1, \
                 passes: 1, metric: mb_per_s}}\n  - id: second\n    title: Second\n    \
                 operation: write\n    pattern: random\n    block_size: 4KiB\n    span: full\n    \
                 queue_depth: 1\n    duration: 0.2s\n    precondition: {{fill: 1}}\n    \
                 metric: iops\n{keys}"
            ),
        );
        let out = lab.roundup(&["run"]);
        let err = stderr(&out);
        assert!(!out.status.success(), "{keys}");
        assert!(
            err.contains("suites/e.yaml:") && err.contains(says),
            "{says} not in {err}"
        );
        assert!(
            !target.exists(),
            "the drive was written before the refusal: {keys}"
        );
        assert!(!lab.path().join("results").exists(), "{keys}");
    }
}

/// A timed replay that opens with a trim waits on io_uring for its first request, due
/// later: the ring, made to be enabled by the thread that first submits to it, was waited on
/// before any submit and answered EBADFD (found by benches/generated-runs.py).
#[test]
fn a_timed_replay_opening_with_a_trim_waits_for_its_first_request_on_io_uring() {
    let lab = TestLab::new();
    lab.file_drive("scratch", "8MiB");
    lab.write(
        "traces/late.log",
        "fio version 3 iolog\n0 /dev/sdb trim 0 65536\n20000 /dev/sdb write 0 4096\n\
         20100 /dev/sdb read 8192 4096\n",
    );
    lab.write(
        "suites/late.yaml",
        "name: late\ntitle: Late\nseed: 1\ntests:\n  - {id: late, title: Late, kind: replay, \
         trace: traces/late.log, mode: timed, queue_depth: 4, span: full, metric: iops}\n",
    );
    let out = lab.roundup(&["run", "--engine", "io_uring"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let m = first_manifest(&lab, "scratch", "unknown", "late", "late");
    assert_eq!(m["engine"], "io_uring");
    assert_eq!(m["outcome"]["ios"], 2, "{m}");
    assert_eq!(m["outcome"]["replay"]["trims"], 1, "{m}");
}

/// A paced test ends at its duration's end, not at the next request's time after it
/// (found by benches/generated-runs.py: 1 MB/s of 1 MiB reads shared by 16 threads, a
/// 0.1-s test, waited 16.8 s for each thread's second request).
#[test]
fn a_paced_test_ends_when_its_duration_does() {
    let lab = TestLab::new();
    lab.write(
        "suites/r.yaml",
        "name: r\ntitle: Slow pace\nseed: 1\ntests:\n  - {id: slow, title: Slow, operation: \
         read, pattern: random, block_size: 4KiB, span: 16MiB, queue_depth: 4, duration: \
         1100ms, metric: iops, rate: 2 IOPS}\n",
    );
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let m = first_manifest(&lab, "sim-a", "A1", "r", "slow");
    // Requests at 0, 0.5 and 1 s; the next, at 1.5 s, is after the end (1.1 s, virtual).
    assert_eq!(m["outcome"]["ios"], 3, "{m}");
    let end = m["outcome"]["end_ns"].as_u64().unwrap();
    assert!(
        (1_000_000_000..=1_100_000_000).contains(&end),
        "ended at {end} ns"
    );
}

/// A suite whose tests keep both rows and a histogram: a mixed workload and a write one.
const BOTH_SUITE: &str = "name: h\ntitle: Histogram\nseed: 3\ntests:\n  - {id: mixed, title: Mixed, operation: {read: 70, write: 30}, pattern: random, block_size: 4KiB, span: 16MiB, queue_depth: 4, count: 20000, metric: iops, samples: both}\n  - {id: write, title: Write, operation: write, pattern: random, block_size: 4KiB, span: 16MiB, queue_depth: 2, count: 5000, metric: lat_mean_us, samples: both}\n";

#[test]
fn a_histogram_gives_the_figures_the_rows_give() {
    use roundup::analysis::summarize_job;
    use roundup::store::{scan, Histogram};
    use roundup::workload::SampleKeep;
    let lab = TestLab::new();
    lab.write("suites/h.yaml", BOTH_SUITE);
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    // A real file: latencies that vary from I/O to I/O, and a clock that is not virtual.
    lab.file_drive("file-a", "32MiB");
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (jobs, problems) = scan(&lab.path().join("results"));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(jobs.len(), 4);
    for job in &jobs {
        let rows = summarize_job(job).unwrap();
        let mut only = job.clone();
        only.manifest.samples = SampleKeep::Histogram;
        let hist = summarize_job(&only).unwrap();
        let name = &job.manifest.job;
        // Counts, rates, means and extremes are exact.
        assert_eq!(
            (
                rows.ios,
                rows.iops,
                rows.mb_per_s,
                rows.lat_mean_us,
                rows.lat_max_us
            ),
            (
                hist.ios,
                hist.iops,
                hist.mb_per_s,
                hist.lat_mean_us,
                hist.lat_max_us
            ),
            "{name}"
        );
        assert_eq!(rows.duration_s, hist.duration_s, "{name}");
        assert_eq!(rows.by_op.len(), hist.by_op.len(), "{name}");
        // Percentiles within a bucket: 1/512 of the value, or a nanosecond.
        let close = |a: f64, b: f64, what: &str| {
            assert!(
                (a - b).abs() <= a / 512.0 + 1e-3,
                "{name}: {what}: rows {a} µs, histogram {b} µs"
            )
        };
        close(rows.lat_p50_us, hist.lat_p50_us, "p50");
        close(rows.lat_p99_us, hist.lat_p99_us, "p99");
        close(rows.lat_p999_us, hist.lat_p999_us, "p99.9");
        // The 99.99th where the job has 10,000 I/Os (the mixed one's 20,000), never the
        // 99.9999th (a million).
        assert_eq!(rows.lat_p9999_us.is_some(), rows.ios >= 10_000, "{name}");
        if let (Some(a), Some(b)) = (rows.lat_p9999_us, hist.lat_p9999_us) {
            close(a, b, "p99.99");
            assert!(a >= rows.lat_p999_us && a <= rows.lat_max_us, "{name}");
        }
        assert!(rows.lat_p999999_us.is_none() && hist.lat_p999999_us.is_none());
        for (k, (a, b)) in rows.cdf.iter().zip(&hist.cdf).enumerate() {
            close(*a, *b, &format!("cdf[{k}]"));
        }
        assert_eq!(
            rows.cdf[0], hist.cdf[0],
            "{name}: the least latency is exact"
        );
        for (a, b) in rows.by_op.iter().zip(&hist.by_op) {
            assert_eq!(
                (&a.op, a.ios, a.iops, a.lat_mean_us, a.lat_max_us),
                (&b.op, b.ios, b.iops, b.lat_mean_us, b.lat_max_us),
                "{name}"
            );
            close(a.lat_p99_us, b.lat_p99_us, &format!("{} p99", a.op));
        }
        // The timeline: an interval can gain or lose the I/Os of the time bucket on each
        // of its edges, no more.
        let buckets = Histogram::read(&job.histogram()).unwrap();
        let widest = buckets.time.iter().map(|b| b.tally.ios).max().unwrap() as f64;
        assert_eq!(rows.timeline.len(), hist.timeline.len(), "{name}");
        let ios = |t: &roundup::analysis::TimePoint, w: f64| t.iops * w;
        let w = 2.0 * rows.timeline[0].t_s;
        let (mut sum_a, mut sum_b) = (0.0, 0.0);
        for (a, b) in rows.timeline.iter().zip(&hist.timeline) {
            assert_eq!(a.t_s, b.t_s, "{name}");
            assert!(
                (ios(a, w) - ios(b, w)).abs() <= 2.0 * widest + 1e-6,
                "{name}: at {} s, {} I/Os from the rows, {} from the histogram",
                a.t_s,
                ios(a, w),
                ios(b, w)
            );
            sum_a += ios(a, w);
            sum_b += ios(b, w);
        }
        assert!((sum_a - sum_b).abs() < 1e-6 * sum_a, "{name}");
    }
}

#[test]
fn a_histogram_only_job_keeps_no_rows_and_renders() {
    let lab = TestLab::new();
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    // The same jobs kept as rows first: the re-run replaces them, and no stale rows stay.
    lab.write(
        "suites/h.yaml",
        &BOTH_SUITE.replace("samples: both", "samples: raw"),
    );
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    lab.write(
        "suites/h.yaml",
        &BOTH_SUITE.replace("samples: both", "samples: histogram"),
    );
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let stored = files(&lab.path().join("results"));
    assert_eq!(
        stored
            .iter()
            .filter(|f| f.ends_with("histogram.parquet"))
            .count(),
        2,
        "{stored:?}"
    );
    assert!(
        !stored.iter().any(|f| f.ends_with("samples.parquet")),
        "{stored:?}"
    );
    let m = first_manifest(&lab, "sim-a", "A1", "h", "write");
    assert_eq!(m["samples"], "histogram");
    assert_eq!(m["samples_rows"], 0);
    assert!(m["histogram"]["rows"].as_u64().unwrap() > 0);
    let summary = lab.roundup(&["summary", "--json"]);
    assert!(summary.status.success(), "{}", stderr(&summary));
    let rows: Vec<serde_json::Value> = serde_json::from_str(&stdout(&summary)).unwrap();
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["lat_p99_us"].as_f64().unwrap() > 0.0));
    let out = lab.roundup(&["render", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(lab.path().join("site/suites/h.html").is_file());
    // DuckDB reads the histogram as the docs say: the count, mean and maximum are the
    // summary's, exactly.
    if !python_has("duckdb") {
        return;
    }
    lab.write("summary.json", &stdout(&summary));
    let script = r#"
import sys, json, duckdb
lab = sys.argv[1]
con = duckdb.connect()
for r in json.load(open(lab + '/summary.json')):
    f = f"{lab}/results/drive={r['drive']}/firmware={r['firmware']}/suite={r['suite']}/test={r['test']}/variant={r['variant']}/repeat={r['repeat']}/histogram.parquet"
    n, mean, mx = con.execute("select sum(ios), sum(latency_sum_ns) / sum(ios), max(latency_max_ns) from read_parquet(?) where kind = 'latency'", [f]).fetchone()
    assert n == r['ios'], (f, n, r['ios'])
    assert abs(mean / 1e3 - r['lat_mean_us']) <= 1e-9 * mean, (f, mean, r['lat_mean_us'])
    assert abs(mx / 1e3 - r['lat_max_us']) <= 1e-9 * mx, (f, mx, r['lat_max_us'])
print('ok')
"#;
    assert_eq!(python(script, &lab), "ok");
}

/// Registered buffers and files and pinned threads (`io_uring:`, `cpus:`) change how the
/// engine does its I/O, never what it writes: the same test writes the same bytes with and
/// without them; fio is given the same options; what the machine or target cannot do is
/// said before or at the first I/O.
#[test]
fn registered_buffers_files_and_pinned_threads_write_what_the_plain_ring_writes() {
    let lab = TestLab::new();
    let target = lab.file_drive("scratch", "8MiB");
    let suite = |options: &str| {
        format!(
            "name: rings\ntitle: Rings\nseed: 3\ntests:\n  - id: fill\n    title: Fill\n    \
             operation: write\n    pattern: sequential\n    block_size: 64KiB\n    span: full\n    \
             queue_depth: 8\n    passes: 1\n    data: compressible\n    metric: mb_per_s\n{options}"
        )
    };
    let run = |options: &str, extra: &[&str]| {
        lab.write("suites/rings.yaml", &suite(options));
        let mut args = vec!["run", "--suite", "rings"];
        args.extend_from_slice(extra);
        lab.roundup(&args)
    };
    let manifest = || -> serde_json::Value {
        let m = lab.path().join("results/drive=scratch/firmware=unknown/suite=rings/test=fill/variant=base/repeat=1/manifest.json");
        serde_json::from_slice(&fs::read(m).unwrap()).unwrap()
    };
    let out = run("", &["--engine", "io_uring"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let plain = fs::read(&target).unwrap();
    assert!(manifest().get("engine_options").is_none());
    fs::write(&target, vec![0u8; plain.len()]).unwrap();

    let fixed = "    io_uring: {fixed_buffers: true, fixed_files: true}\n    cpus: [0]\n";
    let out = run(fixed, &["--engine", "io_uring"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(fs::read(&target).unwrap() == plain, "other bytes written");
    let m = manifest();
    assert_eq!(m["engine"], "io_uring");
    assert_eq!(
        m["engine_options"],
        serde_json::json!({"fixed_buffers": true, "fixed_files": true, "cpus": [0]})
    );

    // fio gets the same options, one CPU a thread.
    let out = run(fixed, &["--engine", "fio"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let job = fs::read_to_string(lab.path().join("results/drive=scratch/firmware=unknown/suite=rings/test=fill/variant=base/repeat=1/job.fio")).unwrap();
    for line in [
        "fixedbufs=1",
        "registerfiles=1",
        "cpus_allowed=0\n",
        "cpus_allowed_policy=split",
    ] {
        assert!(job.contains(line), "{line} not in\n{job}");
    }

    // What cannot be done is said, naming the option: (test keys, run arguments, what the
    // error says).
    let refused: [(&str, &[&str], &[&str]); 6] = [
        (
            "    io_uring: {hipri: true}\n",
            &["--engine", "fio"],
            &[
                "suites/rings.yaml:",
                "io_uring: on drive scratch, io_uring: hipri: polled completions need a device",
            ],
        ),
        (
            "    cpus: [4000]\n",
            &[],
            &["cpus: CPU 4000 is not one this process may run on"],
        ),
        (
            fixed,
            &["--engine", "psync"],
            &["io_uring: fixed_buffers, fixed_files asked of the psync engine"],
        ),
        (
            "    io_uring: {hipri: true}\n",
            &["--engine", "io_uring"],
            &[
                "hipri: polled completions need a device with poll queues",
                "queue/io_poll is 0",
            ],
        ),
        (
            "    cpus: []\n",
            &[],
            &["suites/rings.yaml:", "cpus: expected a list of CPU numbers"],
        ),
        (
            "    io_uring: {fixed: true}\n",
            &[],
            &["unknown field `fixed`"],
        ),
    ];
    for (options, args, says) in refused {
        let out = run(options, args);
        let err = stderr(&out);
        assert!(!out.status.success(), "{options}");
        assert!(says.iter().all(|s| err.contains(s)), "{err}");
    }
}

/// A queue deeper than an io_uring ring holds (32,768) runs on io_uring, submitting as
/// the ring fills; on psync, a thread an I/O, it is refused before any I/O, naming the key,
/// and so is one deeper than the kernel registers buffers for (found by
/// benches/generated-runs.py: 65,535 in flight failed to make a ring, fell back to psync
/// and aborted the process starting thread after thread).
#[test]
fn a_queue_deeper_than_a_ring_runs_on_io_uring_and_what_cannot_hold_it_is_refused() {
    let lab = TestLab::new();
    lab.file_drive("scratch", "64MiB");
    lab.write(
        "suites/deep.yaml",
        "name: deep\ntitle: Deep\nseed: 3\ntests:\n  - id: read\n    title: Read\n    \
         operation: read\n    pattern: random\n    block_size: 4KiB\n    span: full\n    \
         queue_depth: 33000\n    count: 40000\n    metric: iops\n",
    );
    let test = lab
        .path()
        .join("results/drive=scratch/firmware=unknown/suite=deep/test=read");

    // A registered buffer a slot: the kernel registers at most 16,384 a ring.
    lab.write(
        "suites/fixed.yaml",
        "name: fixed\ntitle: Fixed\nseed: 3\ntests:\n  - id: read\n    title: Read\n    \
         operation: read\n    pattern: random\n    block_size: 4KiB\n    span: full\n    \
         queue_depth: 20000\n    count: 100\n    io_uring: {fixed_buffers: true}\n    \
         metric: iops\n",
    );
    let out = lab.roundup(&["run", "--suite", "fixed"]);
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("suites/fixed.yaml:")
            && err.contains("queue_depth: on drive scratch, io_uring: fixed_buffers")
            && err.contains("at most 16384 (the kernel's limit); queue depth 20000"),
        "{err}"
    );

    let out = lab.roundup(&["run", "--suite", "deep", "--engine", "psync"]);
    let err = stderr(&out);
    assert!(!out.status.success());
    for says in [
        "suites/deep.yaml:",
        "queue_depth: on drive scratch, the psync engine runs a thread for each I/O",
        "1 engine thread × queue depth 33000 = 33000, more than 4096",
    ] {
        assert!(err.contains(says), "{says} not in {err}");
    }
    assert!(!test.exists(), "a refused job left results");
    // fio's io_uring engine makes a ring of iodepth entries, which the kernel refuses.
    let out = lab.roundup(&["run", "--suite", "deep", "--engine", "fio"]);
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("queue_depth: on drive scratch, fio's io_uring engine makes a ring")
            && err.contains("at most 32768 (the kernel's limit), and queue depth 33000"),
        "{err}"
    );
    assert!(!test.exists(), "a refused job left results");

    let out = lab.roundup(&["run", "--suite", "deep", "--engine", "io_uring"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let m: serde_json::Value = serde_json::from_slice(
        &fs::read(test.join("variant=base/repeat=1/manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(m["engine"], "io_uring");
    let out = lab.roundup(&["summary", "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows[0]["ios"], 40000, "{rows}");
}

/// The suite [`simulated_results_are_the_same_on_every_machine_and_build`] pins: each of
/// the models' paths (random and sequential, reads, writes and a mix, QD1 to QD32, 512-B
/// and 4 KiB alignment, compressible and incompressible data, an SLC cache filling) in a
/// few thousand I/Os, counted rather than timed.
const PINNED_SUITE: &str = "name: pinned
title: the models' paths
seed: 20261208
tests:
  - id: random-write-4k
    title: random-write-4k
    operation: write
    pattern: random
    block_size: 4KiB
    span: 2GiB
    queue_depth: 3
    count: 6000
    metric: iops
    variants:
      data: [compressible, incompressible]
      align: [512B, 4KiB]
  - id: random-read-4k-qd32
    title: random-read-4k-qd32
    operation: read
    pattern: random
    block_size: 4KiB
    span: 2GiB
    queue_depth: 32
    count: 4000
    metric: iops
  - id: random-mixed-4k
    title: random-mixed-4k
    operation: {read: 70, write: 30}
    pattern: random
    block_size: 4KiB
    span: 2GiB
    queue_depth: 1
    count: 3000
    metric: mb_per_s
  - id: sequential-write-1m
    title: sequential-write-1m
    operation: write
    pattern: sequential
    block_size: 1MiB
    span: 4GiB
    queue_depth: 4
    count: 3000
    data: incompressible
    metric: mb_per_s
  - id: sequential-read-128k
    title: sequential-read-128k
    operation: read
    pattern: sequential
    block_size: 128KiB
    span: 2GiB
    queue_depth: 4
    count: 3000
    metric: mb_per_s
";

#[test]
fn simulated_results_are_the_same_on_every_machine_and_build() {
    // `simulated_results_and_site_are_byte_identical` holds a result to itself on one
    // machine; this holds the shipped models to the figures they gave on every machine and
    // build before: one model of each kind (page- and block-mapped SSDs, a compressing
    // controller, a read-modify-write on misaligned writes, an NVMe drive with an SLC
    // cache, a hard disk, the simple model). A change of CPU, compiler, libm or polars
    // that moved one I/O's latency by a nanosecond moves the digest. So does a deliberate
    // change of a model or of the summary: then check that every figure it moves was
    // meant to move (docs/simulated-drives.md), and put the new digest here.
    let lab = TestLab::new();
    lab.write("suites/pinned.yaml", PINNED_SUITE);
    for id in [
        "intel-x25m-g2-160",
        "crucial-c300-256",
        "ocz-vertex-le-100",
        "gskill-titan-256",
        "samsung-970-evo-plus-250gb",
        "samsung-spinpoint-f1-1tb",
        "ramdisk",
    ] {
        lab.repo_drive(id);
    }
    let out = lab.roundup(&["run", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = lab.roundup(&["summary", "--json"]);
    assert!(summary.status.success(), "{}", stderr(&summary));
    let rows: Vec<serde_json::Value> = serde_json::from_str(&stdout(&summary)).unwrap();
    assert_eq!(rows.len(), 7 * 8);
    let digest = roundup::config::sha256_hex(stdout(&summary).as_bytes());
    if digest != "af83b447afada27d9470406f36d4cc21be62c9bc830f1b041fa1801b1a944aac" {
        let table = lab.roundup(&["summary"]);
        panic!(
            "the pinned suite's summary moved (its SHA-256 is now {digest}):\n{}",
            stdout(&table)
        );
    }
}
