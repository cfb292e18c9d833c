//! Build time and query quality of this builder against reference trees written by another
//! (older) `treebuild`:
//!
//! ```text
//! cargo run --release -p msdem-tree --example build_quality -- DIR [REPS] [POSES] \
//!     [FIT_ITERATIONS REFINE_ITERATIONS FIT_SAMPLES FIT_TOLERANCE]
//! ```
//!
//! (builder parameters left out take their defaults).
//!
//! `DIR` holds mesh pairs `NAME_a.ply`, `NAME_b.ply` and the reference trees
//! `NAME_a.tree`, `NAME_b.tree` built from them (docs/performance.md gives the commands).
//! For every pair the example
//!
//! * builds both trees `REPS` times (default 5), alternating a 1-thread and a 2-thread rayon
//!   pool, and reports the medians: thread-CPU time of the 1-thread build and wall time of
//!   the 2-thread build \[s\]; the 1- and 2-thread trees must encode to identical bytes;
//! * draws `POSES` (default 20) seeded random relative orientations and approach
//!   directions, finds by bisection the centre distance at which contacts appear, and
//!   queries both the reference and the new trees at that distance plus
//!   `{+1.5, 0, −2, −10}·ε` (ε = 1 % of the larger bounding radius): hierarchy traversal,
//!   exact kernel. The contact pair sets of the two trees must be equal (both are exact);
//!   the kernel checks (`LevelStats::total`) are summed per mesh.
//!
//! The last line per mesh prints `checks_ratio = new / reference`.

use msdem_geom::kernel::KernelKind;
use msdem_geom::math::Tri;
use msdem_geom::math::{Iso3, Vec3};
use msdem_mesh::TriMesh;
use msdem_tree::{
    build_tree, encode_tree, find_contacts, validate, BuildParams, LevelStats, Mode, Node, Scratch,
    SurrogateTree,
};
use rand::{Rng, SeedableRng};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::time::Instant;

/// CPU time of the calling thread \[s\] ([`msdem_benchkit::thread_cpu_s`]).
fn thread_cpu_s() -> f64 {
    msdem_benchkit::thread_cpu_s().expect("thread CPU clock")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn bounding_radius(m: &TriMesh) -> (Vec3, f64) {
    let n = m.vertices.len() as f64;
    let c = m.vertices.iter().fold([0.0; 3], |a, v| {
        [a[0] + v[0] / n, a[1] + v[1] / n, a[2] + v[2] / n]
    });
    let r = m
        .vertices
        .iter()
        .map(|v| ((v[0] - c[0]).powi(2) + (v[1] - c[1]).powi(2) + (v[2] - c[2]).powi(2)).sqrt())
        .fold(0.0, f64::max);
    (Vec3::new(c[0], c[1], c[2]), r)
}

/// Contacts as sorted mesh-index pairs, and the kernel checks.
fn query(
    a: &SurrogateTree,
    b: &SurrogateTree,
    eps: f32,
    iso: &Iso3,
    scratch: &mut Scratch,
) -> (Vec<(u32, u32)>, u64) {
    let mut out = Vec::new();
    let mut st = LevelStats::default();
    find_contacts(
        a,
        eps,
        b,
        eps,
        iso,
        Mode::Hierarchy,
        KernelKind::Exact,
        scratch,
        &mut out,
        &mut st,
    );
    let mut keys: Vec<(u32, u32)> = out
        .iter()
        .map(|c| (a.source[c.tri_a as usize], b.source[c.tri_b as usize]))
        .collect();
    keys.sort_unstable();
    (keys, st.total())
}

/// Reads a reference tree by its layout only (magic, version, hashes, parameter block of
/// any length, nodes, soup, source, checksum; `format.rs`): a tree of an older builder
/// version, which `read_tree` refuses by design. The result must pass [`validate`].
fn read_reference_tree(path: &Path) -> SurrogateTree {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&b[..8], b"MSDEMTRE", "{}: not a tree file", path.display());
    let (body, sum) = b.split_at(b.len() - 32);
    assert_eq!(
        Sha256::digest(body).as_slice(),
        sum,
        "{}: bad checksum",
        path.display()
    );
    let u32_at = |i: usize| u32::from_le_bytes(body[i..i + 4].try_into().expect("4 bytes"));
    let mut at = 12;
    let mesh_hash: [u8; 32] = body[at..at + 32].try_into().expect("32 bytes");
    let params_hash: [u8; 32] = body[at + 32..at + 64].try_into().expect("32 bytes");
    at += 64;
    at += 4 + u32_at(at) as usize;
    let (nn, ns) = (u32_at(at) as usize, u32_at(at + 4) as usize);
    at += 8;
    let nodes = (0..nn)
        .map(|i| {
            let w = |k: usize| u32_at(at + 24 * i + 4 * k);
            Node {
                tri: w(0),
                first: w(1),
                count: w(2),
                level: w(3),
                offset: f32::from_bits(w(4)),
                inner: f32::from_bits(w(5)),
            }
        })
        .collect();
    at += 24 * nn;
    let soup = (0..ns)
        .map(|i| Tri {
            v: std::array::from_fn(|r| {
                std::array::from_fn(|c| f32::from_bits(u32_at(at + 36 * i + 12 * r + 4 * c)))
            }),
        })
        .collect();
    at += 36 * ns;
    let source = (0..ns).map(|i| u32_at(at + 4 * i)).collect();
    let tree = SurrogateTree {
        nodes,
        soup,
        source,
        mesh_hash,
        params_hash,
    };
    validate(&tree).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    tree
}

