//! Per-particle time stamps and the two snapshots of seed 004 §2.1: every particle carries
//! the state at its previous time stamp `t⁻` and at its current one `t`, and any state in
//! between is reconstructed by interpolation (consolidation, §4).
//!
//! Unlike the seed we keep gravity `g`. Between two snapshots a particle is in free flight
//! (collisions happen only at snapshot times, §6), so its centre follows a parabola and
//! the interpolation is the seed's lerp plus the exact gravity term:
//!
//! ```text
//! s = τ − t⁻,  T = t − t⁻
//! x(τ) = lerp(x⁻, x, s/T) − ½·g·s·(T − s)      (exact for the parabola)
//! v(τ) = v⁻ + g·s                               (= lerp(v⁻, v⁻ + g·T, s/T))
//! q(τ) = slerp(q⁻, q, s/T),  ω(τ) = ω⁻
//! ```
//!
//! `v` at a snapshot is the velocity *leaving* it (after that time stamp's impulses); the
//! velocity arriving at `t` is `v⁻ + g·T`, which is what the interpolation uses: a particle
//! rolled back to `τ < t` has not yet received the impulses of `t`. Rotation in free flight
//! is about a constant world axis (`q(τ) = exp(ω⁻ s)·q⁻`, exact for spheres and cubes).

use crate::state::Body;
use msdem_geom::math::{Quat, Vec3};

/// The kinematic state of one particle at one time stamp.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    /// Time stamp \[s\].
    pub time: f64,
    /// Centre of mass \[m\].
    pub position: Vec3,
    /// Orientation (body → world).
    pub orientation: Quat,
    /// Velocity leaving this time stamp [m/s].
    pub velocity: Vec3,
    /// Angular velocity leaving this time stamp, world frame [rad/s].
    pub angular_velocity: Vec3,
}

impl Snapshot {
    /// The state of `body` stamped with `time`.
    pub fn of(body: &Body, time: f64) -> Self {
        Snapshot {
            time,
            position: body.position,
            orientation: body.orientation,
            velocity: body.velocity,
            angular_velocity: body.angular_velocity,
        }
    }

    /// Writes this state into `body` (mass properties untouched).
    pub fn apply(&self, body: &mut Body) {
        body.position = self.position;
        body.orientation = self.orientation;
        body.velocity = self.velocity;
        body.angular_velocity = self.angular_velocity;
    }

    /// The state after free flight of `s ≥ 0` seconds under gravity `g` [m/s²]
    /// (seed 004 §2.1 extrapolation, plus gravity).
    pub fn flown(&self, s: f64, g: &Vec3) -> Snapshot {
        let turn = Quat::from_scaled_axis(s * self.angular_velocity);
        Snapshot {
            time: self.time + s,
            position: self.position + s * self.velocity + (0.5 * s * s) * g,
            orientation: Quat::new_normalize((turn * self.orientation).into_inner()),
            velocity: self.velocity + s * g,
            angular_velocity: self.angular_velocity,
        }
    }

    /// Centre of mass after free flight of `s` seconds \[m\] ([`Snapshot::flown`]).
    pub fn flown_position(&self, s: f64, g: &Vec3) -> Vec3 {
        self.position + s * self.velocity + (0.5 * s * s) * g
    }
}

/// A particle's two snapshots (seed 004 §2.1): `prev` at `t⁻`, `cur` at `t ≥ t⁻`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Timeline {
    /// Snapshot at the previous time stamp.
    pub prev: Snapshot,
    /// Snapshot at the current time stamp.
    pub cur: Snapshot,
}

impl Timeline {
    /// A particle that has not moved yet: both snapshots are `s`.
    pub fn at_rest(s: Snapshot) -> Self {
        Timeline { prev: s, cur: s }
    }

    /// The particle's own time step size `t − t⁻` \[s\] (input of eq. (3)).
    pub fn last_step(&self) -> f64 {
        self.cur.time - self.prev.time
    }

    /// The interpolated state at `τ` (see the module docs); `τ` is clamped to
    /// `[t⁻, t]`, and `τ ≥ t` gives `cur` exactly.
    pub fn at(&self, tau: f64, g: &Vec3) -> Snapshot {
        let total = self.cur.time - self.prev.time;
        if tau >= self.cur.time || total <= 0.0 {
            return self.cur;
        }
        let s = (tau - self.prev.time).max(0.0);
        let w = s / total;
        let (p0, p1) = (&self.prev, &self.cur);
        let orientation = if p0.angular_velocity.norm() * total < 3.0 {
            p0.orientation
                .try_slerp(&p1.orientation, w, 1e-12)
                .unwrap_or_else(|| p0.flown(s, g).orientation)
        } else {
            p0.flown(s, g).orientation
        };
        Snapshot {
            time: tau.max(p0.time),
            position: p0.position + (p1.position - p0.position) * w - (0.5 * s * (total - s)) * g,
            orientation,
            velocity: p0.velocity + s * g,
            angular_velocity: p0.angular_velocity,
        }
    }

    /// Centre of mass at `τ` \[m\] (as [`Timeline::at`], without the orientation).
    pub fn position_at(&self, tau: f64, g: &Vec3) -> Vec3 {
        let total = self.cur.time - self.prev.time;
        if tau >= self.cur.time || total <= 0.0 {
            return self.cur.position;
        }
        let s = (tau - self.prev.time).max(0.0);
        let w = s / total;
        self.prev.position + (self.cur.position - self.prev.position) * w
            - (0.5 * s * (total - s)) * g
    }

    /// Centre of mass at any `τ ≥ t⁻` \[m\]: interpolated up to `t`, free flight from `cur`
    /// after it (the particle's space-time trajectory, §3).
    pub fn trajectory(&self, tau: f64, g: &Vec3) -> Vec3 {
        if tau <= self.cur.time {
            self.position_at(tau, g)
        } else {
            self.cur.flown_position(tau - self.cur.time, g)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_is_exact_on_a_parabola_and_hits_both_snapshots() {
        let g = Vec3::new(0.0, 0.0, -9.81);
        let s0 = Snapshot {
            time: 1.0,
            position: Vec3::new(0.1, -0.2, 0.3),
            orientation: Quat::from_euler_angles(0.1, 0.2, 0.3),
            velocity: Vec3::new(1.0, 0.5, 2.0),
            angular_velocity: Vec3::new(0.0, 3.0, 1.0),
        };
        let s1 = s0.flown(0.25, &g);
        let tl = Timeline { prev: s0, cur: s1 };
        for k in 0..=10 {
            let s = 0.025 * k as f64;
            let i = tl.at(1.0 + s, &g);
            let f = s0.flown(s, &g);
            assert!((i.position - f.position).norm() < 1e-12, "{s}");
            assert!((i.velocity - f.velocity).norm() < 1e-12, "{s}");
            assert!(i.orientation.angle_to(&f.orientation) < 1e-9, "{s}");
        }
        assert_eq!(tl.at(1.25, &g), s1);
        assert_eq!(tl.at(1.0, &g).position, s0.position);
    }
}
