//! Trace importers: one file per text format behind [`TextFormat`] (as fio's `engines/`
//! keeps one file per engine), the rules every format shares in [`Collector`], and detection
//! from the content. roundup's own Parquet trace file is read by the store (its
//! `import_trace` takes every format).

mod blkparse;
mod blkreplay;
mod disksim;
mod fields;
mod fio;
mod msr;
mod spc;

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::str::FromStr;

use serde::Serialize;

use super::{Trace, TraceDevice, TraceRequest};
use crate::error::{Error, InputError, Result};
use fields::{is_num, natural_cmp, Bad};

/// A trace file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// blkparse's default text output.
    Blkparse,
    /// MSR Cambridge / SNIA IOTTA CSV (Windows filetime).
    Msr,
    /// UMass / SPC (`ASU,LBA,bytes,opcode,seconds`).
    Spc,
    /// DiskSim ASCII (time in ms).
    Disksim,
    /// MQSim's DiskSim variant (time in ns).
    Mqsim,
    /// blkreplay `.load`.
    Blkreplay,
    /// fio iolog version 2.
    Fio2,
    /// fio iolog version 3.
    Fio3,
    /// roundup's own Parquet trace file.
    Roundup,
}

const NAMES: [(Format, &str); 9] = [
    (Format::Blkparse, "blkparse"),
    (Format::Msr, "msr"),
    (Format::Spc, "spc"),
    (Format::Disksim, "disksim"),
    (Format::Mqsim, "mqsim"),
    (Format::Blkreplay, "blkreplay"),
    (Format::Fio2, "fio2"),
    (Format::Fio3, "fio3"),
    (Format::Roundup, "roundup"),
];

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = NAMES
            .iter()
            .find(|(k, _)| k == self)
            .map(|(_, n)| *n)
            .unwrap_or("?");
        f.write_str(name)
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Format, String> {
        let s = if s == "fio" { "fio3" } else { s };
        NAMES
            .iter()
            .find(|(_, n)| *n == s)
            .map(|(k, _)| *k)
            .ok_or_else(|| {
                format!(
                    "unknown trace format {s:?}; expected one of: {}",
                    NAMES.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", ")
                )
            })
    }
}

/// How to import.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// The format, or detect it from the content.
    pub format: Option<Format>,
    /// Skip malformed lines (and count them) instead of stopping at the first.
    pub skip_bad: bool,
    /// blkparse: take the queue (`Q`) events instead of the issue (`D`) events.
    pub queue_events: bool,
}

/// One text trace format: reads a trace's lines into a [`Collector`], which checks every
/// request the same way.
trait TextFormat {
    /// Reads every line of `text`.
    fn read(&self, c: &mut Collector, text: &str) -> Result<()>;
}

/// The reader of a text format; `None` for roundup's own (Parquet) format.
fn reader(format: Format, opts: &ImportOptions) -> Option<Box<dyn TextFormat>> {
    Some(match format {
        Format::Blkparse => Box::new(blkparse::Blkparse {
            queue_events: opts.queue_events,
        }),
        Format::Msr => Box::new(msr::Msr),
        Format::Spc => Box::new(spc::Spc),
        Format::Disksim => Box::new(disksim::Disksim { unit_ns: 1_000_000 }),
        Format::Mqsim => Box::new(disksim::Disksim { unit_ns: 1 }),
        Format::Blkreplay => Box::new(blkreplay::Blkreplay),
        Format::Fio2 => Box::new(fio::FioLog { v3: false }),
        Format::Fio3 => Box::new(fio::FioLog { v3: true }),
        Format::Roundup => return None,
    })
}

/// Reads a text trace file, gzip-compressed or not. roundup's own Parquet trace file is the
/// store's to read (its `import_trace` takes every format).
pub fn import_text_file(path: &Path, opts: &ImportOptions) -> Result<Trace> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    import_text_bytes(path, bytes, opts)
}

