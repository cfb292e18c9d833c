//! Analytic bodies and contacts for the impulse tests: spheres and cubes with exact mass
//! properties, a model with materials and obstacles, contacts built from the geometry.

use msdem_ellipsoid::Ellipsoid;
use msdem_geom::math::{Iso3, Mat3, Quat, Vec3};
use msdem_solver::contact::Contact;
use msdem_solver::integrator::lts::impulse::{
    resolve_cluster, ImpulseReport, ImpulseScratch, ImpulseSettings,
};
use msdem_solver::model::{Geometry, HaloSpec, Material, Model, Obstacle, Other};
use msdem_solver::state::Body;

/// Halo width of every body in these tests \[m\].
pub const EPS: f64 = 1e-3;

/// A model whose material `i` has friction `mu[i]` and restitution `e[i]`, and whose
/// obstacle `k` (geometry irrelevant to the solver) has friction `obstacle[k].0` and
/// restitution `obstacle[k].1`.
pub fn model(materials: &[(f64, f64)], obstacles: &[(f64, f64)]) -> Model {
    Model {
        name: "impulse".into(),
        materials: materials
            .iter()
            .enumerate()
            .map(|(i, &(friction, restitution))| Material {
                name: format!("m{i}"),
                density: 1000.0,
                halo: HaloSpec::AbsoluteM(EPS),
                spring: 1000.0,
                friction,
                restitution,
                law: Default::default(),
                surface: Default::default(),
            })
            .collect(),
        obstacles: obstacles
            .iter()
            .enumerate()
            .map(|(k, &(friction, restitution))| Obstacle {
                name: format!("o{k}"),
                geometry: Geometry::Ellipsoid(Ellipsoid::sphere(1.0).unwrap()),
                pose: Iso3::identity(),
                epsilon: EPS,
                friction,
                restitution,
                elastic: Default::default(),
                rolling_friction: 0.0,
                aabb: (Vec3::repeat(-1.0), Vec3::repeat(1.0)),
            })
            .collect(),
        ..Model::default()
    }
}

fn body(
    material: u32,
    mass: f64,
    inertia: f64,
    radius: f64,
    position: Vec3,
    velocity: Vec3,
) -> Body {
    let inertia = Mat3::identity() * inertia;
    Body {
        shape: 0,
        material,
        mass,
        inertia,
        inv_inertia: inertia.try_inverse().unwrap(),
        epsilon: EPS,
        radius,
        position,
        orientation: Quat::identity(),
        velocity,
        angular_velocity: Vec3::zeros(),
    }
}

/// A solid sphere of mass `mass` \[kg\] and radius `radius` \[m\] (`I = 2/5·m·R²`).
pub fn sphere(material: u32, mass: f64, radius: f64, position: Vec3, velocity: Vec3) -> Body {
    body(
        material,
        mass,
        0.4 * mass * radius * radius,
        radius,
        position,
        velocity,
    )
}

/// A solid cube of mass `mass` \[kg\] and side `side` \[m\] (`I = m·s²/6`), axis-aligned.
pub fn cube(material: u32, mass: f64, side: f64, position: Vec3) -> Body {
    body(
        material,
        mass,
        mass * side * side / 6.0,
        0.5 * side * 3f64.sqrt(),
        position,
        Vec3::zeros(),
    )
}

/// The contact of spheres `a` and `b` of `bodies` (surfaces `dist` apart, normal from b's
/// centre to a's, point in the middle of the gap).
pub fn sphere_contact(bodies: &[Body], a: u32, b: u32) -> Contact {
    let (pa, pb) = (&bodies[a as usize], &bodies[b as usize]);
    let d = pa.position - pb.position;
    let n = d.normalize();
    let dist = d.norm() - pa.radius - pb.radius;
    let point = pb.position + n * (pb.radius + 0.5 * dist);
    Contact {
        a,
        b: Other::Particle(b),
        point,
        normal: n,
        dist,
        weight: 1.0,
        depth: 2.0 * EPS - dist,
    }
}

/// The contact of sphere `a` with obstacle `k`, the plane `z = plane_z` below it.
pub fn plane_contact(bodies: &[Body], a: u32, k: u32, plane_z: f64) -> Contact {
    let s = &bodies[a as usize];
    let dist = s.position.z - s.radius - plane_z;
    Contact {
        a,
        b: Other::Obstacle(k),
        point: Vec3::new(s.position.x, s.position.y, plane_z + 0.5 * dist),
        normal: Vec3::z(),
        dist,
        weight: 1.0,
        depth: 2.0 * EPS - dist,
    }
}

/// Settings converged far below the test tolerances.
pub fn tight() -> ImpulseSettings {
    ImpulseSettings {
        max_iterations: 10_000,
        tolerance: 1e-15,
        ..ImpulseSettings::default()
    }
}

/// Runs the solver with fresh scratch and panics on an error.
pub fn resolve(
    model: &Model,
    bodies: &mut [Body],
    contacts: &[Contact],
    settings: &ImpulseSettings,
) -> ImpulseReport {
    resolve_cluster(
        model,
        bodies,
        contacts,
        settings,
        &mut ImpulseScratch::default(),
    )
    .expect("resolve_cluster")
}

/// Total linear momentum [kg·m/s].
pub fn momentum(bodies: &[Body]) -> Vec3 {
    bodies.iter().map(|b| b.velocity * b.mass).sum()
}

/// Total kinetic energy (translation and rotation) \[J\].
pub fn kinetic(bodies: &[Body]) -> f64 {
    bodies
        .iter()
        .map(|b| {
            0.5 * b.mass * b.velocity.norm_squared()
                + 0.5 * b.angular_velocity.dot(&(b.inertia * b.angular_velocity))
        })
        .sum()
}

/// `|x − y| ≤ tol·|y|` (or `≤ tol` for `y = 0`).
pub fn close(x: f64, y: f64, tol: f64) -> bool {
    (x - y).abs() <= tol * y.abs().max(1e-300) || (y == 0.0 && x.abs() <= tol)
}
