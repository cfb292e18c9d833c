//! Particle pairs (seed 004 §8.1): analytic outcomes, local = global, thread counts.

use crate::scenes::{analytic, min_mesh_distance, pairs_world, run, Pair, E};
use msdem_solver::integrator::lts::LtsMode;
use msdem_solver::world::World;

fn check_outcomes(world: &World, pairs: &[Pair]) {
    let b = &world.state.bodies;
    let (mut p0, mut p1, mut scale) = (0.0, 0.0, 0.0);
    for p in pairs {
        let (ba, bb) = (&b[p.a as usize], &b[p.b as usize]);
        let (ea, eb) = analytic(ba.mass, bb.mass, p.va, p.vb, E);
        for (got, want) in [(ba.velocity.x, ea), (bb.velocity.x, eb)] {
            assert!(
                (got - want).abs() <= 1e-3 * want.abs(),
                "pair {}–{}: v = {got}, analytic {want}",
                p.a,
                p.b
            );
        }
        for body in [ba, bb] {
            let side = (body.velocity.y.powi(2) + body.velocity.z.powi(2)).sqrt();
            assert!(
                side <= 1e-3 * body.velocity.x.abs(),
                "transverse speed {side} m/s"
            );
        }
        p0 += ba.mass * p.va + bb.mass * p.vb;
        p1 += ba.mass * ba.velocity.x + bb.mass * bb.velocity.x;
        scale += ba.mass * p.va.abs() + bb.mass * p.vb.abs();
    }
    assert!(
        (p1 - p0).abs() <= 1e-9 * scale,
        "momentum {p0} → {p1} (scale {scale})"
    );
}

#[test]
fn head_on_spheres_leave_with_the_analytic_velocities_and_momentum() {
    for mode in [LtsMode::Local, LtsMode::Global] {
        let (mut world, pairs, mesh) = pairs_world(1, 7, 0.02, 0.3);
        let mut closest = f64::INFINITY;
        let stats = run(&mut world, mode, |w, _| {
            closest = closest.min(min_mesh_distance(w, &mesh, None));
        });
        check_outcomes(&world, &pairs);
        let collisions: u64 = stats.iter().map(|s| s.collisions).sum();
        assert_eq!(collisions, 1, "{mode:?}: the pair collides exactly once");
        assert!(closest > 0.0, "{mode:?}: real meshes touched: {closest}");
    }
}

#[test]
fn local_and_global_give_the_same_outcome_for_every_pair() {
    let n = 16;
    let (mut local, pairs, mesh) = pairs_world(n, 11, 0.02, 0.3);
    let mut global = local.clone();
    let mut closest = f64::INFINITY;
    let ls = run(&mut local, LtsMode::Local, |w, _| {
        closest = closest.min(min_mesh_distance(w, &mesh, None));
    });
    let gs = run(&mut global, LtsMode::Global, |_, _| {});
    check_outcomes(&local, &pairs);
    check_outcomes(&global, &pairs);
    // The same outcome per pair: the contact is found at slightly different poses (the
    // global steps end at other pairs' collisions too), so equal up to the widening.
    let mut worst: f64 = 0.0;
    for (l, g) in local.state.bodies.iter().zip(&global.state.bodies) {
        let dv = (l.velocity - g.velocity).norm() / l.velocity.norm();
        worst = worst.max(dv);
        assert!(dv <= 1e-4, "velocities {} vs {}", l.velocity, g.velocity);
        assert!(
            (l.position - g.position).norm() <= 1e-3,
            "{} vs {}",
            l.position,
            g.position
        );
    }
    eprintln!("pairs: local vs global, largest relative velocity difference {worst:e}");
    let count = |s: &[msdem_solver::frames::lts::LtsStepStats]| -> (u64, u64, u64) {
        (
            s.iter().map(|x| x.collisions).sum(),
            s.iter().map(|x| x.sweeps as u64).sum(),
            s.iter().map(|x| x.rollbacks).sum(),
        )
    };
    let (lc, lsw, lr) = count(&ls);
    let (gc, gsw, gr) = count(&gs);
    assert_eq!(lc, n as u64, "local: every pair collides once");
    assert_eq!(gc, n as u64, "global: every pair collides once");
    assert_eq!(gr, 0, "global steps never roll back");
    assert!(lsw < gsw, "local sweeps {lsw} < global sweeps {gsw}");
    assert!(closest > 0.0, "real meshes touched: {closest}");
    eprintln!("pairs: local {lsw} sweeps, {lr} rollbacks; global {gsw} sweeps");
}

