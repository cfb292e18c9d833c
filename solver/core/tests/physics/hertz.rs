//! Hertz–Mindlin contact law against Hertz's analytic impact of two spheres (contact
//! duration, maximum overlap), its restitution at two speeds 10× apart, and rolling
//! resistance against the analytic deceleration of a rolling sphere
//! (`docs/validation.md`).
//!
//! Geometry: icospheres (1,280 triangles, every vertex on the sphere) meet head-on along
//! the direction of a vertex. The two closest vertices then face each other on the line
//! of centres, and no other pair of mesh points is closer (each polyhedron lies inside its
//! sphere), so the mesh distance is exactly the spheres' gap `|x_b − x_a| − 2r`: the
//! faceting does not enter, and the truth is Hertz's law for the halo overlap.

use crate::common::world::*;
use msdem_geom::math::{Iso3, Vec3};
use msdem_mesh::generate::{icosphere, plane};
use msdem_solver::model::{ContactLaw, Elastic, MaterialPair};
use msdem_solver::world::World;

const RADIUS: f64 = 0.1;
const YOUNG: f64 = 1e8;
const POISSON: f64 = 0.3;

fn hertz_law(youngs_modulus: f64, rolling_friction: f64) -> ContactLaw {
    ContactLaw::HertzMindlin {
        elastic: Elastic {
            youngs_modulus,
            poisson_ratio: POISSON,
        },
        rolling_friction,
    }
}

/// Result of one head-on impact.
struct Impact {
    /// Time with positive halo overlap \[s\] (crossings interpolated linearly).
    duration: f64,
    /// Largest halo overlap \[m\].
    max_overlap: f64,
    /// Separation speed over approach speed along the line of centres [-].
    restitution: f64,
    /// Margin of the pair \[m\].
    margin: f64,
    /// Effective mass, radius and modulus of the pair.
    m_eff: f64,
    r_eff: f64,
    e_eff: f64,
}

/// Two 1,280-triangle spheres of radii `r_a`, `r_b` [m] approaching head-on at relative
/// speed `speed` [m/s] along a vertex direction (zero total momentum), restitution `e`,
/// time step `dt` [s], both of one Hertz material (`E` = [`YOUNG`], `ν` = [`POISSON`]).
fn head_on(r_a: f64, r_b: f64, speed: f64, e: f64, dt: f64) -> Impact {
    let same = Some((YOUNG, POISSON));
    head_on_materials(r_a, r_b, speed, dt, [same, same], [e, e], None)
}

/// [`head_on`] with a material per sphere: `elastic[i]` is `Some((E [Pa], ν))` for
/// Hertz–Mindlin, `None` for the seed's spring; `restitution[i]` its `e`; `pair_e`
/// overrides the pair's restitution (`material_pairs:`). `E*` of the truth is computed
/// here from `1/E* = (1 − ν_a²)/E_a + (1 − ν_b²)/E_b` (a seed material: rigid).
fn head_on_materials(
    r_a: f64,
    r_b: f64,
    speed: f64,
    dt: f64,
    elastic: [Option<(f64, f64)>; 2],
    restitution: [f64; 2],
    pair_e: Option<f64>,
) -> Impact {
    let (mesh_a, mesh_b) = (icosphere(r_a, 3).unwrap(), icosphere(r_b, 3).unwrap());
    let axis = Vec3::from(mesh_a.vertices[0]).normalize();
    let mut world = empty_world(dt, [0.0; 3]);
    let sa = add_shape(&mut world, &mesh_a);
    let sb = add_shape(&mut world, &mesh_b);
    let mut mats = [0u32; 2];
    for (i, m) in mats.iter_mut().enumerate() {
        *m = add_material(&mut world, 1000.0, 0.01, 1000.0, 0.0, restitution[i]);
        if let Some((young, poisson)) = elastic[i] {
            world.model.materials[*m as usize].law = ContactLaw::HertzMindlin {
                elastic: Elastic {
                    youngs_modulus: young,
                    poisson_ratio: poisson,
                },
                rolling_friction: 0.0,
            };
        }
    }
    if let Some(e) = pair_e {
        world.model.material_pairs.push(MaterialPair {
            materials: (mats[0], mats[1]),
            restitution: Some(e),
            friction: None,
            rolling_friction: None,
        });
    }
    let (ra, rb) = (
        world.model.shapes[sa as usize].radius,
        world.model.shapes[sb as usize].radius,
    );
    let margin = 0.01 * 2.0 * (ra + rb);
    let start = ra + rb + margin + 1e-4;
    let a = add_particle(&mut world, sa, mats[0], [0.0; 3]) as usize;
    let b = add_particle(&mut world, sb, mats[1], (start * axis).into()) as usize;
    let (ma, mb) = (world.state.bodies[a].mass, world.state.bodies[b].mass);
    world.state.bodies[a].velocity = speed * mb / (ma + mb) * axis;
    world.state.bodies[b].velocity = -speed * ma / (ma + mb) * axis;
    let m_eff = ma * mb / (ma + mb);
    let r_eff = ra * rb / (ra + rb);
    let compliance = |m: Option<(f64, f64)>| m.map_or(0.0, |(young, nu)| (1.0 - nu * nu) / young);
    let e_eff = 1.0 / (compliance(elastic[0]) + compliance(elastic[1]));
    let overlap = |w: &World| {
        let bs = &w.state.bodies;
        margin - ((bs[b].position - bs[a].position).dot(&axis) - ra - rb)
    };
    let (mut ex, mut det) = explicit(&world);
    let (mut t_in, mut t_out, mut max_overlap) = (f64::NAN, f64::NAN, 0.0f64);
    let mut prev = overlap(&world);
    for step in 1..200_000 {
        ex.advance(&world.model, &mut world.state, &mut det, false)
            .unwrap();
        let now = overlap(&world);
        let t = step as f64 * dt;
        if prev <= 0.0 && now > 0.0 {
            t_in = t - dt * now / (now - prev);
        }
        if prev > 0.0 && now <= 0.0 {
            t_out = t - dt * now / (now - prev);
            break;
        }
        max_overlap = max_overlap.max(now);
        prev = now;
    }
    let bs = &world.state.bodies;
    let separation = (bs[b].velocity - bs[a].velocity).dot(&axis);
    Impact {
        duration: t_out - t_in,
        max_overlap,
        restitution: separation / speed,
        margin,
        m_eff,
        r_eff,
        e_eff,
    }
}

