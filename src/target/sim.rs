//! The simple simulated drive: parallel units with per-operation service times behind a
//! shared host link, modelled I/O by I/O in virtual time.
//!
//! Each request crosses the link to the drive (command overhead, plus the data for a
//! write), is split
//! into stripe-sized chunks that each occupy one unit (fixed latency, transfer at the unit's
//! rate, and a reposition cost when the unit's access does not continue its previous one),
//! and, for a read, returns its data over the link's other direction. Every resource is FCFS with its own
//! busy-until time, so queueing, parallelism and link saturation emerge from the requests;
//! nothing is looked up from expected results. The state (busy times, positions, clock)
//! persists across the jobs of a run.

use crate::drive::{DriveSpec, SimSpec};
use crate::error::Result;
use crate::io::{Command, EngineChoice, IoRequest, Op, WriteData};
use crate::workload::IoOptions;
use crate::workload::Workload;

use super::virtual_queue::{reserving_queues, Reserving};
use super::{IoQueue, Target, TargetInfo};

/// A simulated drive of the `simple` model.
pub struct SimpleSim {
    info: TargetInfo,
    p: Params,
    /// Absolute virtual time of the last event (ns).
    clock: u64,
    unit_busy: Vec<u64>,
    unit_next: Vec<u64>,
    /// Host to drive: commands and write data.
    link_out_busy: u64,
    /// Drive to host: read data.
    link_in_busy: u64,
}

#[derive(Debug, Clone, Copy)]
struct Params {
    units: u64,
    stripe: u64,
    read_lat: u64,
    write_lat: u64,
    read_ns_per_byte: f64,
    write_ns_per_byte: f64,
    reposition: u64,
    link_ns_per_byte: f64,
    command: u64,
}

impl Params {
    fn of(s: &SimSpec) -> Params {
        Params {
            units: s.units as u64,
            stripe: s.stripe.0,
            read_lat: s.read_latency.0,
            write_lat: s.write_latency.0,
            read_ns_per_byte: 1e9 / s.read_rate.0,
            write_ns_per_byte: 1e9 / s.write_rate.0,
            reposition: s.reposition.map(|d| d.0).unwrap_or(0),
            link_ns_per_byte: 1e9 / s.link_rate.0,
            command: s.command_overhead.map(|d| d.0).unwrap_or(0),
        }
    }
}

impl SimpleSim {
    /// A fresh (idle, time zero) simulated drive.
    pub fn new(drive: &DriveSpec, s: &SimSpec) -> Result<SimpleSim> {
        let logical = s.logical_block.map(|b| b.0).unwrap_or(512);
        if !logical.is_power_of_two() || !(512..=65536).contains(&logical) {
            return Err(super::config_error(
                drive,
                "sim.logical_block must be a power of two from 512 B to 64 KiB",
            ));
        }
        if s.stripe.0 % logical != 0 {
            return Err(super::config_error(
                drive,
                "sim.stripe must be a multiple of the logical block",
            ));
        }
        let p = Params::of(s);
        Ok(SimpleSim {
            info: TargetInfo::simulated(drive, logical as u32, logical as u32, &[]),
            p,
            clock: 0,
            unit_busy: vec![0; p.units as usize],
            unit_next: vec![u64::MAX; p.units as usize],
            link_out_busy: 0,
            link_in_busy: 0,
        })
    }

