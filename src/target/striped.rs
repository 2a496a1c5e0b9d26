//! An SSD of several controllers in RAID 0 behind one host link (the G.Skill Titan: two
//! JMF602B behind a JMicron bridge). Each controller is an [`SsdSim`] with an equal share
//! of the capacity; a request is split at the stripe boundaries and each piece goes to its
//! controller, while the host link, shared, carries the whole request. Each controller
//! keeps its own state and busy times, so one can pause while the other works.

use crate::drive::{DriveSpec, SsdSpec};
use crate::error::Result;
use crate::io::{Command, EngineChoice, IoRequest, Op, WriteData};
use crate::workload::IoOptions;

use super::ssd::SsdSim;
use super::virtual_queue::{reserving_queues, Reserving};
use super::{IoQueue, Target, TargetInfo};

/// Controllers in RAID 0 behind one link.
pub struct StripedSsd {
    info: TargetInfo,
    members: Vec<SsdSim>,
    stripe: u64,
    link_ns_per_byte: f64,
    command: u64,
    link_out: u64,
    /// The host link toward the host: each request's data as soon as it is ready.
    link_in: super::calendar::Calendar,
    clock: u64,
}

impl StripedSsd {
    /// The drive's controllers, each with `s`'s parameters and its share of the capacity
    /// (whole stripes).
    pub fn new(drive: &DriveSpec, s: &SsdSpec) -> Result<StripedSsd> {
        let n = s.controllers as u64;
        let stripe = s.stripe.map(|v| v.0).unwrap_or(0);
        if n < 2 || stripe == 0 {
            return Err(super::config_error(
                drive,
                "a striped SSD needs two or more controllers and a stripe",
            ));
        }
        let share = drive.capacity / n / stripe * stripe;
        if share == 0 {
            return Err(super::config_error(
                drive,
                "a capacity of at least one stripe per controller is needed",
            ));
        }
        let mut member = drive.clone();
        member.capacity = share;
        let members = (0..n)
            .map(|_| SsdSim::new(&member, s).map(SsdSim::booking_at_issue))
            .collect::<Result<Vec<_>>>()?;
        let mut whole = drive.clone();
        whole.capacity = share * n;
        let info = TargetInfo::simulated(
            &whole,
            members[0].info().logical_block,
            members[0].info().physical_block,
            &[("sim_model", "ssd"), ("controllers", &n.to_string())],
        );
        Ok(StripedSsd {
            info,
            members,
            stripe,
            link_ns_per_byte: 1e9 / s.host_link_rate.unwrap_or(s.link_rate).0,
            command: s.host_command_overhead.unwrap_or(s.command_overhead).0,
            link_out: 0,
            link_in: Default::default(),
            clock: 0,
        })
    }

    /// The pieces of `[offset, offset + len)` (see [`pieces`]).
    fn pieces(&self, offset: u64, len: u64) -> impl Iterator<Item = (usize, u64, u64, u64)> {
        pieces(self.stripe, self.members.len() as u64, offset, len)
    }

    /// Each controller's part of `[offset, offset + len)`: (controller, start, length), one
    /// run of its own space each, as a range of the drive covers consecutive stripes on
    /// each.
    fn runs(&self, offset: u64, len: u64) -> Vec<(usize, u64, u64)> {
        let mut runs: Vec<Option<(u64, u64)>> = vec![None; self.members.len()];
        for (m, at, _, take) in self.pieces(offset, len) {
            let run = runs[m].get_or_insert((at, at));
            run.1 = at + take;
        }
        runs.into_iter()
            .enumerate()
            .filter_map(|(m, run)| run.map(|(start, end)| (m, start, end - start)))
            .collect()
    }

    /// Every controller left idle until what it accepted is on NAND; the drive's clock
    /// after that.
    fn settle(&mut self) -> Result<()> {
        for m in &mut self.members {
            m.advance_to(self.clock);
            m.settle()?;
            self.clock = self.clock.max(m.clock());
        }
        self.clock = self.clock.max(self.link_out).max(self.link_in.end());
        Ok(())
    }
}

