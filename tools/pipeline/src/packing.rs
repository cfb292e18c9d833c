//! The packing fraction of a settled bed (`report.packing_box`), from the run folder's
//! manifest and last frame.
//!
//! Definitions. The particles counted are those whose centre of mass lies inside the box
//! `[min_m, max_m]`, `A` the box's horizontal area and `z₀ = min_m.z` its floor. The bed
//! height `h` is the highest top among them (for an ellipsoid its exact highest point
//! `z + h_z`, `h_z = √(Σᵢ (R₂ᵢ rᵢ)²)`; for a mesh particle centre + bounding radius), at
//! most `max_m.z`. Then
//!
//! * `bed = Σ V_i / (A (h − z₀))`: all the solid over the box volume below the bed height
//!   (`V_i = m_i / ρ_i`, exact for ellipsoids and closed meshes). The rough top layer counts
//!   whole, so this is below the bulk value.
//! * `core`: the solid volume below `z_c = z₀ + (h − z₀)/2` over `A (z_c − z₀)` — the lower
//!   half of the bed, clear of the rough surface. An ellipsoid's volume below a horizontal
//!   plane at height `s` above its centre is exactly `V (1/2 + 3t/4 − t³/4)`, `t = s / h_z`
//!   clamped to `[−1, 1]` (an affine map takes it to a unit ball cut by a plane at distance
//!   `t`); a mesh particle is counted as that formula with its bounding radius.

use std::path::Path;

use msdem_frames::{
    frame_path, manifest_path, read_record, Frame, RunManifest, FRAME_MAGIC, MANIFEST_MAGIC,
};

use crate::spec::PackingBox;

/// The packing fraction and what it was computed from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packing {
    /// All the solid over the box volume below the bed height \[-\].
    pub fraction: f64,
    /// Solid volume fraction of the lower half of the bed \[-\].
    pub core_fraction: f64,
    /// Bed height \[m\] (world z).
    pub bed_height_m: f64,
    /// Particles whose centre is inside the box.
    pub particles: usize,
    /// Their solid volume \[m³\].
    pub solid_volume_m3: f64,
    /// Time of the frame \[s\].
    pub time_s: f64,
}

/// The index of the last frame file in `run_dir/frames` (frames are numbered from 0
/// without gaps).
fn last_frame(run_dir: &Path) -> Result<u32, String> {
    let mut n = 0u32;
    while frame_path(run_dir, n + 1).exists() {
        n += 1;
    }
    if !frame_path(run_dir, n).exists() {
        return Err(format!("{}: no frame", frame_path(run_dir, 0).display()));
    }
    Ok(n)
}

/// The highest z of a particle above its centre \[m\].
fn top_offset(semi_axes: Option<[f64; 3]>, orientation: [f64; 4], bounding_radius: f64) -> f64 {
    let Some(r) = semi_axes else {
        return bounding_radius;
    };
    let [w, x, y, z] = orientation;
    // Third row of the rotation matrix of the unit quaternion (w, x, y, z).
    let row = [
        2.0 * (x * z - w * y),
        2.0 * (y * z + w * x),
        1.0 - 2.0 * (x * x + y * y),
    ];
    (0..3).map(|i| (row[i] * r[i]).powi(2)).sum::<f64>().sqrt()
}

/// The share of an ellipsoid's volume below a horizontal plane `s` above its centre, for
/// the half-height `h` (its support in z): `1/2 + 3t/4 − t³/4`, `t = s/h` clamped.
fn fraction_below(s: f64, h: f64) -> f64 {
    let t = if h > 0.0 {
        (s / h).clamp(-1.0, 1.0)
    } else {
        s.signum()
    };
    0.5 + 0.75 * t - 0.25 * t * t * t
}

