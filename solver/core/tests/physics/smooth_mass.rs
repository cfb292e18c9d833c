//! Mass properties of smooth bodies (issue 14, `model/smooth_mass.rs`): the solid the
//! Phong surface bounds against the analytic sphere, and against a second method — the
//! polyhedron through a fine grid of curved points of every curved triangle, closed by the
//! caps' side walls, whose volume and moments `msdem_mesh::mass` computes exactly
//! (Richardson-extrapolated over two grid sizes).

use crate::common::world::*;
use msdem_geom::math::{Mat3, Vec3};
use msdem_mesh::generate::{cuboid, icosphere, noise_sphere, NoiseSphere};
use msdem_mesh::mass::mass_properties;
use msdem_mesh::TriMesh;
use msdem_solver::model::smooth::curved_point;
use msdem_solver::model::smooth_mass::MassProps;
use msdem_solver::model::Shape;
use msdem_tree::NO_TRIANGLE;

/// The shape of `mesh` in an empty world (facets' mass properties, curved surface).
fn shape_of(mesh: &TriMesh) -> Shape {
    let mut w = empty_world(1e-5, [0.0; 3]);
    let s = add_shape(&mut w, mesh);
    w.model.shapes.swap_remove(s as usize)
}

/// The smooth icospheres' solid lies between the spheres that bound their Phong surface
/// (`R ∓ 10/0.8/0.08 µm` for 320/1,280/5,120 triangles, measured in `smooth.rs`): its
/// volume and inertia lie between those balls', `4/3·π·r³` and
/// `8/15·π·r⁵` (unit density), its centre of mass at the centre. The facets miss the
/// lower bound (6 % / 1.6 % / 0.4 % of the volume).
#[test]
fn smooth_sphere_mass_is_the_spheres() {
    const R: f64 = 0.1;
    let ball = |r: f64| 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    let moment = |r: f64| 8.0 / 15.0 * std::f64::consts::PI * r.powi(5);
    for (sub, tol) in [(2, 10e-6), (3, 0.8e-6), (4, 0.08e-6)] {
        let shape = shape_of(&icosphere(R, sub).expect("icosphere"));
        let m = shape.curved_mass().expect("curved");
        let (lo, hi) = (R - tol, R + tol);
        eprintln!(
            "icosphere {sub}: volume {:.6e} (facets {:.6e}, sphere {:.6e}), I_xx {:.6e} (facets {:.6e}, sphere {:.6e}), com {:.1e}",
            m.volume, shape.volume, ball(R), m.unit_inertia[(0, 0)], shape.unit_inertia[(0, 0)], moment(R), m.com.norm()
        );
        assert!(
            m.volume > ball(lo) && m.volume < ball(hi),
            "{sub}: {}",
            m.volume
        );
        assert!(
            shape.volume < ball(lo),
            "{sub}: the facets' volume is inside the bound"
        );
        for i in 0..3 {
            let d = m.unit_inertia[(i, i)];
            assert!(
                d > moment(lo) && d < moment(hi),
                "{sub}: {}",
                m.unit_inertia
            );
            for j in 0..3 {
                if j != i {
                    assert!(
                        m.unit_inertia[(i, j)].abs() < 1e-6 * d,
                        "{}",
                        m.unit_inertia
                    );
                }
            }
        }
        assert!(m.com.norm() < 1e-9, "{sub}: {}", m.com);
        assert!(shape.unit_inertia[(0, 0)] < moment(lo));
    }
}

/// The solid of the curved surface of `shape` as a polyhedron (see the module docs):
/// each curved triangle's Phong patch sampled on an `n × n` grid, with the side walls of
/// its cap (straight segments from the facet's edge to the curved edge) — they cancel
/// between neighbours with the same edge curve and close the surface at creases — and
/// each flat triangle as it is; mass properties by `msdem_mesh::mass`. Asserts on the way
/// that every sample's displacement `|p* − p|` is within its triangle's bound `sag_m`
/// (detection's reach).
fn refined(shape: &Shape, n: usize) -> MassProps {
    let geom = shape.geometry.mesh().expect("mesh");
    let mut mesh = TriMesh {
        vertices: Vec::new(),
        triangles: Vec::new(),
    };
    let mut tri = |a: Vec3, b: Vec3, c: Vec3| {
        let k = mesh.vertices.len() as u32;
        mesh.vertices.extend([a, b, c].map(|p| [p.x, p.y, p.z]));
        mesh.triangles.push([k, k + 1, k + 2]);
    };
    for (t, src) in geom.tree.source.iter().enumerate() {
        if *src == NO_TRIANGLE {
            continue;
        }
        let v = geom.tree.soup[t]
            .v
            .map(|p| Vec3::new(p[0] as f64, p[1] as f64, p[2] as f64));
        let Some(normals) = geom.smooth.corners[t] else {
            tri(v[0], v[1], v[2]);
            continue;
        };
        let flat = |i: usize, j: usize| {
            let (s, t) = (i as f64 / n as f64, j as f64 / n as f64);
            v[0] + s * (v[1] - v[0]) + t * (v[2] - v[0])
        };
        let curved = |i: usize, j: usize| {
            let p = flat(i, j);
            let offset = curved_point(&p, &v, &normals).offset;
            // Detection's reach: each triangle's displacement bound holds where sampled.
            assert!(
                offset.norm() <= geom.smooth.sag_m[t] * (1.0 + 1e-12),
                "{t}: {} > {}",
                offset.norm(),
                geom.smooth.sag_m[t]
            );
            p + offset
        };
        for i in 0..n {
            for j in 0..n - i {
                tri(curved(i, j), curved(i + 1, j), curved(i, j + 1));
                if i + j + 1 < n {
                    tri(curved(i + 1, j), curved(i + 1, j + 1), curved(i, j + 1));
                }
            }
        }
        // The three edges in the facet's order (v0 → v1 → v2 → v0) as grid indices.
        let edges: [&dyn Fn(usize) -> (usize, usize); 3] =
            [&|k| (k, 0), &|k| (n - k, k), &|k| (0, n - k)];
        for edge in edges {
            for k in 0..n {
                let (a, b) = (edge(k), edge(k + 1));
                let (xa, xb) = (flat(a.0, a.1), flat(b.0, b.1));
                let (pa, pb) = (curved(a.0, a.1), curved(b.0, b.1));
                tri(xa, xb, pb);
                tri(xa, pb, pa);
            }
        }
    }
    let mp = mass_properties(&mesh, 1.0).expect("closed");
    MassProps {
        volume: mp.volume,
        com: Vec3::from(mp.com),
        unit_inertia: Mat3::from_fn(|i, j| mp.inertia[i][j]),
        radius: mp.bounding_radius,
    }
}

