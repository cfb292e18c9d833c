//! Host-side validation and packing of the bodies for upload: 11 doubles per body
//! (centre, quaternion `w x y z`, semi-axes, halo), the layout `prep_bodies` reads.

use crate::body::EllipsoidBody;
use crate::error::GpuError;
use rayon::prelude::*;

/// Bodies per parallel packing chunk.
const CHUNK: usize = 8192;

/// What packing learnt about a valid set, for the bin plan.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SetSummary {
    /// Largest bounding radius \[m\] (0 for an empty set).
    pub max_bound_m: f64,
    /// Largest centre coordinate magnitude \[m\].
    pub max_abs_center_m: f64,
}

/// Doubles per packed body.
pub const PACKED_STRIDE: usize = 11;

/// Largest body count: an entry stores `body << 3 | corner` in 32 bits.
pub const MAX_BODIES: usize = (1 << 29) - 1;

/// Checks one body: finite centre, unit quaternion (±1e-6), finite positive semi-axes,
/// finite non-negative halo. The error names the body's index and the bad value.
pub fn validate_body(index: usize, b: &EllipsoidBody) -> Result<(), GpuError> {
    let bad = |message: String| Err(GpuError::BadBody { index, message });
    if !b.center_m.iter().all(|x| x.is_finite()) {
        return bad(format!("centre {:?} m is not finite", b.center_m));
    }
    let q = b.orientation;
    let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    let unit = (norm - 1.0).abs() <= 1e-6; // false for NaN
    if !unit {
        return bad(format!(
            "orientation {q:?} is not a unit quaternion (norm {norm})"
        ));
    }
    for (axis, &r) in b.semi_axes_m.iter().enumerate() {
        if !(r.is_finite() && r > 0.0) {
            return bad(format!(
                "semi-axis {} = {r} m is not a positive finite length",
                ['a', 'b', 'c'][axis]
            ));
        }
    }
    if !(b.halo_m.is_finite() && b.halo_m >= 0.0) {
        return bad(format!("halo {} m is not finite and >= 0", b.halo_m));
    }
    Ok(())
}

/// Validates every body (the lowest bad index is reported) and the count.
pub fn validate(bodies: &[EllipsoidBody]) -> Result<(), GpuError> {
    if bodies.len() > MAX_BODIES {
        return Err(GpuError::TooLarge(format!(
            "{} bodies exceed the GPU detector's limit of {MAX_BODIES}",
            bodies.len()
        )));
    }
    bodies
        .iter()
        .enumerate()
        .try_for_each(|(i, b)| validate_body(i, b))
}

/// Writes the packed layout of valid bodies into `out` (cleared first).
pub fn pack_into(bodies: &[EllipsoidBody], out: &mut Vec<f64>) {
    out.clear();
    out.reserve(bodies.len() * PACKED_STRIDE);
    for b in bodies {
        out.extend_from_slice(&b.center_m);
        out.extend_from_slice(&b.orientation);
        out.extend_from_slice(&b.semi_axes_m);
        out.push(b.halo_m);
    }
}

