//! OpM against parry3d-f64 GJK/EPA "for the same answer within tolerance" (issue 13). The
//! `f64` build, as OpM is `f64`: the `f32` build's GJK stops at a relative gap of
//! √(10 ε_f32) ≈ 1e-3, coarser than the tolerance below.
//!
//! `cargo run --release -p msdem-ellipsoid --example opm_vs_parry -- [--reps 9] [--max-vertices 32768]`
//!
//! Set: three mixes (centres in cubes of half-width 0.6, 1.2, 3 m: mostly overlapping,
//! mixed, separated) of 1,000 seeded pairs drawn from a palette of 32 ellipsoids with
//! semi-axes in \[0.2, 1\] m, random orientations. Reference: OpM (seed Table 1 to 1e-16,
//! dense-sampling property test). parry is used as its users would: every palette shape is
//! tessellated once (Fibonacci-lattice points of the unit sphere scaled by the semi-axes,
//! convex hull) into a prebuilt `ConvexPolyhedron`, poses converted once, and
//! `parry3d_f64::query::contact` called per pair with a prediction covering every gap.
//!
//! Tolerance: `|Δ distance| ≤ 1e-3 × the smallest semi-axis of the pair` and the angle
//! between normals ≤ `--normal-tol` rad (default 1e-3). For each mix the tessellation is
//! refined (64, 128, … vertices per shape up to `--max-vertices`) until every pair is
//! within the distance tolerance; the normal error reached is reported beside it. The
//! timings then compare OpM with parry at that (coarsest passing) tessellation: thread CPU
//! time of one thread, medians of `--reps` passes over the 1,000 pairs, methods
//! interleaved in each repetition, each pass's sum checked against the first.

use anyhow::{ensure, Context};
use msdem_ellipsoid::math::{Iso3, Real, Vec3};
use msdem_ellipsoid::workload::random_rotation;
use msdem_ellipsoid::{chm, opm, Contact, Ellipsoid};
use parry3d_f64::shape::ConvexPolyhedron;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;

const PAIRS: usize = 1000;
const PALETTE: usize = 32;
const DISTANCE_TOL: Real = 1e-3;

fn thread_cpu_s() -> anyhow::Result<f64> {
    Ok(msdem_benchkit::thread_cpu_s()?)
}

struct Pair {
    a: usize,
    b: usize,
    pa: Iso3,
    pb: Iso3,
}

fn palette(rng: &mut Xoshiro256PlusPlus) -> anyhow::Result<Vec<Ellipsoid>> {
    (0..PALETTE)
        .map(|_| {
            let radii = [0; 3].map(|_| rng.gen_range(0.2..1.0));
            Ok(Ellipsoid::new(radii)?)
        })
        .collect()
}

fn pairs(rng: &mut Xoshiro256PlusPlus, half: Real) -> Vec<Pair> {
    let pose = |rng: &mut Xoshiro256PlusPlus| {
        let c = Vec3::new(
            rng.gen_range(-half..half),
            rng.gen_range(-half..half),
            rng.gen_range(-half..half),
        );
        Iso3::from_parts(c.into(), random_rotation(rng))
    };
    (0..PAIRS)
        .map(|_| Pair {
            a: rng.gen_range(0..PALETTE),
            b: rng.gen_range(0..PALETTE),
            pa: pose(rng),
            pb: pose(rng),
        })
        .collect()
}

/// `n` Fibonacci-lattice points of the unit sphere scaled by the semi-axes, hulled.
fn polyhedron(e: &Ellipsoid, n: usize) -> anyhow::Result<ConvexPolyhedron> {
    let [a, b, c] = e.radii();
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let pts: Vec<_> = (0..n)
        .map(|i| {
            let z = 1.0 - (2 * i + 1) as Real / n as Real;
            let r = (1.0 - z * z).sqrt();
            let t = golden * i as Real;
            parry3d_f64::math::Vector::new(a * r * t.cos(), b * r * t.sin(), c * z)
        })
        .collect();
    ConvexPolyhedron::from_convex_hull(&pts).context("convex hull")
}

fn to_parry(iso: &Iso3) -> parry3d_f64::math::Pose {
    let t = iso.translation.vector;
    let q = iso.rotation.quaternion();
    parry3d_f64::math::Pose::from_parts(
        parry3d_f64::math::Vector::new(t.x, t.y, t.z),
        parry3d_f64::math::Rotation::from_xyzw(q.i, q.j, q.k, q.w),
    )
}

const PREDICTION: Real = 100.0;

fn parry_contact(
    polys: &[ConvexPolyhedron],
    poses: &[(parry3d_f64::math::Pose, parry3d_f64::math::Pose)],
    set: &[Pair],
    k: usize,
) -> Option<parry3d_f64::query::Contact> {
    let (ia, ib) = &poses[k];
    parry3d_f64::query::contact(ia, &polys[set[k].a], ib, &polys[set[k].b], PREDICTION)
        .ok()
        .flatten()
}

