//! Side by side with parry3d 0.31: time to find every triangle pair within `2ε` between two
//! noisy 1,280-triangle spheres (radius 0.5, η_r = 1.2, ε = 0.01), for three poses: gap
//! 0.01, overlap 0.02 and gap 0.3. B is moved along a fixed skew axis; a gap is the true
//! mesh distance (exact kernel over the facing triangles, offset corrected until it matches
//! to 1e-6), the overlap is the interpenetration of the two vertex sets along the axis.
//!
//! * `msdem`: `find_contacts` (hierarchy traversal, batched hybrid kernel behind the
//!   conservative separation pre-screen of `msdem_geom::kernel`) on prebuilt
//!   surrogate trees;
//! * `parry`: `DefaultQueryDispatcher::contact_manifolds` between two `TriMesh` shapes with
//!   prediction distance `2ε` (BVH traversal + triangle–triangle manifolds), with a fresh
//!   workspace per call (no temporal coherence, like a first contact).
//!
//! The setup prints the triangle pairs each finds, so that the two answers can be compared.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use msdem_geom::kernel::KernelKind;
use msdem_geom::math::{Iso3, Point3, Vec3};
use msdem_mesh::generate::{noise_sphere, NoiseSphere};
use msdem_mesh::TriMesh;
use msdem_tree::{build_tree, find_contacts, BuildParams, LevelStats, Mode, Scratch};
use parry3d::query::{
    ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher,
};

const EPS: f32 = 0.01;

fn sphere(seed: u32) -> TriMesh {
    noise_sphere(&NoiseSphere {
        radius: 0.5,
        subdivisions: 3,
        eta: 1.2,
        seed,
        ..Default::default()
    })
    .unwrap()
}

fn parry_mesh(m: &TriMesh) -> parry3d::shape::TriMesh {
    let v = m
        .vertices
        .iter()
        .map(|p| parry3d::math::Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32))
        .collect();
    parry3d::shape::TriMesh::new(v, m.triangles.clone()).unwrap()
}

/// Centre offset along `axis` that gives the requested axis separation.
fn offset_for_gap(a: &TriMesh, b: &TriMesh, rot: &Iso3, axis: &Vec3, gap: f64) -> f64 {
    let max_a = a
        .vertices
        .iter()
        .map(|v| axis.dot(&Vec3::new(v[0], v[1], v[2])))
        .fold(f64::MIN, f64::max);
    let min_b = b
        .vertices
        .iter()
        .map(|v| axis.dot(&(rot * Point3::new(v[0], v[1], v[2])).coords))
        .fold(f64::MAX, f64::min);
    gap + max_a - min_b
}

/// Exact distance between the meshes at offset `c` along `axis` (facing triangles only).
fn mesh_distance(a: &TriMesh, b: &TriMesh, axis: &Vec3, angles: &Vec3, c: f64) -> f64 {
    let iso = Iso3::new(axis * c, *angles);
    let sa = a.soup();
    let sb: Vec<_> = b.soup().iter().map(|t| t.transformed(&iso)).collect();
    let proj = |t: &msdem_geom::math::Tri| {
        t.v.iter()
            .map(|v| axis.dot(&Vec3::new(v[0] as f64, v[1] as f64, v[2] as f64)))
            .collect::<Vec<_>>()
    };
    let max_a = sa.iter().flat_map(proj).fold(f64::MIN, f64::max);
    let min_b = sb.iter().flat_map(proj).fold(f64::MAX, f64::min);
    let fa: Vec<_> = sa
        .iter()
        .filter(|t| proj(t).iter().any(|&x| x > max_a - 0.25))
        .collect();
    let fb: Vec<_> = sb
        .iter()
        .filter(|t| proj(t).iter().any(|&x| x < min_b + 0.25))
        .collect();
    let mut best = f64::INFINITY;
    for x in &fa {
        for y in &fb {
            best = best.min(msdem_geom::kernel::triangle_triangle_exact(x, y).dist() as f64);
        }
    }
    best
}

