//! The broad phase with smooth surfaces (issue 14, `docs/design.md` §3 *Smooth surfaces*):
//! a curved surface may lie outside its vertices' bounding sphere by up to its mesh's
//! displacement bound, and every body-level prune adds that reach
//! (`detect::broad::surface_reach`). A sphere mesh stretched along one axis bulges well
//! outside the sphere of its vertices; two such bodies (and one above a plane) whose curved
//! surfaces are within the margin while their bounding spheres plus halos are apart must
//! be detected.

use crate::common::world::*;
use msdem_geom::math::{Iso3, Quat, Vec3};
use msdem_mesh::generate::{icosphere, plane};
use msdem_solver::detect::broad::{outer_radius, surface_reach};
use msdem_solver::model::smooth::{curved_point, Surface};
use msdem_solver::world::World;
use nalgebra::Unit;

/// A 1,280-triangle icosphere of radius 0.1 m, turned so that no vertex lies on the x
/// axis, stretched 1.6× along x: near the tips its curved surface bulges 0.12 mm outside
/// the sphere of its vertices (the plain icosphere's 7.8 µm).
fn stretched() -> msdem_mesh::TriMesh {
    let mut mesh = icosphere(0.1, 3).expect("icosphere");
    let q = Quat::from_euler_angles(0.0, 0.21, 0.3);
    for v in &mut mesh.vertices {
        let r = q * Vec3::from(*v);
        *v = [1.6 * r.x, r.y, r.z];
    }
    mesh
}

/// The sampled curved point of body 0's shape farthest from its centre of mass (shape
/// frame, relative to the centre of mass; 24 steps per facet edge) and the largest
/// sampled displacement `|p* − p|`.
fn farthest_curved_point(w: &World) -> (Vec3, f64) {
    let b = &w.state.bodies[0];
    let shape = &w.model.shapes[b.shape as usize];
    let geom = shape.geometry.mesh().expect("mesh");
    let (mut best, mut far, mut disp) = (Vec3::zeros(), 0.0, 0.0_f64);
    for (t, tri) in geom.tree.soup.iter().enumerate() {
        let Some(n) = geom.smooth.corners[t] else {
            continue;
        };
        let v = tri
            .v
            .map(|p| Vec3::new(p[0] as f64, p[1] as f64, p[2] as f64) - shape.com);
        let steps = 24;
        for i in 0..=steps {
            for j in 0..=steps - i {
                let c = [i, j, steps - i - j].map(|x| x as f64 / steps as f64);
                let p = c[0] * v[0] + c[1] * v[1] + c[2] * v[2];
                let q = p + curved_point(&p, &v, &n).offset;
                disp = disp.max((q - p).norm());
                if q.norm() > far {
                    (best, far) = (q, q.norm());
                }
            }
        }
    }
    (best, disp)
}

/// The rotation taking unit `from` to unit `to`.
fn turn(from: &Vec3, to: &Vec3) -> Quat {
    Quat::rotation_between(from, to).unwrap_or_else(|| {
        // Opposite: half a turn about any axis perpendicular to `from`.
        let axis = from
            .cross(&Vec3::x())
            .try_normalize(1e-9)
            .unwrap_or_else(|| from.cross(&Vec3::y()).normalize());
        Quat::from_axis_angle(&Unit::new_normalize(axis), std::f64::consts::PI)
    })
}

fn smooth_world(surface: Surface) -> World {
    let mesh = stretched();
    let mut w = empty_world(1e-5, [0.0; 3]);
    let s = add_shape(&mut w, &mesh);
    let m = add_material(&mut w, 1000.0, 0.01, 1000.0, 0.0, 1.0);
    w.model.materials[m as usize].surface = surface;
    add_particle(&mut w, s, m, [0.0; 3]);
    w
}

