//! Drives: one YAML file per drive under `drives/`, naming what it is and how to reach it.

use std::path::PathBuf;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use crate::config::{Duration, Ident, Rate, Size};
use crate::io::EngineChoice;

mod ssd;
use ssd::validate_ssd;
pub use ssd::{
    EccSpec, FtlKind, GcMode, GcPolicy, PlaneReads, ReadSpreadSpec, SlcSpec, SsdFirmware,
    SsdHistory, SsdSpec, SuspendSpec, MAX_PLANES,
};

/// A drive as written in `drives/ID.yaml`.
#[derive(Debug, Clone, Serialize)]
pub struct DriveSpec {
    /// Identifier; must match the file name.
    pub id: Ident,
    /// Maker, e.g. `Intel`.
    pub vendor: String,
    /// Model, e.g. `X25-M G2`.
    pub model: String,
    /// Marketed capacity (decimal units as on the box).
    pub capacity: u64,
    /// Controller, e.g. `Intel PC29AS21BA0`.
    pub controller: Option<String>,
    /// Firmware revision; for a real device it may be left out and is then read from it.
    pub firmware: Option<String>,
    /// Host interface, e.g. `SATA 3Gb/s`.
    pub interface: Option<String>,
    /// The NAND, e.g. `34 nm MLC`, as the explorer's filter shows it. Descriptive only: not
    /// part of what a job's results depend on (the plan hash).
    #[serde(skip_serializing)]
    pub nand: Option<String>,
    /// How roundup reaches the drive.
    pub target: TargetSpec,
}

impl DriveSpec {
    /// `Intel X25-M G2 160 GB`: how the site names the drive.
    pub fn display_name(&self) -> String {
        let gb = self.capacity as f64 / 1e9;
        // Capacities as sold: whole numbers where they are (160 GB, 1 TB), else one decimal.
        let short = |v: f64| {
            if (v - v.round()).abs() < 0.05 {
                format!("{}", v.round())
            } else {
                format!("{v:.1}")
            }
        };
        let cap = if gb >= 1000.0 {
            format!("{} TB", short(gb / 1000.0))
        } else if gb >= 1.0 {
            format!("{} GB", short(gb))
        } else {
            format!("{} MB", short(gb * 1000.0))
        };
        format!("{} {} {}", self.vendor, self.model, cap)
    }
}

/// How roundup reaches a drive.
#[derive(Debug, Clone, Serialize)]
pub enum TargetSpec {
    /// A file or a block device.
    Path(PathTarget),
    /// A simulated SSD (`ssd:`).
    Ssd(Box<SsdSpec>),
    /// A simulated hard disk (`hdd:`).
    Hdd(HddSpec),
    /// A simulated drive.
    Sim(SimSpec),
}

impl TargetSpec {
    /// A model in virtual time rather than a file or device.
    pub fn simulated(&self) -> bool {
        !matches!(self, TargetSpec::Path(_))
    }
}

/// A file or block device target.
#[derive(Debug, Clone, Serialize)]
pub struct PathTarget {
    /// The file or device.
    pub path: PathBuf,
    /// For a file that does not exist yet: its size (roundup creates and fills it).
    pub size: Option<u64>,
    /// Allow writes to an existing file that roundup did not create.
    pub overwrite: bool,
    /// For a block device: the serial (or, for devices without one, the kernel name such as
    /// `loop3`) of the device whose data may be destroyed by write tests.
    pub destroy_data: Option<String>,
    /// The I/O engine, unless a test names one.
    pub engine: Option<EngineChoice>,
    /// The bench the drive sits in, when it is not this machine: an fio server that runs
    /// its jobs (`fio --client`); `path` is then a path on the bench.
    pub bench: Option<Bench>,
}

/// A test bench: a machine running `fio --server`, as `HOST[:PORT]` (port 8765, fio's,
/// unless named; an IPv6 address in brackets).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(into = "String")]
pub struct Bench {
    /// Host name or address.
    pub host: String,
    /// TCP port of the fio server.
    pub port: u16,
}

impl Bench {
    /// fio's default server port.
    pub const DEFAULT_PORT: u16 = 8765;

    /// `host,port`, as `fio --client` takes it.
    pub fn fio_client(&self) -> String {
        format!("{},{}", self.host, self.port)
    }

    /// Whether the bench is this machine (a server on the loopback address).
    pub fn is_loopback(&self) -> bool {
        self.host == "localhost"
            || self
                .host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    }
}

impl std::fmt::Display for Bench {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

impl From<Bench> for String {
    fn from(b: Bench) -> String {
        b.to_string()
    }
}

impl std::str::FromStr for Bench {
    type Err = String;
    fn from_str(s: &str) -> Result<Bench, String> {
        let expected = || format!("expected HOST or HOST:PORT (an fio server), found {s:?}");
        let (host, port) = if let Some(rest) = s.strip_prefix('[') {
            let (host, after) = rest.split_once(']').ok_or_else(expected)?;
            match after {
                "" => (host, None),
                p => (host, Some(p.strip_prefix(':').ok_or_else(expected)?)),
            }
        } else {
            match s.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (s, None),
            }
        };
        let bad_host = host.is_empty()
            || host
                .chars()
                .any(|c| !(c.is_ascii_alphanumeric() || "-._:".contains(c)));
        if bad_host {
            return Err(expected());
        }
        let port = match port {
            None => Bench::DEFAULT_PORT,
            Some(p) => p
                .parse::<u16>()
                .ok()
                .filter(|&p| p > 0)
                .ok_or_else(expected)?,
        };
        Ok(Bench {
            host: host.to_string(),
            port,
        })
    }
}

