//! Import speed: a trace of a million requests (MQSim format, 1M lines) must import in
//! under two seconds (issue 5). Prints the time of each of three imports.
//!
//!   cargo bench --bench trace_import

use std::io::Write;
use std::time::Instant;

use roundup::store::import_trace;
use roundup::trace::ImportOptions;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("million.trace");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for i in 0..1_000_000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        writeln!(
            f,
            "{} {} {} {} {}",
            1_000 * i,
            x % 4,
            (x >> 8) % 200_000_000,
            [8, 16, 64, 256][(x % 4) as usize],
            (x >> 3) & 1
        )
        .expect("write");
    }
    drop(f);
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    for round in 1..=3 {
        let t = Instant::now();
        let trace = import_trace(&path, &ImportOptions::default()).expect("import");
        let s = t.elapsed().as_secs_f64();
        println!(
            "round {round}: {} requests ({:.1} MB) imported in {s:.3} s (goal < 2 s)",
            trace.requests.len(),
            size as f64 / 1e6
        );
    }
}
