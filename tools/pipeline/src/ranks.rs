//! `pipeline --ranks N` (issue 18): the solve stage runs as `mpirun -np N solver …` on a
//! solver built with the feature `mpi` (the other stages as always).
//!
//! * **Cores.** Every rank runs `--threads max(1, cores / N)` worker threads, so that the
//!   ranks share the machine's cores instead of each starting one thread per core. When
//!   N exceeds the cores, the ranks share cores: OpenMPI is told that this is wanted
//!   through its environment (`OMPI_MCA_rmaps_base_oversubscribe=1`, which other MPI
//!   launchers ignore; a command-line `--oversubscribe` would be refused by MPICH's), and
//!   to yield the core while a rank waits for a message instead of polling
//!   (`OMPI_MCA_mpi_yield_when_idle=1`: polling ranks take the cores from the ranks that
//!   compute; measured in docs/performance.md).
//! * **Cache.** The rank count and the threads are not part of the solve stage's stamp:
//!   a distributed run writes the same files, byte for byte, on any number of ranks and
//!   threads (tests/distributed.rs), so a rerun at another rank count reuses the stage
//!   when its inputs are unchanged, and `--resume` continues a checkpoint written at any
//!   rank count (the solver re-decomposes it).
//! * **Errors.** Without `mpirun` on the `PATH`, `--ranks N` (N > 1) is refused in one
//!   line before anything runs; a solver built without MPI refuses the launch itself, in
//!   one line that becomes the stage's error. `--ranks 1` is an ordinary run.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::error::PipelineError;

/// The environment variable that lets OpenMPI start more ranks than cores.
pub const OVERSUBSCRIBE_ENV: &str = "OMPI_MCA_rmaps_base_oversubscribe";

/// The environment variable that makes a waiting OpenMPI rank yield its core.
pub const YIELD_ENV: &str = "OMPI_MCA_mpi_yield_when_idle";

/// How the solve stage is launched over MPI.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranks {
    /// Number of ranks N (≥ 2).
    pub count: u32,
    /// The `mpirun` to start them with.
    pub mpirun: PathBuf,
    /// Cores of this machine.
    pub cores: usize,
}

/// The first `mpirun` on `path` (a `PATH` value), if any.
pub fn find_mpirun(path: Option<&OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .map(|dir| dir.join("mpirun"))
        .find(|p| p.is_file())
}

/// The launch of `--ranks count` with the `mpirun` found on `path` on a machine of `cores`
/// cores: `None` for one rank (an ordinary run); an error naming the flag when there is
/// no `mpirun`.
pub fn ranks(
    count: u32,
    path: Option<&OsStr>,
    cores: usize,
) -> Result<Option<Ranks>, PipelineError> {
    if count <= 1 {
        return Ok(None);
    }
    let mpirun = find_mpirun(path).ok_or(PipelineError::MpirunMissing { ranks: count })?;
    Ok(Some(Ranks {
        count,
        mpirun,
        cores: cores.max(1),
    }))
}

impl Ranks {
    /// Worker threads per rank: the cores shared out, at least one.
    pub fn threads(&self) -> usize {
        (self.cores / self.count as usize).max(1)
    }

    /// Whether the ranks outnumber the cores.
    pub fn oversubscribed(&self) -> bool {
        self.count as usize > self.cores
    }

    /// The command that runs `program args` on the ranks: `mpirun -np N program args
    /// --threads T`, with the environment it needs.
    pub fn launch(
        &self,
        program: &Path,
        args: &[String],
    ) -> (PathBuf, Vec<String>, Vec<(String, String)>) {
        let mut all = vec![
            "-np".to_owned(),
            self.count.to_string(),
            program.display().to_string(),
        ];
        all.extend(args.iter().cloned());
        all.extend(["--threads".to_owned(), self.threads().to_string()]);
        let env = match self.oversubscribed() {
            true => vec![
                (OVERSUBSCRIBE_ENV.to_owned(), "1".to_owned()),
                (YIELD_ENV.to_owned(), "1".to_owned()),
            ],
            false => Vec::new(),
        };
        (self.mpirun.clone(), all, env)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rank_is_a_plain_run_and_a_missing_mpirun_is_one_line() {
        assert_eq!(ranks(1, None, 4).unwrap(), None);
        let empty = tempfile::tempdir().unwrap();
        let e = ranks(2, Some(empty.path().as_os_str()), 4).unwrap_err();
        let line = e.to_string();
        assert!(line.contains("--ranks 2") && line.contains("mpirun") && !line.contains('\n'));
    }

    #[test]
    fn the_cores_are_shared_out_and_oversubscription_is_asked_for_only_beyond_them() {
        let r = |count, cores| Ranks {
            count,
            mpirun: PathBuf::from("/usr/bin/mpirun"),
            cores,
        };
        let (program, args, env) = r(2, 8).launch(Path::new("/b/solver"), &["s.yaml".to_owned()]);
        assert_eq!(program, PathBuf::from("/usr/bin/mpirun"));
        assert_eq!(args, ["-np", "2", "/b/solver", "s.yaml", "--threads", "4"]);
        assert!(env.is_empty());
        let (_, args, env) = r(3, 2).launch(Path::new("/b/solver"), &[]);
        assert_eq!(args, ["-np", "3", "/b/solver", "--threads", "1"]);
        assert_eq!(
            env,
            [
                (OVERSUBSCRIBE_ENV.to_owned(), "1".to_owned()),
                (YIELD_ENV.to_owned(), "1".to_owned())
            ]
        );
        assert_eq!(r(2, 2).threads(), 1);
        assert!(!r(2, 2).oversubscribed());
    }
}
