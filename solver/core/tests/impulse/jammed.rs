//! Jammed clusters (issue 12): blocks of cubes of mass ratio 16 pressed against each other
//! and a floor, every contact resting, each face four corner points — the statically
//! indeterminate clusters of 10–100 contact points on which the sequential impulses used to
//! miss their tolerance. The solutions are checked against the conditions that define them
//! (seed 004 §6), evaluated here from the outgoing velocities and the impulses alone: no
//! approach (`v_n ≥ 0`), complementarity (`P_n > 0 ⇒ v_n = 0`), the Coulomb disc
//! (`|P_t| ≤ μ·P_n`), sticking inside it (`v_t = 0`) and sliding against the impulse on its
//! rim (`P_t ∥ −v_t`).

use crate::bodies::*;
use msdem_geom::math::Vec3;
use msdem_solver::contact::Contact;
use msdem_solver::integrator::lts::impulse::{
    resolve_cluster_warm, ImpulseReport, ImpulseScratch, ImpulseSettings,
};
use msdem_solver::model::{Model, Other};
use msdem_solver::state::Body;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Cube side \[m\].
const SIDE: f64 = 0.1;
/// Gap between neighbouring faces: inside the margin 2·EPS \[m\].
const GAP: f64 = 1.6 * EPS;

/// A block of `nx × ny × nz` axis-aligned cubes on the floor `z = 0` (obstacle 0), masses 1
/// and 16 kg in a checker pattern, falling at `g·dt` plus a random velocity and spin of up
/// to `noise` m/s (seeded); the four corner contacts of every touching face pair and of the
/// bottom layer with the floor.
pub fn block(dims: [usize; 3], dt: f64, noise: f64, seed: u64) -> (Vec<Body>, Vec<Contact>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let [nx, ny, nz] = dims;
    let pitch = SIDE + GAP;
    let index = |i: usize, j: usize, k: usize| (k * ny + j) * nx + i;
    let mut bodies = Vec::new();
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let mass = if (i + j + k) % 2 == 0 { 1.0 } else { 16.0 };
                let centre = Vec3::new(
                    i as f64 * pitch,
                    j as f64 * pitch,
                    0.5 * SIDE + GAP + k as f64 * pitch,
                );
                let mut b = cube(0, mass, SIDE, centre);
                let mut jitter = || Vec3::from_fn(|_, _| rng.gen_range(-noise..=noise));
                b.velocity = Vec3::new(0.0, 0.0, -9.81 * dt) + jitter();
                b.angular_velocity = jitter() / (0.5 * SIDE);
                bodies.push(b);
            }
        }
    }
    let mut contacts = Vec::new();
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let a = index(i, j, k) as u32;
                if k == 0 {
                    face(&bodies, a, Other::Obstacle(0), 2, &mut contacts);
                }
                for (axis, below) in [
                    (0, (i > 0).then(|| index(i - 1, j, k))),
                    (1, (j > 0).then(|| index(i, j - 1, k))),
                    (2, (k > 0).then(|| index(i, j, k - 1))),
                ] {
                    if let Some(b) = below {
                        face(&bodies, a, Other::Particle(b as u32), axis, &mut contacts);
                    }
                }
            }
        }
    }
    (bodies, contacts)
}

/// The four corner contacts of cube `a`'s face towards `b` (a cube at lower coordinate
/// along `axis`, or the floor `z = 0`), normal `+axis` (from b towards a).
fn face(bodies: &[Body], a: u32, b: Other, axis: usize, out: &mut Vec<Contact>) {
    let pa = bodies[a as usize].position;
    let face_b = match b {
        Other::Particle(j) => bodies[j as usize].position[axis] + 0.5 * SIDE,
        Other::Obstacle(_) => 0.0,
    };
    let dist = pa[axis] - 0.5 * SIDE - face_b;
    let (u, w) = ((axis + 1) % 3, (axis + 2) % 3);
    for (su, sw) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
        let mut point = pa;
        point[axis] = face_b + 0.5 * dist;
        point[u] += su * 0.5 * SIDE;
        point[w] += sw * 0.5 * SIDE;
        let mut normal = Vec3::zeros();
        normal[axis] = 1.0;
        out.push(Contact {
            a,
            b,
            point,
            normal,
            dist,
            weight: 1.0,
            depth: 2.0 * EPS - dist,
        });
    }
}

