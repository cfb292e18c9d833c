//! Issue 16: hostile YAML is refused quickly and in one line (deep nesting, huge files),
//! a byte-order mark is accepted, duplicate keys are refused, and the particle cap holds
//! with counts that would wrap in 32 bits.

use std::path::Path;
use std::time::{Duration, Instant};

use msdem_scenario::yaml::{MAX_YAML_BYTES, MAX_YAML_DEPTH};
use msdem_scenario::{load_scenario, parse_scenario, DEFAULT_MAX_PARTICLES};

const BASE: &str = "\
version: 1
name: ok
time: { dt: 1.0e-4, end: 0.01, output_every: 10 }
materials: { rock: { density: 2500 } }
shapes: { grain: { mesh: g.ply, tree: g.tree } }
particles: [ { shape: grain, material: rock, position: [0, 0, 1] } ]
";

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("msdem-limits-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn refused_fast(text: &str) -> String {
    let start = Instant::now();
    let e = parse_scenario(text, Path::new("s.yaml"))
        .unwrap_err()
        .to_string();
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    e
}

#[test]
fn nesting_100k_levels_deep_is_refused_in_well_under_a_second() {
    let n = 100_000;
    let flow = format!("{BASE}gravity: {}{}\n", "[".repeat(n), "]".repeat(n));
    assert_eq!(
        refused_fast(&flow),
        format!(
            "s.yaml:7:{}: collections nested more than {MAX_YAML_DEPTH} levels deep",
            9 + MAX_YAML_DEPTH
        )
    );
    let map = format!("{BASE}gravity: {}1{}\n", "{a: ".repeat(n), "}".repeat(n));
    assert!(refused_fast(&map).contains("nested more than 64 levels deep"));
    let block = format!("{BASE}gravity:\n{}x\n", "- ".repeat(n));
    assert!(refused_fast(&block).starts_with("s.yaml:8:"));
    // 64 levels are still parsed (and refused by the schema, not by the limit).
    let fine = format!("{BASE}gravity: {}{}\n", "[".repeat(60), "]".repeat(60));
    assert!(!refused_fast(&fine).contains("nested"));
}

#[test]
fn a_file_over_16_mib_is_refused_before_it_is_read() {
    let d = scratch("big");
    let path = d.join("big.yaml");
    let mut text = BASE.to_owned();
    text.push_str(&"# padding\n".repeat((MAX_YAML_BYTES as usize) / 10 + 1));
    std::fs::write(&path, &text).unwrap();
    let e = load_scenario(&path).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}: {} bytes, more than the 16 MiB a YAML file may have",
            path.display(),
            text.len()
        )
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_leading_byte_order_mark_is_accepted() {
    let with_bom = format!("\u{feff}{BASE}");
    let s = parse_scenario(&with_bom, Path::new("s.yaml")).unwrap();
    assert_eq!(s.name, "ok");
    let d = scratch("bom");
    let path = d.join("bom.yaml");
    std::fs::write(&path, with_bom).unwrap();
    assert_eq!(load_scenario(&path).unwrap().particles.len(), 1);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn duplicate_keys_are_refused_where_the_second_is_written() {
    let text = BASE.replace(
        "materials: { rock: { density: 2500 } }",
        "materials:\n  rock: { density: 2500 }\n  rock: { density: 1000 }",
    );
    assert_eq!(
        refused_fast(&text),
        "s.yaml:6:3: materials: duplicate key `rock`"
    );
}

#[test]
fn counts_are_summed_in_64_bits_against_the_cap() {
    let lattice = |count: &str| {
        format!(
            "{BASE}generators:\n  - lattice: {{ shape: grain, material: rock, origin: [0, 0, 2], spacing: [1, 1, 1], count: {count} }}\n"
        )
    };
    // 65536² wraps to 0 in u32 (the one listed particle comes first).
    assert_eq!(
        refused_fast(&lattice("[65536, 65536, 1]")),
        format!("s.yaml:8:92: generators[0].lattice.count: 4294967296 particles make 4294967297 in all, more than the cap of {DEFAULT_MAX_PARTICLES} (raise `limits: {{ max_particles: N }}` for a larger run)")
    );
    // u32³ does not fit u64 either.
    assert!(
        refused_fast(&lattice("[4294967295, 4294967295, 4294967295]"))
            .contains("more than the cap")
    );
    // Exactly at the cap (one listed particle + 9 999 999) is fine; the cap can be raised.
    assert!(parse_scenario(&lattice("[9999999, 1, 1]"), Path::new("s.yaml")).is_ok());
    assert!(refused_fast(&lattice("[10000000, 1, 1]"))
        .contains("10000000 particles make 10000001 in all"));
    let raised = format!(
        "{}limits: {{ max_particles: 100000000 }}\n",
        lattice("[1000, 1000, 20]")
    );
    assert!(parse_scenario(&raised, Path::new("s.yaml")).is_ok());
}
