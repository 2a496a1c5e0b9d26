//! A simulated SSD built when its first job needs it. A run's preflight describes every
//! drive before anything runs, but a used drive's state (its whole map, laid out and aged)
//! is hundreds of MB and seconds to build: only the drives running hold theirs.

use crate::drive::{DriveSpec, TargetSpec};
use crate::error::Result;
use crate::io::EngineChoice;
use crate::workload::IoOptions;

use super::{IoQueue, Target, TargetInfo};

/// A simulated SSD described now (as [`super::open`] reports it, from the drive built
/// without its used state) and built in full on its first trim or queue.
pub struct Deferred {
    spec: DriveSpec,
    info: TargetInfo,
    compression: bool,
    built: Option<Box<dyn Target>>,
}

impl Deferred {
    /// Describes a simulated SSD's drive: its parameters are checked and its report taken
    /// from the drive new (a used drive's state, and a failure to lay it out, come when it
    /// is built).
    pub fn new(spec: &DriveSpec) -> Result<Deferred> {
        let mut new = spec.clone();
        let compression = match &mut new.target {
            TargetSpec::Ssd(s) => {
                s.aged = false;
                s.history = None;
                s.compression
            }
            _ => false,
        };
        let info = super::build(&new)?.info().clone();
        Ok(Deferred {
            spec: spec.clone(),
            info,
            compression,
            built: None,
        })
    }

    fn built(&mut self) -> Result<&mut Box<dyn Target>> {
        if self.built.is_none() {
            self.built = Some(super::build(&self.spec)?);
        }
        Ok(self.built.as_mut().expect("built just now"))
    }
}

impl Target for Deferred {
    fn info(&self) -> &TargetInfo {
        &self.info
    }
    fn needs_data(&self) -> bool {
        self.compression
    }
    fn random_as_mark(&self) -> bool {
        self.compression
    }
    fn trim(&mut self, offset: u64, len: u64) -> Result<()> {
        self.built()?.trim(offset, len)
    }
    /// A drive not built yet is new and idle: nothing changes.
    fn idle(&mut self, ns: u64, stop: &std::sync::atomic::AtomicBool) {
        if let Some(t) = &mut self.built {
            t.idle(ns, stop);
        }
    }
    fn queues(
        &mut self,
        threads: u32,
        depth: u32,
        engine: EngineChoice,
        io: &IoOptions,
    ) -> Result<Vec<Box<dyn IoQueue + Send + '_>>> {
        self.built()?.queues(threads, depth, engine, io)
    }
}
