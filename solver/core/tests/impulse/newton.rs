//! The semismooth Newton solve of large clusters (issue 12, `impulse/direct/newton.rs`)
//! against independent truth: shaken blocks of cubes and impact and toppling clusters on
//! which the active sets' sorting cycles, checked by the contact conditions themselves
//! (`jammed::kkt_violation`, from the outgoing velocities and impulses alone) and the
//! momentum balance; and the dense direct solve on random jammed piles where both apply.

use crate::bodies::*;
use crate::jammed::{block, kkt_violation, pile, solve};
use msdem_geom::math::Vec3;
use msdem_solver::contact::Contact;
use msdem_solver::integrator::lts::impulse::{ImpulseSettings, NewtonUse};
use msdem_solver::model::Other;
use msdem_solver::state::Body;

/// Settings with the Newton solve used as `newton`, without the fallback
/// (`impulse/relaxed.rs`; these tests are about the direct solves).
fn with(newton: NewtonUse) -> ImpulseSettings {
    ImpulseSettings {
        newton,
        fallback_iterations: 0,
        ..ImpulseSettings::default()
    }
}

/// A `[nx, ny, nz]` block whose cubes move as a rigid body tipping about the floor edge
/// `x = x_max` (angular velocity `spin` [rad/s] about −y) plus a shear `shear` [m/s] per
/// layer along x: a toppling column whose layers slide on each other.
pub fn toppling(dims: [usize; 3], dt: f64, spin: f64, shear: f64) -> (Vec<Body>, Vec<Contact>) {
    let (mut bodies, contacts) = block(dims, dt, 0.0, 0);
    let x_max = bodies.iter().map(|b| b.position.x).fold(f64::MIN, f64::max) + 0.05;
    let pivot = Vec3::new(x_max, 0.0, 0.0);
    let omega = Vec3::new(0.0, -spin, 0.0);
    for b in &mut bodies {
        let layer = (b.position.z / 0.1016).floor();
        b.velocity += omega.cross(&(b.position - pivot)) + Vec3::new(shear * layer, 0.0, 0.0);
        b.angular_velocity = omega;
    }
    (bodies, contacts)
}

/// Largest speed of any body point at distance `reach` [m] from its centre [m/s].
fn speed_scale(bodies: &[Body], reach: f64) -> f64 {
    bodies
        .iter()
        .map(|b| b.velocity.norm() + b.angular_velocity.norm() * reach)
        .fold(0.0, f64::max)
}

/// Net impulse of the obstacle (floor) contacts on the bodies [N·s].
fn floor_impulse(contacts: &[Contact], impulses: &[Vec3]) -> Vec3 {
    contacts
        .iter()
        .zip(impulses)
        .filter(|(c, _)| matches!(c.b, Other::Obstacle(_)))
        .map(|(_, p)| *p)
        .sum()
}

/// Total linear momentum [kg·m/s].
fn momentum_of(bodies: &[Body]) -> Vec3 {
    bodies.iter().map(|b| b.velocity * b.mass).sum()
}

#[test]
fn newton_settles_shaken_blocks_and_toppling_columns_the_active_sets_do_not() {
    let dt = 5e-4;
    let mu = 0.5;
    let friction = model(&[(mu, 0.0)], &[(mu, 0.0)]);
    let mut cases: Vec<(String, Vec<Body>, Vec<Contact>)> = Vec::new();
    for (dims, noise) in [([2, 2, 5], 1e-3), ([1, 1, 20], 1e-3), ([2, 2, 13], 1e-4)] {
        for seed in 0..3 {
            let (b, c) = block(dims, dt, noise, seed);
            cases.push((format!("{dims:?} shaken by {noise:.0e}, seed {seed}"), b, c));
        }
    }
    for spin in [0.5, 2.0] {
        let (b, c) = toppling([2, 2, 5], 1e-3, spin, 0.0);
        cases.push((format!("2×2×5 toppling at {spin} rad/s"), b, c));
    }
    let mut failed_without = 0;
    for (name, bodies, contacts) in &cases {
        let (off, _, _) = solve(&friction, bodies, contacts, &with(NewtonUse::Off));
        let (report, out, impulses) = solve(&friction, bodies, contacts, &with(NewtonUse::Large));
        let kkt = kkt_violation(&out, contacts, &impulses, mu);
        let speed = speed_scale(bodies, 0.1).max(ImpulseSettings::default().resting_speed_m_s);
        // Momentum balance: what the bodies gained is what the floor gave.
        let gained = momentum_of(&out) - momentum_of(bodies);
        let floor = floor_impulse(contacts, &impulses);
        let balance = (gained - floor).norm() / floor.norm().max(1e-30);
        eprintln!(
            "{name}: {} points; active sets only: converged {}, {} sweeps; with Newton: \
             converged {}, {} sweeps, {} direct, conditions {kkt:.1e} m/s, momentum {balance:.1e}",
            contacts.len(),
            off.converged,
            off.iterations,
            report.converged,
            report.iterations,
            report.direct
        );
        if !off.converged {
            failed_without += 1;
        }
        // Solved: directly (every condition to the solver's tolerance, 1e-8 of the speed
        // scale, by its own measure; this independent check counts tiny impulses as zero
        // and allows 10×), or by the sweeps from the Newton iterate (their own stopping
        // rule, the impulses converged to 1e-8: conditions to 1e-6 of the speed scale).
        assert!(report.converged, "{name}: {report:?}");
        let bound = if report.direct > 0 { 1e-7 } else { 1e-6 };
        assert!(
            kkt <= bound * speed,
            "{name}: conditions violated by {kkt} m/s"
        );
        assert!(balance <= 1e-9, "{name}: momentum off by {balance}");
    }
    // The cases are ones the active sets alone do not settle (diagnostic of
    // `sparse::shaken_blocks_diagnostic`, docs/performance.md).
    assert!(
        failed_without >= 8,
        "only {failed_without} of {} cases fail without Newton",
        cases.len()
    );
}

