//! Seed 002 Table 1: six ellipsoid pairs with analytic contact data (§5.1). The table
//! gives `‖d‖` and `c` (the outward normal of body 1 at P₁, i.e. minus our B → A normal);
//! cases 1, 2, 5 overlap (1 and 2 by containment), 3 overlaps, 4 is separated, 6 touches.
//! Cases 1 and 2 are symmetric: `c` and `−c` are both exact; we require the table's sign,
//! which the deterministic start order produces.

use msdem_ellipsoid::math::{Iso3, Quat, Real, Vec3};
use msdem_ellipsoid::{chm, opm, ChmState, Ellipsoid};

struct Case {
    r1: [Real; 3],
    rot1: bool,
    b1: [Real; 3],
    r2: [Real; 3],
    rot2: bool,
    b2: [Real; 3],
    signed: Real,
    c: [Real; 3],
    chm: ChmState,
}

fn pose(rot: bool, b: [Real; 3]) -> Iso3 {
    let q = if rot {
        Quat::from_axis_angle(&Vec3::z_axis(), std::f64::consts::FRAC_PI_2)
    } else {
        Quat::identity()
    };
    Iso3::from_parts(Vec3::from(b).into(), q)
}

fn cases() -> Vec<Case> {
    use ChmState::*;
    vec![
        Case {
            r1: [3.0, 1.0, 2.0],
            rot1: false,
            b1: [1.0; 3],
            r2: [6.0, 2.0, 4.0],
            rot2: false,
            b2: [1.0; 3],
            signed: -3.0,
            c: [0.0, 1.0, 0.0],
            chm: Overlapping,
        },
        Case {
            r1: [3.0, 1.0, 2.0],
            rot1: true,
            b1: [1.0; 3],
            r2: [12.0, 4.0, 8.0],
            rot2: false,
            b2: [1.0; 3],
            signed: -7.0,
            c: [0.0, 1.0, 0.0],
            chm: Overlapping,
        },
        Case {
            r1: [3.0, 1.0, 2.0],
            rot1: false,
            b1: [0.0; 3],
            r2: [3.0, 1.0, 2.0],
            rot2: false,
            b2: [5.8, 0.0, 0.0],
            signed: -0.2,
            c: [1.0, 0.0, 0.0],
            chm: Overlapping,
        },
        Case {
            r1: [3.0, 1.0, 2.0],
            rot1: true,
            b1: [1.0; 3],
            r2: [1.0, 3.0, 2.0],
            rot2: true,
            b2: [5.2, 1.0, 1.0],
            signed: 0.2,
            c: [1.0, 0.0, 0.0],
            chm: Separated,
        },
        Case {
            r1: [3.0, 1.0, 2.0],
            rot1: true,
            b1: [1.0; 3],
            r2: [1.0, 3.0, 2.0],
            rot2: true,
            b2: [4.8, 1.0, 1.0],
            signed: -0.2,
            c: [1.0, 0.0, 0.0],
            chm: Overlapping,
        },
        Case {
            r1: [3.0, 1.0, 2.0],
            rot1: false,
            b1: [0.0; 3],
            r2: [3.0, 1.0, 2.0],
            rot2: false,
            b2: [6.0, 0.0, 0.0],
            signed: 0.0,
            c: [1.0, 0.0, 0.0],
            chm: Touching,
        },
    ]
}

#[test]
fn table1_opm_depth_and_normal_to_1e_6() {
    for (k, case) in cases().iter().enumerate() {
        let a = Ellipsoid::new(case.r1).unwrap();
        let b = Ellipsoid::new(case.r2).unwrap();
        let (pa, pb) = (pose(case.rot1, case.b1), pose(case.rot2, case.b2));
        let r = opm(&a, &pa, &b, &pb);
        let c = -r.normal;
        let depth_err = (r.signed_distance - case.signed).abs();
        let normal_err = (c - Vec3::from(case.c)).norm();
        println!(
            "case {}: signed {:+.15} (table {:+}) |err| {:.2e}, c = {:?}, normal err {:.2e}, iters {}",
            k + 1,
            r.signed_distance,
            case.signed,
            depth_err,
            c.as_slice(),
            normal_err,
            r.iterations
        );
        assert!(r.converged(), "case {}", k + 1);
        assert!(depth_err <= 1e-6, "case {}: depth error {depth_err}", k + 1);
        assert!(
            normal_err <= 1e-6,
            "case {}: normal error {normal_err}",
            k + 1
        );
        // ‖d‖ of the table is |P1 − P2|.
        assert!(((r.point_a - r.point_b).norm() - case.signed.abs()).abs() <= 1e-6);
    }
}

#[test]
fn table1_chm_states() {
    for (k, case) in cases().iter().enumerate() {
        let a = Ellipsoid::new(case.r1).unwrap();
        let b = Ellipsoid::new(case.r2).unwrap();
        let r = chm(&a, &pose(case.rot1, case.b1), &b, &pose(case.rot2, case.b2));
        println!("case {}: {:?} psi_min {:.3e}", k + 1, r.state, r.psi_min);
        assert_eq!(r.state, case.chm, "case {}", k + 1);
    }
}
