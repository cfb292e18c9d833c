//! Relaxation and convergence test of the Picard updates (seed 000 §6.1; see
//! [`super::PicardParams`] for the rule).

use super::PicardParams;
use crate::contact::force::Wrench;
use crate::world::{Body, World};
use msdem_geom::math::Vec3;

/// Per-particle relaxation state.
#[derive(Clone, Copy, Debug)]
struct BodyRelax {
    omega: f64,
    /// Previous residual in acceleration units (linear; angular × radius).
    prev: Option<[f64; 6]>,
    /// Force floor \[N\] of the convergence test.
    floor_force: f64,
    /// Torque floor [N·m].
    floor_torque: f64,
}

/// Relaxation weights and residual history of all particles for one step.
#[derive(Clone, Debug, Default)]
pub struct Relaxation {
    bodies: Vec<BodyRelax>,
}

/// Outcome of one residual evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Residual {
    /// Largest relative update over all particles, `|ΔF|/max(|F|, |W|, floor)` and the
    /// same for torques [-].
    pub max_relative: f64,
    /// Smallest relaxation weight in use after the update [-].
    pub min_omega: f64,
}

fn residual_vec(body: &Body, df: &Vec3, dt_: &Vec3) -> [f64; 6] {
    let lin = df / body.mass;
    let ang = body.world_inv_inertia() * dt_ * body.radius;
    [lin.x, lin.y, lin.z, ang.x, ang.y, ang.z]
}

fn dot(a: &[f64; 6], b: &[f64; 6]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl Relaxation {
    /// Starts a step: initial weights and the convergence floors of every particle.
    pub fn begin(&mut self, world: &World, params: &PicardParams) {
        let g = world.params.gravity.norm();
        self.bodies.clear();
        self.bodies.extend(world.bodies.iter().map(|b| {
            let spring = world
                .materials
                .get(b.material as usize)
                .map_or(0.0, |m| m.spring);
            let floor_force = params.force_floor * (spring * b.mass.sqrt() + b.mass * g);
            BodyRelax {
                omega: params.relaxation,
                prev: None,
                floor_force,
                floor_torque: floor_force * b.radius,
            }
        }));
    }

    /// Compares the new forces `computed` with the wrenches `applied` that produced the
    /// current guess (bodies `start`): returns the largest relative update; when `update`
    /// is set, moves `applied` towards `computed` by the adaptive weight ω (Aitken).
    pub fn residual(
        &mut self,
        start: &[Body],
        computed: &[Wrench],
        applied: &mut [Wrench],
        params: &PicardParams,
        update: bool,
    ) -> Residual {
        let mut out = Residual {
            max_relative: 0.0,
            min_omega: f64::INFINITY,
        };
        for (((r, body), f), w) in self
            .bodies
            .iter_mut()
            .zip(start)
            .zip(computed)
            .zip(applied.iter_mut())
        {
            let df = f.force - w.force;
            let dtq = f.torque - w.torque;
            let sf = f.force.norm().max(w.force.norm()).max(r.floor_force);
            let st = f.torque.norm().max(w.torque.norm()).max(r.floor_torque);
            let rel_f = if sf > 0.0 { df.norm() / sf } else { 0.0 };
            let rel_t = if st > 0.0 { dtq.norm() / st } else { 0.0 };
            out.max_relative = out.max_relative.max(rel_f).max(rel_t);
            if update {
                let res = residual_vec(body, &df, &dtq);
                if let Some(prev) = r.prev {
                    let diff: [f64; 6] = std::array::from_fn(|i| res[i] - prev[i]);
                    let den = dot(&diff, &diff);
                    if den > 0.0 && den.is_finite() {
                        let omega = -r.omega * dot(&prev, &diff) / den;
                        if omega.is_finite() {
                            r.omega = omega.clamp(params.min_relaxation, params.max_relaxation);
                        }
                    }
                }
                r.prev = Some(res);
                w.force += r.omega * df;
                w.torque += r.omega * dtq;
            }
            out.min_omega = out.min_omega.min(r.omega);
        }
        if !out.min_omega.is_finite() {
            out.min_omega = 0.0;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use msdem_geom::math::{Mat3, Quat};

    fn body() -> Body {
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

    /// Aitken-relaxed iteration of the linear map `F(W) = c − λ·W` (contraction factor
    /// λ = 9 > 1, where plain Picard diverges) reaches the fixed point `c/(1 + λ)`.
    #[test]
    fn aitken_converges_where_plain_picard_diverges() {
        let params = PicardParams::default();
        let mut r = Relaxation {
            bodies: vec![BodyRelax {
                omega: 1.0,
                prev: None,
                floor_force: 1e-9,
                floor_torque: 1e-9,
            }],
        };
        let start = [body()];
        let (c, lam) = (Vec3::new(10.0, 0.0, 0.0), 9.0);
        let mut w = [Wrench::default()];
        let mut iterations = 0;
        for k in 0..50 {
            let f = [Wrench {
                force: c - lam * w[0].force,
                torque: Vec3::zeros(),
            }];
            let res = r.residual(&start, &f, &mut w, &params, true);
            iterations = k;
            if res.max_relative < 1e-10 {
                break;
            }
        }
        assert!(iterations < 10, "{iterations} iterations");
        assert!((w[0].force - c / (1.0 + lam)).norm() < 1e-8);
        // Plain Picard (ω = 1) on the same map diverges.
        let mut x = Vec3::zeros();
        for _ in 0..10 {
            x = c - lam * x;
        }
        assert!(x.norm() > 1e8);
    }
}
