//! The incremental HGrid against brute force after every insert / remove / update of
//! random sequences on power-law polydisperse spheres (size ratio up to 100), plus its
//! error contract and its use as a `BroadPhase` on a moving packing.

use msdem_broadphase::workload::{jiggle, power_law_radius, random_packing, PackingSpec};
use msdem_broadphase::{
    AllPairs, BroadPhase, BroadPhaseError, HGridConfig, IncrementalHGrid, Sphere,
};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Brute-force pairs of the model, by id.
fn brute(model: &BTreeMap<u32, Sphere>) -> Vec<(u32, u32)> {
    let ids: Vec<u32> = model.keys().copied().collect();
    let spheres: Vec<Sphere> = model.values().copied().collect();
    let mut out = Vec::new();
    AllPairs::new().find_pairs(&spheres, &mut out).unwrap();
    // Ids are sorted like the indices, so the order (i < j, ascending) carries over.
    out.iter()
        .map(|&(i, j)| (ids[i as usize], ids[j as usize]))
        .collect()
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u32, Sphere),
    Remove(u32),
    Update(u32, Sphere),
    /// Small move of an id (mostly stays in its cell).
    Nudge(u32, [f64; 3]),
}

/// Power-law radius (α = −3) with size ratio `omega`, centre uniform in a 1.5 m box, in a
/// dense 8 cm cluster (pairs across every neighbour direction) or on a 1 cm lattice near
/// the origin (many touching small spheres).
fn sphere() -> impl Strategy<Value = Sphere> {
    (
        0.0f64..1.0,
        1.0f64..100.0,
        prop_oneof![
            prop::array::uniform3(0.0f64..1.5),
            prop::array::uniform3(0.0f64..0.08),
            prop::array::uniform3(0i32..20).prop_map(|k| k.map(|v| f64::from(v) * 0.01)),
        ],
        prop::bool::weighted(0.05),
    )
        .prop_map(|(u, omega, c, zero)| {
            let r = if zero {
                0.0
            } else {
                power_law_radius(u, -3.0, 0.005, 0.005 * omega)
            };
            Sphere::new(c, r)
        })
}

fn op() -> impl Strategy<Value = Op> {
    let id = 0u32..48;
    prop_oneof![
        3 => (id.clone(), sphere()).prop_map(|(i, s)| Op::Insert(i, s)),
        1 => id.clone().prop_map(Op::Remove),
        2 => (id.clone(), sphere()).prop_map(|(i, s)| Op::Update(i, s)),
        3 => (id, prop::array::uniform3(-0.01f64..0.01)).prop_map(|(i, d)| Op::Nudge(i, d)),
    ]
}

/// Applies `op` to the grid and the model; errors must match the model's expectation.
fn apply(grid: &mut IncrementalHGrid, model: &mut BTreeMap<u32, Sphere>, op: &Op) {
    match op {
        Op::Insert(id, s) => {
            let got = grid.insert(*id, *s);
            if model.contains_key(id) {
                assert_eq!(got, Err(BroadPhaseError::DuplicateId { id: *id }));
            } else if got.is_ok() {
                model.insert(*id, *s);
            }
        }
        Op::Remove(id) => match model.remove(id) {
            Some(s) => assert_eq!(grid.remove(*id), Ok(s)),
            None => assert_eq!(
                grid.remove(*id),
                Err(BroadPhaseError::UnknownId { id: *id })
            ),
        },
        Op::Update(id, s) => {
            let got = grid.update(*id, *s);
            if !model.contains_key(id) {
                assert_eq!(got, Err(BroadPhaseError::UnknownId { id: *id }));
            } else if got.is_ok() {
                model.insert(*id, *s);
            }
        }
        Op::Nudge(id, d) => {
            if let Some(s) = model.get(id).copied() {
                let moved = Sphere::new(
                    [s.center[0] + d[0], s.center[1] + d[1], s.center[2] + d[2]],
                    s.radius,
                );
                grid.update(*id, moved).unwrap();
                model.insert(*id, moved);
            }
        }
    }
}