/// Largest violation [m/s] of the conditions of a resting solve (module docs) by the
/// outgoing velocities of `bodies` and the `impulses` (on `a`) of `contacts` with friction
/// `mu`: approach speed, normal speed of a pushing point, tangential speed of a sticking
/// point, and for a point on the rim of its disc the part of `v_t` not opposed to `P_t`.
/// Impulses below `1e-9` of the largest count as zero, "on the rim" is within `1e-6`.
pub fn kkt_violation(bodies: &[Body], contacts: &[Contact], impulses: &[Vec3], mu: f64) -> f64 {
    let scale = impulses.iter().map(|p| p.norm()).fold(0.0, f64::max);
    let point_velocity = |b: Other, p: &Vec3| match b {
        Other::Particle(j) => {
            let body = &bodies[j as usize];
            body.velocity + body.angular_velocity.cross(&(p - body.position))
        }
        Other::Obstacle(_) => Vec3::zeros(),
    };
    let mut worst = 0.0_f64;
    for (c, p) in contacts.iter().zip(impulses) {
        let v = point_velocity(Other::Particle(c.a), &c.point) - point_velocity(c.b, &c.point);
        let n = c.normal.normalize();
        let (vn, pn) = (n.dot(&v), n.dot(p));
        let (vt, pt) = (v - vn * n, p - pn * n);
        worst = worst.max(-vn);
        assert!(pn >= -1e-12 * scale, "negative normal impulse {pn}");
        assert!(
            pt.norm() <= mu * pn * (1.0 + 1e-9) + 1e-12 * scale,
            "outside the friction disc: |P_t| {} > μ·P_n {}",
            pt.norm(),
            mu * pn
        );
        if pn <= 1e-9 * scale {
            // Open: no impulse, any tangential motion.
            continue;
        }
        worst = worst.max(vn.abs());
        if mu == 0.0 {
            // Frictionless: any tangential motion.
            continue;
        }
        if pt.norm() < mu * pn * (1.0 - 1e-6) {
            worst = worst.max(vt.norm());
        } else {
            // Sliding: v_t = −λ·P̂_t with λ ≥ 0.
            let dir = pt / pt.norm();
            let along = vt.dot(&dir);
            worst = worst.max(along.max(0.0)).max((vt - along * dir).norm());
        }
    }
    worst
}

/// Solves the cluster cold with `settings`; returns the report, the outgoing bodies and the
/// impulses.
pub fn solve(
    model: &Model,
    bodies: &[Body],
    contacts: &[Contact],
    settings: &ImpulseSettings,
) -> (ImpulseReport, Vec<Body>, Vec<Vec3>) {
    let mut out = bodies.to_vec();
    let mut impulses = Vec::new();
    let report = resolve_cluster_warm(
        model,
        &mut out,
        contacts,
        &[],
        settings,
        &mut ImpulseScratch::default(),
        &mut impulses,
    )
    .expect("resolve");
    (report, out, impulses)
}

/// A hexagonal pile of frictionless spheres (radius 0.05 m, masses 1 or 16 kg at random)
/// in the x–z plane on the floor `z = 0`: `rows` spheres in the bottom row, one fewer in
/// each row above, every sphere resting in the groove of two below it; all falling at
/// `g·dt` plus a random velocity of up to `noise` m/s. Returns the bodies and the contacts
/// (normals through the centres, so no impulse turns a sphere).
pub fn pile(rows: usize, dt: f64, noise: f64, seed: u64) -> (Vec<Body>, Vec<Contact>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let r = 0.05;
    let d = 2.0 * r + GAP;
    let mut bodies = Vec::new();
    let mut layer_start = Vec::new();
    for k in 0..rows {
        layer_start.push(bodies.len());
        for i in 0..rows - k {
            let centre = Vec3::new(
                i as f64 * d + 0.5 * k as f64 * d,
                0.0,
                r + GAP + k as f64 * d * 0.75_f64.sqrt(),
            );
            let mass = if rng.gen_bool(0.5) { 1.0 } else { 16.0 };
            let jitter = Vec3::from_fn(|_, _| rng.gen_range(-noise..=noise));
            bodies.push(sphere(
                0,
                mass,
                r,
                centre,
                Vec3::new(0.0, 0.0, -9.81 * dt) + jitter,
            ));
        }
    }
    let mut contacts = Vec::new();
    for k in 0..rows {
        for i in 0..rows - k {
            let a = (layer_start[k] + i) as u32;
            if k == 0 {
                contacts.push(plane_contact(&bodies, a, 0, 0.0));
            } else {
                let below = layer_start[k - 1] + i;
                contacts.push(sphere_contact(&bodies, a, below as u32));
                contacts.push(sphere_contact(&bodies, a, below as u32 + 1));
            }
            if i > 0 {
                contacts.push(sphere_contact(&bodies, a, a - 1));
            }
        }
    }
    (bodies, contacts)
}

