//! The io_uring engine for files and block devices: one ring per queue, one registered slot
//! per in-flight I/O. Requests pushed by the engine are submitted together when it reaps,
//! and completions are stamped as they are drained.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Instant;

use io_uring::{opcode, types, IoUring};

use crate::error::{Error, Result};
use crate::io::{Command, IoRequest, Op};
use crate::workload::RingOptions;

use super::file::run_command;
use super::{AlignedBuf, Completion, IoQueue, TargetError};

/// The engine sleeps until this share (1/N) of the I/Os in flight have completed (at least
/// one): 8 at QD32, 1 below QD8.
const REAP_SHARE: usize = 4;

/// The most submissions a ring holds (the kernel's IORING_MAX_ENTRIES).
pub const RING_MAX_ENTRIES: u32 = 32768;

/// The most buffers a ring registers (the kernel's IORING_MAX_REG_BUFFERS).
const RING_MAX_BUFFERS: u32 = 16384;

/// The error of a ring with registered buffers (`fixed_buffers`, one a slot) deeper than
/// the kernel registers, or `None`.
pub(super) fn too_many_fixed_buffers(depth: u32) -> Option<String> {
    (depth > RING_MAX_BUFFERS).then(|| {
        format!(
            "io_uring: fixed_buffers registers a buffer for each I/O in flight on a ring, at \
             most {RING_MAX_BUFFERS} (the kernel's limit); queue depth {depth} is deeper \
             (threads each have a ring: more threads, each shallower, do)"
        )
    })
}

/// A queue on an io_uring ring.
pub struct UringQueue {
    ring: IoUring,
    file: Arc<File>,
    origin: Instant,
    slots: Vec<Option<(AlignedBuf, IoRequest)>>,
    inflight: usize,
    name: String,
    /// Created disabled: the first submit enables it from the engine's thread.
    disabled: bool,
    /// The job's ring options; `registered[slot]` is the buffer address registered for
    /// that slot (0: none yet), `set_up` whether the files and buffer table are.
    options: RingOptions,
    registered: Vec<usize>,
    set_up: bool,
}

impl UringQueue {
    /// A ring with room for `depth` I/Os on `file`; fails where the kernel offers no io_uring.
    pub fn new(
        file: Arc<File>,
        depth: u32,
        origin: Instant,
        name: String,
        options: RingOptions,
    ) -> std::io::Result<UringQueue> {
        // The kernel's ring holds at most 32,768 submissions (its completion queue, twice
        // that, holds a whole queue of 65,535): a deeper queue submits as the ring fills.
        let entries = depth.max(1).next_power_of_two().min(RING_MAX_ENTRIES);
        let builder = || {
            let mut b = IoUring::builder();
            if options.hipri {
                b.setup_iopoll();
            }
            b
        };
        // Completions are run when the engine waits for them, with no interrupt to wake it
        // (DEFER_TASKRUN, Linux 6.1+, as fio sets up its rings). Such a ring serves one
        // thread: it is created disabled and enabled by the thread that first submits to it.
        // Older kernels get cooperative task running (5.19+), then a plain ring.
        let deferred = builder()
            .setup_r_disabled()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .setup_coop_taskrun()
            .build(entries);
        let (ring, disabled) = match deferred {
            Ok(r) => (r, true),
            Err(_) => match builder().setup_coop_taskrun().build(entries) {
                Ok(r) => (r, false),
                Err(_) => (builder().build(entries)?, false),
            },
        };
        Ok(UringQueue {
            ring,
            file,
            origin,
            slots: (0..depth).map(|_| None).collect(),
            inflight: 0,
            name,
            disabled,
            options,
            registered: vec![0; depth as usize],
            set_up: false,
        })
    }

    /// Registers the file and an empty buffer table, once, from the thread that submits
    /// (a single-issuer ring takes registrations from it alone).
    fn set_up(&mut self) -> Result<()> {
        let submitter = self.ring.submitter();
        if self.options.fixed_files {
            submitter
                .register_files(&[self.file.as_raw_fd()])
                .map_err(|e| self.setup_error("fixed_files: cannot register the file", e))?;
        }
        if self.options.fixed_buffers {
            let slots = self.registered.len() as u32;
            submitter.register_buffers_sparse(slots).map_err(|e| {
                self.setup_error(
                    "fixed_buffers: cannot register buffers (Linux 5.19 or later)",
                    e,
                )
            })?;
        }
        self.set_up = true;
        Ok(())
    }

