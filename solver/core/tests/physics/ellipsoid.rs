//! Ellipsoid particles (seed 002) in the solver: the descent of a mesh's surrogate tree
//! against an ellipsoid against brute force over every real triangle, the sphere limit of
//! two ellipsoids, and an ellipsoid dropped on a plane coming to rest on its shortest axis
//! (flat under the seed's law; tilted under Hertz–Mindlin with rolling friction).

use crate::common::world::*;
use msdem_ellipsoid::{ellipsoid_triangle, Ellipsoid, Triangle};
use msdem_geom::math::{Iso3, Point3, Quat, Vec3};
use msdem_mesh::generate::plane;
use msdem_solver::contact::Contact;
use msdem_solver::detect::broad::CandidatePair;
use msdem_solver::detect::dispatch::{roots_pair, RootsScratches};
use msdem_solver::detect::{Detector, Search};
use msdem_solver::model::{ContactLaw, Elastic, Other};
use msdem_solver::params::{DetectionMode, KernelChoice};
use msdem_tree::LevelStats;

/// Every real triangle of the obstacle's mesh within `margin` of the ellipsoid, by
/// brute force (no tree): (soup index, signed distance).
fn brute_force(world: &msdem_solver::world::World, margin: f64) -> Vec<(u32, f64)> {
    let b = &world.state.bodies[0];
    let e = world.model.shapes[b.shape as usize]
        .geometry
        .ellipsoid()
        .expect("ellipsoid");
    let pose = b.mesh_to_world(&Vec3::zeros());
    let ob = &world.model.obstacles[0];
    let tree = ob.geometry.tree().expect("mesh obstacle");
    let real = tree.real_count();
    (0..real as u32)
        .filter_map(|i| {
            let t = &tree.soup[i as usize];
            let p = |q: &[f32; 3]| {
                ob.pose * Point3::new(f64::from(q[0]), f64::from(q[1]), f64::from(q[2]))
            };
            let tri = Triangle::new(p(&t.v[0]), p(&t.v[1]), p(&t.v[2]));
            let c = ellipsoid_triangle(e, &pose, &tri);
            (c.signed_distance <= margin).then_some((i, c.signed_distance))
        })
        .collect()
}

fn raw_hits(world: &msdem_solver::world::World) -> Vec<Contact> {
    let mut det = Detector::new(&world.params);
    det.contacts(
        &world.model,
        &world.state,
        Search::Roots(DetectionMode::Hierarchy),
    )
    .expect("detect")
    .0
}

#[test]
fn tree_descent_against_an_ellipsoid_finds_exactly_the_brute_force_triangles() {
    // A subdivided ground (real triangles below several tree levels) under a tilted
    // ellipsoid at poses from apart to slightly penetrating.
    let ground = plane([2.0, 2.0], 5, [0.0, 0.0, 0.0]).unwrap();
    let mut hits_total = 0;
    for (k, (tilt, height)) in [
        (0.0, 0.105),
        (0.4, 0.13),
        (0.9, 0.15),
        (0.3, 0.098),
        (1.2, 0.4),
    ]
    .into_iter()
    .enumerate()
    {
        let mut world = empty_world(1e-4, [0.0, 0.0, -9.81]);
        let s = add_ellipsoid_shape(&mut world, [0.3, 0.2, 0.1]);
        let m = add_material(&mut world, 1000.0, 0.01, 1e5, 0.5, 0.5);
        let id = add_particle(&mut world, s, m, [0.1 * k as f64, -0.05, height]);
        world.state.bodies[id as usize].orientation =
            Quat::from_euler_angles(tilt, 0.5 * tilt, 0.2);
        add_obstacle(&mut world, &ground, Iso3::identity(), 0.004, 0.5, 0.5);
        let margin = world.state.bodies[0].epsilon + 0.004;
        let truth = brute_force(&world, margin);
        let pair = CandidatePair {
            a: 0,
            b: Other::Obstacle(0),
        };
        let (mut raw, mut stats) = (Vec::new(), LevelStats::default());
        roots_pair(
            &world.model,
            &world.state.bodies,
            &pair,
            DetectionMode::Hierarchy,
            KernelChoice::Exact,
            &mut RootsScratches::default(),
            &mut raw,
            &mut stats,
        );
        let found: Vec<(u32, f64)> = raw.iter().map(|c| (c.tri_b, c.dist)).collect();
        let expected: Vec<(u32, f64)> = truth.iter().map(|&(i, d)| (i, d.max(0.0))).collect();
        assert_eq!(found, expected, "pose {k}");
        assert!(raw.iter().all(|c| c.tri_a == u32::MAX));
        // The descent skips most of the ground: fewer real checks than triangles.
        let real = world.model.obstacles[0]
            .geometry
            .tree()
            .unwrap()
            .real_count() as u64;
        assert!(
            stats.fine < real,
            "pose {k}: {} of {real} checked",
            stats.fine
        );
        hits_total += found.len();
    }
    assert!(
        hits_total >= 4,
        "the poses must produce contacts: {hits_total}"
    );
}

