//! The explicit step's hierarchical detection on active sets kept from step to step
//! against Alg. 5 from the roots in every step: a heap of noisy spheres dropped on a
//! plane (impacts, rebounds, resting contacts, friction) gives the same contacts, forces
//! and states in every step, bit for bit, while the kept sets skip pairs by their
//! certificates and check fewer pairs.

use crate::common::world::*;
use msdem_geom::math::Iso3;
use msdem_mesh::generate::plane;
use msdem_solver::detect::Search;
use msdem_solver::model::smooth::Surface;
use msdem_solver::params::{DetectionMode, KernelChoice};
use msdem_solver::world::World;

fn heap(kernel: KernelChoice, surface: Surface) -> World {
    let mut w = empty_world(2e-4, [0.0, 0.0, -9.81]);
    w.params.kernel = kernel;
    let ground = plane([4.0, 4.0], 2, [0.0, 0.0, 0.0]).expect("plane");
    add_obstacle(&mut w, &ground, Iso3::identity(), 0.01, 0.5, 0.4);
    let m = add_material(&mut w, 1000.0, 0.01, 20_000.0, 0.5, 0.4);
    w.model.materials[m as usize].surface = surface;
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

fn kept_equals_roots(kernel: KernelChoice, surface: Surface, steps: usize) {
    let base = heap(kernel, surface);
    let (mut kept, mut roots) = (base.clone(), base);
    let (mut ex_kept, mut det_kept) = explicit(&kept);
    let (mut ex_roots, mut det_roots) = explicit(&roots);
    ex_roots.set_search(Search::Roots(DetectionMode::Hierarchy));
    let (mut checks_kept, mut checks_roots, mut skipped, mut contact_steps) = (0, 0, 0, 0);
    let sum = |v: &[u64]| v[..v.len() - 1].iter().sum::<u64>();
    for s in 0..steps {
        let a = ex_kept
            .advance(&kept.model, &mut kept.state, &mut det_kept, true)
            .unwrap();
        let b = ex_roots
            .advance(&roots.model, &mut roots.state, &mut det_roots, true)
            .unwrap();
        assert_eq!(a.contacts, b.contacts, "step {s}: contacts and forces");
        assert_eq!(a.stats.candidate_pairs, b.stats.candidate_pairs, "step {s}");
        for (p, q) in kept.state.bodies.iter().zip(&roots.state.bodies) {
            assert_eq!(p.position, q.position, "step {s}");
            assert_eq!(p.orientation, q.orientation, "step {s}");
            assert_eq!(p.velocity, q.velocity, "step {s}");
            assert_eq!(p.angular_velocity, q.angular_velocity, "step {s}");
        }
        assert_eq!(b.stats.skipped, 0);
        // The cuts left by the incremental walks (copied subtrees, their spans) are
        // those of a full regeneration: same structure, extents and certificates.
        if s % 10 == 0 {
            det_kept
                .validate_kept_sets(&kept.model, &kept.state)
                .unwrap_or_else(|e| panic!("step {s}: {e}"));
        }
        checks_kept += sum(&a.stats.checks_per_level);
        checks_roots += sum(&b.stats.checks_per_level);
        skipped += a.stats.skipped;
        contact_steps += usize::from(a.stats.contacts > 0);
    }
    // In contact in a good share of the steps (impacts, rebounds, resting).
    assert!(
        contact_steps > steps / 6,
        "{contact_steps} steps with contacts"
    );
    assert!(skipped > 0, "no pair skipped");
    assert!(
        2 * checks_kept < checks_roots,
        "kept {checks_kept} vs roots {checks_roots} checks"
    );
}

#[test]
fn kept_active_sets_equal_the_descent_from_the_roots_hybrid() {
    kept_equals_roots(KernelChoice::Hybrid, Surface::Facets, 2500);
}

#[test]
fn kept_active_sets_equal_the_descent_from_the_roots_exact() {
    kept_equals_roots(KernelChoice::Exact, Surface::Facets, 1500);
}

/// The same heap with `surface: smooth`: the traversal reaches each side's largest
/// displacement bound (`model/smooth.rs`) farther, in the kept sets' certificates too.
#[test]
fn kept_active_sets_equal_the_descent_from_the_roots_smooth() {
    kept_equals_roots(KernelChoice::Hybrid, Surface::Smooth, 1500);
}

/// Sets seeded while two spheres are apart side by side along x, then one jumps to touch
/// the other along y (a region whose surrogate pairs were all apart at the seed): the
/// kept sets must widen through several levels within that one step and find exactly the
/// contacts of the descent from the roots.
#[test]
fn a_jump_into_contact_is_widened_within_the_step() {
    let mut w = empty_world(1e-4, [0.0; 3]);
    let m = add_material(&mut w, 1000.0, 0.01, 1000.0, 0.3, 1.0);
    for seed in [1, 2] {
        let mesh = noise_mesh(0.5, 3, 1.1, seed);
        let s = add_shape(&mut w, &mesh);
        add_particle(&mut w, s, m, [0.0; 3]);
    }
    // Closest approach along y with contacts, found with the descent from the roots.
    let (mut probe, mut probe_det) = explicit(&w);
    probe.set_search(Search::Roots(DetectionMode::Hierarchy));
    let mut touch = 1.2;
    loop {
        let mut t = w.clone();
        t.state.bodies[1].position.y = touch;
        let out = probe
            .advance(&t.model, &mut t.state, &mut probe_det, false)
            .unwrap();
        if out.stats.contacts >= 3 || touch < 0.8 {
            break;
        }
        touch -= 1e-3;
    }
    w.state.bodies[1].position.x = touch + 0.03;
    let (mut kept, mut roots) = (w.clone(), w);
    let (mut ex_kept, mut det_kept) = explicit(&kept);
    let (mut ex_roots, mut det_roots) = explicit(&roots);
    ex_roots.set_search(Search::Roots(DetectionMode::Hierarchy));
    let a = ex_kept
        .advance(&kept.model, &mut kept.state, &mut det_kept, true)
        .unwrap();
    let b = ex_roots
        .advance(&roots.model, &mut roots.state, &mut det_roots, true)
        .unwrap();
    assert_eq!(a.contacts, b.contacts);
    assert_eq!(a.stats.contacts, 0, "apart before the jump");
    assert!(a.stats.candidate_pairs > 0, "the pair must keep a set");
    for world in [&mut kept, &mut roots] {
        world.state.bodies[1].position = msdem_geom::math::Vec3::new(0.0, touch, 0.0);
    }
    let a = ex_kept
        .advance(&kept.model, &mut kept.state, &mut det_kept, true)
        .unwrap();
    let b = ex_roots
        .advance(&roots.model, &mut roots.state, &mut det_roots, true)
        .unwrap();
    assert!(b.stats.contacts >= 3);
    assert!(a.stats.unfolds > 0, "the jump must widen the kept sets");
    assert_eq!(a.contacts, b.contacts, "contacts and forces after the jump");
}
