//! Whether this process was started by an MPI launcher, read from the environment the
//! launchers set (OpenMPI `OMPI_COMM_WORLD_SIZE`, MPICH / Hydra and Slurm PMI `PMI_SIZE`).

/// The world size an MPI launcher announced in `vars` (name → value lookups), if any.
pub fn launched_size(vars: impl Fn(&str) -> Option<String>) -> Option<u64> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .iter()
        .find_map(|name| vars(name)?.trim().parse::<u64>().ok())
}

/// The world size of this process's MPI launch, from its environment.
pub fn launched_size_here() -> Option<u64> {
    launched_size(|name| std::env::var(name).ok())
}

/// The one-line refusal of a multi-rank launch of a solver built without the `mpi`
/// feature, `None` for a plain start or a launch of one rank.
pub fn refuse_without_mpi(size: Option<u64>) -> Option<String> {
    match size {
        Some(n) if n > 1 => Some(format!(
            "started as one of {n} MPI ranks, but this solver was built without MPI support \
             (rebuild with `cargo build --release --features mpi`, or run without mpirun)"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_launchers_variables_are_read_and_one_rank_is_a_plain_run() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(launched_size(env(&[])), None);
        assert_eq!(
            launched_size(env(&[("OMPI_COMM_WORLD_SIZE", "4")])),
            Some(4)
        );
        assert_eq!(launched_size(env(&[("PMI_SIZE", "3")])), Some(3));
        assert_eq!(refuse_without_mpi(Some(1)), None);
        assert_eq!(refuse_without_mpi(None), None);
        let line = refuse_without_mpi(Some(4)).unwrap();
        assert!(
            line.contains("one of 4 MPI ranks") && !line.contains('\n'),
            "{line}"
        );
    }
}
