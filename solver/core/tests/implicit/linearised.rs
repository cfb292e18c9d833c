//! Implicit steps with the contacts linearised once per step (`picard.acceleration:
//! linearised`, docs/design.md §6) at ten times the explicit time step
//! ([`stable_dt_estimate`]): a single stiff impact converges in every step and rebounds
//! with the restitution the dashpot is calibrated for (midpoint rule; explicit Euler at the
//! explicit step as the second method), a resting box carries its weight, and a particle
//! that reaches a contact the start of the step did not see is caught by the acceptance
//! check within that step.

use crate::common::world::{add_material, add_obstacle, add_particle, add_shape, empty_world};
use msdem_geom::math::{Iso3, Quat, Vec3};
use msdem_mesh::generate::{cuboid, icosphere, plane};
use msdem_solver::contact::stability::stable_dt_estimate;
use msdem_solver::detect::Detector;
use msdem_solver::integrator::explicit::ExplicitEuler;
use msdem_solver::integrator::implicit::{
    ImplicitEuler, NoConvergence, PicardAcceleration, PicardParams, PicardScheme, PicardVariant,
};
use msdem_solver::world::World;

/// Linearised contacts with `scheme`; a step that does not converge stops the run.
pub(super) fn params(scheme: PicardScheme) -> PicardParams {
    PicardParams {
        scheme,
        acceleration: PicardAcceleration::Linearised,
        on_no_convergence: NoConvergence::Stop,
        ..PicardParams::default()
    }
}

/// What a run saw: per step the z force of the recorded contacts on particle 0, the
/// substeps, and the integrator's (corrections, check splits).
pub(super) struct Ran {
    pub(super) world: World,
    pub(super) forces: Vec<f64>,
    pub(super) substeps: u32,
    counts: (u64, u64),
}

/// Runs `world` at `factor` × the explicit step for `seconds` (or until `stop`).
pub(super) fn run(
    world: World,
    scheme: PicardScheme,
    factor: f64,
    seconds: f64,
    stop: impl FnMut(&World, f64) -> bool,
) -> Ran {
    run_with(world, &params(scheme), factor, seconds, stop)
}

/// [`run`] with the integrator's parameters `picard`.
pub(super) fn run_with(
    mut world: World,
    picard: &PicardParams,
    factor: f64,
    seconds: f64,
    mut stop: impl FnMut(&World, f64) -> bool,
) -> Ran {
    let scheme = picard.scheme;
    world.params.dt = factor * stable_dt_estimate(&world.model, &world.state.bodies);
    let p = &world.params;
    let mut im = ImplicitEuler::with(p.dt, p.gravity, picard, PicardVariant::Multiscale);
    let mut det = Detector::new(p);
    let steps = (seconds / world.params.dt).ceil() as usize;
    let (mut forces, mut substeps) = (Vec::new(), 0);
    for s in 0..steps {
        let out = im
            .advance(&world.model, &mut world.state, &mut det, true)
            .unwrap_or_else(|e| panic!("{scheme:?} step {s}: {e}"));
        assert!(out.converged);
        substeps += out.stats.substeps;
        let fz: f64 = out
            .contacts
            .iter()
            .map(|c| if c.a == 0 { c.force[2] } else { -c.force[2] })
            .sum();
        forces.push(fz);
        if stop(&world, fz) {
            break;
        }
    }
    Ran {
        world,
        forces,
        substeps,
        counts: im.linearised_counts(),
    }
}

/// An icosahedron (r = 0.1 m) falling vertex first onto a plane at `speed` m/s, no
/// gravity, `gap` \[m\] between its halo and the plane's: one merged contact below the
/// centre of mass.
pub(super) fn vertex_impact(e: f64, speed: f64, gap: f64) -> World {
    let mut world = empty_world(1e-5, [0.0; 3]);
    let mesh = icosphere(0.1, 0).unwrap();
    let s = add_shape(&mut world, &mesh);
    let m = add_material(&mut world, 1000.0, 0.01, 1000.0, 0.0, 1.0);
    let ground = plane([2.0, 2.0], 1, [0.0, 0.0, 0.0]).unwrap();
    add_obstacle(&mut world, &ground, Iso3::identity(), 0.002, 0.0, e);
    let id = add_particle(&mut world, s, m, [0.0; 3]) as usize;
    let v0 = Vec3::from(mesh.vertices[0]);
    let b = &mut world.state.bodies[id];
    b.orientation = Quat::rotation_between(&v0, &(-Vec3::z())).unwrap();
    b.position.z = 0.1 + b.epsilon + 0.002 + gap;
    b.velocity = Vec3::new(0.0, 0.0, -speed);
    world
}

/// Rebound ratio `v_out / v_in` of `world` with `scheme` at `factor` × the explicit step;
/// with the substeps of the run.
fn rebound(world: World, scheme: PicardScheme, factor: f64) -> (f64, u32) {
    rebound_with(world, &params(scheme), factor)
}