    /// Models one request issued at absolute time `now`; returns its completion time.
    fn serve(&mut self, now: u64, req: &IoRequest) -> u64 {
        let p = self.p;
        let len = req.len as u64;
        // Command (and write data) over the host link.
        let mut link_bytes = 0.0;
        if req.op == Op::Write {
            link_bytes = len as f64 * p.link_ns_per_byte;
        }
        let start = now.max(self.link_out_busy);
        let on_device = start + p.command + link_bytes as u64;
        self.link_out_busy = on_device;
        // Stripe chunks on the units.
        let (lat, ns_per_byte) = match req.op {
            Op::Read => (p.read_lat, p.read_ns_per_byte),
            Op::Write => (p.write_lat, p.write_ns_per_byte),
        };
        let mut ready = on_device;
        let mut off = req.offset;
        let end = req.offset + len;
        while off < end {
            let stripe_end = (off / p.stripe + 1) * p.stripe;
            let chunk_end = stripe_end.min(end);
            let unit = ((off / p.stripe) % p.units) as usize;
            let mut service = lat + ((chunk_end - off) as f64 * ns_per_byte) as u64;
            if self.unit_next[unit] != off {
                service += p.reposition;
            }
            let begin = on_device.max(self.unit_busy[unit]);
            let done = begin + service;
            self.unit_busy[unit] = done;
            // Where a continuing access would start next on this unit.
            self.unit_next[unit] = if chunk_end == stripe_end {
                chunk_end + (p.units - 1) * p.stripe
            } else {
                chunk_end
            };
            ready = ready.max(done);
            off = chunk_end;
        }
        if req.op == Op::Read {
            let start = ready.max(self.link_in_busy);
            ready = start + (len as f64 * p.link_ns_per_byte) as u64;
            self.link_in_busy = ready;
        }
        ready
    }
}

/// A rough IOPS estimate of a workload on a simulated drive, for the plan's time estimate.
pub fn estimate_iops(s: &SimSpec, w: &Workload) -> f64 {
    let p = Params::of(s);
    let len = w
        .block_size
        .0
        .iter()
        .map(|(b, wt)| (*b * *wt as u64) as f64)
        .sum::<f64>()
        / w.block_size.0.iter().map(|(_, wt)| *wt as f64).sum::<f64>();
    let r = w.operation.read_percent as f64 / 100.0;
    let lat = r * p.read_lat as f64 + (1.0 - r) * p.write_lat as f64;
    let npb = r * p.read_ns_per_byte + (1.0 - r) * p.write_ns_per_byte;
    let chunks = (len / p.stripe as f64).ceil().max(1.0);
    let unit_ns = chunks * lat + len * npb + p.reposition as f64;
    let parallel = (w.queue_depth as f64 * chunks).min(p.units as f64).max(1.0);
    let device = parallel / chunks / unit_ns * 1e9;
    let link = 1e9 / (p.command as f64 + len * p.link_ns_per_byte);
    device.min(link).max(1.0)
}

impl Target for SimpleSim {
    fn info(&self) -> &TargetInfo {
        &self.info
    }

    fn needs_data(&self) -> bool {
        false
    }

    fn trim(&mut self, _offset: u64, _len: u64) -> Result<()> {
        // The simple model keeps no mapping of data, so there is nothing to discard.
        Ok(())
    }

    fn idle(&mut self, ns: u64, _stop: &std::sync::atomic::AtomicBool) {
        self.clock += ns;
    }

    fn queues(
        &mut self,
        threads: u32,
        depth: u32,
        _engine: EngineChoice,
        _io: &IoOptions,
    ) -> Result<Vec<Box<dyn IoQueue + Send + '_>>> {
        reserving_queues(self, threads, depth)
    }
}

impl Reserving for SimpleSim {
    fn clock(&self) -> u64 {
        self.clock
    }
    fn advance_to(&mut self, t: u64) {
        self.clock = self.clock.max(t);
    }
    fn serve(&mut self, now: u64, req: &IoRequest, _data: Option<WriteData>) -> Result<u64> {
        Ok(SimpleSim::serve(self, now, req))
    }
    /// The command crosses the link; the model keeps no mapping to trim and completes a
    /// write only once it is done, so a flush has nothing to wait for.
    fn command(&mut self, now: u64, _cmd: Command) -> Result<u64> {
        let done = now.max(self.link_out_busy) + self.p.command;
        self.link_out_busy = done;
        Ok(done)
    }
    fn wants_data(&self) -> bool {
        false
    }
    fn engine(&self) -> &'static str {
        "sim-simple"
    }
}