fn load(dir: &Path, name: &str) -> (TriMesh, SurrogateTree) {
    let mesh_path = dir.join(format!("{name}.ply"));
    let (mesh, hash) = msdem_mesh::read_mesh(&mesh_path)
        .unwrap_or_else(|e| panic!("{}: {e}", mesh_path.display()));
    let tree_path = dir.join(format!("{name}.tree"));
    let tree = read_reference_tree(&tree_path);
    assert_eq!(
        tree.mesh_hash,
        hash,
        "{} is not the tree of {name}.ply",
        tree_path.display()
    );
    (mesh, tree)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = Path::new(args.get(1).map_or("/tmp/tbwork/quality", String::as_str)).to_owned();
    let reps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let n_poses: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(20);
    let d = BuildParams::default();
    let num = |i: usize, v: f64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(v);
    let p = BuildParams {
        fit_iterations: num(4, d.fit_iterations.into()) as u32,
        refine_iterations: num(5, d.refine_iterations.into()) as u32,
        fit_samples: num(6, d.fit_samples.into()) as u32,
        fit_tolerance: num(7, d.fit_tolerance),
        ..d
    };
    println!("{p:?}");
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .expect("thread pool")
    };
    let (pool1, pool2) = (pool(1), pool(2));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("DIR")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix("_a.ply").map(str::to_owned)
        })
        .collect();
    names.sort();
    if let Ok(only) = std::env::var("ONLY") {
        names.retain(|n| only.split(',').any(|o| o == n));
    }
    for name in names {
        let (ma, old_a) = load(&dir, &format!("{name}_a"));
        let (mb, old_b) = load(&dir, &format!("{name}_b"));
        // Build times, 1 and 2 threads interleaved; the trees must be identical.
        let (mut cpu1, mut wall2) = (Vec::new(), Vec::new());
        let mut trees = None;
        for _ in 0..reps {
            let (t, c) = pool1.install(|| {
                let c0 = thread_cpu_s();
                let t = build_tree(&ma, [0; 32], &p).expect("build");
                (t, thread_cpu_s() - c0)
            });
            cpu1.push(c);
            let w0 = Instant::now();
            let t2 = pool2.install(|| build_tree(&ma, [0; 32], &p).expect("build"));
            wall2.push(w0.elapsed().as_secs_f64());
            assert_eq!(
                encode_tree(&t, &p),
                encode_tree(&t2, &p),
                "{name}: 1- and 2-thread trees differ"
            );
            trees.get_or_insert(t);
        }
        let new_a = trees.expect("reps ≥ 1");
        let new_b = pool2.install(|| build_tree(&mb, [0; 32], &p).expect("build"));
        let (ca, ra) = bounding_radius(&ma);
        let (cb, rb) = bounding_radius(&mb);
        let eps = (0.01 * ra.max(rb)) as f32;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let mut scratch = Scratch::new();
        let (mut checks_old, mut checks_new, mut contacts) = (0u64, 0u64, 0usize);
        let mut unit = || -> Vec3 {
            loop {
                let v = Vec3::new(
                    rng.gen_range(-1.0..1.0),
                    rng.gen_range(-1.0..1.0),
                    rng.gen_range(-1.0..1.0),
                );
                if v.norm() > 0.1 && v.norm() <= 1.0 {
                    return v.normalize();
                }
            }
        };
        for _ in 0..n_poses {
            let dir_v = unit();
            let axis = unit() * 3.0;
            let rot = Iso3::new(Vec3::zeros(), axis);
            // B's centre at A's centre + d·dir: iso maps B's frame into A's frame.
            let pose = |d: f64| {
                let t = ca + dir_v * d - rot.rotation * cb;
                Iso3::from_parts(t.into(), rot.rotation)
            };
            let touching =
                |d: f64, s: &mut Scratch| !query(&new_a, &new_b, eps, &pose(d), s).0.is_empty();
            let (mut lo, mut hi) = (0.0f64, ra + rb + 3.0 * f64::from(eps));
            for _ in 0..24 {
                let mid = 0.5 * (lo + hi);
                if touching(mid, &mut scratch) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            for g in [1.5f64, 0.0, -2.0, -10.0] {
                let iso = pose(hi + g * f64::from(eps));
                let (ko, no) = query(&old_a, &old_b, eps, &iso, &mut scratch);
                let (kn, nn) = query(&new_a, &new_b, eps, &iso, &mut scratch);
                assert_eq!(ko, kn, "{name}: contact sets differ at gap {g}ε");
                checks_old += no;
                checks_new += nn;
                contacts += kn.len();
            }
        }
        println!(
            "{name}: {} triangles; build 1 thread {:.3} s CPU, 2 threads {:.3} s wall (median of {reps}); \
             {n_poses} poses × 4 gaps, {contacts} contacts (equal sets); checks reference {checks_old}, new {checks_new}",
            ma.triangles.len(),
            median(cpu1),
            median(wall2),
        );
        println!(
            "{name}: checks_ratio = {:.3}",
            checks_new as f64 / checks_old.max(1) as f64
        );
    }
}
