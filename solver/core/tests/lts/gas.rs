//! A two-dimensional elastic gas: clusters merge and split, particles are rolled back;
//! Theorem 2.4 / Lemma 7.4 on every sweep, conservation laws, no snapshot with touching
//! real meshes.

use crate::scenes::{gas_world, min_mesh_distance, run};
use msdem_solver::integrator::lts::LtsMode;
use msdem_solver::motion::energy::observables;

#[test]
fn an_elastic_gas_rolls_back_without_breaking_the_invariants_or_conservation() {
    for mode in [LtsMode::Local, LtsMode::Global] {
        let (mut world, mesh) = gas_world(6, 3, 0.05, 0.5);
        let g = world.params.gravity;
        let before = observables(&world.state.bodies, &g);
        let mut closest = f64::INFINITY;
        let stats = run(&mut world, mode, |w, _| {
            closest = closest.min(min_mesh_distance(w, &mesh, None));
        });
        let after = observables(&world.state.bodies, &g);
        let collisions: u64 = stats.iter().map(|s| s.collisions).sum();
        let rollbacks: u64 = stats.iter().map(|s| s.rollbacks).sum();
        let sweeps: u64 = stats.iter().map(|s| s.sweeps as u64).sum();
        eprintln!(
            "gas {mode:?}: {sweeps} sweeps, {collisions} collisions, {rollbacks} rollbacks, \
             kinetic energy {} → {} J, closest real meshes {closest:e} m",
            before.kinetic, after.kinetic
        );
        assert!(
            collisions >= 10,
            "{mode:?}: too few collisions ({collisions})"
        );
        if mode == LtsMode::Local {
            assert!(rollbacks > 0, "the scene must exercise rollbacks");
        }
        let p_scale: f64 = world.state.bodies.iter().map(|b| b.mass * 1.5).sum();
        assert!(
            (after.linear_momentum - before.linear_momentum).norm() <= 1e-9 * p_scale,
            "{mode:?}: momentum {} → {}",
            before.linear_momentum,
            after.linear_momentum
        );
        assert!(
            (after.kinetic - before.kinetic).abs() <= 1e-3 * before.kinetic,
            "{mode:?}: kinetic energy {} → {}",
            before.kinetic,
            after.kinetic
        );
        assert!(closest > 0.0, "{mode:?}: real meshes touched: {closest}");
    }
}
