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

/// Cases of the test: `$MSDEM_FUZZ_CASES`, else 3,000 (≈ 250 per format).
fn cases() -> u64 {
    std::env::var("MSDEM_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3_000)
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