/// Hertz's maximum overlap `(15 m* v²/(16 E* sqrt(R*)))^{2/5}` \[m\].
fn hertz_max_overlap(i: &Impact, v: f64) -> f64 {
    (15.0 * i.m_eff * v * v / (16.0 * i.e_eff * i.r_eff.sqrt())).powf(0.4)
}

/// Hertz's contact duration `2·δ_max/v·∫₀¹ dx/sqrt(1 − x^{5/2})` \[s\], the integral by
/// the midpoint rule after the substitution `x = 1 − u²` (which removes the endpoint
/// singularity): `∫₀¹ 2u/sqrt(1 − (1 − u²)^{5/2}) du`.
fn hertz_duration(i: &Impact, v: f64) -> f64 {
    let n = 200_000;
    let integral: f64 = (0..n)
        .map(|k| {
            let u = (k as f64 + 0.5) / n as f64;
            2.0 * u / (1.0 - (1.0 - u * u).powf(2.5)).sqrt() / n as f64
        })
        .sum();
    2.0 * hertz_max_overlap(i, v) / v * integral
}

#[test]
fn sphere_pair_matches_hertz_duration_and_maximum_overlap() {
    for (r_a, r_b) in [(RADIUS, RADIUS), (RADIUS, 2.0 * RADIUS)] {
        check_hertz_impact(r_a, r_b);
    }
}

/// Material pairs: two Hertz materials of moduli 5× apart and different Poisson's ratios,
/// and a Hertz material against a seed one (rigid in the pair), both on an unequal sphere
/// pair (r 0.1 / 0.2 m): duration and maximum overlap against Hertz with the mixed `E*`.
#[test]
fn unequal_materials_match_hertz_with_the_mixed_modulus() {
    for elastic in [
        [Some((YOUNG, POISSON)), Some((5.0 * YOUNG, 0.2))],
        [Some((YOUNG, POISSON)), None],
    ] {
        let impact = head_on_materials(RADIUS, 2.0 * RADIUS, 1.0, 1e-5, elastic, [1.0, 1.0], None);
        check_impact(&impact, 1.0, &format!("materials {elastic:?}"));
    }
}

/// A `material_pairs:` restitution replaces the materials' mean (0.9 each, pair 0.5).
#[test]
fn a_material_pair_sets_the_pair_restitution() {
    let stiff = Some((5.0 * YOUNG, 0.2));
    for (pair_e, truth) in [(None, 0.9), (Some(0.5), 0.5)] {
        let impact = head_on_materials(
            RADIUS,
            2.0 * RADIUS,
            1.0,
            1e-5,
            [Some((YOUNG, POISSON)), stiff],
            [0.9, 0.9],
            pair_e,
        );
        println!("pair e {pair_e:?}: measured {:.5}", impact.restitution);
        assert!(
            (impact.restitution / truth - 1.0).abs() < 0.03,
            "{pair_e:?}: {}",
            impact.restitution
        );
    }
}

fn check_hertz_impact(r_a: f64, r_b: f64) {
    let impact = head_on(r_a, r_b, 1.0, 1.0, 1e-5);
    check_impact(&impact, 1.0, &format!("r {r_a}/{r_b} m"));
}

