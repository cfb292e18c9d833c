//! Input and output checks of the collision solver: it never panics and never writes a
//! non-finite value into a body.

use super::sweep::Velocities;
use crate::contact::Contact;
use crate::error::StepError;
use crate::model::{Model, Other};
use crate::state::Body;
use msdem_geom::math::Vec3;

fn non_finite(particle: u32, quantity: &'static str) -> StepError {
    StepError::NonFinite {
        step: 0,
        particle,
        quantity,
    }
}

fn invalid(contact: usize, message: String) -> StepError {
    StepError::InvalidContact {
        step: 0,
        contact: contact as u32,
        message,
    }
}

/// Checks that bodies and contacts are finite and that every contact names existing,
/// distinct bodies and carries a unit normal.
pub fn input(model: &Model, bodies: &[Body], contacts: &[Contact]) -> Result<(), StepError> {
    if let Some((particle, quantity)) = crate::motion::first_non_finite(bodies) {
        return Err(non_finite(particle, quantity));
    }
    for (i, b) in bodies.iter().enumerate() {
        if !(b.mass.is_finite() && b.mass > 0.0) {
            return Err(non_finite(i as u32, "mass"));
        }
        if !b.inv_inertia.iter().all(|x| x.is_finite()) {
            return Err(non_finite(i as u32, "inverse inertia"));
        }
        if (b.material as usize) >= model.materials.len() {
            return Err(invalid(
                0,
                format!(
                    "particle {i} has material {} of {}",
                    b.material,
                    model.materials.len()
                ),
            ));
        }
    }
    let n = bodies.len();
    for (i, c) in contacts.iter().enumerate() {
        if c.a as usize >= n {
            return Err(invalid(i, format!("particle {} of a cluster of {n}", c.a)));
        }
        match c.b {
            Other::Particle(j) if j as usize >= n => {
                return Err(invalid(i, format!("particle {j} of a cluster of {n}")));
            }
            Other::Particle(j) if j == c.a => {
                return Err(invalid(i, format!("particle {j} in contact with itself")));
            }
            Other::Obstacle(k) if k as usize >= model.obstacles.len() => {
                return Err(invalid(
                    i,
                    format!("obstacle {k} of {}", model.obstacles.len()),
                ));
            }
            _ => {}
        }
        if !c.point.iter().all(|x| x.is_finite()) {
            return Err(non_finite(c.a, "contact point"));
        }
        if !c.normal.iter().all(|x| x.is_finite()) {
            return Err(non_finite(c.a, "contact normal"));
        }
        if c.dist.is_nan() {
            return Err(non_finite(c.a, "contact distance"));
        }
        let length = c.normal.norm();
        if !(0.5..=2.0).contains(&length) {
            return Err(invalid(
                i,
                format!("normal of length {length} (not a unit vector)"),
            ));
        }
    }
    Ok(())
}

/// Checks the solver's results before they are written into the bodies (a NaN from a
/// non-finite material value, e.g.).
pub fn output(state: &Velocities, shifts: &[Vec3]) -> Result<(), StepError> {
    let finite = |v: &Vec3| v.iter().all(|x| x.is_finite());
    let rows = state.velocity.iter().zip(&state.angular).zip(shifts);
    for (i, ((velocity, angular), shift)) in rows.enumerate() {
        if !finite(velocity) {
            return Err(non_finite(i as u32, "velocity"));
        }
        if !finite(angular) {
            return Err(non_finite(i as u32, "angular velocity"));
        }
        if !finite(shift) {
            return Err(non_finite(i as u32, "position"));
        }
    }
    Ok(())
}
