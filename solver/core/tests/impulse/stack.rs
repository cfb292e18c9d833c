//! A resting stack of cubes on a floor under gravity (seed 004 Observation 4): with the
//! impulses solved implicitly, the stack neither bounces, jitters nor gains energy.

use crate::bodies::*;
use msdem_geom::math::Vec3;
use msdem_solver::contact::Contact;
use msdem_solver::integrator::lts::impulse::ImpulseSettings;
use msdem_solver::model::Other;
use msdem_solver::state::Body;

pub const SIDE: f64 = 0.1;

/// Four corner contacts of the face between `a` and the body below (another cube, or the
/// floor `z = 0` as obstacle 0), normal +z, in the middle of the gap.
pub fn face_contacts(bodies: &[Body], a: u32, out: &mut Vec<Contact>) {
    let top = &bodies[a as usize];
    let (below_z, b) = if a == 0 {
        (0.0, Other::Obstacle(0))
    } else {
        (
            bodies[a as usize - 1].position.z + 0.5 * SIDE,
            Other::Particle(a - 1),
        )
    };
    let dist = top.position.z - 0.5 * SIDE - below_z;
    for (sx, sy) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
        out.push(Contact {
            a,
            b,
            point: Vec3::new(
                top.position.x + sx * 0.5 * SIDE,
                top.position.y + sy * 0.5 * SIDE,
                below_z + 0.5 * dist,
            ),
            normal: Vec3::z(),
            dist,
            weight: 1.0,
            depth: 2.0 * EPS - dist,
        });
    }
}

fn energy(bodies: &[Body], g: f64) -> f64 {
    kinetic(bodies)
        + bodies
            .iter()
            .map(|b| b.mass * g * b.position.z)
            .sum::<f64>()
}

#[test]
fn a_resting_stack_neither_bounces_nor_jitters_nor_gains_energy() {
    let (g, dt, n) = (9.81, 5e-4, 5_u32);
    let margin = 2.0 * EPS;
    for e in [1.0, 0.5] {
        let model = model(&[(0.5, e)], &[(0.5, e)]);
        let mut bodies: Vec<_> = (0..n)
            .map(|i| {
                let z = 0.5 * SIDE + 0.8 * margin + i as f64 * (SIDE + 0.8 * margin);
                cube(0, 1.0, SIDE, Vec3::new(0.0, 0.0, z))
            })
            .collect();
        // Gauss–Seidel carries the load of a stack down to the floor slowly: with friction,
        // the default 200 sweeps leave about 2 % of the speed gravity adds in one step on
        // this 5-cube stack; 1,000 sweeps leave well below 1 %.
        let settings = ImpulseSettings {
            max_iterations: 1000,
            ..ImpulseSettings::default()
        };
        assert!(settings.resting_speed_m_s > g * dt);
        let e0 = energy(&bodies, g);
        let mut contacts = Vec::new();
        let mut top = Vec::new();
        for step in 0..4000 {
            contacts.clear();
            for a in 0..n {
                face_contacts(&bodies, a, &mut contacts);
            }
            let report = resolve(&model, &mut bodies, &contacts, &settings);
            assert!(
                step == 0 || report.active_contacts == 4 * n,
                "step {step}: {report:?}"
            );
            // Every cube at rest after the collision: no bounce, no spin.
            for b in &bodies {
                let (v, w) = (b.velocity.norm(), b.angular_velocity.norm() * 0.5 * SIDE);
                assert!(
                    v <= 1e-2 * g * dt && w <= 1e-2 * g * dt,
                    "step {step}: v {v}, ω·s/2 {w}"
                );
            }
            let energy_now = energy(&bodies, g);
            assert!(
                energy_now <= e0 + 1e-12 * e0.abs(),
                "step {step}: {e0} → {energy_now}"
            );
            // No contact sinks beyond the tolerated half halo by more than the steady
            // balance of one step's sinking (g·dt²) against the push (20 % per step).
            for c in &contacts {
                assert!(
                    c.dist >= 0.5 * margin - g * dt * dt / 0.2 * 1.01,
                    "step {step}: {}",
                    c.dist
                );
            }
            top.push(bodies[n as usize - 1].position.z);
            // Free flight under gravity until the next collision.
            for b in &mut bodies {
                b.velocity.z -= g * dt;
                b.position += b.velocity * dt;
            }
        }
        // Settled: the top cube moves by at most one step's sinking, periodically.
        let tail = &top[3000..];
        let (lo, hi) = tail
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), &z| (l.min(z), h.max(z)));
        assert!(
            hi - lo <= 1.01 * g * dt * dt,
            "top cube wanders {} m",
            hi - lo
        );
    }
}