/// Imports the bytes of a text trace file, gzip-compressed or not; `path` names it in
/// errors.
pub fn import_text_bytes(path: &Path, bytes: Vec<u8>, opts: &ImportOptions) -> Result<Trace> {
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes.as_slice())
            .read_to_end(&mut out)
            .map_err(|e| InputError::new(path, "", format!("expected a gzip file: {e}")))?;
        out
    } else {
        bytes
    };
    // Not strict UTF-8: traces carry Latin-1 in their headers (a blkreplay author's name)
    // and arbitrary bytes in fields no importer reads (blkparse's process names). A byte
    // that is not UTF-8 becomes U+FFFD, so one in a field that is read fails there, with
    // its line.
    let text = String::from_utf8_lossy(&bytes);
    import(path, &text, opts)
}

/// Tells the format from the first lines of a text trace.
pub fn detect(text: &str) -> Option<Format> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(64)
        .collect();
    let first = *lines.first()?;
    if first.starts_with("fio version 2 iolog") {
        return Some(Format::Fio2);
    }
    if first.starts_with("fio version 3 iolog") {
        return Some(Format::Fio3);
    }
    if text
        .lines()
        .any(|l| l.trim_start().starts_with("start ;") || l.trim_start().starts_with("start;"))
    {
        return Some(Format::Blkreplay);
    }
    for l in &lines {
        let commas: Vec<&str> = l.split(',').map(str::trim).collect();
        if commas.len() == 7
            && commas[0].bytes().all(|b| b.is_ascii_digit())
            && ["read", "write"].contains(&commas[3].to_ascii_lowercase().as_str())
        {
            return Some(Format::Msr);
        }
        if commas.len() == 5
            && is_num(commas[1])
            && ["r", "w"].contains(&commas[3].to_ascii_lowercase().as_str())
        {
            return Some(Format::Spc);
        }
        let words: Vec<&str> = l.split_whitespace().collect();
        if words.len() >= 8
            && words[0]
                .split_once(',')
                .is_some_and(|(a, b)| is_num(a) && is_num(b))
            && is_num(words[3])
        {
            return Some(Format::Blkparse);
        }
        if words.len() == 5 && words.iter().all(|w| is_num(w)) {
            // DiskSim writes times as decimal milliseconds; MQSim as whole nanoseconds.
            return Some(if words[0].contains('.') {
                Format::Disksim
            } else {
                Format::Mqsim
            });
        }
    }
    None
}

/// Collects requests, enforcing the rules every format shares.
pub(super) struct Collector<'a> {
    pub(super) file: &'a Path,
    skip_bad: bool,
    skipped: usize,
    pub(super) out: Vec<TraceRequest>,
    last_time: u64,
    /// The devices seen, by name, each with its index.
    devices: BTreeMap<String, u32>,
    /// The device of each request in `out`.
    device_of: Vec<u32>,
}

