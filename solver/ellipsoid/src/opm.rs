//! OpM: the optimisation-based ellipsoid–ellipsoid contact (seed 002 §2, eq. (2)), solved
//! by a safeguarded Newton method on the analytic gradient and Hessian.
//!
//! # What is minimised
//! `f(c) = |P_A(c) − P_B(−c)|²` over unit directions `c` (eq. (2)), parametrised by two
//! angles as in the seed (`c = (cos α₁ cos α₂, sin α₁ cos α₂, sin α₂)`), but in a frame
//! re-centred on the current iterate at every step (the iterate is `α = 0`), so the
//! parametrisation's poles stay a quarter turn away.
//!
//! `d(c) = (b_A − b_B) + ∇h_K(c)` where `h_K = h_A + h_B` is the support function of the
//! Minkowski sum of the centred ellipsoids, so `f` is the squared distance from
//! `b_B − b_A` to the boundary point of that sum with normal `c`: its global minimum is
//! exactly the squared distance (separated) or squared translational penetration depth
//! (overlapping). `−d·c = (b_B − b_A)·c − h_K(c)` is negative for every `c` when the
//! pair overlaps, which is why the sign test of eq. (5)–(6) is reliable.
//!
//! # Iteration
//! Newton on `(α₁, α₂)` with the Hessian shifted to be positive definite where it is not,
//! the step capped at [`OpmParams::max_step`] \[rad\] (trust safeguard), and an Armijo
//! backtracking line search. Converged when the Newton step is below
//! [`OpmParams::angle_tolerance`] \[rad\]: an angular criterion, because the gradient
//! vanishes with `|d|` near touching.
//!
//! # Starts (deterministic)
//! First from the centre-to-centre direction. A separated converged result is final (it
//! is the global minimum: no direction gives a smaller `|d|` than the distance), and so
//! is an overlapping one whose depth meets the lower bound `r_A,min + r_B,min − |q|`
//! (spheres, nearly spherical pairs: see `certified_depth`) or the bound of the balls
//! inscribed in both bodies and tangent at the witness points
//! ([`crate::depth_bound`]: overlaps shallower than the two tangent balls' radii).
//! Either certificate proves that no extra start could replace the first run, so the
//! answer is the one the extra starts would have given, bit for bit. Otherwise
//! (overlap, coincident centres, no convergence) `f` is sampled at the ±principal axes of
//! both bodies, Newton is run from the best [`OpmParams::extra_starts`] of them, and the
//! smallest converged `f` wins (ties keep the earlier start).
//!
//! Output convention ([`Contact`]): normal from B to A, `= −c`; `signed_distance = −d·c`.

use crate::contact::{Contact, Status};
use crate::depth_bound::depth_lower_bound;
use crate::math::{Iso3, Mat2, Real, Vec2, Vec3};
use crate::sensitivity::{direction_at_origin, direction_in_frame, frame_from, PairGeometry};
use crate::shape::Ellipsoid;

/// Iteration caps and tolerances of [`opm`]. The defaults suit aspect ratios up to 100.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpmParams {
    /// Newton iterations per start.
    pub max_iterations: u32,
    /// Converged when the Newton step is shorter than this \[rad\].
    pub angle_tolerance: Real,
    /// Largest step \[rad\] (trust region radius on the angles).
    pub max_step: Real,
    /// Extra starts (from the ±principal axes) tried when the first start does not end
    /// in a converged separated state.
    pub extra_starts: usize,
    /// Skip the extra starts when the balls inscribed in both bodies and tangent at the
    /// first run's witness points certify it as the global minimum
    /// ([`crate::depth_bound`]), and the remaining extra starts once the best run so far
    /// is certified (by those balls, the inscribed-ball bound or a separated state). The
    /// answer is the same either way (only [`Contact::iterations`] differs); `false` is
    /// the reference the tests and the `million` example compare against.
    pub tangent_ball_certificate: bool,
}

impl Default for OpmParams {
    fn default() -> Self {
        OpmParams {
            max_iterations: 60,
            angle_tolerance: 1e-10,
            max_step: 0.5,
            extra_starts: 3,
            tangent_ball_certificate: true,
        }
    }
}

/// One Newton run: the final direction, `f` there, whether it converged, iterations.
#[derive(Clone, Copy, Debug)]
struct Run {
    c: Vec3,
    f: Real,
    converged: bool,
    iterations: u32,
}

