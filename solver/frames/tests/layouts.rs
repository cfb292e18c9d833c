//! Guards the format versions of the postcard-encoded records: a record type whose fields
//! change (added, removed, reordered, retyped) encodes its sample differently, and this
//! test then fails until the format version is bumped and the new layout recorded.
//!
//! Postcard writes no field names or types, so an old file decoded with a changed type
//! would give garbage or a misleading "truncated" error; the version check in the
//! readers (`FORMAT_VERSION`, `STREAM_FORMAT_VERSION`) is what refuses old files with a
//! clear message, and only if the version was bumped. Every sample below names every
//! field (no `..Default::default()`), so a new field is a compile error here first.
//!
//! When this test fails: bump the version constant it names (and make sure the readers
//! refuse the old version with the version message), run this test again, and ADD the
//! printed `(version, "hash")` line to the table — never edit an existing line.

use msdem_frames::lts::{LtsPhaseTimes, LtsStepStats};
use msdem_frames::stream::STREAM_FORMAT_VERSION;
use msdem_frames::{
    BodyLoad, BodyState, ContactRecord, Frame, ObstacleRecord, Other, ParticleRecord, PhaseTimes,
    RunManifest, ShapeRecord, StepStats, FORMAT_VERSION,
};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// Layout hashes of the single-record files (`run.msdem`, frames) per `FORMAT_VERSION`.
const RECORD_LAYOUTS: &[(u32, &str)] = &[
    (
        4,
        "3a295760d66a1ee364e01ae2f0f2225e132357b9496fc81411838c7f0fb10f39",
    ),
    // 5: checkpoints carry the held narrowing vetoes and the skin; the frame and
    // manifest records are unchanged.
    (
        5,
        "3a295760d66a1ee364e01ae2f0f2225e132357b9496fc81411838c7f0fb10f39",
    ),
];

/// Layout hashes of the streamed records (`stats.msdem`, `timings.msdem`, `lts.msdem`,
/// `lts_timings.msdem`) per `STREAM_FORMAT_VERSION`.
const STREAM_LAYOUTS: &[(u32, &str)] = &[(
    6,
    "f89201ce9df072a15b18e40dea5d0e0d261c07c61687939b2d6bcd36441c1c70",
)];

