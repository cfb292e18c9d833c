//! The Picard sweep driver (seed 004 §6): one sweep visits every contact point once,
//! colour by colour. Points of one colour share no particle, so each computes its update
//! from the velocities left by the previous colours, in parallel; the updates are then
//! applied in row order. Nothing is reduced in a thread-dependent order (the only
//! reduction is a maximum), so a sweep gives the same bits at any thread count.

use std::ops::Range;

use rayon::prelude::*;

use crate::state::Body;
use msdem_geom::math::{Mat3, Vec3};

/// Colours with fewer contact points than this are updated on the calling thread
/// (spawning tasks costs more than a few impulse updates).
pub const PARALLEL_MIN_ROWS: usize = 64;

/// Working copy of a cluster's particle velocities and inverse mass properties.
#[derive(Debug, Default)]
pub struct Velocities {
    /// Linear velocities [m/s].
    pub velocity: Vec<Vec3>,
    /// Angular velocities, world frame [rad/s].
    pub angular: Vec<Vec3>,
    /// Inverse masses [1/kg].
    pub inv_mass: Vec<f64>,
    /// World inverse inertia tensors `R I⁻¹ Rᵀ` [1/(kg·m²)].
    pub inv_inertia: Vec<Mat3>,
}

impl Velocities {
    /// Copies the state of `bodies` (no allocation once the buffers are large enough).
    pub fn load(&mut self, bodies: &[Body]) {
        self.velocity.clear();
        self.angular.clear();
        self.inv_mass.clear();
        self.inv_inertia.clear();
        for b in bodies {
            self.velocity.push(b.velocity);
            self.angular.push(b.angular_velocity);
            self.inv_mass.push(1.0 / b.mass);
            self.inv_inertia.push(b.world_inv_inertia());
        }
    }

    /// Inverse mass of particle `b`, 0 for an obstacle (`None`) [1/kg].
    pub fn inv_mass_of(&self, b: Option<u32>) -> f64 {
        b.map_or(0.0, |j| self.inv_mass[j as usize])
    }

    /// World inverse inertia of particle `b`, zero for an obstacle (`None`).
    pub fn inv_inertia_of(&self, b: Option<u32>) -> Mat3 {
        b.map_or(Mat3::zeros(), |j| self.inv_inertia[j as usize])
    }

    /// Velocity of the material point at lever arm `r` of particle `b`, zero for an
    /// obstacle [m/s].
    pub fn point_velocity(&self, b: Option<u32>, r: &Vec3) -> Vec3 {
        b.map_or(Vec3::zeros(), |j| {
            let j = j as usize;
            self.velocity[j] + self.angular[j].cross(r)
        })
    }
}

/// One sweep over `rows` colour by colour: `update` computes a row's new accumulated
/// value from the shared state and returns the size of its change; `apply` then writes the
/// row's change into the state. Returns the largest change.
pub fn sweep<R, S>(
    rows: &mut [R],
    colours: &[Range<usize>],
    state: &mut S,
    update: impl Fn(&mut R, &S) -> f64 + Sync,
    apply: impl Fn(&R, &mut S),
) -> f64
where
    R: Send,
    S: Sync,
{
    let mut largest = 0.0_f64;
    for range in colours {
        let rows = &mut rows[range.clone()];
        let shared: &S = state;
        let change = if rows.len() >= PARALLEL_MIN_ROWS {
            rows.par_iter_mut()
                .map(|row| update(row, shared))
                .reduce(|| 0.0, f64::max)
        } else {
            rows.iter_mut()
                .map(|row| update(row, shared))
                .fold(0.0, f64::max)
        };
        largest = largest.max(change);
        for row in rows.iter() {
            apply(row, state);
        }
    }
    largest
}