/// Brute-force frictionless solve of a sphere cluster (normals through the centres): the
/// linear complementarity problem `v = v₀ + W·P ≥ 0, P ≥ 0, Pᵀv = 0` over the contact
/// normals, by trying every set of pushing points (`2^m`) with a dense solve of its
/// equations. Returns the outgoing linear velocities of the bodies.
fn brute_force_frictionless(bodies: &[Body], contacts: &[Contact]) -> Vec<Vec3> {
    let m = contacts.len();
    assert!(m <= 16, "brute force over 2^{m} sets");
    // Signed (body, normal) ends of each contact.
    let ends = |c: &Contact| {
        let mut e = vec![(c.a as usize, c.normal)];
        if let Other::Particle(j) = c.b {
            e.push((j as usize, -c.normal));
        }
        e
    };
    let relative = |velocity: &[Vec3], c: &Contact| -> f64 {
        ends(c).iter().map(|&(k, n)| n.dot(&velocity[k])).sum()
    };
    let v0: Vec<Vec3> = bodies.iter().map(|b| b.velocity).collect();
    let mut w = nalgebra::DMatrix::<f64>::zeros(m, m);
    for (i, ci) in contacts.iter().enumerate() {
        for (j, cj) in contacts.iter().enumerate() {
            for &(k, ni) in &ends(ci) {
                for &(l, nj) in &ends(cj) {
                    if k == l {
                        w[(i, j)] += ni.dot(&nj) / bodies[k].mass;
                    }
                }
            }
        }
    }
    let q: Vec<f64> = contacts.iter().map(|c| relative(&v0, c)).collect();
    let mut found: Option<Vec<Vec3>> = None;
    for set in 0_u32..(1 << m) {
        let active: Vec<usize> = (0..m).filter(|&i| set & (1 << i) != 0).collect();
        let mut p = vec![0.0; m];
        if !active.is_empty() {
            let a = nalgebra::DMatrix::from_fn(active.len(), active.len(), |r, c| {
                w[(active[r], active[c])]
            });
            let b = nalgebra::DVector::from_fn(active.len(), |r, _| -q[active[r]]);
            let Some(x) = a.lu().solve(&b) else { continue };
            for (r, &i) in active.iter().enumerate() {
                p[i] = x[r];
            }
        }
        let scale = p.iter().fold(1e-300_f64, |s, x| s.max(x.abs()));
        if p.iter().any(|&x| x < -1e-12 * scale) {
            continue;
        }
        let mut velocity = v0.clone();
        for (c, &pi) in contacts.iter().zip(&p) {
            for (k, n) in ends(c) {
                velocity[k] += n * (pi / bodies[k].mass);
            }
        }
        if contacts.iter().all(|c| relative(&velocity, c) >= -1e-12) {
            if let Some(other) = &found {
                for (x, y) in velocity.iter().zip(other) {
                    assert!(
                        (x - y).norm() <= 1e-9,
                        "two LCP solutions with different velocities"
                    );
                }
            }
            found = Some(velocity);
        }
    }
    found.expect("the frictionless LCP has a solution")
}