/// [`rebound`] with the integrator's parameters `picard`.
pub(super) fn rebound_with(world: World, picard: &PicardParams, factor: f64) -> (f64, u32) {
    let scheme = picard.scheme;
    let v0 = world.state.bodies[0].velocity.z;
    let mut touched = false;
    let ran = run_with(world, picard, factor, 2.0, |_, fz| {
        touched |= fz != 0.0;
        touched && fz == 0.0
    });
    assert!(touched, "{scheme:?}: no impact");
    (-ran.world.state.bodies[0].velocity.z / v0, ran.substeps)
}

/// The rebound of explicit Euler at a twentieth of its stable step (the reference).
pub(super) fn explicit_rebound(mut world: World) -> f64 {
    world.params.dt = 0.05 * stable_dt_estimate(&world.model, &world.state.bodies);
    let v0 = world.state.bodies[0].velocity.z;
    let p = &world.params;
    let mut ex = ExplicitEuler::with(p.dt, p.gravity, msdem_solver::detect::Search::Kept);
    let mut det = Detector::new(p);
    let mut touched = false;
    for _ in 0..2_000_000 {
        let out = ex
            .advance(&world.model, &mut world.state, &mut det, false)
            .expect("explicit step");
        let n = out.stats.contacts;
        touched |= n > 0;
        if touched && n == 0 {
            break;
        }
    }
    -world.state.bodies[0].velocity.z / v0
}

/// The vertex impact at ten times the explicit step converges at the full step in every
/// step (`Stop` would fail otherwise) and, with the midpoint rule and its discrete-gradient
/// spring, rebounds with the restitution `e` the dashpot is calibrated for — as explicit
/// Euler does at a twentieth of the explicit step (the second method). Implicit Euler
/// damps the one- or two-step impact to a small fraction of it (its numerical
/// dissipation, docs/design.md §6). The midpoint figure holds for this impact's entry
/// phase within the step and for `e ≥ 0.7`; over the phase, and for stronger damping, see
/// [`midpoint_rebound_against_the_entry_phase`].
#[test]
fn a_stiff_impact_converges_and_rebounds_with_its_restitution_at_ten_times_the_explicit_step() {
    for e in [0.7, 1.0] {
        let reference = explicit_rebound(vertex_impact(e, 1.0, 0.01));
        assert!(
            (reference / e - 1.0).abs() < 0.01,
            "explicit, e = {e}: {reference}"
        );
        let (r, substeps) = rebound(vertex_impact(e, 1.0, 0.01), PicardScheme::Midpoint, 10.0);
        assert_eq!(substeps, 0);
        assert!((r / e - 1.0).abs() < 0.02, "midpoint at 10×, e = {e}: {r}");
        assert!(
            (r - reference).abs() < 0.02 * e,
            "midpoint {r} vs explicit {reference}"
        );
        let (r, substeps) = rebound(vertex_impact(e, 1.0, 0.01), PicardScheme::Euler, 10.0);
        assert_eq!(substeps, 0);
        assert!(r < 0.2 * e, "Euler at 10×, e = {e}: {r}");
    }
}

/// A particle whose halo is out of reach at the start of a step and overlaps the plane's
/// by 60 % of the margin at its end in free flight: the start detection sees no contact,
/// so only the acceptance check at the end state can bring the impact into this step. It
/// must: the particle is decelerated within the step it reaches the plane (without the
/// check it would fly on at full speed into the halo), and the impact still rebounds with
/// its restitution.
#[test]
fn a_contact_reached_inside_the_step_is_caught_by_the_acceptance_check() {
    let probe = vertex_impact(1.0, 1.0, 0.0);
    let dt = 10.0 * stable_dt_estimate(&probe.model, &probe.state.bodies);
    let margin = probe.state.bodies[0].epsilon + 0.002;
    let speed = 2.0 * margin / dt;
    let gap = speed * dt - 0.6 * margin;
    assert!(gap > 0.0);
    let world = vertex_impact(1.0, speed, gap);
    let mut first = None;
    let ran = run(world, PicardScheme::Midpoint, 10.0, 1.0, |w, fz| {
        if first.is_none() {
            first = Some((w.state.bodies[0].velocity.z, fz));
        }
        w.state.bodies[0].velocity.z > 0.0 && fz == 0.0
    });
    let (vz, _) = first.unwrap();
    assert!(
        vz > -0.9 * speed,
        "not decelerated in the first step: {vz} of {speed}"
    );
    assert!(ran.counts.0 >= 1, "no correction: {:?}", ran.counts);
    let r = ran.world.state.bodies[0].velocity.z / speed;
    assert!((r - 1.0).abs() < 0.05, "rebound {r}");
}

/// A 0.2 m box resting flat on a plane under gravity, its halo overlapped by the static
/// sinkage.
pub(super) fn resting_box(friction: f64) -> World {
    let mut world = empty_world(1e-5, [0.0, 0.0, -9.81]);
    let mesh = cuboid([0.2; 3], 2).unwrap();
    let s = add_shape(&mut world, &mesh);
    let m = add_material(&mut world, 1000.0, 0.01, 1000.0, friction, 0.5);
    let ground = plane([2.0, 2.0], 1, [0.0, 0.0, 0.0]).unwrap();
    add_obstacle(&mut world, &ground, Iso3::identity(), 0.002, friction, 0.5);
    let id = add_particle(&mut world, s, m, [0.0; 3]) as usize;
    let b = &mut world.state.bodies[id];
    b.position.z = 0.1 + b.epsilon + 0.002 - 0.0005;
    world
}

