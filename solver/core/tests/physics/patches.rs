//! Contact forces that do not depend on the triangulation (surface patches,
//! `msdem_solver::contact::patch`) and restitution of multi-point impacts (one dashpot
//! per body pair, `accumulate_forces`), against analytic truth.

use crate::common::world::*;
use msdem_mesh::generate::{cuboid, icosphere};
use msdem_solver::contact::force::{accumulate_forces, Wrench};
use msdem_solver::contact::pair::PairParams;
use msdem_solver::contact::patch::reference_area;
use msdem_solver::model::{ContactPoints, Other};
use msdem_solver::world::World;

/// Two 0.2 m cubes of `splits` segments per face edge, face to face at `gap` [m], `b`
/// shifted sideways by `shift` [m]; no gravity.
fn cube_pair(splits: u32, gap: f64, shift: f64, points: ContactPoints, e: f64) -> World {
    let mut w = empty_world(1e-5, [0.0, 0.0, 0.0]);
    w.model.contact_points = points;
    let mesh = cuboid([0.2, 0.2, 0.2], splits).expect("cube");
    let s = add_shape(&mut w, &mesh);
    let m = add_material(&mut w, 1000.0, 0.01, 1000.0, 0.0, e);
    add_particle(&mut w, s, m, [0.0, 0.0, 0.2 + gap]);
    add_particle(&mut w, s, m, [shift, 0.0, 0.0]);
    w
}

/// Total contact force on body 0 [N] at the current state.
fn force_on_a(w: &World) -> f64 {
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

fn spread(v: &[f64]) -> f64 {
    let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    (hi - lo) / (0.5 * (hi + lo))
}

#[test]
fn face_to_face_force_does_not_depend_on_the_triangulation() {
    let probe = cube_pair(1, 0.0, 0.0, ContactPoints::Patches, 1.0);
    let b = &probe.state.bodies[0];
    let margin = 2.0 * b.epsilon;
    for (gap, shift) in [
        (0.5 * margin, 0.0),
        (0.3 * margin, 0.0),
        (0.5 * margin, 0.037),
    ] {
        let mut patches = Vec::new();
        let mut seed = Vec::new();
        for splits in [1, 2, 4, 8] {
            patches.push(force_on_a(&cube_pair(
                splits,
                gap,
                shift,
                ContactPoints::Patches,
                1.0,
            )));
            seed.push(force_on_a(&cube_pair(
                splits,
                gap,
                shift,
                ContactPoints::Seed,
                1.0,
            )));
        }
        eprintln!(
            "gap {gap:.3e} m, shift {shift} m: patches {patches:?} N (spread {:.2} %), seed {seed:?} N",
            100.0 * spread(&patches)
        );
        assert!(
            spread(&patches) <= 0.05,
            "gap {gap}, shift {shift}: {patches:?}"
        );
        // The seed's points scale with the vertex count (the defect this model removes).
        assert!(spread(&seed) > 1.0, "{seed:?}");
        if shift == 0.0 {
            // Analytic: k·(A/A_ref)·(m − gap), k = K_s·sqrt(m_eff)/m, A_ref = π·R_eff·m.
            let w = cube_pair(1, gap, 0.0, ContactPoints::Patches, 1.0);
            let pp = PairParams::of(&w.model, &w.state.bodies, 0, Other::Particle(1));
            let r = w.state.bodies[0].radius;
            let truth = pp.stiffness() * 0.04 / reference_area(r, Some(r), margin) * (margin - gap);
            for f in &patches {
                assert!((f / truth - 1.0).abs() < 0.01, "{f} vs analytic {truth} N");
            }
        }
    }
}

/// Rebound ratio of a head-on impact of body 0 onto body 1 along −z at `v0` [m/s].
fn rebound(mut w: World, v0: f64) -> f64 {
    w.state.bodies[0].velocity.z = -v0;
    let (mut ex, mut det) = explicit(&w);
    let approach = -v0;
    let mut touched = false;
    for _ in 0..400_000 {
        let out = ex
            .advance(&w.model, &mut w.state, &mut det, false)
            .expect("step");
        touched |= out.stats.contacts > 0;
        if touched && out.stats.contacts == 0 {
            break;
        }
    }
    assert!(touched, "never touched");
    let rel = w.state.bodies[0].velocity.z - w.state.bodies[1].velocity.z;
    -rel / approach
}

#[test]
fn multi_point_face_impacts_rebound_with_the_requested_restitution() {
    for points in [ContactPoints::Seed, ContactPoints::Patches] {
        for e in [0.5, 0.8] {
            for v0 in [0.02, 0.2] {
                let mut w = cube_pair(2, 0.0, 0.0, points, e);
                let margin = 2.0 * w.state.bodies[0].epsilon;
                w.state.bodies[0].position.z += margin * 1.01;
                w.params.dt = 2e-5;
                let r = rebound(w, v0);
                assert!(
                    (r / e - 1.0).abs() < 0.03,
                    "{points:?} e = {e}, v0 = {v0}: {r}"
                );
            }
        }
    }
}

#[test]
fn unequal_sphere_pair_rebounds_with_the_requested_restitution() {
    for e in [0.5, 0.9] {
        for v0 in [0.05, 0.5] {
            let mut w = empty_world(1e-5, [0.0, 0.0, 0.0]);
            let small = add_shape(&mut w, &icosphere(0.1, 3).expect("sphere"));
            let big = add_shape(&mut w, &icosphere(0.2, 3).expect("sphere"));
            let m = add_material(&mut w, 1000.0, 0.01, 2000.0, 0.0, e);
            add_particle(&mut w, small, m, [0.0, 0.0, 0.0]);
            add_particle(&mut w, big, m, [0.0, 0.0, 0.0]);
            let margin = w.state.bodies[0].epsilon + w.state.bodies[1].epsilon;
            w.state.bodies[0].position.z = 0.3 + 1.01 * margin;
            let r = rebound(w, v0);
            assert!((r / e - 1.0).abs() < 0.03, "e = {e}, v0 = {v0}: {r}");
        }
    }
}
