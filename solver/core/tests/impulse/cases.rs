//! Single impacts against closed-form rigid-body results.

use crate::bodies::*;
use msdem_geom::math::Vec3;
use msdem_solver::error::StepError;
use msdem_solver::integrator::lts::impulse::{resolve_cluster, ImpulseScratch, ImpulseSettings};
use msdem_solver::model::Other;

/// 1-D impact with restitution e: `v1' = (m1 v1 + m2 v2 − m2 e (v1 − v2))/(m1 + m2)`,
/// `v2' = (m1 v1 + m2 v2 + m1 e (v1 − v2))/(m1 + m2)`.
fn one_d(m1: f64, m2: f64, v1: f64, v2: f64, e: f64) -> (f64, f64) {
    let p = m1 * v1 + m2 * v2;
    (
        (p - m2 * e * (v1 - v2)) / (m1 + m2),
        (p + m1 * e * (v1 - v2)) / (m1 + m2),
    )
}

#[test]
fn head_on_spheres_of_unequal_mass_leave_with_the_1d_velocities() {
    for &(m1, m2, v1, v2, e) in &[
        (1.0, 3.0, 2.0, -1.0, 0.7),
        (5.0, 0.2, 0.5, -4.0, 1.0),
        (2.0, 2.5, 1.0, 0.0, 0.3),
    ] {
        // Material restitution is averaged per pair: both materials carry e.
        let model = model(&[(0.0, e), (0.0, e)], &[]);
        let dir = Vec3::new(1.0, 2.0, -0.5).normalize();
        let r = 0.05;
        let mut bodies = vec![
            sphere(0, m1, r, Vec3::zeros(), dir * v1),
            sphere(1, m2, r, dir * (2.0 * r + 0.8 * EPS), dir * v2),
        ];
        // a = the second sphere, so the normal points from the first towards it.
        let contacts = [sphere_contact(&bodies, 1, 0)];
        let p0 = momentum(&bodies);
        let report = resolve(&model, &mut bodies, &contacts, &tight());
        let (w1, w2) = one_d(m1, m2, v1, v2, e);
        assert!(
            report.converged && report.active_contacts == 1,
            "{report:?}"
        );
        for (b, w) in bodies.iter().zip([w1, w2]) {
            let along = b.velocity.dot(&dir);
            assert!(
                close(along, w, 1e-9),
                "{along} vs {w} (m1 {m1}, m2 {m2}, e {e})"
            );
            assert!((b.velocity - dir * along).norm() <= 1e-12 * v1.abs().max(v2.abs()));
            assert!(
                b.angular_velocity.norm() <= 1e-12,
                "no spin from a central impact"
            );
        }
        let p1 = momentum(&bodies);
        assert!(
            (p1 - p0).norm() <= 1e-12 * (m1 * v1.abs() + m2 * v2.abs()),
            "{p0} → {p1}"
        );
    }
}

#[test]
fn a_sphere_dropped_onto_an_obstacle_rebounds_with_its_restitution() {
    let e = 0.6;
    let model = model(&[(0.0, 0.9)], &[(0.0, e)]);
    let r = 0.1;
    let v = Vec3::new(0.4, -0.3, -3.0);
    let mut bodies = vec![sphere(0, 2.0, r, Vec3::new(0.0, 0.0, r + 0.5 * EPS), v)];
    let contacts = [plane_contact(&bodies, 0, 0, 0.0)];
    resolve(&model, &mut bodies, &contacts, &tight());
    let w = bodies[0].velocity;
    assert!(close(w.z, -e * v.z, 1e-9), "{w}");
    assert!(
        close(w.x, v.x, 1e-12) && close(w.y, v.y, 1e-12),
        "frictionless: {w}"
    );
}