/// Both schemes. The midpoint rule hardly damps the box's stiff bouncing mode at this step,
/// so its force settles more slowly and is held to 1 % after a second.
#[test]
fn resting_normal_force_equals_the_weight_at_ten_times_the_explicit_step() {
    for (scheme, seconds, tolerance, still) in [
        (PicardScheme::Euler, 0.5, 1e-3, 1e-4),
        (PicardScheme::Midpoint, 1.0, 1e-2, 1e-3),
    ] {
        let w = resting_box(0.5);
        let mg = w.state.bodies[0].mass * 9.81;
        let ran = run(w, scheme, 10.0, seconds, |_, _| false);
        assert_eq!(ran.substeps, 0, "{scheme:?}");
        let b = &ran.world.state.bodies[0];
        assert!(
            b.velocity.norm() < still,
            "{scheme:?}: not at rest ({} m/s)",
            b.velocity.norm()
        );
        let fz = *ran.forces.last().unwrap();
        assert!(
            (fz / mg - 1.0).abs() < tolerance,
            "{scheme:?}: {fz} N vs M·g = {mg} N"
        );
    }
}

/// Bit-identical states at one and at two rayon threads: the colliding pair of
/// `substep.rs` at twenty times the explicit step, every scheme (the candidates are
/// carried and summed in detection order).
#[test]
fn linearised_steps_are_deterministic_across_thread_counts() {
    use crate::common::implicit::colliding_pair;
    use msdem_solver::params::KernelChoice;
    for scheme in [
        PicardScheme::Euler,
        PicardScheme::Midpoint,
        PicardScheme::Theta,
        PicardScheme::Split,
    ] {
        let go = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut w = colliding_pair(2, KernelChoice::Exact, 0.4, 0.3, 0.5);
                w.params.dt = 20.0 * stable_dt_estimate(&w.model, &w.state.bodies);
                let p = &w.params;
                let params = PicardParams {
                    on_no_convergence: NoConvergence::Substep,
                    ..params(scheme)
                };
                let mut im =
                    ImplicitEuler::with(p.dt, p.gravity, &params, PicardVariant::Multiscale);
                let mut det = Detector::new(p);
                for _ in 0..8 {
                    im.advance(&w.model, &mut w.state, &mut det, false)
                        .unwrap_or_else(|e| panic!("{e}"));
                }
                w
            })
        };
        let (a, b) = (go(1), go(2));
        // The pair interacted within the 8 steps.
        let v0 = colliding_pair(2, KernelChoice::Exact, 0.4, 0.3, 0.5)
            .state
            .bodies[0]
            .velocity;
        let change = (a.state.bodies[0].velocity - v0).norm();
        assert!(
            change > 0.05 * v0.norm(),
            "{scheme:?}: no interaction ({change})"
        );
        for (p, q) in a.state.bodies.iter().zip(&b.state.bodies) {
            assert_eq!(p.position, q.position, "{scheme:?}");
            assert_eq!(p.velocity, q.velocity, "{scheme:?}");
            assert_eq!(p.orientation, q.orientation, "{scheme:?}");
            assert_eq!(p.angular_velocity, q.angular_velocity, "{scheme:?}");
        }
    }
}

/// Diagnostic behind docs/performance.md (issue 19, "Contacts linearised once per step",
/// *Restitution at 10×*): the vertex impact under the midpoint rule at ten times the
/// explicit step, its first touch moved through one step's travel (entry phase 0, 0.1, …,
/// 0.9 of Δt), for restitutions 0.1–0.7. Prints (rebound, substeps) per phase; NaN: the
/// run stopped (the acceptance check rejected a step even at Δt/16). The rebound depends
/// on the phase far more than the 3 % a per-pair damping calibration would need, and a
/// stronger dashpot does not lower it (docs/design.md §6).
#[test]
#[ignore = "diagnostic: the 10× rebound against the entry phase, run with --ignored --nocapture"]
fn midpoint_rebound_against_the_entry_phase() {
    for e in [0.1, 0.2, 0.4, 0.7] {
        let probe = vertex_impact(e, 1.0, 0.0);
        let dt = 10.0 * stable_dt_estimate(&probe.model, &probe.state.bodies);
        let picard = PicardParams {
            on_no_convergence: NoConvergence::Substep,
            ..params(PicardScheme::Midpoint)
        };
        // A phase whose run stops (the acceptance check at the deepest substep) is NaN.
        let rebounds: Vec<(f64, u32)> = (0..10)
            .map(|i| {
                let world = vertex_impact(e, 1.0, 0.01 + 0.1 * i as f64 * dt);
                std::panic::catch_unwind(|| rebound_with(world, &picard, 10.0))
                    .unwrap_or((f64::NAN, 0))
            })
            .collect();
        println!(
            "e = {e}: dt = {dt:.3e} s, (rebound, substeps) by entry phase 0, 0.1, …: {rebounds:.3?}"
        );
    }
}
