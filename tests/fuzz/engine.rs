//! Mutation fuzzing of every file the pipeline reads, on the stable toolchain (issue 16,
//! "Corpus and fuzzing").
//!
//! Valid seed files — scenario and pipeline YAML, OBJ, STL (ascii and binary), PLY (ascii
//! and binary), surrogate trees, and the solver's run files (manifest, frames, statistics,
//! checkpoint) from a short real run — are mutated (bit flips, byte insertion and deletion,
//! truncation, splicing with another seed, numbers replaced by extremes such as `1e308`,
//! `-0`, `NaN`, `4294967296`, deep nesting, duplicated lines) and handed to the same
//! library entry points the binaries use (load, parse and check; never a simulation).
//! Checksummed binary files are re-sealed (length and SHA-256 recomputed) for half of the
//! cases, so that mutations reach the decoders behind the checksum.
//!
//! Every case is independent: case `i` of seed `s` is generated from `(s, i)` alone, so a
//! failure is replayed with `--seed s --case i` whatever the number of cases or workers.
//! A case fails when the library panics (caught with `catch_unwind`), runs longer than the
//! per-case limit (a hang: the worker is abandoned and the run stops), or asks for an
//! allocation larger than [`ALLOCATION_LIMIT`] (sizes must be checked before allocating;
//! [`GuardedAlloc`] prints the case and aborts, since such a request cannot be unwound).

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use msdem_frames::{read_record, Frame, RunManifest, FRAME_MAGIC, HEADER_LEN, MANIFEST_MAGIC};
use msdem_mesh::check::{check_mesh, Role};
use msdem_mesh::TriMesh;
use sha2::{Digest, Sha256};

/// The largest single allocation a case may request \[bytes\]: far above what any seed (a
/// few kilobytes, or a megabyte of deep nesting) legitimately needs.
pub const ALLOCATION_LIMIT: usize = 1 << 30;

thread_local! {
    /// The case the current thread runs (`u64::MAX`: none), for [`GuardedAlloc`].
    static CURRENT_CASE: Cell<u64> = const { Cell::new(u64::MAX) };
}
/// The fuzz seed of the run in progress, for [`GuardedAlloc`].
static CURRENT_SEED: AtomicU64 = AtomicU64::new(0);

/// The system allocator, refusing (with the case named on stderr, then abort) a single
/// request above [`ALLOCATION_LIMIT`] made while a fuzz case runs.
pub struct GuardedAlloc;

