//! SHA-256 content hashes of mesh files (keys of the surrogate-tree cache, docs/design.md §5).

use crate::MeshError;
use sha2::{Digest, Sha256};
use std::path::Path;

/// SHA-256 of a byte slice.
pub fn hash_bytes(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// SHA-256 of a file's bytes.
pub fn file_hash(path: impl AsRef<Path>) -> Result<[u8; 32], MeshError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| MeshError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(hash_bytes(&bytes))
}

/// Lower-case hexadecimal rendering of a hash (64 characters).
pub fn hex(hash: &[u8; 32]) -> String {
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_abc_matches_the_fips_test_vector() {
        assert_eq!(
            hex(&hash_bytes(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn file_hash_equals_hash_of_its_bytes_and_missing_file_names_path() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.bin");
        std::fs::write(&p, b"abc").unwrap();
        assert_eq!(file_hash(&p).unwrap(), hash_bytes(b"abc"));
        let err = file_hash(dir.path().join("missing.ply")).unwrap_err();
        assert!(err.to_string().contains("missing.ply"), "{err}");
    }
}
