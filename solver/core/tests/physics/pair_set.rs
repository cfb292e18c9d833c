//! The pair-set query on kept active sets (`detect::dispatch::kept_pair_set`) against
//! brute force: two noisy spheres moved by rigid motions — a swing in and out along the
//! line of centres with random sideways drift and turns, and now and then a jump beyond
//! the skin — and
//! at every pose the query's pairs are every real triangle pair whose exact distance is
//! within the margin. Real pairs held by their in-margin slacks without a kernel call
//! would show up as extras if a slack were not conservative, and pairs the certificates
//! skipped as misses. The event-driven query (`detect::dispatch::event_pair_set`: every
//! pair stored with the accumulated motion at which its certificate expires, only the
//! expired ones checked) runs beside it and must report the same pairs at every step,
//! with a valid structure and valid certificates (`validate_event_pair`).

use crate::common::world::*;
use msdem_geom::kernel::triangle_triangle_exact;
use msdem_geom::math::{Quat, Vec3};
use msdem_solver::detect::broad::CandidatePair;
use msdem_solver::detect::dispatch::{
    event_pair_set, kept_pair_set, validate_event_pair, EventPair, KeptCaches, KeptPair,
    KeptScratches,
};
use msdem_solver::detect::PairSides;
use msdem_solver::model::Other;
use msdem_solver::params::KernelChoice;
use msdem_tree::NO_TRIANGLE;

/// A xorshift stream in `[-1, 1)`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