/// Two stretched smooth spheres, their farthest curved points facing each other, centres
/// `2(r + ε) + e` apart (`e` the bulge beyond the vertices' sphere): the bounding spheres
/// with halos are apart by `e` (the broad phase without the reach misses the pair), the
/// curved surfaces `2ε − e` apart, inside the margin `2ε`. Detected with the surface
/// reach, at a gap below the margin; the same bodies with facets (flat distance ≥ `2ε +
/// e`) give no contact. The same above a plane (obstacle box test).
#[test]
fn broad_phase_reaches_the_curved_surface_outside_the_bounding_sphere() {
    for surface in [Surface::Smooth, Surface::Facets] {
        let mut w = smooth_world(surface);
        let s = w.state.bodies[0].shape;
        let m = w.state.bodies[0].material;
        add_particle(&mut w, s, m, [0.0; 3]);
        // Sample the smooth shape (the facets world's shape has the same vertices).
        let (p, disp) = farthest_curved_point(&smooth_world(Surface::Smooth));
        let (r, eps) = (w.state.bodies[0].radius, w.state.bodies[0].epsilon);
        let bulge = p.norm() - r;
        let reach = surface_reach(&w.model, &w.state.bodies[0]);
        eprintln!(
            "{surface:?}: r {r:.6} m, ε {eps:.3e} m, curved surface {bulge:.3e} m outside the vertices' sphere, largest sampled |p* − p| {disp:.3e} m, reach {reach:.3e} m"
        );
        assert!(bulge > 0.03 * eps, "bulge {bulge} against ε {eps}");
        match surface {
            Surface::Smooth => assert!(reach >= bulge && reach >= disp, "{reach} {bulge}"),
            Surface::Facets => assert_eq!(reach, 0.0),
        }
        let u = p.normalize();
        let margin = 2.0 * eps;
        let d = 2.0 * (r + eps) + bulge;
        // Body 0 turns its farthest point to +x, body 1 to −x, at x = d.
        w.state.bodies[0].orientation = turn(&u, &Vec3::x());
        w.state.bodies[1].orientation = turn(&u, &(-Vec3::x()));
        w.state.bodies[1].position = Vec3::new(d, 0.0, 0.0);
        let b = &w.state.bodies;
        // Without the reach the bounding spheres with halos are apart.
        assert!((b[0].position - b[1].position).norm() > 2.0 * (r + eps));
        let mut det = msdem_solver::detect::Detector::new(&w.params);
        let (contacts, _) = detect(&w, &mut det);
        let gap = margin - contacts.iter().map(|c| c.depth).fold(0.0, f64::max);
        eprintln!(
            "{surface:?} pair: {} contacts, smallest gap (margin − deepest overlap) {gap:.4e} m (margin {margin:.4e} m, curved {:.4e} m)",
            contacts.len(),
            margin - bulge
        );
        match surface {
            Surface::Smooth => {
                assert!(!contacts.is_empty(), "pair missed");
                assert!(gap <= margin - bulge + 1e-6, "{gap}");
            }
            Surface::Facets => assert!(contacts.is_empty(), "{contacts:?}"),
        }

        // One body above a plane (obstacle halo `eps_o`), its farthest point down.
        let mut w = smooth_world(surface);
        let eps_o = 0.002;
        let ground = plane([2.0, 2.0], 4, [0.0; 3]).expect("plane");
        add_obstacle(&mut w, &ground, Iso3::identity(), eps_o, 0.0, 1.0);
        let z = r + eps + eps_o + 0.5 * bulge;
        w.state.bodies[0].orientation = turn(&u, &(-Vec3::z()));
        w.state.bodies[0].position = Vec3::new(0.0, 0.0, z);
        assert!(z - (r + eps) > w.model.obstacles[0].aabb.1.z);
        let r_out = outer_radius(&w.model, &w.state.bodies[0]);
        assert_eq!(r_out, r + eps + reach);
        let mut det = msdem_solver::detect::Detector::new(&w.params);
        let (contacts, _) = detect(&w, &mut det);
        let gap = eps + eps_o - contacts.iter().map(|c| c.depth).fold(0.0, f64::max);
        eprintln!(
            "{surface:?} plane: {} contacts, smallest gap (margin − deepest overlap) {gap:.4e} m (margin {:.4e} m)",
            contacts.len(),
            eps + eps_o
        );
        match surface {
            Surface::Smooth => {
                assert!(!contacts.is_empty(), "plane missed");
                assert!(gap <= eps + eps_o - 0.5 * bulge + 1e-6, "{gap}");
            }
            Surface::Facets => assert!(contacts.is_empty(), "{contacts:?}"),
        }
    }
}
