//! The background sample writer: the engine pushes samples into column buffers; full
//! chunks go over a bounded channel to a thread. For a real drive that thread spills them,
//! raw, to a temporary file while the job runs, and encodes them into Parquet with polars
//! when the job is over, so that compression never competes with the engine during the
//! measurement. A simulated drive's clock is virtual, so nothing can disturb its figures:
//! its chunks are encoded as they arrive, without the round trip through the spill.

use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use polars::prelude::*;

use crate::engine::{Sample, SampleSink};
use crate::error::{Error, Result};
use crate::io::Op;
use crate::workload::SampleKeep;

use super::histogram::{Recorder, HISTOGRAM};
use super::manifest::HistogramRecord;
use super::{temp_name, SAMPLES};

/// Rows per chunk handed to the writer thread (and per Parquet row group).
const CHUNK_ROWS: usize = 1 << 18;

/// What the writer thread wrote: rows, and of them writes.
#[derive(Debug, Default, Clone, Copy)]
struct RowCount {
    rows: u64,
    writes: u64,
}

#[derive(Default)]
struct Chunk {
    thread: u32,
    seq: Vec<u64>,
    /// Each op's code in [`OPS`].
    op: Vec<u8>,
    offset: Vec<u64>,
    len: Vec<u32>,
    submit_ns: Vec<u64>,
    latency_ns: Vec<u64>,
    qd: Vec<u32>,
}

impl Chunk {
    fn with_capacity(thread: u32, n: usize) -> Chunk {
        Chunk {
            thread,
            seq: Vec::with_capacity(n),
            op: Vec::with_capacity(n),
            offset: Vec::with_capacity(n),
            len: Vec::with_capacity(n),
            submit_ns: Vec::with_capacity(n),
            latency_ns: Vec::with_capacity(n),
            qd: Vec::with_capacity(n),
        }
    }

    fn rows(&self) -> usize {
        self.seq.len()
    }

    /// Appends the chunk to a spill file: thread, row count, then each column, little-endian.
    fn write_raw(&self, w: &mut impl Write) -> std::io::Result<()> {
        let n = self.rows();
        let mut buf = Vec::with_capacity(12 + n * 41);
        buf.extend_from_slice(&self.thread.to_le_bytes());
        buf.extend_from_slice(&(n as u64).to_le_bytes());
        self.seq
            .iter()
            .for_each(|v| buf.extend_from_slice(&v.to_le_bytes()));
        buf.extend_from_slice(&self.op);
        self.offset
            .iter()
            .for_each(|v| buf.extend_from_slice(&v.to_le_bytes()));
        self.len
            .iter()
            .for_each(|v| buf.extend_from_slice(&v.to_le_bytes()));
        self.submit_ns
            .iter()
            .for_each(|v| buf.extend_from_slice(&v.to_le_bytes()));
        self.latency_ns
            .iter()
            .for_each(|v| buf.extend_from_slice(&v.to_le_bytes()));
        self.qd
            .iter()
            .for_each(|v| buf.extend_from_slice(&v.to_le_bytes()));
        w.write_all(&buf)
    }

    /// Reads the next chunk written by [`write_raw`](Self::write_raw), or `None` at the end.
    fn read_raw(r: &mut impl Read) -> std::io::Result<Option<Chunk>> {
        let mut head = [0u8; 12];
        match r.read_exact(&mut head) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        let thread = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let n = u64::from_le_bytes([
            head[4], head[5], head[6], head[7], head[8], head[9], head[10], head[11],
        ]) as usize;
        let mut body = vec![0u8; n * 41];
        r.read_exact(&mut body)?;
        let (seq, rest) = body.split_at(n * 8);
        let (op, rest) = rest.split_at(n);
        let (offset, rest) = rest.split_at(n * 8);
        let (len, rest) = rest.split_at(n * 4);
        let (submit_ns, rest) = rest.split_at(n * 8);
        let (latency_ns, qd) = rest.split_at(n * 8);
        let u64s = |b: &[u8]| {
            b.chunks_exact(8)
                .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect::<Vec<_>>()
        };
        let u32s = |b: &[u8]| {
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect::<Vec<_>>()
        };
        Ok(Some(Chunk {
            thread,
            seq: u64s(seq),
            op: op.to_vec(),
            offset: u64s(offset),
            len: u32s(len),
            submit_ns: u64s(submit_ns),
            latency_ns: u64s(latency_ns),
            qd: u32s(qd),
        }))
    }

