//! Unit tests: byte-identical round trips of every record kind, the exact byte layout and
//! the errors for bad files.

use super::*;
use serde::{Deserialize, Serialize};
use sha2::Digest;
use std::fmt::Debug;
use std::path::Path;

fn sample() -> Frame {
    Frame {
        step: 42,
        time: 0.0042,
        bodies: vec![BodyState {
            position: [1.0, 2.0, 3.0],
            orientation: [1.0, 0.0, 0.0, 0.0],
            velocity: [0.5, 0.0, -1.0],
            angular_velocity: [0.0, 2.0, 0.0],
        }],
        contacts: vec![ContactRecord {
            a: 0,
            b: Other::Obstacle(1),
            point: [1.0, 2.0, 2.9],
            normal: [0.0, 0.0, 1.0],
            force: [0.0, 0.1, 9.81],
        }],
        loads: vec![BodyLoad {
            force: [0.0, 0.1, 9.81],
            torque: [0.0, 0.0, 1.0e-3],
            contacts: 1,
        }],
    }
}

fn sample_manifest() -> RunManifest {
    RunManifest {
        name: "tiny".into(),
        dt: 1.0e-4,
        output_every: 100,
        shapes: vec![ShapeRecord {
            name: "grain".into(),
            mesh: "../meshes/grain.ply".into(),
            mesh_hash: core::array::from_fn(|i| i as u8 * 7),
            com: [0.0, -1.0e-3, 2.5e-4],
            triangles: 80,
            ellipsoid: None,
        }],
        obstacles: vec![ObstacleRecord {
            name: "floor".into(),
            mesh: "../meshes/floor.ply".into(),
            mesh_hash: [0xab; 32],
            translation: [0.0, 0.0, -0.5],
            rotation: [0.5f64.sqrt(), 0.5f64.sqrt(), 0.0, 0.0],
        }],
        particles: vec![
            ParticleRecord {
                shape: 0,
                mass: 1.047,
                radius: 0.05,
                epsilon: 0.003,
                material: 0,
                inertia: [[1.0e-3, 0.0, 0.0], [0.0, 1.0e-3, 0.0], [0.0, 0.0, 1.0e-3]],
            },
            ParticleRecord {
                shape: 0,
                mass: 2.0,
                radius: 0.06,
                epsilon: 0.004,
                material: 3,
                inertia: [
                    [2.0e-3, 1.0e-4, 0.0],
                    [1.0e-4, 3.0e-3, 0.0],
                    [0.0, 0.0, 4.0e-3],
                ],
            },
        ],
        levels: 4,
    }
}

fn sample_stats() -> StatsFile {
    StatsFile {
        steps: vec![
            StepStats::default(),
            StepStats {
                step: 300,
                time: 0.03,
                checks_per_level: vec![0, 12, 340, 5_000_000_000],
                fallbacks: 3,
                candidate_pairs: 2,
                contacts: 5,
                kinetic_energy: 0.25,
                potential_energy: -1.5,
                linear_momentum: [0.0, 1.0e-3, -2.0],
                angular_momentum: [1.0e-6, 0.0, 3.0],
                iterations: 4,
                converged: false,
                substeps: 6,
                unfolds: 7,
                narrows: 2,
                skipped: 99,
                iteration_checks: vec![vec![1, 2], vec![], vec![3, 4, 5]],
                wall: PhaseTimes::default(),
            },
        ],
    }
}

fn sample_timings() -> TimingsFile {
    TimingsFile {
        steps: vec![
            PhaseTimes::default(),
            PhaseTimes {
                broad: 1.0e-5,
                narrow: 2.5e-4,
                forces: 3.0e-6,
                integrate: 1.0e-6,
            },
        ],
    }
}

/// Write → read → write through a file: the record comes back equal and the second file
/// is byte-identical to the first.
fn assert_round_trip<T>(magic: &[u8; 8], record: &T)
where
    T: Serialize + for<'de> Deserialize<'de> + PartialEq + Debug,
{
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("r.msdem");
    write_record(&p, magic, record).unwrap();
    let first = std::fs::read(&p).unwrap();
    assert_eq!(first, encode(magic, record));
    let back: T = read_record(&p, magic).unwrap();
    assert_eq!(&back, record);
    write_record(&p, magic, &back).unwrap();
    assert_eq!(std::fs::read(&p).unwrap(), first);
    // The atomic write leaves no temporary file behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn frame_round_trips_byte_identically() {
    assert_round_trip(&FRAME_MAGIC, &sample());
    assert_round_trip(
        &FRAME_MAGIC,
        &Frame {
            step: 0,
            time: 0.0,
            bodies: Vec::new(),
            contacts: Vec::new(),
            loads: Vec::new(),
        },
    );
}

