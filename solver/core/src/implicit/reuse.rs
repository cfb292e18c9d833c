//! Reuse of the accepted state's evaluation in the next step's first Picard iteration
//! (see the parent module's docs), and the force evaluation of one iteration.

use super::{ImplicitWorkspace, PicardParams, PicardVariant};
use crate::contact::force::{accumulate_forces, Wrench};
use crate::world::{Body, World};
use msdem_geom::math::Vec3;

/// The inputs of the last contact/force evaluation of a step (see the module docs).
#[derive(Debug)]
pub(super) struct LastEvaluation {
    pub(super) bodies: Vec<Body>,
    pub(super) step: u64,
    pub(super) dt: f64,
    pub(super) gravity: Vec3,
    pub(super) variant: PicardVariant,
    pub(super) damping: f64,
    pub(super) pairs: u32,
}

fn same_body(a: &Body, b: &Body) -> bool {
    a.shape == b.shape
        && a.material == b.material
        && a.mass == b.mass
        && a.inertia == b.inertia
        && a.inv_inertia == b.inv_inertia
        && a.epsilon == b.epsilon
        && a.radius == b.radius
        && a.position == b.position
        && a.orientation == b.orientation
        && a.velocity == b.velocity
        && a.angular_velocity == b.angular_velocity
}

impl LastEvaluation {
    /// Whether this evaluation is the one iteration 0 of a step from `world` would make.
    pub(super) fn matches(&self, world: &World, variant: PicardVariant, damping: f64) -> bool {
        self.step == world.step
            && self.dt == world.params.dt
            && self.gravity == world.params.gravity
            && self.variant == variant
            && self.damping == damping
            && self.bodies.len() == world.bodies.len()
            && self
                .bodies
                .iter()
                .zip(&world.bodies)
                .all(|(a, b)| same_body(a, b))
    }
}

/// Forces of the contacts in `ws` at the state of `world` into `ws.computed`, plus the
/// damped coarse estimates (remark 5).
pub(super) fn compute_forces(
    world: &World,
    ws: &mut ImplicitWorkspace,
    params: &PicardParams,
    dt: f64,
    n: usize,
) {
    ws.computed.clear();
    ws.computed.resize(n, Wrench::default());
    accumulate_forces(
        world,
        &world.bodies,
        &ws.contacts,
        dt,
        &mut ws.computed,
        None,
    );
    if !ws.coarse.is_empty() && params.coarse_force_damping > 0.0 {
        ws.coarse_wrenches.clear();
        ws.coarse_wrenches.resize(n, Wrench::default());
        accumulate_forces(
            world,
            &world.bodies,
            &ws.coarse,
            dt,
            &mut ws.coarse_wrenches,
            None,
        );
        let c = params.coarse_force_damping;
        for (w, e) in ws.computed.iter_mut().zip(&ws.coarse_wrenches) {
            w.force += c * e.force;
            w.torque += c * e.torque;
        }
    }
}
