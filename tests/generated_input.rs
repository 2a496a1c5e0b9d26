//! Generated-input tests of every parser a user's file reaches: the trace importers, the
//! suite and drive loaders, the commentary parser. Valid files are generated, then mutated
//! (bytes flipped, lines cut, dropped or repeated, numbers replaced by their limits), and
//! every parser must return a result or an error that names the file, never panic, and
//! allocate no more than a bound proportional to its input. Round trips must hold: trace →
//! fio iolog → trace, trace → Parquet → trace, and suite → plan is the same plan twice.
//! Past the parsers, drive files and the shipped suites' tests with numbers edited so that
//! most still load are run (through the models, the plan and the engine): results or a
//! refusal naming the file, never a panic. Stored results with files damaged are named and
//! left out by `render`, `summary` and `merge`, never published.
//!
//! `ROUNDUP_FUZZ_CASES=N` sets the cases per property (default 2000: each trace format gets
//! that many mutated files and a quarter as many round trips; a long run:
//! `ROUNDUP_FUZZ_CASES=100000 cargo test --release --test generated_input`).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use roundup::config::from_yaml;
use roundup::drive::DriveSpec;
use roundup::error::{Error, InputError};
use roundup::suite::Suite;
use roundup::trace::{import, Format, ImportOptions, Trace, TraceOp, TraceRequest};

// ---------------------------------------------------------------------------------------
// An allocator that counts, per thread, the bytes a parser holds at its peak.

struct Counting;

