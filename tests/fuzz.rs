//! Mutation fuzzing in `make test` (issue 16): a few thousand seeded cases over every input
//! format, through the library entry points the binaries use; no panic, no hang, no
//! oversized allocation. More cases on demand:
//! `cargo run --release -p msdem-e2e --example fuzz -- --cases 100000 --seed 7`.

#[path = "fuzz/engine.rs"]
mod engine;

use std::sync::Arc;
use std::time::Duration;

#[global_allocator]
static ALLOC: engine::GuardedAlloc = engine::GuardedAlloc;

/// Cases of the test: `$MSDEM_FUZZ_CASES`, else 6,000 (500 per format).
fn cases() -> u64 {
    std::env::var("MSDEM_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6_000)
}

#[test]
fn mutated_inputs_never_panic_hang_or_overallocate() {
    let seeds = Arc::new(engine::Seeds::build());
    for target in engine::Target::ALL {
        assert!(
            seeds.count(target) > 0,
            "no seed file for {}",
            target.name()
        );
    }
    let config = engine::Config {
        seed: 16,
        first: 0,
        cases: cases(),
        workers: std::thread::available_parallelism().map_or(2, |n| n.get().min(4)),
        case_limit: Duration::from_secs(20),
    };
    let report = engine::run(seeds, &config);
    eprintln!("{}", report.table());
    assert!(report.failures.is_empty(), "{}", report.table());
    assert_eq!(report.cases, config.cases);
    // The mutations reach past the first check: every format has cases the library
    // accepted and cases it refused (a harness that only ever feeds garbage, or never
    // changes a byte, fails here).
    for (target, accepted, refused) in &report.per_target {
        assert!(
            *accepted > 0 && *refused > 0,
            "{}: {accepted} accepted, {refused} refused",
            target.name()
        );
    }
}

#[test]
fn a_case_is_determined_by_its_seed_and_index() {
    let seeds = engine::Seeds::build();
    for case in [0u64, 1, 17, 4_095] {
        let a = engine::make_case(&seeds, 7, case);
        let b = engine::make_case(&seeds, 7, case);
        assert_eq!(a.bytes, b.bytes);
        assert_eq!(a.mutations, b.mutations);
        let other = engine::make_case(&seeds, 8, case);
        assert!(other.bytes != a.bytes || other.mutations != a.mutations);
    }
}

/// Found by the fuzzer (seed 7, case 167): a checkpoint whose checksum and identity are
/// right but whose particle 1 names material 3 of 1 panicked in the contact law at the
/// first step after the restore ("index out of bounds: the len is 1 but the index is 3").
/// Such checkpoints are now refused before anything runs, naming the file and the particle.
#[test]
fn a_checkpoint_with_a_material_index_out_of_range_is_refused_not_a_panic() {
    let seeds = engine::Seeds::build();
    let message = |edit: &dyn Fn(&mut msdem_solver::run::checkpoint::Checkpoint)| {
        match engine::resume_edited(&seeds, edit) {
            Ok(_) => "resumed to the end".to_owned(),
            Err(e) => {
                let text = e.to_string();
                // The temporary folder's name varies: keep what follows it.
                text.split_once("checkpoint.msdem: ")
                    .map_or(text.clone(), |(_, m)| m.to_owned())
            }
        }
    };
    // The unchanged checkpoint resumes, and the run fails where it always does.
    let untouched = message(&|_| {});
    assert!(
        untouched.starts_with("step 7") && untouched.contains("broad phase"),
        "{untouched}"
    );
    let tail = "; delete it or run without --restart";
    assert_eq!(
        message(&|c| c.bodies[1].material = 3),
        format!(
            "particle 1: shape, material, mass, inertia, radius or ε differ from the run's{tail}"
        )
    );
    assert_eq!(
        message(&|c| c.bodies[0].shape = u32::MAX),
        format!(
            "particle 0: shape, material, mass, inertia, radius or ε differ from the run's{tail}"
        )
    );
    assert_eq!(
        message(&|c| {
            c.bodies.pop();
        }),
        format!("checkpoint of 2 particles for a run of 3{tail}")
    );
    assert_eq!(
        message(&|c| c.bodies[2].velocity.x = f64::NAN),
        format!("particle 2: non-finite velocity{tail}")
    );
    assert_eq!(
        message(&|c| c.step = u64::MAX),
        format!(
            "step 18446744073709551615 (t = {:e} s) is not a step of this run (0 to 100){tail}",
            {
                let c: msdem_solver::run::checkpoint::Checkpoint = engine::seed_checkpoint(&seeds);
                c.time
            }
        )
    );
}