impl<'de> Deserialize<'de> for Bench {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(D::Error::custom)
    }
}

/// Parameters of a simulated drive.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SimSpec {
    /// The model: `simple` (parallel units with service times).
    pub model: SimModel,
    /// Parallel units (dies or channels) serving requests concurrently.
    pub units: u32,
    /// Bytes placed on one unit before moving to the next.
    pub stripe: Size,
    /// Fixed cost of a read on a unit.
    pub read_latency: Duration,
    /// Fixed cost of a write on a unit.
    pub write_latency: Duration,
    /// Streaming rate of one unit for reads.
    pub read_rate: Rate,
    /// Streaming rate of one unit for writes.
    pub write_rate: Rate,
    /// Extra cost when a unit's access does not continue its previous one (seek, page open).
    #[serde(default)]
    pub reposition: Option<Duration>,
    /// Host link rate (SATA 3 Gbps ≈ 280MB/s usable).
    pub link_rate: Rate,
    /// Per-command cost on the host link.
    #[serde(default)]
    pub command_overhead: Option<Duration>,
    /// Logical block size the drive reports (default 512 B).
    #[serde(default)]
    pub logical_block: Option<Size>,
}

/// Parameters of a simulated hard disk (`hdd:` in a drive file).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HddSpec {
    /// Spindle speed, revolutions per minute.
    pub rpm: u32,
    /// Usable host link rate.
    pub link_rate: Rate,
    /// Per-command cost on the link and in the controller.
    pub command_overhead: Duration,
    /// Seek to the next track.
    pub seek_track_to_track: Duration,
    /// Average seek (a third of the stroke).
    pub seek_average: Duration,
    /// Full-stroke seek.
    pub seek_full_stroke: Duration,
    /// Media rate on the outer tracks (the start of the disk).
    pub outer_rate: Rate,
    /// Media rate on the inner tracks (the end).
    pub inner_rate: Rate,
    /// Cache: write-back for writes, read-ahead for reads.
    pub cache: Size,
    /// How far the head reads ahead after a read.
    pub read_ahead: Size,
}

/// The simulation models roundup knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SimModel {
    /// Parallel units with per-operation service times and a shared host link.
    Simple,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDrive {
    id: Ident,
    vendor: String,
    model: String,
    capacity: Size,
    #[serde(default)]
    controller: Option<String>,
    #[serde(default)]
    firmware: Option<String>,
    #[serde(default)]
    interface: Option<String>,
    #[serde(default)]
    nand: Option<String>,
    #[serde(default)]
    path: Option<PathBuf>,
    #[serde(default)]
    size: Option<Size>,
    #[serde(default)]
    overwrite: bool,
    #[serde(default)]
    destroy_data: Option<String>,
    #[serde(default)]
    engine: Option<EngineChoice>,
    #[serde(default)]
    bench: Option<Bench>,
    #[serde(default)]
    sim: Option<SimSpec>,
    #[serde(default)]
    ssd: Option<SsdSpec>,
    #[serde(default)]
    hdd: Option<HddSpec>,
}