/// The pieces of `[offset, offset + len)` on `n` controllers striped by `stripe`:
/// (controller, its offset, offset in the request, length), in order.
fn pieces(
    stripe: u64,
    n: u64,
    offset: u64,
    len: u64,
) -> impl Iterator<Item = (usize, u64, u64, u64)> {
    let end = offset + len;
    let mut at = offset;
    std::iter::from_fn(move || {
        (at < end).then(|| {
            let stripe_no = at / stripe;
            let within = at % stripe;
            let take = (stripe - within).min(end - at);
            let piece = (
                (stripe_no % n) as usize,
                stripe_no / n * stripe + within,
                at - offset,
                take,
            );
            at += take;
            piece
        })
    })
}

impl Target for StripedSsd {
    fn info(&self) -> &TargetInfo {
        &self.info
    }

    fn needs_data(&self) -> bool {
        self.members[0].needs_data()
    }

    fn random_as_mark(&self) -> bool {
        self.members[0].random_as_mark()
    }

    fn idle(&mut self, ns: u64, stop: &std::sync::atomic::AtomicBool) {
        self.clock += ns;
        for m in &mut self.members {
            m.idle(ns, stop);
        }
    }

    /// Each controller discards its part of the range.
    fn trim(&mut self, offset: u64, len: u64) -> Result<()> {
        for (m, start, len) in self.runs(offset, len) {
            self.members[m].trim(start, len)?;
        }
        Ok(())
    }

    fn queues(
        &mut self,
        threads: u32,
        depth: u32,
        _engine: EngineChoice,
        _io: &IoOptions,
    ) -> Result<Vec<Box<dyn IoQueue + Send + '_>>> {
        self.settle()?;
        reserving_queues(self, threads, depth)
    }
}

impl Reserving for StripedSsd {
    fn clock(&self) -> u64 {
        self.clock
    }

    fn advance_to(&mut self, t: u64) {
        self.clock = self.clock.max(t);
    }

    fn idle_until(&mut self, t: u64) {
        self.advance_to(t);
        for m in &mut self.members {
            m.idle_until(t);
        }
    }

    /// The command and a write's data cross the host link; the bridge passes each piece on
    /// to its controller (over that controller's own link) as its first bytes arrive. A
    /// read's data goes back over the host link as the pieces come in, ending no earlier
    /// than the last.
    /// The command crosses the host link; a trim goes to each controller's part of the
    /// range, a flush to every controller, and it is done when the last one is.
    fn command(&mut self, now: u64, cmd: Command) -> Result<u64> {
        let at = now.max(self.link_out) + self.command;
        self.link_out = at;
        let mut done = at;
        match cmd {
            Command::Trim { offset, len } => {
                for (m, offset, len) in self.runs(offset, len) {
                    done = done.max(self.members[m].command(at, Command::Trim { offset, len })?);
                }
            }
            Command::Flush => {
                for m in &mut self.members {
                    done = done.max(m.command(at, Command::Flush)?);
                }
            }
        }
        Ok(done)
    }

    fn serve(&mut self, now: u64, req: &IoRequest, data: Option<WriteData>) -> Result<u64> {
        let len = req.len as u64;
        let write = req.op == Op::Write;
        let wire = (len as f64 * self.link_ns_per_byte) as u64;
        let start = now.max(self.link_out) + self.command;
        let arrived = start + if write { wire } else { 0 };
        self.link_out = arrived;
        let mut done = arrived;
        // The pieces are worked out as they are served (no list per request).
        let n = self.members.len() as u64;
        for (m, at, from, take) in pieces(self.stripe, n, req.offset, len) {
            let first_byte = if write {
                start + (from as f64 * self.link_ns_per_byte) as u64
            } else {
                start
            };
            let piece = IoRequest {
                seq: req.seq,
                op: req.op,
                offset: at,
                len: take as u32,
            };
            let bytes = data.map(|d| d.slice(from as usize, take as usize));
            done = done.max(Reserving::serve(
                &mut self.members[m],
                first_byte,
                &piece,
                bytes,
            )?);
        }
        if !write {
            done = self.link_in.reserve(now, done.saturating_sub(wire), wire);
        }
        Ok(done)
    }