/// A sphere (mass m, radius R, `I = 2/5·m·R²`) hits the plane `z = 0` with velocity
/// `(vx, 0, −vn)` and spin `ω_y`, the contact point at lever arm `ℓ` below its centre (the
/// middle of the gap, `ℓ = R + dist/2`). The normal impulse is `m(1+e)vn`; the slip at the
/// contact is `u = vx − ℓ·ω_y` and the impulse that stops it `u/k_t`,
/// `k_t = 1/m + ℓ²/I`. The sphere sticks when `u/k_t ≤ μ·P_n` (then it leaves rolling:
/// `vx' = vx − u/(m·k_t)`, `ω_y' = ω_y + ℓ·u/(I·k_t)`), else it slides with
/// `P_t = −sign(u)·μ·P_n`: `vx' = vx + P_t/m`, `ω_y' = ω_y − ℓ·P_t/I`.
fn oblique(mu: f64, e: f64, vx: f64, vn: f64, spin_y: f64) {
    let (m, r) = (1.5, 0.08);
    let model = model(&[(0.5, 0.5)], &[(mu, e)]);
    let dist = 0.3 * EPS;
    let mut bodies = vec![sphere(
        0,
        m,
        r,
        Vec3::new(0.0, 0.0, r + dist),
        Vec3::new(vx, 0.0, -vn),
    )];
    bodies[0].angular_velocity = Vec3::new(0.0, spin_y, 0.0);
    let contacts = [plane_contact(&bodies, 0, 0, 0.0)];
    let before = bodies[0].clone();
    let report = resolve(&model, &mut bodies, &contacts, &tight());
    assert!(report.converged, "{report:?}");
    let b = &bodies[0];
    let (lever, inertia) = (r + 0.5 * dist, 0.4 * m * r * r);
    let kt = 1.0 / m + lever * lever / inertia;
    let pn = m * (1.0 + e) * vn;
    let u = vx - lever * spin_y;
    let stick = u.abs() / kt <= mu * pn;
    let (want_vx, want_wy) = if stick {
        (vx - u / (m * kt), spin_y + lever * u / (inertia * kt))
    } else {
        let pt = -u.signum() * mu * pn;
        (vx + pt / m, spin_y - lever * pt / inertia)
    };
    let case = format!("mu {mu} e {e} vx {vx} vn {vn} spin {spin_y}: stick {stick}");
    assert!(
        close(b.velocity.z, e * vn, 1e-9),
        "{case}: vz {}",
        b.velocity.z
    );
    assert!(
        close(b.velocity.x, want_vx, 1e-9),
        "{case}: vx {} vs {want_vx}",
        b.velocity.x
    );
    assert!(
        close(b.angular_velocity.y, want_wy, 1e-9),
        "{case}: ω_y {} vs {want_wy}",
        b.angular_velocity.y
    );
    assert!(
        b.velocity.y.abs() < 1e-12
            && b.angular_velocity.x.abs() < 1e-9
            && b.angular_velocity.z.abs() < 1e-9
    );
    // The friction impulse never exceeds μ times the normal impulse.
    let impulse = (b.velocity - before.velocity) * m;
    assert!(
        impulse.x.abs() <= mu * impulse.z * (1.0 + 1e-9),
        "{case}: {impulse}"
    );
    if stick {
        assert!(
            (b.velocity.x - lever * b.angular_velocity.y).abs() <= 1e-9 * vx.abs().max(1.0),
            "rolls"
        );
    } else {
        assert!(
            close(impulse.x.abs(), mu * impulse.z, 1e-9),
            "{case}: slides at the bound"
        );
    }
}

#[test]
fn oblique_impacts_stick_or_slide_as_the_rigid_body_solution() {
    oblique(0.8, 0.5, 2.0, 1.0, 0.0); // sticks: rolls away
    oblique(0.1, 0.5, 2.0, 1.0, 0.0); // slides
    oblique(0.3, 1.0, 1.0, 2.0, -30.0); // backspin, sticks
    oblique(0.05, 0.2, -1.0, 3.0, 40.0); // topspin against the motion, slides
    oblique(0.0, 0.7, 1.5, 1.0, 0.0); // frictionless
}

#[test]
fn oblique_sphere_sphere_impact_respects_the_friction_bound_and_momentum() {
    let mu = 0.2;
    let model = model(&[(mu, 0.8)], &[]);
    let r = 0.05;
    let n = Vec3::new(1.0, 0.3, 0.0).normalize();
    let mut bodies = vec![
        sphere(0, 1.0, r, Vec3::zeros(), Vec3::new(2.0, -1.0, 0.5)),
        sphere(0, 3.0, r, n * (2.0 * r + EPS), Vec3::new(-0.5, 1.0, 0.0)),
    ];
    let contacts = [sphere_contact(&bodies, 1, 0)];
    let (p0, l0) = (momentum(&bodies), angular_momentum(&bodies));
    let before = bodies.clone();
    resolve(&model, &mut bodies, &contacts, &tight());
    let impulse = (bodies[1].velocity - before[1].velocity) * bodies[1].mass;
    let pn = impulse.dot(&n);
    let pt = (impulse - n * pn).norm();
    assert!(pn > 0.0 && pt <= mu * pn * (1.0 + 1e-9), "{pn} {pt}");
    assert!((momentum(&bodies) - p0).norm() <= 1e-12 * p0.norm().max(1.0));
    let l1 = angular_momentum(&bodies);
    assert!(
        (l1 - l0).norm() <= 1e-12 * l0.norm().max(1.0),
        "angular momentum {l0} → {l1}"
    );
    // Normal restitution: the outgoing normal relative velocity of the contact points.
    let rel = |bs: &[msdem_solver::state::Body]| {
        let c = contacts[0].point;
        let va = bs[1].velocity + bs[1].angular_velocity.cross(&(c - bs[1].position));
        let vb = bs[0].velocity + bs[0].angular_velocity.cross(&(c - bs[0].position));
        (va - vb).dot(&n)
    };
    assert!(close(rel(&bodies), -0.8 * rel(&before), 1e-9));
}

