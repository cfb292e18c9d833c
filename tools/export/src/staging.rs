//! All-or-nothing export: every output is written into a staging folder inside the output
//! folder (same file system, so renames are atomic) and swapped in only when everything
//! was written (issue 16, defect 10: a failed export used to have replaced part of the
//! previous one already).
//!
//! [`Staging::commit`] replaces each named output (`vtk`, `ply`, `plots`, `preview.png`) of
//! the output folder: first every previous output is moved into the staging folder, then
//! every new one is moved into place. If a rename fails, the ones already done are undone
//! and the previous export is left as it was. An output named in the commit but not
//! staged is removed (the plots of a run without statistics). Dropping a [`Staging`]
//! without committing removes the staging folder, and the output folder too if this
//! export created it and it is empty.
//!
//! Between the two renames of one output (microseconds) a crash would leave that output
//! only in the staging folder `OUT/.export-staging-*/previous/`; an output that is a
//! symbolic link is replaced like any other (the link is moved, its target untouched).
//!
//! A killed export leaves its staging folder behind (never in place of an output). The
//! next export into the folder removes such abandoned staging folders (Linux: their
//! process, named in the folder name, is gone) unless their `previous/` holds something,
//! which may be the only copy of an output and is left for the user.

use std::path::{Path, PathBuf};

use crate::error::ExportError;

/// Prefix of the staging folder's name inside the output folder.
pub const STAGING_PREFIX: &str = ".export-staging-";

/// A staging folder for one export into `out`.
#[derive(Debug)]
pub struct Staging {
    out: PathBuf,
    /// The staging folder; `None` once kept or removed.
    dir: Option<PathBuf>,
    /// The output folder did not exist before this export.
    created_out: bool,
}