    fn wants_data(&self) -> bool {
        self.members[0].wants_data()
    }

    fn engine(&self) -> &'static str {
        "sim-ssd"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn titan_like() -> StripedSsd {
        let yaml = "id: t\nvendor: Acme\nmodel: T\ncapacity: 512MiB\nssd:\n  controllers: 2\n  stripe: 64KiB\n  link_rate: 280MB/s\n  command_overhead: 40us\n  channels: 2\n  dies_per_channel: 2\n  channel_rate: 40MB/s\n  page: 4KiB\n  pages_per_block: 32\n  read: 50us\n  program: 900us\n  erase: 3500us\n  raw_capacity: 288MiB\n  buffer: 16KiB\n  ftl: block\n  log_blocks: 1\n  remap: false\n  aged: true\n";
        let spec: DriveSpec =
            crate::config::from_yaml(std::path::Path::new("t.yaml"), yaml).unwrap();
        let crate::drive::TargetSpec::Ssd(s) = &spec.target else {
            panic!("an SSD")
        };
        StripedSsd::new(&spec, s).unwrap()
    }

    #[test]
    fn a_request_is_split_at_the_stripes_onto_the_controllers_in_turn() {
        let t = titan_like();
        assert_eq!(t.info().capacity, 512 << 20);
        let k = 1024;
        assert_eq!(
            t.pieces(60 * k, 72 * k).collect::<Vec<_>>(),
            vec![
                (0, 60 * k, 0, 4 * k),
                (1, 0, 4 * k, 64 * k),
                (0, 64 * k, 68 * k, 4 * k)
            ]
        );
        // The third stripe is the first controller's second.
        assert_eq!(
            t.pieces(128 * k, 4 * k).collect::<Vec<_>>(),
            vec![(0, 64 * k, 0, 4 * k)]
        );
    }

    #[test]
    fn a_trim_of_the_whole_drive_reaches_every_controller() {
        // Used, every page holds data and a read goes to the NAND (tR 50 µs); trimmed,
        // nothing does.
        let mut t = titan_like();
        let read = |t: &mut StripedSsd, offset: u64| {
            let req = IoRequest {
                seq: 0,
                op: Op::Read,
                offset,
                len: 4096,
            };
            let now = t.link_in.end().max(t.link_out) + 1_000_000_000;
            Reserving::serve(t, now, &req, None).unwrap() - now
        };
        let offsets = [8192, 64 * 1024 + 8192, (512 << 20) - 4096];
        let before: Vec<u64> = offsets.iter().map(|&o| read(&mut t, o)).collect();
        t.trim(0, t.info().capacity).unwrap();
        let after: Vec<u64> = offsets.iter().map(|&o| read(&mut t, o)).collect();
        for (b, a) in before.iter().zip(&after) {
            assert!(
                *b >= *a + 50_000,
                "read before the trim {b} ns, after {a} ns"
            );
        }
    }

    #[test]
    fn one_controller_pausing_does_not_hold_up_the_other() {
        // Fill the first controller's cache (four pages) with scattered writes; the fifth
        // waits for it to be written out, while a write to the second controller does not.
        let mut t = titan_like();
        let write = |t: &mut StripedSsd, offset: u64, seq: u64| {
            let req = IoRequest {
                seq,
                op: Op::Write,
                offset,
                len: 4096,
            };
            Reserving::serve(t, 0, &req, None).unwrap()
        };
        let stripe_of = |member: u64, n: u64| (2 * n + member) * 64 * 1024 + 8192;
        for i in 0..4 {
            assert!(write(&mut t, stripe_of(0, i * 50), i) < 1_000_000);
        }
        let paused = write(&mut t, stripe_of(0, 250), 4);
        let other = write(&mut t, stripe_of(1, 7), 5);
        assert!(paused > 50_000_000, "the fifth write waited {paused} ns");
        assert!(other < 1_000_000, "the other controller took {other} ns");
    }
}
