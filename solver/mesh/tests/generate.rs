//! Generators: counts, exact geometry, validity for their role, determinism, bad parameters.
#![allow(clippy::needless_range_loop)] // index loops over x, y, z read best here

mod common;

use common::*;
use msdem_mesh::check::{check_mesh, Role};
use msdem_mesh::generate::*;
use msdem_mesh::mass::mass_properties;
use msdem_mesh::TriMesh;

fn radius(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

fn assert_valid(m: &TriMesh, role: Role) {
    let r = check_mesh(m, role);
    assert!(r.is_valid(), "{r}");
    assert!(r.inconsistent_edges.is_empty(), "{r}");
}

#[test]
fn icosphere_counts_radius_and_validity() {
    for k in 0..=4u32 {
        let m = icosphere(0.3, k).unwrap();
        assert_eq!(m.triangles.len(), 20 * 4usize.pow(k));
        assert_eq!(m.vertices.len(), 10 * 4usize.pow(k) + 2);
        assert!(m.vertices.iter().all(|&v| (radius(v) - 0.3).abs() < 1e-15));
        assert_valid(&m, Role::Particle);
    }
}

fn sphere(radius: f64, eta: f64, seed: u32) -> NoiseSphere {
    NoiseSphere {
        radius,
        subdivisions: 3,
        eta,
        seed,
        octaves: 4,
        stretch: 1.0,
    }
}

#[test]
fn noise_sphere_radii_span_r_to_eta_r_and_scale_with_r() {
    let a = noise_sphere(&sphere(1.0, 1.5, 3)).unwrap();
    assert_eq!(a.triangles.len(), 1280);
    let radii: Vec<f64> = a.vertices.iter().map(|&v| radius(v)).collect();
    let lo = radii.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = radii.iter().cloned().fold(0.0, f64::max);
    assert!(
        (lo - 1.0).abs() < 1e-12 && (hi - 1.5).abs() < 1e-12,
        "{lo} {hi}"
    );
    assert_valid(&a, Role::Particle);
    // Noise is evaluated on the unit sphere: scaling r scales the shape.
    let b = noise_sphere(&sphere(0.01, 1.5, 3)).unwrap();
    for (p, q) in a.vertices.iter().zip(&b.vertices) {
        for k in 0..3 {
            assert!((p[k] * 0.01 - q[k]).abs() < 1e-15);
        }
    }
    // Same seed → same mesh; another seed → another mesh; η = 1 → exact sphere.
    assert_eq!(a, noise_sphere(&sphere(1.0, 1.5, 3)).unwrap());
    assert_ne!(a, noise_sphere(&sphere(1.0, 1.5, 4)).unwrap());
    assert_eq!(
        noise_sphere(&sphere(2.0, 1.0, 9)).unwrap(),
        icosphere(2.0, 3).unwrap()
    );
}

#[test]
fn large_eta_stays_a_valid_particle() {
    for seed in 0..5 {
        let m = noise_sphere(&sphere(0.02, 3.0, seed)).unwrap();
        assert_valid(&m, Role::Particle);
    }
}

#[test]
fn stretch_scales_x_only() {
    let base = noise_sphere(&sphere(1.0, 1.2, 1)).unwrap();
    let s = noise_sphere(&NoiseSphere {
        stretch: 2.5,
        ..sphere(1.0, 1.2, 1)
    })
    .unwrap();
    for (p, q) in base.vertices.iter().zip(&s.vertices) {
        assert_eq!([p[0] * 2.5, p[1], p[2]], *q);
    }
    let vb = mass_properties(&base, 1.0).unwrap().volume;
    let vs = mass_properties(&s, 1.0).unwrap().volume;
    assert!(rel(vs, 2.5 * vb) < 1e-12);
}

#[test]
fn cuboid_counts_volume_and_validity() {
    for n in 1..=3u32 {
        let m = cuboid([1.0, 2.0, 0.5], n).unwrap();
        assert_eq!(m.triangles.len(), 12 * (n * n) as usize);
        assert_eq!(m.vertices.len(), (6 * n * n + 2) as usize);
        assert_valid(&m, Role::Particle);
        assert!(rel(check_mesh(&m, Role::Particle).signed_volume.unwrap(), 1.0) < 1e-14);
        assert!(rel(area(&m), 2.0 * (2.0 + 0.5 + 1.0)) < 1e-14);
    }
}

#[test]
fn ellipsoid_vertices_lie_on_the_ellipsoid() {
    let (a, b, c) = (0.5, 0.2, 0.1);
    let m = ellipsoid([a, b, c], 3).unwrap();
    assert_valid(&m, Role::Particle);
    for v in &m.vertices {
        let q = (v[0] / a).powi(2) + (v[1] / b).powi(2) + (v[2] / c).powi(2);
        assert!((q - 1.0).abs() < 1e-12);
    }
    let vol = mass_properties(&m, 1.0).unwrap().volume;
    let exact = 4.0 / 3.0 * std::f64::consts::PI * a * b * c;
    assert!(rel(vol, exact) < 0.01);
}

#[test]
fn plane_and_slope_geometry() {
    let c = [1.0, -2.0, 0.5];
    let p = plane([4.0, 2.0], 3, c).unwrap();
    assert_eq!(p.triangles.len(), 18);
    assert_valid(&p, Role::Obstacle);
    assert!(rel(area(&p), 8.0) < 1e-14);
    assert!(p.vertices.iter().all(|v| v[2] == 0.5));
    for t in 0..p.triangles.len() {
        let n = normal(&p, t);
        assert!(n[2] > 0.0 && n[0] == 0.0 && n[1] == 0.0);
    }
    assert_eq!(check_mesh(&p, Role::Obstacle).boundary_edges.len(), 12);

    let s = slope([4.0, 2.0], 30.0, c).unwrap();
    assert_valid(&s, Role::Obstacle);
    assert!(rel(area(&s), 8.0) < 1e-14);
    let n = normal(&s, 0);
    let len = radius(n);
    // Normal tilted towards +y by 30°: (0, sin 30°, cos 30°).
    assert!((n[1] / len - 0.5).abs() < 1e-12 && (n[2] / len - 0.75f64.sqrt()).abs() < 1e-12);
    // Descends towards +y, centred at c.
    for v in &s.vertices {
        let dy = v[1] - c[1];
        assert!((v[2] - c[2] + dy * 30f64.to_radians().tan()).abs() < 1e-12);
    }
}

#[test]
fn hoppers_square_and_round() {
    let base = Hopper {
        top_width: 1.0,
        outlet_width: 0.2,
        height: 0.8,
        outlet: Outlet::Square,
        segments: 32,
        center: [0.0, 0.0, 1.0],
    };
    let sq = hopper(&base).unwrap();
    assert_eq!(sq.triangles.len(), 8);
    assert_valid(&sq, Role::Obstacle);
    assert_eq!(check_mesh(&sq, Role::Obstacle).boundary_edges.len(), 8);
    // Trapezoid area: 4 walls × (a + b)/2 × slant height.
    let slant = (0.8f64.powi(2) + 0.4f64.powi(2)).sqrt();
    assert!(rel(area(&sq), 4.0 * 0.6 * slant) < 1e-12);
    let round = hopper(&Hopper {
        outlet: Outlet::Round,
        ..base
    })
    .unwrap();
    assert_eq!(round.triangles.len(), 64);
    assert_valid(&round, Role::Obstacle);
    for m in [&sq, &round] {
        for t in 0..m.triangles.len() {
            // Normals face the axis (inside of the funnel) and upwards.
            let n = normal(m, t);
            let [a, b, c] = m.triangles[t].map(|i| m.vertices[i as usize]);
            let centroid = [(a[0] + b[0] + c[0]) / 3.0, (a[1] + b[1] + c[1]) / 3.0];
            assert!(n[0] * centroid[0] + n[1] * centroid[1] < 0.0 && n[2] > 0.0);
        }
        let zs: Vec<f64> = m.vertices.iter().map(|v| v[2]).collect();
        assert!(zs.iter().all(|&z| z == 1.0 || z == 1.8));
    }
}

#[test]
fn staircase_treads_and_risers() {
    let st = Staircase {
        steps: 20,
        rise: 0.1,
        run: 0.3,
        width: 2.0,
        origin: [1.0, 0.0, 5.0],
    };
    let m = staircase(&st).unwrap();
    assert_eq!(m.triangles.len(), 2 * 20 + 2 * 19);
    assert_valid(&m, Role::Obstacle);
    assert!(rel(area(&m), 20.0 * 0.3 * 2.0 + 19.0 * 0.1 * 2.0) < 1e-12);
    let (mut treads, mut risers) = (0, 0);
    for t in 0..m.triangles.len() {
        let n = normal(&m, t);
        let [a, b, c] = m.triangles[t].map(|i| m.vertices[i as usize]);
        if n[2] > 0.0 && n[0] == 0.0 {
            treads += 1;
            let i = ((a[0].min(b[0]).min(c[0]) - 1.0) / 0.3).round();
            assert!(
                (a[2] - (5.0 - 0.1 * i)).abs() < 1e-12,
                "tread {i} at {}",
                a[2]
            );
            assert!(a[2] == b[2] && b[2] == c[2]);
        } else {
            assert!(n[0] > 0.0 && n[2] == 0.0, "{n:?}");
            risers += 1;
        }
    }
    assert_eq!((treads, risers), (40, 38));
    let one = staircase(&Staircase { steps: 1, ..st }).unwrap();
    assert_eq!(one.triangles.len(), 2);
}

#[test]
fn nonsensical_parameters_are_refused_naming_the_flag() {
    let err = |r: Result<TriMesh, msdem_mesh::MeshError>| r.unwrap_err().to_string();
    assert!(err(noise_sphere(&sphere(1.0, 0.9, 0))).contains("--eta"));
    assert!(err(noise_sphere(&sphere(0.0, 1.0, 0))).contains("--radius"));
    assert!(err(noise_sphere(&sphere(-1.0, 1.0, 0))).contains("--radius"));
    assert!(err(noise_sphere(&NoiseSphere {
        subdivisions: 0,
        ..sphere(1.0, 1.0, 0)
    }))
    .contains("--subdivisions"));
    assert!(err(noise_sphere(&NoiseSphere {
        octaves: 0,
        ..sphere(1.0, 1.0, 0)
    }))
    .contains("--octaves"));
    assert!(err(noise_sphere(&NoiseSphere {
        stretch: 0.0,
        ..sphere(1.0, 1.0, 0)
    }))
    .contains("--stretch"));
    assert!(err(noise_sphere(&sphere(f64::NAN, 1.0, 0))).contains("--radius"));
    assert!(err(ellipsoid([1.0, 0.0, 1.0], 2)).contains("--radii"));
    assert!(err(cuboid([1.0, -1.0, 1.0], 1)).contains("--size"));
    assert!(err(cuboid([1.0, 1.0, 1.0], 0)).contains("--subdivisions"));
    assert!(err(plane([1.0, 1.0], 1, [0.0, f64::INFINITY, 0.0])).contains("--center"));
    assert!(err(slope([1.0, 1.0], 90.0, [0.0; 3])).contains("--angle"));
    let h = Hopper {
        top_width: 1.0,
        outlet_width: 1.0,
        height: 1.0,
        outlet: Outlet::Square,
        segments: 32,
        center: [0.0; 3],
    };
    assert!(err(hopper(&h)).contains("--outlet-width"));
    assert!(err(hopper(&Hopper {
        outlet: Outlet::Round,
        segments: 2,
        outlet_width: 0.5,
        ..h
    }))
    .contains("--segments"));
    let st = Staircase {
        steps: 0,
        rise: 0.1,
        run: 0.1,
        width: 1.0,
        origin: [0.0; 3],
    };
    assert!(err(staircase(&st)).contains("--steps"));
    assert!(err(staircase(&Staircase {
        steps: 3,
        rise: 0.0,
        ..st
    }))
    .contains("--rise"));
}