/// Newton step for the 2×2 system, with the Hessian shifted to be positive definite.
fn newton_step(grad: &Vec2, hess: &Mat2) -> Vec2 {
    let (h11, h12, h22) = (hess[(0, 0)], hess[(0, 1)], hess[(1, 1)]);
    let norm = h11.abs().max(h22.abs()).max(h12.abs());
    if norm.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) || !norm.is_finite() {
        return -grad;
    }
    let half_gap = (0.25 * (h11 - h22) * (h11 - h22) + h12 * h12).sqrt();
    let lambda_min = 0.5 * (h11 + h22) - half_gap;
    let floor = 1e-8 * norm;
    let shift = if lambda_min < floor {
        floor - lambda_min
    } else {
        0.0
    };
    let (a, b, c) = (h11 + shift, h12, h22 + shift);
    let det = a * c - b * b;
    if det.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return -grad / norm;
    }
    Vec2::new(
        -(c * grad.x - b * grad.y) / det,
        -(a * grad.y - b * grad.x) / det,
    )
}

fn newton(geom: &PairGeometry, start: &Vec3, params: &OpmParams) -> Run {
    let mut probe = geom.probe(start);
    let (mut c, mut f) = (probe.c, probe.f);
    let mut iterations = 0;
    while iterations < params.max_iterations {
        iterations += 1;
        let frame = frame_from(&c);
        let (_, c_a, c_aa) = direction_at_origin(&frame);
        let sens = geom.sensitivities_at(&probe, &c_a, &c_aa);
        f = sens.f;
        if sens.grad.x == 0.0 && sens.grad.y == 0.0 {
            return Run {
                c,
                f,
                converged: true,
                iterations,
            };
        }
        let mut step = newton_step(&sens.grad, &sens.hess);
        let len = step.norm();
        if !len.is_finite() {
            break;
        }
        if len > params.max_step {
            step *= params.max_step / len;
        }
        let slope = sens.grad.dot(&step);
        let mut t = 1.0;
        let mut accepted = None;
        for _ in 0..40 {
            let (trial, _, _) = direction_in_frame(&frame, &(step * t));
            let trial = trial.normalize();
            let at_trial = geom.probe(&trial);
            if at_trial.f <= f + 1e-4 * t * slope {
                accepted = Some(at_trial);
                break;
            }
            t *= 0.5;
        }
        match accepted {
            Some(at_trial) => {
                probe = at_trial;
                (c, f) = (probe.c, probe.f);
                if t * step.norm() <= params.angle_tolerance {
                    return Run {
                        c,
                        f,
                        converged: true,
                        iterations,
                    };
                }
            }
            None => {
                // No decrease representable in floating point: at the numerical floor if
                // the proposed step was already tiny.
                let converged = step.norm() <= 1e3 * params.angle_tolerance.max(1e-10);
                return Run {
                    c,
                    f,
                    converged,
                    iterations,
                };
            }
        }
    }
    Run {
        c,
        f,
        converged: false,
        iterations,
    }
}

fn separated(geom: &PairGeometry, c: &Vec3) -> bool {
    -geom.d(c).dot(c) > 0.0
}

/// Whether an overlapping run's `f` is certified as the global minimum, so that the extra
/// starts could not replace it (they win only by a relative 1e-9): the Minkowski sum of
/// the centred bodies contains the ball of radius `r_A,min + r_B,min`, so the penetration
/// depth `δ` is at least `L = r_A,min + r_B,min − |q|`, and `f ≥ δ² ≥ L²` everywhere
/// (`|d| ≥ |d·c| ≥ δ` for an overlapping pair). Exact for spheres, whose first start is.
fn certified_depth(a: &Ellipsoid, b: &Ellipsoid, q: &Vec3, run: &Run) -> bool {
    let lower = a.min_radius() + b.min_radius() - q.norm();
    lower > 0.0 && run.f <= lower * lower * (1.0 + 1e-12)
}

/// Whether the tangent inscribed balls at the run's witness points
/// ([`depth_lower_bound`]) prove that no other start can win: every start's `f` is at
/// least the squared depth, so one that stays at or above the winning threshold of
/// `opm_with` (relative 1e-9, absolute 1e-15 `scale²`) against this run never replaces
/// it, and skipping the extra starts returns the same contact bit for bit.
///
/// The bound loses the residual `|e|` to first order, and a run that stopped on a step
/// the line search shortened leaves `|e|/δ` near 1e-9 while its `f` is already within
/// 1e-16 of the minimum (second order). So when the bound at the run's direction falls
/// just short, it is evaluated once more at the direction one full Newton step further
/// ([`polished`]): any direction gives a valid bound, and that one has `|e|` at the
/// rounding floor. The run itself, and so the answer, is left as it is.
fn certified_by_tangent_balls(
    geom: &PairGeometry,
    a: &Ellipsoid,
    b: &Ellipsoid,
    run: &Run,
    scale: Real,
) -> bool {
    let threshold = run.f * (1.0 - 1e-9) - 1e-15 * scale * scale;
    let bound = |c: &Vec3| depth_lower_bound(geom, a.min_radius(), b.min_radius(), c);
    match bound(&run.c) {
        None => false,
        Some(lower) if lower * lower >= threshold => true,
        Some(_) => bound(&polished(geom, &run.c)).is_some_and(|lower| lower * lower >= threshold),
    }
}

