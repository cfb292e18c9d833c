//! Atomic output files: write into a temporary file in the target folder, then rename, so
//! that a crash never leaves a half-written file that looks whole.

use std::io::Write;
use std::path::Path;

use crate::error::ExportError;

/// Writes `bytes` to `path` atomically (temporary file in the same folder + rename).
/// Creates the parent folder if needed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(ExportError::io(dir))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(ExportError::io(path))?;
    tmp.write_all(bytes).map_err(ExportError::io(path))?;
    tmp.persist(path)
        .map_err(|e| ExportError::io(path)(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_folders_and_replaces_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b/out.txt");
        write_atomic(&p, b"first").unwrap();
        write_atomic(&p, b"second").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"second");
        let names: Vec<_> = std::fs::read_dir(p.parent().unwrap()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file left behind");
    }
}