unsafe impl GlobalAlloc for GuardedAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        check_size(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        check_size(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        check_size(new_size);
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

fn check_size(size: usize) {
    if size <= ALLOCATION_LIMIT {
        return;
    }
    let case = CURRENT_CASE.try_with(Cell::get).unwrap_or(u64::MAX);
    if case == u64::MAX {
        return;
    }
    let seed = CURRENT_SEED.load(Ordering::Relaxed);
    // No allocation here: write the numbers through a fixed buffer.
    let mut buf = [0u8; 160];
    let mut w = &mut buf[..];
    let _ = writeln!(
        w,
        "fuzz: case {case} of seed {seed} asks for {size} bytes at once (replay: --seed {seed} --case {case})"
    );
    let used = 160 - w.len();
    let _ = std::io::stderr().write_all(&buf[..used]);
    std::process::abort();
}

/// Largest mutated input \[bytes\]: a mutation's result is cut to it (nesting 100,000 deep
/// repeated 10,000 times would write gigabytes).
pub const MAX_CASE_BYTES: usize = 4 << 20;

/// SplitMix64: small, fast and fully determined by its seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// The generator of case `case` of fuzz seed `seed`.
    pub fn for_case(seed: u64, case: u64) -> Rng {
        let mut r = Rng(seed ^ case.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.next();
        r
    }
    /// Next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`0` when `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    /// True with probability `1/n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// A kind of input file and the entry point it is fed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// Solver scenario, `msdem_scenario::load_scenario`.
    Scenario,
    /// Pipeline file, `msdem_pipeline::load_pipeline`, then its stages and scenario text.
    Pipeline,
    /// Wavefront OBJ, `read_mesh_source` then `check_mesh`.
    Obj,
    /// ASCII STL.
    StlAscii,
    /// Binary STL.
    StlBinary,
    /// ASCII PLY.
    PlyAscii,
    /// Binary little-endian PLY.
    PlyBinary,
    /// Surrogate tree, `msdem_tree::read_tree`.
    Tree,
    /// Run manifest, `RunFolder::open` of the exporter.
    Manifest,
    /// Frame, `RunFolder::read_frame` of the exporter.
    Frame,
    /// Statistics, `RunFolder::read_stats_if_present` of the exporter.
    Stats,
    /// Solver checkpoint, `msdem_solver::run::checkpoint::load`.
    Checkpoint,
}

impl Target {
    /// Every target, in the order cases cycle through them.
    pub const ALL: [Target; 12] = [
        Target::Scenario,
        Target::Pipeline,
        Target::Obj,
        Target::StlAscii,
        Target::StlBinary,
        Target::PlyAscii,
        Target::PlyBinary,
        Target::Tree,
        Target::Manifest,
        Target::Frame,
        Target::Stats,
        Target::Checkpoint,
    ];

    /// Name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Target::Scenario => "scenario yaml",
            Target::Pipeline => "pipeline yaml",
            Target::Obj => "obj",
            Target::StlAscii => "stl ascii",
            Target::StlBinary => "stl binary",
            Target::PlyAscii => "ply ascii",
            Target::PlyBinary => "ply binary",
            Target::Tree => "tree",
            Target::Manifest => "run manifest",
            Target::Frame => "frame",
            Target::Stats => "statistics",
            Target::Checkpoint => "checkpoint",
        }
    }

    fn is_text(self) -> bool {
        matches!(
            self,
            Target::Scenario | Target::Pipeline | Target::Obj | Target::StlAscii | Target::PlyAscii
        )
    }

    /// How a file of this target is sealed by a checksum, if it is.
    fn seal(self) -> Seal {
        match self {
            Target::Tree => Seal::Tree,
            Target::Manifest | Target::Frame | Target::Checkpoint => Seal::Record,
            Target::Stats => Seal::Stream,
            _ => Seal::None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Seal {
    None,
    /// `msdem-frames` record: magic, version, body length, SHA-256(body), body.
    Record,
    /// Tree file: SHA-256 of everything before it as the last 32 bytes.
    Tree,
    /// Streamed statistics: chunks each with its own SHA-256.
    Stream,
}

/// The seed files of every target and the run folder the run-file targets are read in.
pub struct Seeds {
    files: Vec<(Target, Vec<Vec<u8>>)>,
    /// A complete run folder (manifest, frames, stats) the run-file cases copy.
    run: PathBuf,
    /// The scenario of the seed runs.
    scenario: PathBuf,
    /// A run folder left by a run that failed after checkpoints (the checkpoint target
    /// resumes it), without its checkpoint.
    resumable: PathBuf,
    _dir: tempfile::TempDir,
}

impl Seeds {
    /// Builds every seed: meshes generated and written in each format, a tree built from
    /// one, a short ellipsoid run (with a checkpoint written from its end state), the
    /// repository's pipeline files and the scenario corpus.
    pub fn build() -> Seeds {
        let dir = tempfile::tempdir().expect("temporary folder");
        let root = workspace_root();
        let mut files: Vec<(Target, Vec<Vec<u8>>)> = Vec::new();

        let scenario_texts: Vec<Vec<u8>> = std::iter::once(RUN_SCENARIO.as_bytes().to_vec())
            .chain(yaml_files(&root.join("solver/core/tests/scenario/bad")))
            .collect();
        files.push((Target::Scenario, scenario_texts));
        let pipelines: Vec<Vec<u8>> = yaml_files(&root.join("pipelines"))
            .into_iter()
            .chain(yaml_files(&root.join("tests/pipelines")))
            .collect();
        files.push((Target::Pipeline, pipelines));

        let meshes = [
            msdem_mesh::generate::icosphere(0.05, 1).expect("icosphere"),
            msdem_mesh::generate::cuboid([0.1, 0.2, 0.05], 1).expect("cuboid"),
            tetrahedron(),
        ];
        let scratch = dir.path().join("seed.ply");
        let encode = |m: &TriMesh, f| msdem_mesh::io::encode_mesh(m, f, &scratch).expect("encode");
        use msdem_mesh::io::Format;
        files.push((
            Target::Obj,
            meshes.iter().map(|m| encode(m, Format::Obj)).collect(),
        ));
        files.push((
            Target::StlBinary,
            meshes.iter().map(|m| encode(m, Format::Stl)).collect(),
        ));
        files.push((
            Target::PlyBinary,
            meshes.iter().map(|m| encode(m, Format::Ply)).collect(),
        ));
        files.push((Target::StlAscii, meshes.iter().map(stl_ascii).collect()));
        files.push((Target::PlyAscii, meshes.iter().map(ply_ascii).collect()));

        let tree_mesh_bytes = encode(&meshes[0], Format::Ply);
        let hash: [u8; 32] = Sha256::digest(&tree_mesh_bytes).into();
        let params = msdem_tree::BuildParams::default();
        let trees = [&meshes[0], &meshes[2]]
            .iter()
            .map(|m| {
                let tree = msdem_tree::build_tree(m, hash, &params).expect("seed tree");
                msdem_tree::encode_tree(&tree, &params)
            })
            .collect();
        files.push((Target::Tree, trees));

        let run = seed_run(dir.path());
        let frames_dir = run.join("frames");
        let mut frames: Vec<PathBuf> = std::fs::read_dir(&frames_dir)
            .expect("frames")
            .map(|e| e.expect("entry").path())
            .collect();
        frames.sort();
        let read = |p: &Path| std::fs::read(p).expect("seed run file");
        files.push((
            Target::Manifest,
            vec![read(&msdem_frames::manifest_path(&run))],
        ));
        files.push((
            Target::Frame,
            [frames.first(), frames.last()]
                .into_iter()
                .flatten()
                .map(|p| read(p))
                .collect(),
        ));
        files.push((Target::Stats, vec![read(&msdem_frames::stats_path(&run))]));
        let (scenario, resumable) = failed_run_with_checkpoint(dir.path());
        files.push((
            Target::Checkpoint,
            vec![
                read(&msdem_frames::checkpoint_path(&run)),
                read(&msdem_frames::checkpoint_path(&resumable)),
            ],
        ));
        // The folders the cases copy have no checkpoint: each case writes its own.
        for folder in [&run, &resumable] {
            std::fs::remove_file(msdem_frames::checkpoint_path(folder)).expect("remove checkpoint");
            let _ = std::fs::remove_file(msdem_frames::previous_checkpoint_path(folder));
        }
        Seeds {
            files,
            run,
            scenario,
            resumable,
            _dir: dir,
        }
    }

    fn of(&self, target: Target) -> &[Vec<u8>] {
        self.files
            .iter()
            .find(|(t, _)| *t == target)
            .map_or(&[], |(_, f)| f.as_slice())
    }

    /// Number of seed files of `target`.
    pub fn count(&self, target: Target) -> usize {
        self.of(target).len()
    }
}

/// The scenario of the seed run: two ellipsoids, a few frames.
const RUN_SCENARIO: &str = "version: 1
name: fuzz_seed
time: { dt: 2.0e-5, end: 0.002, output_every: 25 }
materials:
  glass: { density: 2500.0, halo: { relative: 0.01 }, spring: 20000.0, friction: 0.3, restitution: 0.8 }
shapes:
  bean: { ellipsoid: { radii: [0.06, 0.02, 0.04] } }
  lentil: { ellipsoid: { radii: [0.05, 0.05, 0.025] } }
particles:
  - { shape: bean, material: glass, position: [-0.1, 0, 0], velocity: [1.0, 0, 0] }
  - { shape: lentil, material: glass, position: [0.1, 0.01, 0], velocity: [-0.5, 0, 0],
      orientation: [0.9238795, 0, 0.3826834, 0] }
";

/// Runs [`RUN_SCENARIO`] into `dir/run` and writes a checkpoint of its initial state
/// there (with the run's identity and placeholder detector and integrator state); returns
/// the folder.
fn seed_run(dir: &Path) -> PathBuf {
    use msdem_solver::run::{checkpoint, run, step_count, RunOptions};
    let scenario_path = dir.join("seed_scenario.yaml");
    std::fs::write(&scenario_path, RUN_SCENARIO).expect("write scenario");
    let scenario = msdem_scenario::load_scenario(&scenario_path).expect("seed scenario");
    let world = msdem_solver::setup::build_world(&scenario).expect("seed world");
    let bodies = world.state.bodies.clone();
    let params = world.params.clone();
    let out = dir.join("run");
    let options = RunOptions {
        quiet: true,
        wall_times: false,
        ..RunOptions::default()
    };
    let summary = run(world, &out, &options).expect("seed run");
    let manifest: RunManifest =
        read_record(&msdem_frames::manifest_path(&out), &MANIFEST_MAGIC).expect("manifest");
    // A checkpoint at step 0: the statistics stream holds its header only.
    let streams = msdem_solver::run::streams::Marks {
        stats: Some(msdem_solver::run::streams::Mark {
            len: msdem_frames::stream::STREAM_HEADER_LEN,
            pending: Vec::new(),
        }),
        ..Default::default()
    };
    let identity = checkpoint::identity(&manifest, &params, step_count(2.0e-5, 0.002));
    let c = checkpoint::CheckpointRef {
        identity: &identity,
        bodies: &bodies,
        time: 0.0,
        step: 0,
        frames: summary.frames,
        streams: &streams,
        detector: &[1, 2, 3],
        integrator: &[4, 5, 6],
    };
    checkpoint::write(&out, &c).expect("seed checkpoint");
    out
}

/// The scenario of the resumable run: two ellipsoids that touch from about step 30 on, and
/// a third particle so fast (10¹⁴ m/s) that the broad phase refuses it at about step 70.
const RESUMABLE_SCENARIO: &str = "version: 1
name: fuzz_resumable
time: { dt: 2.0e-5, end: 0.002, output_every: 25 }
materials:
  glass: { density: 2500.0, halo: { relative: 0.01 }, spring: 20000.0, friction: 0.3, restitution: 0.8 }
shapes:
  bean: { ellipsoid: { radii: [0.06, 0.02, 0.04] } }
  lentil: { ellipsoid: { radii: [0.05, 0.05, 0.025] } }
particles:
  - { shape: bean, material: glass, position: [-0.0615, 0, 0], velocity: [1.0, 0, 0] }
  - { shape: lentil, material: glass, position: [0.0515, 0.01, 0], velocity: [-0.5, 0, 0] }
  - { shape: lentil, material: glass, position: [0, 1, 0], velocity: [0, 1.0e14, 0] }
";

/// Runs [`RESUMABLE_SCENARIO`] with a checkpoint every 10 steps: the run fails and keeps
/// its last checkpoint (with the detector's and integrator's real state, contacts in
/// progress), as a killed run does. Returns its scenario file and folder.
fn failed_run_with_checkpoint(dir: &Path) -> (PathBuf, PathBuf) {
    use msdem_solver::run::checkpoint::Cadence;
    use msdem_solver::run::{run, RunOptions};
    let path = dir.join("resumable.yaml");
    std::fs::write(&path, RESUMABLE_SCENARIO).expect("write scenario");
    let scenario = msdem_scenario::load_scenario(&path).expect("resumable scenario");
    let world = msdem_solver::setup::build_world(&scenario).expect("resumable world");
    let out = dir.join("resumable");
    let options = RunOptions {
        quiet: true,
        wall_times: false,
        checkpoint: Cadence {
            every_steps: 10,
            every_wall_s: 0.0,
        },
        ..RunOptions::default()
    };
    assert!(
        run(world, &out, &options).is_err(),
        "the resumable run should fail"
    );
    assert!(
        msdem_frames::checkpoint_path(&out).is_file(),
        "no checkpoint left"
    );
    (path, out)
}

fn tetrahedron() -> TriMesh {
    TriMesh {
        vertices: vec![
            [0.0, 0.0, 0.0],
            [0.1, 0.0, 0.0],
            [0.0, 0.1, 0.0],
            [0.0, 0.0, 0.1],
        ],
        triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
    }
}

fn stl_ascii(m: &TriMesh) -> Vec<u8> {
    let mut s = String::from("solid seed\n");
    for t in &m.triangles {
        s.push_str("  facet normal 0 0 0\n    outer loop\n");
        for &i in t {
            let v = m.vertices[i as usize];
            s.push_str(&format!("      vertex {} {} {}\n", v[0], v[1], v[2]));
        }
        s.push_str("    endloop\n  endfacet\n");
    }
    s.push_str("endsolid seed\n");
    s.into_bytes()
}

fn ply_ascii(m: &TriMesh) -> Vec<u8> {
    let mut s = format!(
        "ply\nformat ascii 1.0\ncomment seed\nelement vertex {}\nproperty double x\n\
         property double y\nproperty double z\nelement face {}\n\
         property list uchar int vertex_indices\nend_header\n",
        m.vertices.len(),
        m.triangles.len()
    );
    for v in &m.vertices {
        s.push_str(&format!("{} {} {}\n", v[0], v[1], v[2]));
    }
    for t in &m.triangles {
        s.push_str(&format!("3 {} {} {}\n", t[0], t[1], t[2]));
    }
    s.into_bytes()
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn yaml_files(dir: &Path) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.retain(|p| p.extension().is_some_and(|e| e == "yaml"));
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// Numbers a text mutation puts in place of a number of the seed.
const EXTREME_NUMBERS: &[&str] = &[
    "1e308",
    "-1e308",
    "1e309",
    "-0",
    "-0.0",
    "0",
    "NaN",
    "nan",
    ".nan",
    ".inf",
    "-.inf",
    "inf",
    "4294967296",
    "4294967295",
    "18446744073709551616",
    "9223372036854775808",
    "-1",
    "2147483648",
    "5e-324",
    "1e-320",
    "65536",
    "1e9",
    "99999999999999999999999",
    "0x10",
    "1_000",
    "+1",
];

/// 32- and 64-bit patterns a binary mutation writes over the seed's bytes.
const EXTREME_WORDS: &[u64] = &[
    0,
    1,
    0xFFFF_FFFF,
    0x8000_0000,
    0x7FFF_FFFF,
    0xFFFF_FFFF_FFFF_FFFF,
    0x7FF8_0000_0000_0000, // f64 NaN
    0x7FF0_0000_0000_0000, // f64 +inf
    0x8000_0000_0000_0000, // f64 -0
    0x7FC0_0000,           // f32 NaN
    0x7F80_0000,           // f32 +inf
    0x1_0000_0000,
];

/// Bytes insertions favour: structure characters of the formats.
const INTERESTING_BYTES: &[u8] = b"\0\xff\n\r\t :-[]{}#&*!|>,.0123456789eE/\\\"'\xef\xbb\xbf";

/// One mutated input: the target, the seed file it came from and the bytes.
pub struct Case {
    /// Target fed.
    pub target: Target,
    /// Index of the seed file among the target's seeds.
    pub seed_file: usize,
    /// The names of the mutations applied, in order.
    pub mutations: Vec<&'static str>,
    /// The mutated bytes.
    pub bytes: Vec<u8>,
}

/// The input of case `case` of fuzz seed `seed` (deterministic).
pub fn make_case(seeds: &Seeds, seed: u64, case: u64) -> Case {
    let mut rng = Rng::for_case(seed, case);
    let target = Target::ALL[(case % Target::ALL.len() as u64) as usize];
    let pool = seeds.of(target);
    let seed_file = rng.below(pool.len());
    let original = &pool[seed_file];
    let seal = target.seal();
    let reseal = seal != Seal::None && rng.one_in(2);
    let mut bytes = original.clone();
    let mut mutations = Vec::new();
    if target == Target::Checkpoint && rng.one_in(3) {
        if let Some((name, out)) = mutate_checkpoint_record(&mut rng, &bytes) {
            return Case {
                target,
                seed_file,
                mutations: vec![name],
                bytes: out,
            };
        }
    }
    let count = 1 + rng.below(4);
    for _ in 0..count {
        let (name, mut out) = mutate(&mut rng, &bytes, pool, target);
        out.truncate(MAX_CASE_BYTES);
        mutations.push(name);
        bytes = out;
    }
    if reseal {
        bytes = match seal {
            Seal::Record => reseal_record(&bytes),
            Seal::Tree => reseal_tree(&bytes),
            Seal::Stream => reseal_stream(&bytes),
            Seal::None => bytes,
        };
        mutations.push("reseal");
    }
    Case {
        target,
        seed_file,
        mutations,
        bytes,
    }
}

/// A structure-aware mutation of a checkpoint: decoded, one field changed to a value of
/// the right type that no run writes (a body too many or too few, an index out of range,
/// a non-finite state, an extreme step or frame count), encoded and sealed again, so that
/// it passes the checksum and the decoder and reaches the solver's restore.
fn mutate_checkpoint_record(rng: &mut Rng, bytes: &[u8]) -> Option<(&'static str, Vec<u8>)> {
    use msdem_solver::run::checkpoint::Checkpoint;
    let path = Path::new("checkpoint.msdem");
    let mut c: Checkpoint =
        msdem_frames::decode(path, &msdem_frames::CHECKPOINT_MAGIC, bytes).ok()?;
    let n = c.bodies.len();
    let i = rng.below(n);
    let extreme = [u32::MAX, 1 << 31, n as u32, 7][rng.below(4)];
    let name = match rng.below(10) {
        0 => {
            c.bodies.pop();
            "checkpoint: a body less"
        }
        1 => {
            let extra = c.bodies[i].clone();
            c.bodies.push(extra);
            "checkpoint: a body more"
        }
        2 => {
            c.bodies[i].shape = extreme;
            "checkpoint: shape index"
        }
        3 => {
            c.bodies[i].material = extreme;
            "checkpoint: material index"
        }
        4 => {
            c.bodies[i].position[rng.below(3)] = [f64::NAN, f64::INFINITY, 1e308][rng.below(3)];
            "checkpoint: position"
        }
        5 => {
            c.bodies[i].mass = [0.0, -1.0, f64::NAN, 1e-300][rng.below(4)];
            "checkpoint: mass"
        }
        6 => {
            c.step = [u64::MAX, u64::MAX / 2, 1 << 40, 0][rng.below(4)];
            "checkpoint: step"
        }
        7 => {
            c.frames = [u32::MAX, 0, 1 << 20][rng.below(3)];
            "checkpoint: frame count"
        }
        8 => {
            c.time = [f64::NAN, -1e308, 1e308][rng.below(3)];
            "checkpoint: time"
        }
        _ => {
            if let Some(mark) = c.streams.stats.as_mut() {
                let keep = rng.below(mark.pending.len() + 1);
                mark.pending.truncate(keep);
                if rng.one_in(2) {
                    mark.len = [0, mark.len / 2, mark.len + 1, u64::MAX][rng.below(4)];
                }
            }
            if rng.one_in(2) {
                c.detector.clear();
            }
            "checkpoint: statistics and detector state"
        }
    };
    Some((
        name,
        msdem_frames::encode(&msdem_frames::CHECKPOINT_MAGIC, &c),
    ))
}

/// Recomputes the length and checksum of a mutated `msdem-frames` record (its header is
/// kept as mutated when too short to hold a body).
fn reseal_record(bytes: &[u8]) -> Vec<u8> {
    if bytes.len() < HEADER_LEN {
        return bytes.to_vec();
    }
    let body = &bytes[HEADER_LEN..];
    let mut out = bytes[..12].to_vec();
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(body));
    out.extend_from_slice(body);
    out
}

/// Recomputes the checksum of every chunk of a mutated statistics stream
/// ([`msdem_frames::stream`]: a header, then chunks of count, body length, SHA-256 and
/// body); a chunk whose length field runs past the end gets the length that is left.
fn reseal_stream(bytes: &[u8]) -> Vec<u8> {
    use msdem_frames::stream::{CHUNK_HEADER_LEN, STREAM_HEADER_LEN};
    let (header, chunk) = (STREAM_HEADER_LEN as usize, CHUNK_HEADER_LEN as usize);
    let mut out = bytes.to_vec();
    let mut at = header.min(out.len());
    while out.len() - at >= chunk {
        let len_field = at + 4..at + 12;
        let said = u64::from_le_bytes(out[len_field.clone()].try_into().unwrap_or([0; 8]));
        let left = (out.len() - at - chunk) as u64;
        let len = said.min(left);
        out[len_field].copy_from_slice(&len.to_le_bytes());
        let body = at + chunk..at + chunk + len as usize;
        let digest = Sha256::digest(&out[body.clone()]);
        out[at + 12..at + chunk].copy_from_slice(&digest);
        at = body.end;
    }
    out
}

/// Recomputes the trailing checksum of a mutated tree file.
fn reseal_tree(bytes: &[u8]) -> Vec<u8> {
    if bytes.len() < 12 + 32 {
        return bytes.to_vec();
    }
    let body = &bytes[..bytes.len() - 32];
    let mut out = body.to_vec();
    out.extend_from_slice(&Sha256::digest(body));
    out
}

/// Applies one random mutation; returns its name and the result.
fn mutate(
    rng: &mut Rng,
    input: &[u8],
    pool: &[Vec<u8>],
    target: Target,
) -> (&'static str, Vec<u8>) {
    let mut b = input.to_vec();
    let n = b.len();
    // Text targets get the structural mutations more often.
    let kinds = if target.is_text() { 11 } else { 8 };
    match rng.below(kinds) {
        0 => {
            if n > 0 {
                let i = rng.below(n);
                b[i] ^= 1 << rng.below(8);
            }
            ("bit flip", b)
        }
        1 => {
            let at = rng.below(n + 1);
            let len = 1 + rng.below(8);
            let ins: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.one_in(2) {
                        INTERESTING_BYTES[rng.below(INTERESTING_BYTES.len())]
                    } else {
                        rng.next() as u8
                    }
                })
                .collect();
            b.splice(at..at, ins);
            ("insert bytes", b)
        }
        2 => {
            if n > 0 {
                let at = rng.below(n);
                let len = (1 + rng.below(16)).min(n - at);
                b.drain(at..at + len);
            }
            ("delete bytes", b)
        }
        3 => {
            b.truncate(rng.below(n + 1));
            ("truncate", b)
        }
        4 => {
            let other = &pool[rng.below(pool.len())];
            let cut = rng.below(n + 1);
            let from = rng.below(other.len() + 1);
            b.truncate(cut);
            b.extend_from_slice(&other[from..]);
            ("splice", b)
        }
        5 => {
            if n >= 4 {
                let wide = n >= 8 && rng.one_in(2);
                let width = if wide { 8 } else { 4 };
                let at = rng.below(n - width + 1);
                let w = EXTREME_WORDS[rng.below(EXTREME_WORDS.len())];
                b[at..at + width].copy_from_slice(&w.to_le_bytes()[..width]);
            }
            ("extreme word", b)
        }
        6 => {
            // Duplicate a chunk elsewhere (duplicate keys, lines, records).
            if n > 0 {
                let from = rng.below(n);
                let len = (1 + rng.below(200)).min(n - from);
                let chunk = b[from..from + len].to_vec();
                let at = rng.below(n + 1);
                b.splice(at..at, chunk);
            }
            ("duplicate chunk", b)
        }
        7 => {
            replace_number(rng, &mut b);
            ("extreme number", b)
        }
        8 => {
            replace_number(rng, &mut b);
            ("extreme number", b)
        }
        9 => {
            let at = rng.below(n + 1);
            let depth = [10, 1_000, 20_000, 100_000][rng.below(4)];
            let open: &[u8] = match rng.below(3) {
                0 => b"[",
                1 => b"{a: ",
                _ => b"- ",
            };
            let mut nest = open.repeat(depth);
            if rng.one_in(2) {
                let close: &[u8] = if open == b"[" { b"]" } else { b"}" };
                nest.extend(close.repeat(depth));
            }
            b.splice(at..at, nest);
            ("deep nesting", b)
        }
        _ => {
            // Repeat one line many times (duplicate keys, huge counts of records).
            let starts: Vec<usize> = std::iter::once(0)
                .chain(
                    b.iter()
                        .enumerate()
                        .filter(|(_, c)| **c == b'\n')
                        .map(|(i, _)| i + 1),
                )
                .filter(|&i| i < n)
                .collect();
            if let Some(&start) = starts.get(rng.below(starts.len())) {
                let end = b[start..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(n, |p| start + p + 1);
                let line = b[start..end].to_vec();
                let times = [2, 3, 100, 10_000][rng.below(4)];
                b.splice(end..end, line.repeat(times));
            }
            ("repeat line", b)
        }
    }
}

/// Replaces one number token (digits with an optional sign, point and exponent) by an
/// extreme; no change when the input has none.
fn replace_number(rng: &mut Rng, b: &mut Vec<u8>) {
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let mut start = i;
            if start > 0 && (b[start - 1] == b'-' || b[start - 1] == b'+') {
                start -= 1;
            }
            let mut end = i;
            while end < b.len()
                && (b[end].is_ascii_digit()
                    || b[end] == b'.'
                    || ((b[end] == b'e' || b[end] == b'E')
                        && end + 1 < b.len()
                        && (b[end + 1].is_ascii_digit() || b[end + 1] == b'-')))
            {
                end += if b[end] == b'e' || b[end] == b'E' {
                    2
                } else {
                    1
                };
            }
            tokens.push((start, end.min(b.len())));
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    if tokens.is_empty() {
        return;
    }
    let (start, end) = tokens[rng.below(tokens.len())];
    let with = EXTREME_NUMBERS[rng.below(EXTREME_NUMBERS.len())];
    b.splice(start..end, with.bytes());
}

/// Per-worker scratch: a copy of the seed run folder and file names of every target.
struct Scratch {
    dir: tempfile::TempDir,
    run: PathBuf,
    /// Where the checkpoint cases resume (a fresh copy of the resumable run per case).
    resume: PathBuf,
    folder: Option<msdem_export::run_reader::RunFolder>,
}

impl Scratch {
    fn new(seeds: &Seeds) -> Scratch {
        let dir = tempfile::tempdir().expect("worker folder");
        let run = dir.path().join("run");
        copy_dir(&seeds.run, &run);
        let folder = msdem_export::run_reader::RunFolder::open(&run).ok();
        let resume = dir.path().join("resume");
        Scratch {
            dir,
            run,
            resume,
            folder,
        }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create folder");
    for entry in std::fs::read_dir(from).expect("read folder") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Whether the library accepted or refused the input (both are fine; a panic or a hang is
/// not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Loaded (and checked) without error.
    Accepted,
    /// Refused with an error.
    Refused,
}

/// With `MSDEM_FUZZ_VERBOSE` set (for replaying one case), prints what the library said.
fn verbose<T: std::fmt::Debug, E: std::fmt::Display>(result: &Result<T, E>) {
    if std::env::var_os("MSDEM_FUZZ_VERBOSE").is_some() {
        match result {
            Ok(v) => eprintln!("fuzz: accepted: {v:?}"),
            Err(e) => eprintln!("fuzz: refused: {e}"),
        }
    }
}

/// Feeds `bytes` to the entry point of `target`, as the binaries do.
fn exercise(seeds: &Seeds, scratch: &mut Scratch, target: Target, bytes: &[u8]) -> Verdict {
    let verdict = |ok: bool| {
        if ok {
            Verdict::Accepted
        } else {
            Verdict::Refused
        }
    };
    let put = |path: &Path| std::fs::write(path, bytes).expect("write case file");
    match target {
        Target::Scenario => {
            let path = scratch.file("scenario.yaml");
            put(&path);
            let loaded = msdem_scenario::load_scenario(&path);
            verbose(&loaded.as_ref().map(|s| s.name.clone()));
            verdict(loaded.is_ok())
        }
        Target::Pipeline => {
            let path = scratch.file("pipeline.yaml");
            put(&path);
            match msdem_pipeline::load_pipeline(&path) {
                Ok(spec) => {
                    let _ = msdem_pipeline::plan::stages(&spec, scratch.dir.path());
                    verdict(msdem_pipeline::scenario_text(&spec).is_ok())
                }
                Err(_) => Verdict::Refused,
            }
        }
        Target::Obj
        | Target::StlAscii
        | Target::StlBinary
        | Target::PlyAscii
        | Target::PlyBinary => {
            let ext = match target {
                Target::Obj => "obj",
                Target::StlAscii | Target::StlBinary => "stl",
                _ => "ply",
            };
            let path = scratch.file(&format!("mesh.{ext}"));
            put(&path);
            let read = msdem_mesh::read_mesh_source(&path);
            verbose(&read.as_ref().map(|r| r.0.triangles.len()));
            match read {
                Ok((mesh, map, _)) => {
                    let report = check_mesh(&mesh, Role::Particle);
                    let _ = report.display_in(&map).to_string();
                    verdict(report.problems_in(&map).is_empty())
                }
                Err(_) => Verdict::Refused,
            }
        }
        Target::Tree => {
            let path = scratch.file("mesh.tree");
            put(&path);
            let read = msdem_tree::read_tree(&path);
            verbose(&read.as_ref().map(|t| t.0.nodes.len()));
            verdict(read.is_ok())
        }
        Target::Manifest => {
            let path = msdem_frames::manifest_path(&scratch.run);
            put(&path);
            let ok = msdem_export::run_reader::RunFolder::open(&scratch.run).is_ok();
            std::fs::copy(msdem_frames::manifest_path(&seeds.run), &path).expect("restore");
            verdict(ok)
        }
        Target::Frame => {
            let path = msdem_frames::frame_path(&scratch.run, 0);
            put(&path);
            let ok = match &scratch.folder {
                Some(folder) => folder.read_frame(0).is_ok(),
                None => read_record::<Frame>(&path, &FRAME_MAGIC).is_ok(),
            };
            verdict(ok)
        }
        Target::Stats => {
            let path = msdem_frames::stats_path(&scratch.run);
            put(&path);
            let ok = match &scratch.folder {
                Some(folder) => folder.read_stats_if_present().is_ok(),
                None => false,
            };
            verdict(ok)
        }
        Target::Checkpoint => {
            // Resume the failed run from the mutated checkpoint, as `solver --restart`
            // does: identity check, restoring the detector and integrator, the steps left.
            let _ = std::fs::remove_dir_all(&scratch.resume);
            copy_dir(&seeds.resumable, &scratch.resume);
            let path = msdem_frames::checkpoint_path(&scratch.resume);
            put(&path);
            let scenario = msdem_scenario::load_scenario(&seeds.scenario).expect("seed scenario");
            let world = msdem_solver::setup::build_world(&scenario).expect("seed world");
            let options = msdem_solver::run::RunOptions {
                quiet: true,
                wall_times: false,
                restart: true,
                ..msdem_solver::run::RunOptions::default()
            };
            let resumed = msdem_solver::run::resume(world, &scratch.resume, &options);
            verbose(&resumed.as_ref().map(|_| "resumed to the end"));
            // The seed run fails at its step ~70 whatever the checkpoint: accepted means
            // the checkpoint was taken (the run got past restoring it).
            verdict(match &resumed {
                Ok(_) => true,
                Err(e) => e.to_string().contains("step "),
            })
        }
    }
}

/// Resumes the seed run that failed after checkpoints from its checkpoint changed by
/// `edit` (encoded and sealed again), in a fresh folder; the run itself fails at about
/// step 70 (its third particle leaves the broad phase's range), so `Err` naming that step
/// means the checkpoint was taken.
pub fn resume_edited(
    seeds: &Seeds,
    edit: impl FnOnce(&mut msdem_solver::run::checkpoint::Checkpoint),
) -> Result<msdem_solver::run::RunSummary, msdem_solver::error::SolverError> {
    use msdem_solver::run::checkpoint::Checkpoint;
    let bytes = &seeds.of(Target::Checkpoint)[1];
    let path = Path::new("checkpoint.msdem");
    let mut c: Checkpoint =
        msdem_frames::decode(path, &msdem_frames::CHECKPOINT_MAGIC, bytes).expect("seed");
    edit(&mut c);
    let dir = tempfile::tempdir().expect("folder");
    let run = dir.path().join("run");
    copy_dir(&seeds.resumable, &run);
    std::fs::write(
        msdem_frames::checkpoint_path(&run),
        msdem_frames::encode(&msdem_frames::CHECKPOINT_MAGIC, &c),
    )
    .expect("write checkpoint");
    let scenario = msdem_scenario::load_scenario(&seeds.scenario).expect("seed scenario");
    let world = msdem_solver::setup::build_world(&scenario).expect("seed world");
    let options = msdem_solver::run::RunOptions {
        quiet: true,
        wall_times: false,
        restart: true,
        ..msdem_solver::run::RunOptions::default()
    };
    msdem_solver::run::resume(world, &run, &options)
}

/// The seed checkpoint of the resumable run, decoded.
pub fn seed_checkpoint(seeds: &Seeds) -> msdem_solver::run::checkpoint::Checkpoint {
    msdem_frames::decode(
        Path::new("checkpoint.msdem"),
        &msdem_frames::CHECKPOINT_MAGIC,
        &seeds.of(Target::Checkpoint)[1],
    )
    .expect("seed checkpoint")
}

/// What went wrong in a failed case.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Fuzz seed.
    pub seed: u64,
    /// Case index (replay with `--seed SEED --case CASE`).
    pub case: u64,
    /// Target fed.
    pub target: Target,
    /// `panic: …` or `hang: …`.
    pub what: String,
    /// The mutations of the case.
    pub mutations: Vec<&'static str>,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "seed {} case {} ({}; {}): {} (replay: cargo run --release -p msdem-e2e --example fuzz -- --seed {} --case {})",
            self.seed,
            self.case,
            self.target.name(),
            self.mutations.join(", "),
            self.what,
            self.seed,
            self.case
        )
    }
}

/// Settings of a fuzz run.
#[derive(Clone, Debug)]
pub struct Config {
    /// Fuzz seed.
    pub seed: u64,
    /// First case index.
    pub first: u64,
    /// Number of cases.
    pub cases: u64,
    /// Worker threads.
    pub workers: usize,
    /// Longest a case may run before it counts as a hang.
    pub case_limit: Duration,
}

/// Counts of a fuzz run, per target.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Cases run.
    pub cases: u64,
    /// `(target, accepted, refused)`.
    pub per_target: Vec<(Target, u64, u64)>,
    /// Failed cases (panics, hangs), in case order.
    pub failures: Vec<Failure>,
    /// Slowest case: (case, duration).
    pub slowest: (u64, Duration),
    /// Wall time of the run.
    pub elapsed: Duration,
}

