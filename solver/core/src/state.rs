//! The state of a simulation: what the integrators advance — every particle's pose and
//! velocities, the simulated time and the step count. Units: m, kg, s.

use msdem_geom::math::{Iso3, Mat3, Quat, Vec3};

/// A rigid particle: its constant mass properties and its kinematic state.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Body {
    /// Index into [`crate::model::Model::shapes`].
    pub shape: u32,
    /// Index into [`crate::model::Model::materials`].
    pub material: u32,
    /// Mass \[kg\].
    pub mass: f64,
    /// Inertia tensor about the centre of mass in body (shape) axes [kg·m²].
    pub inertia: Mat3,
    /// Inverse of [`Body::inertia`].
    pub inv_inertia: Mat3,
    /// Halo width ε \[m\].
    pub epsilon: f64,
    /// Bounding radius about the centre of mass \[m\] (without ε).
    pub radius: f64,
    /// World position of the centre of mass \[m\].
    pub position: Vec3,
    /// Orientation (body axes → world).
    pub orientation: Quat,
    /// Linear velocity [m/s].
    pub velocity: Vec3,
    /// Angular velocity, world frame [rad/s].
    pub angular_velocity: Vec3,
}

impl Body {
    /// A unit tests' body: 2 kg, unit inertia, ε = 0.01 m, bounding radius 1 m, at rest at
    /// the origin in the identity orientation.
    #[cfg(test)]
    pub(crate) fn test_body() -> Body {
        Body {
            shape: 0,
            material: 0,
            mass: 2.0,
            inertia: Mat3::identity(),
            inv_inertia: Mat3::identity(),
            epsilon: 0.01,
            radius: 1.0,
            position: Vec3::zeros(),
            orientation: Quat::identity(),
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
        }
    }

    /// Shape frame → world: `x ↦ position + R·(x − com)`.
    pub fn mesh_to_world(&self, com: &Vec3) -> Iso3 {
        let rot = self.orientation;
        let t = self.position - rot * com;
        Iso3::from_parts(t.into(), rot)
    }

    /// World-frame inverse inertia `R I⁻¹ Rᵀ`.
    pub fn world_inv_inertia(&self) -> Mat3 {
        let r = self.orientation.to_rotation_matrix();
        r.matrix() * self.inv_inertia * r.matrix().transpose()
    }
}

/// Everything an integrator advances.
#[derive(Clone, Debug, Default)]
pub struct State {
    /// Particles; the particle id is the index.
    pub bodies: Vec<Body>,
    /// Current simulated time \[s\].
    pub time: f64,
    /// Steps taken so far.
    pub step: u64,
}
