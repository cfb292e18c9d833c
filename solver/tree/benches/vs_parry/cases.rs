//! The shapes and the pose family of the comparison.
//!
//! Shapes, all of unit size (bounding-box diagonal 1 m for the scanned mesh, diameter ≈ 1 m
//! for the spheres), ε = 0.01 m: two noisy 1,280-triangle spheres (η = 1.2), two
//! 1,280-triangle icospheres, and two copies of a scanned mesh read from a file (the
//! Stanford bunny, 69,451 triangles). Surrogate trees are built once with the default
//! parameters and cached under `target/vs_parry/`, keyed by the SHA-256 of the scaled
//! mesh, so that reruns skip the ~30 s build of the scanned mesh.
//!
//! Poses: B approaches A along an axis with a fixed rotation; for each axis the offset is
//! chosen so that the mesh distance is 0.3 m (far apart; to 10⁻⁶ m), or exactly (the
//! oracle's, to 10⁻⁹ m) 3ε, 2ε, ε, or so that B is pushed 2ε or 0.1 m (deep) along the
//! axis past the first touch.

use super::oracle::{near_pairs, T64};
use msdem_geom::math::{Iso3, Vec3};
use msdem_mesh::generate::{icosphere, noise_sphere, NoiseSphere};
use msdem_mesh::TriMesh;
use msdem_tree::{
    build_tree, read_tree, write_tree, BuildParams, CellGrid, NodeBoxes, SurrogateTree,
};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Halo width ε of both bodies \[m\].
pub const EPS: f64 = 0.01;

/// Cell edge of the bodies' grids, in mean triangle edges (`find_pairs_grid`); the
/// environment variable `VS_PARRY_GRID_CELL_EDGES` overrides it (to measure other sizes).
pub const GRID_CELL_EDGES: f32 = 1.0;

/// One shape with everything each library precomputes.
pub struct Body {
    /// Our surrogate tree.
    pub tree: SurrogateTree,
    /// Its node boxes, axis-aligned and oriented (computed once, like parry's BVH).
    pub boxes: NodeBoxes,
    /// Its cell grid (`find_pairs_grid`; computed once, like parry's BVH).
    pub grid: CellGrid,
    /// parry's shape (BVH built).
    pub parry: parry3d::shape::TriMesh,
    /// Triangles in `f64` (the `f32` coordinates both libraries store, widened).
    pub tris: Vec<T64>,
}

/// A named pair of shapes.
pub struct Case {
    /// Name in the report.
    pub name: String,
    /// Body A (frame of every query).
    pub a: Body,
    /// Body B, posed in A's frame.
    pub b: Body,
}

/// One pose of B in A's frame.
pub struct Pose {
    /// Label in the report (`ax1 gap 3ε`, …).
    pub label: String,
    /// B's frame → A's frame.
    pub iso: Iso3,
}

fn cache_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../target"))
        .join("vs_parry")
}

fn mesh_key(m: &TriMesh) -> [u8; 32] {
    let mut h = Sha256::new();
    for v in &m.vertices {
        v.iter().for_each(|x| h.update(x.to_le_bytes()));
    }
    for t in &m.triangles {
        t.iter().for_each(|x| h.update(x.to_le_bytes()));
    }
    h.finalize().into()
}

/// The tree of `m`, loaded from the cache when one built from the same mesh with the same
/// parameters is there, else built and written (atomically).
fn cached_tree(m: &TriMesh, log: &mut dyn FnMut(String)) -> Result<SurrogateTree, String> {
    let key = mesh_key(m);
    let params = BuildParams::default();
    let hex: String = key[..12].iter().map(|b| format!("{b:02x}")).collect();
    let path = cache_dir().join(format!("{hex}.tree"));
    if let Ok((tree, p)) = read_tree(&path) {
        if tree.mesh_hash == key && p == params {
            return Ok(tree);
        }
    }
    let t0 = std::time::Instant::now();
    let tree = build_tree(m, key, &params).map_err(|e| e.to_string())?;
    log(format!(
        "built the tree of {} triangles in {:.1} s, cached as {}",
        m.triangles.len(),
        t0.elapsed().as_secs_f64(),
        path.display()
    ));
    std::fs::create_dir_all(cache_dir()).map_err(|e| format!("{}: {e}", path.display()))?;
    write_tree(&path, &tree, &params).map_err(|e| e.to_string())?;
    Ok(tree)
}

