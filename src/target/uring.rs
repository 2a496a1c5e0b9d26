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

use super::file::run_command;
use super::{AlignedBuf, Completion, IoQueue, TargetError};

/// The engine sleeps until this share (1/N) of the I/Os in flight have completed (at least
/// one): 8 at QD32, 1 below QD8.
const REAP_SHARE: usize = 4;

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
}

impl UringQueue {
    /// A ring with room for `depth` I/Os on `file`; fails where the kernel offers no io_uring.
    pub fn new(
        file: Arc<File>,
        depth: u32,
        origin: Instant,
        name: String,
    ) -> std::io::Result<UringQueue> {
        let entries = depth.max(1).next_power_of_two();
        // Completions are run when the engine waits for them, with no interrupt to wake it
        // (DEFER_TASKRUN, Linux 6.1+, as fio sets up its rings). Such a ring serves one
        // thread: it is created disabled and enabled by the thread that first submits to it.
        // Older kernels get cooperative task running (5.19+), then a plain ring.
        let deferred = IoUring::builder()
            .setup_r_disabled()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .setup_coop_taskrun()
            .build(entries);
        let (ring, disabled) = match deferred {
            Ok(r) => (r, true),
            Err(_) => match IoUring::builder().setup_coop_taskrun().build(entries) {
                Ok(r) => (r, false),
                Err(_) => (IoUring::new(entries)?, false),
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
        })
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

        let fd = types::Fd(self.file.as_raw_fd());
        let ptr = buf.as_mut_ptr();
        let entry = match req.op {
            Op::Read => opcode::Read::new(fd, ptr, req.len)
                .offset(req.offset)
                .build(),
            Op::Write => opcode::Write::new(fd, ptr as *const u8, req.len)
                .offset(req.offset)
                .build(),
        }
        .user_data(slot as u64);
        // The buffer stays in its slot (alive, unmoved on the heap) until its completion.
        self.slots[slot as usize] = Some((buf, req));
        // SAFETY: the entry's buffer is owned by self.slots until the completion is reaped,
        // and Drop drains every in-flight I/O before the buffers are freed.
        let pushed = unsafe { self.ring.submission().push(&entry) };
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
                Some(format!(
                    "{}: {} of {} bytes at offset {}: {}",
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
