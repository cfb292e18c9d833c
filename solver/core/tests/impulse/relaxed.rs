//! The fallback of the collision solve (issue 12, `impulse/relaxed.rs`: the convex
//! relaxation of the Coulomb problem by accelerated projected gradients) against
//! independent truth: impact and toppling clusters that the sweeps, the active sets and the
//! semismooth Newton solve leave unconverged, checked by the relaxed contact conditions
//! evaluated from the outgoing velocities and impulses alone, by the momentum balance, and
//! against a dense reference solve of the same convex program by plain projected gradients
//! on small clusters.

use crate::bodies::*;
use crate::jammed::{block, kkt_violation, solve};
use crate::newton::toppling;
use msdem_geom::math::Vec3;
use msdem_solver::contact::Contact;
use msdem_solver::integrator::lts::impulse::ImpulseSettings;
use msdem_solver::model::Other;
use msdem_solver::state::Body;
use nalgebra::{DMatrix, DVector};

/// Settings without the fallback.
fn without() -> ImpulseSettings {
    ImpulseSettings {
        fallback_iterations: 0,
        ..ImpulseSettings::default()
    }
}

/// Settings of the relaxation alone (no passes towards Coulomb, `impulse/coulomb.rs`).
fn relaxed_only() -> ImpulseSettings {
    ImpulseSettings {
        coulomb_passes: 0,
        ..ImpulseSettings::default()
    }
}

/// Relative contact velocity (world) of contact `c` in the velocities of `bodies`.
fn relative(bodies: &[Body], c: &Contact) -> Vec3 {
    let at = |b: Other| match b {
        Other::Particle(j) => {
            let body = &bodies[j as usize];
            body.velocity + body.angular_velocity.cross(&(c.point - body.position))
        }
        Other::Obstacle(_) => Vec3::zeros(),
    };
    at(Other::Particle(c.a)) - at(c.b)
}

/// Largest violation [m/s] of the relaxed conditions (cone complementarity, restitution 0)
/// by the outgoing velocities and the impulses: no approach; a loaded point inside its disc
/// neither separates nor slides; a loaded point on the rim slides against its impulse and
/// separates at `μ·|v_t|`; the impulse inside the cone. Also returns the largest normal
/// separation speed of loaded points (the relaxation's departure from Coulomb) and the
/// largest `μ·|v_t|` of loaded sliding points.
fn relaxed_violation(
    bodies: &[Body],
    contacts: &[Contact],
    impulses: &[Vec3],
    mu: f64,
) -> (f64, f64, f64) {
    let scale = impulses.iter().map(|p| p.norm()).fold(0.0, f64::max);
    let (mut worst, mut separation, mut slip) = (0.0_f64, 0.0_f64, 0.0_f64);
    for (c, p) in contacts.iter().zip(impulses) {
        let v = relative(bodies, c);
        let n = c.normal.normalize();
        let (vn, pn) = (n.dot(&v), n.dot(p));
        let (vt, pt) = (v - vn * n, p - pn * n);
        worst = worst.max(-vn);
        assert!(pn >= -1e-12 * scale, "negative normal impulse {pn}");
        assert!(
            pt.norm() <= mu * pn * (1.0 + 1e-9) + 1e-12 * scale,
            "outside the cone: |P_t| {} > μ·P_n {}",
            pt.norm(),
            mu * pn
        );
        if pn <= 1e-9 * scale {
            continue;
        }
        separation = separation.max(vn);
        if pt.norm() < mu * pn * (1.0 - 1e-6) {
            worst = worst.max(vn.abs()).max(vt.norm());
        } else {
            let dir = pt / pt.norm();
            let along = vt.dot(&dir);
            worst = worst
                .max(along.max(0.0))
                .max((vt - along * dir).norm())
                .max((vn - mu * vt.norm()).abs());
            slip = slip.max(mu * vt.norm());
        }
    }
    (worst, separation, slip)
}