fn body(mesh: TriMesh, log: &mut dyn FnMut(String)) -> Result<Body, String> {
    let tree = cached_tree(&mesh, log)?;
    let parry = super::parry_side::shape(&mesh)?;
    let tris = mesh
        .soup()
        .iter()
        .map(|t| t.v.map(|p| p.map(|x| x as f64)))
        .collect();
    Ok(Body {
        boxes: NodeBoxes::of(&tree),
        grid: CellGrid::of(
            &tree,
            std::env::var("VS_PARRY_GRID_CELL_EDGES")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(GRID_CELL_EDGES),
        )
        .map_err(|e| e.to_string())?,
        tree,
        parry,
        tris,
    })
}

/// A mesh file scaled to a bounding-box diagonal of 1 m, centred at its box centre.
fn unit_mesh(path: &Path) -> Result<TriMesh, String> {
    let (mut m, _) = msdem_mesh::read_mesh(path).map_err(|e| e.to_string())?;
    if m.vertices.is_empty() {
        return Err(format!("{}: no vertices", path.display()));
    }
    let lo = [0, 1, 2].map(|k| m.vertices.iter().map(|v| v[k]).fold(f64::MAX, f64::min));
    let hi = [0, 1, 2].map(|k| m.vertices.iter().map(|v| v[k]).fold(f64::MIN, f64::max));
    let diag = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt();
    if !(diag > 0.0 && diag.is_finite()) {
        return Err(format!("{}: degenerate bounding box", path.display()));
    }
    for v in &mut m.vertices {
        *v = [0, 1, 2].map(|k| (v[k] - 0.5 * (lo[k] + hi[k])) / diag);
    }
    Ok(m)
}

/// The shape pairs: the spheres always, the scanned mesh when `scanned` names a file.
pub fn cases(scanned: Option<&Path>, log: &mut dyn FnMut(String)) -> Result<Vec<Case>, String> {
    let noisy = |seed| {
        noise_sphere(&NoiseSphere {
            radius: 0.5,
            subdivisions: 3,
            eta: 1.2,
            seed,
            ..Default::default()
        })
        .map_err(|e| e.to_string())
    };
    let ico = || icosphere(0.5, 3).map_err(|e| e.to_string());
    let mut v = vec![
        Case {
            name: "noisy spheres 1,280".into(),
            a: body(noisy(1)?, log)?,
            b: body(noisy(2)?, log)?,
        },
        Case {
            name: "icospheres 1,280".into(),
            a: body(ico()?, log)?,
            b: body(ico()?, log)?,
        },
    ];
    if let Some(p) = scanned {
        let m = unit_mesh(p)?;
        let name = format!(
            "{} {}",
            p.file_stem().and_then(|s| s.to_str()).unwrap_or("scanned"),
            m.triangles.len()
        );
        v.push(Case {
            name,
            a: body(m.clone(), log)?,
            b: body(m, log)?,
        });
    }
    Ok(v)
}

/// Approach axes and B's rotation (scaled axis \[rad\]) for each.
const APPROACHES: [([f64; 3], [f64; 3]); 3] = [
    ([1.0, 0.3, 0.2], [0.4, -0.3, 0.2]),
    ([0.0, 0.0, 1.0], [1.1, 0.5, -0.7]),
    ([-0.5, 1.0, -0.3], [-2.0, 0.8, 1.3]),
];