/// A 0.2 m cube (8 splits) whose top face bulges by up to ≈ 4 cm, tilted: the top is
/// curved, its rim a crease (≈ 58°) against the flat sides.
fn bulged_cube() -> TriMesh {
    let mut mesh = cuboid([0.2, 0.2, 0.2], 8).expect("cube");
    for v in &mut mesh.vertices {
        if v[2] > 0.1 - 1e-12 {
            let (x, y) = (v[0], v[1]);
            let c = |u: f64| (std::f64::consts::PI * u / 0.2).cos();
            v[2] += 0.04 * c(x) * c(y) * (1.0 + 2.0 * x + y);
        }
    }
    mesh
}

/// A noisy 1,280-triangle sphere (η = 1.1, no symmetry) and a cube with a curved top and
/// creased rim: the curved solid's volume, centre of mass and inertia agree with the
/// refined polyhedron ([`refined`], `n` = 8 and 16, extrapolated `(4·P₁₆ − P₈)/3`) within
/// 0.1 % of what the caps add to the facets' (volume, inertia) and 0.1 % of the centre's
/// shift; a cube without a curved triangle keeps its facets' mass properties bit for bit.
#[test]
fn smooth_mass_matches_the_refined_polyhedron() {
    let noisy = noise_sphere(&NoiseSphere {
        radius: 0.1,
        subdivisions: 3,
        eta: 1.1,
        seed: 7,
        ..NoiseSphere::default()
    })
    .expect("sphere");
    for (name, mesh) in [("noisy sphere", noisy), ("bulged cube", bulged_cube())] {
        let shape = shape_of(&mesh);
        let facets = shape.mass_props();
        let m = shape.curved_mass().expect("curved");
        let (p8, p16) = (refined(&shape, 8), refined(&shape, 16));
        let rich = |a: f64, b: f64| (4.0 * b - a) / 3.0;
        let volume = rich(p8.volume, p16.volume);
        let com = (4.0 * p16.com - p8.com) / 3.0;
        let inertia = (4.0 * p16.unit_inertia - p8.unit_inertia) / 3.0;
        let (dv, dc, di) = (
            (m.volume - facets.volume).abs(),
            (m.com - facets.com).norm(),
            (m.unit_inertia - facets.unit_inertia).norm(),
        );
        eprintln!(
            "{name}: volume {:.8e} refined {volume:.8e} (n 8: {:.8e}, 16: {:.8e}) facets {:.8e}; com shift {dc:.3e}, error {:.3e}; inertia change {di:.3e}, error {:.3e}",
            m.volume, p8.volume, p16.volume, facets.volume,
            (m.com - com).norm(),
            (m.unit_inertia - inertia).norm()
        );
        assert!(dv > 1e-3 * m.volume, "{name}: the caps add {dv}");
        assert!((m.volume - volume).abs() < 1e-3 * dv, "{name}: {volume}");
        assert!((m.com - com).norm() < 1e-3 * dc.max(1e-6), "{name}: {com}");
        assert!(
            (m.unit_inertia - inertia).norm() < 1e-3 * di,
            "{name}: {inertia}"
        );
    }
    let cube = shape_of(&cuboid([0.2, 0.2, 0.2], 4).expect("cube"));
    assert!(cube.curved_mass().is_none());
    let mut same = cube.clone();
    assert!(!same.use_curved_mass());
    assert_eq!(same.volume.to_bits(), cube.volume.to_bits());
    assert_eq!(same.com, cube.com);
    assert_eq!(same.unit_inertia, cube.unit_inertia);
}

/// [`Shape::use_curved_mass`] replaces the shape's mass properties once: a second call
/// changes nothing.
#[test]
fn curved_mass_is_applied_once() {
    let mut shape = shape_of(&icosphere(0.1, 2).expect("icosphere"));
    let m = shape.curved_mass().expect("curved");
    assert!(shape.use_curved_mass());
    assert_eq!(shape.mass_props(), m);
    assert!(!shape.use_curved_mass());
    assert_eq!(shape.mass_props(), m);
    assert_eq!(shape.curved_mass(), Some(m));
}
