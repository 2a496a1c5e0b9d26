//! Files and block devices with O_DIRECT, served by a pool of threads doing pread/pwrite
//! (the `psync` engine): one thread per queue slot, so exactly the queue depth is in flight.

use std::fs::{self, File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crate::drive::PathTarget;
use crate::error::{Error, Result};
use crate::io::{Command, EngineChoice, IoRequest, Op};
use crate::workload::{DataFiller, DataKind};
use crate::workload::{IoOptions, RingOptions};

use super::diskstats::BlockStat;
use super::uring::{too_many_fixed_buffers, UringQueue};
use super::{device, AlignedBuf, Completion, IoQueue, Target, TargetError, TargetInfo, TargetKind};

/// The sidecar that marks a file as created by roundup (so it may be written and removed).
pub fn marker_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".roundup");
    PathBuf::from(s)
}

/// A file or block device opened for direct I/O.
pub struct FileTarget {
    file: Arc<File>,
    info: TargetInfo,
    /// The block device whose counters a job reads (the file's filesystem's, or itself).
    block: Option<BlockStat>,
}

fn direct_error(path: &Path, e: std::io::Error) -> Error {
    if e.raw_os_error() == Some(libc::EINVAL) {
        Error::Target(TargetError::NoDirectIo {
            path: path.to_path_buf(),
        })
    } else if e.kind() == ErrorKind::PermissionDenied {
        Error::Target(TargetError::NotWritable {
            path: path.to_path_buf(),
            error: e,
        })
    } else {
        Error::io(path, e)
    }
}

fn open_direct(path: &Path, write: bool, create: bool) -> Result<File> {
    OpenOptions::new()
        .read(true)
        .write(write)
        .create_new(create)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .map_err(|e| direct_error(path, e))
}

impl FileTarget {
    /// Opens (or creates and fills) the target of drive `drive`.
    pub fn open(
        drive: &str,
        path: &Path,
        spec: &PathTarget,
        writes: bool,
        destroy: &[String],
    ) -> Result<FileTarget> {
        Self::open_as(drive, path, spec, writes, destroy, writes)
    }

    /// What [`open`](Self::open) would report and refuse, with nothing created or written:
    /// the target is opened read-only, a file roundup would create is described from the
    /// `size:` it would have on its folder's device.
    pub fn probe(
        drive: &str,
        path: &Path,
        spec: &PathTarget,
        writes: bool,
        destroy: &[String],
    ) -> Result<TargetInfo> {
        match (fs::metadata(path), spec.size) {
            (Err(e), Some(size)) if e.kind() == ErrorKind::NotFound => {
                check_size(path, size)?;
                let dir = match path.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d,
                    _ => Path::new("."),
                };
                let meta = fs::metadata(dir).map_err(|e| Error::io(dir, e))?;
                let (major, minor) = device::dev_numbers(&meta);
                Ok(file_info(path, size, device::identity(major, minor)))
            }
            _ => Ok(Self::open_as(drive, path, spec, writes, destroy, false)?.info),
        }
    }

    /// Opens the target, checking it as `writes` says and opening it for writing if
    /// `for_writing`.
    fn open_as(
        drive: &str,
        path: &Path,
        spec: &PathTarget,
        writes: bool,
        destroy: &[String],
        for_writing: bool,
    ) -> Result<FileTarget> {
        let meta = match fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                let Some(size) = spec.size else {
                    return Err(TargetError::Missing {
                        drive: drive.into(),
                        path: path.into(),
                    }
                    .into());
                };
                create_filled(path, size)?;
                fs::metadata(path).map_err(|e| Error::io(path, e))?
            }
            Err(e) => return Err(Error::io(path, e)),
        };
        let ft = meta.file_type();
        let (major, minor) = device::dev_numbers(&meta);
        let identity = device::identity(major, minor);
        if ft.is_block_device() {
            let file = open_direct(path, for_writing, false)?;
            lock(&file, drive, path)?;
            let (capacity, logical, physical) =
                device::geometry(&file).map_err(|e| Error::io(path, e))?;
            if writes {
                // Buffered reads for the signature check: open a second handle.
                let mut plain = File::open(path).map_err(|e| Error::io(path, e))?;
                device::guard_writes(
                    path,
                    &mut plain,
                    &meta,
                    spec.destroy_data.as_deref(),
                    destroy,
                )?;
            }
            Ok(FileTarget {
                file: Arc::new(file),
                block: BlockStat::of(&meta),
                info: TargetInfo {
                    kind: TargetKind::BlockDevice,
                    path: Some(path.display().to_string()),
                    capacity,
                    logical_block: logical,
                    physical_block: physical,
                    identity,
                },
            })
        } else if ft.is_file() {
            if writes && !marker_path(path).exists() && !spec.overwrite {
                return Err(TargetError::NotCreatedByRoundup {
                    drive: drive.into(),
                    path: path.into(),
                }
                .into());
            }
            if let Some(size) = spec.size {
                if size != meta.len() && marker_path(path).exists() {
                    return Err(TargetError::SizeChanged {
                        drive: drive.into(),
                        path: path.into(),
                        found: meta.len(),
                        expected: size,
                    }
                    .into());
                }
            }
            let file = open_direct(path, for_writing, false)?;
            lock(&file, drive, path)?;
            Ok(FileTarget {
                file: Arc::new(file),
                info: file_info(path, meta.len(), identity),
                block: BlockStat::of(&meta),
            })
        } else {
            Err(TargetError::NotFileOrDevice {
                drive: drive.into(),
                path: path.into(),
            }
            .into())
        }
    }
}