    fn into_frame(self, job: &str) -> PolarsResult<DataFrame> {
        let n = self.rows();
        // Both string columns go in as categories with their codes, which Parquet stores as
        // the dictionary it would otherwise build by hashing every row.
        let job = Categorical8Chunked::from_cats_and_dtype(
            UInt8Chunked::full("job".into(), 0, n),
            categories(&[job])?,
        );
        let op = Categorical8Chunked::from_cats_and_dtype(
            UInt8Chunked::from_vec("op".into(), self.op),
            categories(&OPS)?,
        );
        DataFrame::new(
            n,
            vec![
                job.into_series().into_column(),
                UInt32Chunked::full("thread".into(), self.thread, n).into_column(),
                Column::new("seq".into(), self.seq),
                op.into_series().into_column(),
                Column::new("offset".into(), self.offset),
                Column::new("len".into(), self.len),
                Column::new("submit_ns".into(), self.submit_ns),
                Column::new("latency_ns".into(), self.latency_ns),
                Column::new("qd".into(), self.qd),
            ],
        )
    }
}

/// The values of the `op` column, in code order.
const OPS: [&str; 2] = ["read", "write"];
/// A read's code in [`OPS`].
const READ: u8 = 0;
/// A write's code in [`OPS`].
const WRITE: u8 = 1;

/// The string type whose values are exactly `values` (a Parquet column of strings,
/// dictionary-encoded).
fn categories(values: &[&str]) -> PolarsResult<DataType> {
    Ok(DataType::from_frozen_categories(FrozenCategories::new(
        values.iter().copied(),
    )?))
}

/// The Parquet schema of one job's samples: one row per measured I/O. `job` and `op` are
/// strings, stored as a dictionary.
pub fn sample_schema(job: &str) -> PolarsResult<Schema> {
    Ok(Schema::from_iter([
        Field::new("job".into(), categories(&[job])?),
        Field::new("thread".into(), DataType::UInt32),
        Field::new("seq".into(), DataType::UInt64),
        Field::new("op".into(), categories(&OPS)?),
        Field::new("offset".into(), DataType::UInt64),
        Field::new("len".into(), DataType::UInt32),
        Field::new("submit_ns".into(), DataType::UInt64),
        Field::new("latency_ns".into(), DataType::UInt64),
        Field::new("qd".into(), DataType::UInt32),
    ]))
}

/// The writer thread: encodes chunks into Parquet as they arrive (`spill` is `None`), or
/// spills them while the senders live and encodes the spill afterwards.
fn write_samples(
    rx: std::sync::mpsc::Receiver<Chunk>,
    spill: Option<&Path>,
    file: File,
    job: &str,
    tmp: &Path,
) -> Result<RowCount> {
    let store_err = |e: PolarsError| Error::Store {
        path: tmp.to_path_buf(),
        message: e.to_string(),
    };
    // zstd's fastest level: the encoder runs beside a simulated drive's loop and costs as
    // much as the model; level 3 saves a sixth of the bytes for nearly twice the time.
    let level = polars::polars_utils::compression::ZstdLevel::try_new(1).ok();
    let mut writer = ParquetWriter::new(file)
        .with_compression(ParquetCompression::Zstd(level))
        .batched(&sample_schema(job).map_err(store_err)?)
        .map_err(store_err)?;
    let mut rows = RowCount::default();
    let mut encode = |chunk: Chunk| -> Result<()> {
        rows.rows += chunk.rows() as u64;
        rows.writes += chunk.op.iter().filter(|&&w| w == WRITE).count() as u64;
        writer
            .write_batch(&chunk.into_frame(job).map_err(store_err)?)
            .map_err(store_err)
    };
    match spill {
        None => rx.into_iter().try_for_each(&mut encode)?,
        Some(spill) => {
            let io_err = |e: std::io::Error| Error::io(spill, e);
            let mut out = BufWriter::with_capacity(1 << 20, File::create(spill).map_err(io_err)?);
            for chunk in rx {
                chunk.write_raw(&mut out).map_err(io_err)?;
            }
            out.flush().map_err(io_err)?;
            drop(out);
            let mut input = BufReader::with_capacity(1 << 20, File::open(spill).map_err(io_err)?);
            while let Some(chunk) = Chunk::read_raw(&mut input).map_err(io_err)? {
                encode(chunk)?;
            }
        }
    }
    writer.finish().map_err(store_err)?;
    Ok(rows)
}