#[test]
fn manifest_round_trips_byte_identically() {
    assert_round_trip(&MANIFEST_MAGIC, &sample_manifest());
}

#[test]
fn stats_round_trip_byte_identically() {
    assert_round_trip(&STATS_MAGIC, &sample_stats());
    assert_round_trip(&STATS_MAGIC, &StatsFile::default());
}

#[test]
fn timings_round_trip_byte_identically() {
    assert_round_trip(&TIMINGS_MAGIC, &sample_timings());
}

/// Header of a version-3 file around a body written by hand.
fn with_header(magic: &[u8; 8], body: &[u8]) -> Vec<u8> {
    let mut out = magic.to_vec();
    out.extend_from_slice(&[5, 0, 0, 0]);
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&sha2::Sha256::digest(body));
    out.extend_from_slice(body);
    out
}

/// The byte layout, derived by hand from the postcard format: pins magics, version,
/// header (length, SHA-256), varint integers, little-endian `f64`, enum variant indices and
/// field order.
#[test]
fn byte_layout_is_pinned() {
    assert_eq!(FORMAT_VERSION, 5);
    assert_eq!(HEADER_LEN, 52);
    assert_eq!(&MANIFEST_MAGIC, b"MSDEMRUN");
    assert_eq!(&FRAME_MAGIC, b"MSDEMFRM");
    assert_eq!(&STATS_MAGIC, b"MSDEMSTA");
    assert_eq!(&TIMINGS_MAGIC, b"MSDEMTIM");

    // The whole header spelled out once: an empty statistics file has the one-byte body
    // [0] (no steps), whose SHA-256 is a known constant.
    let mut want = b"MSDEMSTA".to_vec();
    want.extend_from_slice(&[5, 0, 0, 0]);
    want.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0]);
    want.extend((0..32).map(|i| {
        u8::from_str_radix(
            &"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"[2 * i..2 * i + 2],
            16,
        )
        .unwrap()
    }));
    want.push(0);
    assert_eq!(encode(&STATS_MAGIC, &StatsFile::default()), want);

    let f64s = |out: &mut Vec<u8>, xs: &[f64]| {
        for x in xs {
            out.extend_from_slice(&x.to_le_bytes());
        }
    };

    let timings = TimingsFile {
        steps: vec![PhaseTimes {
            broad: 1.0,
            narrow: 2.0,
            forces: 0.5,
            integrate: 0.25,
        }],
    };
    let mut body = vec![1];
    f64s(&mut body, &[1.0, 2.0, 0.5, 0.25]);
    assert_eq!(
        encode(&TIMINGS_MAGIC, &timings),
        with_header(b"MSDEMTIM", &body)
    );

    let frame = Frame {
        step: 300,
        time: 0.5,
        bodies: Vec::new(),
        contacts: vec![
            ContactRecord {
                a: 1,
                b: Other::Obstacle(2),
                point: [0.0; 3],
                normal: [0.0, 0.0, 1.0],
                force: [0.0; 3],
            },
            ContactRecord {
                a: 3,
                b: Other::Particle(200),
                point: [0.0; 3],
                normal: [0.0; 3],
                force: [0.0; 3],
            },
        ],
        loads: vec![BodyLoad {
            force: [1.0, 0.0, 0.0],
            torque: [0.0; 3],
            contacts: 130,
        }],
    };
    let mut body = vec![0xac, 0x02]; // step 300 (varint)
    f64s(&mut body, &[0.5]);
    body.extend_from_slice(&[0, 2]); // no bodies, two contacts
    body.extend_from_slice(&[1, 1, 2]); // a = 1, Obstacle (variant 1), index 2
    f64s(&mut body, &[0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
    body.extend_from_slice(&[3, 0, 0xc8, 0x01]); // a = 3, Particle (variant 0), id 200
    f64s(&mut body, &[0.0; 9]);
    body.push(1); // one load: force, torque, contact count (varint)
    f64s(&mut body, &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    body.extend_from_slice(&[0x82, 0x01]);
    let encoded = encode(&FRAME_MAGIC, &frame);
    assert_eq!(encoded, with_header(b"MSDEMFRM", &body));
    assert_eq!(encoded.len(), HEADER_LEN + body.len());
}

#[test]
fn wrong_magic_version_and_truncation_are_refused() {
    let p = Path::new("x.msdem");
    let good = encode(&FRAME_MAGIC, &sample());

    let e = decode::<Frame>(p, &MANIFEST_MAGIC, &good).unwrap_err();
    assert!(
        matches!(&e, FrameError::Magic { path, what: "run manifest" } if path == p),
        "{e:?}"
    );
    assert!(e.to_string().contains("wrong magic"), "{e}");

    let mut v9 = good.clone();
    v9[8] = 9;
    let e = decode::<Frame>(p, &FRAME_MAGIC, &v9).unwrap_err();
    assert!(
        matches!(
            e,
            FrameError::Version {
                found: 9,
                expected: FORMAT_VERSION,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "x.msdem: format version 9, this build reads version 5; it was written by a newer \
         msdem: export it with that build"
    );

    let e = decode::<Frame>(p, &FRAME_MAGIC, &good[..good.len() - 3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "x.msdem: truncated frame file: {} bytes, expected {}",
            good.len() - 3,
            good.len()
        )
    );

    // Every truncation point gives an error, never a panic: a cut magic or header or body
    // is reported as truncated.
    for len in 0..good.len() {
        match decode::<Frame>(p, &FRAME_MAGIC, &good[..len]) {
            Err(FrameError::Truncated {
                found, expected, ..
            }) if found == len as u64
                && expected
                    == if len < HEADER_LEN {
                        52
                    } else {
                        good.len() as u64
                    } => {}
            other => panic!("length {len}: {other:?}"),
        }
    }

    // Trailing bytes and a garbage body (huge length prefixes) are corrupt.
    let mut long = good.clone();
    long.extend_from_slice(&[0, 0]);
    let e = decode::<Frame>(p, &FRAME_MAGIC, &long).unwrap_err();
    assert!(matches!(e, FrameError::Corrupt { .. }), "{e:?}");
    assert!(e.to_string().contains("2 bytes after the"), "{e}");
    let garbage = with_header(&FRAME_MAGIC, &[0xff; 40]);
    let e = decode::<StatsFile>(p, &FRAME_MAGIC, &garbage).unwrap_err();
    assert!(matches!(e, FrameError::Corrupt { .. }), "{e:?}");
    // A body that decodes with bytes to spare (a frame read as timings).
    let e = decode::<TimingsFile>(p, &FRAME_MAGIC, &good).unwrap_err();
    assert!(matches!(e, FrameError::Corrupt { .. }), "{e:?}");
    // A huge length field is a truncation, not an allocation.
    let mut huge = good.clone();
    huge[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
    let e = decode::<Frame>(p, &FRAME_MAGIC, &huge).unwrap_err();
    assert!(matches!(e, FrameError::Truncated { .. }), "{e:?}");
}

/// Defect 9 of issue 16: an edited frame was accepted. Every single flipped bit in the body
/// or the stored hash is now a checksum mismatch naming the file.
#[test]
fn edited_body_is_a_checksum_mismatch() {
    let p = Path::new("run/frames/frame_000042.msdem");
    let good = encode(&FRAME_MAGIC, &sample());
    for i in 20..good.len() {
        for bit in [0x01u8, 0x80] {
            let mut bad = good.clone();
            bad[i] ^= bit;
            let e = decode::<Frame>(p, &FRAME_MAGIC, &bad).unwrap_err();
            assert!(
                matches!(&e, FrameError::Checksum { path, what: "frame" } if path == p),
                "byte {i}: {e:?}"
            );
        }
    }
    let mut bad = good.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0x40;
    let e = decode::<Frame>(p, &FRAME_MAGIC, &bad).unwrap_err();
    assert_eq!(
        e.to_string(),
        "run/frames/frame_000042.msdem: checksum mismatch: the frame file was altered or \
         damaged after the solver wrote it"
    );
}

/// A version-2 file (no length, no checksum: magic + version + postcard) is refused with
/// advice to rerun the solver.
#[test]
fn version_2_file_is_refused_with_rerun_advice() {
    let mut v2 = b"MSDEMFRM".to_vec();
    v2.extend_from_slice(&2u32.to_le_bytes());
    v2.extend_from_slice(&postcard::to_allocvec(&sample()).unwrap());
    let p = Path::new("run/frames/frame_000000.msdem");
    let e = decode::<Frame>(p, &FRAME_MAGIC, &v2).unwrap_err();
    assert!(
        matches!(
            e,
            FrameError::Version {
                found: 2,
                expected: 5,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "run/frames/frame_000000.msdem: format version 2, this build reads version 5; rerun \
         the solver to write it again"
    );
    // Even a version-2 file cut inside what would be the version-3 header.
    let e = decode::<Frame>(p, &FRAME_MAGIC, &v2[..14]).unwrap_err();
    assert!(matches!(e, FrameError::Version { found: 2, .. }), "{e:?}");
}

/// A version-3 file (the layout of today without the particles' loads, material and
/// inertia) is refused with advice to rerun the solver, before its body is looked at.
#[test]
fn version_3_file_is_refused_with_rerun_advice() {
    let mut v3 = encode(&FRAME_MAGIC, &sample());
    v3[8..12].copy_from_slice(&3u32.to_le_bytes());
    let p = Path::new("run/frames/frame_000001.msdem");
    let e = decode::<Frame>(p, &FRAME_MAGIC, &v3).unwrap_err();
    assert_eq!(
        e.to_string(),
        "run/frames/frame_000001.msdem: format version 3, this build reads version 5; rerun \
         the solver to write it again"
    );
}

/// A version-4 checkpoint (kept active sets without their held narrowing vetoes) is
/// refused with advice to rerun the solver.
#[test]
fn version_4_checkpoint_is_refused_with_rerun_advice() {
    let mut v4 = encode(&CHECKPOINT_MAGIC, &sample());
    v4[8..12].copy_from_slice(&4u32.to_le_bytes());
    let p = Path::new("run/checkpoint.msdem");
    let e = decode::<Frame>(p, &CHECKPOINT_MAGIC, &v4).unwrap_err();
    assert_eq!(
        e.to_string(),
        "run/checkpoint.msdem: format version 4, this build reads version 5; rerun \
         the solver to write it again"
    );
}

/// The same errors through files: `read_record` names the file, and a missing file is an
/// I/O error.
#[test]
fn bad_files_are_refused_by_read_record() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path();
    std::fs::create_dir(run.join("frames")).unwrap();

    let frame = frame_path(run, 0);
    write_record(&frame, &FRAME_MAGIC, &sample()).unwrap();
    let e = read_record::<RunManifest>(&frame, &MANIFEST_MAGIC).unwrap_err();
    assert!(
        matches!(&e, FrameError::Magic { path, what: "run manifest" } if *path == frame),
        "{e:?}"
    );
    let mut bytes = std::fs::read(&frame).unwrap();
    bytes[HEADER_LEN + 3] ^= 1;
    std::fs::write(&frame, &bytes).unwrap();
    let e = read_record::<Frame>(&frame, &FRAME_MAGIC).unwrap_err();
    assert!(
        matches!(&e, FrameError::Checksum { path, what: "frame" } if *path == frame),
        "{e:?}"
    );

    let stats = stats_path(run);
    let mut bytes = encode(&STATS_MAGIC, &sample_stats());
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    std::fs::write(&stats, &bytes).unwrap();
    let e = read_record::<StatsFile>(&stats, &STATS_MAGIC).unwrap_err();
    assert!(
        matches!(&e, FrameError::Version { path, found: 1, expected: 5 } if *path == stats),
        "{e:?}"
    );

    let manifest = manifest_path(run);
    let bytes = encode(&MANIFEST_MAGIC, &sample_manifest());
    std::fs::write(&manifest, &bytes[..bytes.len() / 2]).unwrap();
    let e = read_record::<RunManifest>(&manifest, &MANIFEST_MAGIC).unwrap_err();
    assert!(
        matches!(&e, FrameError::Truncated { path, what: "run manifest", .. } if *path == manifest),
        "{e:?}"
    );

    let missing = timings_path(run);
    let e = read_record::<TimingsFile>(&missing, &TIMINGS_MAGIC).unwrap_err();
    assert!(
        matches!(&e, FrameError::Io { path, source } if *path == missing
            && source.kind() == std::io::ErrorKind::NotFound),
        "{e:?}"
    );

    // Writing into a missing folder is an I/O error too.
    let e = write_record(&frame_path(&run.join("nope"), 3), &FRAME_MAGIC, &sample()).unwrap_err();
    assert!(matches!(e, FrameError::Io { .. }), "{e:?}");
}

#[test]
fn paths_follow_the_run_folder_layout() {
    let run = Path::new("OUT");
    assert_eq!(manifest_path(run), Path::new("OUT/run.msdem"));
    assert_eq!(
        frame_path(run, 42),
        Path::new("OUT/frames/frame_000042.msdem")
    );
    assert_eq!(stats_path(run), Path::new("OUT/stats.msdem"));
    assert_eq!(timings_path(run), Path::new("OUT/timings.msdem"));
}
