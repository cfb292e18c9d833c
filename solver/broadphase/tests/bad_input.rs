//! Invalid spheres and configurations give errors naming the offender, never panics.

use msdem_broadphase::{
    AllPairs, BroadPhase, BroadPhaseError, BroadPhaseKind, HGrid, HGridConfig, LinkedCells, Sphere,
};

fn all_kinds() -> Vec<Box<dyn BroadPhase>> {
    vec![
        Box::new(AllPairs::new()),
        Box::new(LinkedCells::new(None, 0.0).unwrap()),
        Box::new(HGrid::new(HGridConfig::default()).unwrap()),
        Box::new(
            HGrid::new(HGridConfig {
                skin: 0.1,
                ..HGridConfig::default()
            })
            .unwrap(),
        ),
    ]
}

fn good() -> Vec<Sphere> {
    (0..20)
        .map(|i| Sphere::new([i as f64 * 0.5, 0.0, 0.0], 0.3 + 0.01 * i as f64))
        .collect()
}

#[test]
fn non_finite_centre_or_radius_names_the_lowest_index() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        for bp in all_kinds().iter_mut() {
            let mut s = good();
            s[7].center[1] = bad;
            s[12].radius = bad;
            let mut out = vec![(1, 2)];
            let err = bp.find_pairs(&s, &mut out).unwrap_err();
            assert!(
                matches!(err, BroadPhaseError::NonFinite { index: 7, .. }),
                "{err}"
            );
            assert!(out.is_empty());
            // And the broad phase still works afterwards.
            bp.find_pairs(&good(), &mut out).unwrap();
            assert_eq!(out.len(), 19);
        }
    }
}

#[test]
fn negative_radius_is_rejected() {
    for bp in all_kinds().iter_mut() {
        let mut s = good();
        s[3].radius = -1.0;
        let err = bp.find_pairs(&s, &mut Vec::new()).unwrap_err();
        assert_eq!(
            err,
            BroadPhaseError::NegativeRadius {
                index: 3,
                radius: -1.0
            }
        );
    }
}

#[test]
fn sphere_larger_than_given_cells_is_rejected() {
    let mut lc = LinkedCells::new(Some(0.5), 0.0).unwrap();
    let err = lc.find_pairs(&good(), &mut Vec::new()).unwrap_err();
    assert!(
        matches!(err, BroadPhaseError::TooLarge { index: 0, .. }),
        "{err}"
    );
}

#[test]
fn absurdly_far_sphere_is_out_of_range() {
    let mut s = good();
    s[4].center[2] = 1e300;
    let mut hg = HGrid::new(HGridConfig::default()).unwrap();
    let err = hg.find_pairs(&s, &mut Vec::new()).unwrap_err();
    assert!(
        matches!(err, BroadPhaseError::OutOfRange { index: 4, .. }),
        "{err}"
    );
}

#[test]
fn invalid_configurations_are_rejected() {
    let bad = [
        HGridConfig {
            cell_sizes: Some(vec![1.0, 1.0]),
            ..HGridConfig::default()
        },
        HGridConfig {
            cell_sizes: Some(vec![]),
            ..HGridConfig::default()
        },
        HGridConfig {
            cell_sizes: Some(vec![-1.0]),
            ..HGridConfig::default()
        },
        HGridConfig {
            levels: Some(0),
            ..HGridConfig::default()
        },
        HGridConfig {
            skin: f64::NAN,
            ..HGridConfig::default()
        },
    ];
    for config in bad {
        assert!(matches!(
            BroadPhaseKind::HGrid(config).build(),
            Err(BroadPhaseError::Config(_))
        ));
    }
}

#[test]
fn empty_and_point_sets_work() {
    for bp in all_kinds().iter_mut() {
        let mut out = Vec::new();
        bp.find_pairs(&[], &mut out).unwrap();
        assert!(out.is_empty());
        let points = [
            Sphere::new([1.0, 1.0, 1.0], 0.0),
            Sphere::new([1.0, 1.0, 1.0], 0.0),
            Sphere::new([2.0, 1.0, 1.0], 0.0),
        ];
        bp.find_pairs(&points, &mut out).unwrap();
        assert_eq!(out, vec![(0, 1)]);
    }
}