/// Writes one job's samples as the test keeps them: a row per I/O to `DIR/samples.parquet`
/// from a background thread, a histogram to `DIR/histogram.parquet` when the job is done,
/// or both. Each engine loop pushes into its own [`ThreadSink`].
pub struct SampleWriter {
    dir: PathBuf,
    keep: SampleKeep,
    tx: Option<SyncSender<Chunk>>,
    handle: Option<JoinHandle<Result<RowCount>>>,
    tmp: PathBuf,
    path: PathBuf,
    recorders: Option<Arc<Mutex<Vec<Recorder>>>>,
}

/// What a finished writer wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Rows in `samples.parquet` (0 when no rows are kept).
    pub rows: u64,
    /// Of them, writes.
    pub writes: u64,
    /// Its SHA-256 (empty when no rows are kept).
    pub sha256: String,
    /// The histogram file, when one is kept.
    pub histogram: Option<HistogramRecord>,
}

/// One engine loop's sample buffer (full chunks go to the writer thread) and histogram.
pub struct ThreadSink {
    chunk: Chunk,
    tx: Option<SyncSender<Chunk>>,
    recorder: Option<(Recorder, Arc<Mutex<Vec<Recorder>>>)>,
}

impl ThreadSink {
    fn flush(&mut self) {
        let thread = self.chunk.thread;
        let chunk = std::mem::replace(&mut self.chunk, Chunk::with_capacity(thread, CHUNK_ROWS));
        // A send fails only if the writer thread stopped on an error, which finish() reports.
        if let Some(tx) = &self.tx {
            let _ = tx.send(chunk);
        }
    }
}

impl SampleSink for ThreadSink {
    #[inline]
    fn push(&mut self, s: Sample) {
        if let Some((r, _)) = &mut self.recorder {
            r.add(&s);
        }
        if self.tx.is_none() {
            return;
        }
        let c = &mut self.chunk;
        c.seq.push(s.seq);
        c.op.push(if s.op == Op::Write { WRITE } else { READ });
        c.offset.push(s.offset);
        c.len.push(s.len);
        c.submit_ns.push(s.submit_ns);
        c.latency_ns.push(s.latency_ns);
        c.qd.push(s.qd);
        if c.seq.len() >= CHUNK_ROWS {
            self.flush();
        }
    }
}

impl Drop for ThreadSink {
    fn drop(&mut self) {
        if self.chunk.rows() > 0 {
            self.flush();
        }
        if let Some((r, done)) = self.recorder.take() {
            if let Ok(mut done) = done.lock() {
                done.push(r);
            }
        }
    }
}

impl SampleWriter {
    /// Starts a writer for job `job` in `dir` (created if needed), keeping what `keep` says.
    /// With `spill`, rows are spilled raw while the job runs and encoded after it (a real
    /// drive, whose figures the encoder's CPU use could disturb); without, they are encoded
    /// as they arrive.
    pub fn create(dir: &Path, job: &str, spill: bool, keep: SampleKeep) -> Result<SampleWriter> {
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let path = dir.join(SAMPLES);
        let tmp = temp_name(&path);
        let (mut tx, mut handle) = (None, None);
        if keep.rows() {
            let file = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
            let (sender, rx) = sync_channel::<Chunk>(4);
            let job = job.to_string();
            let tmp_for_thread = tmp.clone();
            let spill = spill.then(|| temp_name(&dir.join("samples.spill")));
            let h = std::thread::Builder::new()
                .name("sample-writer".into())
                .spawn(move || -> Result<RowCount> {
                    let result = write_samples(rx, spill.as_deref(), file, &job, &tmp_for_thread);
                    if let Some(spill) = spill {
                        let _ = fs::remove_file(&spill);
                    }
                    result
                })
                .map_err(|e| Error::io(&tmp, e))?;
            (tx, handle) = (Some(sender), Some(h));
        }
        Ok(SampleWriter {
            dir: dir.to_path_buf(),
            keep,
            tx,
            handle,
            tmp,
            path,
            recorders: keep.histogram().then(Default::default),
        })
    }