#[test]
fn frictionless_sphere_piles_match_the_brute_force_lcp() {
    let model = model(&[(0.0, 0.0)], &[(0.0, 0.0)]);
    let dt = 5e-4;
    let settings = ImpulseSettings::default();
    let mut direct = 0;
    for seed in 0..12 {
        // Three rows: 6 spheres, 12 contact points (2^12 sets for the brute force).
        let (bodies, contacts) = pile(3, dt, 4e-3, seed);
        let truth = brute_force_frictionless(&bodies, &contacts);
        let (report, out, impulses) = solve(&model, &bodies, &contacts, &settings);
        assert!(report.converged, "seed {seed}: {report:?}");
        direct += report.direct;
        // The sweeps stop at a relative impulse change of 1e-8: velocities to ~1e-8 of the
        // speed scale g·dt, far below the resting speed (1e-2 m/s).
        let bound = 1e-6 * 9.81 * dt;
        let deviation = out
            .iter()
            .zip(&truth)
            .map(|(b, t)| (b.velocity - t).norm())
            .fold(0.0, f64::max);
        let kkt = kkt_violation(&out, &contacts, &impulses, 0.0);
        eprintln!(
            "pile {seed}: {} points, {} sweeps, {} direct, deviation {deviation:.1e} m/s, \
             conditions {kkt:.1e} m/s",
            contacts.len(),
            report.iterations,
            report.direct
        );
        assert!(
            deviation <= bound && kkt <= bound,
            "seed {seed}: {deviation} {kkt}"
        );
    }
    // The piles are jammed enough that the direct solve does part of the work.
    assert!(direct > 0, "no direct solve exercised");
}

#[test]
fn jammed_blocks_of_cubes_converge_and_meet_the_contact_conditions() {
    let mu = 0.5;
    let model = model(&[(mu, 0.0)], &[(mu, 0.0)]);
    let dt = 5e-4;
    let settings = ImpulseSettings::default();
    // A 5- and a 7-cube column, two side-by-side columns, a 2×2 layer: 16–32 corner
    // points (the direct solve's limit), statically indeterminate, mass ratio 16. The
    // sweeps alone reach 1e-5 in 5,000 sweeps on the 5-cube column
    // (`residual_history_of_jammed_clusters`).
    for dims in [[1, 1, 5], [2, 1, 2], [2, 2, 1], [1, 1, 7]] {
        let (bodies, contacts) = block(dims, dt, 0.0, 1);
        let (report, out, impulses) = solve(&model, &bodies, &contacts, &settings);
        // Stacked cubes need the direct solve; the single layer converges in its 10 sweeps.
        assert!(report.converged, "{dims:?}: {report:?}");
        assert_eq!(report.direct > 0, dims[2] > 1, "{dims:?}: {report:?}");
        // The solve's velocity tolerance: 1e-8 of the speed scale, here the resting speed
        // (1e-2 m/s, above the approach g·dt).
        let kkt = kkt_violation(&out, &contacts, &impulses, mu);
        assert!(
            kkt <= 1e-8 * settings.resting_speed_m_s,
            "{dims:?}: conditions violated by {kkt} m/s"
        );
        // The floor carries the weight gravity added in the step (the impulses balance it).
        let floor: f64 = contacts
            .iter()
            .zip(&impulses)
            .filter(|(c, _)| matches!(c.b, Other::Obstacle(_)))
            .map(|(_, p)| p.z)
            .sum();
        let weight: f64 = bodies.iter().map(|b| b.mass * 9.81 * dt).sum();
        assert!(
            (floor - weight).abs() <= 1e-6 * weight,
            "{dims:?}: {floor} vs {weight}"
        );
    }
}

#[test]
#[ignore = "diagnostic: residual histories of jammed clusters, run with --ignored --nocapture"]
fn residual_history_of_jammed_clusters() {
    let mu = 0.5;
    let model = model(&[(mu, 0.0)], &[(mu, 0.0)]);
    let dt = 5e-4;
    for (dims, noise) in [
        ([1, 1, 5], 0.0),
        ([2, 1, 2], 2e-3),
        ([2, 2, 2], 0.0),
        ([2, 2, 2], 2e-3),
        ([2, 2, 5], 2e-3),
        ([1, 1, 20], 0.0),
    ] {
        let (bodies, contacts) = block(dims, dt, noise, 1);
        eprintln!("block {dims:?}: {} contact points", contacts.len());
        for omega in [0.9, 1.0] {
            let mut line = format!("  ω {omega}:");
            for sweeps in [10, 11, 12, 30, 100, 200] {
                let settings = ImpulseSettings {
                    max_iterations: sweeps,
                    tolerance: 1e-8,
                    relaxation: omega,
                    ..ImpulseSettings::default()
                };
                let (report, out, impulses) = solve(&model, &bodies, &contacts, &settings);
                let kkt = kkt_violation(&out, &contacts, &impulses, mu);
                line += &format!(
                    " {sweeps}: {:.1e}/{:.1e}/{}{}",
                    report.residual,
                    kkt,
                    report.direct,
                    if report.converged { "c" } else { "" }
                );
            }
            eprintln!("{line}");
        }
    }
}