#[test]
fn equal_radii_ellipsoids_touch_as_spheres_do() {
    for gap in [0.0005, 0.002, 0.0039] {
        let mut world = empty_world(1e-4, [0.0; 3]);
        let s = add_ellipsoid_shape(&mut world, [0.1, 0.1, 0.1]);
        let m = add_material(&mut world, 1000.0, 0.01, 1e4, 0.0, 1.0);
        let d = 0.2 + gap;
        add_particle(&mut world, s, m, [0.0, 0.0, 0.0]);
        add_particle(&mut world, s, m, [d * 0.6, d * 0.8, 0.0]);
        world.state.bodies[1].orientation = Quat::from_euler_angles(0.3, 1.1, -0.4);
        let contacts = raw_hits(&world);
        // margin 2 × 0.01 × 0.2 = 0.004
        assert_eq!(contacts.len(), 1, "gap {gap}");
        let c = &contacts[0];
        assert!(
            (c.dist - gap).abs() < 1e-9,
            "gap {gap}: distance {}",
            c.dist
        );
        let axis = Vec3::new(-0.6, -0.8, 0.0);
        assert!((c.normal - axis).norm() < 1e-7, "normal {:?}", c.normal);
    }
    // Beyond the margin: nothing.
    let mut world = empty_world(1e-4, [0.0; 3]);
    let s = add_ellipsoid_shape(&mut world, [0.1, 0.1, 0.1]);
    let m = add_material(&mut world, 1000.0, 0.01, 1e4, 0.0, 1.0);
    add_particle(&mut world, s, m, [0.0, 0.0, 0.0]);
    add_particle(&mut world, s, m, [0.2041, 0.0, 0.0]);
    assert!(raw_hits(&world).is_empty());
}

/// An ellipsoid on a plane: released at `tilt` (Euler angles) with its lowest point
/// `drop` [m] above the halo; returns the world and the particle id after `steps`, plus
/// the extremes of the c axis' vertical component and of the centre height over the last
/// `tail` steps, and the mechanical energy after the first and the last `tail` steps.
struct Drop {
    world: msdem_solver::world::World,
    margin: f64,
    sinkage: f64,
    axis_z_min: f64,
    z_min: f64,
    energy_early: f64,
    energy_late: f64,
}

const SEMI_AXES: [f64; 3] = [0.3, 0.2, 0.1];
const SPRING: f64 = 1e5;
const POISSON: f64 = 0.3;

fn drop_on_plane(tilt: (f64, f64), drop: f64, steps: u32, tail: u32) -> Drop {
    drop_on_plane_with(tilt, drop, steps, tail, None)
}

