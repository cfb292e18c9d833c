//! Noisy (Perlin) spheres, optionally stretched along x (seed 000 §6.1 and Table 1).

use super::icosphere::{unit_icosphere, MAX_SUBDIVISIONS};
use super::{defaults, positive};
use crate::vec3::scale;
use crate::{MeshError, TriMesh};
use noise::{Fbm, MultiFractal, NoiseFn, Perlin};

/// Parameters of [`noise_sphere`]; the [`Default`] takes its optional ones from
/// [`defaults`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoiseSphere {
    /// Base radius `r` \[m\]: the smallest vertex radius.
    pub radius: f64,
    /// Icosphere subdivision level `k ≥ 1` (`20·4^k` triangles).
    pub subdivisions: u32,
    /// Radius ratio `η_r ≥ 1`: vertex radii lie in `[r, η_r·r]`; 1 = exact sphere.
    pub eta: f64,
    /// Noise seed.
    pub seed: u32,
    /// Number of Perlin octaves (1–16).
    pub octaves: u32,
    /// Scale factor applied along x afterwards (elongated sphere), `> 0`.
    pub stretch: f64,
}

impl Default for NoiseSphere {
    fn default() -> Self {
        NoiseSphere {
            radius: 1.0,
            subdivisions: 3,
            eta: defaults::ETA,
            seed: defaults::SEED,
            octaves: defaults::OCTAVES,
            stretch: defaults::STRETCH,
        }
    }
}

/// Checks a particle subdivision level: `1 ≤ k ≤ MAX_SUBDIVISIONS`.
pub(crate) fn check_subdivisions(k: u32) -> Result<u32, MeshError> {
    if (1..=MAX_SUBDIVISIONS).contains(&k) {
        Ok(k)
    } else {
        Err(MeshError::parameter(
            "--subdivisions",
            k,
            format!("must be between 1 and {MAX_SUBDIVISIONS}"),
        ))
    }
}

/// Icosphere whose vertex `i` lies at radius `r·(1 + (η_r − 1)·u_i)` along its direction
/// (seed 000 §6.1: "the per-vertex radius is from [1, η_r]").
///
/// `u_i ∈ [0, 1]` is multi-octave (fractal Brownian motion) Perlin noise evaluated at the
/// vertex's *unit*-sphere position, so the shape does not depend on `r`; the raw noise is
/// mapped affinely so that its minimum and maximum over the vertices become 0 and 1 (the
/// radii then span exactly `[r, η_r·r]`), then clamped. Displacing along the radius keeps
/// the mesh star-shaped, hence closed, outward and free of self-intersections. Finally x is
/// multiplied by `stretch`.
pub fn noise_sphere(p: &NoiseSphere) -> Result<TriMesh, MeshError> {
    positive("--radius", p.radius)?;
    check_subdivisions(p.subdivisions)?;
    if !(p.eta.is_finite() && p.eta >= 1.0) {
        return Err(MeshError::parameter("--eta", p.eta, "must be ≥ 1"));
    }
    if !(1..=16).contains(&p.octaves) {
        return Err(MeshError::parameter(
            "--octaves",
            p.octaves,
            "must be between 1 and 16",
        ));
    }
    positive("--stretch", p.stretch)?;
    let mut mesh = unit_icosphere(p.subdivisions);
    let u = unit_noise(&mesh.vertices, p.seed, p.octaves);
    for (v, u) in mesh.vertices.iter_mut().zip(u) {
        *v = scale(*v, p.radius * (1.0 + (p.eta - 1.0) * u));
        v[0] *= p.stretch;
    }
    Ok(mesh)
}

/// Noise in `[0, 1]` per unit-sphere point (min–max normalised over the points).
fn unit_noise(points: &[[f64; 3]], seed: u32, octaves: u32) -> Vec<f64> {
    let fbm = Fbm::<Perlin>::new(seed).set_octaves(octaves as usize);
    let raw: Vec<f64> = points.iter().map(|&p| fbm.get(p)).collect();
    let (lo, hi) = raw
        .iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    let span = hi - lo;
    raw.iter()
        .map(|&v| {
            if span.is_finite() && span > 0.0 && v.is_finite() {
                ((v - lo) / span).clamp(0.0, 1.0)
            } else {
                0.0
            }
        })
        .collect()
}
