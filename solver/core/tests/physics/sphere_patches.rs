//! Sphere triangulations (issue 14): the total contact force between two equal spheres,
//! and between a sphere and a plane, at the same surface gap, across 320/1,280/5,120-
//! triangle icospheres (η = 1) in eight orientations, with surface patches
//! (`docs/validation.md`).
//!
//! The gap is the distance between the meshes, computed here by brute force (sphere on a
//! plane: the lowest vertex; sphere pair: the two icospheres are centrally symmetric and
//! share one orientation, so the pair is point-symmetric about the midpoint `c` of the
//! centres and the mesh distance is `2·dist(c, mesh)`, the minimum over all triangles).
//! At the same *centre* distance the meshes are not at the same gap: the facets of a
//! 320-triangle icosphere lie up to 1.3 % of the radius inside its sphere, 30 % of the
//! pair's margin, and any law acting on the mesh surfaces sees that (measured below and
//! reported, not asserted).
//!
//! Measured (`docs/validation.md`): patches spread 2.5 % (pair) and 1.6 % (plane) over all
//! 24 meshes × orientations at 0.3 and 0.6 of the margin, the difference being the
//! stiffness `K_s·sqrt(m_eff)` of the polyhedra's up to 5 % smaller volume; the seed's
//! merged points spread 180–190 %.
//!

use crate::common::world::*;
use msdem_geom::kernel::closest_point_on_triangle;
use msdem_geom::math::{Iso3, Point3, Quat, Tri, Vec3};
use msdem_mesh::generate::{icosphere, plane};
use msdem_mesh::TriMesh;
use msdem_solver::contact::force::{accumulate_forces, Wrench};
use msdem_solver::model::ContactPoints;
use msdem_solver::world::World;

const R: f64 = 0.1;
const SUBDIVISIONS: [u32; 3] = [2, 3, 4];

/// Eight fixed orientations: the identity (a vertex on the line of centres) and seven
/// rotations about scattered axes.
pub(crate) fn orientations() -> Vec<Quat> {
    let mut q = vec![Quat::identity()];
    for k in 1..8 {
        let k = k as f64;
        let axis = Vec3::new((1.3 * k).sin(), (2.1 * k).cos(), 0.3 + 0.1 * k);
        q.push(Quat::from_axis_angle(
            &nalgebra::Unit::new_normalize(axis),
            0.37 * k,
        ));
    }
    q
}

/// Total contact force on body 0 along z \[N\].
fn force_z(w: &World) -> f64 {
    let mut det = msdem_solver::detect::Detector::new(&w.params);
    let (contacts, _) = detect(w, &mut det);
    let mut wr = vec![Wrench::default(); w.state.bodies.len()];
    accumulate_forces(
        &w.model,
        &w.state.bodies,
        &contacts,
        w.params.dt,
        &mut wr,
        None,
    );
    wr[0].force.z
}

/// Distance \[m\] from `p` to the mesh of body `id` (brute force over its triangles).
fn point_mesh_distance(w: &World, mesh: &TriMesh, id: usize, p: Vec3) -> f64 {
    let b = &w.state.bodies[id];
    let iso = b.mesh_to_world(&w.model.shapes[b.shape as usize].com);
    let world = |i: u32| {
        let v = iso * Point3::from(Vec3::from(mesh.vertices[i as usize]));
        [v.x as f32, v.y as f32, v.z as f32]
    };
    mesh.triangles
        .iter()
        .map(|t| {
            let tri = Tri {
                v: [world(t[0]), world(t[1]), world(t[2])],
            };
            let (_, d2) = closest_point_on_triangle([p.x as f32, p.y as f32, p.z as f32], &tri);
            f64::from(d2).sqrt()
        })
        .fold(f64::INFINITY, f64::min)
}

/// A world of two equal icospheres (body 0 above body 1) or of one icosphere above a
/// plane, the mesh and the pair's margin \[m\].
fn world(subdivisions: u32, on_plane: bool, points: ContactPoints) -> (World, TriMesh, f64) {
    let mesh = icosphere(R, subdivisions).expect("icosphere");
    let mut w = empty_world(1e-5, [0.0; 3]);
    w.model.contact_points = points;
    let s = add_shape(&mut w, &mesh);
    let m = add_material(&mut w, 1000.0, 0.01, 1000.0, 0.0, 1.0);
    add_particle(&mut w, s, m, [0.0; 3]);
    let margin = if on_plane {
        let ground = plane([1.0, 1.0], 4, [0.0; 3]).expect("plane");
        add_obstacle(&mut w, &ground, Iso3::identity(), 0.002, 0.0, 1.0);
        w.state.bodies[0].epsilon + 0.002
    } else {
        add_particle(&mut w, s, m, [0.0; 3]);
        2.0 * w.state.bodies[0].epsilon
    };
    (w, mesh, margin)
}

