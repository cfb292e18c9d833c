//! Agreement of two detections of the same bodies (GPU against the CPU reference).
//!
//! *Pairs.* The pair sets must be equal, except for pairs decided on the knife edge: a
//! pair in one list only is accepted when its signed distance there is within
//! `distance_tol · ℓ` of the contact threshold `ε_i + ε_j` (`ℓ` = sum of the largest
//! semi-axes and the centre distance), where the device's `cbrt`/`acos`/`sincos` may round
//! differently from the host's libm.
//!
//! *Values.* OpM stops when its Newton step is below 1e-10 rad, or on a line search that
//! cannot decrease `f` once the step is below 1e-7 rad (`opm.rs`); both paths stop near
//! the same minimiser, where `f` is stationary: the signed distance agrees to second order
//! (default `distance_tol` 1e-9 of `ℓ`), the normal and witness points to first order in
//! the angle (default `angle_tol` 1e-6 rad, ten times the fallback bound; points within
//! `angle_tol · ℓ`).

use crate::body::{Detection, EllipsoidBody, PairContact};

/// Tolerances of [`compare`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerances {
    /// Relative tolerance on the signed distance, and the knife-edge band \[-\].
    pub distance_tol: f64,
    /// Tolerance on the normal (componentwise) \[rad\], and on the points over `ℓ`.
    pub angle_tol: f64,
}

impl Default for Tolerances {
    fn default() -> Self {
        Tolerances {
            distance_tol: 1e-9,
            angle_tol: 1e-6,
        }
    }
}

/// What [`compare`] measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Agreement {
    /// Pairs in both lists.
    pub matched: usize,
    /// Knife-edge pairs in one list only.
    pub knife_edge: usize,
    /// Largest `|Δ signed distance| / ℓ` over matched pairs.
    pub max_distance_rel: f64,
    /// Largest componentwise normal difference.
    pub max_normal: f64,
    /// Largest componentwise witness-point difference over `ℓ`.
    pub max_point_rel: f64,
}

fn length_scale(bodies: &[EllipsoidBody], c: &PairContact) -> f64 {
    let (a, b) = (&bodies[c.i as usize], &bodies[c.j as usize]);
    let big = |e: &EllipsoidBody| e.semi_axes_m.iter().cloned().fold(0.0, f64::max);
    let dist = (0..3)
        .map(|k| (a.center_m[k] - b.center_m[k]).powi(2))
        .sum::<f64>()
        .sqrt();
    big(a) + big(b) + dist
}

fn knife_edge(bodies: &[EllipsoidBody], c: &PairContact, tol: f64) -> bool {
    let margin = bodies[c.i as usize].halo_m + bodies[c.j as usize].halo_m;
    (c.signed_distance_m - margin).abs() <= tol * length_scale(bodies, c)
}

fn max_diff(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max)
}

/// Compares `got` against `want` (see the module doc); `Err` names the first disagreement.
pub fn compare(
    bodies: &[EllipsoidBody],
    want: &Detection,
    got: &Detection,
    tol: &Tolerances,
) -> Result<Agreement, String> {
    if want.stats.bounding_pairs != got.stats.bounding_pairs {
        return Err(format!(
            "bounding-sphere pairs differ: {} against {}",
            want.stats.bounding_pairs, got.stats.bounding_pairs
        ));
    }
    for list in [&want.contacts, &got.contacts] {
        if let Some(w) = list
            .windows(2)
            .find(|w| (w[0].i, w[0].j) >= (w[1].i, w[1].j))
        {
            return Err(format!(
                "list not strictly sorted at pair ({}, {})",
                w[1].i, w[1].j
            ));
        }
    }
    let mut agreement = Agreement::default();
    let (mut p, mut q) = (0, 0);
    let (w, g) = (&want.contacts, &got.contacts);
    while p < w.len() || q < g.len() {
        let kw = w.get(p).map(|c| (c.i, c.j));
        let kg = g.get(q).map(|c| (c.i, c.j));
        if kw.is_some() && (kg.is_none() || kw < kg) {
            if !knife_edge(bodies, &w[p], tol.distance_tol) {
                return Err(format!("pair {:?} only in the reference: {:?}", kw, w[p]));
            }
            agreement.knife_edge += 1;
            p += 1;
        } else if kg.is_some() && (kw.is_none() || kg < kw) {
            if !knife_edge(bodies, &g[q], tol.distance_tol) {
                return Err(format!("pair {:?} only in the result: {:?}", kg, g[q]));
            }
            agreement.knife_edge += 1;
            q += 1;
        } else {
            let (a, b) = (&w[p], &g[q]);
            let l = length_scale(bodies, a);
            let dd = (a.signed_distance_m - b.signed_distance_m).abs() / l;
            let dn = max_diff(&a.normal, &b.normal);
            let dp =
                max_diff(&a.point_a_m, &b.point_a_m).max(max_diff(&a.point_b_m, &b.point_b_m)) / l;
            if !(dd <= tol.distance_tol && dn <= tol.angle_tol && dp <= tol.angle_tol) {
                return Err(format!(
                    "pair {kw:?} differs: distance {dd:e} of ℓ, normal {dn:e}, points {dp:e} of ℓ\n  want {a:?}\n  got  {b:?}"
                ));
            }
            agreement.matched += 1;
            agreement.max_distance_rel = agreement.max_distance_rel.max(dd);
            agreement.max_normal = agreement.max_normal.max(dn);
            agreement.max_point_rel = agreement.max_point_rel.max(dp);
            p += 1;
            q += 1;
        }
    }
    Ok(agreement)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::DetectionStats;

    fn setup() -> (Vec<EllipsoidBody>, Detection) {
        let bodies = crate::workload::random_ellipsoids(2000, 4);
        let d = crate::cpu::detect_cpu(&bodies).unwrap();
        assert!(d.contacts.len() > 20, "{:?}", d.stats);
        (bodies, d)
    }

    #[test]
    fn identical_lists_agree_exactly() {
        let (bodies, d) = setup();
        let a = compare(&bodies, &d, &d, &Tolerances::default()).unwrap();
        assert_eq!(a.matched, d.contacts.len());
        assert_eq!(
            (a.knife_edge, a.max_distance_rel, a.max_normal),
            (0, 0.0, 0.0)
        );
    }

    #[test]
    fn a_missing_deep_pair_a_shifted_depth_and_disorder_are_caught() {
        let (bodies, d) = setup();
        let deep = d
            .contacts
            .iter()
            .position(|c| c.signed_distance_m < -1.0)
            .expect("an overlapping pair");
        let mut missing = d.clone();
        missing.contacts.remove(deep);
        assert!(compare(&bodies, &d, &missing, &Tolerances::default())
            .unwrap_err()
            .contains("only in the reference"));
        let mut shifted = d.clone();
        shifted.contacts[deep].signed_distance_m *= 1.0 + 1e-6;
        assert!(compare(&bodies, &d, &shifted, &Tolerances::default())
            .unwrap_err()
            .contains("differs"));
        let mut swapped = d.clone();
        swapped.contacts.swap(0, 1);
        assert!(compare(&bodies, &d, &swapped, &Tolerances::default())
            .unwrap_err()
            .contains("sorted"));
        let mut counted = d.clone();
        counted.stats = DetectionStats {
            bounding_pairs: d.stats.bounding_pairs + 1,
            ..d.stats
        };
        assert!(compare(&bodies, &d, &counted, &Tolerances::default()).is_err());
    }
}