/// Worst distance error relative to the pair's smallest semi-axis, worst normal angle
/// \[rad\], against OpM.
fn errors(
    shapes: &[Ellipsoid],
    set: &[Pair],
    reference: &[Contact],
    polys: &[ConvexPolyhedron],
    poses: &[(parry3d_f64::math::Pose, parry3d_f64::math::Pose)],
) -> anyhow::Result<(Real, Real)> {
    let (mut dist, mut angle): (Real, Real) = (0.0, 0.0);
    for (k, (p, o)) in set.iter().zip(reference).enumerate() {
        let c = parry_contact(polys, poses, set, k).context("parry found no contact")?;
        let scale = shapes[p.a].min_radius().min(shapes[p.b].min_radius());
        let e = (c.dist - o.signed_distance).abs() / scale;
        if std::env::var("DIAG").is_ok() && e > 1e-3 {
            eprintln!(
                "pair {k}: parry {} opm {} radii {:?} {:?} scale {scale}",
                c.dist,
                o.signed_distance,
                shapes[p.a].radii(),
                shapes[p.b].radii()
            );
        }
        dist = dist.max(e);
        // parry's normal1 points from A to B; OpM's normal from B to A.
        let n = -Vec3::new(c.normal1.x, c.normal1.y, c.normal1.z);
        angle = angle.max(n.normalize().dot(&o.normal).clamp(-1.0, 1.0).acos());
    }
    Ok((dist, angle))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let (mut reps, mut max_vertices, mut normal_tol) = (9usize, 32_768usize, 1e-3);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().context("missing value");
        match a.as_str() {
            "--reps" => reps = value()?.parse()?,
            "--max-vertices" => max_vertices = value()?.parse()?,
            "--normal-tol" => normal_tol = value()?.parse()?,
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(13);
    let shapes = palette(&mut rng)?;
    println!(
        "tolerance: |Δd| ≤ {DISTANCE_TOL:e} × smallest semi-axis; normal ≤ {normal_tol:e} rad; thread CPU, medians of {reps}"
    );
    println!(
        "{:<12} {:>8} | {:>8} {:>9} {:>9} | {:>10} {:>10} {:>10} | {:>8} | {:>6}",
        "mix",
        "contacts",
        "vertices",
        "Δd/r",
        "angle",
        "ChM /s",
        "OpM /s",
        "parry /s",
        "OpM/parry",
        "normal"
    );
    for (name, half) in [("overlapping", 0.6), ("mixed", 1.2), ("separated", 3.0)] {
        let set = pairs(&mut rng, half);
        let reference: Vec<Contact> = set
            .iter()
            .map(|p| opm(&shapes[p.a], &p.pa, &shapes[p.b], &p.pb))
            .collect();
        ensure!(
            reference.iter().all(Contact::converged),
            "{name}: OpM did not converge on every pair"
        );
        let contacts = reference.iter().filter(|c| c.in_contact()).count();
        let poses: Vec<_> = set
            .iter()
            .map(|p| (to_parry(&p.pa), to_parry(&p.pb)))
            .collect();
        // The coarsest tessellation within the distance tolerance.
        let mut vertices = 64;
        let (polys, (dist, angle)) = loop {
            let polys: Vec<_> = shapes
                .iter()
                .map(|e| polyhedron(e, vertices))
                .collect::<anyhow::Result<_>>()?;
            let err = errors(&shapes, &set, &reference, &polys, &poses)?;
            if err.0 <= DISTANCE_TOL || vertices >= max_vertices {
                break (polys, err);
            }
            vertices *= 2;
        };
        let mut times = [Vec::new(), Vec::new(), Vec::new()];
        let mut sums = [None; 3];
        for _ in 0..reps.max(1) {
            let t = thread_cpu_s()?;
            let s0 = set
                .iter()
                .filter(|p| black_box(chm(&shapes[p.a], &p.pa, &shapes[p.b], &p.pb)).in_contact())
                .count() as f64;
            let t1 = thread_cpu_s()?;
            let s1: f64 = set
                .iter()
                .map(|p| black_box(opm(&shapes[p.a], &p.pa, &shapes[p.b], &p.pb)).signed_distance)
                .sum();
            let t2 = thread_cpu_s()?;
            let s2: f64 = (0..set.len())
                .map(|k| black_box(parry_contact(&polys, &poses, &set, k)).map_or(0.0, |c| c.dist))
                .sum();
            let t3 = thread_cpu_s()?;
            for (i, (s, dt)) in [(s0, t1 - t), (s1, t2 - t1), (s2, t3 - t2)]
                .into_iter()
                .enumerate()
            {
                ensure!(
                    *sums[i].get_or_insert(s) == s,
                    "{name}: results changed between passes"
                );
                times[i].push(dt);
            }
        }
        let rate = |v: &Vec<f64>| PAIRS as f64 / median(v.clone());
        let (chm_rate, opm_rate, parry_rate) = (rate(&times[0]), rate(&times[1]), rate(&times[2]));
        println!(
            "{:<12} {:>8} | {:>8} {:>9.2e} {:>9.2e} | {:>10.0} {:>10.0} {:>10.0} | {:>8.1}× | {:>6}",
            name,
            contacts,
            vertices,
            dist,
            angle,
            chm_rate,
            opm_rate,
            parry_rate,
            opm_rate / parry_rate,
            if angle <= normal_tol { "met" } else { "missed" }
        );
    }
    Ok(())
}