/// The packing fractions in `bx` of the last frame of `run_dir`; `densities` are the
/// materials' densities \[kg/m³\] in the manifest's material order.
pub fn packing(run_dir: &Path, bx: &PackingBox, densities: &[f64]) -> Result<Packing, String> {
    let m: RunManifest =
        read_record(&manifest_path(run_dir), &MANIFEST_MAGIC).map_err(|e| e.to_string())?;
    let frame_file = frame_path(run_dir, last_frame(run_dir)?);
    let f: Frame = read_record(&frame_file, &FRAME_MAGIC).map_err(|e| e.to_string())?;
    if f.bodies.len() != m.particles.len() {
        return Err(format!(
            "{}: {} bodies, the manifest has {} particles",
            frame_file.display(),
            f.bodies.len(),
            m.particles.len()
        ));
    }
    let (lo, hi) = (bx.min_m, bx.max_m);
    let (mut volume, mut count, mut top) = (0.0, 0usize, lo[2]);
    // (centre z, top offset, volume) of the counted particles.
    let mut counted = Vec::new();
    for (k, (p, b)) in m.particles.iter().zip(&f.bodies).enumerate() {
        let c = b.position;
        if !(0..3).all(|a| c[a] >= lo[a] && c[a] <= hi[a]) {
            continue;
        }
        let density = densities
            .get(p.material as usize)
            .copied()
            .ok_or_else(|| format!("particle {k}: material {} unknown", p.material))?;
        let shape = m
            .shapes
            .get(p.shape as usize)
            .ok_or_else(|| format!("particle {k}: shape {} unknown", p.shape))?;
        let offset = top_offset(shape.ellipsoid, b.orientation, p.radius);
        volume += p.mass / density;
        count += 1;
        top = top.max(c[2] + offset);
        counted.push((c[2], offset, p.mass / density));
    }
    let height = top.min(hi[2]);
    let box_volume = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (height - lo[2]);
    if count == 0 || box_volume <= 0.0 {
        return Err("no particle inside the packing box".into());
    }
    let cut = lo[2] + 0.5 * (height - lo[2]);
    let below: f64 = counted
        .iter()
        .map(|&(z, h, v)| v * fraction_below(cut - z, h))
        .sum();
    let area = (hi[0] - lo[0]) * (hi[1] - lo[1]);
    Ok(Packing {
        fraction: volume / box_volume,
        core_fraction: below / (area * (cut - lo[2])),
        bed_height_m: height,
        particles: count,
        solid_volume_m3: volume,
        time_s: f.time,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn volume_below_a_plane_matches_a_sliced_ball() {
        // Unit ball: the cap below z = t has volume π (t + 1)² (2 − t) / 3, over 4π/3.
        for t in [-1.0, -0.6, -0.1, 0.0, 0.3, 0.95, 1.0] {
            let exact = (t + 1.0f64).powi(2) * (2.0 - t) / 4.0;
            assert!((fraction_below(t, 1.0) - exact).abs() < 1e-15, "t = {t}");
        }
        // Scaled: an ellipsoid of half-height 3 cut 1.5 above its centre is a ball cut at ½.
        assert_eq!(fraction_below(1.5, 3.0), fraction_below(0.5, 1.0));
        assert_eq!(fraction_below(7.0, 3.0), 1.0);
        assert_eq!(fraction_below(-7.0, 3.0), 0.0);
    }

    #[test]
    fn ellipsoid_top_is_the_rotated_semi_axis() {
        let r = Some([3.0, 1.0, 2.0]);
        assert_eq!(top_offset(r, [1.0, 0.0, 0.0, 0.0], 9.0), 2.0);
        // A quarter turn about x puts body y along world z.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        assert!((top_offset(r, [h, h, 0.0, 0.0], 9.0) - 1.0).abs() < 1e-12);
        // About y: body x along world z.
        assert!((top_offset(r, [h, 0.0, h, 0.0], 9.0) - 3.0).abs() < 1e-12);
        assert_eq!(top_offset(None, [h, 0.0, h, 0.0], 9.0), 9.0);
    }
}
