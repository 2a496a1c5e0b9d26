//! A drive on another machine's bench: a file or block device there, reached only through
//! the fio server running on it (`fio --client`). roundup cannot look at it from here, so
//! the drive file states its size, and write jobs to a block device there need the drive
//! file's `destroy_data`.

use crate::drive::{Bench, DriveSpec, PathTarget};
use crate::error::{Result, TargetError};
use crate::io::EngineChoice;
use crate::workload::IoOptions;

use super::{fio, FioFile, IoQueue, Target, TargetInfo, TargetKind};

/// A file or block device on a bench.
pub struct RemoteTarget {
    info: TargetInfo,
    file: FioFile,
}

impl RemoteTarget {
    /// The drive as its drive file describes it, refused before anything runs when a write
    /// job would reach a block device the drive file does not name for destruction.
    pub fn new(spec: &DriveSpec, p: &PathTarget, bench: &Bench, writes: bool) -> Result<Self> {
        let path = p.path.display().to_string();
        let kind = if path.starts_with("/dev/") {
            TargetKind::BlockDevice
        } else {
            TargetKind::File
        };
        if writes && kind == TargetKind::BlockDevice && p.destroy_data.is_none() {
            return Err(TargetError::HoldsData {
                path: p.path.clone(),
                why: format!(
                    "a block device on bench {bench}: roundup cannot see its partitions, \
                     file systems or mounts from here (fio does not report them); name it in \
                     `destroy_data:` in drives/{}.yaml to let write tests destroy its data",
                    spec.id.0
                ),
            }
            .into());
        }
        let mut identity = std::collections::BTreeMap::new();
        identity.insert("bench".to_string(), bench.to_string());
        if let Some(d) = &p.destroy_data {
            identity.insert("destroy_data".to_string(), d.clone());
        }
        let size = p.size.unwrap_or(0);
        Ok(RemoteTarget {
            info: TargetInfo {
                kind,
                path: Some(path.clone()),
                capacity: size / 512 * 512,
                logical_block: 512,
                physical_block: 4096,
                identity,
            },
            file: FioFile {
                filename: path,
                bench: Some(bench.clone()),
                kind,
            },
        })
    }
}

impl Target for RemoteTarget {
    fn info(&self) -> &TargetInfo {
        &self.info
    }

    /// fio's `trim`: a punched hole in a file (`falloc`), a discard on a device.
    fn trim(&mut self, offset: u64, len: u64) -> Result<()> {
        let job = self.file.trim_job(offset, len);
        let dir = fio::ScratchDir::new("trim")?;
        let never = std::sync::atomic::AtomicBool::new(false);
        fio::run(&dir.path, &job, self.file.bench.as_ref(), &never).map(|_| ())
    }

    fn queues(
        &mut self,
        _threads: u32,
        _depth: u32,
        _engine: EngineChoice,
        _io: &IoOptions,
    ) -> Result<Vec<Box<dyn IoQueue + Send + '_>>> {
        Err(TargetError::Fio {
            where_: fio::place(self.file.bench.as_ref()),
            message: "a drive on a bench runs only through fio (engine: fio)".into(),
        }
        .into())
    }

    fn fio_file(&self) -> Option<FioFile> {
        Some(self.file.clone())
    }
}