/// Total linear momentum [kg·m/s] and the floor's impulse on the bodies [N·s].
fn balance(before: &[Body], after: &[Body], contacts: &[Contact], impulses: &[Vec3]) -> f64 {
    let p = |b: &[Body]| -> Vec3 { b.iter().map(|x| x.velocity * x.mass).sum() };
    let floor: Vec3 = contacts
        .iter()
        .zip(impulses)
        .filter(|(c, _)| matches!(c.b, Other::Obstacle(_)))
        .map(|(_, p)| *p)
        .sum();
    let scale = after
        .iter()
        .map(|x| (x.velocity * x.mass).norm())
        .fold(floor.norm(), f64::max);
    ((p(after) - p(before)) - floor).norm() / scale
}

/// Impact and toppling clusters: a 2×2×5 block toppling about a floor edge while its layers
/// slide on each other, and a top cube of a block thrown down and sideways at 1–5 m/s.
pub fn hard_cases() -> Vec<(String, Vec<Body>, Vec<Contact>)> {
    let dt = 1e-3;
    let mut cases = Vec::new();
    for (spin, shear) in [(0.5, 0.05), (2.0, 0.2), (1.0, 0.5)] {
        let (b, c) = toppling([2, 2, 5], dt, spin, shear);
        cases.push((
            format!("2×2×5 toppling at {spin} rad/s, layers sliding at {shear} m/s"),
            b,
            c,
        ));
    }
    for (dims, speed) in [([2, 2, 3], 1.0), ([2, 2, 4], 3.0), ([3, 2, 4], 5.0)] {
        let (mut b, c) = block(dims, dt, 1e-3, 7);
        let top = b.len() - 1;
        b[top].velocity += Vec3::new(0.4 * speed, 0.2 * speed, -speed);
        b[top].angular_velocity += Vec3::new(0.0, 3.0 * speed, 0.0);
        cases.push((
            format!("{dims:?} block, top cube thrown at {speed} m/s"),
            b,
            c,
        ));
    }
    cases
}

#[test]
fn the_fallback_settles_impact_and_toppling_clusters_the_other_solvers_do_not() {
    let mu = 0.5;
    let friction = model(&[(mu, 0.0)], &[(mu, 0.0)]);
    let mut failed_without = 0;
    for (name, bodies, contacts) in &hard_cases() {
        let (off, out_off, imp_off) = solve(&friction, bodies, contacts, &without());
        let (report, out, impulses) = solve(&friction, bodies, contacts, &relaxed_only());
        let speed = bodies
            .iter()
            .map(|b| b.velocity.norm() + b.angular_velocity.norm() * 0.1)
            .fold(ImpulseSettings::default().resting_speed_m_s, f64::max);
        let (relaxed, separation, slip) = relaxed_violation(&out, contacts, &impulses, mu);
        let coulomb = kkt_violation(&out, contacts, &impulses, mu);
        let coulomb_off = kkt_violation(&out_off, contacts, &imp_off, mu);
        let momentum = balance(bodies, &out, contacts, &impulses);
        eprintln!(
            "{name}: {} points; without fallback: converged {}, Coulomb conditions {coulomb_off:.1e} m/s; \
             with: converged {}, {} relaxed in {} steps, relaxed conditions {relaxed:.1e} m/s, \
             Coulomb {coulomb:.1e} m/s (report {:.1e}), separation {separation:.1e} m/s, μ·|v_t| {slip:.1e} m/s, \
             momentum {momentum:.1e}",
            contacts.len(),
            off.converged,
            report.converged,
            report.relaxed,
            report.relaxed_iterations,
            report.complementarity
        );
        if !off.converged {
            failed_without += 1;
        }
        assert!(report.converged, "{name}: {report:?}");
        assert!(momentum <= 1e-12, "{name}: momentum off by {momentum}");
        if report.relaxed > 0 {
            // The relaxed conditions to the fallback's tolerance (1e-6 of its speed scale,
            // by its own measure); 10× here for the independent evaluation.
            let tolerance = 10.0 * ImpulseSettings::default().fallback_tolerance * speed;
            assert!(
                relaxed <= tolerance,
                "{name}: relaxed conditions {relaxed} m/s"
            );
            // Where it differs from Coulomb it is by the separation of sliding points.
            assert!(
                coulomb <= separation.max(slip) + tolerance,
                "{name}: Coulomb {coulomb} beyond the separation {separation}"
            );
        } else {
            assert!(coulomb <= 1e-6 * speed, "{name}: Coulomb {coulomb} m/s");
        }
    }
    assert!(
        failed_without >= 4,
        "only {failed_without} cases fail without the fallback"
    );
}

