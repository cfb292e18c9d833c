//! The CPU path the GPU is checked against, with rayon on all threads: the seed 002 §4
//! binning of `msdem-broadphase` ([`Bins`]) on the bounding spheres, then per pair the
//! solver core's ellipsoid rule (`solver/core/src/detect/ellipsoid_ellipsoid.rs`): ChM
//! (§3) on A inflated by `1 + (ε_i + ε_j)/r_min(A)`, OpM (§2) for the survivors, a
//! contact when the signed distance is at most `ε_i + ε_j`.

use crate::body::{Detection, DetectionStats, EllipsoidBody, PairContact};
use crate::error::GpuError;
use crate::pack::validate;
use msdem_broadphase::{Bins, BroadPhase, Sphere};
use msdem_ellipsoid::math::{Iso3, Quat, Vec3};
use msdem_ellipsoid::{chm_in_contact, opm, Ellipsoid};
use nalgebra::{Quaternion, Translation3};
use rayon::prelude::*;

/// Shape and pose of body `index` (the quaternion used as given, like the device does);
/// invalid semi-axes are [`GpuError::BadBody`] with that index.
pub fn shape_and_pose(index: usize, b: &EllipsoidBody) -> Result<(Ellipsoid, Iso3), GpuError> {
    let shape = Ellipsoid::new(b.semi_axes_m).map_err(|e| GpuError::BadBody {
        index,
        message: e.to_string(),
    })?;
    let [w, x, y, z] = b.orientation;
    let rotation = Quat::new_unchecked(Quaternion::new(w, x, y, z));
    let [cx, cy, cz] = b.center_m;
    Ok((
        shape,
        Iso3::from_parts(Translation3::new(cx, cy, cz), rotation),
    ))
}

/// Outcome of one candidate pair: ChM survivor, and the contact if any.
fn pair(
    bodies: &[(Ellipsoid, Iso3)],
    halos: &[f64],
    i: u32,
    j: u32,
) -> (bool, Option<PairContact>) {
    let ((ea, pa), (eb, pb)) = (&bodies[i as usize], &bodies[j as usize]);
    let margin = halos[i as usize] + halos[j as usize];
    let scale = 1.0 + margin / ea.min_radius();
    if let Ok(big) = Ellipsoid::new(ea.radii().map(|r| r * scale)) {
        if !chm_in_contact(&big, pa, eb, pb) {
            return (false, None);
        }
    }
    let c = opm(ea, pa, eb, pb);
    let contact = (c.signed_distance <= margin && c.signed_distance.is_finite()).then(|| {
        let v = |p: Vec3| [p.x, p.y, p.z];
        PairContact {
            i,
            j,
            signed_distance_m: c.signed_distance,
            normal: v(c.normal),
            point_a_m: v(c.point_a.coords),
            point_b_m: v(c.point_b.coords),
            converged: c.converged(),
            iterations: c.iterations,
        }
    });
    (true, contact)
}

/// Detects all contacts of `bodies` on the CPU (see the module doc); the result is sorted
/// by pair and does not depend on the thread count.
pub fn detect_cpu(bodies: &[EllipsoidBody]) -> Result<Detection, GpuError> {
    validate(bodies)?;
    let spheres: Vec<Sphere> = bodies
        .par_iter()
        .map(|b| Sphere::new(b.center_m, b.bounding_radius_m()))
        .collect();
    let mut candidates = Vec::new();
    Bins::new(None)?.find_pairs(&spheres, &mut candidates)?;
    let posed: Vec<(Ellipsoid, Iso3)> = bodies
        .par_iter()
        .enumerate()
        .map(|(i, b)| shape_and_pose(i, b))
        .collect::<Result<_, _>>()?;
    let halos: Vec<f64> = bodies.iter().map(|b| b.halo_m).collect();
    let outcomes: Vec<(bool, Option<PairContact>)> = candidates
        .par_iter()
        .map(|&(i, j)| pair(&posed, &halos, i, j))
        .collect();
    let chm_survivors = outcomes.iter().filter(|o| o.0).count() as u64;
    let contacts: Vec<PairContact> = outcomes.into_iter().filter_map(|o| o.1).collect();
    Ok(Detection {
        stats: DetectionStats {
            bounding_pairs: candidates.len() as u64,
            chm_survivors,
            contacts: contacts.len() as u64,
        },
        contacts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sphere(x: f64, r: f64, halo: f64) -> EllipsoidBody {
        EllipsoidBody {
            center_m: [x, 0.0, 0.0],
            orientation: [1.0, 0.0, 0.0, 0.0],
            semi_axes_m: [r; 3],
            halo_m: halo,
        }
    }

    #[test]
    fn sphere_row_gives_the_analytic_gaps_and_depths() {
        // Gaps: 0.5 (halo sum 0.6: contact), -0.5 (overlap), 1.0 (no contact).
        let set = [
            sphere(0.0, 1.0, 0.3),
            sphere(2.5, 1.0, 0.3),
            sphere(3.25, 0.25, 0.0),
            sphere(10.0, 1.0, 0.0),
        ];
        let d = detect_cpu(&set).unwrap();
        let got: Vec<(u32, u32, f64)> = d
            .contacts
            .iter()
            .map(|c| (c.i, c.j, c.signed_distance_m))
            .collect();
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!((got[0].0, got[0].1), (0, 1));
        assert!((got[0].2 - 0.5).abs() < 1e-12);
        assert_eq!((got[1].0, got[1].1), (1, 2));
        assert!((got[1].2 + 0.5).abs() < 1e-12);
        assert!(
            (d.contacts[0].normal[0] + 1.0).abs() < 1e-12,
            "normal from B to A"
        );
    }

    #[test]
    fn equal_axis_ellipsoids_count_the_sphere_contacts() {
        let set = crate::workload::table2_spheres(3000, 11);
        let d = detect_cpu(&set).unwrap();
        let mut brute = 0;
        for i in 0..set.len() {
            for j in i + 1..set.len() {
                let (a, b) = (&set[i], &set[j]);
                let dist: f64 = (0..3)
                    .map(|k| (a.center_m[k] - b.center_m[k]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                if dist <= a.semi_axes_m[0] + b.semi_axes_m[0] {
                    brute += 1;
                }
            }
        }
        assert_eq!(d.stats.contacts, brute);
        assert_eq!(
            d.stats.bounding_pairs, brute,
            "spheres: the bounds are the shapes"
        );
    }

    #[test]
    fn one_and_two_threads_give_identical_results() {
        let set = crate::workload::random_ellipsoids(20_000, 6);
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| detect_cpu(&set).unwrap())
        };
        let one = run(1);
        assert!(one.contacts.len() > 500);
        assert_eq!(one, run(2));
    }

    #[test]
    fn invalid_body_is_reported_not_detected() {
        let mut set = vec![sphere(0.0, 1.0, 0.0); 3];
        set[2].semi_axes_m[1] = -1.0;
        let err = detect_cpu(&set).unwrap_err().to_string();
        assert!(err.starts_with("body 2: semi-axis b"), "{err}");
    }
}
