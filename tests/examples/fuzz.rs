//! Mutation fuzzing on demand (issue 16):
//! `cargo run --release -p msdem-e2e --example fuzz -- --cases 100000 --seed 7`;
//! `--case N` replays one case (and prints its input to `--dump FILE`), `--first N` starts
//! elsewhere, `--workers N`, `--case-limit-s T`. Exit status 1 when a case panicked, hung
//! or asked for an oversized allocation (that one aborts, naming the case).

#[path = "../fuzz/engine.rs"]
mod engine;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[global_allocator]
static ALLOC: engine::GuardedAlloc = engine::GuardedAlloc;

fn main() -> ExitCode {
    let mut config = engine::Config {
        seed: 7,
        first: 0,
        cases: 10_000,
        workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
        case_limit: Duration::from_secs(10),
    };
    let mut dump = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_default();
        let number = || value.parse::<u64>().ok();
        let ok = match flag.as_str() {
            "--seed" => number().map(|v| config.seed = v),
            "--cases" => number().map(|v| config.cases = v),
            "--first" => number().map(|v| config.first = v),
            "--case" => number().map(|v| {
                config.first = v;
                config.cases = 1;
            }),
            "--workers" => number().map(|v| config.workers = v as usize),
            "--case-limit-s" => number().map(|v| config.case_limit = Duration::from_secs(v)),
            "--dump" => {
                dump = Some(value.clone());
                Some(())
            }
            _ => None,
        };
        if ok.is_none() {
            eprintln!(
                "fuzz: bad argument `{flag} {value}` (flags: --seed N --cases N --first N \
                 --case N --workers N --case-limit-s T --dump FILE)"
            );
            return ExitCode::from(2);
        }
    }
    let seeds = Arc::new(engine::Seeds::build());
    if let Some(path) = dump {
        let case = engine::make_case(&seeds, config.seed, config.first);
        if let Err(e) = std::fs::write(&path, &case.bytes) {
            eprintln!("fuzz: {path}: {e}");
            return ExitCode::FAILURE;
        }
        println!(
            "case {} of seed {}: {} from seed file {}, mutations: {}",
            config.first,
            config.seed,
            case.target.name(),
            case.seed_file,
            case.mutations.join(", ")
        );
    }
    let report = engine::run(seeds, &config);
    print!("{}", report.table());
    if report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
