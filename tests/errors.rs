//! Bad input gets a clear error and loses nothing.

mod common;

use std::fs;
use std::sync::atomic::{AtomicBool, Ordering};

use common::{files, read_parquet, stderr, stdout, TestLab, TINY_SUITE};
use roundup::lab::Lab;
use roundup::plan::{self, Job, Selection};
use roundup::run::{self, Observer, RunOptions};
use roundup::store::JobManifest;

#[test]
fn malformed_suite_names_file_line_column_field() {
    let lab = TestLab::new();
    lab.write(
        "suites/tiny.yaml",
        &TINY_SUITE.replace("queue_depth: 4", "queue_depth: 0"),
    );
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    let out = lab.roundup(&["check"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("suites/tiny.yaml:11:18: tests[0].queue_depth: expected a whole number from 1 to 65535, found 0"),
        "{err}"
    );
    // A check made once a test is read points at the key it names, in the test it is in.
    for (from, to, wanted) in [
        (
            "count: 200\n",
            "count: 200\n    duration: 1s\n",
            "suites/tiny.yaml:23:5: tests[1].count: expected either `duration` or `count`, found both",
        ),
        (
            "block_size: 128KiB",
            "block_size: 1000B",
            "suites/tiny.yaml:20:5: tests[1].block_size: expected a multiple of 512 bytes",
        ),
        (
            "span: 16MiB",
            "span: 2KiB",
            "suites/tiny.yaml:10:5: tests[0].span: expected a span of at least the block size (4 KiB), found 2 KiB",
        ),
    ] {
        assert!(TINY_SUITE.contains(from));
        lab.write("suites/tiny.yaml", &TINY_SUITE.replace(from, to));
        let err = stderr(&lab.roundup(&["check"]));
        assert!(err.contains(wanted), "expected {wanted:?} in: {err}");
    }
    lab.write(
        "suites/tiny.yaml",
        &TINY_SUITE.replace("id: sequential-read-128k", "id: random-write-4k"),
    );
    let err = stderr(&lab.roundup(&["check"]));
    assert!(
        err.contains("suites/tiny.yaml:16:5: tests[1].id: expected a unique test id, found \"random-write-4k\" twice"),
        "{err}"
    );
    // Nothing runs until the lab checks clean.
    let out = lab.roundup(&["run"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("nothing was run"));
    assert!(!lab.path().join("results").exists());
}

#[test]
fn simulated_drive_parameters_are_checked() {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    // `roundup check` on a drive file must fail naming the file and each of `wanted`.
    let refused = |yaml: &str, wanted: &[&str]| {
        lab.write("drives/s.yaml", yaml);
        let err = stderr(&lab.roundup(&["check"]));
        assert!(err.contains("drives/s.yaml"), "{err}");
        for w in wanted {
            assert!(err.contains(w), "expected {w:?} in: {err}");
        }
    };
    let ssd = "id: s\nvendor: A\nmodel: S\ncapacity: 64GB\nfirmware: \"2\"\nssd:\n  link_rate: 280MB/s\n  command_overhead: 10us\n  channels: 4\n  dies_per_channel: 2\n  channel_rate: 40MB/s\n  page: 4KiB\n  pages_per_block: 128\n  read: 50us\n  program: 900us\n  erase: 3ms\n  raw_capacity: 64GB\n  buffer: 1MiB\n  ftl: page\n  remap: true\n  firmwares:\n    \"1\": {}\n";
    refused(
        ssd,
        &[
            "ssd.raw_capacity: expected at least 64017661952 B (the capacity in whole 524288 B \
             blocks on each of 8 dies, plus 4 blocks per die kept for garbage collection), found \
             64000000000 B",
        ],
    );
    // A firmware that keeps more blocks free for collection needs them on every die.
    refused(
        &ssd.replace("raw_capacity: 64GB", "raw_capacity: 64.1GB")
            .replace("\"1\": {}", "\"1\": {gc_free_blocks: 40}"),
        &["plus 42 blocks per die kept for garbage collection), found 64100000000 B"],
    );
    refused(
        &ssd.replace("page: 4KiB", "page: 64KiB")
            .replace("pages_per_block: 128", "pages_per_block: 4096")
            .replace("\ncapacity: 64GB", "\ncapacity: 1GB")
            .replace("raw_capacity: 64GB", "raw_capacity: 2GB"),
        &[
            "ssd.raw_capacity: expected at least 8 erase blocks per die (17179869184 B: 8 dies \
           of 268435456 B blocks), found 2000000000 B (0 blocks per die)",
        ],
    );
    let room = ssd.replace("raw_capacity: 64GB", "raw_capacity: 72GB");
    refused(
        &room,
        &["firmware: expected one of the revisions under ssd.firmwares (1), found \"2\""],
    );
    refused(
        &room.replace("  ftl: page\n", "  ftl: pages\n"),
        &["drives/s.yaml:", "ftl"],
    );
    let fixed = room.replace("firmware: \"2\"", "firmware: \"1\"");
    // An id that is not the file's name, at the id's line.
    refused(
        &format!("# a drive\n{}", fixed.replace("id: s\n", "id: t\n")),
        &["drives/s.yaml:2:1: id: expected \"s\" (the file name), found \"t\""],
    );
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  controllers: 2\n"),
        &["ssd.stripe: expected a stripe size (e.g. 64KiB) with two or more `controllers`"],
    );
    refused(
        &fixed.replace(
            "  ftl: page\n",
            "  ftl: block\n  log_blocks: 4\n  gc: foreground\n",
        ),
        &["ssd.gc: garbage collection is a page-mapped FTL's"],
    );
    // Checks of the parameters against each other point at the key they name, or at
    // `ssd:` for a key left out.
    refused(
        &fixed.replace("pages_per_block: 128", "pages_per_block: 4"),
        &["drives/s.yaml:13:3: ssd.pages_per_block: expected 8 to 4096, found 4"],
    );
    refused(
        &fixed.replace("  ftl: page\n", "  ftl: block\n"),
        &["drives/s.yaml:6:1: ssd.log_blocks: expected at least 1 for a block-mapped FTL"],
    );
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  planes: 3\n"),
        &["ssd.planes: expected 1, 2, 4 or 6, found 3"],
    );
    refused(
        &fixed
            .replace("ssd:\n", "ssd:\n  planes: 2\n")
            .replace("  ftl: page\n", "  ftl: block\n  log_blocks: 4\n"),
        &["ssd.planes: multi-plane programs are modelled for a page-mapped FTL"],
    );
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  completion_share: 1.5\n"),
        &["ssd.completion_share: expected a share of a write's controller time, 0 to 1, found 1.5"],
    );
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  read_spread: {fastest: 1.2, slowest: 1.5}\n"),
        &["ssd.read_spread: expected the fastest read 0.5 to 1 and the slowest 1 to 3 times the typical one, found 1.2 and 1.5"],
    );
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  upper_page_program: 0.5\n"),
        &["ssd.upper_page_program: expected an upper page's program time over a lower page's, 1 to 10, found 0.5"],
    );
    refused(
        &fixed.replace(
            "ssd:\n",
            "ssd:\n  ecc: {bit_error_rate: 0.5, correct: 5us}\n",
        ),
        &["ssd.ecc.bit_error_rate: expected a raw bit error rate from 0 to 0.01, found 0.5"],
    );
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  ecc: {bit_error_rate: 1e-6, correct: 5us, codeword: 3000B}\n"),
        &["ssd.ecc.codeword: expected a divisor of the page (4096 B), at most 128 to a page, found 3000 B"],
    );
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  ecc: {bit_error_rate: 1e-6}\n"),
        &["correct"],
    );
    refused(
        &fixed.replace(
            "ssd:\n",
            "ssd:\n  suspend: {step: 100us, resume: 20us, max: 0}\n",
        ),
        &["drives/s.yaml:7:40: ssd.suspend.max: expected 1 to 100 suspensions an operation, found 0"],
    );
    refused(
        &fixed.replace(
            "ssd:\n",
            "ssd:\n  suspend: {step: 0us, resume: 20us, max: 5}\n",
        ),
        &["ssd.suspend.step: expected a time between break points above 0"],
    );
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  suspend: {step: 100us, max: 5}\n"),
        &["drives/s.yaml:7:", "resume"],
    );
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  plane_reads: synchronous\n"),
        &["ssd.plane_reads: a die of one plane has no planes to read apart"],
    );
    refused(
        &fixed
            .replace("ssd:\n", "ssd:\n  flush_buffer: true\n")
            .replace("  ftl: page\n", "  ftl: block\n  log_blocks: 4\n"),
        &["ssd.flush_buffer: expected with `ftl: page`"],
    );
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  write_stripes: 0\n"),
        &["ssd.write_stripes: expected the stripes the buffer holds, 1 to 8, found 0"],
    );
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  write_stripes: 2\n  flush_buffer: true\n"),
        &["ssd.write_stripes: expected with `ftl: page` and without `flush_buffer`"],
    );
    // An SLC cache the drive has room for: 72 GB raw on 64 GB leaves 7.98 GB of spare
    // blocks, 2.66 GB of static cache at three bits a cell; the dynamic cache at most the
    // user area's 64 GB in SLC mode.
    let slc = |cache: &str| {
        fixed.replace(
            "ssd:\n",
            &format!("ssd:\n  slc_cache: {{bits: 3, program: 200us, {cache}}}\n"),
        )
    };
    refused(
        &slc("static: 3GB"),
        &["drives/s.yaml:7:", "ssd.slc_cache.static: expected at most 2.7 GB (in SLC mode a byte of cache takes 3 bytes of native room, the static cache's from the spare area: 8.0 GB of raw capacity beyond the user data's blocks and those kept for garbage collection), found 3.0 GB"],
    );
    refused(
        &slc("static: 2GB, dynamic: 22GB"),
        &["ssd.slc_cache.dynamic: expected at most 21.3 GB (in SLC mode a byte of cache takes 3 bytes of native room, the dynamic cache's from the user area: 64.0 GB), found 22.0 GB"],
    );
    // Two controllers: each holds half the capacity and a cache of its own.
    refused(
        &slc("dynamic: 11GB").replace("ssd:\n", "ssd:\n  controllers: 2\n  stripe: 64KiB\n"),
        &["ssd.slc_cache.dynamic: expected at most 10.7 GB (in SLC mode a byte of cache takes 3 bytes of native room, the dynamic cache's from the user area: 32.0 GB on each controller), found 11.0 GB"],
    );
    lab.write("drives/s.yaml", &slc("static: 2.6GB, dynamic: 21GB"));
    let out = lab.roundup(&["check"]);
    assert!(out.status.success(), "{}", stderr(&out));
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  full: 0.9\n"),
        &["ssd.full: expected only on a used drive (aged: true)"],
    );
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  aged: true\n  full: 98\n"),
        &["ssd.full: expected the share of the logical pages holding data, above 0 and at most 1, found 98"],
    );
    // A used drive's history: its writes and span checked against the drive, at the key.
    refused(
        &fixed.replace(
            "ssd:\n",
            "ssd:\n  history:\n    writes: 1GB\n    span: 1TB\n    seed: 1\n",
        ),
        &[
            "drives/s.yaml:9:5: ssd.history.span: expected from the block size (4096 B) to the \
           drive's capacity (64000000000 B), found 1000000000000 B",
        ],
    );
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  history: {writes: 2TB, seed: 1}\n"),
        &[
            "ssd.history.writes: expected from one block (4096 B) to 16 times the drive's \
           capacity (1024000000000 B), found 2000000000000 B",
        ],
    );
    refused(
        &fixed.replace("ssd:\n", "ssd:\n  history: {writes: 1GB}\n"),
        &["drives/s.yaml:7:", "seed"],
    );
    let hdd = "id: s\nvendor: A\nmodel: D\ncapacity: 1TB\nhdd:\n  rpm: 7200\n  link_rate: 280MB/s\n  command_overhead: 50us\n  seek_track_to_track: 0.8ms\n  seek_average: 19ms\n  seek_full_stroke: 18ms\n  outer_rate: 115MB/s\n  inner_rate: 55MB/s\n  cache: 32MiB\n  read_ahead: 512KiB\n";
    refused(
        hdd,
        &["drives/s.yaml:10:3: hdd.seek_average: expected below seek_full_stroke (18ms), found 19ms"],
    );
}

