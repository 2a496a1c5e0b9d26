//! Drives: one YAML file per drive under `drives/`, naming what it is and how to reach it.

use std::path::PathBuf;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};

use crate::config::{Duration, Rate, Size};
use crate::suite::Ident;
use crate::target::EngineChoice;

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
    /// A simulated drive.
    Sim(SimSpec),
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
    sim: Option<SimSpec>,
}

impl<'de> Deserialize<'de> for DriveSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawDrive::deserialize(d)?;
        if let Some(fw) = &raw.firmware {
            if fw.is_empty() || fw.contains(['/', '\\', '=']) || fw.chars().any(char::is_control) {
                return Err(D::Error::custom(format!(
                    "firmware: expected a revision without '/', '\\', '=' or control characters, found {fw:?}"
                )));
            }
        }
        let target = match (raw.path, raw.sim) {
            (Some(path), None) => TargetSpec::Path(PathTarget {
                path,
                size: raw.size.map(|s| s.0),
                overwrite: raw.overwrite,
                destroy_data: raw.destroy_data,
                engine: raw.engine,
            }),
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
        Ok(DriveSpec {
            id: raw.id,
            vendor: raw.vendor,
            model: raw.model,
            capacity: raw.capacity.0,
            controller: raw.controller,
            firmware: raw.firmware,
            interface: raw.interface,
            target,
        })
    }
}
