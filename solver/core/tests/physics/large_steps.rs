//! The kept active sets after large steps (issue 19): the heap of noisy spheres of
//! `explicit_kept.rs` on a wide plane at five times its time step — its overlapping start
//! throws three spheres apart at ≈ 12 m/s, bouncing along the plane, while the fourth
//! falls onto it — where a body moves farther than the certificates' base skin in a step — the sets widen their skin to the
//! step's motion (`detect/active/skin.rs`), hold narrowing vetoes across steps by their
//! parents' in-margin slack (`detect/active/held.rs`) and pre-screen the pairs whose
//! certificates expired. The contacts, forces and states equal those of Alg. 5 from the
//! roots in every step, bit for bit; the widenings and narrowings equal those of the
//! `recheck_all` diagnostic (every active pair checked, no veto held), so the held vetoes
//! decide exactly as the checks they save; every held veto's slack is verified against
//! the exact distance at its base pose (`validate_kept_sets`).

use crate::common::world::*;
use msdem_geom::math::Iso3;
use msdem_mesh::generate::plane;
use msdem_solver::detect::Search;
use msdem_solver::params::{DetectionMode, KernelChoice};
use msdem_solver::world::World;

/// The heap of `explicit_kept.rs` at `dt` = 1 ms (five times its step) on a 40 m plane.
fn heap(kernel: KernelChoice) -> World {
    let mut w = empty_world(1e-3, [0.0, 0.0, -9.81]);
    w.params.kernel = kernel;
    let ground = plane([40.0, 40.0], 4, [0.0, 0.0, 0.0]).expect("plane");
    add_obstacle(&mut w, &ground, Iso3::identity(), 0.01, 0.5, 0.4);
    let m = add_material(&mut w, 1000.0, 0.01, 20_000.0, 0.5, 0.4);
    for (k, p) in [
        [0.0, 0.0, 0.35],
        [0.62, 0.05, 0.36],
        [0.3, 0.55, 0.37],
        [0.25, 0.2, 1.0],
    ]
    .into_iter()
    .enumerate()
    {
        let mesh = noise_mesh(0.3, 2, 1.1, 3 + k as u32);
        let s = add_shape(&mut w, &mesh);
        add_particle(&mut w, s, m, p);
    }
    w
}

fn large_steps_equal_the_roots(kernel: KernelChoice, steps: usize) {
    let base = heap(kernel);
    let (mut kept, mut roots, mut all) = (base.clone(), base.clone(), base);
    let (mut ex_kept, mut det_kept) = explicit(&kept);
    let (mut ex_roots, mut det_roots) = explicit(&roots);
    ex_roots.set_search(Search::Roots(DetectionMode::Hierarchy));
    let (mut ex_all, mut det_all) = explicit(&all);
    det_all.set_recheck_all(true);
    let sum = |v: &[u64]| v[..v.len() - 1].iter().sum::<u64>();
    let (mut checks_kept, mut checks_all, mut narrows, mut contact_steps) = (0, 0, 0, 0);
    for s in 0..steps {
        let a = ex_kept
            .advance(&kept.model, &mut kept.state, &mut det_kept, true)
            .unwrap();
        let b = ex_roots
            .advance(&roots.model, &mut roots.state, &mut det_roots, true)
            .unwrap();
        let c = ex_all
            .advance(&all.model, &mut all.state, &mut det_all, true)
            .unwrap();
        assert_eq!(a.contacts, b.contacts, "step {s}: contacts and forces");
        assert_eq!(a.contacts, c.contacts, "step {s}: contacts and forces");
        for (p, q) in kept.state.bodies.iter().zip(&roots.state.bodies) {
            assert_eq!(p.position, q.position, "step {s}");
            assert_eq!(p.orientation, q.orientation, "step {s}");
            assert_eq!(p.velocity, q.velocity, "step {s}");
            assert_eq!(p.angular_velocity, q.angular_velocity, "step {s}");
        }
        assert_eq!(a.stats.unfolds, c.stats.unfolds, "step {s}: widenings");
        assert_eq!(a.stats.narrows, c.stats.narrows, "step {s}: narrowings");
        assert_eq!(c.stats.skipped, 0, "step {s}: the diagnostic skips nothing");
        det_kept
            .validate_kept_sets(&kept.model, &kept.state)
            .unwrap_or_else(|e| panic!("step {s}: {e}"));
        checks_kept += sum(&a.stats.checks_per_level);
        checks_all += sum(&c.stats.checks_per_level);
        narrows += a.stats.narrows;
        contact_steps += usize::from(a.stats.contacts > 0);
    }
    assert!(
        contact_steps > steps / 5,
        "{contact_steps} steps with contacts"
    );
    assert!(narrows > 0, "no narrowing: the vetoes were never tried");
    assert!(
        2 * checks_kept < checks_all,
        "kept {checks_kept} vs re-checking {checks_all} checks"
    );
}

#[test]
fn large_steps_on_kept_sets_equal_the_descent_from_the_roots_exact() {
    large_steps_equal_the_roots(KernelChoice::Exact, 600);
}

#[test]
fn large_steps_on_kept_sets_equal_the_descent_from_the_roots_hybrid() {
    large_steps_equal_the_roots(KernelChoice::Hybrid, 600);
}
