//! Narrowing reuses what the previous distance search of a pair found (issue 12, step 4):
//! the search seeded with a witness returns the same distance as the search from the
//! roots and as brute force over every real triangle pair, a search that may stop at a
//! distance within `enough` answers "within or not" as brute force does, and whole runs
//! with and without witnesses take the same time steps (same states bit for bit, same
//! statistics but the kernel calls), with fewer kernel calls.

use std::sync::Arc;

use crate::scenes::{gas_world, pairs_world, run_searching, stack_world};
use msdem_geom::kernel::triangle_triangle_exact;
use msdem_geom::math::{Iso3, Quat, Vec3};
use msdem_mesh::generate::icosphere;
use msdem_solver::frames::lts::LtsStepStats;
use msdem_solver::integrator::lts::distance::{min_distance, DistanceScratch, Posed, Witness};
use msdem_solver::integrator::lts::LtsMode;
use msdem_tree::{build_tree, BuildParams, SurrogateTree};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Brute force: the smallest exact distance over every pair of real triangles, computed as
/// the search does (side `b` in `a`'s frame), and its pair.
fn brute(a: &Posed, b: &Posed) -> (f64, (u32, u32)) {
    let rel = a.pose.inverse() * b.pose;
    let mut best = (f64::INFINITY, (0, 0));
    for i in 0..a.tree.real_count() {
        for j in 0..b.tree.real_count() {
            let tb = b.tree.soup[j].transformed(&rel);
            let d = triangle_triangle_exact(&a.tree.soup[i], &tb).dist() as f64;
            if d < best.0 {
                best = (d, (i as u32, j as u32));
            }
        }
    }
    best
}

fn tree(subdivisions: u32) -> Arc<SurrogateTree> {
    let mesh = icosphere(0.05, subdivisions).expect("icosphere");
    Arc::new(build_tree(&mesh, [0; 32], &BuildParams::default()).expect("tree"))
}

fn random_pose(rng: &mut Xoshiro256PlusPlus, at: Vec3) -> Iso3 {
    let axis = Vec3::new(
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
        rng.gen_range(-1.0..1.0),
    );
    Iso3::from_parts(
        at.into(),
        Quat::from_scaled_axis(axis * rng.gen_range(0.0..3.0)),
    )
}

#[test]
fn a_witness_seeded_search_finds_the_distance_of_the_search_from_the_roots_and_of_brute_force() {
    let (ta, tb) = (tree(2), tree(1));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
    let mut scratch = DistanceScratch::default();
    let mut carried: Witness = None;
    let (mut seeded_checks, mut root_checks) = (0u64, 0u64);
    for case in 0..300 {
        // Centres 0.09–0.14 m apart: from touching to well beyond the cut-offs.
        let dir = Vec3::new(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
        )
        .normalize();
        let a = Posed {
            tree: &ta,
            pose: random_pose(&mut rng, Vec3::zeros()),
        };
        let at = dir * rng.gen_range(0.09..0.14);
        let b = Posed {
            tree: &tb,
            pose: random_pose(&mut rng, at),
        };
        let cutoff = rng.gen_range(0.002..0.05);
        let (truth, arg) = brute(&a, &b);
        let expected = (truth < cutoff).then_some(truth);
        let mut none = None;
        let roots = min_distance(
            &a,
            &b,
            cutoff,
            f64::NEG_INFINITY,
            &mut scratch,
            &mut root_checks,
            &mut none,
        );
        assert_eq!(
            roots, expected,
            "case {case}: from the roots vs brute force"
        );
        // Witnesses: the true pair, a random real pair, the previous case's pair.
        let random = (
            rng.gen_range(0..ta.real_count() as u32),
            rng.gen_range(0..tb.real_count() as u32),
        );
        for seed in [Some(arg), Some(random), carried] {
            let mut w = seed;
            let mut checks = 0;
            let got = min_distance(
                &a,
                &b,
                cutoff,
                f64::NEG_INFINITY,
                &mut scratch,
                &mut checks,
                &mut w,
            );
            assert_eq!(
                got.map(f64::to_bits),
                roots.map(f64::to_bits),
                "case {case}: witness {seed:?}"
            );
            if got.is_some() {
                let (d, _) = brute_pair(&a, &b, w.expect("a witness for a distance"));
                assert_eq!(d.to_bits(), truth.to_bits(), "case {case}: the new witness");
            } else {
                assert_eq!(
                    w, seed,
                    "case {case}: kept where nothing is below the cut-off"
                );
            }
            if seed == Some(arg) {
                seeded_checks += checks;
            }
        }
        // Stopping within `enough`: the same answer to "within enough or not", and the
        // exact distance where it is not within.
        let enough = rng.gen_range(0.0..0.03);
        for seed in [None, Some(random), carried] {
            let mut w = seed;
            let got = min_distance(&a, &b, cutoff, enough, &mut scratch, &mut 0, &mut w);
            match got {
                Some(d) if d <= enough => {
                    assert!(truth <= d, "case {case}: {d} below the smallest {truth}");
                    let (dw, _) = brute_pair(&a, &b, w.expect("a witness"));
                    assert_eq!(
                        dw.to_bits(),
                        d.to_bits(),
                        "case {case}: the witness's distance"
                    );
                }
                other => assert_eq!(other, expected, "case {case}: beyond enough {enough}"),
            }
        }
        let mut w = carried;
        let mut scratch_checks = 0;
        min_distance(
            &a,
            &b,
            cutoff,
            f64::NEG_INFINITY,
            &mut scratch,
            &mut scratch_checks,
            &mut w,
        );
        carried = w;
    }
    eprintln!(
        "kernel calls: seeded with the nearest pair {seeded_checks}, from the roots {root_checks}"
    );
    assert!(seeded_checks < root_checks, "the witness prunes");
}