impl Collector<'_> {
    /// Handles one line's parse result, a request on the device the line names (one of
    /// several in a multi-device trace).
    fn take_on(
        &mut self,
        at: Line,
        device: &str,
        parsed: std::result::Result<Option<TraceRequest>, Bad>,
    ) -> Result<()> {
        let before = self.out.len();
        self.take(at, parsed)?;
        if self.out.len() > before {
            let device = device.trim();
            let d = match self.devices.get(device) {
                Some(&d) => d,
                None => {
                    let d = self.devices.len() as u32;
                    self.devices.insert(device.to_string(), d);
                    d
                }
            };
            self.device_of.resize(before, 0);
            self.device_of.push(d);
        }
        Ok(())
    }

    /// Lays the devices out one after another, in the natural order of their names
    /// (numbers by value), each over its highest byte touched rounded up to a MiB; returns
    /// them, or nothing for a trace of one device.
    fn lay_out_devices(&mut self) -> Vec<TraceDevice> {
        if self.devices.len() < 2 {
            return Vec::new();
        }
        self.device_of.resize(self.out.len(), 0);
        let mut extent = vec![0u64; self.devices.len()];
        for (r, &d) in self.out.iter().zip(&self.device_of) {
            let end = r.offset.saturating_add(r.len as u64);
            extent[d as usize] = extent[d as usize].max(end);
        }
        let mut names: Vec<(&String, u32)> = self.devices.iter().map(|(n, &d)| (n, d)).collect();
        names.sort_by(|a, b| natural_cmp(a.0, b.0));
        const MIB: u64 = 1 << 20;
        let mut base = vec![0u64; self.devices.len()];
        let mut next = 0u64;
        let mut out = Vec::new();
        for (name, d) in names {
            let size = extent[d as usize].div_ceil(MIB).max(1).saturating_mul(MIB);
            base[d as usize] = next;
            out.push(TraceDevice {
                name: name.clone(),
                base: next,
                extent: size,
            });
            next = next.saturating_add(size);
        }
        for (r, &d) in self.out.iter_mut().zip(&self.device_of) {
            r.offset = r.offset.saturating_add(base[d as usize]);
        }
        out
    }

    /// A malformed line: counted where bad lines are skipped, an error naming its line and
    /// the column of the field at fault otherwise.
    fn bad(&mut self, at: Line, bad: Bad) -> Result<()> {
        if self.skip_bad {
            self.skipped += 1;
            Ok(())
        } else {
            let column = bad.column(at.text);
            Err(InputError::new(self.file, "", bad.message)
                .at(at.number, column)
                .into())
        }
    }

    /// Handles one line's parse result.
    fn take(
        &mut self,
        at: Line,
        parsed: std::result::Result<Option<TraceRequest>, Bad>,
    ) -> Result<()> {
        match parsed {
            Ok(Some(r)) => {
                if let Err(m) = r.check(self.last_time) {
                    return self.bad(at, m.into());
                }
                self.last_time = r.time_ns;
                self.out.push(r);
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(b) => self.bad(at, b),
        }
    }
}

/// A line of a trace as the file has it: its 1-based number and its text.
#[derive(Debug, Clone, Copy)]
struct Line<'t> {
    number: usize,
    text: &'t str,
}