    /// Registers `buf` as slot `slot`'s buffer unless it already is.
    fn register(&mut self, slot: u32, buf: &mut AlignedBuf) -> Result<()> {
        let addr = buf.as_mut_ptr() as usize;
        if self.registered[slot as usize] == addr {
            return Ok(());
        }
        let iov = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        // SAFETY: the buffer is heap memory the engine's loop keeps for this slot through
        // the queue's one job (a queue serves one job: an address seen before is the same
        // live buffer; a new one is registered here before its first use); the kernel pins
        // its pages while registered, and dropping the ring unregisters them.
        unsafe {
            self.ring
                .submitter()
                .register_buffers_update(slot, &[iov], None)
        }
        .map_err(|e| self.setup_error("fixed_buffers: cannot register a buffer", e))?;
        self.registered[slot as usize] = addr;
        Ok(())
    }

    fn setup_error(&self, action: &str, error: std::io::Error) -> Error {
        Error::Target(TargetError::Os {
            target: self.name.clone(),
            action: format!("io_uring: {action}"),
            error,
        })
    }

    /// Enables a ring created disabled, from the thread that first uses it (a ring with
    /// a single issuer takes its calls from that thread alone).
    fn enable(&mut self) -> Result<()> {
        if self.disabled {
            let enabled = self.ring.submitter().register_enable_rings();
            enabled.map_err(|e| {
                Error::Target(TargetError::Os {
                    target: self.name.clone(),
                    action: "io_uring: cannot enable the ring".into(),
                    error: e,
                })
            })?;
            self.disabled = false;
        }
        Ok(())
    }