#[test]
fn review_file_names_unknown_drives_and_keys() {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    lab.write(
        "review.yaml",
        "# comparisons\ncompare:\n  - [sim-a, sim-zz]\n",
    );
    let out = lab.roundup(&["check"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("review.yaml:3:13: compare[0][1]: expected the id of a drive in drives/, found \"sim-zz\" (known: sim-a"),
        "{err}"
    );
    // A near miss is named.
    lab.write("review.yaml", "compare:\n  - [sim-a, sim-aa]\n");
    let err = stderr(&lab.roundup(&["check"]));
    assert!(
        err.contains("found \"sim-aa\" (known: sim-a; did you mean \"sim-a\"?)"),
        "{err}"
    );
    lab.write("review.yaml", "compare: []\nhighlight: sim-a\n");
    let err = stderr(&lab.roundup(&["check"]));
    assert!(
        err.contains("review.yaml:2:1: unknown field `highlight`"),
        "{err}"
    );
    // --compare names drives too; one without results is reported, not fatal.
    lab.write("review.yaml", "compare: []\n");
    let out = lab.roundup(&["render", "--compare", "sim-a"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("expected two drive ids as A,B, found \"sim-a\""));
    let out = lab.roundup(&["render", "--compare", "sim-a,sim-b"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "--compare sim-a,sim-b: no drive \"sim-b\" in the lab (did you mean \"sim-a\"?); expected one of: sim-a"
        ),
        "{}",
        stderr(&out)
    );
    let out = lab.roundup(&["commentary", "init", "--compare", "sim-a,sim-a"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--compare sim-a,sim-a: expected two different drives"),
        "{}",
        stderr(&out)
    );
    lab.sim_drive("sim-b", "Beta", "B1", 8);
    let out = lab.roundup(&["render", "--compare", "sim-a,sim-b"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("comparison sim-a vs sim-b: sim-a has no results; no page written"),
        "{}",
        stderr(&out)
    );
    // Each at its own pair's line, where an id was named on a line before it (and in a
    // comment); the second id at its own column when the first is the same text.
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    lab.sim_drive("sim-b", "Beta", "B2", 2);
    lab.write(
        "review.yaml",
        "# sim-zz and sim-a\ncompare:\n  - [sim-a, sim-b]\n  - [sim-a, sim-a]\n  - [sim-zz, sim-zz]\n",
    );
    let err = stderr(&lab.roundup(&["check"]));
    for said in [
        "review.yaml:4:3: compare[1]: expected two different drives, found \"sim-a\" twice",
        "review.yaml:5:6: compare[2][0]: expected the id of a drive in drives/, found \"sim-zz\"",
        "review.yaml:5:14: compare[2][1]: expected the id of a drive in drives/, found \"sim-zz\"",
        "review.yaml:5:3: compare[2]: expected two different drives",
    ] {
        assert!(err.contains(said), "{said} not in {err}");
    }
}

#[test]
fn a_suites_drive_pattern_that_takes_no_drive_is_warned_of_at_its_line() {
    let lab = TestLab::new();
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    // Kept to sim-a, and to a drive mistyped: the run takes sim-a alone, and says why the
    // other is not there. A pattern that leaves out a drive not in the lab says nothing.
    lab.write(
        "suites/tiny.yaml",
        &TINY_SUITE.replace(
            "seed: 7\n",
            "seed: 7\ndrives: [\"sim-a\", \"sim-aa\", \"!sim-zz\"]\n",
        ),
    );
    let said = "warning: suites/tiny.yaml:4:20: drives[1]: expected a pattern matching a drive in drives/, found \"sim-aa\", which matches none; did you mean \"sim-a\"?";
    let out = lab.roundup(&["check"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains(said), "{}", stderr(&out));
    assert_eq!(
        stderr(&out).matches("warning").count(),
        1,
        "{}",
        stderr(&out)
    );
    let out = lab.roundup(&["run", "--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains(said), "{}", stderr(&out));
    assert!(stdout(&out).contains("on 1 drive"), "{}", stdout(&out));
    // A run that names its drives does not go by the suite's list.
    let out = lab.roundup(&["run", "--dry-run", "--drive", "sim-a"]);
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
}

#[test]
fn unknown_keys_bad_sizes_and_yaml_syntax() {
    let lab = TestLab::new();
    lab.write(
        "suites/tiny.yaml",
        &TINY_SUITE.replace(
            "    metric: mb_per_s\n    variants",
            "    metric: mb_per_s\n    colour: blue\n    variants",
        ),
    );
    lab.write(
        "suites/other.yaml",
        &TINY_SUITE
            .replace("name: tiny", "name: other")
            .replace("span: 16MiB", "span: 16 parsecs"),
    );
    lab.write("suites/broken.yaml", "name: broken\ntests: [\n");
    lab.write(
        "drives/d.yaml",
        "id: d\nvendor: V\nmodel: M\ncapacity: 1GB\n",
    );
    let out = lab.roundup(&["check"]);
    let err = stderr(&out);
    assert!(
        err.contains("suites/tiny.yaml:14:5: tests[0]: unknown field `colour`"),
        "{err}"
    );
    assert!(
        err.contains("suites/other.yaml:10:11: tests[0].span: expected a size unit"),
        "{err}"
    );
    assert!(err.contains("suites/broken.yaml:"), "{err}");
    assert!(
        err.contains("drives/d.yaml:1:1: expected a target: `path:`"),
        "{err}"
    );
    assert!(err.contains("4 problems"), "{err}");
}

#[test]
fn text_that_is_not_utf8_is_placed_by_line_and_column() {
    // An editor that saved a drive file or the commentary as Latin-1 ("café" with é as
    // one byte, 0xE9): the error says where, as a YAML error would.
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    let drive = fs::read(lab.path().join("drives/sim-a.yaml")).unwrap();
    let mut latin1 = b"# bought at the caf\xe9\n".to_vec();
    latin1.extend_from_slice(&drive);
    fs::write(lab.path().join("drives/sim-a.yaml"), latin1).unwrap();
    fs::create_dir_all(lab.path().join("commentary/suites")).unwrap();
    fs::write(
        lab.path().join("commentary/suites/tiny.md"),
        b"<!-- slot: base -->\nFast, na\xefvely.\n",
    )
    .unwrap();
    let err = stderr(&lab.roundup(&["check"]));
    for wanted in [
        "drives/sim-a.yaml:1:20: expected UTF-8 text, found byte 0xE9",
        "commentary/suites/tiny.md:2:9: expected UTF-8 text, found byte 0xEF",
    ] {
        assert!(err.contains(wanted), "expected {wanted:?} in: {err}");
    }
}

#[test]
fn drives_lists_the_lab_in_columns_whatever_the_names() {
    let lab = TestLab::new();
    lab.sim_drive("a", "Alpha", "A1", 8);
    lab.sim_drive(
        "a-long-id-for-two-drives-in-raid-0",
        "Alpha 16 GB × 2 (RAID 0) with a name longer than any column",
        "A1",
        8,
    );
    let out = lab.roundup(&["drives"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "drives in the lab:")
        .skip(1)
        .take(2)
        .collect();
    assert!(
        rows[0].starts_with("  a ") && rows[1].contains("RAID 0"),
        "{text}"
    );
    // The firmware column starts at the same character on both rows (the name holds a ×).
    let column = |row: &str| row.find("firmware A1").map(|b| row[..b].chars().count());
    assert_eq!(column(rows[0]), column(rows[1]), "{text}");
    assert!(column(rows[0]).is_some(), "{text}");
}

#[test]
fn unknown_names_and_options() {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    let out = lab.roundup(&["run", "--drive", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no drive \"nope\" in the lab; expected one of: sim-a"),
        "{}",
        stderr(&out)
    );
    let out = lab.roundup(&["run", "--suite", "tiny", "--fast"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--fast"), "{}", stderr(&out));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_roundup"))
        .args(["--lab", "/nonexistent/lab", "check"])
        .output()
        .unwrap();
    assert!(
        stderr(&out).contains("/nonexistent/lab: expected a lab folder"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_dry_run_finds_what_would_stop_the_run_and_creates_nothing() {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    // A scratch file roundup would create (8 MiB: the suite's 16 MiB span does not fit),
    // a file it did not create and may not write, and a path that does not exist.
    let scratch = lab.file_drive("small", "8MiB");
    let theirs = lab.foreign_file_drive("theirs");
    lab.write(
        "drives/gone.yaml",
        "id: gone\nvendor: V\nmodel: M\ncapacity: 1GB\npath: /nonexistent/roundup/disk.img\n",
    );
    let wanted = [
        "suites/tiny.yaml:10:5: tests[0].span: expected at most the 8 MiB drive small offers, found 16 MiB",
        "drive theirs: refusing to write to",
        "drive gone: /nonexistent/roundup/disk.img does not exist; give `size:`",
    ];
    let dry = lab.roundup(&["run", "--dry-run"]);
    assert_eq!(dry.status.code(), Some(1));
    let err = stderr(&dry);
    assert!(err.contains("the run would stop before it starts"), "{err}");
    for w in wanted {
        assert!(err.contains(w), "expected {w:?} in: {err}");
    }
    // The plan is printed first, and nothing is made: no scratch file, no results.
    assert!(stdout(&dry).contains("plan: "), "{}", stdout(&dry));
    assert!(!scratch.exists() && !lab.path().join("results").exists());
    assert!(fs::read(&theirs).unwrap().iter().all(|&b| b == 7));
    // The run finds the same, before it runs anything.
    let err = stderr(&lab.roundup(&["run"]));
    for w in wanted {
        assert!(err.contains(w), "expected {w:?} in: {err}");
    }
    assert!(!lab.path().join("results").exists());
    // With the problems gone, the dry run passes and still creates nothing.
    fs::remove_file(lab.path().join("drives/gone.yaml")).unwrap();
    fs::remove_file(lab.path().join("drives/theirs.yaml")).unwrap();
    lab.file_drive("small", "16MiB");
    let dry = lab.roundup(&["run", "--dry-run"]);
    assert!(dry.status.success(), "{}", stderr(&dry));
    assert!(!scratch.exists() && !lab.path().join("results").exists());
}

#[test]
fn two_runs_never_share_a_drive() {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    let scratch = lab.file_drive("small", "16MiB");
    let out = lab.roundup(&["run", "--test", "sequential-read-128k"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Another run holds the drive (as roundup does while it runs): this one says so and
    // runs nothing, dry or not.
    let held = fs::File::open(&scratch).unwrap();
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor `held` owns.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
    let wanted = "drive small: ";
    for args in [&["run", "--dry-run"][..], &["run"][..]] {
        let out = lab.roundup(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains(wanted) && err.contains("is in use by another roundup run"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(lab.stored_jobs(), 1, "nothing more ran");
    drop(held);
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(lab.stored_jobs(), 3);
}

#[test]
fn target_problems_are_found_before_anything_runs() {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    // A path that does not exist (and no size to create it).
    lab.write(
        "drives/gone.yaml",
        "id: gone\nvendor: V\nmodel: M\ncapacity: 1GB\npath: /nonexistent/roundup/disk.img\n",
    );
    let out = lab.roundup(&["run"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("drive gone: /nonexistent/roundup/disk.img does not exist; give `size:`"),
        "{err}"
    );
    assert!(
        !lab.path().join("results").exists(),
        "nothing ran: {:?}",
        files(lab.path())
    );
    fs::remove_file(lab.path().join("drives/gone.yaml")).unwrap();

    // A span larger than the target.
    lab.file_drive("small", "8MiB");
    let out = lab.roundup(&["run", "--drive", "small"]);
    assert!(
        stderr(&out).contains(
            "suites/tiny.yaml:10:5: tests[0].span: expected at most the 8 MiB drive small \
             offers, found 16 MiB\n"
        ),
        "{}",
        stderr(&out)
    );
    // Once, though two variants and their repeats all have it.
    assert_eq!(
        stderr(&out).matches("tests[0].span").count(),
        1,
        "{}",
        stderr(&out)
    );

    // A block size the logical block size does not divide.
    lab.sim_drive_with_block("big-sector", "8KiB");
    let out = lab.roundup(&["run", "--drive", "big-sector"]);
    assert!(
        stderr(&out).contains(
            "suites/tiny.yaml:9:5: tests[0].block_size: expected a multiple of drive \
             big-sector's logical block size (8192 B), found 4 KiB"
        ),
        "{}",
        stderr(&out)
    );

    // A value a variant sets is pointed at in `variants:`, once for every variant with it.
    lab.write(
        "suites/aligned.yaml",
        "name: aligned\ntitle: A\ntests:\n  - id: rw\n    title: RW\n    operation: write\n    \
         pattern: random\n    block_size: 8KiB\n    span: 16MiB\n    queue_depth: 4\n    \
         count: 100\n    metric: iops\n    variants:\n      align: [512B, 8KiB]\n      \
         data: [compressible, incompressible]\n",
    );
    let out = lab.roundup(&["run", "--drive", "big-sector", "--suite", "aligned"]);
    let err = stderr(&out);
    assert!(
        err.contains(
            "suites/aligned.yaml:14:7: tests[0].variants.align: expected a multiple of drive \
             big-sector's logical block size (8192 B), found 512 B\n"
        ),
        "{err}"
    );
    assert_eq!(err.matches("variants.align").count(), 1, "{err}");
    fs::remove_file(lab.path().join("suites/aligned.yaml")).unwrap();

    // I/O buffers no machine has room for (65535 × 2 GiB): refused, not run out of memory,
    // where the engine gives each slot a buffer of its request: on a file, and on a model
    // that compresses what it is given. A model that reads no byte written gets token
    // buffers, so the same test runs on it.
    let huge = TINY_SUITE
        .replace("block_size: 4KiB", "block_size: 2GiB")
        .replace("span: 16MiB", "span: 4GiB")
        .replace("queue_depth: 4", "queue_depth: 65535")
        .replace("count: 2000", "count: 20");
    lab.write("suites/tiny.yaml", &huge);
    lab.file_drive("big-file", "4GiB");
    lab.repo_drive("ocz-vertex-le-100");
    for drive in ["big-file", "ocz-vertex-le-100"] {
        let out = lab.roundup(&[
            "run",
            "--drive",
            drive,
            "--test",
            "random-write-4k",
            "--dry-run",
        ]);
        assert_eq!(out.status.code(), Some(1), "{drive}");
        assert!(
            stderr(&out).contains(&format!(
                "suites/tiny.yaml:11:5: tests[0].queue_depth: on drive {drive}, the engine's \
                 I/O buffers (65535 in flight × 2 GiB) would take 128.0 TiB, more than half \
                 this machine's memory"
            )),
            "{}",
            stderr(&out)
        );
    }
    assert!(!lab.path().join("results").exists());
    assert!(
        !lab.path().join("big-file.img").exists(),
        "a dry run creates nothing"
    );
    let out = lab.roundup(&["run", "-q", "--drive", "sim-a", "--test", "random-write-4k"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(lab.stored_jobs(), 2, "both variants ran");
    fs::remove_dir_all(lab.path().join("results")).unwrap();
    // Its tokens allocate nothing: 256 threads of 65535 slots pass too.
    lab.write(
        "suites/tiny.yaml",
        &huge.replace("queue_depth: 65535", "queue_depth: 65535\n    threads: 256"),
    );
    let out = lab.roundup(&[
        "run",
        "--drive",
        "sim-a",
        "--test",
        "random-write-4k",
        "--dry-run",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    fs::remove_file(lab.path().join("drives/big-file.yaml")).unwrap();
    fs::remove_file(lab.path().join("drives/ocz-vertex-le-100.yaml")).unwrap();

    // A simulated SSD whose state no machine has room for (1,000 TiB of 8 KiB pages): refused
    // before it is built, not an allocation that aborts the process.
    let m4 = common::repo_drive_file("crucial-m4-256")
        .replace("  raw_capacity: 256GiB", "  raw_capacity: 1000TiB")
        .replace("  pages_per_block: 256", "  pages_per_block: 4096");
    assert!(m4.contains("1000TiB") && m4.contains("4096"));
    lab.write(
        "drives/huge.yaml",
        &m4.replace("id: crucial-m4-256", "id: huge"),
    );
    lab.write("suites/tiny.yaml", TINY_SUITE);
    let out = lab.roundup(&["run", "--drive", "huge", "--dry-run"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "drives/huge.yaml: drive huge's simulated state (its map and blocks, about 750.2 \
             GiB) would take more than this machine's memory"
        ),
        "{}",
        stderr(&out)
    );
    assert!(!lab.path().join("results").exists());
}

#[test]
fn existing_files_roundup_did_not_create_are_not_overwritten() {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    let precious = lab.foreign_file_drive("p");
    let out = lab.roundup(&["run"]);
    assert!(
        stderr(&out).contains("refusing to write to")
            && stderr(&out).contains("roundup did not create it"),
        "{}",
        stderr(&out)
    );
    assert!(
        fs::read(&precious).unwrap().iter().all(|b| *b == 7),
        "the file is untouched"
    );
    // Read-only tests are allowed.
    let out = lab.roundup(&["run", "--test", "sequential-read-128k"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(fs::read(&precious).unwrap().iter().all(|b| *b == 7));
}

#[test]
fn damaged_parquet_is_named_and_skipped() {
    use polars::prelude::*;
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    assert!(lab.roundup(&["run"]).status.success());
    let job = |test: &str, variant: &str| {
        lab.path().join(format!(
            "results/drive=sim-a/firmware=A1/suite=tiny/test={test}/variant={variant}/repeat=1/samples.parquet"
        ))
    };
    // One file cut in half, which no Parquet reader takes.
    let cut = job("sequential-read-128k", "base");
    let bytes = fs::read(&cut).unwrap();
    fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    // One written again with every latency doubled: a valid file with the manifest's rows,
    // whose figures were never measured.
    let edited = job("random-write-4k", "data-incompressible");
    let mut df = read_parquet(&edited);
    let doubled = df.column("latency_ns").unwrap().as_materialized_series() * 2u64;
    df.replace("latency_ns", doubled.into()).unwrap();
    ParquetWriter::new(fs::File::create(&edited).unwrap())
        .finish(&mut df)
        .unwrap();
    assert_eq!(read_parquet(&edited).height(), 2000, "it still reads");

    let out = lab.roundup(&["render"]);
    assert!(out.status.success(), "{}", stderr(&out));
    for damaged in [&cut, &edited] {
        assert!(
            stderr(&out).contains(&format!(
                "warning: {}: not the file its manifest hashed (truncated or changed); skipped",
                damaged.display()
            )),
            "{}",
            stderr(&out)
        );
    }
    let page = fs::read_to_string(lab.path().join("site/suites/tiny.html")).unwrap();
    assert_eq!(
        page.matches("<section class=\"test\"").count(),
        2,
        "the readable chart and its latency CDF remain"
    );
    assert!(
        !page.contains("sequential-read-128k.base"),
        "the damaged test has no chart"
    );
    let out = lab.roundup(&["summary", "--json"]);
    assert!(out.status.success());
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 1, "only the undamaged job: {rows:?}");
    assert_eq!(rows[0]["variant"], "data-compressible");
    // `check` fails on them, naming both.
    let out = lab.roundup(&["check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("2 problems in"), "{}", stderr(&out));
    for damaged in [&cut, &edited] {
        assert!(
            stderr(&out).contains(&damaged.display().to_string()),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn a_job_copied_into_another_jobs_folder_is_named_and_counted_once() {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    lab.sim_drive("sim-b", "Beta", "B1", 8);
    assert!(lab.roundup(&["run"]).status.success());
    let summary = || -> Vec<serde_json::Value> {
        let out = lab.roundup(&["summary", "--json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let before = summary();
    assert_eq!(before.len(), 6);
    let results = lab.path().join("results");
    let folder = |drive: &str, fw: &str, repeat: u32| {
        results.join(format!(
            "drive={drive}/firmware={fw}/suite=tiny/test=sequential-read-128k/variant=base/repeat={repeat}"
        ))
    };
    // sim-a's job copied as a second repeat of its own, and over sim-b's job of the test:
    // read as they are, the one would count twice in sim-a's mean and the other stand in
    // for sim-b's.
    let copies = [folder("sim-a", "A1", 2), folder("sim-b", "B1", 1)];
    for to in &copies {
        fs::create_dir_all(to).unwrap();
        for f in ["manifest.json", "samples.parquet"] {
            fs::copy(folder("sim-a", "A1", 1).join(f), to.join(f)).unwrap();
        }
    }
    let out = lab.roundup(&["render"]);
    assert!(out.status.success(), "{}", stderr(&out));
    for to in &copies {
        assert!(
            stderr(&out).contains(&format!(
                "warning: {}: the manifest of drive=sim-a/firmware=A1/suite=tiny/test=sequential-read-128k/variant=base/repeat=1, in another job's folder",
                to.join("manifest.json").display()
            )),
            "{}",
            stderr(&out)
        );
    }
    let after = summary();
    let sim_b_read =
        |r: &&serde_json::Value| r["drive"] == "sim-b" && r["test"] == "sequential-read-128k";
    assert_eq!(
        after,
        before
            .iter()
            .filter(|r| !sim_b_read(r))
            .cloned()
            .collect::<Vec<_>>(),
        "each of sim-a's jobs once, sim-b's overwritten job left out"
    );
    let out = lab.roundup(&["check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    for to in &copies {
        assert!(
            stderr(&out).contains(&to.join("manifest.json").display().to_string()),
            "{}",
            stderr(&out)
        );
    }
    // With the copies gone the lab is whole again.
    copies.iter().for_each(|to| fs::remove_dir_all(to).unwrap());
    let out = lab.roundup(&["check"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        said.contains("5 stored jobs with their files whole"),
        "{said}"
    );
}

/// Stops the run (as Ctrl-C does) once `after` jobs have finished.
struct StopAfter<'a> {
    after: usize,
    done: std::sync::atomic::AtomicUsize,
    stop: &'a AtomicBool,
}

impl Observer for StopAfter<'_> {
    fn job_finished(&self, _job: &Job, _m: &JobManifest) {
        if self.done.fetch_add(1, Ordering::SeqCst) + 1 >= self.after {
            self.stop.store(true, Ordering::SeqCst);
        }
    }
}

#[test]
fn interrupted_run_keeps_completed_jobs_and_resume_runs_the_rest() {
    let lab = TestLab::new();
    // Long enough that the interrupted job is stopped mid-way.
    lab.write(
        "suites/tiny.yaml",
        &TINY_SUITE.replace("count: 200", "count: 200000"),
    );
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    let l = Lab::load(lab.path()).unwrap();
    let plan = plan::expand(&l, &Selection::default()).unwrap();
    assert_eq!(plan.jobs.len(), 3);
    let stop = AtomicBool::new(false);
    let obs = StopAfter {
        after: 2,
        done: Default::default(),
        stop: &stop,
    };
    let err = run::run(&l, &plan, &RunOptions::default(), &obs, &stop).unwrap_err();
    assert!(matches!(err, roundup::Error::Interrupted), "{err}");
    let after_stop = files(&lab.path().join("results"));
    assert!(
        after_stop
            .iter()
            .all(|p| !p.to_string_lossy().contains(".tmp-")),
        "no partial file: {after_stop:?}"
    );
    assert_eq!(
        after_stop
            .iter()
            .filter(|p| p.ends_with("manifest.json"))
            .count(),
        2
    );
    assert_eq!(
        after_stop
            .iter()
            .filter(|p| p.ends_with("samples.parquet"))
            .count(),
        2
    );
    let kept: Vec<Vec<u8>> = after_stop
        .iter()
        .map(|p| fs::read(lab.path().join("results").join(p)).unwrap())
        .collect();

    let out = lab.roundup(&["run", "--resume"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("1 job completed, 2 kept from earlier runs"),
        "{}",
        stdout(&out)
    );
    for (p, bytes) in after_stop.iter().zip(kept) {
        assert!(
            fs::read(lab.path().join("results").join(p)).unwrap() == bytes,
            "{p:?} was rewritten"
        );
    }
    assert_eq!(lab.stored_jobs(), 3);
}

#[test]
fn resume_keeps_histogram_jobs_and_runs_a_damaged_job_again() {
    let lab = TestLab::new();
    // The sequential read keeps a histogram and no rows.
    lab.write(
        "suites/tiny.yaml",
        &TINY_SUITE.replace("count: 200\n", "count: 200\n    samples: histogram\n"),
    );
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    assert!(lab.roundup(&["run"]).status.success());
    let results = lab.path().join("results");
    let stored = files(&results);
    assert!(
        stored.iter().any(|p| p.ends_with("histogram.parquet"))
            && stored
                .iter()
                .filter(|p| p.ends_with("samples.parquet"))
                .count()
                == 2,
        "{stored:?}"
    );
    let before: Vec<Vec<u8>> = stored
        .iter()
        .map(|p| fs::read(results.join(p)).unwrap())
        .collect();
    // A job run again writes its files anew (under temporary names, then renamed): other
    // inodes, whatever their bytes.
    let inode = |p: &std::path::Path| {
        use std::os::unix::fs::MetadataExt;
        fs::metadata(results.join(p)).unwrap().ino()
    };
    let histogram = stored
        .iter()
        .find(|p| p.ends_with("histogram.parquet"))
        .unwrap();
    let histogram_inode = inode(histogram);
    // One byte of one samples file changed, as a disk or a copy might.
    let damaged = stored
        .iter()
        .find(|p| p.ends_with("samples.parquet"))
        .unwrap();
    let mut bytes = fs::read(results.join(damaged)).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    fs::write(results.join(damaged), &bytes).unwrap();

    let out = lab.roundup(&["run", "--resume"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("1 job completed, 2 kept from earlier runs"),
        "the histogram job kept, the damaged one run again: {}",
        stdout(&out)
    );
    assert_eq!(
        inode(histogram),
        histogram_inode,
        "the histogram job was kept"
    );
    // A simulated drive gives the same bytes again: the damaged file is whole once more.
    assert_eq!(files(&results), stored);
    for (p, bytes) in stored.iter().zip(before) {
        assert!(fs::read(results.join(p)).unwrap() == bytes, "{p:?}");
    }
}

#[test]
fn an_interrupted_rerun_keeps_the_earlier_results_of_the_job_it_stopped() {
    let lab = TestLab::new();
    lab.write(
        "suites/tiny.yaml",
        &TINY_SUITE.replace("count: 200", "count: 200000"),
    );
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    let out = lab.roundup(&["run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let results = lab.path().join("results");
    let read = || -> Vec<(std::path::PathBuf, Vec<u8>)> {
        files(&results)
            .into_iter()
            .map(|p| {
                let bytes = fs::read(results.join(&p)).unwrap();
                (p, bytes)
            })
            .collect()
    };
    let before = read();
    assert_eq!(before.len(), 6);
    // Run again and stopped during the second job: its results from the first run stay,
    // whole, until new ones are complete.
    let l = Lab::load(lab.path()).unwrap();
    let plan = plan::expand(&l, &Selection::default()).unwrap();
    let stop = AtomicBool::new(false);
    let obs = StopAfter {
        after: 1,
        done: Default::default(),
        stop: &stop,
    };
    let err = run::run(&l, &plan, &RunOptions::default(), &obs, &stop).unwrap_err();
    assert!(matches!(err, roundup::Error::Interrupted), "{err}");
    assert!(read() == before, "the stopped re-run changed the results");
}

#[test]
fn a_failed_job_stops_its_suite_on_a_simulated_drive_not_the_next_suite() {
    // The least spare area a drive file may give, used and full: a die's valid data
    // fills it and the random writes fail (src/target/ssd: a die its data fills).
    let lab = TestLab::new();
    lab.write(
        "drives/small.yaml",
        "id: small\nvendor: Acme\nmodel: Small\ncapacity: 256MiB\nssd:\n  link_rate: 280MB/s\n  command_overhead: 10us\n  channels: 2\n  dies_per_channel: 2\n  channel_rate: 40MB/s\n  page: 4KiB\n  pages_per_block: 32\n  read: 50us\n  program: 900us\n  erase: 3500us\n  raw_capacity: 258MiB\n  buffer: 256KiB\n  ftl: page\n  gc_policy: fifo\n  remap: true\n  aged: true\n",
    );
    let read = "{id: read, title: Read, operation: read, pattern: random, block_size: 4KiB, span: full, queue_depth: 1, count: 100, metric: iops}";
    lab.write(
        "suites/s.yaml",
        &format!("name: s\ntitle: S\ntests:\n  - {{id: fill, title: Fill, operation: write, pattern: random, block_size: 4KiB, span: full, queue_depth: 1, count: 2000000, metric: iops}}\n  - {read}\n"),
    );
    lab.write(
        "suites/u.yaml",
        &format!("name: u\ntitle: U\ntests:\n  - {read}\n"),
    );
    let out = lab.roundup(&["run"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("small/s/fill/base/r1: the simulated SSD's die")
            && err.contains("small/s/read/base/r1: not run: it starts from the state the jobs of s before it leave the simulated drive in, and small/s/fill/base/r1 failed"),
        "{err}"
    );
    // The next suite starts from the drive as its file describes it, and runs.
    assert!(
        stdout(&out).contains("run: 1 job completed, 0 kept from earlier runs, 2 failed"),
        "{}",
        stdout(&out)
    );
    let stored = lab.stored_manifests();
    assert_eq!(stored.len(), 1);
    assert!(
        stored[0].to_string_lossy().contains("suite=u/"),
        "{stored:?}"
    );
}

#[test]
fn a_job_run_again_removes_what_a_killed_run_left_behind() {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    assert!(lab.roundup(&["run"]).status.success());
    let dir = lab.path().join(
        "results/drive=sim-a/firmware=A1/suite=tiny/test=sequential-read-128k/variant=base/repeat=1",
    );
    // A run killed mid-job (kill -9, power loss) leaves its temporary files; pid_max is at
    // most 2^22, so this process is gone. One of a live process (this test) is left alone.
    let dead = dir.join(".samples.spill.tmp-4194305");
    let live = dir.join(format!(".samples.parquet.tmp-{}", std::process::id()));
    fs::write(&dead, "raw samples").unwrap();
    fs::write(&live, "being written").unwrap();
    assert!(lab.roundup(&["run"]).status.success());
    assert!(!dead.exists(), "the dead run's spill is removed");
    assert!(live.exists(), "a live process's file stays");
}

#[test]
fn output_that_cannot_be_written_ends_cleanly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    // A plan long enough to fill a pipe (each test repeated 2000 times).
    lab.write(
        "suites/tiny.yaml",
        &TINY_SUITE.replace(
            "    metric: mb_per_s\n",
            "    metric: mb_per_s\n    repeats: 2000\n",
        ),
    );
    let roundup = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_roundup"));
        c.arg("--lab").arg(lab.path()).args(["run", "--dry-run"]);
        c
    };
    // Standard output on a full disk: an error that says so, not a panic.
    let out = roundup()
        .stdout(fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("error: cannot write to standard output: No space left on device")
            && !err.contains("panicked"),
        "{err}"
    );
    // A reader that goes away (`| head -1`): the process ends on SIGPIPE, quietly.
    let mut child = roundup()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

#[test]
fn a_run_stops_at_the_first_job_it_cannot_store() {
    let lab = TestLab::new();
    lab.write("suites/tiny.yaml", TINY_SUITE);
    lab.sim_drive("sim-a", "Alpha", "A1", 8);
    lab.sim_drive("sim-b", "Beta", "B1", 8);
    // results/ is a file: nothing runs.
    lab.write("results", "");
    let out = lab.roundup(&["run"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("results: expected a folder for the results, found a file"),
        "{}",
        stderr(&out)
    );
    // sim-a's results cannot be written (as on a full disk): the run stops at its first
    // job rather than simulate every other job to fail the same way. One worker, so that
    // the order is sim-a, then sim-b.
    fs::remove_file(lab.path().join("results")).unwrap();
    lab.write("results/drive=sim-a", "");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_roundup"))
        .arg("--lab")
        .arg(lab.path())
        .arg("run")
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(
            "results cannot be written, so the run stopped at the first job it could not store"
        ) && err.contains("Not a directory"),
        "{err}"
    );
    let stored = files(&lab.path().join("results"));
    assert_eq!(
        stored,
        vec![std::path::PathBuf::from("drive=sim-a")],
        "{stored:?}"
    );
    // With room again, --resume runs everything.
    fs::remove_file(lab.path().join("results/drive=sim-a")).unwrap();
    let out = lab.roundup(&["run", "--resume"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("6 jobs completed"),
        "{}",
        stdout(&out)
    );
}