/// Appends the postcard encoding of `v` to the hasher.
fn feed<T: Serialize>(h: &mut Sha256, v: &T) {
    let bytes = postcard::to_allocvec(v).expect("samples encode");
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(&bytes);
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn phase_times() -> PhaseTimes {
    PhaseTimes {
        broad: 1.5,
        narrow: 2.5,
        forces: 3.5,
        integrate: 4.5,
    }
}

fn record_layout() -> String {
    let manifest = RunManifest {
        name: "n".into(),
        dt: 5e-5,
        output_every: 7,
        shapes: vec![ShapeRecord {
            name: "s".into(),
            mesh: "m.ply".into(),
            mesh_hash: [3; 32],
            com: [0.25, 0.5, 0.75],
            triangles: 1280,
            ellipsoid: Some([0.1, 0.2, 0.3]),
        }],
        obstacles: vec![ObstacleRecord {
            name: "o".into(),
            mesh: "o.ply".into(),
            mesh_hash: [5; 32],
            translation: [1.0, 2.0, 3.0],
            rotation: [1.0, 0.0, 0.0, 0.0],
        }],
        particles: vec![ParticleRecord {
            shape: 2,
            mass: 10.5,
            radius: 0.1,
            epsilon: 0.003,
            material: 1,
            inertia: [[1.0, 0.5, 0.25], [0.5, 2.0, 0.125], [0.25, 0.125, 3.0]],
        }],
        levels: 9,
    };
    let frame = Frame {
        step: 400,
        time: 0.02,
        bodies: vec![BodyState {
            position: [1.0, 2.0, 3.0],
            orientation: [0.5, 0.5, 0.5, 0.5],
            velocity: [0.5, -0.25, 0.125],
            angular_velocity: [4.0, 5.0, 6.0],
        }],
        contacts: vec![
            ContactRecord {
                a: 3,
                b: Other::Particle(4),
                point: [0.1, 0.2, 0.3],
                normal: [0.0, 0.0, 1.0],
                force: [7.0, 8.0, 9.0],
            },
            ContactRecord {
                a: 5,
                b: Other::Obstacle(1),
                point: [0.4, 0.5, 0.6],
                normal: [1.0, 0.0, 0.0],
                force: [1.0, 2.0, 3.0],
            },
        ],
        loads: vec![BodyLoad {
            force: [1.0, 2.0, 3.0],
            torque: [0.5, 0.25, 0.125],
            contacts: 2,
        }],
    };
    let mut h = Sha256::new();
    feed(&mut h, &manifest);
    feed(&mut h, &frame);
    hex(&h.finalize())
}

fn stream_layout() -> String {
    let stats = StepStats {
        step: 12,
        time: 6e-4,
        checks_per_level: vec![1, 20, 300],
        fallbacks: 4,
        candidate_pairs: 5,
        contacts: 6,
        kinetic_energy: 1.25,
        potential_energy: -2.5,
        linear_momentum: [0.1, 0.2, 0.3],
        angular_momentum: [0.4, 0.5, 0.6],
        iterations: 7,
        converged: false,
        substeps: 8,
        unfolds: 9,
        narrows: 10,
        skipped: 11,
        iteration_checks: vec![vec![1, 2], vec![3]],
        wall: phase_times(),
    };
    let lts = LtsStepStats {
        step: 13,
        sweeps: 2,
        clusters: 3,
        active_clusters: 4,
        collisions: 5,
        rollbacks: 6,
        narrowing_iterations: 7,
        narrowing_checks: 8,
        contacts: 9,
        impulse_iterations: 10,
        impulse_unconverged: 11,
        impulse_relaxed: 12,
        impulse_complementarity_m_s: 0.5,
        min_step: 1e-6,
        cluster_sizes: vec![1, 2],
        step_sizes: vec![3, 4],
        contacts_per_cluster: vec![5, 6],
    };
    let lts_times = LtsPhaseTimes {
        broad: 0.1,
        clustering: 0.2,
        step_size: 0.3,
        narrow: 0.4,
        collision: 0.5,
        roll_over: 0.6,
    };
    let mut h = Sha256::new();
    feed(&mut h, &stats);
    feed(&mut h, &phase_times());
    feed(&mut h, &lts);
    feed(&mut h, &lts_times);
    hex(&h.finalize())
}

/// Checks `layout` against the table entry of `version`; `what` names the constant.
fn check(what: &str, version: u32, layout: &str, table: &[(u32, &str)]) {
    for w in table.windows(2) {
        assert!(w[0].0 < w[1].0, "{what}: table entries must increase");
    }
    let line = format!("({version}, \"{layout}\")");
    match table.iter().find(|(v, _)| *v == version) {
        None => panic!("{what} = {version} has no recorded layout: add {line} to the table"),
        Some((_, recorded)) => {
            assert_eq!(
                *recorded,
                layout,
                "the records of {what} changed without a new version: bump {what} \
                 (old files must be refused with the version message) and add the line \
                 ({}, \"{layout}\") — never edit an existing line",
                version + 1
            );
        }
    }
}

#[test]
fn single_record_files_change_only_with_a_new_format_version() {
    check(
        "FORMAT_VERSION",
        FORMAT_VERSION,
        &record_layout(),
        RECORD_LAYOUTS,
    );
}

#[test]
fn streamed_records_change_only_with_a_new_stream_format_version() {
    check(
        "STREAM_FORMAT_VERSION",
        STREAM_FORMAT_VERSION,
        &stream_layout(),
        STREAM_LAYOUTS,
    );
}