    /// Hands the queued submissions to the kernel without waiting for any completion.
    fn submit_queued(&mut self) -> std::io::Result<()> {
        loop {
            match self.ring.submit() {
                Ok(_) => return Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    fn wait(&mut self) -> std::io::Result<()> {
        // Waking the engine for every completion costs the CPU that completes the I/O (an
        // io_uring worker, the loop worker, the virtio interrupt) a wake-up each time, and
        // with the engine asleep in between, the scheduler moves that worker between CPUs
        // (docs/performance.md). Waiting for a quarter of those in flight keeps three
        // quarters queued while it sleeps; fio reaps about as many per wait (its own work
        // between waits lets them gather). Each I/O is stamped when its batch is reaped, as
        // fio stamps it.
        let want = (self.inflight / REAP_SHARE).max(1);
        loop {
            match self.ring.submit_and_wait(want) {
                Ok(_) => return Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

impl IoQueue for UringQueue {
    fn now(&self) -> u64 {
        self.origin.elapsed().as_nanos() as u64
    }

    fn engine(&self) -> &'static str {
        "io_uring"
    }

    fn submit(&mut self, slot: u32, req: IoRequest, mut buf: AlignedBuf) -> Result<()> {
        self.enable()?;
        if !self.set_up {
            self.set_up()?;
        }
        let fixed = self.options.fixed_buffers;
        if fixed {
            self.register(slot, &mut buf)?;
        }
        let ptr = buf.as_mut_ptr();
        let fd = self.file.as_raw_fd();
        let entry = rw_entry(
            fd,
            self.options.fixed_files,
            ptr,
            &req,
            fixed.then_some(slot as u16),
        )
        .user_data(slot as u64);
        // The buffer stays in its slot (alive, unmoved on the heap) until its completion.
        self.slots[slot as usize] = Some((buf, req));
        // SAFETY: the entry's buffer is owned by self.slots until the completion is reaped,
        // and Drop drains every in-flight I/O before the buffers are freed.
        let mut pushed = unsafe { self.ring.submission().push(&entry) };
        if pushed.is_err() {
            // A queue deeper than the ring: what is queued goes to the kernel, making room.
            self.submit_queued().map_err(|e| self.os_error(e))?;
            // SAFETY: as above.
            pushed = unsafe { self.ring.submission().push(&entry) };
        }
        if pushed.is_err() {
            self.slots[slot as usize] = None;
            return Err(Error::Target(TargetError::Internal(
                "the io_uring submission queue is full",
            )));
        }
        self.inflight += 1;
        Ok(())
    }

    fn wait_until(&mut self, until: u64, out: &mut Vec<Completion>) -> Result<()> {
        // A timed replay's first request may be due later: the loop waits before it submits.
        self.enable()?;
        let now = self.now();
        if now < until && self.ring.completion().is_empty() {
            let left = until - now;
            let ts = types::Timespec::new()
                .sec(left / 1_000_000_000)
                .nsec((left % 1_000_000_000) as u32);
            let args = types::SubmitArgs::new().timespec(&ts);
            match self.ring.submitter().submit_with_args(1, &args) {
                Ok(_) => {}
                Err(e)
                    if e.raw_os_error() == Some(libc::ETIME)
                        || e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.os_error(e)),
            }
        }
        let done_ns = self.now();
        self.drain(done_ns, out)
    }

    fn reap(&mut self, out: &mut Vec<Completion>) -> Result<()> {
        let before = out.len();
        while out.len() == before {
            self.wait().map_err(|e| self.os_error(e))?;
            let done_ns = self.now();
            self.drain(done_ns, out)?;
        }
        Ok(())
    }

    fn command(&mut self, cmd: Command) -> Result<()> {
        // Nothing is in flight (the engine drained the ring), so a plain system call is
        // what an io_uring op would be.
        run_command(&self.file, &self.name, cmd)
    }
}

/// A read or write of `req` into `ptr` on the file: the registered file `Fixed(0)` or the
/// descriptor `fd`; with `buf_index`, into that registered buffer.
fn rw_entry(
    fd: i32,
    fixed_file: bool,
    ptr: *mut u8,
    req: &IoRequest,
    buf_index: Option<u16>,
) -> io_uring::squeue::Entry {
    macro_rules! on {
        ($fd:expr) => {
            match (req.op, buf_index) {
                (Op::Read, None) => opcode::Read::new($fd, ptr, req.len)
                    .offset(req.offset)
                    .build(),
                (Op::Write, None) => opcode::Write::new($fd, ptr as *const u8, req.len)
                    .offset(req.offset)
                    .build(),
                (Op::Read, Some(i)) => opcode::ReadFixed::new($fd, ptr, req.len, i)
                    .offset(req.offset)
                    .build(),
                (Op::Write, Some(i)) => opcode::WriteFixed::new($fd, ptr as *const u8, req.len, i)
                    .offset(req.offset)
                    .build(),
            }
        };
    }
    if fixed_file {
        on!(types::Fixed(0))
    } else {
        on!(types::Fd(fd))
    }
}

impl UringQueue {
    /// An error of the ring's system calls.
    fn os_error(&self, error: std::io::Error) -> Error {
        Error::Target(TargetError::Os {
            target: self.name.clone(),
            action: "io_uring".into(),
            error,
        })
    }

    /// Moves every completion in the ring to `out`, stamped `done_ns`.
    fn drain(&mut self, done_ns: u64, out: &mut Vec<Completion>) -> Result<()> {
        let cqes: Vec<(u64, i32)> = self
            .ring
            .completion()
            .map(|c| (c.user_data(), c.result()))
            .collect();
        for (slot, res) in cqes {
            let Some((buf, req)) = self.slots.get_mut(slot as usize).and_then(Option::take) else {
                return Err(Error::Target(TargetError::Internal(
                    "io_uring completed an unknown slot",
                )));
            };
            self.inflight -= 1;
            let error = if res < 0 {
                // Polled I/O the device cannot poll is refused: say what would allow it.
                let hint = if self.options.hipri && -res == libc::EOPNOTSUPP {
                    " (hipri: polled completions need a device with poll queues, such as \
                     NVMe loaded with poll_queues=N; this one has none)"
                } else {
                    ""
                };
                Some(format!(
                    "{}: {} of {} bytes at offset {}: {}{hint}",
                    self.name,
                    req.op.word(),
                    req.len,
                    req.offset,
                    std::io::Error::from_raw_os_error(-res)
                ))
            } else if res as u32 != req.len {
                Some(format!(
                    "{}: short {} at offset {}: {res} of {} bytes",
                    self.name,
                    req.op.word(),
                    req.offset,
                    req.len
                ))
            } else {
                None
            };
            out.push(Completion {
                slot: slot as u32,
                buf,
                done_ns,
                error,
            });
        }
        Ok(())
    }
}

impl Drop for UringQueue {
    fn drop(&mut self) {
        // Never free a buffer the kernel may still write into.
        while self.inflight > 0 {
            if self.wait().is_err() {
                // The kernel may still own them: leak the buffers rather than free them.
                for s in self.slots.drain(..) {
                    std::mem::forget(s);
                }
                return;
            }
            let n = self.ring.completion().count();
            self.inflight = self.inflight.saturating_sub(n);
        }
    }
}