/// Holds the target for this run (an exclusive BSD lock, released when the file is
/// closed): two runs on one drive would measure each other. udev takes a shared lock on a
/// block device for the moment it probes it (after a writer closes it, say), and holding
/// the exclusive one keeps it from probing during the run (systemd's convention for
/// block devices), so a lock that is taken is tried again for two seconds first.
fn lock(file: &File, drive: &str, path: &Path) -> Result<()> {
    use std::os::fd::AsRawFd;
    const TRIES: u32 = 40;
    for attempt in 1..=TRIES {
        // SAFETY: flock on a descriptor the File owns; it touches no memory.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EWOULDBLOCK) {
            return Err(Error::io(path, e));
        }
        if attempt < TRIES {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    Err(TargetError::Locked {
        drive: drive.into(),
        path: path.into(),
    }
    .into())
}

/// What a file of `len` bytes on the device with `identity` offers: the device decides the
/// direct-I/O granularity.
fn file_info(
    path: &Path,
    len: u64,
    identity: std::collections::BTreeMap<String, String>,
) -> TargetInfo {
    let logical = identity
        .get("logical_block_size")
        .and_then(|s| s.parse().ok())
        .unwrap_or(512u32);
    let physical = identity
        .get("physical_block_size")
        .and_then(|s| s.parse().ok())
        .unwrap_or(logical);
    TargetInfo {
        kind: TargetKind::File,
        path: Some(path.display().to_string()),
        capacity: len / logical as u64 * logical as u64,
        logical_block: logical,
        physical_block: physical,
        identity: identity
            .into_iter()
            .map(|(k, v)| (format!("backing_{k}"), v))
            .collect(),
    }
}

fn check_size(path: &Path, size: u64) -> Result<()> {
    if size % 4096 != 0 {
        return Err(TargetError::BadSize {
            path: path.into(),
            size,
        }
        .into());
    }
    Ok(())
}

/// Creates `path` with `size` bytes of incompressible data (so reads hit real blocks, not
/// holes), written with O_DIRECT, then marks it as roundup's.
fn create_filled(path: &Path, size: u64) -> Result<()> {
    const CHUNK: usize = 1 << 20;
    check_size(path, size)?;
    let file = open_direct(path, true, true)?;
    let marker = marker_path(path);
    fs::write(
        &marker,
        "created by roundup; this file may be overwritten and removed by roundup\n",
    )
    .map_err(|e| Error::io(&marker, e))?;
    let mut buf = AlignedBuf::new(CHUNK);
    let mut filler = DataFiller::new(DataKind::Incompressible, 1.0, 0);
    let mut off = 0u64;
    let result = (|| {
        while off < size {
            let n = ((size - off) as usize).min(CHUNK);
            filler.fill(&mut buf.as_mut_slice()[..n]);
            file.write_all_at(&buf.as_slice()[..n], off)
                .map_err(|e| direct_error(path, e))?;
            off += n as u64;
        }
        file.sync_all().map_err(|e| Error::io(path, e))
    })();
    if result.is_err() {
        let _ = fs::remove_file(path);
        let _ = fs::remove_file(&marker);
    }
    result
}

impl Target for FileTarget {
    fn info(&self) -> &TargetInfo {
        &self.info
    }

    fn parallel(&self) -> bool {
        true
    }

    fn block_stat(&self) -> Option<BlockStat> {
        self.block.clone()
    }

    fn fio_file(&self) -> Option<super::FioFile> {
        Some(super::FioFile {
            filename: self.info.path.clone().unwrap_or_default(),
            bench: None,
            kind: self.info.kind,
        })
    }

    fn trim(&mut self, offset: u64, len: u64) -> Result<()> {
        discard_range(&self.file, offset, len).map_err(|e| {
            Error::Target(TargetError::Os {
                target: self.info.path.clone().unwrap_or_default(),
                action: format!("cannot discard (purge) {len} bytes at {offset}"),
                error: e,
            })
        })
    }

    fn queues(
        &mut self,
        threads: u32,
        depth: u32,
        engine: EngineChoice,
        io: &IoOptions,
    ) -> Result<Vec<Box<dyn IoQueue + Send + '_>>> {
        let origin = Instant::now();
        let name = self.info.path.clone().unwrap_or_default();
        let ring = io.ring;
        let asks_ring = ring.any();
        if let Some((_, why)) = engine_refusal(&self.info, engine, threads, depth, &ring) {
            return Err(Error::Target(TargetError::Unsupported(format!(
                "{name}: {why}"
            ))));
        }
        let mut out: Vec<Box<dyn IoQueue + Send + '_>> = Vec::new();
        for _ in 0..threads {
            let uring = match engine {
                EngineChoice::Psync => None,
                // The engine hands a job to fio before it asks for queues.
                EngineChoice::Fio => {
                    return Err(Error::Target(TargetError::Internal(
                        "queues asked of a file target for a job fio runs",
                    )))
                }
                // A job that asks for ring options gets a ring or an error, never psync.
                EngineChoice::Auto if !asks_ring => {
                    UringQueue::new(self.file.clone(), depth, origin, name.clone(), ring).ok()
                }
                EngineChoice::Auto | EngineChoice::IoUring => Some(
                    UringQueue::new(self.file.clone(), depth, origin, name.clone(), ring).map_err(
                        |e| {
                            Error::Target(TargetError::NoUring {
                                target: name.clone(),
                                error: e,
                            })
                        },
                    )?,
                ),
            };
            match uring {
                Some(q) => out.push(Box::new(q)),
                // psync, asked or `auto` on a kernel without io_uring.
                None => {
                    if let Some(m) = psync_too_deep(threads, depth) {
                        return Err(Error::Target(TargetError::Unsupported(format!(
                            "{name}: {m}"
                        ))));
                    }
                    let q = PsyncQueue::new(self.file.clone(), depth, origin, name.clone())?;
                    out.push(Box::new(q));
                }
            }
        }
        Ok(out)
    }
}

