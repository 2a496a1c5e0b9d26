//! Block devices: size ioctls, identity from sysfs, and the guard against destroying data.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

use super::TargetError;

const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
const BLKSSZGET: libc::c_ulong = 0x1268;
const BLKPBSZGET: libc::c_ulong = 0x127b;

/// Capacity, logical and physical block size of an open block device.
pub fn geometry(file: &fs::File) -> std::io::Result<(u64, u32, u32)> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    let mut size: u64 = 0;
    let mut logical: libc::c_int = 0;
    let mut physical: libc::c_uint = 0;
    // SAFETY: each ioctl writes one value of the pointed-to type into memory we own.
    unsafe {
        if libc::ioctl(fd, BLKGETSIZE64 as _, &mut size as *mut u64) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::ioctl(fd, BLKSSZGET as _, &mut logical as *mut libc::c_int) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::ioctl(fd, BLKPBSZGET as _, &mut physical as *mut libc::c_uint) != 0 {
            physical = logical as u32;
        }
    }
    Ok((size, logical.max(512) as u32, physical.max(logical as u32)))
}

/// The sysfs folder of the block device `major:minor` (a disk or a partition).
pub(super) fn sysfs_of(major: u32, minor: u32) -> Option<PathBuf> {
    fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()
}

/// The whole-disk sysfs folder for a device folder (itself, or the parent of a partition).
fn disk_of(dev: &Path) -> PathBuf {
    if dev.join("partition").exists() {
        dev.parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| dev.to_path_buf())
    } else {
        dev.to_path_buf()
    }
}