/// Outgoing body velocities `[v, ω]` of the relaxed problem of a cluster without
/// restitution, solved densely and slowly: the Delassus matrix `W = J·M⁻¹·Jᵀ` assembled from
/// the contact geometry (local bases of this function's own choosing: the cone is
/// isotropic in the tangent plane), then plain projected gradients with the fixed step
/// `1/λ_max(W)` (from an eigen-decomposition) for `steps` steps from zero impulses.
fn dense_reference(bodies: &[Body], contacts: &[Contact], mu: f64, steps: usize) -> Vec<[Vec3; 2]> {
    let nb = bodies.len();
    let m = contacts.len();
    let mut j = DMatrix::<f64>::zeros(3 * m, 6 * nb);
    for (i, c) in contacts.iter().enumerate() {
        let n = c.normal.normalize();
        let helper = if n.x.abs() < 0.6 {
            Vec3::x()
        } else {
            Vec3::y()
        };
        let t1 = n.cross(&helper).normalize();
        let t2 = n.cross(&t1);
        for (k, e) in [n, t1, t2].iter().enumerate() {
            let mut put = |body: u32, sign: f64| {
                let r = c.point - bodies[body as usize].position;
                let moment = r.cross(e);
                for l in 0..3 {
                    j[(3 * i + k, 6 * body as usize + l)] += sign * e[l];
                    j[(3 * i + k, 6 * body as usize + 3 + l)] += sign * moment[l];
                }
            };
            put(c.a, 1.0);
            if let Other::Particle(b) = c.b {
                put(b, -1.0);
            }
        }
    }
    let mut minv = DMatrix::<f64>::zeros(6 * nb, 6 * nb);
    let mut u0 = DVector::<f64>::zeros(6 * nb);
    for (k, b) in bodies.iter().enumerate() {
        let inv_inertia = b.world_inv_inertia();
        for l in 0..3 {
            minv[(6 * k + l, 6 * k + l)] = 1.0 / b.mass;
            u0[6 * k + l] = b.velocity[l];
            u0[6 * k + 3 + l] = b.angular_velocity[l];
            for q in 0..3 {
                minv[(6 * k + 3 + l, 6 * k + 3 + q)] = inv_inertia[(l, q)];
            }
        }
    }
    let w = &j * &minv * j.transpose();
    let v0 = &j * &u0;
    let largest = w.clone().symmetric_eigen().eigenvalues.max();
    let step = 1.0 / largest;
    let mut p = DVector::<f64>::zeros(3 * m);
    for _ in 0..steps {
        let g = &w * &p + &v0;
        p -= &g * step;
        for i in 0..m {
            let (pn, p1, p2) = (p[3 * i], p[3 * i + 1], p[3 * i + 2]);
            let t = (p1 * p1 + p2 * p2).sqrt();
            let q = if t <= mu * pn {
                [pn, p1, p2]
            } else if mu * t <= -pn {
                [0.0; 3]
            } else {
                let n = (pn + mu * t) / (1.0 + mu * mu);
                [n, p1 * mu * n / t, p2 * mu * n / t]
            };
            for k in 0..3 {
                p[3 * i + k] = q[k];
            }
        }
    }
    let u = u0 + minv * j.transpose() * p;
    (0..nb)
        .map(|k| {
            [
                Vec3::new(u[6 * k], u[6 * k + 1], u[6 * k + 2]),
                Vec3::new(u[6 * k + 3], u[6 * k + 4], u[6 * k + 5]),
            ]
        })
        .collect()
}