impl<'de> Deserialize<'de> for DriveSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut raw = RawDrive::deserialize(d)?;
        if let Some(fw) = &raw.firmware {
            if fw.is_empty() || fw.contains(['/', '\\', '=']) || fw.chars().any(char::is_control) {
                return Err(D::Error::custom(format!(
                    "firmware: expected a revision without '/', '\\', '=' or control characters, found {fw:?}"
                )));
            }
        }
        if raw.bench.is_some() && (raw.ssd.is_some() || raw.hdd.is_some() || raw.sim.is_some()) {
            return Err(D::Error::custom(
                "bench: expected only with a `path:` target (a simulated drive runs here)",
            ));
        }
        if let Some(hdd) = raw.hdd.take() {
            if raw.path.is_some() || raw.sim.is_some() || raw.ssd.is_some() {
                return Err(D::Error::custom(
                    "expected one target: `path:`, `sim:`, `ssd:` or `hdd:`, found several",
                ));
            }
            let d = &hdd;
            if d.rpm < 1000 || d.rpm > 20000 {
                return Err(D::Error::custom(format!(
                    "hdd.rpm: expected 1000 to 20000, found {}",
                    d.rpm
                )));
            }
            // The seek curve is fitted through the three: they must rise.
            if d.seek_track_to_track.0 > d.seek_average.0 {
                return Err(D::Error::custom(format!(
                    "hdd.seek_track_to_track: expected at most seek_average ({}), found {}",
                    d.seek_average, d.seek_track_to_track
                )));
            }
            if d.seek_average.0 >= d.seek_full_stroke.0 {
                return Err(D::Error::custom(format!(
                    "hdd.seek_average: expected below seek_full_stroke ({}), found {}",
                    d.seek_full_stroke, d.seek_average
                )));
            }
            if d.inner_rate.0 > d.outer_rate.0 || d.inner_rate.0 <= 0.0 {
                return Err(D::Error::custom(
                    "hdd.inner_rate: expected above zero and at most outer_rate",
                ));
            }
            return Ok(raw.into_spec(TargetSpec::Hdd(hdd)));
        }
        if let Some(ssd) = raw.ssd.take() {
            if raw.path.is_some() || raw.sim.is_some() {
                return Err(D::Error::custom(
                    "expected one target: `path:`, `sim:` or `ssd:`, found several",
                ));
            }
            validate_ssd(&ssd, raw.capacity.0).map_err(D::Error::custom)?;
            if let Some(fw) = &raw.firmware {
                if !ssd.firmwares.is_empty() && !ssd.firmwares.contains_key(fw) {
                    return Err(D::Error::custom(format!(
                        "firmware: expected one of the revisions under ssd.firmwares ({}), found {fw:?}",
                        ssd.firmwares.keys().cloned().collect::<Vec<_>>().join(", ")
                    )));
                }
            }
            return Ok(raw.into_spec(TargetSpec::Ssd(Box::new(ssd))));
        }
        let target = match (raw.path.take(), raw.sim.take()) {
            (Some(path), None) => {
                let p = PathTarget {
                    path,
                    size: raw.size.map(|s| s.0),
                    overwrite: raw.overwrite,
                    destroy_data: raw.destroy_data.take(),
                    engine: raw.engine,
                    bench: raw.bench.take(),
                };
                check_remote(&p).map_err(D::Error::custom)?;
                TargetSpec::Path(p)
            }
            (None, Some(sim)) => {
                if raw.size.is_some()
                    || raw.overwrite
                    || raw.destroy_data.is_some()
                    || raw.engine.is_some()
                {
                    return Err(D::Error::custom(
                        "size, overwrite, destroy_data and engine apply to `path:` targets, not to `sim:` drives",
                    ));
                }
                if sim.units == 0 || sim.units > 4096 {
                    return Err(D::Error::custom(format!(
                        "sim.units: expected a whole number from 1 to 4096, found {}",
                        sim.units
                    )));
                }
                TargetSpec::Sim(sim)
            }
            (Some(_), Some(_)) => {
                return Err(D::Error::custom(
                    "expected either `path:` or `sim:`, found both",
                ))
            }
            (None, None) => return Err(D::Error::custom(
                "expected a target: `path:` (a file or block device) or `sim:` (a simulated drive)",
            )),
        };
        Ok(raw.into_spec(target))
    }
}

/// A drive on a bench: its path is the bench's (absolute), its size stated (roundup cannot
/// look at the bench's files), and fio runs its jobs.
fn check_remote(p: &PathTarget) -> Result<(), String> {
    let Some(bench) = &p.bench else {
        return Ok(());
    };
    if !p.path.is_absolute() {
        return Err(format!(
            "path: expected an absolute path on bench {bench}, found {:?}",
            p.path.display().to_string()
        ));
    }
    if p.size.is_none() {
        return Err(format!(
            "size: expected the size of {} on bench {bench} (roundup cannot look at a \
             bench's files or devices)",
            p.path.display()
        ));
    }
    if p.engine.is_some_and(|e| e != EngineChoice::Fio) {
        return Err(format!(
            "engine: expected fio (or nothing) for a drive on bench {bench}: fio runs its jobs"
        ));
    }
    Ok(())
}

impl RawDrive {
    /// The drive, with its target.
    fn into_spec(self, target: TargetSpec) -> DriveSpec {
        DriveSpec {
            id: self.id,
            vendor: self.vendor,
            model: self.model,
            capacity: self.capacity.0,
            controller: self.controller,
            firmware: self.firmware,
            interface: self.interface,
            nand: self.nand,
            target,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Bench;

    #[test]
    fn benches_are_read_as_host_and_port() {
        let b: Bench = "nvme-bench.lab".parse().unwrap();
        assert_eq!((b.host.as_str(), b.port), ("nvme-bench.lab", 8765));
        let b: Bench = "127.0.0.1:9000".parse().unwrap();
        assert_eq!(
            (b.to_string(), b.fio_client()),
            ("127.0.0.1:9000".into(), "127.0.0.1,9000".into())
        );
        assert!(b.is_loopback());
        let b: Bench = "[::1]:9000".parse().unwrap();
        assert_eq!(
            (b.host.as_str(), b.port, b.is_loopback()),
            ("::1", 9000, true)
        );
        assert!(!"10.0.0.2".parse::<Bench>().unwrap().is_loopback());
        for bad in ["", ":80", "host:0", "host:x", "a b", "[::1"] {
            assert!(bad.parse::<Bench>().is_err(), "{bad:?}");
        }
    }
}
