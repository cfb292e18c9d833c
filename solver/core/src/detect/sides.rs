//! The two sides of a candidate pair as the pair code of any kind sees them: geometry,
//! pose (shape or obstacle frame → world) and halo width.

use super::broad::CandidatePair;
use crate::model::{Geometry, Model, Other};
use crate::state::Body;
use msdem_geom::math::Iso3;

/// One side of a candidate pair.
#[derive(Clone, Copy, Debug)]
pub struct Side<'m> {
    /// The side's geometry (in its own frame).
    pub geometry: &'m Geometry,
    /// Its frame → world.
    pub pose: Iso3,
    /// Its halo width ε \[m\].
    pub eps: f64,
}

impl<'m> Side<'m> {
    /// Side `a` of `pair` (a particle) at the poses of `bodies`; `None` for a bad id.
    pub fn a(model: &'m Model, bodies: &[Body], pair: &CandidatePair) -> Option<Self> {
        particle(model, bodies, pair.a)
    }

    /// Side `b` of `pair` (a particle or an obstacle); `None` for a bad id.
    pub fn b(model: &'m Model, bodies: &[Body], pair: &CandidatePair) -> Option<Self> {
        match pair.b {
            Other::Particle(j) => particle(model, bodies, j),
            Other::Obstacle(o) => {
                let ob = model.obstacles.get(o as usize)?;
                Some(Side {
                    geometry: &ob.geometry,
                    pose: ob.pose,
                    eps: ob.epsilon,
                })
            }
        }
    }
}

fn particle<'m>(model: &'m Model, bodies: &[Body], i: u32) -> Option<Side<'m>> {
    let body = bodies.get(i as usize)?;
    let shape = model.shapes.get(body.shape as usize)?;
    Some(Side {
        geometry: &shape.geometry,
        pose: body.mesh_to_world(&shape.com),
        eps: body.epsilon,
    })
}