fn against_brute_force(kernel: KernelChoice, seed: u64) {
    let mut w = empty_world(1e-4, [0.0; 3]);
    w.params.kernel = kernel;
    let m = add_material(&mut w, 1000.0, 0.02, 20_000.0, 0.5, 0.4);
    for k in 0..2 {
        let s = add_shape(&mut w, &noise_mesh(0.3, 2, 1.1, 7 + k));
        add_particle(&mut w, s, m, [0.62 * k as f64, 0.0, 0.0]);
    }
    let pair = CandidatePair {
        a: 0,
        b: Other::Particle(1),
    };
    let mut caches = KeptCaches::default();
    caches.update(&w.model);
    let (mut kept, mut ts) = (KeptPair::default(), KeptScratches::default());
    let (mut events, mut ets) = (EventPair::default(), KeptScratches::default());
    let (mut event_checks, mut set_checks, mut event_skips) = (0u64, 0u64, 0usize);
    let (mut renewed, mut witnessed, mut ahead) = (0u64, 0u64, 0u64);
    let mut r = Rng(seed);
    let (mut found, mut held_steps, mut band) = (0usize, 0usize, 0usize);
    let mut bodies = w.state.bodies.clone();
    for step in 0..120 {
        // B swings in and out along the line of centres (at most a quarter of the skin
        // per step, so the sets are kept), drifts sideways and turns; every 25th step it
        // jumps (a refresh).
        let big = if step % 25 == 24 { 10.0 } else { 1.0 };
        let phase = std::f64::consts::TAU * step as f64 / 80.0;
        let side = Vec3::new(0.0, 0.0003 * r.next(), 0.0003 * r.next());
        let spin = Vec3::new(r.next(), r.next(), r.next()) * (0.0005 * big);
        let b = &mut bodies[1];
        b.position.x = 0.6 + 0.02 * phase.sin();
        b.position += side * big;
        b.orientation = Quat::from_scaled_axis(spin) * b.orientation;
        let mut out = Vec::new();
        kept.forget();
        let d = kept_pair_set(
            &w.model, &bodies, kernel, &caches, &pair, &mut kept, &mut ts, &mut out,
        );
        held_steps += usize::from(d.skipped > 0 && !out.is_empty());
        set_checks += d.stats.total();
        let n = out.len();
        out.sort_unstable();
        out.dedup();
        assert_eq!(out.len(), n, "step {step}: a pair reported twice");
        let mut ev = Vec::new();
        let e = event_pair_set(
            &w.model,
            &bodies,
            kernel,
            &caches,
            &pair,
            &mut events,
            &mut ets,
            &mut ev,
        );
        event_checks += e.stats.total();
        event_skips += usize::from(step > 0 && e.skipped > 0);
        renewed += e.renewed;
        witnessed += e.witnessed;
        ahead += e.ahead;
        assert!(
            ev.windows(2).all(|p| p[0] < p[1]),
            "step {step}: event-driven pairs not sorted or twice"
        );
        if let Err(e) = validate_event_pair(&w.model, &bodies, kernel, &caches, &pair, &mut events)
        {
            panic!("{kernel:?} seed {seed} step {step}: event set invalid: {e}");
        }
        let s = PairSides::of(&w.model, &bodies, &pair).expect("mesh pair");
        let margin = (s.eps_a + s.eps_b) as f32;
        let iso = s.b_to_a();
        let real = |t: &msdem_tree::SurrogateTree| {
            (0..t.soup.len() as u32)
                .filter(|&i| t.source[i as usize] != NO_TRIANGLE)
                .collect::<Vec<_>>()
        };
        let (ra, rb) = (real(s.tree_a), real(s.tree_b));
        let tb: Vec<_> = rb
            .iter()
            .map(|&j| s.tree_b.soup[j as usize].transformed(&iso))
            .collect();
        let tol = 1e-5 * margin;
        for &i in &ra {
            let ta = s.tree_a.soup[i as usize];
            for (k, &j) in rb.iter().enumerate() {
                let dist = triangle_triangle_exact(&ta, &tb[k]).dist();
                let hit = out.binary_search(&(i, j)).is_ok();
                if (dist - margin).abs() <= tol {
                    band += 1;
                    continue;
                }
                assert_eq!(
                    hit,
                    dist < margin,
                    "{kernel:?} seed {seed} step {step}: pair ({i}, {j}) at {dist}, margin {margin}"
                );
                assert_eq!(
                    ev.binary_search(&(i, j)).is_ok(),
                    dist < margin,
                    "{kernel:?} seed {seed} step {step}: event-driven pair ({i}, {j}) at {dist}, margin {margin}"
                );
                found += usize::from(hit);
            }
        }
        // Same pairs as the pair-set query, step by step (also within the band).
        assert_eq!(
            ev, out,
            "{kernel:?} seed {seed} step {step}: event-driven query differs from the pair-set query"
        );
    }
    assert!(found > 1000, "too few pairs in contact: {found}");
    assert!(
        held_steps > 20,
        "the slacks held pairs in {held_steps} steps only"
    );
    assert!(band < found / 100, "{band} borderline pairs");
    // Certificates decide most stored pairs without a check in almost every step.
    assert!(
        event_skips > 100,
        "event-driven query skipped in {event_skips} steps only"
    );
    assert!(
        event_checks < 2 * set_checks,
        "event-driven checks {event_checks}, pair-set query {set_checks}"
    );
    // The directional certificates (`detect/active/direction.rs`) are exercised: B swings
    // out along the line of centres, so idle pairs past their isotropic expiry are held
    // without a check
    // (their soundness is what the checks above test; dropping the rotation term of
    // their drift fails the set's validation).
    assert!(
        renewed > 0,
        "no pair renewed by its directional certificate"
    );
    // The witness certificates (`detect/active/witness.rs`) are exercised: contacts whose
    // in-margin slack the motion spent are renewed from their witness points without a
    // kernel call (their soundness is what the brute-force and step-by-step checks test;
    // a witness slack 5 % of the margin too large fails them, and the set's validation).
    assert!(witnessed > 0, "no contact renewed by its witness points");
    // Idle surrogate pairs are widened ahead along with due walks (`events.rs`); the
    // pairs stay the brute force's (checked above).
    assert!(ahead > 0, "no surrogate pair widened ahead");
    eprintln!("{kernel:?}: {ahead} pairs widened ahead, {witnessed} contacts renewed by witness points, {renewed} idle pairs by the directional certificates, {event_checks} checks (pair-set query {set_checks})");
}

#[test]
fn pair_set_query_equals_brute_force_exact() {
    against_brute_force(KernelChoice::Exact, 0x2545_f491_4f6c_dd1d);
}

#[test]
fn pair_set_query_equals_brute_force_hybrid() {
    against_brute_force(KernelChoice::Hybrid, 0x9e37_79b9_7f4a_7c15);
}