/// Angular momentum about the origin [kg·m²/s].
fn angular_momentum(bodies: &[msdem_solver::state::Body]) -> Vec3 {
    bodies
        .iter()
        .map(|b| b.position.cross(&(b.velocity * b.mass)) + b.inertia * b.angular_velocity)
        .sum()
}

/// A row of N touching equal spheres, the first moving into the others at v. Solved
/// simultaneously (seed 004 §6: all contact points of the cluster at once), the row behind
/// the first sphere acts as one rigid body of mass (N−1)m: an elastic impact gives the
/// first sphere −(N−2)v/N and the others 2v/N, which conserves momentum and energy.
#[test]
fn newtons_cradle_conserves_momentum_and_at_e1_energy() {
    for n in [2_u32, 3, 5, 8] {
        for e in [1.0, 0.5] {
            let model = model(&[(0.3, e)], &[]);
            let (m, r, v) = (0.2, 0.02, 1.5);
            let gap = 0.6 * EPS;
            let mut bodies: Vec<_> = (0..n)
                .map(|i| {
                    let x = i as f64 * (2.0 * r + gap);
                    let vel = if i == 0 {
                        Vec3::new(v, 0.0, 0.0)
                    } else {
                        Vec3::zeros()
                    };
                    sphere(0, m, r, Vec3::new(x, 0.0, 0.0), vel)
                })
                .collect();
            let contacts: Vec<_> = (1..n).map(|i| sphere_contact(&bodies, i, i - 1)).collect();
            let (p0, k0) = (momentum(&bodies), kinetic(&bodies));
            let report = resolve(&model, &mut bodies, &contacts, &tight());
            assert!(report.converged, "{report:?}");
            assert_eq!(report.colours, if n > 2 { 2 } else { 1 });
            assert!(
                (momentum(&bodies) - p0).norm() <= 1e-12 * p0.norm(),
                "n {n} e {e}"
            );
            if e == 1.0 {
                let k1 = kinetic(&bodies);
                assert!(close(k1, k0, 1e-9), "n {n}: energy {k0} → {k1}");
                let nf = n as f64;
                let first = if n == 2 { 0.0 } else { -(nf - 2.0) / nf * v };
                assert!(
                    close(bodies[0].velocity.x, first, 1e-9),
                    "{}",
                    bodies[0].velocity.x
                );
                for b in &bodies[1..] {
                    assert!(
                        close(b.velocity.x, 2.0 * v / nf, 1e-9),
                        "n {n}: {}",
                        b.velocity.x
                    );
                }
            } else {
                assert!(kinetic(&bodies) < k0, "e < 1 dissipates");
            }
        }
    }
}

#[test]
fn the_separation_term_moves_positions_and_leaves_velocities_unchanged() {
    let model = model(&[(0.4, 0.9), (0.4, 0.9)], &[]);
    let r = 0.03;
    let margin = 2.0 * EPS;
    // Interpenetrating by 0.2 margins: violation = margin/2 + 0.2 margin.
    let place = |vel_a: Vec3, vel_b: Vec3| {
        vec![
            sphere(0, 1.0, r, Vec3::zeros(), vel_b),
            sphere(
                1,
                4.0,
                r,
                Vec3::new(2.0 * r - 0.2 * margin, 0.0, 0.0),
                vel_a,
            ),
        ]
    };
    for fraction in [0.25, 1.0] {
        let settings = ImpulseSettings {
            separation_fraction: fraction,
            ..tight()
        };
        // At rest relative to each other: no impulse at all, only the push.
        let mut bodies = place(Vec3::new(0.1, 0.2, 0.0), Vec3::new(0.1, 0.2, 0.0));
        let before = bodies.clone();
        let contacts = [sphere_contact(&bodies, 1, 0)];
        let report = resolve(&model, &mut bodies, &contacts, &settings);
        assert_eq!(report.active_contacts, 0);
        for (b, o) in bodies.iter().zip(&before) {
            assert_eq!(b.velocity, o.velocity);
            assert_eq!(b.angular_velocity, o.angular_velocity);
        }
        let shift = [
            bodies[0].position - before[0].position,
            bodies[1].position - before[1].position,
        ];
        let opened = shift[1].x - shift[0].x;
        assert!(close(opened, fraction * 0.7 * margin, 1e-9), "{opened}");
        assert!(
            (shift[0] * 1.0 + shift[1] * 4.0).norm() <= 1e-15,
            "centre of mass stays"
        );
        assert!(shift[0].y == 0.0 && shift[0].z == 0.0);

        // Approaching: the velocities are those without the separation term, bit for bit.
        let mut pushed = place(Vec3::new(-1.0, 0.0, 0.0), Vec3::new(0.5, 0.0, 0.0));
        let mut unpushed = pushed.clone();
        resolve(&model, &mut pushed, &contacts, &settings);
        let off = ImpulseSettings {
            separation_fraction: 0.0,
            ..settings.clone()
        };
        resolve(&model, &mut unpushed, &contacts, &off);
        for (p, u) in pushed.iter().zip(&unpushed) {
            assert_eq!(p.velocity, u.velocity);
            assert_eq!(p.angular_velocity, u.angular_velocity);
        }
        assert!(pushed[1].position.x > unpushed[1].position.x);
    }
}

