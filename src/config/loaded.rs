//! Every input file's provenance: the parsed content with its path and the SHA-256 of its
//! bytes ([`Loaded`]), and the hashing the manifests and plan hashes use.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// A parsed input file with the provenance the manifest records.
#[derive(Debug, Clone)]
pub struct Loaded<T> {
    /// The parsed content.
    pub spec: T,
    /// Path relative to the lab root.
    pub file: PathBuf,
    /// SHA-256 of the file's bytes, hex.
    pub sha256: String,
}

/// Hex SHA-256 of a file's content, read in pieces (samples files can be large).
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    std::io::copy(&mut fs::File::open(path)?, &mut hasher)?;
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
