//! The body-space sparse direct solve of large jammed clusters (issue 12,
//! `impulse/direct/sparse.rs`) against independent truth: the dense direct solve on the
//! same random jammed piles (both apply up to 32 points; forced sparse with
//! `dense_max_points: 0`), and on piles of hundreds of points the contact conditions
//! checked directly from the outgoing velocities and impulses (`jammed::kkt_violation`)
//! and the momentum balance of the floor.

use crate::bodies::*;
use crate::jammed::{block, kkt_violation, pile, solve};
use msdem_solver::contact::Contact;
use msdem_solver::integrator::lts::impulse::ImpulseSettings;
use msdem_solver::model::{Model, Other};
use msdem_solver::state::Body;

/// A test cluster: model, friction coefficient, bodies, contacts and its name.
type Case<'a> = (&'a Model, f64, Vec<Body>, Vec<Contact>, String);
/// A test cluster as [`Case`], with whether it comes to rest on the floor.
type RestingCase<'a> = (&'a Model, f64, Vec<Body>, Vec<Contact>, bool, String);

/// Sparse-only settings: every direct solve in body space (no fallback: these tests are
/// about the direct solves).
fn sparse() -> ImpulseSettings {
    ImpulseSettings {
        dense_max_points: 0,
        fallback_iterations: 0,
        ..ImpulseSettings::default()
    }
}

/// The default settings without the fallback (`impulse/relaxed.rs`).
fn direct_only() -> ImpulseSettings {
    ImpulseSettings {
        fallback_iterations: 0,
        ..ImpulseSettings::default()
    }
}

/// Largest difference of the impulses and of the outgoing velocities of two solves,
/// relative to the largest impulse and to the speed scale `speed` [m/s].
fn difference(
    (out_a, imp_a): (&[Body], &[msdem_geom::math::Vec3]),
    (out_b, imp_b): (&[Body], &[msdem_geom::math::Vec3]),
    speed: f64,
) -> (f64, f64) {
    let scale = imp_a.iter().map(|p| p.norm()).fold(0.0, f64::max);
    let impulses = imp_a
        .iter()
        .zip(imp_b)
        .map(|(x, y)| (x - y).norm())
        .fold(0.0, f64::max)
        / scale;
    let velocities = out_a
        .iter()
        .zip(out_b)
        .map(|(x, y)| {
            let spin = (x.angular_velocity - y.angular_velocity).norm() * 0.05;
            (x.velocity - y.velocity).norm().max(spin)
        })
        .fold(0.0, f64::max)
        / speed;
    (impulses, velocities)
}

/// Net floor impulse (z) against the weight gravity added in the step `dt`.
fn floor_balance(
    bodies: &[Body],
    contacts: &[Contact],
    impulses: &[msdem_geom::math::Vec3],
    dt: f64,
) -> (f64, f64) {
    let floor: f64 = contacts
        .iter()
        .zip(impulses)
        .filter(|(c, _)| matches!(c.b, Other::Obstacle(_)))
        .map(|(_, p)| p.z)
        .sum();
    let weight: f64 = bodies.iter().map(|b| b.mass * 9.81 * dt).sum();
    (floor, weight)
}

#[test]
fn sparse_and_dense_direct_solves_agree_on_random_jammed_piles() {
    let dt = 5e-4;
    let frictionless = model(&[(0.0, 0.0)], &[(0.0, 0.0)]);
    let mu = 0.5;
    let friction = model(&[(mu, 0.0)], &[(mu, 0.0)]);
    let mut cases: Vec<Case> = Vec::new();
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
            let (b, c) = block(*dims, dt, noise, 10 * k as u64 + seed);
            cases.push((
                &frictionless,
                0.0,
                b,
                c,
                format!("frictionless block {dims:?}, seed {seed}"),
            ));
        }
    }
    let mut compared = 0;
    for (model, mu, bodies, contacts, name) in &cases {
        assert!(contacts.len() <= 32, "{name}: {} points", contacts.len());
        let defaults = direct_only();
        let (rd, out_d, imp_d) = solve(model, bodies, contacts, &defaults);
        let (rs, out_s, imp_s) = solve(model, bodies, contacts, &sparse());
        let speed = defaults.resting_speed_m_s;
        let kkt_d = kkt_violation(&out_d, contacts, &imp_d, *mu);
        let kkt_s = kkt_violation(&out_s, contacts, &imp_s, *mu);
        let (dp, dv) = difference((&out_d, &imp_d), (&out_s, &imp_s), speed);
        eprintln!(
            "{name}: {} points, dense {} sweeps {} direct, sparse {} sweeps {} direct, \
             impulses differ {dp:.1e}, velocities {dv:.1e}, conditions {kkt_d:.1e} / {kkt_s:.1e} m/s",
            contacts.len(),
            rd.iterations,
            rd.direct,
            rs.iterations,
            rs.direct
        );
        if rs.direct > 0 {
            // A direct solve is taken only when it meets every condition.
            assert!(kkt_s <= 1e-8 * speed, "{name}: sparse conditions {kkt_s}");
        }
        if rd.direct > 0 && rs.direct > 0 {
            compared += 1;
            // The same conditions solved two ways: the same velocities; the same impulses
            // where they are unique (3-row sphere piles: 12 points on 12 in-plane degrees
            // of freedom). On cube faces the four corner points can trade impulse without
            // changing any velocity: there only the floor's total impulse is compared (the
            // two start from different sortings, and the dense solve's 1e-12
            // regularisation leaves rounding errors of ~1e-4 in that null space).
            assert!(dv <= 1e-9, "{name}: velocities differ by {dv}");
            if name.starts_with("sphere") {
                assert!(dp <= 1e-9, "{name}: impulses differ by {dp}");
            }
            let (floor_d, weight) = floor_balance(bodies, contacts, &imp_d, dt);
            let (floor_s, _) = floor_balance(bodies, contacts, &imp_s, dt);
            assert!(
                (floor_d - floor_s).abs() <= 1e-9 * weight,
                "{name}: floor {floor_d} vs {floor_s}"
            );
        }
    }
    assert!(
        compared >= 10,
        "only {compared} cases had direct solves in both"
    );
}

