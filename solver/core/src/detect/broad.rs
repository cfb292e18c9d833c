//! Broad phase of the detection layer (seed 000 Alg. 1 line 3, docs/design.md §7): the candidate body pairs
//! whose bounding spheres, including the halos ε, overlap.
//!
//! * particle–particle: spheres `(x, r + ε + ρ)` through `msdem-broadphase`, the algorithm and
//!   parameters of [`BroadPhaseChoice`] (scenario `broadphase:`; default the HGrid of
//!   seed 001 with automatic levels, §5.2.3);
//!   (`ρ` the body's [`surface_reach`]: 0 for facets, the displacement bound of a smooth
//!   mesh, whose curved surface may lie outside its vertices' bounding sphere);
//! * particle–obstacle: the particle's sphere against the obstacle's world AABB (which
//!   already includes the obstacle's ε); the obstacle's surrogate tree does the rest in the
//!   narrow phase.
//!
//! Output order is deterministic: particle pairs `(a, b)`, `a < b`, ascending, then
//! particle–obstacle pairs ascending by `(particle, obstacle)`.
//!
//! **Rebuild policy** (Verlet skin, as in neighbour lists). With skin δ = 0 the grid is
//! rebuilt from scratch in every step (O(N) counting sort). With δ > 0 the grid is built
//! with every radius grown by δ/2 and the candidate pairs it yields are kept; each later
//! step only re-tests those pairs with the exact sphere test, until some particle has moved
//! more than δ/2 since the last rebuild, which triggers the next rebuild. Two spheres that
//! overlap now were at most `r_a + r_b + δ` apart at the rebuild, so the pair list is
//! exactly the one of δ = 0, in the same order: the skin changes the broad-phase time,
//! never a contact or a trajectory. The automatic HGrid levels are re-planned only when the
//! particle count or the radius range changes (never during a run: radii are fixed).
//! A [`BroadStage`] keeps its broad phase (and so its kept pairs) across steps and rebuilds
//! it from scratch when the choice passed to it changes.

use crate::model::smooth::Surface;
use crate::model::{Model, Other};
use crate::params::BroadPhaseChoice;
use crate::state::Body;
use msdem_broadphase::{
    BroadPhase, BroadPhaseError, BroadPhaseKind, BroadPhaseStats, HGridConfig, Sphere,
};
use msdem_geom::math::Vec3;

/// A candidate pair: `a` is a particle id, `b` a particle with a larger id or an obstacle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CandidatePair {
    /// Particle id.
    pub a: u32,
    /// The other body.
    pub b: Other,
}

/// Reusable state of the broad phase (the grid and its buffers).
#[derive(Default)]
pub struct BroadStage {
    phase: Option<(BroadPhaseChoice, Box<dyn BroadPhase>)>,
    spheres: Vec<Sphere>,
    pairs: Vec<(u32, u32)>,
}

impl std::fmt::Debug for BroadStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BroadStage")
            .field("phase", &self.phase.as_ref().map(|p| &p.0))
            .field("spheres", &self.spheres.len())
            .finish()
    }
}

/// The default Verlet skin as a fraction of the smallest particle's bounding diameter
/// (incl. ε) \[-\]: used by [`BroadPhaseChoice::Grid`] and by a scenario that leaves `skin`
/// out with automatic cells (see [`default_skin`]).
///
/// Measured on the staircase (54 particles, 30,000 steps, one thread): the broad phase
/// takes 10.4 µs/step with skin 0, 4.4 / 3.2 / 2.5 / 1.9 µs/step with 2 / 5 / 10 / 20 mm
/// (0.1 × the smallest diameter ≈ 7 mm); outputs byte-identical. A skin relative to the
/// particle size keeps the extra candidates per sphere bounded whatever the length unit.
pub const DEFAULT_SKIN_FRACTION: f64 = 0.1;

/// The default Verlet skin \[m\] of a set of particles: [`DEFAULT_SKIN_FRACTION`] × the
/// smallest bounding diameter `2 (r + ε)`; 0 without particles or for a non-finite value.
pub fn default_skin(bodies: &[Body]) -> f64 {
    let smallest = bodies
        .iter()
        .map(|b| 2.0 * (b.radius + b.epsilon))
        .fold(f64::INFINITY, f64::min);
    let skin = DEFAULT_SKIN_FRACTION * smallest;
    if skin.is_finite() && skin > 0.0 {
        skin
    } else {
        0.0
    }
}

/// The `msdem-broadphase` algorithm and parameters behind a broad-phase choice; `bodies` fix
/// the skin of [`BroadPhaseChoice::Grid`] ([`default_skin`]).
pub fn broadphase_kind(choice: &BroadPhaseChoice, bodies: &[Body]) -> BroadPhaseKind {
    match choice {
        BroadPhaseChoice::Grid => BroadPhaseKind::HGrid(HGridConfig {
            skin: default_skin(bodies),
            ..HGridConfig::default()
        }),
        BroadPhaseChoice::AllPairs => BroadPhaseKind::AllPairs,
        BroadPhaseChoice::LinkedCells { cell_size, skin } => BroadPhaseKind::LinkedCells {
            cell_size: *cell_size,
            skin: *skin,
        },
        BroadPhaseChoice::HGrid(config) => BroadPhaseKind::HGrid(config.clone()),
        BroadPhaseChoice::Bins { bin_size } => BroadPhaseKind::Bins {
            bin_size: *bin_size,
        },
    }
}