/// Places body 0 (orientation `q`) so that its mesh is `gap` \[m\] from the plane or from
/// body 1 (same orientation, centre at the origin); returns the force on it \[N\].
fn force_at_surface_gap(w: &mut World, mesh: &TriMesh, on_plane: bool, q: Quat, gap: f64) -> f64 {
    w.state.bodies[0].orientation = q;
    if on_plane {
        w.state.bodies[0].position.z = 0.0;
        let low = lowest_z(w, mesh, 0);
        w.state.bodies[0].position.z = gap - low;
    } else {
        w.state.bodies[1].orientation = q;
        // 2·dist(midpoint, mesh 0) grows with the centre distance h at a rate ≤ 1:
        // the fixed point of h ← h + (gap − d(h)) converges.
        let mut h = 2.0 * R + gap;
        for _ in 0..60 {
            w.state.bodies[0].position.z = h;
            let d = 2.0 * point_mesh_distance(w, mesh, 0, Vec3::new(0.0, 0.0, 0.5 * h));
            h += gap - d;
            if (gap - d).abs() < 1e-9 {
                break;
            }
        }
        w.state.bodies[0].position.z = h;
    }
    force_z(w)
}

/// Places body 0 with its centre `gap` \[m\] plus the sphere radius from the plane or
/// from the other sphere's surface (the *sphere* gap); returns the force on it \[N\].
fn force_at_sphere_gap(w: &mut World, on_plane: bool, q: Quat, gap: f64) -> f64 {
    let r = w.state.bodies[0].radius;
    place_at_sphere_gap(w, on_plane, q, r, gap);
    force_z(w)
}

/// Turns the spheres to `q` and puts body 0 `gap` \[m\] from the plane or from the other
/// sphere (radius `r` \[m\] each, centres on the z axis): the *sphere* gap.
pub(crate) fn place_at_sphere_gap(w: &mut World, on_plane: bool, q: Quat, r: f64, gap: f64) {
    w.state.bodies[0].orientation = q;
    if on_plane {
        w.state.bodies[0].position.z = r + gap;
    } else {
        w.state.bodies[1].orientation = q;
        w.state.bodies[0].position.z = 2.0 * r + gap;
    }
}

/// Relative spread `(max − min) / mid-range` of `v`.
pub(crate) fn spread(v: &[f64]) -> f64 {
    let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    (hi - lo) / (0.5 * (hi + lo))
}

/// Arithmetic mean of `v`.
pub(crate) fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn sphere_forces_do_not_depend_on_the_triangulation_at_the_same_surface_gap() {
    let qs = orientations();
    for on_plane in [false, true] {
        let case = if on_plane {
            "sphere on plane"
        } else {
            "sphere pair"
        };
        for frac in [0.1, 0.3, 0.6] {
            let mut patches = Vec::new();
            let mut seed = Vec::new();
            let mut at_sphere_gap = Vec::new();
            for sub in SUBDIVISIONS {
                for (points, out) in [
                    (ContactPoints::Patches, &mut patches),
                    (ContactPoints::Seed, &mut seed),
                ] {
                    let (mut w, mesh, margin) = world(sub, on_plane, points);
                    for q in &qs {
                        out.push(force_at_surface_gap(
                            &mut w,
                            &mesh,
                            on_plane,
                            *q,
                            frac * margin,
                        ));
                    }
                    if points == ContactPoints::Patches {
                        let f: Vec<f64> = qs
                            .iter()
                            .map(|q| force_at_sphere_gap(&mut w, on_plane, *q, frac * margin))
                            .collect();
                        at_sphere_gap.push(mean(&f));
                    }
                }
            }
            let n = qs.len();
            let means = |v: &[f64]| v.chunks(n).map(mean).collect::<Vec<_>>();
            eprintln!(
                "{case}, surface gap {frac}·margin: patches {:.1?} N (spread over all {:.2} %), seed means {:.0?} N (spread {:.0} %); at the same sphere gap, patches means {:.1?} N (spread {:.1} %)",
                means(&patches),
                100.0 * spread(&patches),
                means(&seed),
                100.0 * spread(&seed),
                at_sphere_gap,
                100.0 * spread(&at_sphere_gap),
            );
            // Every triangulation and orientation within 5 % of each other; deep in the halo
            // (0.1·margin) the 320-triangle pair is left out: its flat facets (edges
            // ≈ 26 mm) face to face are wider than the halo cap (radius
            // sqrt(2·R*·(m − d)) ≈ 19 mm), so at the contact's scale it is a polyhedron,
            // and its integral exceeds the deepest-point floor by 7–16 % in the five
            // face-on orientations (more with an exact quadrature: `docs/validation.md`).
            let checked = if frac < 0.2 && !on_plane {
                &patches[n..]
            } else {
                &patches[..]
            };
            assert!(spread(checked) <= 0.05, "{case}, {frac}: {patches:?}");
            // The seed's merged points scale with the vertices in the halo (the defect).
            assert!(spread(&seed) > 1.0, "{case}, {frac}: {seed:?}");
        }
    }
}