/// [`drop_on_plane`] under Hertz–Mindlin when `hertz = Some((E [Pa], μ_r))`: the
/// particle's Young's modulus (ν = 0.3; the plane rigid) and the plane's rolling friction.
fn drop_on_plane_with(
    tilt: (f64, f64),
    drop: f64,
    steps: u32,
    tail: u32,
    hertz: Option<(f64, f64)>,
) -> Drop {
    let [a, b, c] = SEMI_AXES;
    let mut world = empty_world(1e-4, [0.0, 0.0, -9.81]);
    let s = add_ellipsoid_shape(&mut world, SEMI_AXES);
    let mat = add_material(&mut world, 1000.0, 0.01, SPRING, 0.5, 0.3);
    if let Some((youngs_modulus, _)) = hertz {
        world.model.materials[mat as usize].law = ContactLaw::HertzMindlin {
            elastic: Elastic {
                youngs_modulus,
                poisson_ratio: POISSON,
            },
            rolling_friction: 0.0,
        };
    }
    let id = add_particle(&mut world, s, mat, [0.0, 0.0, 0.0]) as usize;
    let q = Quat::from_euler_angles(tilt.0, tilt.1, 0.0);
    let down = q.inverse() * Vec3::new(0.0, 0.0, -1.0);
    let reach =
        (a * a * down.x * down.x + b * b * down.y * down.y + c * c * down.z * down.z).sqrt();
    let obstacle_eps = 0.002;
    let margin = world.state.bodies[id].epsilon + obstacle_eps;
    {
        let body = &mut world.state.bodies[id];
        body.orientation = q;
        body.position = Vec3::new(0.0, 0.0, reach + margin + drop);
    }
    let ground = plane([3.0, 3.0], 2, [0.0, 0.0, 0.0]).unwrap();
    add_obstacle(
        &mut world,
        &ground,
        Iso3::identity(),
        obstacle_eps,
        0.5,
        0.3,
    );
    if let Some((_, mu_r)) = hertz {
        world.model.obstacles[0].rolling_friction = mu_r;
    }
    let (mut ex, mut det) = explicit(&world);
    let mass = world.state.bodies[id].mass;
    let energy = |w: &msdem_solver::world::World| {
        let b = &w.state.bodies[id];
        let w_body = b.orientation.inverse() * b.angular_velocity;
        0.5 * mass * b.velocity.norm_squared()
            + 0.5 * w_body.dot(&(b.inertia * w_body))
            + mass * 9.81 * b.position.z
    };
    let (mut axis_z_min, mut z_min) = (f64::INFINITY, f64::INFINITY);
    let mut energy_early = f64::NAN;
    for k in 0..steps {
        ex.advance(&world.model, &mut world.state, &mut det, false)
            .expect("step");
        if k + 1 == tail {
            energy_early = energy(&world);
        }
        if k + tail >= steps {
            let b = &world.state.bodies[id];
            axis_z_min = axis_z_min.min((b.orientation * Vec3::z()).z.abs());
            z_min = z_min.min(b.position.z);
        }
    }
    let energy_late = energy(&world);
    let sinkage = match hertz {
        // The seed's spring: m g = K_s √m (δ / margin).
        None => margin * mass * 9.81 / (SPRING * mass.sqrt()),
        // Hertz on a rigid plane: m g = 4/3 E* √R* δ^{3/2}, R* the bounding radius.
        Some((youngs_modulus, _)) => {
            let e_star = youngs_modulus / (1.0 - POISSON * POISSON);
            let k = 4.0 / 3.0 * e_star * a.max(b).max(c).sqrt();
            (mass * 9.81 / k).powf(2.0 / 3.0)
        }
    };
    Drop {
        world,
        margin,
        sinkage,
        axis_z_min,
        z_min,
        energy_early,
        energy_late,
    }
}

#[test]
fn an_ellipsoid_dropped_flat_on_a_plane_rests_at_its_shortest_semi_axis_plus_the_margin() {
    let d = drop_on_plane((0.0, 0.0), 0.005, 20_000, 2_000);
    let body = &d.world.state.bodies[0];
    assert!(
        body.velocity.norm() < 1e-4,
        "not at rest: {:?}",
        body.velocity
    );
    assert!(
        d.axis_z_min > 0.999_999,
        "shortest axis tilted: {}",
        d.axis_z_min
    );
    // Static sinkage into the halo: m g = K_s √m (1 − d/margin).
    let c = SEMI_AXES[2];
    let z = body.position.z;
    assert!(
        (z - (c + d.margin - d.sinkage)).abs() <= 0.05 * d.sinkage,
        "centre at {z}, expected c + margin − sinkage = {} (sinkage {})",
        c + d.margin - d.sinkage,
        d.sinkage
    );
}

#[test]
fn an_ellipsoid_dropped_tilted_rocks_about_its_shortest_axis_losing_energy() {
    // Released at 30° and 15°, it lands on an edge and rolls onto its flattest side, then
    // rocks about it. (The seed's contact law has no rolling resistance, so the rocking of
    // a smooth ellipsoid on a plane decays only slowly; it is not at rest within seconds.
    // Under Hertz–Mindlin with rolling friction it is: the next test.)
    let d = drop_on_plane(
        (
            std::f64::consts::FRAC_PI_6,
            std::f64::consts::FRAC_PI_6 / 2.0,
        ),
        0.02,
        40_000,
        10_000,
    );
    let c = SEMI_AXES[2];
    assert!(
        d.axis_z_min > 0.75,
        "c axis left the vertical: {}",
        d.axis_z_min
    );
    assert!(
        d.z_min >= c + d.margin - 2.0 * d.sinkage - 1e-6,
        "centre sank to {} below c + margin − sinkage",
        d.z_min
    );
    assert!(
        d.energy_late < d.energy_early,
        "mechanical energy grew: {} → {}",
        d.energy_early,
        d.energy_late
    );
}

