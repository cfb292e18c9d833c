//! ChM and OpM agree on contact / no contact for 10⁶ seeded random pairs.
//!
//! Pairs: semi-axes uniform in [0.2, 1] m (aspect ratios up to 5), random rotations,
//! centres uniform in a cube of half-width 1.2 m — about half the pairs touch.
//! Tolerance band: pairs with |OpM signed distance| ≤ 1e-9 m are *near-touching*; they
//! are counted and excluded from the agreement check (there the two answers differ only
//! by rounding: ChM's ψ is O(gap/size) and its touching band is |ψ| ≤ 1e-10).

mod common;

use common::{random_ellipsoid, random_pose, rng};
use msdem_ellipsoid::{chm, opm, ChmState};

const PAIRS: usize = 1_000_000;
const BAND: f64 = 1e-9;

#[test]
fn chm_and_opm_agree_on_a_million_random_pairs() {
    let mut r = rng(0x13_e111);
    let (mut contact, mut separate, mut band, mut not_converged) = (0usize, 0usize, 0usize, 0usize);
    let mut disagreements = Vec::new();
    for i in 0..PAIRS {
        let a = random_ellipsoid(&mut r, 0.2, 1.0);
        let b = random_ellipsoid(&mut r, 0.2, 1.0);
        let pa = random_pose(&mut r, 1.2);
        let pb = random_pose(&mut r, 1.2);
        let o = opm(&a, &pa, &b, &pb);
        if !o.converged() {
            not_converged += 1;
        }
        if o.signed_distance.abs() <= BAND {
            band += 1;
            continue;
        }
        let c = chm(&a, &pa, &b, &pb);
        let chm_contact = c.state != ChmState::Separated;
        if chm_contact {
            contact += 1;
        } else {
            separate += 1;
        }
        if chm_contact != o.in_contact() {
            disagreements.push((i, o.signed_distance, c.psi_min, o.status));
        }
    }
    println!(
        "{PAIRS} pairs: {contact} in contact, {separate} separated, {band} in the ±{BAND} m band, \
         {} disagreements, {not_converged} OpM not converged",
        disagreements.len()
    );
    for d in disagreements.iter().take(10) {
        println!(
            "  disagreement: pair {} opm signed {:e} chm psi {:e} {:?}",
            d.0, d.1, d.2, d.3
        );
    }
    assert!(disagreements.is_empty());
    assert_eq!(not_converged, 0);
    assert!(
        contact > PAIRS / 5 && separate > PAIRS / 5,
        "the mix is not balanced"
    );
}