    /// A sink for engine loop `thread`. Every sink must be dropped before [`finish`](Self::finish).
    pub fn sink(&self, thread: u32) -> ThreadSink {
        ThreadSink {
            chunk: if self.keep.rows() {
                Chunk::with_capacity(thread, CHUNK_ROWS)
            } else {
                Chunk::default()
            },
            tx: self.tx.clone(),
            recorder: self
                .recorders
                .as_ref()
                .map(|done| (Recorder::default(), done.clone())),
        }
    }

    fn join(&mut self) -> Result<RowCount> {
        self.tx = None;
        match self.handle.take() {
            Some(h) => h.join().map_err(|_| Error::Store {
                path: self.tmp.clone(),
                message: "the writer thread panicked".into(),
            })?,
            None => Ok(RowCount::default()),
        }
    }

    /// The histograms recorded since the last call (every sink dropped), taken out of the
    /// writer: a round-major test keeps only its measurement window's and puts them back
    /// with [`put_histograms`](Self::put_histograms).
    pub fn take_histograms(&self) -> Vec<Recorder> {
        self.recorders
            .as_ref()
            .and_then(|r| r.lock().ok().map(|mut r| std::mem::take(&mut *r)))
            .unwrap_or_default()
    }

    /// Puts histograms back, for [`finish`](Self::finish) to write.
    pub fn put_histograms(&self, recorders: Vec<Recorder>) {
        if let Some(mut r) = self.recorders.as_ref().and_then(|r| r.lock().ok()) {
            r.extend(recorders);
        }
    }

    /// Waits for the remaining samples, syncs the files and renames them into place; removes
    /// the file of a kind no longer kept (left by an earlier run of the job).
    pub fn finish(mut self) -> Result<Written> {
        let histogram_path = self.dir.join(HISTOGRAM);
        let histogram_tmp = temp_name(&histogram_path);
        let result = (|| {
            let mut written = Written {
                rows: 0,
                writes: 0,
                sha256: String::new(),
                histogram: None,
            };
            if self.keep.rows() {
                let count = self.join()?;
                (written.rows, written.writes) = (count.rows, count.writes);
                File::open(&self.tmp)
                    .and_then(|f| f.sync_all())
                    .map_err(|e| Error::io(&self.tmp, e))?;
                written.sha256 =
                    crate::config::sha256_file(&self.tmp).map_err(|e| Error::io(&self.tmp, e))?;
                fs::rename(&self.tmp, &self.path).map_err(|e| Error::io(&self.path, e))?;
            } else {
                remove_if_there(&self.path)?;
            }
            match self.recorders.take() {
                Some(done) => {
                    let recorders =
                        std::mem::take(&mut *done.lock().map_err(|_| Error::Store {
                            path: histogram_path.clone(),
                            message: "an engine loop panicked while recording".into(),
                        })?);
                    let histogram = Recorder::combine(recorders);
                    histogram.write(&histogram_tmp)?;
                    let sha256 = crate::config::sha256_file(&histogram_tmp)
                        .map_err(|e| Error::io(&histogram_tmp, e))?;
                    fs::rename(&histogram_tmp, &histogram_path)
                        .map_err(|e| Error::io(&histogram_path, e))?;
                    written.histogram = Some(HistogramRecord {
                        rows: histogram.rows() as u64,
                        sha256,
                        sub_bucket_bits: super::histogram::SUB_BITS,
                        time_buckets: super::histogram::TIME_BUCKETS,
                    });
                }
                None => remove_if_there(&histogram_path)?,
            }
            Ok(written)
        })();
        if result.is_err() {
            let _ = fs::remove_file(&self.tmp);
            let _ = fs::remove_file(&histogram_tmp);
        }
        result
    }
}

fn remove_if_there(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(path, e)),
    }
}

impl Drop for SampleWriter {
    fn drop(&mut self) {
        // Not finished (an error or Ctrl-C): stop the thread and remove the partial file.
        if self.handle.is_some() {
            let _ = self.join();
            let _ = fs::remove_file(&self.tmp);
        }
    }
}