#[test]
fn outputs_are_byte_identical_at_one_and_two_threads() {
    // Scenes: the pairs, the gas, and a resting stack (warm-started impulses, issue 12).
    let go = |threads: usize, mode: LtsMode, scene: u32| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            let mut w = match scene {
                0 => pairs_world(24, 5, 0.02, 0.2).0,
                1 => crate::scenes::gas_world(6, 9, 0.05, 0.3).0,
                _ => crate::scenes::stack_world(5, 1e-3, 0.1).0,
            };
            let stats = run(&mut w, mode, |_, _| {});
            let bits: Vec<u64> = w
                .state
                .bodies
                .iter()
                .flat_map(|b| {
                    b.position
                        .iter()
                        .chain(b.velocity.iter())
                        .chain(b.angular_velocity.iter())
                        .chain(b.orientation.coords.iter())
                        .map(|x| x.to_bits())
                        .collect::<Vec<_>>()
                })
                .collect();
            (bits, stats)
        })
    };
    for gas in [0, 1, 2] {
        for mode in [LtsMode::Local, LtsMode::Global] {
            let (b1, s1) = go(1, mode, gas);
            let (b2, s2) = go(2, mode, gas);
            assert_eq!(
                b1, b2,
                "{mode:?} (scene {gas}): states differ at 1 and 2 threads"
            );
            assert_eq!(
                s1, s2,
                "{mode:?} (scene {gas}): statistics differ at 1 and 2 threads"
            );
        }
    }
}

#[test]
fn a_step_below_the_floor_stops_with_the_particles_and_the_time() {
    use msdem_solver::integrator::lts::LocalTimeStepping;
    let (mut world, pairs, _) = pairs_world(1, 3, 0.02, 0.3);
    // A floor above every narrowed step: the approach of the pair is refused.
    world.params.lts.min_step_s = 1.0;
    let mut lts = LocalTimeStepping::new(&world.params, LtsMode::Local);
    let mut err = None;
    for _ in 0..15 {
        if let Err(e) = lts.advance_interval(&world.model, &mut world.state) {
            err = Some(e.to_string());
            break;
        }
    }
    let e = err.expect("the floor stops the run");
    assert!(!e.contains('\n'), "{e}");
    assert!(e.contains("time step collapse at t = "), "{e}");
    assert!(
        e.contains(&format!("particles {}, {}", pairs[0].a, pairs[0].b)),
        "{e}"
    );
    assert!(e.contains("lts.min_step_s = 1e0 s"), "{e}");
}

#[test]
fn ellipsoid_particles_are_refused_with_one_line() {
    use crate::common::world::{add_ellipsoid_shape, add_material, add_particle, empty_world};
    use msdem_geom::math::Vec3;
    use msdem_solver::integrator::lts::LocalTimeStepping;
    let mut world = empty_world(0.02, [0.0; 3]);
    let shape = add_ellipsoid_shape(&mut world, [0.05, 0.04, 0.03]);
    let mat = add_material(&mut world, 1000.0, 0.01, 1000.0, 0.0, 0.8);
    let a = add_particle(&mut world, shape, mat, [-0.1, 0.0, 0.0]);
    let b = add_particle(&mut world, shape, mat, [0.1, 0.0, 0.0]);
    world.state.bodies[a as usize].velocity = Vec3::new(1.0, 0.0, 0.0);
    world.state.bodies[b as usize].velocity = Vec3::new(-1.0, 0.0, 0.0);
    let mut lts = LocalTimeStepping::new(&world.params, LtsMode::Local);
    // Free flight is fine; the error comes when the pair needs narrowing.
    let e = (0..10)
        .find_map(|_| lts.advance_interval(&world.model, &mut world.state).err())
        .expect("refused")
        .to_string();
    assert!(!e.contains('\n'), "{e}");
    assert!(
        e.contains("needs mesh particles") && e.contains("particles 0, 1"),
        "{e}"
    );
    assert!(world.state.step < 10, "a failed step is not counted");
}
