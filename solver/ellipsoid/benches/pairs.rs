//! Pair tests per second: ChM, OpM, and parry3d GJK/EPA on the same ellipsoids
//! tessellated as convex polyhedra, on seeded random pairs (overlapping and separated
//! mixes), interleaved in one process. Before timing, parry's answers are checked against
//! OpM within the tessellation error.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use msdem_ellipsoid::math::{Iso3, Quat, Real, Vec3};
use msdem_ellipsoid::{chm, opm, Ellipsoid};
use parry3d::shape::ConvexPolyhedron;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;

const PAIRS: usize = 1000;

struct Pair {
    a: Ellipsoid,
    pa: Iso3,
    b: Ellipsoid,
    pb: Iso3,
}

fn pairs(seed: u64, half: Real) -> Vec<Pair> {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
    let ell = |r: &mut Xoshiro256PlusPlus| {
        Ellipsoid::new([
            r.gen_range(0.2..1.0),
            r.gen_range(0.2..1.0),
            r.gen_range(0.2..1.0),
        ])
        .unwrap()
    };
    let pose = |r: &mut Xoshiro256PlusPlus| {
        Iso3::from_parts(
            Vec3::new(
                r.gen_range(-half..half),
                r.gen_range(-half..half),
                r.gen_range(-half..half),
            )
            .into(),
            Quat::from_euler_angles(
                r.gen_range(-3.1..3.1),
                r.gen_range(-1.5..1.5),
                r.gen_range(-3.1..3.1),
            ),
        )
    };
    (0..PAIRS)
        .map(|_| Pair {
            a: ell(&mut r),
            pa: pose(&mut r),
            b: ell(&mut r),
            pb: pose(&mut r),
        })
        .collect()
}

/// Tessellation of an ellipsoid (UV grid, `n` longitudes) as a parry convex polyhedron.
fn polyhedron(e: &Ellipsoid, n: usize) -> ConvexPolyhedron {
    let mut pts = Vec::new();
    let pi = std::f64::consts::PI;
    for j in 0..=n / 2 {
        let phi = -pi / 2.0 + pi * j as Real / (n / 2) as Real;
        let count = if j == 0 || j == n / 2 { 1 } else { n };
        for i in 0..count {
            let p = e.surface_point(2.0 * pi * i as Real / n as Real, phi);
            pts.push(parry3d::math::Vector::new(
                p.x as f32, p.y as f32, p.z as f32,
            ));
        }
    }
    ConvexPolyhedron::from_convex_hull(&pts).expect("hull")
}

fn to_parry(iso: &Iso3) -> parry3d::math::Pose {
    let t = iso.translation.vector;
    let q = iso.rotation.quaternion();
    parry3d::math::Pose::from_parts(
        parry3d::math::Vector::new(t.x as f32, t.y as f32, t.z as f32),
        parry3d::math::Rotation::from_xyzw(q.i as f32, q.j as f32, q.k as f32, q.w as f32),
    )
}

fn bench(c: &mut Criterion) {
    for (name, half) in [("overlapping", 0.6), ("mixed", 1.2), ("separated", 3.0)] {
        let set = pairs(42, half);
        let n_tess = 24;
        let polys: Vec<_> = set
            .iter()
            .map(|p| {
                (
                    polyhedron(&p.a, n_tess),
                    polyhedron(&p.b, n_tess),
                    to_parry(&p.pa),
                    to_parry(&p.pb),
                )
            })
            .collect();
        // Check parry against OpM within the tessellation error (inscribed polyhedra:
        // distances grow by at most r (1 − cos(π/n)) per body, up to f32 rounding).
        let mut worst: Real = 0.0;
        let mut contacts = 0;
        for (p, (qa, qb, ia, ib)) in set.iter().zip(&polys) {
            let o = opm(&p.a, &p.pa, &p.b, &p.pb);
            let d = parry3d::query::contact(ia, qa, ib, qb, 10.0)
                .unwrap()
                .map(|k| k.dist as Real)
                .unwrap_or(10.0);
            let tol = (p.a.max_radius() + p.b.max_radius())
                * (1.0 - (std::f64::consts::PI / n_tess as Real).cos())
                * 2.0
                + 1e-4;
            if o.signed_distance < 10.0 {
                let err = (d - o.signed_distance).abs();
                assert!(
                    err <= tol.max(0.05 * o.signed_distance.abs()),
                    "{name}: parry {d} opm {}",
                    o.signed_distance
                );
                worst = worst.max(err);
            }
            if o.in_contact() {
                contacts += 1;
            }
        }
        println!("{name}: {contacts}/{PAIRS} in contact, worst |parry − OpM| = {worst:.2e} m");
        let mut g = c.benchmark_group(format!("pairs_{name}"));
        g.throughput(Throughput::Elements(PAIRS as u64));
        g.bench_function("chm", |bch| {
            bch.iter(|| {
                set.iter()
                    .filter(|p| black_box(chm(&p.a, &p.pa, &p.b, &p.pb)).in_contact())
                    .count()
            })
        });
        g.bench_function("opm", |bch| {
            bch.iter(|| {
                set.iter()
                    .map(|p| black_box(opm(&p.a, &p.pa, &p.b, &p.pb)).signed_distance)
                    .sum::<Real>()
            })
        });
        g.bench_function("parry_gjk_epa", |bch| {
            bch.iter(|| {
                polys
                    .iter()
                    .map(|(qa, qb, ia, ib)| {
                        black_box(
                            parry3d::query::contact(ia, qa, ib, qb, 10.0)
                                .unwrap()
                                .map(|k| k.dist)
                                .unwrap_or(10.0),
                        )
                    })
                    .sum::<f32>()
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