/// One finished case: index, target, verdict or failure, duration.
type Outcome = (u64, Target, Result<Verdict, Failure>, Duration);

struct Slot {
    /// Case running and when it started.
    running: Option<(u64, Instant)>,
}

/// Runs `config.cases` cases from `config.first` on `config.workers` threads; stops at
/// the first hang (the hung worker cannot be stopped and is abandoned).
pub fn run(seeds: Arc<Seeds>, config: &Config) -> Report {
    CURRENT_SEED.store(config.seed, Ordering::Relaxed);
    let start = Instant::now();
    let next = Arc::new(AtomicU64::new(config.first));
    let stop = Arc::new(AtomicBool::new(false));
    let end = config.first.saturating_add(config.cases);
    let results: Arc<Mutex<Vec<Outcome>>> = Arc::default();
    let workers = config.workers.max(1);
    let slots: Vec<Arc<Mutex<Slot>>> = (0..workers)
        .map(|_| Arc::new(Mutex::new(Slot { running: None })))
        .collect();
    let mut handles = Vec::new();
    for slot in &slots {
        let (seeds, next, stop, results, slot) = (
            seeds.clone(),
            next.clone(),
            stop.clone(),
            results.clone(),
            slot.clone(),
        );
        let seed = config.seed;
        handles.push(std::thread::spawn(move || {
            let mut scratch = Scratch::new(&seeds);
            while !stop.load(Ordering::Relaxed) {
                let case = next.fetch_add(1, Ordering::Relaxed);
                if case >= end {
                    break;
                }
                let input = make_case(&seeds, seed, case);
                let began = Instant::now();
                slot.lock().expect("slot").running = Some((case, began));
                CURRENT_CASE.with(|c| c.set(case));
                let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    exercise(&seeds, &mut scratch, input.target, &input.bytes)
                }));
                CURRENT_CASE.with(|c| c.set(u64::MAX));
                let took = began.elapsed();
                slot.lock().expect("slot").running = None;
                let outcome = outcome.map_err(|payload| Failure {
                    seed,
                    case,
                    target: input.target,
                    what: format!("panic: {}", panic_text(&payload)),
                    mutations: input.mutations.clone(),
                });
                if outcome.is_err() {
                    // A panic may leave the scratch folder half-changed.
                    scratch = Scratch::new(&seeds);
                }
                results
                    .lock()
                    .expect("results")
                    .push((case, input.target, outcome, took));
            }
        }));
    }
    let mut hangs = Vec::new();
    loop {
        std::thread::sleep(Duration::from_millis(20));
        for slot in &slots {
            if let Some((case, began)) = slot.lock().expect("slot").running {
                if began.elapsed() > config.case_limit {
                    let input = make_case(&seeds, config.seed, case);
                    hangs.push(Failure {
                        seed: config.seed,
                        case,
                        target: input.target,
                        what: format!("hang: still running after {:?}", config.case_limit),
                        mutations: input.mutations,
                    });
                }
            }
        }
        if !hangs.is_empty() {
            stop.store(true, Ordering::Relaxed);
            break;
        }
        if handles.iter().all(|h| h.is_finished()) {
            break;
        }
    }
    if hangs.is_empty() {
        for h in handles {
            let _ = h.join();
        }
    }
    let mut results = std::mem::take(&mut *results.lock().expect("results"));
    results.sort_by_key(|r| r.0);
    let mut report = Report {
        cases: results.len() as u64 + hangs.len() as u64,
        per_target: Target::ALL.iter().map(|t| (*t, 0, 0)).collect(),
        ..Report::default()
    };
    for (case, target, outcome, took) in results {
        if took > report.slowest.1 {
            report.slowest = (case, took);
        }
        let row = report
            .per_target
            .iter_mut()
            .find(|r| r.0 == target)
            .expect("every target has a row");
        match outcome {
            Ok(Verdict::Accepted) => row.1 += 1,
            Ok(Verdict::Refused) => row.2 += 1,
            Err(f) => report.failures.push(f),
        }
    }
    report.failures.extend(hangs);
    report.elapsed = start.elapsed();
    report
}

fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_owned()
    }
}

impl Report {
    /// A table of the run: cases per target, accepted and refused, failures.
    pub fn table(&self) -> String {
        let mut s = format!(
            "{} cases in {:.1} s, slowest case {} ({:.0} ms), {} failures\n",
            self.cases,
            self.elapsed.as_secs_f64(),
            self.slowest.0,
            self.slowest.1.as_secs_f64() * 1e3,
            self.failures.len()
        );
        for (t, ok, refused) in &self.per_target {
            s.push_str(&format!(
                "  {:<14} {:>8} accepted {:>8} refused\n",
                t.name(),
                ok,
                refused
            ));
        }
        for f in &self.failures {
            s.push_str(&format!("  FAIL {f}\n"));
        }
        s
    }
}