/// What `engine` cannot run on this file or device, and the test's key it comes from, or
/// `None`: psync takes no `io_uring:` options and runs a thread an I/O (at most
/// [`PSYNC_MAX_SLOTS`]); polled completions need a device with poll queues; registered
/// buffers are at most the kernel's 16,384 a ring. The preflight asks before any job runs,
/// [`Target::queues`] again as it makes the queues.
pub fn engine_refusal(
    info: &TargetInfo,
    engine: EngineChoice,
    threads: u32,
    depth: u32,
    ring: &RingOptions,
) -> Option<(&'static str, String)> {
    if engine == EngineChoice::Psync {
        if ring.any() {
            let why = format!(
                "io_uring: {} asked of the psync engine (expected engine io_uring or auto)",
                ring.words().join(", ")
            );
            return Some(("io_uring", why));
        }
        return psync_too_deep(threads, depth).map(|why| ("queue_depth", why));
    }
    if let Some(why) = ring.hipri.then(|| no_poll_queues(info)).flatten() {
        return Some(("io_uring", why));
    }
    ring.fixed_buffers
        .then(|| too_many_fixed_buffers(depth))
        .flatten()
        .map(|why| ("queue_depth", why))
}

/// Why polled completions (`io_uring: {hipri}`) cannot run on the target, or `None`: they
/// need poll queues, without which the kernel would complete by interrupt while the engine
/// spins, or refuse the I/O.
pub fn no_poll_queues(info: &TargetInfo) -> Option<String> {
    let poll = ["io_poll", "backing_io_poll"]
        .iter()
        .find_map(|k| info.identity.get(*k));
    poll.is_some_and(|p| p == "0").then(|| {
        let dev = ["kernel_name", "backing_kernel_name"]
            .iter()
            .find_map(|k| info.identity.get(*k))
            .cloned()
            .unwrap_or_default();
        format!(
            "io_uring: hipri: polled completions need a device with poll queues, such as \
             NVMe loaded with poll_queues=N; {dev} has none \
             (/sys/block/{dev}/queue/io_poll is 0)"
        )
    })
}