thread_local! {
    static HELD: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn held(delta: isize) {
    // try_with: the thread's slots may be gone while it exits.
    let _ = HELD.try_with(|h| {
        let now = h.get().saturating_add_signed(delta);
        h.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

// SAFETY: every call is passed to the system allocator unchanged; the counting touches
// only const-initialized thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        held(layout.size() as isize);
        // SAFETY: the caller's layout, as given.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        held(-(layout.size() as isize));
        // SAFETY: allocated by System with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        held(new_size as isize - layout.size() as isize);
        // SAFETY: as for dealloc and alloc.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` and returns its result with the most bytes it held at once beyond what was
/// held before.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = HELD.with(Cell::get);
    PEAK.with(|p| p.set(before));
    let out = f();
    (out, PEAK.with(Cell::get).saturating_sub(before))
}

/// The most a parser may hold for `input` bytes: a request or YAML node per few bytes,
/// with vectors that double.
fn bound(input: usize) -> usize {
    (1 << 20) + 256 * input
}

fn cases() -> u32 {
    std::env::var("ROUNDUP_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

// ---------------------------------------------------------------------------------------
// Mutations of a valid file.

/// One change to a file's bytes.
#[derive(Debug, Clone)]
enum Mutation {
    /// Sets the byte at (position × length) to a value.
    Flip { at: f64, byte: u8 },
    /// Cuts the file at (position × length).
    Truncate { at: f64 },
    /// Drops one line.
    DropLine { at: f64 },
    /// Repeats one line.
    RepeatLine { at: f64 },
    /// Replaces the n-th number of the file by a value at a limit.
    Limit { nth: usize, value: &'static str },
}

const LIMITS: &[&str] = &[
    "0",
    "-1",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "1e308",
    "-0.0",
    "NaN",
    "inf",
    "",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (0.0..1.0f64, any::<u8>()).prop_map(|(at, byte)| Mutation::Flip { at, byte }),
        (0.0..1.0f64).prop_map(|at| Mutation::Truncate { at }),
        (0.0..1.0f64).prop_map(|at| Mutation::DropLine { at }),
        (0.0..1.0f64).prop_map(|at| Mutation::RepeatLine { at }),
        (0..64usize, proptest::sample::select(LIMITS))
            .prop_map(|(nth, value)| Mutation::Limit { nth, value }),
    ]
}

fn mutate(bytes: &[u8], mutations: &[Mutation]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    for m in mutations {
        let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len.saturating_sub(1));
        match *m {
            Mutation::Flip { at: f, byte } if !b.is_empty() => {
                let i = at(f, b.len());
                b[i] = byte;
            }
            Mutation::Truncate { at: f } => b.truncate(at(f, b.len() + 1)),
            Mutation::DropLine { at: f } | Mutation::RepeatLine { at: f } => {
                let mut lines: Vec<&[u8]> = b.split_inclusive(|&c| c == b'\n').collect();
                if lines.is_empty() {
                    continue;
                }
                let i = at(f, lines.len());
                if matches!(m, Mutation::DropLine { .. }) {
                    lines.remove(i);
                } else {
                    lines.insert(i, lines[i]);
                }
                b = lines.concat();
            }
            Mutation::Limit { nth, value } => {
                let text = String::from_utf8_lossy(&b).into_owned();
                let mut spans = Vec::new();
                let mut start = None;
                for (i, c) in text.char_indices() {
                    match (c.is_ascii_digit(), start) {
                        (true, None) => start = Some(i),
                        (false, Some(s)) => {
                            spans.push((s, i));
                            start = None;
                        }
                        _ => {}
                    }
                }
                if let Some(s) = start {
                    spans.push((s, text.len()));
                }
                if let Some(&(s, e)) = spans.get(nth % spans.len().max(1)) {
                    b = format!("{}{value}{}", &text[..s], &text[e..]).into_bytes();
                }
            }
            _ => {}
        }
    }
    b
}

// ---------------------------------------------------------------------------------------
// Traces.

/// The text formats, each with whether it records trims and flushes.
const TEXT_FORMATS: &[(Format, bool)] = &[
    (Format::Blkparse, true),
    (Format::Msr, false),
    (Format::Spc, false),
    (Format::Disksim, false),
    (Format::Mqsim, false),
    (Format::Blkreplay, false),
    (Format::Fio2, true),
    (Format::Fio3, true),
];

/// Requests in issue order, in whole microseconds from 0, 512-byte sectors.
fn requests(with_commands: bool) -> impl Strategy<Value = Vec<TraceRequest>> {
    let op = if with_commands { 0..4u8 } else { 0..2u8 };
    proptest::collection::vec((0..5_000_000u64, op, 0..(1u64 << 32), 1..4096u32), 1..40).prop_map(
        |raw| {
            let mut t = 0;
            raw.into_iter()
                .enumerate()
                .map(|(i, (gap_ns, op, sector, sectors))| {
                    if i > 0 {
                        t += gap_ns / 1000 * 1000;
                    }
                    let op =
                        [TraceOp::Read, TraceOp::Write, TraceOp::Trim, TraceOp::Flush][op as usize];
                    let flush = op == TraceOp::Flush;
                    TraceRequest {
                        time_ns: t,
                        op,
                        offset: if flush { 0 } else { sector * 512 },
                        len: if flush { 0 } else { sectors * 512 },
                        complete_ns: None,
                        qd: None,
                        process: None,
                    }
                })
                .collect()
        },
    )
}

fn op_word(op: TraceOp, read: &'static str, write: &'static str) -> &'static str {
    if op == TraceOp::Read {
        read
    } else {
        write
    }
}

/// `reqs` written in `format`, as a recorder of that format would.
fn write_trace(format: Format, reqs: &[TraceRequest]) -> String {
    let mut out = String::new();
    let secs = |ns: u64| format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000);
    match format {
        Format::Blkparse => {
            for (i, r) in reqs.iter().enumerate() {
                let rwbs = match r.op {
                    TraceOp::Read => "R",
                    TraceOp::Write => "W",
                    TraceOp::Trim => "D",
                    TraceOp::Flush => "FN",
                };
                let t = secs(r.time_ns);
                if r.op == TraceOp::Flush {
                    out += &format!("8,0 0 {} {t} 77 D {rwbs} [p]\n", i + 1);
                } else {
                    let (s, n) = (r.offset / 512, r.len / 512);
                    out += &format!("8,0 0 {} {t} 77 D {rwbs} {s} + {n} [p]\n", i + 1);
                }
            }
        }
        Format::Msr => {
            out += "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n";
            for r in reqs {
                let op = op_word(r.op, "Read", "Write");
                out += &format!(
                    "{},hm,1,{op},{},{},10\n",
                    128_166_372_000_000_000 + r.time_ns / 100,
                    r.offset,
                    r.len
                );
            }
        }
        Format::Spc => {
            for r in reqs {
                let op = op_word(r.op, "r", "w");
                let t = secs(r.time_ns);
                out += &format!("0,{},{},{op},{t}\n", r.offset / 512, r.len);
            }
        }
        Format::Disksim | Format::Mqsim => {
            for r in reqs {
                let flags = op_word(r.op, "1", "0");
                let t = if format == Format::Disksim {
                    format!("{}.{:06}", r.time_ns / 1_000_000, r.time_ns % 1_000_000)
                } else {
                    r.time_ns.to_string()
                };
                let (s, n) = (r.offset / 512, r.len / 512);
                out += &format!("{t} 0 {s} {n} {flags}\n");
            }
        }
        Format::Blkreplay => {
            out += "a recording\nstart ; sector ; length ; op ; replay_delay ; replay_duration\n";
            for r in reqs {
                let op = op_word(r.op, "R", "W");
                let t = secs(r.time_ns);
                out += &format!(
                    "{t} ; {} ; {} ; {op} ; 0.0 ; 0.0\n",
                    r.offset / 512,
                    r.len / 512
                );
            }
        }
        Format::Fio2 | Format::Fio3 => {
            let v3 = format == Format::Fio3;
            out += if v3 {
                "fio version 3 iolog\n"
            } else {
                "fio version 2 iolog\n"
            };
            for r in reqs {
                let t = if v3 {
                    format!("{}.{:03} ", r.time_ns / 1_000, r.time_ns % 1_000)
                } else {
                    String::new()
                };
                let action = match r.op {
                    TraceOp::Read => "read",
                    TraceOp::Write => "write",
                    TraceOp::Trim => "trim",
                    TraceOp::Flush => "sync",
                };
                if r.op == TraceOp::Flush {
                    out += &format!("{t}/dev/sdb {action}\n");
                } else {
                    out += &format!("{t}/dev/sdb {action} {} {}\n", r.offset, r.len);
                }
            }
        }
        Format::Roundup => unreachable!("not a text format"),
    }
    out
}

/// What a format keeps of a request: all of it, but times where the format has none.
fn kept(format: Format, r: &TraceRequest) -> (u64, TraceOp, u64, u32) {
    let t = if format == Format::Fio2 { 0 } else { r.time_ns };
    (t, r.op, r.offset, r.len)
}

#[test]
fn every_text_importer_reads_back_what_its_format_writes() {
    for &(format, commands) in TEXT_FORMATS {
        let mut runner = runner(cases() / 4 + 1);
        runner
            .run(&requests(commands), |reqs| {
                let text = write_trace(format, &reqs);
                let opts = ImportOptions::default();
                let t = import(Path::new("t.trace"), &text, &opts)
                    .map_err(|e| TestCaseError::fail(format!("{format}: {e}\n{text}")))?;
                prop_assert_eq!(t.format, format);
                let got: Vec<_> = t.requests.iter().map(|r| kept(format, r)).collect();
                let want: Vec<_> = reqs.iter().map(|r| kept(format, r)).collect();
                prop_assert_eq!(got, want, "{}", text);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{format}: {e}"));
    }
}

/// Checks an import's outcome on mutated input: a trace, or an error naming the file.
fn judge(file: &Path, outcome: Result<Trace, Error>) -> Result<(), TestCaseError> {
    match outcome {
        Ok(t) => {
            // Whatever was read obeys the rules every importer enforces.
            let mut previous = 0;
            for r in &t.requests {
                prop_assert!(r.check(previous).is_ok(), "{r:?}");
                previous = r.time_ns;
            }
            Ok(())
        }
        Err(Error::Input(errors)) => {
            prop_assert!(!errors.is_empty());
            for e in errors {
                prop_assert_eq!(&e.file, file);
                prop_assert!(!e.message.is_empty());
            }
            Ok(())
        }
        Err(other) => Err(TestCaseError::fail(format!(
            "not an input error: {other:?}"
        ))),
    }
}

#[test]
fn mutated_traces_give_a_trace_or_a_located_error_within_a_memory_bound() {
    let file = Path::new("t.trace");
    for &(format, commands) in TEXT_FORMATS {
        let strategy = (
            requests(commands),
            proptest::collection::vec(mutation(), 1..6),
            any::<bool>(),
            any::<bool>(),
        );
        runner(cases())
            .run(&strategy, |(reqs, mutations, named, skip_bad)| {
                let text = write_trace(format, &reqs);
                let bytes = mutate(text.as_bytes(), &mutations);
                let text = String::from_utf8_lossy(&bytes);
                let opts = ImportOptions {
                    format: named.then_some(format),
                    skip_bad,
                    queue_events: false,
                };
                let (outcome, peak) = peak_of(|| import(file, &text, &opts));
                prop_assert!(
                    peak <= bound(bytes.len()),
                    "{peak} bytes for {}",
                    bytes.len()
                );
                judge(file, outcome)
            })
            .unwrap_or_else(|e| panic!("{format}: {e}"));
    }
}

#[test]
fn arbitrary_bytes_never_break_an_importer() {
    let file = Path::new("t.trace");
    let strategy = (
        proptest::collection::vec(any::<u8>(), 0..2048),
        proptest::option::of(proptest::sample::select(
            TEXT_FORMATS.iter().map(|f| f.0).collect::<Vec<_>>(),
        )),
    );
    runner(cases())
        .run(&strategy, |(bytes, format)| {
            let text = String::from_utf8_lossy(&bytes);
            let opts = ImportOptions {
                format,
                ..Default::default()
            };
            let (outcome, peak) = peak_of(|| import(file, &text, &opts));
            prop_assert!(peak <= bound(bytes.len()));
            judge(file, outcome)
        })
        .unwrap();
}

#[test]
fn a_gzip_trace_that_is_cut_or_corrupted_is_refused_with_its_name() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.fio.gz");
    let strategy = (requests(true), proptest::collection::vec(mutation(), 1..4));
    runner(cases() / 20 + 1)
        .run(&strategy, |(reqs, mutations)| {
            let text = write_trace(Format::Fio3, &reqs);
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(text.as_bytes()).unwrap();
            let bytes = mutate(&gz.finish().unwrap(), &mutations);
            std::fs::write(&path, &bytes).unwrap();
            judge(
                &path,
                roundup::store::import_trace(&path, &ImportOptions::default()),
            )
        })
        .unwrap();
}

#[test]
fn a_trace_survives_fio_iolog_and_parquet_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("t.parquet");
    let file = Path::new("t.trace");
    // The first import sets the times relative to the first request, in fio's microseconds.
    let strategy = requests(true).prop_map(|reqs| {
        let mut t = import(
            file,
            &write_trace(Format::Fio3, &reqs),
            &ImportOptions::default(),
        )
        .expect("a valid trace");
        for r in &mut t.requests {
            r.time_ns = r.time_ns / 1_000 * 1_000;
        }
        t
    });
    let n = std::cell::Cell::new(0u32);
    runner(cases() / 4 + 1)
        .run(&strategy, |trace| {
            let iolog = trace.to_fio_iolog("/dev/sdb");
            let back = import(file, &iolog, &ImportOptions::default())
                .map_err(|e| TestCaseError::fail(format!("{e}\n{iolog}")))?;
            prop_assert_eq!(&back.requests, &trace.requests);
            // Parquet for one case in ten: it goes through the file system.
            n.set(n.get() + 1);
            if n.get() % 10 == 0 {
                roundup::store::write_trace(&trace, &parquet).unwrap();
                let read =
                    roundup::store::import_trace(&parquet, &ImportOptions::default()).unwrap();
                prop_assert_eq!(&read.requests, &trace.requests);
            }
            Ok(())
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------
// Suites, drives and commentary.

/// The lab's own files of a kind (`suites`, `drives`), as (path, text).
fn shipped(kind: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(kind);
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| {
            let name = format!("{kind}/{}", p.file_name().unwrap().to_string_lossy());
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// Checks a loader's error: it names the file, says what was expected, and points at a
/// line unless it is about the whole file.
fn located(e: &InputError, file: &Path) -> Result<(), TestCaseError> {
    prop_assert_eq!(&e.file, file);
    prop_assert!(!e.message.is_empty());
    prop_assert!(
        e.line > 0 || e.field.is_empty(),
        "a field without a line: {e}"
    );
    Ok(())
}

fn mutated_yaml<T: serde::de::DeserializeOwned>(kind: &str) {
    let files = shipped(kind);
    assert!(!files.is_empty());
    let strategy = (
        proptest::sample::select(files),
        proptest::collection::vec(mutation(), 1..6),
    );
    runner(cases())
        .run(&strategy, |((name, text), mutations)| {
            let bytes = mutate(text.as_bytes(), &mutations);
            let file = Path::new(&name);
            let (outcome, peak) = peak_of(|| {
                roundup::config::utf8_text(file, &bytes)
                    .and_then(|text| from_yaml::<T>(file, text).map(|_| ()))
            });
            prop_assert!(peak <= bound(bytes.len()), "{peak} bytes");
            match outcome {
                Ok(()) => Ok(()),
                Err(e) => located(&e, file),
            }
        })
        .unwrap_or_else(|e| panic!("{kind}: {e}"));
}

#[test]
fn mutated_suites_load_or_say_where_they_are_wrong() {
    mutated_yaml::<Suite>("suites");
}

#[test]
fn mutated_drives_load_or_say_where_they_are_wrong() {
    mutated_yaml::<DriveSpec>("drives");
}

#[test]
fn a_lab_with_a_mutated_file_loads_or_says_where() {
    // The lab's own cross-checks (a suite's name against its file, a drive's firmwares,
    // profiles and traces named by tests) after the files parse.
    let lab = common::TestLab::new();
    let suites = shipped("suites");
    let drives = shipped("drives");
    let strategy = (
        0..suites.len(),
        0..drives.len(),
        any::<bool>(),
        proptest::collection::vec(mutation(), 1..4),
    );
    runner(cases() / 20 + 1)
        .run(&strategy, |(s, d, suite_mutated, mutations)| {
            for dir in ["suites", "drives"] {
                let _ = std::fs::remove_dir_all(lab.path().join(dir));
            }
            let (suite, drive) = (&suites[s], &drives[d]);
            let (bad, good) = if suite_mutated {
                (suite, drive)
            } else {
                (drive, suite)
            };
            let bytes = mutate(bad.1.as_bytes(), &mutations);
            let path = lab.path().join(&bad.0);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
            lab.write(&good.0, &good.1);
            match roundup::lab::Lab::load(lab.path()) {
                Ok(_) => Ok(()),
                Err(Error::Input(errors)) => {
                    for e in &errors {
                        prop_assert!(!e.message.is_empty());
                        prop_assert!(e.file.ends_with(&bad.0) || e.file.ends_with(&good.0), "{e}");
                    }
                    Ok(())
                }
                Err(other) => Err(TestCaseError::fail(format!("{other:?}"))),
            }
        })
        .unwrap();
}

/// The numbers of a YAML file's indented lines (a drive's model, a suite's tests; comments
/// left out), as the byte spans of their text: digits, a fraction and an exponent.
fn indented_numbers(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let body = line.split('#').next().unwrap_or("");
        if line.starts_with("  ") {
            let b = body.as_bytes();
            let mut i = 0;
            while i < b.len() {
                let starts = b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
                if !starts {
                    i += 1;
                    continue;
                }
                let s = i;
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                    i += 1;
                }
                if i + 1 < b.len()
                    && b[i] == b'e'
                    && (b[i + 1] == b'-' || b[i + 1].is_ascii_digit())
                {
                    i += 2;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
                spans.push((line_start + s, line_start + i));
            }
        }
        line_start += line.len();
    }
    spans
}

/// `number` changed as a reviewer editing a file might: to a small whole number, or
/// scaled, whole where it was whole (so that most changes still parse).
fn edited_number(number: &str, pick: usize) -> String {
    const SMALL: [&str; 4] = ["0", "1", "2", "3"];
    const SCALES: [f64; 5] = [0.1, 0.5, 0.9, 2.0, 10.0];
    if pick < SMALL.len() {
        return SMALL[pick].to_string();
    }
    let v: f64 = number.parse().unwrap_or(1.0);
    let scaled = v * SCALES[(pick - SMALL.len()) % SCALES.len()];
    if number.bytes().all(|c| c.is_ascii_digit()) {
        format!("{}", scaled.round() as u64)
    } else {
        format!("{scaled}")
    }
}

/// `text` with the numbers at some of `spans` edited: each edit is (which span, modulo their
/// count; which change, as [`edited_number`] takes it), one edit a span.
fn with_edits(text: &str, spans: &[(usize, usize)], edits: &[(usize, usize)]) -> String {
    let mut edited = text.to_string();
    if spans.is_empty() {
        return edited;
    }
    let mut chosen: Vec<(usize, usize)> = edits
        .iter()
        .map(|&(n, pick)| (n % spans.len(), pick))
        .collect();
    chosen.sort();
    chosen.dedup_by_key(|c| c.0);
    // Back to front, so that the earlier spans stay where they are.
    for &(n, pick) in chosen.iter().rev() {
        let (s, e) = spans[n];
        edited.replace_range(s..e, &edited_number(&text[s..e], pick));
    }
    edited
}

/// Judges a `roundup run` of a lab with an edited `file`: it gave results (`Ok(true)`), or
/// exited 1 with an error naming `file` (`Ok(false)`); never a panic or another exit.
/// `input` (what was run) is shown when it fails.
fn ran_or_refused(
    out: &std::process::Output,
    file: &str,
    input: &str,
) -> Result<bool, TestCaseError> {
    let err = common::stderr(out);
    prop_assert!(
        !err.contains("panicked"),
        "{file} edited to:\n{input}\n{err}"
    );
    match out.status.code() {
        Some(0) => Ok(true),
        Some(1) => {
            prop_assert!(err.contains(file), "{file}: {err}");
            Ok(false)
        }
        other => Err(TestCaseError::fail(format!(
            "{file}: exit {other:?}\n{input}\n{err}"
        ))),
    }
}

/// A short run of each kind a model has a path for: random writes at depth, random reads
/// of another size, sequential writes.
const MODEL_SUITE: &str = "name: edited\ntitle: Edited drives\nseed: 3\ntests:\n  - id: rw\n    title: 4K random write\n    operation: write\n    pattern: random\n    block_size: 4KiB\n    span: 64MiB\n    queue_depth: 4\n    count: 300\n    metric: iops\n  - id: rr\n    title: 16K random read\n    operation: read\n    pattern: random\n    block_size: 16KiB\n    span: 64MiB\n    queue_depth: 2\n    count: 200\n    metric: iops\n  - id: sw\n    title: 128K sequential write\n    operation: write\n    pattern: sequential\n    block_size: 128KiB\n    span: 64MiB\n    queue_depth: 8\n    count: 100\n    metric: mb_per_s\n";

#[test]
fn a_simulated_drive_with_edited_numbers_runs_or_is_refused_by_name() {
    // The parsers' tests above stop at loading; these edits mostly parse, and the model
    // then builds the drive and runs it: every mechanism's key (issues 31 and 33 added
    // many) at 0, 1 or scaled must give results or a refusal naming the file, never a
    // panic or a crash. Each case is a process (`roundup run`).
    // Each model drive file with its numbers' spans, found once.
    type ModelFile = (String, String, Vec<(usize, usize)>);
    let drives: Vec<ModelFile> = shipped("drives")
        .into_iter()
        .filter(|(_, t)| t.contains("\nssd:\n") || t.contains("\nhdd:\n") || t.contains("\nsim:\n"))
        .map(|(name, text)| {
            let spans = indented_numbers(&text);
            (name, text, spans)
        })
        .filter(|(_, _, spans)| !spans.is_empty())
        .collect();
    assert!(drives.len() > 20);
    let lab = common::TestLab::new();
    lab.write("suites/edited.yaml", MODEL_SUITE);
    let strategy = (
        proptest::sample::select(drives),
        proptest::collection::vec((0..256usize, 0..9usize), 1..4),
    );
    runner(cases() / 50 + 1)
        .run(&strategy, |((name, text, spans), edits)| {
            let edited = with_edits(&text, &spans, &edits);
            let _ = std::fs::remove_dir_all(lab.path().join("drives"));
            let _ = std::fs::remove_dir_all(lab.path().join("results"));
            lab.write(&name, &edited);
            ran_or_refused(&lab.roundup(&["run", "-q"]), &name, &edited)?;
            Ok(())
        })
        .unwrap();
}

/// Every test of the shipped suites, as the text of its entry (comment lines left out; its
/// suite's name beside it), cut for a short run: each duration and interval 200 ms, each
/// warm-up 50 ms, each span of a GiB or more 256 MiB (a whole-drive span stays whole).
fn shipped_tests() -> Vec<(String, String)> {
    let mut tests = Vec::new();
    for (name, text) in shipped("suites") {
        let Some((_, entries)) = text.split_once("\ntests:\n") else {
            continue;
        };
        let mut entry = String::new();
        // An entry runs from its `  - ` line to the next, or to the next line of the suite
        // itself (unindented).
        for line in entries.lines() {
            let body = line.trim_start();
            if body.starts_with('#') || body.is_empty() {
                continue;
            }
            if !line.starts_with("  ") {
                break;
            }
            if line.starts_with("  - ") && !entry.is_empty() {
                tests.push((name.clone(), std::mem::take(&mut entry)));
            }
            let indent = &line[..line.len() - body.len()];
            let (key, value) = body
                .trim_start_matches("- ")
                .split_once(':')
                .unwrap_or((body, ""));
            let value = value.trim();
            let cut = match key {
                "duration" | "interval" if !value.is_empty() => Some("200ms"),
                "warmup" if !value.is_empty() => Some("50ms"),
                "span" if value.ends_with("GiB") || value.ends_with("TiB") => Some("256MiB"),
                _ => None,
            };
            match cut {
                Some(v) => entry.push_str(&format!("{indent}{key}: {v}\n")),
                None => entry.push_str(&format!("{line}\n")),
            }
        }
        if !entry.is_empty() {
            tests.push((name, entry));
        }
    }
    tests
}

#[test]
fn a_suite_with_edited_numbers_runs_or_is_refused_by_name() {
    // The loaders' tests above stop once a suite loads; a reviewer's edit that loads (a
    // queue depth of 0 or 10 times the shipped one, a block size scaled, a fill of 3) then
    // goes through the plan, the preconditions, the variants, rounds and bursts to the
    // engine. Every shipped test, one or two to a suite, with one to three of its numbers
    // edited as the drives' are above, on a simulated drive: results, or a refusal naming
    // the suite's file, never a panic. Each case is a process (`roundup run`).
    let tests = shipped_tests();
    assert!(tests.len() > 40, "{} tests", tests.len());
    let lab = common::TestLab::new();
    lab.sim_drive("acme", "Model", "1", 4);
    // How many cases ran to results, and how many were refused.
    let (ran, refused) = (Cell::new(0u32), Cell::new(0u32));
    let strategy = (
        proptest::collection::vec(proptest::sample::select(tests), 1..3),
        proptest::collection::vec((0..256usize, 0..9usize), 1..4),
    );
    runner(cases() / 10 + 1)
        .run(&strategy, |(picked, edits)| {
            // Each entry's `id:` made unique within the suite.
            let mut text = String::new();
            for (i, (_, entry)) in picked.iter().enumerate() {
                for line in entry.lines() {
                    let body = line.trim_start().trim_start_matches("- ");
                    match body.strip_prefix("id:") {
                        Some(_) => {
                            let head = &line[..line.len() - body.len()];
                            text.push_str(&format!("{head}id: test-{i}\n"));
                        }
                        None => text.push_str(&format!("{line}\n")),
                    }
                }
            }
            let edited = with_edits(&text, &indented_numbers(&text), &edits);
            let suite = format!("name: edited\ntitle: Edited tests\nseed: 5\ntests:\n{edited}");
            let from: Vec<&str> = picked.iter().map(|(name, _)| name.as_str()).collect();
            let _ = std::fs::remove_dir_all(lab.path().join("results"));
            lab.write("suites/edited.yaml", &suite);
            let shown = format!("{from:?}:\n{suite}");
            let out = lab.roundup(&["run", "-q"]);
            let tally = if ran_or_refused(&out, "suites/edited.yaml", &shown)? {
                &ran
            } else {
                &refused
            };
            tally.set(tally.get() + 1);
            Ok(())
        })
        .unwrap();
    // A third of the cases at least must run (about half do), or the engine was hardly
    // reached.
    eprintln!("{} ran, {} refused", ran.get(), refused.get());
    assert!(
        ran.get() > refused.get() / 2,
        "{} ran, {} refused",
        ran.get(),
        refused.get()
    );
}

/// A summary row's job folder under `results/`, as the store files it.
fn job_folder(row: &serde_json::Value) -> String {
    format!(
        "drive={}/firmware={}/suite={}/test={}/variant={}/repeat={}",
        row["drive"].as_str().unwrap_or_default(),
        row["firmware"].as_str().unwrap_or_default(),
        row["suite"].as_str().unwrap_or_default(),
        row["test"].as_str().unwrap_or_default(),
        row["variant"].as_str().unwrap_or_default(),
        row["repeat"]
    )
}

/// `roundup summary --json` of `lab`, each row by its job folder.
fn summary_rows(
    lab: &common::TestLab,
) -> Result<std::collections::BTreeMap<String, serde_json::Value>, TestCaseError> {
    let out = lab.roundup(&["summary", "--json"]);
    let err = common::stderr(&out);
    prop_assert!(
        out.status.success() && !err.contains("panicked"),
        "summary: {err}"
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout)
        .map_err(|e| TestCaseError::fail(format!("summary's JSON: {e}")))?;
    Ok(rows.into_iter().map(|r| (job_folder(&r), r)).collect())
}

#[test]
fn damaged_results_are_named_and_left_out_never_published() {
    // A results folder kept for years, copied or merged meets a bad disk or a cut copy:
    // one to three of its stored files (manifests, raw samples, histograms) with bytes set,
    // lines dropped or the file cut. A damaged Parquet file can still parse, with other
    // figures; `render` and `summary` must name each one and leave its job out, and show
    // every job whose files are whole as before; `merge` must refuse the folder and copy
    // nothing, `check` fail naming it; none may panic. Each case is four processes. A
    // tenth as many cases as the parsers' tests: damage that still parses is the rarer kind
    // (a byte of the leading `PAR1`, which readers skip, is one), and 41 cases missed it
    // where 201 find it.
    let base = common::TestLab::new();
    base.write(
        "suites/tiny.yaml",
        &common::TINY_SUITE.replace("count: 200\n", "count: 200\n    samples: histogram\n"),
    );
    base.sim_drive("acme", "Model", "1", 4);
    assert!(base.roundup(&["run", "-q"]).status.success());
    let results = base.path().join("results");
    let stored: Vec<(std::path::PathBuf, Vec<u8>)> = common::files(&results)
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(results.join(&p)).unwrap();
            (p, bytes)
        })
        .collect();
    assert!(
        stored.iter().any(|(p, _)| p.ends_with("histogram.parquet"))
            && stored.iter().any(|(p, _)| p.ends_with("samples.parquet")),
        "{stored:?}"
    );
    let whole = summary_rows(&base).unwrap();
    assert_eq!(whole.len(), 3);
    let lab = common::TestLab::new();
    lab.write(
        "suites/tiny.yaml",
        &std::fs::read_to_string(base.path().join("suites/tiny.yaml")).unwrap(),
    );
    lab.sim_drive("acme", "Model", "1", 4);
    let fresh = common::TestLab::new();
    let strategy = proptest::collection::vec(
        (0..stored.len(), proptest::collection::vec(mutation(), 1..3)),
        1..4,
    );
    runner(cases() / 10 + 1)
        .run(&strategy, |damage| {
            let results = lab.path().join("results");
            let _ = std::fs::remove_dir_all(&results);
            let _ = std::fs::remove_dir_all(lab.path().join("site"));
            for (p, bytes) in &stored {
                let path = results.join(p);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, bytes).unwrap();
            }
            // The files whose bytes the mutations changed (one may set a byte to itself).
            let mut changed = std::collections::BTreeSet::new();
            for (i, mutations) in &damage {
                let (p, _) = &stored[*i];
                let now = std::fs::read(results.join(p)).unwrap();
                let after = mutate(&now, mutations);
                if after != stored[*i].1 {
                    changed.insert(p.clone());
                }
                std::fs::write(results.join(p), after).unwrap();
            }
            let parquet: Vec<&std::path::PathBuf> = changed
                .iter()
                .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
                .collect();
            let shown = format!("{damage:?}");

            let out = lab.roundup(&["render", "-q"]);
            let err = common::stderr(&out);
            prop_assert!(
                out.status.success() && !err.contains("panicked"),
                "render: {shown}\n{err}"
            );
            // Each damaged Parquet file is named, or its job's manifest where that was
            // damaged too (the job is left out either way).
            let named = |err: &str, p: &std::path::Path| {
                let job = results.join(p.parent().unwrap_or(p));
                err.contains(&results.join(p).display().to_string())
                    || err.contains(&job.join("manifest.json").display().to_string())
            };
            for p in &parquet {
                prop_assert!(
                    named(&err, p),
                    "render did not name {}: {shown}\n{err}",
                    p.display()
                );
            }
            // Every job whose files are whole shows the figures it had; none whose Parquet
            // was damaged is shown.
            let rows = summary_rows(&lab)?;
            for (folder, row) in &whole {
                let damaged = |ext: &str| {
                    changed
                        .iter()
                        .any(|p| p.starts_with(folder) && p.extension().is_some_and(|e| e == ext))
                };
                if damaged("parquet") {
                    prop_assert!(!rows.contains_key(folder), "{folder} shown: {shown}");
                } else if !damaged("json") {
                    prop_assert_eq!(rows.get(folder), Some(row), "{}: {}", folder, shown);
                }
            }

            let _ = std::fs::remove_dir_all(fresh.path().join("results"));
            let out = fresh.roundup(&["merge", &results.display().to_string()]);
            let err = common::stderr(&out);
            prop_assert!(!err.contains("panicked"), "merge: {shown}\n{err}");
            if !parquet.is_empty() {
                prop_assert_eq!(out.status.code(), Some(1), "merge: {}\n{}", shown, err);
                prop_assert!(
                    parquet.iter().any(|p| named(&err, p)),
                    "merge named no damaged file: {shown}\n{err}"
                );
                prop_assert!(
                    common::files(&fresh.path().join("results")).is_empty(),
                    "merge copied files: {shown}"
                );
            }

            let out = lab.roundup(&["check"]);
            let err = common::stderr(&out);
            prop_assert!(!err.contains("panicked"), "check: {shown}\n{err}");
            for p in &parquet {
                prop_assert_eq!(out.status.code(), Some(1), "check: {}\n{}", shown, err);
                prop_assert!(
                    named(&err, p),
                    "check did not name {}: {shown}\n{err}",
                    p.display()
                );
            }
            Ok(())
        })
        .unwrap();
}

/// A commentary page: an introduction and slots, some with a fingerprint line.
fn commentary() -> impl Strategy<Value = String> {
    let slot = (
        "[a-z0-9][a-z0-9._-]{0,20}",
        proptest::option::of("[0-9a-f]{64}"),
        "[ -~]{0,80}",
    );
    ("[ -~]{0,60}", proptest::collection::vec(slot, 0..8)).prop_map(|(intro, slots)| {
        let mut s = format!("{intro}\n\n");
        for (id, fp, text) in slots {
            s += &format!("## {id}\n");
            if let Some(fp) = fp {
                s += &format!("<!-- figures: {fp} -->\n");
            }
            s += &format!("{text}\n\n");
        }
        s
    })
}

#[test]
fn mutated_commentary_parses_or_names_each_line() {
    let file = Path::new("commentary/suites/demo.md");
    let strategy = (commentary(), proptest::collection::vec(mutation(), 0..6));
    runner(cases())
        .run(&strategy, |(text, mutations)| {
            let bytes = mutate(text.as_bytes(), &mutations);
            let text = String::from_utf8_lossy(&bytes);
            let (outcome, peak) = peak_of(|| roundup::commentary::parse(file, &text));
            prop_assert!(peak <= bound(bytes.len()));
            match outcome {
                Ok(c) => {
                    for slot in &c.slots {
                        prop_assert!(slot.line >= 1);
                    }
                    Ok(())
                }
                Err(errors) => {
                    prop_assert!(!errors.is_empty());
                    for e in &errors {
                        located(e, file)?;
                        prop_assert!(e.line >= 1, "{e}");
                    }
                    Ok(())
                }
            }
        })
        .unwrap();
}

#[test]
fn a_suite_gives_the_same_plan_every_time() {
    let lab = common::TestLab::new();
    for (name, text) in shipped("suites") {
        lab.write(&name, &text);
    }
    for (name, text) in shipped("drives") {
        lab.write(&name, &text);
    }
    for p in ["gaming", "heavy", "light"] {
        let rel = format!("suites/profiles/{p}.yaml");
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&rel)).unwrap();
        lab.write(&rel, &text);
    }
    let loaded = roundup::lab::Lab::load(lab.path()).expect("the shipped lab loads");
    let suites: Vec<String> = loaded.suites.keys().cloned().collect();
    let drives: Vec<String> = loaded.drives.keys().cloned().collect();
    let strategy = (
        proptest::sample::subsequence(suites.clone(), 0..=suites.len()),
        proptest::sample::subsequence(drives.clone(), 0..=drives.len()),
    );
    runner(cases() / 20 + 1)
        .run(&strategy, |(suites, drives)| {
            let sel = roundup::plan::Selection {
                suites,
                drives,
                tests: Vec::new(),
            };
            let plan = |sel: &roundup::plan::Selection| {
                let p = roundup::plan::expand(&loaded, sel).expect("a plan");
                serde_json::to_string(&p.jobs).unwrap()
            };
            let first = plan(&sel);
            prop_assert_eq!(&first, &plan(&sel));
            // The order the selection names things in does not matter.
            let reversed = roundup::plan::Selection {
                suites: sel.suites.iter().rev().cloned().collect(),
                drives: sel.drives.iter().rev().cloned().collect(),
                tests: Vec::new(),
            };
            prop_assert_eq!(&first, &plan(&reversed));
            Ok(())
        })
        .unwrap();
}