impl Staging {
    /// Creates the output folder if needed and a fresh staging folder inside it.
    pub fn new(out: &Path) -> Result<Self, ExportError> {
        let created_out = !out.exists();
        std::fs::create_dir_all(out).map_err(ExportError::io(out))?;
        remove_abandoned(out);
        let mut staging = Staging {
            out: out.to_path_buf(),
            dir: None,
            created_out,
        };
        // On failure the drop of `staging` removes an output folder created above.
        let pid = std::process::id();
        for n in 0u32.. {
            let dir = out.join(format!("{STAGING_PREFIX}{pid}-{n}"));
            match std::fs::create_dir(&dir) {
                Ok(()) => {
                    staging.dir = Some(dir);
                    break;
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => {}
                Err(e) => return Err(ExportError::io(out)(e)),
            }
        }
        Ok(staging)
    }

    /// The staging folder: write the outputs here, under their final names.
    pub fn path(&self) -> &Path {
        self.dir.as_deref().unwrap_or(&self.out)
    }

    /// Swaps the staged outputs `names` into the output folder (see the module
    /// documentation); on error the previous outputs are back in place.
    pub fn commit(mut self, names: &[&str]) -> Result<(), ExportError> {
        let staging = self.path().to_path_buf();
        for name in names {
            check_replaceable(&self.out.join(name), &staging.join(name))?;
        }
        let previous = staging.join("previous");
        std::fs::create_dir(&previous).map_err(ExportError::io(&previous))?;
        let mut aside = Vec::new();
        let mut placed = Vec::new();
        let mut result = Ok(());
        for name in names {
            let target = self.out.join(name);
            if target.symlink_metadata().is_ok() {
                if let Err(e) = std::fs::rename(&target, previous.join(name)) {
                    result = Err((target, e));
                    break;
                }
                aside.push(*name);
            }
        }
        if result.is_ok() {
            for name in names {
                let staged = staging.join(name);
                if staged.symlink_metadata().is_ok() {
                    let target = self.out.join(name);
                    if let Err(e) = std::fs::rename(&staged, &target) {
                        result = Err((target, e));
                        break;
                    }
                    placed.push(*name);
                }
            }
        }
        let Err((path, source)) = result else {
            self.created_out = false;
            // Removes the previous outputs with the staging folder.
            drop(self);
            return Ok(());
        };
        // Undo in reverse: the new outputs back into staging, the previous ones back out.
        let mut undone = true;
        for name in placed.iter().rev() {
            undone &= std::fs::rename(self.out.join(name), staging.join(name)).is_ok();
        }
        for name in aside.iter().rev() {
            undone &= std::fs::rename(previous.join(name), self.out.join(name)).is_ok();
        }
        let kept = if undone {
            None
        } else {
            // Never delete the only copy of a previous output.
            self.created_out = false;
            self.dir.take()
        };
        Err(ExportError::Swap { path, source, kept })
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if let Some(dir) = self.dir.take() {
            // Best effort: what is left holds no previous output that is not also in place.
            let _ = std::fs::remove_dir_all(dir);
        }
        if self.created_out {
            // Only removes an empty folder: nothing of anyone else's is lost.
            let _ = std::fs::remove_dir(&self.out);
        }
    }
}

/// Removes the staging folders in `out` of exports that are no longer running, except
/// those holding previous outputs (see the module documentation). Best effort: what
/// cannot be read or removed stays.
fn remove_abandoned(out: &Path) {
    let Ok(entries) = std::fs::read_dir(out) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(STAGING_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let dir = entry.path();
        let holds_previous = std::fs::read_dir(dir.join("previous"))
            .map(|mut d| d.next().is_some())
            .unwrap_or(false);
        if process_gone(pid) && !holds_previous {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// Whether process `pid` has certainly ended (Linux: no `/proc/PID`); elsewhere `false`,
/// so nothing is removed.
fn process_gone(pid: u32) -> bool {
    if pid == std::process::id() {
        return false;
    }
    cfg!(target_os = "linux")
        && Path::new("/proc/self").is_dir()
        && !Path::new(&format!("/proc/{pid}")).exists()
}

/// Refuses to replace something of another kind than the staged output (a folder where
/// `preview.png` goes, a file named `vtk`): that is not a previous export.
fn check_replaceable(target: &Path, staged: &Path) -> Result<(), ExportError> {
    let Ok(meta) = target.symlink_metadata() else {
        return Ok(());
    };
    if meta.file_type().is_symlink() {
        return Ok(());
    }
    // An output that is not staged is a folder this export would have written (`plots`).
    let want_dir = staged.symlink_metadata().map_or(true, |m| m.is_dir());
    if meta.is_dir() != want_dir {
        return Err(ExportError::InTheWay {
            path: target.to_path_buf(),
            expected: if want_dir { "folder" } else { "file" },
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, s: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, s).unwrap();
    }

    #[test]
    fn commit_replaces_outputs_and_removes_unstaged_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        write(&out.join("vtk/old.vtp"), "old");
        write(&out.join("plots/a.png"), "old");
        write(&out.join("preview.png"), "old");
        write(&out.join("keep.txt"), "mine");
        let s = Staging::new(&out).unwrap();
        write(&s.path().join("vtk/new.vtp"), "new");
        write(&s.path().join("preview.png"), "new");
        s.commit(&["vtk", "plots", "preview.png"]).unwrap();
        let mut names: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["keep.txt", "preview.png", "vtk"]);
        assert!(!out.join("vtk/old.vtp").exists());
        assert_eq!(
            std::fs::read_to_string(out.join("vtk/new.vtp")).unwrap(),
            "new"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("preview.png")).unwrap(),
            "new"
        );
    }

    #[test]
    fn dropped_staging_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let fresh = tmp.path().join("fresh");
        let s = Staging::new(&fresh).unwrap();
        write(&s.path().join("vtk/a.vtp"), "x");
        drop(s);
        assert!(
            !fresh.exists(),
            "output folder created by the export removed"
        );

        let out = tmp.path().join("out");
        write(&out.join("vtk/old.vtp"), "old");
        let s = Staging::new(&out).unwrap();
        write(&s.path().join("vtk/a.vtp"), "x");
        drop(s);
        assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
        assert_eq!(
            std::fs::read_to_string(out.join("vtk/old.vtp")).unwrap(),
            "old"
        );
    }

    /// A staging folder of a killed export (a process id above Linux's `PID_MAX_LIMIT`,
    /// 2^22, never runs) goes with the next export, unless it holds previous outputs; a
    /// live process's stays.
    #[cfg(target_os = "linux")]
    #[test]
    fn abandoned_staging_folders_are_removed_unless_they_hold_previous_outputs() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        let dead = 4_194_400;
        write(
            &out.join(format!("{STAGING_PREFIX}{dead}-0/vtk/a.vtp")),
            "half",
        );
        write(
            &out.join(format!("{STAGING_PREFIX}{dead}-1/previous/ply/a.ply")),
            "only copy",
        );
        // The parent of this test process is alive.
        let parent = std::fs::read_to_string("/proc/self/stat")
            .unwrap()
            .rsplit_once(") ")
            .and_then(|(_, rest)| rest.split(' ').nth(1).map(str::to_owned))
            .unwrap();
        write(
            &out.join(format!("{STAGING_PREFIX}{parent}-0/vtk/a.vtp")),
            "live",
        );
        write(&out.join(".export-staging-x/keep"), "not ours");
        let s = Staging::new(&out).unwrap();
        drop(s);
        let mut names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        let mut expected = vec![
            format!("{STAGING_PREFIX}{dead}-1"),
            format!("{STAGING_PREFIX}{parent}-0"),
            ".export-staging-x".to_owned(),
        ];
        expected.sort();
        assert_eq!(names, expected);
    }