/// Duration and maximum overlap of `impact` at approach speed `v` [m/s] against Hertz
/// (2 %), and e = 1.
fn check_impact(impact: &Impact, v: f64, case: &str) {
    let duration = hertz_duration(impact, v);
    let overlap = hertz_max_overlap(impact, v);
    // The closed form with the 4/3 convention: 2.868·(m*²/(R*·E*²·v))^{1/5}.
    let closed =
        2.868 * (impact.m_eff.powi(2) / (impact.r_eff * impact.e_eff.powi(2) * v)).powf(0.2);
    assert!(
        (closed - duration).abs() < 1e-3 * duration,
        "{closed} vs {duration}"
    );
    let dt_err = (impact.duration - duration) / duration;
    let dm_err = (impact.max_overlap - overlap) / overlap;
    println!(
        "hertz pair {case}: duration {:.6e} s (analytic {duration:.6e}, {:+.3} %), max overlap {:.6e} m (analytic {overlap:.6e}, {:+.3} %), e = {:.6}",
        impact.duration,
        100.0 * dt_err,
        impact.max_overlap,
        100.0 * dm_err,
        impact.restitution
    );
    assert!(
        dt_err.abs() < 0.02,
        "duration off by {:.3} %",
        100.0 * dt_err
    );
    assert!(
        dm_err.abs() < 0.02,
        "max overlap off by {:.3} %",
        100.0 * dm_err
    );
    // The overlap must stay inside the halo for the test to be Hertz's (no mesh contact).
    assert!(impact.max_overlap < 0.8 * impact.margin);
    // e = 1: the elastic law returns the approach speed.
    assert!(
        (impact.restitution - 1.0).abs() < 2e-3,
        "{}",
        impact.restitution
    );
}

#[test]
fn hertz_restitution_does_not_depend_on_the_impact_speed() {
    for v in [1.0, 0.1] {
        let impact = head_on(RADIUS, RADIUS, v, 0.5, 1e-5);
        println!(
            "hertz e = 0.5 at {v} m/s: measured {:.5}",
            impact.restitution
        );
        assert!(
            (impact.restitution - 0.5).abs() < 0.03 * 0.5,
            "v = {v}: e = {}",
            impact.restitution
        );
    }
}

#[test]
fn rolling_resistance_decelerates_a_rolling_sphere_at_the_analytic_rate() {
    let (mu_r, g, dt) = (0.05, 9.81, 1e-4);
    let mesh = icosphere(RADIUS, 4).unwrap();
    let mut world = empty_world(dt, [0.0, 0.0, -g]);
    let s = add_shape(&mut world, &mesh);
    let m = add_material(&mut world, 1000.0, 0.01, 1000.0, 0.5, 0.5);
    world.model.materials[m as usize].law = hertz_law(3e6, 0.0);
    let ground = plane([4.0, 1.0], 8, [0.0; 3]).unwrap();
    add_obstacle(&mut world, &ground, Iso3::identity(), 0.002, 0.5, 0.5);
    world.model.obstacles[0].rolling_friction = mu_r;
    let r = world.model.shapes[s as usize].radius;
    let margin = 0.002 + 0.01 * 2.0 * r;
    // Start at the static Hertz sinkage with the no-slip spin of its lever arm.
    let p = add_particle(&mut world, s, m, [-1.0, 0.0, 0.0]) as usize;
    let (mass, inertia) = (
        world.state.bodies[p].mass,
        world.state.bodies[p].inertia[(1, 1)],
    );
    let k_h = 4.0 / 3.0 * 3e6 / (1.0 - POISSON * POISSON) * r.sqrt();
    let sink = (mass * g / k_h).powf(2.0 / 3.0);
    let gap = margin - sink;
    let lever = r + 0.5 * gap;
    let v0 = 0.5;
    {
        let b = &mut world.state.bodies[p];
        b.position.z = r + gap;
        b.velocity.x = v0;
        b.angular_velocity.y = v0 / lever;
    }
    // Rolling without slip under the couple μ_r·R*·m·g (R* = r, flat obstacle) and the
    // friction force at the contact point, `lever` below the centre:
    // a = −μ_r·R*·m·g·lever/(I + m·lever²).
    let truth = -mu_r * r * mass * g * lever / (inertia + mass * lever * lever);
    let (mut ex, mut det) = explicit(&world);
    let (mut ts, mut vs) = (Vec::new(), Vec::new());
    for step in 1..=6000 {
        ex.advance(&world.model, &mut world.state, &mut det, false)
            .unwrap();
        let t = step as f64 * dt;
        if t >= 0.1 {
            ts.push(t);
            vs.push(world.state.bodies[p].velocity.x);
        }
    }
    // Least-squares slope of v(t).
    let n = ts.len() as f64;
    let (mt, mv) = (ts.iter().sum::<f64>() / n, vs.iter().sum::<f64>() / n);
    let slope = ts
        .iter()
        .zip(&vs)
        .map(|(t, v)| (t - mt) * (v - mv))
        .sum::<f64>()
        / ts.iter().map(|t| (t - mt) * (t - mt)).sum::<f64>();
    let err = (slope - truth) / truth;
    println!(
        "rolling resistance: a = {slope:.5} m/s² (analytic {truth:.5}, {:+.2} %)",
        100.0 * err
    );
    assert!(err.abs() < 0.03, "a = {slope} vs {truth}");
    // It stayed on the ground and still rolls forward.
    let b = &world.state.bodies[p];
    assert!(b.velocity.x > 0.0 && b.position.z > r);
}