#[test]
fn an_ellipsoid_dropped_tilted_comes_to_rest_on_its_shortest_axis_with_rolling_resistance() {
    // The tilted drop above, under Hertz–Mindlin with rolling friction μ_r on the plane
    // (issue 14): the rocking dies out within 4 s. Rolling friction can hold the body at a
    // small static tilt θ, where gravity's restoring torque m g (b² − c²)/c · θ (tilt about
    // the long axis a, the softer direction) meets the largest rolling torque μ_r R* m g
    // (R* = the bounding radius, Hertz's effective radius against a plane): θ ≤
    // μ_r R* c / (b² − c²), which lifts the centre by at most (b² − c²)/(2c) θ².
    let mu_r = 0.05;
    let d = drop_on_plane_with(
        (
            std::f64::consts::FRAC_PI_6,
            std::f64::consts::FRAC_PI_6 / 2.0,
        ),
        0.02,
        40_000,
        10_000,
        Some((1e7, mu_r)),
    );
    let body = &d.world.state.bodies[0];
    let [a, b, c] = SEMI_AXES;
    let theta = mu_r * a * c / (b * b - c * c);
    let lift = (b * b - c * c) / (2.0 * c) * theta * theta;
    assert!(
        body.velocity.norm() < 1e-4,
        "not at rest: {:?}",
        body.velocity
    );
    assert!(
        body.angular_velocity.norm() < 1e-3,
        "still rocking: {:?}",
        body.angular_velocity
    );
    assert!(
        d.axis_z_min >= theta.cos(),
        "shortest axis tilted by more than {theta} rad over the last second: cos = {}",
        d.axis_z_min
    );
    // Static Hertz sinkage into the halo (5 % band), plus at most the tilt's lift.
    let z = body.position.z;
    let rest = c + d.margin - d.sinkage;
    assert!(
        z >= rest - 0.05 * d.sinkage && z <= rest + lift + 0.05 * d.sinkage,
        "centre at {z}, expected c + margin − sinkage = {rest} (sinkage {}, lift ≤ {lift})",
        d.sinkage
    );
}

#[test]
fn ellipsoid_geometry_is_not_a_mesh() {
    let e = Ellipsoid::new([0.1, 0.2, 0.3]).unwrap();
    let g = msdem_solver::model::Geometry::Ellipsoid(e);
    assert!(g.tree().is_none() && g.mesh().is_none());
    assert_eq!(g.kind(), msdem_solver::model::Kind::Ellipsoid);
}

#[test]
fn a_mesh_particle_against_an_ellipsoid_particle_gets_the_normal_from_the_ellipsoid() {
    // Particle 0 is a mesh (side a), particle 1 an ellipsoid (side b): normals point from
    // b to a, the mesh triangle is `tri_a`.
    let mut world = empty_world(1e-4, [0.0; 3]);
    let mesh = noise_mesh(0.1, 3, 1.0, 7);
    let sm = add_shape(&mut world, &mesh);
    let se = add_ellipsoid_shape(&mut world, [0.15, 0.1, 0.05]);
    let m = add_material(&mut world, 1000.0, 0.01, 1e4, 0.0, 1.0);
    add_particle(&mut world, sm, m, [0.0, 0.0, 0.0]);
    let r_mesh = world.model.shapes[sm as usize].radius;
    add_particle(&mut world, se, m, [0.0, 0.0, r_mesh + 0.05 + 0.001]);
    let pair = CandidatePair {
        a: 0,
        b: Other::Particle(1),
    };
    // Move the ellipsoid down until the pair touches, checking every pose's contacts.
    let mut touched = 0;
    for k in 0..40 {
        world.state.bodies[1].position.z = r_mesh + 0.05 + 0.004 - 0.0005 * f64::from(k);
        let (mut raw, mut stats) = (Vec::new(), LevelStats::default());
        roots_pair(
            &world.model,
            &world.state.bodies,
            &pair,
            DetectionMode::Hierarchy,
            KernelChoice::Exact,
            &mut RootsScratches::default(),
            &mut raw,
            &mut stats,
        );
        for c in &raw {
            assert_eq!(c.tri_b, u32::MAX);
            assert!(c.tri_a != u32::MAX);
            assert!(
                c.normal.z < -0.5,
                "normal {:?} must point down, to the mesh",
                c.normal
            );
            if c.dist > 0.0 {
                // Apart: the witness on the mesh (p) lies below the one on the ellipsoid.
                assert!(c.p.z <= c.q.z + 1e-12, "p {:?} above q {:?}", c.p, c.q);
                assert!(((c.p - c.q).norm() - c.dist).abs() < 1e-9);
            }
        }
        touched += usize::from(!raw.is_empty());
    }
    assert!(touched > 5, "the ellipsoid never reached the mesh's halo");
}