    #[test]
    fn something_else_in_the_way_is_refused_before_any_rename() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        write(&out.join("vtk/old.vtp"), "old");
        write(&out.join("preview.png/notes.txt"), "mine");
        let s = Staging::new(&out).unwrap();
        write(&s.path().join("vtk/new.vtp"), "new");
        write(&s.path().join("preview.png"), "new");
        let e = s.commit(&["vtk", "preview.png"]).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("preview.png: exists and is not a file; move it away to export here"),
            "{e}"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("vtk/old.vtp")).unwrap(),
            "old"
        );
        assert!(!out.join("vtk/new.vtp").exists());
        assert_eq!(
            std::fs::read_dir(&out).unwrap().count(),
            2,
            "staging removed"
        );
    }

    /// A rename that fails half-way (a read-only previous output folder cannot be moved to
    /// another parent) puts back what was already swapped. Skipped where permissions are
    /// not enforced (root).
    #[test]
    fn failed_rename_puts_the_previous_outputs_back() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        write(&out.join("vtk/old.vtp"), "old");
        write(&out.join("ply/old.ply"), "old");
        let ply = out.join("ply");
        std::fs::set_permissions(&ply, std::fs::Permissions::from_mode(0o555)).unwrap();
        if std::fs::write(ply.join("probe"), "").is_ok() {
            eprintln!("permissions not enforced (root?): skipped");
            return;
        }
        let s = Staging::new(&out).unwrap();
        write(&s.path().join("vtk/new.vtp"), "new");
        write(&s.path().join("ply/new.ply"), "new");
        let e = s.commit(&["vtk", "ply"]).unwrap_err();
        std::fs::set_permissions(&ply, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(matches!(e, ExportError::Swap { kept: None, .. }), "{e:?}");
        assert_eq!(
            std::fs::read_to_string(out.join("vtk/old.vtp")).unwrap(),
            "old"
        );
        assert!(!out.join("vtk/new.vtp").exists());
        assert_eq!(
            std::fs::read_dir(&out).unwrap().count(),
            2,
            "staging removed"
        );
    }
}