/// The unit direction one undamped Newton step from `c` (no line search, no cap): only
/// an argument of the depth bound, never an OpM iterate.
fn polished(geom: &PairGeometry, c: &Vec3) -> Vec3 {
    let frame = frame_from(c);
    let (_, c_a, c_aa) = direction_at_origin(&frame);
    let sens = geom.sensitivities(c, &c_a, &c_aa);
    let step = newton_step(&sens.grad, &sens.hess);
    if !(step.x.is_finite() && step.y.is_finite()) {
        return *c;
    }
    let (next, _, _) = direction_in_frame(&frame, &step);
    next.normalize()
}

fn finish(geom: &PairGeometry, run: &Run, iterations: u32) -> Contact {
    let (point_a, point_b) = geom.points(&run.c);
    let d = point_a - point_b;
    Contact {
        signed_distance: -d.dot(&run.c),
        normal: -run.c,
        point_a,
        point_b,
        status: if run.converged {
            Status::Converged
        } else {
            Status::NotConverged
        },
        iterations,
    }
}

/// OpM with default parameters: distance or penetration depth, normal (B → A) and
/// witness points of two posed ellipsoids (seed 002 §2).
pub fn opm(a: &Ellipsoid, pose_a: &Iso3, b: &Ellipsoid, pose_b: &Iso3) -> Contact {
    opm_with(a, pose_a, b, pose_b, &OpmParams::default())
}

/// OpM with explicit caps and tolerances (see the module doc for the algorithm).
pub fn opm_with(
    a: &Ellipsoid,
    pose_a: &Iso3,
    b: &Ellipsoid,
    pose_b: &Iso3,
    params: &OpmParams,
) -> Contact {
    let geom = PairGeometry::new(a, pose_a, b, pose_b);
    let q = geom.b_b - geom.b_a;
    let scale = a.max_radius() + b.max_radius() + q.norm();
    let mut iterations = 0;
    let mut best: Option<Run> = None;
    let consider = |best: &mut Option<Run>, run: Run| {
        let better = match best {
            None => true,
            // Ties within rounding keep the earlier start (deterministic, and the
            // centre-direction start is exact for spheres).
            Some(old) => {
                (run.converged && !old.converged)
                    || (run.converged == old.converged
                        && run.f < old.f * (1.0 - 1e-9) - 1e-15 * scale * scale)
            }
        };
        if better {
            *best = Some(run);
        }
    };
    if q.norm() > 1e-12 * scale {
        let run = newton(&geom, &q.normalize(), params);
        iterations += run.iterations;
        if run.converged
            && (separated(&geom, &run.c)
                || certified_depth(a, b, &q, &run)
                || (params.tangent_ball_certificate
                    && certified_by_tangent_balls(&geom, a, b, &run, scale)))
        {
            return finish(&geom, &run, iterations);
        }
        consider(&mut best, run);
    }
    let rot_a = pose_a.rotation.to_rotation_matrix().into_inner();
    let rot_b = pose_b.rotation.to_rotation_matrix().into_inner();
    let mut starts: [(Real, Vec3); 12] = [(0.0, Vec3::zeros()); 12];
    for k in 0..6 {
        let axis = if k < 3 {
            rot_a.column(k).into_owned()
        } else {
            rot_b.column(k - 3).into_owned()
        };
        starts[2 * k] = (geom.f(&axis), axis);
        starts[2 * k + 1] = (geom.f(&-axis), -axis);
    }
    starts.sort_by(|x, y| x.0.total_cmp(&y.0));
    for (_, start) in starts.iter().take(params.extra_starts.max(1)) {
        let run = newton(&geom, start, params);
        iterations += run.iterations;
        consider(&mut best, run);
        // A converged best that is certified global cannot be replaced by a later start
        // (same argument as for the first run): the rest would not change the answer.
        let final_best = |run: &Run| {
            run.converged
                && (separated(&geom, &run.c)
                    || certified_depth(a, b, &q, run)
                    || certified_by_tangent_balls(&geom, a, b, run, scale))
        };
        if params.tangent_ball_certificate && best.as_ref().is_some_and(final_best) {
            break;
        }
    }
    match best {
        Some(run) => finish(&geom, &run, iterations),
        None => finish(
            &geom,
            &Run {
                c: Vec3::x(),
                f: geom.f(&Vec3::x()),
                converged: false,
                iterations: 0,
            },
            iterations,
        ),
    }
}