#[test]
fn newton_and_dense_direct_solves_agree_on_random_jammed_piles() {
    let dt = 5e-4;
    let frictionless = model(&[(0.0, 0.0)], &[(0.0, 0.0)]);
    let mu = 0.5;
    let friction = model(&[(mu, 0.0)], &[(mu, 0.0)]);
    // Newton for every direct solve: body space from one point up, no active sets.
    let newton = ImpulseSettings {
        dense_max_points: 0,
        newton: NewtonUse::Instead,
        fallback_iterations: 0,
        ..ImpulseSettings::default()
    };
    let mut cases = Vec::new();
    for seed in 0..8 {
        let (b, c) = pile(3, dt, 4e-3, seed);
        cases.push((
            &frictionless,
            0.0,
            b,
            c,
            format!("sphere pile, seed {seed}"),
        ));
    }
    for (k, dims) in [[1, 1, 5], [2, 1, 2], [1, 1, 7], [2, 2, 1]]
        .iter()
        .enumerate()
    {
        for seed in 0..3 {
            let noise = if seed == 0 { 0.0 } else { 2e-3 };
            let (b, c) = block(*dims, dt, noise, 10 * k as u64 + seed);
            cases.push((&friction, mu, b, c, format!("block {dims:?}, seed {seed}")));
        }
    }
    let mut compared = 0;
    for (model, mu, bodies, contacts, name) in &cases {
        let defaults = with(NewtonUse::Large);
        let (rd, out_d, imp_d) = solve(model, bodies, contacts, &defaults);
        let (rn, out_n, imp_n) = solve(model, bodies, contacts, &newton);
        let speed = defaults.resting_speed_m_s;
        let kkt_n = kkt_violation(&out_n, contacts, &imp_n, *mu);
        let dv = out_d
            .iter()
            .zip(&out_n)
            .map(|(x, y)| {
                let spin = (x.angular_velocity - y.angular_velocity).norm() * 0.05;
                (x.velocity - y.velocity).norm().max(spin)
            })
            .fold(0.0, f64::max)
            / speed;
        let scale = imp_d.iter().map(|p| p.norm()).fold(0.0, f64::max);
        let dp = imp_d
            .iter()
            .zip(&imp_n)
            .map(|(x, y)| (x - y).norm())
            .fold(0.0, f64::max)
            / scale;
        eprintln!(
            "{name}: {} points, dense {} direct, Newton {} direct, velocities differ {dv:.1e}, \
             impulses {dp:.1e}, Newton's conditions {kkt_n:.1e} m/s",
            contacts.len(),
            rd.direct,
            rn.direct
        );
        if rn.direct > 0 {
            // The solver's tolerance (1e-8 of the speed) by its own measure; 10× here.
            assert!(kkt_n <= 1e-7 * speed, "{name}: Newton's conditions {kkt_n}");
        }
        if rd.direct > 0 && rn.direct > 0 {
            compared += 1;
            // The same conditions: the same velocities, to the tolerance both meet them to
            // (1e-8 of the speed scale; the dense solve's are exact to rounding); the same
            // impulses where they are unique (the sphere piles; cube faces' corner points
            // can trade impulse).
            assert!(dv <= 1e-7, "{name}: velocities differ by {dv}");
            if name.starts_with("sphere") {
                assert!(dp <= 1e-6, "{name}: impulses differ by {dp}");
            }
        }
    }
    assert!(
        compared >= 10,
        "only {compared} cases had direct solves in both"
    );
}