#[test]
fn the_fallback_matches_a_dense_projected_gradient_solve_of_the_relaxed_problem() {
    let mu = 0.5;
    let friction = model(&[(mu, 0.0)], &[(mu, 0.0)]);
    // The fallback alone: one sweep, no direct solve, then the relaxation to a tight
    // tolerance.
    let settings = ImpulseSettings {
        max_iterations: 1,
        newton: msdem_solver::integrator::lts::impulse::NewtonUse::Off,
        fallback_iterations: 200_000,
        fallback_tolerance: 1e-10,
        coulomb_passes: 0,
        ..ImpulseSettings::default()
    };
    let dt = 1e-3;
    let mut cases: Vec<(String, Vec<Body>, Vec<Contact>)> = Vec::new();
    for (spin, shear) in [(0.5, 0.05), (2.0, 0.3)] {
        let (b, c) = toppling([1, 1, 3], dt, spin, shear);
        cases.push((
            format!("3-cube column toppling at {spin} rad/s, shear {shear} m/s"),
            b,
            c,
        ));
    }
    for (dims, speed) in [([2, 1, 2], 1.0), ([1, 2, 2], 4.0)] {
        let (mut b, c) = block(dims, dt, 1e-3, 3);
        let top = b.len() - 1;
        b[top].velocity += Vec3::new(0.4 * speed, -0.2 * speed, -speed);
        b[top].angular_velocity += Vec3::new(2.0 * speed, 0.0, 0.0);
        cases.push((
            format!("{dims:?} block, top cube thrown at {speed} m/s"),
            b,
            c,
        ));
    }
    let mut sliding = 0;
    for (name, bodies, contacts) in &cases {
        let (report, out, impulses) = solve(&friction, bodies, contacts, &settings);
        let reference = dense_reference(bodies, contacts, mu, 400_000);
        let speed = bodies
            .iter()
            .map(|b| b.velocity.norm() + b.angular_velocity.norm() * 0.1)
            .fold(0.0, f64::max);
        let differ = out
            .iter()
            .zip(&reference)
            .map(|(b, [v, w])| {
                (b.velocity - v)
                    .norm()
                    .max((b.angular_velocity - w).norm() * 0.05)
            })
            .fold(0.0, f64::max)
            / speed;
        let (relaxed, separation, slip) = relaxed_violation(&out, contacts, &impulses, mu);
        eprintln!(
            "{name}: {} points, {} fallback steps, converged {}; velocities differ from the \
             dense solve by {differ:.1e} of the speed {speed:.2} m/s; relaxed conditions \
             {relaxed:.1e} m/s, separation {separation:.1e} m/s, μ·|v_t| {slip:.1e} m/s",
            contacts.len(),
            report.relaxed_iterations,
            report.converged
        );
        assert!(report.converged && report.relaxed > 0, "{name}: {report:?}");
        assert!(
            differ <= 1e-6,
            "{name}: velocities differ by {differ} of the speed"
        );
        assert!(
            relaxed <= 1e-8 * speed,
            "{name}: relaxed conditions {relaxed} m/s"
        );
        if slip > 1e-3 * speed {
            sliding += 1;
        }
    }
    // The cases exercise the relaxation: points slide (and so separate at μ·|v_t|).
    assert!(sliding >= 2, "only {sliding} cases with sliding points");
}

#[test]
fn the_fallback_gives_the_same_bits_at_one_and_two_threads() {
    let mu = 0.5;
    let friction = model(&[(mu, 0.3)], &[(mu, 0.3)]);
    // 4×4×5 cubes toppling while their layers slide: colours of more than 64 points (the
    // sweeps' parallel update) and a relaxed solve.
    let (bodies, contacts) = toppling([4, 4, 5], 1e-3, 2.0, 0.3);
    let go = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| solve(&friction, &bodies, &contacts, &ImpulseSettings::default()))
    };
    let (r1, b1, p1) = go(1);
    let (r2, b2, p2) = go(2);
    eprintln!("{} points: {r1:?}", contacts.len());
    assert!(r1.relaxed > 0, "the fallback did not run: {r1:?}");
    assert_eq!(r1, r2);
    let bits = |b: &[Body], p: &[Vec3]| -> Vec<u64> {
        b.iter()
            .flat_map(|x| {
                x.velocity
                    .iter()
                    .chain(x.angular_velocity.iter())
                    .chain(x.position.iter())
            })
            .chain(p.iter().flat_map(|v| v.iter()))
            .map(|v| v.to_bits())
            .collect()
    };
    assert_eq!(bits(&b1, &p1), bits(&b2, &p2));
}