fn bench(c: &mut Criterion) {
    let (ma, mb) = (sphere(1), sphere(2));
    let p = BuildParams::default();
    let (ta, tb) = (
        build_tree(&ma, [0; 32], &p).unwrap(),
        build_tree(&mb, [0; 32], &p).unwrap(),
    );
    let (pa, pb) = (parry_mesh(&ma), parry_mesh(&mb));
    let axis = Vec3::new(1.0, 0.3, 0.2).normalize();
    let angles = Vec3::new(0.4, -0.3, 0.2);
    let rot = Iso3::new(Vec3::zeros(), angles);
    let dispatcher = DefaultQueryDispatcher;
    let mut g = c.benchmark_group("vs_parry");
    g.sample_size(10);
    for (name, gap) in [
        ("gap_0.01", 0.01),
        ("overlap_0.02", -0.02),
        ("gap_0.3", 0.3),
    ] {
        let mut off = offset_for_gap(&ma, &mb, &rot, &axis, gap);
        if gap > 0.0 {
            for _ in 0..20 {
                let err = mesh_distance(&ma, &mb, &axis, &angles, off) - gap;
                if err.abs() < 1e-6 {
                    break;
                }
                off -= err;
            }
        }
        let t = axis * off;
        let iso = Iso3::new(t, angles);
        let pose = parry3d::math::Pose::new(
            parry3d::math::Vec3::new(t.x as f32, t.y as f32, t.z as f32),
            parry3d::math::Vec3::new(angles.x as f32, angles.y as f32, angles.z as f32),
        );

        let mut scratch = Scratch::new();
        let mut out = Vec::new();
        let mut st = LevelStats::default();
        let mut run_msdem = |out: &mut Vec<_>, st: &mut LevelStats| {
            out.clear();
            find_contacts(
                &ta,
                EPS,
                &tb,
                EPS,
                &iso,
                Mode::Hierarchy,
                KernelKind::Hybrid,
                &mut scratch,
                out,
                st,
            );
        };
        run_msdem(&mut out, &mut st);
        let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
        let run_parry = |manifolds: &mut Vec<ContactManifold<(), ()>>| {
            manifolds.clear();
            let mut ws: Option<ContactManifoldsWorkspace> = None;
            dispatcher
                .contact_manifolds(&pose, &pa, &pb, 2.0 * EPS, manifolds, &mut ws)
                .unwrap();
        };
        run_parry(&mut manifolds);
        let mut parry_pairs: Vec<(u32, u32)> = manifolds
            .iter()
            .filter(|m| !m.points.is_empty())
            .map(|m| (m.subshape1, m.subshape2))
            .collect();
        parry_pairs.sort_unstable();
        let mut msdem_pairs: Vec<(u32, u32)> = out
            .iter()
            .map(|c| (ta.source[c.tri_a as usize], tb.source[c.tri_b as usize]))
            .collect();
        msdem_pairs.sort_unstable();
        let parry_points: usize = manifolds.iter().map(|m| m.points.len()).sum();
        let min_msdem = out.iter().map(|c| c.dist).fold(f32::INFINITY, f32::min);
        let min_parry = manifolds
            .iter()
            .flat_map(|m| m.points.iter().map(|p| p.dist))
            .fold(f32::INFINITY, f32::min);
        eprintln!(
            "vs_parry::{name}: msdem {} triangle pairs within 2ε ({} kernel checks, min dist \
             {min_msdem}); parry {} triangle pairs with contacts ({parry_points} points, min \
             dist {min_parry}); same pairs: {}",
            msdem_pairs.len(),
            st.total(),
            parry_pairs.len(),
            msdem_pairs == parry_pairs
        );

        g.bench_function(BenchmarkId::new("msdem_hierarchy_hybrid", name), |b| {
            b.iter(|| {
                run_msdem(&mut out, &mut st);
                out.len()
            })
        });
        g.bench_function(BenchmarkId::new("parry_contact_manifolds", name), |b| {
            b.iter(|| {
                run_parry(&mut manifolds);
                manifolds.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