/// Runs `ops`, checking pairs, length and stored spheres after every step.
fn check_sequence(mut grid: IncrementalHGrid, mut model: BTreeMap<u32, Sphere>, ops: &[Op]) {
    let mut got = Vec::new();
    for (step, op) in ops.iter().enumerate() {
        apply(&mut grid, &mut model, op);
        grid.find_pairs(&mut got);
        assert_eq!(got, brute(&model), "step {step}: {op:?}");
        assert_eq!(grid.len(), model.len());
        for (id, s) in &model {
            assert_eq!(grid.get(*id), Some(*s));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn planned_from_first_batch_equals_brute_force(
        first in prop::collection::vec(sphere(), 0..40),
        ops in prop::collection::vec(op(), 1..60),
    ) {
        let grid = IncrementalHGrid::with_spheres(HGridConfig::default(), &first).unwrap();
        let model: BTreeMap<u32, Sphere> =
            first.iter().enumerate().map(|(i, s)| (i as u32, *s)).collect();
        check_sequence(grid, model, &ops);
    }

    #[test]
    fn empty_start_grows_levels_and_equals_brute_force(
        ops in prop::collection::vec(op(), 1..80),
    ) {
        // The first sphere sizes the only level; larger ones add levels on top.
        let grid = IncrementalHGrid::new(HGridConfig::default()).unwrap();
        check_sequence(grid, BTreeMap::new(), &ops);
    }

    #[test]
    fn explicit_sizes_equal_brute_force_and_reject_too_large(
        ops in prop::collection::vec(op(), 1..60),
    ) {
        // Top cell 0.2 m: the larger spheres of the ω = 100 law (d ≤ 1 m) are rejected.
        let config = HGridConfig { levels: None, cell_sizes: Some(vec![0.02, 0.07, 0.2]), skin: 0.0 };
        let mut grid = IncrementalHGrid::new(config).unwrap();
        let mut model = BTreeMap::new();
        let mut got = Vec::new();
        for op in &ops {
            if let Op::Insert(id, s) | Op::Update(id, s) = op {
                if 2.0 * s.radius * 1.001 > 0.2 && (matches!(op, Op::Update(..)) == model.contains_key(id)) {
                    let err = match op {
                        Op::Insert(..) => grid.insert(*id, *s),
                        _ => grid.update(*id, *s),
                    };
                    let too_large = matches!(err, Err(BroadPhaseError::TooLarge { index, .. }) if index == *id as usize);
                    prop_assert!(too_large, "{err:?}");
                    continue;
                }
            }
            apply(&mut grid, &mut model, op);
            grid.find_pairs(&mut got);
            prop_assert_eq!(&got, &brute(&model));
        }
        prop_assert_eq!(grid.cell_sizes(), vec![0.02, 0.07, 0.2]);
    }
}

#[test]
fn invalid_spheres_are_rejected_naming_the_id_and_change_nothing() {
    let mut grid = IncrementalHGrid::new(HGridConfig::default()).unwrap();
    grid.insert(3, Sphere::new([0.0; 3], 0.1)).unwrap();
    let err = grid.insert(7, Sphere::new([f64::NAN, 0.0, 0.0], 0.1));
    assert!(
        matches!(err, Err(BroadPhaseError::NonFinite { index: 7, .. })),
        "{err:?}"
    );
    let err = grid.update(3, Sphere::new([0.0; 3], -1.0));
    assert!(
        matches!(err, Err(BroadPhaseError::NegativeRadius { index: 3, .. })),
        "{err:?}"
    );
    let err = grid.insert(9, Sphere::new([1e300, 0.0, 0.0], 0.1));
    assert!(
        matches!(err, Err(BroadPhaseError::OutOfRange { index: 9, .. })),
        "{err:?}"
    );
    assert_eq!(grid.len(), 1);
    assert_eq!(grid.get(3), Some(Sphere::new([0.0; 3], 0.1)));
    assert!(!grid.contains(7) && !grid.contains(9));
    assert!(IncrementalHGrid::new(HGridConfig {
        skin: 0.1,
        ..Default::default()
    })
    .is_err());
}

#[test]
fn broadphase_impl_tracks_a_moving_packing_exactly() {
    let mut spheres = random_packing(&PackingSpec {
        count: 6000,
        exponent: -3.0,
        size_ratio: 50.0,
        packing_fraction: 0.2,
        seed: 5,
        ..PackingSpec::default()
    });
    let mut grid = IncrementalHGrid::new(HGridConfig::default()).unwrap();
    let (mut got, mut want) = (Vec::new(), Vec::new());
    for step in 0..6u64 {
        jiggle(&mut spheres, 0.004, step);
        if step == 3 {
            spheres.truncate(5000); // ids past the end are removed
        }
        BroadPhase::find_pairs(&mut grid, &spheres, &mut got).unwrap();
        AllPairs::new().find_pairs(&spheres, &mut want).unwrap();
        assert!(!want.is_empty());
        assert_eq!(got, want, "step {step}");
        assert_eq!(grid.len(), spheres.len());
    }
    assert!(grid.cell_sizes().len() >= 2, "{:?}", grid.cell_sizes());
    // A bad sphere: error naming it, grid unchanged.
    let mut bad = spheres.clone();
    bad[17].radius = f64::NAN;
    let err = BroadPhase::find_pairs(&mut grid, &bad, &mut got);
    assert!(
        matches!(err, Err(BroadPhaseError::NonFinite { index: 17, .. })),
        "{err:?}"
    );
    assert!(got.is_empty());
    assert_eq!(grid.get(17), Some(spheres[17]));
}