/// Discards `len` bytes from `offset` of `file`: BLKDISCARD on a block device, a punched
/// hole in a regular file.
fn discard_range(file: &File, offset: u64, len: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    let rc = if file.metadata()?.file_type().is_block_device() {
        const BLKDISCARD: libc::c_ulong = 0x1277;
        let range: [u64; 2] = [offset, len];
        // SAFETY: BLKDISCARD reads two u64 (start, length) from the pointer.
        unsafe { libc::ioctl(fd, BLKDISCARD as _, range.as_ptr()) }
    } else {
        // SAFETY: plain system call on an open descriptor.
        unsafe {
            libc::fallocate(
                fd,
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                offset as i64,
                len as i64,
            )
        }
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Runs `cmd` on `file` with nothing in flight: a discard, or `fdatasync` for a flush
/// (on a block device the kernel sends the drive FLUSH CACHE). A drive or file system
/// that cannot discard (EOPNOTSUPP) takes a trim as doing nothing, as a disk does.
pub(super) fn run_command(file: &File, name: &str, cmd: Command) -> Result<()> {
    match cmd {
        Command::Trim { offset, len } => match discard_range(file, offset, len) {
            Err(e) if e.raw_os_error() == Some(libc::EOPNOTSUPP) => Ok(()),
            r => r.map_err(|e| {
                Error::Target(TargetError::Os {
                    target: name.into(),
                    action: format!("cannot trim {len} bytes at {offset}"),
                    error: e,
                })
            }),
        },
        Command::Flush => file.sync_data().map_err(|error| {
            Error::Target(TargetError::Os {
                target: name.into(),
                action: "cannot flush".into(),
                error,
            })
        }),
    }
}

type Work = (u32, IoRequest, AlignedBuf);

/// A psync worker's stack: a system call and a message, far below the default 2 MiB.
const PSYNC_STACK: usize = 256 << 10;

/// The most I/Os a job keeps in flight on the psync engine (threads × queue depth), a
/// thread each. Past some thousands of threads a process meets the system's limits (on
/// memory maps, tasks), and a thread that cannot set itself up aborts the process; the
/// io_uring engine keeps any queue in one ring.
pub const PSYNC_MAX_SLOTS: u64 = 4096;

/// The error of a psync job deeper than [`PSYNC_MAX_SLOTS`], or `None`.
fn psync_too_deep(threads: u32, depth: u32) -> Option<String> {
    let slots = threads as u64 * depth as u64;
    (slots > PSYNC_MAX_SLOTS).then(|| {
        format!(
            "the psync engine runs a thread for each I/O in flight: {threads} engine \
             thread{} × queue depth {depth} = {slots}, more than {PSYNC_MAX_SLOTS}; use the \
             io_uring engine or a shallower queue",
            if threads == 1 { "" } else { "s" }
        )
    })
}

/// One worker thread per slot, each doing blocking pread/pwrite.
struct PsyncQueue {
    file: Arc<File>,
    name: String,
    origin: Instant,
    senders: Vec<Sender<Work>>,
    done: Receiver<Completion>,
    workers: Vec<JoinHandle<()>>,
}

impl PsyncQueue {
    /// A worker thread for each of `depth` slots; an error naming the slot where the system
    /// will not start another thread (a deep queue on psync can ask for thousands).
    fn new(file: Arc<File>, depth: u32, origin: Instant, name: String) -> Result<PsyncQueue> {
        let (done_tx, done) = channel::<Completion>();
        let mut queue = PsyncQueue {
            file,
            name,
            origin,
            senders: Vec::new(),
            done,
            workers: Vec::new(),
        };
        for slot in 0..depth {
            let (tx, rx) = channel::<Work>();
            let file = queue.file.clone();
            let done_tx = done_tx.clone();
            let name = queue.name.clone();
            // A worker does a pread or pwrite and sends the result: a small stack does.
            let spawned = std::thread::Builder::new()
                .stack_size(PSYNC_STACK)
                .spawn(move || psync_worker(&rx, &file, &done_tx, &name, origin));
            // On an error the queue is dropped: the threads started so far end and are joined.
            let worker = spawned.map_err(|error| {
                Error::Target(TargetError::Os {
                    target: queue.name.clone(),
                    action: format!(
                        "psync: cannot start the worker thread of slot {} of {depth} (a thread \
                         a slot; the io_uring engine keeps a queue in one ring)",
                        slot + 1
                    ),
                    error,
                })
            })?;
            queue.workers.push(worker);
            queue.senders.push(tx);
        }
        Ok(queue)
    }
}

/// A psync slot's thread: each request it is sent, done with pread or pwrite, goes back
/// as a completion, until the queue is dropped.
fn psync_worker(
    rx: &Receiver<Work>,
    file: &File,
    done_tx: &Sender<Completion>,
    name: &str,
    origin: Instant,
) {
    while let Ok((slot, req, mut buf)) = rx.recv() {
        let len = req.len as usize;
        let res = match req.op {
            Op::Read => file.read_exact_at(&mut buf.as_mut_slice()[..len], req.offset),
            Op::Write => file.write_all_at(&buf.as_slice()[..len], req.offset),
        };
        let done_ns = origin.elapsed().as_nanos() as u64;
        let error = res.err().map(|e| {
            format!(
                "{name}: {} of {len} bytes at offset {}: {e}",
                req.op.word(),
                req.offset
            )
        });
        let done = Completion {
            slot,
            buf,
            done_ns,
            error,
        };
        if done_tx.send(done).is_err() {
            break;
        }
    }
}

impl IoQueue for PsyncQueue {
    fn now(&self) -> u64 {
        self.origin.elapsed().as_nanos() as u64
    }

    fn engine(&self) -> &'static str {
        "psync"
    }

    fn submit(&mut self, slot: u32, req: IoRequest, buf: AlignedBuf) -> Result<()> {
        self.senders[slot as usize]
            .send((slot, req, buf))
            .map_err(|_| Error::Target(TargetError::Internal("an I/O worker thread stopped")))
    }

    fn wait_until(&mut self, until: u64, out: &mut Vec<Completion>) -> Result<()> {
        let now = self.now();
        if now < until {
            match self
                .done
                .recv_timeout(std::time::Duration::from_nanos(until - now))
            {
                Ok(c) => out.push(c),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => return Ok(()),
                Err(_) => {
                    return Err(Error::Target(TargetError::Internal(
                        "the I/O worker threads stopped",
                    )))
                }
            }
        }
        while let Ok(c) = self.done.try_recv() {
            out.push(c);
        }
        Ok(())
    }

    fn reap(&mut self, out: &mut Vec<Completion>) -> Result<()> {
        let first = self
            .done
            .recv()
            .map_err(|_| Error::Target(TargetError::Internal("the I/O worker threads stopped")))?;
        out.push(first);
        while let Ok(c) = self.done.try_recv() {
            out.push(c);
        }
        Ok(())
    }

    fn command(&mut self, cmd: Command) -> Result<()> {
        run_command(&self.file, &self.name, cmd)
    }
}

impl Drop for PsyncQueue {
    fn drop(&mut self) {
        self.senders.clear();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}