#[test]
fn separated_contacts_and_contacts_within_half_the_halo_are_not_pushed() {
    let model = model(&[(0.0, 1.0)], &[(0.0, 1.0)]);
    let r = 0.05;
    for (dist, touching) in [(0.7 * 2.0 * EPS, true), (2.5 * EPS, false)] {
        let mut bodies = vec![sphere(
            0,
            1.0,
            r,
            Vec3::new(0.0, 0.0, r + dist),
            Vec3::new(0.0, 0.0, -1.0),
        )];
        let contacts = [plane_contact(&bodies, 0, 0, 0.0)];
        let before = bodies[0].position;
        let report = resolve(&model, &mut bodies, &contacts, &ImpulseSettings::default());
        assert_eq!(bodies[0].position, before);
        assert_eq!(report.active_contacts, u32::from(touching));
        let want = if touching { 1.0 } else { -1.0 };
        assert!(
            close(bodies[0].velocity.z, want, 1e-6),
            "{}",
            bodies[0].velocity.z
        );
    }
}

#[test]
fn non_finite_or_invalid_input_is_an_error_and_changes_nothing() {
    let model = model(&[(0.2, 0.5)], &[(0.2, 0.5)]);
    let r = 0.05;
    let good = vec![
        sphere(0, 1.0, r, Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0)),
        sphere(0, 1.0, r, Vec3::new(2.0 * r + EPS, 0.0, 0.0), Vec3::zeros()),
    ];
    let contact = sphere_contact(&good, 1, 0);
    let mut scratch = ImpulseScratch::default();
    let settings = ImpulseSettings::default();
    let mut check = |bodies: Vec<msdem_solver::state::Body>, contacts: Vec<_>, want: &str| {
        let mut after = bodies.clone();
        let err = resolve_cluster(&model, &mut after, &contacts, &settings, &mut scratch)
            .expect_err("bad input must fail");
        let text = err.to_string();
        assert!(text.contains(want), "{text}");
        for (a, b) in after.iter().zip(&bodies) {
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "bodies unchanged");
        }
    };
    let mut nan_velocity = good.clone();
    nan_velocity[1].velocity.y = f64::NAN;
    check(
        nan_velocity,
        vec![contact],
        "particle 1 has a non-finite velocity",
    );
    let mut inf_spin = good.clone();
    inf_spin[0].angular_velocity.z = f64::INFINITY;
    check(inf_spin, vec![contact], "non-finite angular velocity");
    let mut nan_normal = contact;
    nan_normal.normal.x = f64::NAN;
    check(good.clone(), vec![nan_normal], "non-finite contact normal");
    let mut nan_point = contact;
    nan_point.point.z = f64::NAN;
    check(good.clone(), vec![nan_point], "non-finite contact point");
    let mut out_of_range = contact;
    out_of_range.b = Other::Particle(7);
    check(
        good.clone(),
        vec![out_of_range],
        "contact 0: particle 7 of a cluster of 2",
    );
    let mut no_obstacle = contact;
    no_obstacle.b = Other::Obstacle(3);
    check(
        good.clone(),
        vec![contact, no_obstacle],
        "contact 1: obstacle 3 of 1",
    );
    let mut zero_normal = contact;
    zero_normal.normal = Vec3::zeros();
    check(good.clone(), vec![zero_normal], "not a unit vector");
    // Empty input is fine.
    let mut none: Vec<msdem_solver::state::Body> = Vec::new();
    let report = resolve_cluster(&model, &mut none, &[], &settings, &mut scratch).unwrap();
    assert!(report.converged && report.iterations == 0);
    // The error type is the step error the run loop reports.
    let _: fn(StepError) -> String = |e| e.to_string();
}