impl<'t> Line<'t> {
    /// The lines of `text`, numbered from 1.
    fn all(text: &'t str) -> impl Iterator<Item = Line<'t>> {
        text.lines().enumerate().map(|(i, text)| Line {
            number: i + 1,
            text,
        })
    }
}

/// Imports a text trace; `file` names it in errors.
pub fn import(file: &Path, text: &str, opts: &ImportOptions) -> Result<Trace> {
    let format = match opts.format {
        Some(f) => f,
        None => detect(text).ok_or_else(|| {
            InputError::new(file, "", "cannot tell the trace format from its content; give --format (blkparse, msr, spc, disksim, mqsim, blkreplay, fio2, fio3)")
        })?,
    };
    let mut c = Collector {
        file,
        skip_bad: opts.skip_bad,
        skipped: 0,
        out: Vec::new(),
        last_time: 0,
        devices: BTreeMap::new(),
        device_of: Vec::new(),
    };
    match reader(format, opts) {
        Some(reader) => reader.read(&mut c, text)?,
        None => {
            return Err(
                InputError::new(file, "", "a roundup trace file is Parquet, not text").into(),
            )
        }
    }
    if c.out.is_empty() {
        return Err(InputError::new(
            file,
            "",
            format!(
                "no requests found (read as {format}{})",
                if c.skipped > 0 {
                    format!(", {} malformed lines skipped", c.skipped)
                } else {
                    String::new()
                }
            ),
        )
        .into());
    }
    // Times relative to the first request.
    let t0 = c.out[0].time_ns;
    for r in &mut c.out {
        r.time_ns -= t0;
        r.complete_ns = r.complete_ns.map(|t| t.saturating_sub(t0));
    }
    let devices = c.lay_out_devices();
    if let Some(last) = devices.last() {
        if last.base.checked_add(last.extent).is_none() {
            return Err(InputError::new(
                file,
                "",
                format!(
                    "expected devices that fit one after another below 2^64 bytes; device {} \
                     starts at {} and spans {} bytes",
                    last.name, last.base, last.extent
                ),
            )
            .into());
        }
    }
    Ok(Trace {
        requests: c.out,
        format,
        skipped: c.skipped,
        devices,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::TraceOp;

    fn imp(text: &str) -> Result<Trace> {
        import(Path::new("t.trace"), text, &ImportOptions::default())
    }

    #[test]
    fn detects_each_format() {
        assert_eq!(
            detect("8,33 30 1 0.001368096 5025 D R 540544 + 8 [x]\n"),
            Some(Format::Blkparse)
        );
        assert_eq!(
            detect("128166372003061629,hm,1,Read,3154509824,32768,2123\n"),
            Some(Format::Msr)
        );
        assert_eq!(detect("0,303567,3584,w,0.000000\n"), Some(Format::Spc));
        assert_eq!(detect("0.000000 0 23456 8 1\n"), Some(Format::Disksim));
        assert_eq!(detect("938513000 4 264719034 16 0\n"), Some(Format::Mqsim));
        assert_eq!(
            detect("fio version 3 iolog\n0 /dev/sdb add\n"),
            Some(Format::Fio3)
        );
        assert_eq!(
            detect(
                "prose\n####\nstart ; sector; length ; op ; a ; b\n 0.0 ; 8 ; 8 ; W ; 0.0 ; 0.0\n"
            ),
            Some(Format::Blkreplay)
        );
        assert_eq!(detect("hello world\n"), None);
    }

    #[test]
    fn bytes_that_are_not_utf8_fail_only_in_a_field_that_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.blkparse");
        // Latin-1 in the process names of the first two events (blkparse prints them as the
        // kernel has them), and in the sector of the third.
        let mut text = b"8,0 0 1 0.001 77 D W 100 + 8 [caf\xe9]\n".to_vec();
        text.extend_from_slice(b"8,0 0 2 0.002 77 D R 200 + 8 [\xff]\n");
        let ok = import_text_file(&path_with(&path, &text), &ImportOptions::default()).unwrap();
        assert_eq!(ok.requests.len(), 2);
        assert_eq!(ok.requests[1].offset, 200 * 512);
        text.extend_from_slice(b"8,0 0 3 0.003 77 D R 3\xe900 + 8 [x]\n");
        let err = import_text_file(&path_with(&path, &text), &ImportOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("t.blkparse:3") && err.contains("sector"),
            "{err}"
        );
        let skipped = import_text_file(
            &path_with(&path, &text),
            &ImportOptions {
                skip_bad: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!((skipped.requests.len(), skipped.skipped), (2, 1));
    }

    fn path_with(path: &Path, bytes: &[u8]) -> std::path::PathBuf {
        std::fs::write(path, bytes).unwrap();
        path.to_path_buf()
    }

    #[test]
    fn blkparse_takes_issue_events_and_pairs_completions() {
        let t = imp("8,33 30 1 0.001000000 5025 Q R 540544 + 8 [x]\n8,33 30 2 0.001368096 5025 D R 540544 + 8 [x]\n8,33 30 3 0.001500000 0 C R 540544 + 8 [0]\n8,33 1 4 0.002 77 D WS 100 + 16 [y]\nCPU30 (8,33):\n Reads Queued: 1, 4KiB\n").unwrap();
        assert_eq!(t.requests.len(), 2);
        assert_eq!(t.requests[0].offset, 540544 * 512);
        assert_eq!(t.requests[0].len, 4096);
        assert_eq!(t.requests[0].complete_ns, Some(1_500_000 - 1_368_096));
        assert_eq!(t.requests[1].op, TraceOp::Write);
        assert_eq!(t.requests[1].time_ns, 2_000_000 - 1_368_096);
        assert_eq!(t.requests[1].process, Some(77));
        let q = import(
            Path::new("t"),
            "8,33 30 1 0.001000000 5025 Q R 540544 + 8 [x]\n",
            &ImportOptions {
                queue_events: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(q.requests.len(), 1);
        // Two devices: a completion pairs with the issue on its own device.
        let t = imp("8,16 0 1 0.001 1 D R 8 + 8 [x]\n8,32 0 2 0.002 1 D R 8 + 8 [x]\n8,32 0 3 0.003 0 C R 8 + 8 [0]\n").unwrap();
        assert_eq!(t.devices.len(), 2);
        assert_eq!(t.requests[0].complete_ns, None);
        assert_eq!(t.requests[1].complete_ns, Some(2_000_000));
        assert_eq!(t.requests[1].offset, (1 << 20) + 4096);
    }

    #[test]
    fn the_devices_of_a_trace_are_laid_out_one_after_another() {
        // MQSim: devices 10 and 2 (numeric order: 2 first), and 2 again.
        let t = imp("0 10 0 8 1\n5 2 4096 8 0\n9 2 0 8 1\n").unwrap();
        let names: Vec<(&str, u64, u64)> = t
            .devices
            .iter()
            .map(|d| (d.name.as_str(), d.base, d.extent))
            .collect();
        // Device 2 reaches 2 MiB + 4 KiB: three MiB for it, then device 10.
        assert_eq!(names, [("2", 0, 3 << 20), ("10", 3 << 20, 1 << 20)]);
        let offsets: Vec<u64> = t.requests.iter().map(|r| r.offset).collect();
        assert_eq!(
            offsets,
            [3 << 20, 4096 * 512, 0],
            "device 10 after device 2"
        );
        assert!(t.requests.iter().all(|r| r.process.is_none()));
        // SPC: ASUs 0 and 1; MSR: two disks of a host; fio: two files.
        let t = imp("0,8,512,w,0.0\n1,8,512,w,0.1\n").unwrap();
        assert_eq!(
            (t.requests[0].offset, t.requests[1].offset),
            (4096, (1 << 20) + 4096)
        );
        let t = imp("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n1,hm,0,Read,0,4096,1\n2,hm,1,Read,0,4096,1\n").unwrap();
        assert_eq!(t.devices.len(), 2);
        assert_eq!(t.requests[1].offset, 1 << 20);
        let t =
            imp("fio version 2 iolog\n/a write 0 4096\n/b write 0 4096\n/a read 0 4096\n").unwrap();
        let offsets: Vec<u64> = t.requests.iter().map(|r| r.offset).collect();
        assert_eq!(offsets, [0, 1 << 20, 0]);
        let t = imp("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n1,hm,10,Read,0,4096,1\n2,hm,2,Read,0,4096,1\n").unwrap();
        let names: Vec<&str> = t.devices.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["hm,2", "hm,10"], "numbers by value");
        // An LBA whose byte offset does not fit is an error at its line, not a wrapped offset.
        let e = imp("0,36028797018963968,512,w,0.0\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains(":1:") && e.contains("LBA"), "{e}");
        // Devices that each fit but do not fit one after another: an error, not offsets
        // stuck at the top of the address space.
        let e = imp("0 0 35000000000000000 8 1\n1 1 35000000000000000 8 1\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("expected devices that fit one after another below 2^64 bytes"),
            "{e}"
        );
        // One device: nothing moves.
        let t = imp("0 3 8 8 1\n1 3 16 8 1\n").unwrap();
        assert!(t.devices.is_empty());
        assert_eq!(t.requests[0].offset, 8 * 512);
    }

    #[test]
    fn msr_spc_disksim_fio() {
        let t = imp("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n128166372003061629,hm,1,Read,3154509824,32768,2123\n128166372013061629,hm,1,Write,0,4096,10\n").unwrap();
        assert_eq!(t.format, Format::Msr);
        assert_eq!(t.requests[1].time_ns, 1_000_000_000);
        assert_eq!(t.requests[0].complete_ns, Some(212_300));
        let t = imp("0,303567,3584,w,0.000000\n1,1,512,r,0.5\n").unwrap();
        assert_eq!(
            (t.requests[0].offset, t.requests[1].time_ns),
            (303567 * 512, 500_000_000)
        );
        let t = imp("0.000000 0 23456 8 1\n1.5 0 99 16 0\n").unwrap();
        assert_eq!(
            (t.requests[1].time_ns, t.requests[1].op, t.requests[1].len),
            (1_500_000, TraceOp::Write, 8192)
        );
        let t = imp("fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdb open\n5 /dev/sdb read 4096 4096\n7 /dev/sdb trim 0 8192\n9 /dev/sdb close\n").unwrap();
        assert_eq!(t.requests.len(), 2);
        assert_eq!(
            (t.requests[1].op, t.requests[1].time_ns),
            (TraceOp::Trim, 2_000)
        );
        let again = imp(&t.to_fio_iolog("/dev/sdb")).unwrap();
        assert_eq!(
            again.requests, t.requests,
            "fio iolog v3 export reads back the same"
        );
        let t = imp("fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb write 0 4096\n/dev/sdb close\n").unwrap();
        assert_eq!(t.requests.len(), 1);
    }

    #[test]
    fn bad_input_names_the_line_and_the_column_of_its_field() {
        let e = imp("0.0 0 1 8 1\n0.5 0 2 x 1\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "t.trace:2:9: expected a whole number for the size in sectors, found \"x\""
        );
        // Columns count characters of the line as the file has it, leading blanks too.
        let e = imp("0.0 0 1 8 1\n  0.5 0 2 8 x\n").unwrap_err().to_string();
        assert!(
            e.starts_with("t.trace:2:13: expected a whole number for the flags"),
            "{e}"
        );
        let e = imp("0,1,512,r,0.0\n1,1,512,é,0.5\n")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "t.trace:2:9: expected opcode r or w, found \"é\"");
        let e = imp("1.0 0 1 8 1\n0.5 0 2 8 1\n").unwrap_err().to_string();
        assert!(e.starts_with("t.trace:2: time goes backwards"), "{e}");
        let e = imp("0.0 0 1 0 1\n").unwrap_err().to_string();
        assert_eq!(e, "t.trace:1: expected a request size above zero, found 0");
        // A request past the end of a 64-bit offset is refused, not wrapped round to zero.
        let e = imp("fio version 3 iolog\n0 t add\n0 t open\n0 t read 18446744073709551615 4096\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "t.trace:4: expected a request that ends below 2^64 bytes, found 4096 bytes at offset 18446744073709551615"
        );
        let e = imp("0,1,512,r,-1\n").unwrap_err().to_string();
        assert!(e.contains("negative"), "{e}");
        // The field is quoted as the file has it.
        let e =
            imp("128166372003061629,hm,1,Read,0,4096,1\n128166372003061729,hm,1,Wrte,0,4096,1\n")
                .unwrap_err()
                .to_string();
        assert_eq!(e, "t.trace:2:25: expected Read or Write, found \"Wrte\"");
        let e = imp("hello\n").unwrap_err().to_string();
        assert!(e.contains("cannot tell the trace format"), "{e}");
        let e = import(
            Path::new("t"),
            "",
            &ImportOptions {
                format: Some(Format::Mqsim),
                ..Default::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("no requests"), "{e}");
        let t = import(
            Path::new("t"),
            "0.0 0 1 8 1\n0.5 0 2 x 1\n1.0 0 3 8 0\n",
            &ImportOptions {
                skip_bad: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!((t.requests.len(), t.skipped), (2, 1));
        assert!("nope"
            .parse::<Format>()
            .unwrap_err()
            .contains("expected one of: blkparse"));
    }
}