/// The distance of one real pair, computed as the search does.
fn brute_pair(a: &Posed, b: &Posed, (i, j): (u32, u32)) -> (f64, (u32, u32)) {
    let rel = a.pose.inverse() * b.pose;
    let tb = b.tree.soup[j as usize].transformed(&rel);
    (
        triangle_triangle_exact(&a.tree.soup[i as usize], &tb).dist() as f64,
        (i, j),
    )
}

/// Bits of every body's state.
fn bits(w: &msdem_solver::world::World) -> Vec<u64> {
    w.state
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
        .collect()
}

#[test]
fn runs_with_and_without_witnesses_take_the_same_time_steps() {
    let mut fewer = 0;
    for scene in 0..3 {
        for mode in [LtsMode::Local, LtsMode::Global] {
            let go = |from_roots: bool| {
                let mut w = match scene {
                    0 => pairs_world(24, 5, 0.02, 0.2).0,
                    1 => gas_world(6, 9, 0.05, 0.3).0,
                    _ => stack_world(5, 1e-3, 0.1).0,
                };
                let stats = run_searching(&mut w, mode, from_roots, |_, _| {});
                (bits(&w), stats)
            };
            let (b_seeded, s_seeded) = go(false);
            let (b_roots, s_roots) = go(true);
            assert_eq!(b_seeded, b_roots, "{mode:?} (scene {scene}): states differ");
            let checks = |s: &[LtsStepStats]| s.iter().map(|x| x.narrowing_checks).sum::<u64>();
            let (c_seeded, c_roots) = (checks(&s_seeded), checks(&s_roots));
            let strip = |s: Vec<LtsStepStats>| -> Vec<LtsStepStats> {
                s.into_iter()
                    .map(|x| LtsStepStats {
                        narrowing_checks: 0,
                        ..x
                    })
                    .collect()
            };
            assert_eq!(
                strip(s_seeded),
                strip(s_roots),
                "{mode:?} (scene {scene}): the steps differ"
            );
            eprintln!("scene {scene} {mode:?}: kernel calls {c_seeded} with witnesses, {c_roots} from the roots");
            assert!(c_seeded <= c_roots, "{mode:?} (scene {scene})");
            fewer += usize::from(c_seeded < c_roots);
        }
    }
    assert!(fewer >= 2, "the witnesses save kernel calls");
}