/// Validates and packs in one parallel pass into `out` (at least
/// `bodies.len() * PACKED_STRIDE` long, e.g. pinned upload memory). On invalid input the
/// error of the lowest bad index, as [`validate`] gives it.
pub fn validate_and_pack(
    bodies: &[EllipsoidBody],
    out: &mut [f64],
) -> Result<SetSummary, GpuError> {
    if bodies.len() > MAX_BODIES {
        return validate(bodies).map(|()| SetSummary::default());
    }
    let need = bodies.len() * PACKED_STRIDE;
    let Some(out) = out.get_mut(..need) else {
        return Err(GpuError::TooLarge(format!(
            "packing {} bodies needs {need} doubles, the buffer holds {}",
            bodies.len(),
            out.len()
        )));
    };
    let parts: Vec<Option<SetSummary>> = bodies
        .par_chunks(CHUNK)
        .zip(out.par_chunks_mut(CHUNK * PACKED_STRIDE))
        .enumerate()
        .map(|(c, (chunk, dst))| {
            let mut sum = SetSummary::default();
            for (k, (b, d)) in chunk
                .iter()
                .zip(dst.chunks_exact_mut(PACKED_STRIDE))
                .enumerate()
            {
                validate_body(c * CHUNK + k, b).ok()?;
                d[0..3].copy_from_slice(&b.center_m);
                d[3..7].copy_from_slice(&b.orientation);
                d[7..10].copy_from_slice(&b.semi_axes_m);
                d[10] = b.halo_m;
                sum.max_bound_m = sum.max_bound_m.max(b.bounding_radius_m());
                for x in b.center_m {
                    sum.max_abs_center_m = sum.max_abs_center_m.max(x.abs());
                }
            }
            Some(sum)
        })
        .collect();
    let mut total = SetSummary::default();
    for part in parts {
        match part {
            Some(s) => {
                total.max_bound_m = total.max_bound_m.max(s.max_bound_m);
                total.max_abs_center_m = total.max_abs_center_m.max(s.max_abs_center_m);
            }
            // The sequential pass names the lowest bad index.
            None => return validate(bodies).map(|()| total),
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> EllipsoidBody {
        EllipsoidBody {
            center_m: [1.0, 2.0, 3.0],
            orientation: [1.0, 0.0, 0.0, 0.0],
            semi_axes_m: [0.5, 0.25, 0.125],
            halo_m: 0.01,
        }
    }

    #[test]
    fn packing_is_the_documented_layout() {
        let mut b2 = body();
        b2.center_m = [-4.0, -5.0, -6.0];
        b2.orientation = [0.0, 0.0, 1.0, 0.0];
        let mut out = vec![99.0];
        pack_into(&[body(), b2], &mut out);
        assert_eq!(out.len(), 2 * PACKED_STRIDE);
        assert_eq!(
            &out[..PACKED_STRIDE],
            &[1.0, 2.0, 3.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.25, 0.125, 0.01]
        );
        assert_eq!(
            &out[PACKED_STRIDE..PACKED_STRIDE + 7],
            &[-4.0, -5.0, -6.0, 0.0, 0.0, 1.0, 0.0]
        );
    }

    #[test]
    fn parallel_packing_equals_sequential_and_names_the_lowest_bad_index() {
        let set = crate::workload::random_ellipsoids(20_000, 2);
        let mut seq = Vec::new();
        pack_into(&set, &mut seq);
        let mut par = vec![0.0; set.len() * PACKED_STRIDE + 5];
        let sum = validate_and_pack(&set, &mut par).unwrap();
        assert_eq!(&par[..seq.len()], &seq[..]);
        let want_bound = set
            .iter()
            .map(|b| b.bounding_radius_m())
            .fold(0.0, f64::max);
        assert_eq!(sum.max_bound_m, want_bound);
        let mut bad = set.clone();
        bad[17_000].semi_axes_m[1] = 0.0;
        bad[9_000].center_m[0] = f64::INFINITY;
        let err = validate_and_pack(&bad, &mut par).unwrap_err().to_string();
        assert!(err.starts_with("body 9000: centre"), "{err}");
        let err = validate_and_pack(&set, &mut par[..7])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("needs 220000 doubles, the buffer holds 7"),
            "{err}"
        );
    }

    #[test]
    fn each_bad_field_is_named_with_the_lowest_index() {
        type Spoil = fn(&mut EllipsoidBody);
        let cases: [(Spoil, &str); 5] = [
            (|b| b.center_m[1] = f64::NAN, "centre"),
            (|b| b.orientation = [1.0, 1.0, 0.0, 0.0], "unit quaternion"),
            (|b| b.semi_axes_m[2] = 0.0, "semi-axis c = 0"),
            (|b| b.semi_axes_m[0] = f64::INFINITY, "semi-axis a = inf"),
            (|b| b.halo_m = -1.0, "halo -1"),
        ];
        for (spoil, want) in cases {
            let mut set = vec![body(); 5];
            spoil(&mut set[3]);
            spoil(&mut set[4]);
            let err = validate(&set).unwrap_err().to_string();
            assert!(err.starts_with("body 3: "), "{err}");
            assert!(err.contains(want), "{err} lacks {want}");
        }
        assert!(validate(&vec![body(); 5]).is_ok());
    }
}
