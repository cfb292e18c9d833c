//! Output-folder locks (issue 16, defect 1): a run that writes a folder holds an exclusive
//! `flock(2)` on `FOLDER/.lock` for as long as it writes, so a second run on the same
//! folder — a second `pipeline`, or a `solver` started by hand on a pipeline's folder —
//! refuses to start instead of mixing its files with the first one's.
//!
//! The kernel releases the lock when the holder dies, however it dies (`kill -9`
//! included), so a killed run never leaves a stale lock. The lock file holds
//! `PROGRAM PID` of the holder, read back for the refusal message only. The holder
//! removes the file when it is done (while still holding the lock); a process that
//! locked the file in the same instant finds that the path no longer names the inode it
//! locked and tries again, so two runs never both believe they hold the folder.
//!
//! On platforms without `flock` (non-Unix), and on file systems that do not support it,
//! locking always succeeds.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// Name of the lock file inside the locked folder.
pub const LOCK_FILE: &str = ".lock";

/// Why a folder could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another live process holds the folder.
    #[error("{}: in use by {}; wait for it or stop it", dir.display(), describe_holder(holder))]
    InUse {
        /// The folder.
        dir: PathBuf,
        /// What the lock file says about its holder (`pipeline 1234`), possibly empty.
        holder: String,
    },
    /// The path to lock exists and is not a folder.
    #[error("{}: exists and is not a folder", dir.display())]
    NotAFolder {
        /// The path.
        dir: PathBuf,
    },
    /// The folder or its lock file could not be created, opened or locked.
    #[error("{}: cannot lock: {source}", path.display())]
    Io {
        /// The folder or lock file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// `another pipeline run (pid 1234)` from the lock file's `pipeline 1234`.
fn describe_holder(holder: &str) -> String {
    let mut words = holder.split_whitespace();
    match (
        words.next(),
        words.next().and_then(|p| p.parse::<u32>().ok()),
    ) {
        (Some(program), Some(pid)) => format!("another {program} run (pid {pid})"),
        _ => "another run".to_owned(),
    }
}

/// An exclusive lock on a folder, released (and its lock file removed) on drop.
#[derive(Debug)]
pub struct FolderLock {
    file: Option<File>,
    path: PathBuf,
    /// The folder, when this lock created it (removed on drop if then empty).
    created: Option<PathBuf>,
}

impl FolderLock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Locks `dir` (created if missing) for `program` (a word: `pipeline`, `solver`), or fails
/// with [`LockError::InUse`] naming the holder without changing anything.
pub fn lock_folder(dir: &Path, program: &str) -> Result<FolderLock, LockError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| LockError::Io { path, source }
    };
    if dir.exists() && !dir.is_dir() {
        return Err(LockError::NotAFolder {
            dir: dir.to_owned(),
        });
    }
    let created = (!dir.exists()).then(|| dir.to_owned());
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    // Dropped on failure: removes the folder again if this call created it.
    let mut lock = FolderLock {
        file: None,
        path: dir.join(LOCK_FILE),
        created,
    };
    loop {
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock.path)
            .map_err(io(&lock.path))?;
        if !try_lock(&file).map_err(io(&lock.path))? {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            return Err(LockError::InUse {
                dir: dir.to_owned(),
                holder: holder.trim().to_owned(),
            });
        }
        if !same_file(&file, &lock.path) {
            // The previous holder removed the file between our open and our lock.
            continue;
        }
        let record = format!("{program} {}\n", std::process::id());
        file.set_len(0).map_err(io(&lock.path))?;
        file.rewind().map_err(io(&lock.path))?;
        file.write_all(record.as_bytes()).map_err(io(&lock.path))?;
        lock.file = Some(file);
        return Ok(lock);
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            // Removed while still locked, so nobody locks the file just before it goes; and
            // only if it is still ours (the folder may have been replaced meanwhile).
            if same_file(&file, &self.path) {
                let _ = std::fs::remove_file(&self.path);
            }
            drop(file);
        }
        if let Some(dir) = &self.created {
            // Only an empty folder goes: a run that failed before writing leaves nothing.
            let _ = std::fs::remove_dir(dir);
        }
    }
}

#[cfg(unix)]
fn try_lock(file: &File) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: `flock` on a descriptor this `File` owns and keeps open.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EWOULDBLOCK) => return Ok(false),
            Some(libc::EINTR) => continue,
            // A file system without locks (some network and FUSE mounts): run unlocked
            // rather than not at all.
            Some(libc::ENOLCK | libc::EOPNOTSUPP | libc::ENOSYS) => return Ok(true),
            _ => return Err(e),
        }
    }
}

#[cfg(not(unix))]
fn try_lock(_file: &File) -> std::io::Result<bool> {
    Ok(true)
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_file: &File, path: &Path) -> bool {
    path.exists()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_naming_the_holder_and_a_released_one_is_taken() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("out");
        let first = lock_folder(&dir, "pipeline").unwrap();
        assert_eq!(
            std::fs::read_to_string(first.path()).unwrap(),
            format!("pipeline {}\n", std::process::id())
        );
        // flock locks belong to the open file: a second open in this process conflicts
        // just as another process's would.
        let e = lock_folder(&dir, "solver").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}: in use by another pipeline run (pid {}); wait for it or stop it",
                dir.display(),
                std::process::id()
            )
        );
        drop(first);
        assert!(!dir.join(LOCK_FILE).exists(), "lock file removed");
        assert!(!dir.exists(), "the folder the lock created, empty, removed");
        let second = lock_folder(&dir, "solver").unwrap();
        std::fs::write(dir.join("frame"), "x").unwrap();
        drop(second);
        assert!(dir.join("frame").is_file(), "a folder with files stays");
    }

    #[test]
    fn a_stale_lock_file_of_a_dead_holder_is_taken_over() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join(LOCK_FILE), "pipeline 4000000\n").unwrap();
        let lock = lock_folder(tmp.path(), "solver").unwrap();
        assert_eq!(
            std::fs::read_to_string(lock.path()).unwrap(),
            format!("solver {}\n", std::process::id())
        );
    }

    #[test]
    fn a_file_is_not_locked_as_a_folder_and_is_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("out");
        std::fs::write(&file, "mine").unwrap();
        let e = lock_folder(&file, "pipeline").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{}: exists and is not a folder", file.display())
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    }

    #[test]
    fn an_unreadable_holder_is_described_generically() {
        assert_eq!(describe_holder(""), "another run");
        assert_eq!(describe_holder("pipeline x"), "another run");
        assert_eq!(describe_holder("solver 12"), "another solver run (pid 12)");
    }
}
