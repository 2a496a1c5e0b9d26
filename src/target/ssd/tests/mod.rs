//! The SSD model's unit tests, by the part of the drive they exercise; the helpers they
//! share are here.

use super::page_ftl::bucket_of;
use super::*;
use crate::rng::below;
use rand::SeedableRng;

mod block_mapped;
mod collection;
mod mapping;
mod reads;
mod writes;

fn drive(policy: &str) -> SsdSim {
    drive_aged(policy, false)
}

/// The simulated SSD of a drive file's text.
fn from_yaml(yaml: &str) -> SsdSim {
    let spec: DriveSpec =
        crate::config::from_yaml(std::path::Path::new("test.yaml"), yaml).unwrap();
    let crate::drive::TargetSpec::Ssd(s) = &spec.target else {
        panic!("an SSD")
    };
    SsdSim::new(&spec, s).unwrap()
}

/// Why the drive file `yaml` is refused (empty if it is not).
fn refusal(yaml: &str) -> String {
    let spec: std::result::Result<DriveSpec, _> =
        crate::config::from_yaml(std::path::Path::new("test.yaml"), yaml);
    spec.err().map(|e| e.to_string()).unwrap_or_default()
}

impl SsdSim {
    /// `req` issued at `now`, nothing else in flight: when it completes (a read whose data
    /// waited for the link settled at once). Tagged with its seq.
    fn serve(&mut self, now: u64, req: &IoRequest, data: Option<WriteData>) -> Result<u64> {
        match self.submit(now, req, data, req.seq as u32)? {
            Some(t) => Ok(t),
            None => Ok(settled_at(&self.settle_all(), req.seq)),
        }
    }

    /// `reqs` issued together at `now`, as a queue of that depth: when each completes (the
    /// reads' data sent in the order it is ready).
    fn serve_together(&mut self, now: u64, reqs: &[IoRequest]) -> Vec<u64> {
        let done: Vec<Option<u64>> = reqs
            .iter()
            .map(|r| self.submit(now, r, None, r.seq as u32).unwrap())
            .collect();
        let settled = self.settle_all();
        reqs.iter()
            .zip(done)
            .map(|(r, t)| t.unwrap_or_else(|| settled_at(&settled, r.seq)))
            .collect()
    }

    /// Every completion left open, settled as the queue settles them.
    fn settle_all(&mut self) -> Vec<Settled> {
        let mut settled = Vec::new();
        while !self.link.is_idle() {
            Reserving::settle(self, u64::MAX, &mut settled);
        }
        settled
    }
}

/// When the request tagged with `seq` was settled.
fn settled_at(settled: &[Settled], seq: u64) -> u64 {
    settled.iter().find(|s| s.tag as u64 == seq).unwrap().at
}

/// A 4 KiB read of logical page `lpn` on a drive left idle first: how long it takes.
fn read_alone(sim: &mut SsdSim, lpn: u64, seq: u64) -> u64 {
    let now = sim.clock + 10_000_000;
    let req = IoRequest {
        seq,
        op: Op::Read,
        offset: lpn * 4096,
        len: 4096,
    };
    let done = sim.serve(now, &req, None).unwrap();
    sim.advance_to(done);
    done - now
}

/// The drive file of a small page-mapped SSD: 2 channels of 2 dies, 256 MiB.
fn small_yaml(policy: &str, aged: bool) -> String {
    format!(
        "id: small\nvendor: Acme\nmodel: Small\ncapacity: 256MiB\nssd:\n  link_rate: 280MB/s\n  command_overhead: 10us\n  channels: 2\n  dies_per_channel: 2\n  channel_rate: 40MB/s\n  page: 4KiB\n  pages_per_block: 32\n  read: 50us\n  read_spread: {{fastest: 1, slowest: 1}}\n  program: 900us\n  erase: 3500us\n  raw_capacity: 288MiB\n  buffer: 256KiB\n  ftl: page\n  gc_policy: {policy}\n  remap: true\n  aged: {aged}\n"
    )
}

fn drive_aged(policy: &str, aged: bool) -> SsdSim {
    from_yaml(&small_yaml(policy, aged))
}

fn write(sim: &mut SsdSim, offset: u64, seq: u64) -> u64 {
    let req = IoRequest {
        seq,
        op: Op::Write,
        offset,
        len: 4096,
    };
    let t = sim.clock;
    let done = sim.serve(t, &req, None).unwrap();
    sim.clock = sim.clock.max(done);
    done
}

/// The small drive as TLC: page types by `read_senses`, and `extra` lines.
fn tlc_yaml(extra: &str) -> String {
    small_yaml("greedy", false) + "  read_senses: [2, 3, 2]\n" + extra
}

/// Write amplification of `n` uniform random writes over the whole of `sim`.
fn random_wa(sim: &mut SsdSim, n: u64, seed: u64) -> f64 {
    let pages = sim.info.capacity / 4096;
    let before = sim.stats();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    for i in 0..n {
        write(sim, below(&mut rng, pages) * 4096, i);
    }
    let after = sim.stats();
    (after.nand_bytes - before.nand_bytes) as f64 / (after.host_bytes - before.host_bytes) as f64
}