/// Closed test of a sphere against an axis-aligned box `(min, max)`.
pub fn sphere_touches_aabb(center: &Vec3, radius: f64, aabb: &(Vec3, Vec3)) -> bool {
    let closest = center.sup(&aabb.0).inf(&aabb.1);
    (closest - center).norm_squared() <= radius * radius
}

/// How far \[m\] a body's contact surface may lie outside its bounding sphere (radius
/// [`Body::radius`] about the centre of mass, docs/design.md §3 *Smooth surfaces*): with
/// `surface: smooth` the curved surface lies within its mesh's largest per-triangle
/// displacement bound of the facets (`SmoothSurface::sag_bound_m`), so within
/// `radius + reach` of the centre; 0 for facets and for meshes without curved triangles
/// (their bounding tests stay bit for bit: `x + 0.0 == x`). Every body-level prune adds it
/// to the radius; the halo width (a fraction of the diameter) does not change.
pub fn surface_reach(model: &Model, body: &Body) -> f64 {
    let smooth = model
        .materials
        .get(body.material as usize)
        .is_some_and(|m| m.surface == Surface::Smooth);
    if !smooth {
        return 0.0;
    }
    model
        .shapes
        .get(body.shape as usize)
        .and_then(|s| s.geometry.mesh())
        .map_or(0.0, |m| m.smooth.sag_bound_m)
}

/// Radius \[m\] of the sphere about a particle's centre of mass that holds its contact
/// surface and halo: `r + ε + ρ` ([`surface_reach`]).
pub fn outer_radius(model: &Model, body: &Body) -> f64 {
    body.radius + body.epsilon + surface_reach(model, body)
}

/// Bounding sphere of a particle including its halo and surface reach \[m\]
/// ([`outer_radius`]).
pub fn bounding_sphere(model: &Model, body: &Body) -> Sphere {
    Sphere::new(body.position.into(), outer_radius(model, body))
}

fn obstacle_pairs(model: &Model, bodies: &[Body], out: &mut Vec<CandidatePair>) {
    for (a, body) in bodies.iter().enumerate() {
        let r = outer_radius(model, body);
        for (o, ob) in model.obstacles.iter().enumerate() {
            if sphere_touches_aabb(&body.position, r, &ob.aabb) {
                out.push(CandidatePair {
                    a: a as u32,
                    b: Other::Obstacle(o as u32),
                });
            }
        }
    }
}

impl BroadStage {
    /// Work counters of the last particle–particle query (`rebuilt` is false when a Verlet
    /// candidate list was reused); default before the first query.
    pub fn stats(&self) -> BroadPhaseStats {
        self.phase
            .as_ref()
            .map_or_else(BroadPhaseStats::default, |(_, p)| p.stats())
    }

    /// Clears `out` and fills it with the candidate pairs of `bodies` (and `model`'s
    /// obstacles), found by the broad phase `choice` (built on first use and whenever the
    /// choice differs from the last call's).
    pub fn candidates(
        &mut self,
        model: &Model,
        bodies: &[Body],
        choice: &BroadPhaseChoice,
        out: &mut Vec<CandidatePair>,
    ) -> Result<(), BroadPhaseError> {
        out.clear();
        let phase = match &mut self.phase {
            Some((c, p)) if c == choice => p,
            slot => {
                let built = broadphase_kind(choice, bodies).build()?;
                &mut slot.insert((choice.clone(), built)).1
            }
        };
        self.spheres.clear();
        self.spheres
            .extend(bodies.iter().map(|b| bounding_sphere(model, b)));
        phase.find_pairs(&self.spheres, &mut self.pairs)?;
        out.extend(self.pairs.iter().map(|&(a, b)| CandidatePair {
            a,
            b: Other::Particle(b),
        }));
        obstacle_pairs(model, bodies, out);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sphere_box_test_is_closed_and_exact_at_corners() {
        let aabb = (Vec3::zeros(), Vec3::new(1.0, 1.0, 1.0));
        assert!(sphere_touches_aabb(&Vec3::new(0.5, 0.5, 1.5), 0.5, &aabb));
        assert!(!sphere_touches_aabb(
            &Vec3::new(0.5, 0.5, 1.5),
            0.499,
            &aabb
        ));
        let c = Vec3::new(1.3, 1.3, 1.3);
        let d = (3.0f64 * 0.09).sqrt();
        assert!(sphere_touches_aabb(&c, d + 1e-12, &aabb));
        assert!(!sphere_touches_aabb(&c, d - 1e-9, &aabb));
        assert!(sphere_touches_aabb(&Vec3::new(0.5, 0.5, 0.5), 0.01, &aabb));
    }
}