#[test]
fn large_jammed_stacks_meet_every_contact_condition() {
    let dt = 5e-4;
    let mu = 0.5;
    let friction = model(&[(mu, 0.0)], &[(mu, 0.0)]);
    let settings = ImpulseSettings::default();
    // A 50-cube column (200 points) and a 2×2×13 block (52 cubes, 416 points) at rest, and
    // 2×2×5 blocks (160 points) shaken by 0.1 mm/s: all beyond the dense limit of 32.
    // (Shaken 2×2×13 and 4×1×20 blocks, 2×2×5 blocks shaken by 1 mm/s or more, most shaken
    // 20-cube columns and frictionless hexagonal sphere piles of 16 rows are not settled
    // by the active sets, whose sorting then cycles: `shaken_blocks_diagnostic`,
    // docs/performance.md; the sweeps go on there.)
    let mut cases: Vec<RestingCase> = Vec::new();
    let (b, c) = block([1, 1, 50], dt, 0.0, 1);
    cases.push((&friction, mu, b, c, true, "50-cube column".into()));
    let (b, c) = block([2, 2, 13], dt, 0.0, 2);
    cases.push((&friction, mu, b, c, true, "2×2×13 block".into()));
    for seed in 0..3 {
        let (b, c) = block([2, 2, 5], dt, 1e-4, seed);
        cases.push((
            &friction,
            mu,
            b,
            c,
            false,
            format!("2×2×5 block, shaken, seed {seed}"),
        ));
    }
    for (model, mu, bodies, contacts, still, name) in &cases {
        assert!(contacts.len() >= 160, "{name}: {} points", contacts.len());
        let (report, out, impulses) = solve(model, bodies, contacts, &settings);
        let kkt = kkt_violation(&out, contacts, &impulses, *mu);
        let (floor, weight) = floor_balance(bodies, contacts, &impulses, dt);
        eprintln!(
            "{name}: {} points, {} sweeps, {} direct, conditions {kkt:.1e} m/s, floor {floor:.6e} \
             weight {weight:.6e} N·s",
            contacts.len(),
            report.iterations,
            report.direct
        );
        assert!(report.converged && report.direct > 0, "{name}: {report:?}");
        assert!(kkt <= 1e-8, "{name}: conditions violated by {kkt} m/s");
        if *still {
            // Everything comes to rest on the floor: it carries exactly the weight.
            assert!(
                (floor - weight).abs() <= 1e-9 * weight,
                "{name}: {floor} vs {weight}"
            );
        }
    }
}

#[test]
#[ignore = "diagnostic: which shaken blocks the direct solve settles, run with --ignored --nocapture"]
fn shaken_blocks_diagnostic() {
    let dt = 5e-4;
    let mu = 0.5;
    let friction = model(&[(mu, 0.0)], &[(mu, 0.0)]);
    let settings = ImpulseSettings::default();
    let only = std::env::var("SHAKEN_ONLY").ok();
    for dims in [[1, 1, 20], [2, 2, 5], [2, 2, 13], [4, 1, 20]] {
        if only.as_ref().is_some_and(|o| *o != format!("{dims:?}")) {
            continue;
        }
        for noise in [1e-4, 3e-4, 1e-3, 2e-3] {
            for seed in 0..3 {
                let (bodies, contacts) = block(dims, dt, noise, seed);
                let (report, out, impulses) = solve(&friction, &bodies, &contacts, &settings);
                let kkt = kkt_violation(&out, &contacts, &impulses, mu);
                eprintln!(
                    "{dims:?} noise {noise:.0e} seed {seed}: {} points, {} sweeps, {} direct, \
                     converged {}, conditions {kkt:.1e} m/s",
                    contacts.len(),
                    report.iterations,
                    report.direct,
                    report.converged
                );
            }
        }
    }
}