/// Exact mesh distance \[m\] at pose `iso` if it is at most `window` \[m\].
fn mesh_distance(c: &Case, iso: &Iso3, window: f64) -> Option<f64> {
    let b = transformed(&c.b.tris, iso);
    near_pairs(&c.a.tris, &b, window)
        .iter()
        .map(|x| x.2)
        .reduce(f64::min)
}

/// parry3d's mesh distance \[m\] (BVH branch and bound, `f32`): only to approach a pose.
fn parry_distance(c: &Case, iso: &Iso3) -> f64 {
    let id = parry3d::math::Pose::IDENTITY;
    let pos = super::parry_side::pose(iso);
    parry3d::query::distance(&id, &c.a.parry, &pos, &c.b.parry)
        .map(|d| d.distance as f64)
        .unwrap_or(0.0)
}

/// `tris` moved by `iso`, in `f64`.
pub fn transformed(tris: &[T64], iso: &Iso3) -> Vec<T64> {
    tris.iter()
        .map(|t| {
            t.map(|p| {
                let q = iso * msdem_geom::math::Point3::new(p[0], p[1], p[2]);
                [q.x, q.y, q.z]
            })
        })
        .collect()
}

/// Offset along `axis` at which the mesh distance is `gap` \[m\] (`gap = 0`: touching),
/// starting from the vertex projections (a lower bound of the distance) and stepping
/// `c ← c − (d − gap)`, which does not overshoot because the distance changes by at most
/// the step: first with parry's `f32` distance to 10⁻⁶ m, then (gaps ≤ 0.05 m) with the
/// exact oracle to 10⁻⁹ m.
fn offset_for(c: &Case, axis: &Vec3, rot: &Vec3, gap: f64) -> f64 {
    let r = Iso3::new(Vec3::zeros(), *rot);
    let pa = |v: &[f64; 3]| axis.dot(&Vec3::new(v[0], v[1], v[2]));
    let max_a = c.a.tris.iter().flatten().map(pa).fold(f64::MIN, f64::max);
    let min_b = transformed(&c.b.tris, &r)
        .iter()
        .flatten()
        .map(pa)
        .fold(f64::MAX, f64::min);
    let mut off = gap + max_a - min_b;
    for _ in 0..500 {
        let d = parry_distance(c, &Iso3::new(axis * off, *rot));
        if d - gap < 1e-6 {
            break;
        }
        off -= d - gap;
    }
    if gap <= 0.05 {
        for _ in 0..200 {
            let Some(d) = mesh_distance(c, &Iso3::new(axis * off, *rot), gap + 1e-3) else {
                break;
            };
            if (d - gap).abs() < 1e-9 || (gap == 0.0 && d == 0.0) {
                break;
            }
            off -= d - gap;
        }
    }
    off
}

/// The pose family of one case (`quick`: the first approach only).
pub fn poses(c: &Case, quick: bool) -> Vec<Pose> {
    let mut v = Vec::new();
    let n = if quick { 1 } else { APPROACHES.len() };
    for (k, (ax, rot)) in APPROACHES.iter().take(n).enumerate() {
        let axis = Vec3::from(*ax).normalize();
        let rot = Vec3::from(*rot);
        let at = |off: f64| Iso3::new(axis * off, rot);
        for (name, gap) in [
            ("far 0.3", 0.3),
            ("gap 3ε", 3.0 * EPS),
            ("gap 2ε", 2.0 * EPS),
            ("gap ε", EPS),
        ] {
            v.push(Pose {
                label: format!("ax{} {name}", k + 1),
                iso: at(offset_for(c, &axis, &rot, gap)),
            });
        }
        let touch = offset_for(c, &axis, &rot, 0.0);
        for (name, depth) in [("overlap 2ε", 2.0 * EPS), ("deep 0.1", 0.1)] {
            v.push(Pose {
                label: format!("ax{} {name}", k + 1),
                iso: at(touch - depth),
            });
        }
    }
    v
}
