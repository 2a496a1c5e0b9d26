//! roundup's own trace file: one Parquet row per request (zstd), readable by any Parquet
//! reader: `time_ns`, `op`, `offset`, `len`, and the nullable `complete_ns`, `qd`, `process`.
//! A trace recorded on several devices keeps their layout in the file's key-value metadata
//! ([`DEVICES_KEY`]: a JSON list of `name`, `base`, `extent`).

use std::fs::File;
use std::path::Path;

use polars::prelude::*;

use crate::error::{Error, Result};
use crate::trace::{Format, ImportOptions, Trace, TraceDevice, TraceOp, TraceRequest};

/// The key of a multi-device trace's layout in the file's metadata.
pub const DEVICES_KEY: &str = "roundup.trace.devices";

/// Reads a trace file in any format: roundup's own Parquet trace file here (by its magic
/// bytes, or when `opts` names the format), every text format through
/// [`crate::trace::import_text_bytes`] (the file read once).
pub fn import_trace(path: &Path, opts: &ImportOptions) -> Result<Trace> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    if bytes.starts_with(b"PAR1") || opts.format == Some(Format::Roundup) {
        return read_trace(path);
    }
    crate::trace::import_text_bytes(path, bytes, opts)
}

/// Writes `trace` to `path` (through a temporary file, renamed when complete).
pub fn write_trace(trace: &Trace, path: &Path) -> Result<()> {
    let r = &trace.requests;
    let n = r.len();
    let err = |e: PolarsError| Error::Store {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut df = DataFrame::new(
        n,
        vec![
            Column::new(
                "time_ns".into(),
                r.iter().map(|x| x.time_ns).collect::<Vec<_>>(),
            ),
            Column::new(
                "op".into(),
                r.iter().map(|x| x.op.word()).collect::<Vec<_>>(),
            ),
            Column::new(
                "offset".into(),
                r.iter().map(|x| x.offset).collect::<Vec<_>>(),
            ),
            Column::new("len".into(), r.iter().map(|x| x.len).collect::<Vec<_>>()),
            Column::new(
                "complete_ns".into(),
                r.iter().map(|x| x.complete_ns).collect::<Vec<_>>(),
            ),
            Column::new("qd".into(), r.iter().map(|x| x.qd).collect::<Vec<_>>()),
            Column::new(
                "process".into(),
                r.iter().map(|x| x.process).collect::<Vec<_>>(),
            ),
        ],
    )
    .map_err(err)?;
    let devices = (!trace.devices.is_empty())
        .then(|| serde_json::to_string(&trace.devices))
        .transpose()
        .map_err(|e| Error::Store {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?
        .map(|json| KeyValueMetadata::from_static(vec![(DEVICES_KEY.to_string(), json)]));
    let tmp = super::temp_name(path);
    let result = (|| {
        let file = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        ParquetWriter::new(file)
            .with_compression(ParquetCompression::Zstd(None))
            .with_key_value_metadata(devices)
            .finish(&mut df)
            .map_err(err)?;
        File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Reads a trace written by [`write_trace`].
pub fn read_trace(path: &Path) -> Result<Trace> {
    let bad = |m: String| Error::Store {
        path: path.to_path_buf(),
        message: m,
    };
    let mut layout = None;
    let df = std::fs::File::open(path)
        .map_err(PolarsError::from)
        .and_then(|file| {
            let mut reader = ParquetReader::new(file);
            layout = reader
                .get_metadata()?
                .key_value_metadata()
                .iter()
                .flatten()
                .find(|kv| kv.key == DEVICES_KEY)
                .map(|kv| kv.value.clone().unwrap_or_default());
            reader.finish()
        })
        .map_err(|e| bad(format!("cannot read the trace ({e})")))?;
    let devices: Vec<TraceDevice> = match layout {
        None => Vec::new(),
        Some(json) => serde_json::from_str(&json).map_err(|e| {
            bad(format!(
                "metadata {DEVICES_KEY}: expected a list of devices, each with name, base \
                 and extent ({e})"
            ))
        })?,
    };
    let col = |name: &str| {
        df.column(name).map_err(|_| {
            bad(format!(
                "expected a column {name:?} in a roundup trace file"
            ))
        })
    };
    let time = col("time_ns")?
        .u64()
        .map_err(|e| bad(e.to_string()))?
        .clone();
    let op = col("op")?.str().map_err(|e| bad(e.to_string()))?.clone();
    let offset = col("offset")?
        .u64()
        .map_err(|e| bad(e.to_string()))?
        .clone();
    let len = col("len")?.u32().map_err(|e| bad(e.to_string()))?.clone();
    let done = col("complete_ns")?
        .u64()
        .map_err(|e| bad(e.to_string()))?
        .clone();
    let qd = col("qd")?.u32().map_err(|e| bad(e.to_string()))?.clone();
    let process = col("process")?
        .u32()
        .map_err(|e| bad(e.to_string()))?
        .clone();
    let mut requests: Vec<TraceRequest> = Vec::with_capacity(df.height());
    for i in 0..df.height() {
        let word = op.get(i).unwrap_or("");
        let r = TraceRequest {
            time_ns: time
                .get(i)
                .ok_or_else(|| bad(format!("row {i}: no time")))?,
            op: TraceOp::from_word(word)
                .ok_or_else(|| bad(format!("row {i}: unknown op {word:?}")))?,
            offset: offset
                .get(i)
                .ok_or_else(|| bad(format!("row {i}: no offset")))?,
            len: len
                .get(i)
                .ok_or_else(|| bad(format!("row {i}: no length")))?,
            complete_ns: done.get(i),
            qd: qd.get(i),
            process: process.get(i),
        };
        let previous = requests.last().map_or(0, |p| p.time_ns);
        r.check(previous)
            .map_err(|m| bad(format!("row {i}: {m}")))?;
        requests.push(r);
    }
    Ok(Trace {
        requests,
        format: Format::Roundup,
        skipped: 0,
        devices,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A layout that is not a list of devices is an error naming the key, not a panic or
    /// a trace without it.
    #[test]
    fn a_damaged_device_layout_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let trace = Trace {
            requests: Vec::new(),
            format: Format::Roundup,
            skipped: 0,
            devices: Vec::new(),
        };
        write_trace(&trace, &path).unwrap();
        let mut df = ParquetReader::new(File::open(&path).unwrap())
            .finish()
            .unwrap();
        for layout in ["not json", r#"[{"name": "0", "base": 0}]"#] {
            let kv =
                KeyValueMetadata::from_static(vec![(DEVICES_KEY.to_string(), layout.to_string())]);
            ParquetWriter::new(File::create(&path).unwrap())
                .with_key_value_metadata(Some(kv))
                .finish(&mut df)
                .unwrap();
            let e = read_trace(&path).unwrap_err().to_string();
            assert!(
                e.contains("metadata roundup.trace.devices: expected a list of devices"),
                "{e}"
            );
        }
    }
}