fn read_trim(p: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// What the kernel knows of the disk behind `major:minor`: model, vendor, serial, firmware,
/// rotational, block sizes, scheduler, capacity.
pub fn identity(major: u32, minor: u32) -> BTreeMap<String, String> {
    let mut id = BTreeMap::new();
    let Some(dev) = sysfs_of(major, minor) else {
        return id;
    };
    let disk = disk_of(&dev);
    if let Some(name) = disk.file_name() {
        id.insert("kernel_name".into(), name.to_string_lossy().to_string());
    }
    let d = disk.join("device");
    for (key, files) in [
        ("model", vec![d.join("model")]),
        ("vendor", vec![d.join("vendor")]),
        (
            "serial",
            vec![d.join("serial"), disk.join("serial"), d.join("vpd_pg80")],
        ),
        ("firmware", vec![d.join("firmware_rev"), d.join("rev")]),
    ] {
        if let Some(v) = files.iter().find_map(read_trim) {
            let v: String = v.chars().filter(|c| !c.is_control()).collect();
            id.insert(key.into(), v.trim().to_string());
        }
    }
    let q = disk.join("queue");
    for (key, file) in [
        ("rotational", "rotational"),
        ("logical_block_size", "logical_block_size"),
        ("physical_block_size", "physical_block_size"),
        ("io_poll", "io_poll"),
    ] {
        if let Some(v) = read_trim(q.join(file)) {
            id.insert(key.into(), v);
        }
    }
    if let Some(s) = read_trim(q.join("scheduler")) {
        // "[mq-deadline] kyber none": the bracketed one is active.
        let active = s
            .split_whitespace()
            .find(|w| w.starts_with('['))
            .map(|w| w.trim_matches(['[', ']']).to_string())
            .unwrap_or(s);
        id.insert("scheduler".into(), active);
    }
    if let Some(sectors) = read_trim(dev.join("size")).and_then(|s| s.parse::<u64>().ok()) {
        id.insert("capacity_bytes".into(), (sectors * 512).to_string());
    }
    id
}

/// `major:minor` of the device behind a path: the device itself for a block device, the
/// filesystem's device for a file.
pub fn dev_numbers(meta: &fs::Metadata) -> (u32, u32) {
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    (libc::major(dev), libc::minor(dev))
}

/// Refuses writes to a block device that holds data, unless the drive file or the command
/// line names it for destruction.
///
/// Refused always: a device that is mounted, has a mounted partition, or is held by another
/// device (LVM, md, dm-crypt): writing under a live user would corrupt it. Refused unless
/// the device is named for destruction: a device with partitions, a partition table or a
/// filesystem or volume signature. The name is the device's serial, or its kernel name
/// (`loop3`, `zram0`) where it has none.
pub fn guard_writes(
    path: &Path,
    file: &mut fs::File,
    meta: &fs::Metadata,
    in_drive_file: Option<&str>,
    on_command_line: &[String],
) -> Result<()> {
    let (major, minor) = dev_numbers(meta);
    let id = identity(major, minor);
    let name = id
        .get("kernel_name")
        .cloned()
        .unwrap_or_else(|| path.display().to_string());
    let token = id.get("serial").cloned().unwrap_or_else(|| name.clone());
    let refuse = |why: String| {
        Err(Error::Target(TargetError::HoldsData {
            path: path.to_path_buf(),
            why,
        }))
    };
    let dev_dir = sysfs_of(major, minor);
    // Devices whose mounts or holders count: the device and each of its partitions.
    let mut members: Vec<(u32, u32, PathBuf)> = Vec::new();
    if let Some(dir) = &dev_dir {
        members.push((major, minor, dir.clone()));
        if let Ok(entries) = fs::read_dir(dir) {
            let mut parts: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("partition").exists())
                .collect();
            parts.sort();
            for p in parts {
                if let Some((ma, mi)) = read_trim(p.join("dev")).and_then(|s| {
                    s.split_once(':')
                        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                }) {
                    members.push((ma, mi, p));
                }
            }
        }
    }
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    for (ma, mi, dir) in &members {
        let key = format!(" {ma}:{mi} ");
        if let Some(line) = mountinfo.lines().find(|l| l.contains(&key)) {
            let point = line.split_whitespace().nth(4).unwrap_or("?");
            let what = dir
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            return refuse(format!("{what} is mounted at {point}; unmount it first"));
        }
        let holders: Vec<String> = fs::read_dir(dir.join("holders"))
            .map(|e| {
                e.filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        if !holders.is_empty() {
            let what = dir
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            return refuse(format!(
                "{what} is in use by {} (holders); release it first",
                holders.join(", ")
            ));
        }
    }
    if in_drive_file == Some(token.as_str()) || on_command_line.contains(&token) {
        return Ok(());
    }
    let hint = format!(
        "to destroy the data on it, name it in the drive file (`destroy_data: {token}`) or on the command line (`--destroy-data {token}`)"
    );
    if members.len() > 1 {
        return refuse(format!("it has {} partitions; {hint}", members.len() - 1));
    }
    if let Some(sig) = signature(file)? {
        return refuse(format!("it carries {sig}; {hint}"));
    }
    if let Some(d) = in_drive_file {
        // A drive file naming another device is a mistake worth saying, even on a blank one.
        return refuse(format!(
            "destroy_data names {d:?}, but this device is {token:?}"
        ));
    }
    Ok(())
}

fn first_blocks(error: std::io::Error) -> Error {
    Error::Target(TargetError::Os {
        target: "the device".into(),
        action: "cannot read its first blocks".into(),
        error,
    })
}

/// The partition table, filesystem or volume signature at the start of a device, if any.
pub fn signature(file: &mut fs::File) -> Result<Option<&'static str>> {
    use std::io::{Seek, SeekFrom};
    let mut buf = vec![0u8; 68 * 1024];
    file.seek(SeekFrom::Start(0)).map_err(first_blocks)?;
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) => return Err(first_blocks(e)),
        }
    }
    let b = &buf[..n];
    let at = |off: usize, magic: &[u8]| {
        b.len() >= off + magic.len() && &b[off..off + magic.len()] == magic
    };
    Ok(if at(512, b"EFI PART") || at(4096, b"EFI PART") {
        Some("a GPT partition table")
    } else if at(1080, &[0x53, 0xEF]) {
        Some("an ext2/3/4 filesystem")
    } else if at(0, b"XFSB") {
        Some("an XFS filesystem")
    } else if at(65600, b"_BHRfS_M") {
        Some("a Btrfs filesystem")
    } else if at(0, b"LUKS\xba\xbe") {
        Some("a LUKS encrypted volume")
    } else if at(536, b"LVM2 001") || at(512, b"LABELONE") {
        Some("an LVM physical volume")
    } else if at(4086, b"SWAPSPACE2") || at(4086, b"SWAP-SPACE") {
        Some("swap space")
    } else if at(3, b"NTFS    ") {
        Some("an NTFS filesystem")
    } else if at(54, b"FAT") || at(82, b"FAT32") {
        Some("a FAT filesystem")
    } else if at(510, &[0x55, 0xAA]) {
        Some("an MBR partition table")
    } else {
        None
    })
}

/// The block devices the kernel reports (`/sys/block`), sorted by name, with their identity.
/// Unused loop devices and zero-sized devices are left out.
pub fn inventory() -> Vec<BTreeMap<String, String>> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir("/sys/block") else {
        return out;
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    for name in names {
        let dir = PathBuf::from("/sys/block").join(&name);
        let Some((major, minor)) = read_trim(dir.join("dev")).and_then(|s| {
            s.split_once(':')
                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        }) else {
            continue;
        };
        let mut id = identity(major, minor);
        if id.get("capacity_bytes").is_none_or(|c| c == "0") {
            continue;
        }
        if let Some(backing) = read_trim(dir.join("loop/backing_file")) {
            id.insert("backing_file".into(), backing);
        }
        id.insert("path".into(), format!("/dev/{name}"));
        out.push(id);
    }
    out
}
