//! Relaxation and convergence test of the Picard updates (seed 000 §6.1; see
//! [`super::PicardParams`] for the rule).

use super::PicardParams;
use crate::contact::force::Wrench;
use crate::model::Model;
use crate::state::Body;
use msdem_geom::math::Vec3;

/// With [`PicardParams::local_updates`], a particle keeps its wrench while both of its
/// relative updates are below this fraction of the tolerance (the margin keeps particles
/// just inside the tolerance moving, so that their neighbours' moves do not push them
/// back out in every iteration) [-].
const FREEZE: f64 = 0.5;

/// A relative update at least this large means the particle's contact force appeared or
/// vanished between the guesses (or reversed) [-].
const SWITCH: f64 = 0.999;

/// Largest ω of a particle whose contacts switched in two updates in a row: half way
/// between the two guesses, the step of a bisection [-].
const SWITCH_OMEGA: f64 = 0.5;

/// Per-particle residual history and convergence floors.
#[derive(Clone, Copy, Debug)]
struct BodyRelax {
    omega: f64,
    /// Previous residual in acceleration units (linear; angular × radius).
    prev: Option<[f64; 6]>,
    /// Force floor \[N\] of the convergence test.
    floor_force: f64,
    /// Torque floor [N·m].
    floor_torque: f64,
    /// The last update of this particle was a contact switch (see `SWITCH`).
    switched: bool,
}

/// Relaxation weights and residual history of all particles for one step.
///
/// Each particle adapts its own ω by Aitken's Δ² rule on its residual; the system also
/// keeps one ω adapted by the same rule on the stacked residuals of all particles (the
/// Irons–Tuck / Küttler–Wall form). Where a particle's own secant is not positive — its
/// residual grew along its previous direction, which happens when its neighbours' moves
/// or a contact kink (a force clamped at zero as a contact releases) dominate its
/// residual — it takes the system's ω instead of being clamped to the lower bound. On
/// the §6.7 grid the clamp had left ≈ 60 % of the particles at ω = 0.01 after a few
/// iterations, where they barely moved and the iterations stagnated at a few percent.
/// (The stacked ω alone is worse at scale: a few stagnating particles drive it, and with
/// it everybody, to the lower bound.)
///
/// A particle whose relative update reaches `SWITCH` in two updates in a row — its
/// contact force appears at one guess and vanishes at the next, the semi-smooth kink an
/// impact at a large Δt straddles — takes at most `SWITCH_OMEGA`: a bisection between
/// the two guesses. Aitken's secant across the kink overshoots, and the particle cycled
/// (on the staircase at 5× the explicit step, one contact switched every third iteration
/// until the step failed at Δt/16; docs/design.md §6). The rule reads only the particle's
/// own updates, so a distributed run applies it unchanged.
#[derive(Clone, Debug, Default)]
pub struct Relaxation {
    bodies: Vec<BodyRelax>,
    /// Stacked (system) weight.
    omega: f64,
    /// This iteration's per-particle Aitken estimates.
    pending: Vec<Option<f64>>,
    /// This iteration's per-particle verdict: update within the tolerance.
    within: Vec<bool>,
    /// This iteration's per-particle switch: an update as large as the force itself.
    switching: Vec<bool>,
    /// Scratch of [`Relaxation::residual`]: the secants of one iteration.
    secants: Vec<(u32, f64, f64)>,
}

/// Outcome of one residual evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Residual {
    /// Largest relative update over all particles, `|ΔF|/max(|F|, |W|, floor)` and the
    /// same for torques [-].
    pub max_relative: f64,
    /// Smallest relaxation weight ω in use after the update [-].
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
    pub fn begin(&mut self, model: &Model, bodies: &[Body], gravity: &Vec3, params: &PicardParams) {
        let g = gravity.norm();
        self.omega = params.relaxation;
        self.bodies.clear();
        self.bodies.extend(bodies.iter().map(|b| {
            let spring = model
                .materials
                .get(b.material as usize)
                .map_or(0.0, |m| m.spring);
            let floor_force = params.force_floor * (spring * b.mass.sqrt() + b.mass * g);
            BodyRelax {
                omega: params.relaxation,
                prev: None,
                floor_force,
                floor_torque: floor_force * b.radius,
                switched: false,
            }
        }));
    }

    /// Compares the new forces `computed` with the wrenches `applied` that produced the
    /// current guess (bodies `start`): returns the largest relative update; when `update`
    /// is set, adapts the weights (see [`Relaxation`]) and moves each particle's
    /// `applied` towards `computed` by its ω. With `relax` false the wrenches are left to
    /// the caller (the Newton update of [`super::newton`]); only the test runs.
    ///
    /// The three parts, [`Relaxation::measure`], [`Relaxation::adapt_system`] and
    /// [`Relaxation::apply`], over every particle (a distributed run calls them over its
    /// own particles, with the system's sums reduced in particle order between them).
    pub fn residual(
        &mut self,
        start: &[Body],
        computed: &[Wrench],
        applied: &mut [Wrench],
        params: &PicardParams,
        update: bool,
        relax: bool,
    ) -> Residual {
        let n = self
            .bodies
            .len()
            .min(start.len())
            .min(computed.len())
            .min(applied.len());
        self.begin_iteration(n);
        let mut secants = std::mem::take(&mut self.secants);
        secants.clear();
        let max_relative =
            self.measure(0..n, start, computed, applied, params, update, &mut secants);
        if update {
            self.adapt_system(secants.iter().map(|s| (s.1, s.2)), params);
            self.apply(0..n, computed, applied, params, relax);
        }
        self.secants = secants;
        Residual {
            max_relative,
            min_omega: self.min_omega(0..self.bodies.len()),
        }
    }

    /// Clears the per-particle verdicts of the last iteration for `n` particles.
    pub fn begin_iteration(&mut self, n: usize) {
        self.pending.clear();
        self.pending.resize(n, None);
        self.within.clear();
        self.within.resize(n, false);
        self.switching.clear();
        self.switching.resize(n, false);
    }

    /// The relative updates of the particles `ids` (ascending): returns their largest
    /// (see [`Residual::max_relative`]); when `update`, records each one's Aitken estimate
    /// and pushes `(id, r_{k−1}·(r_k − r_{k−1}), |r_k − r_{k−1}|²)` to `secants` for every
    /// particle with a residual history (seed 000 §6.1).
    #[allow(clippy::too_many_arguments)]
    pub fn measure(
        &mut self,
        ids: impl Iterator<Item = usize>,
        start: &[Body],
        computed: &[Wrench],
        applied: &[Wrench],
        params: &PicardParams,
        update: bool,
        secants: &mut Vec<(u32, f64, f64)>,
    ) -> f64 {
        let mut max_relative: f64 = 0.0;
        for i in ids {
            let (Some(r), Some(body), Some(f), Some(w)) = (
                self.bodies.get_mut(i),
                start.get(i),
                computed.get(i),
                applied.get(i),
            ) else {
                continue;
            };
            let df = f.force - w.force;
            let dtq = f.torque - w.torque;
            let sf = f.force.norm().max(w.force.norm()).max(r.floor_force);
            let st = f.torque.norm().max(w.torque.norm()).max(r.floor_torque);
            let rel_f = if sf > 0.0 { df.norm() / sf } else { 0.0 };
            let rel_t = if st > 0.0 { dtq.norm() / st } else { 0.0 };
            max_relative = max_relative.max(rel_f).max(rel_t);
            let settled = FREEZE * params.tolerance;
            let within = params.local_updates && rel_f <= settled && rel_t <= settled;
            if let Some(slot) = self.within.get_mut(i) {
                *slot = within;
            }
            if let Some(slot) = self.switching.get_mut(i) {
                *slot = rel_f.max(rel_t) >= SWITCH;
            }
            if update && !within {
                // (A particle within half the tolerance keeps its wrench and its residual
                // history: its next secant spans its last update.)
                let res = residual_vec(body, &df, &dtq);
                let mut o = None;
                if let Some(prev) = r.prev {
                    let diff: [f64; 6] = std::array::from_fn(|k| res[k] - prev[k]);
                    let d = dot(&diff, &diff);
                    secants.push((i as u32, dot(&prev, &diff), d));
                    if d > 0.0 && d.is_finite() {
                        o = Some(-r.omega * dot(&prev, &diff) / d);
                    }
                }
                if let Some(slot) = self.pending.get_mut(i) {
                    *slot = o;
                }
                r.prev = Some(res);
            }
        }
        max_relative
    }

    /// Adapts the system's ω by Aitken's rule on the stacked residuals: `secants` are the
    /// `(r_{k−1}·Δr, |Δr|²)` of [`Relaxation::measure`] of **all** particles in particle
    /// order (summed in that order, so the weight has the same bits however the particles
    /// are spread over processes).
    pub fn adapt_system(
        &mut self,
        secants: impl Iterator<Item = (f64, f64)>,
        params: &PicardParams,
    ) {
        let (mut num, mut den) = (0.0, 0.0);
        let mut history = false;
        for (n, d) in secants {
            num += n;
            den += d;
            history = true;
        }
        if history && den > 0.0 && den.is_finite() {
            let omega = -self.omega * num / den;
            if omega.is_finite() {
                self.omega = omega.clamp(params.min_relaxation, params.max_relaxation);
            }
        }
    }

    /// Moves the `applied` wrench of each particle of `ids` that is not within half the
    /// tolerance towards `computed` by its ω (when `relax`), after choosing that ω (its own
    /// Aitken estimate, or the system's where its secant is not positive).
    pub fn apply(
        &mut self,
        ids: impl Iterator<Item = usize>,
        computed: &[Wrench],
        applied: &mut [Wrench],
        params: &PicardParams,
        relax: bool,
    ) {
        for i in ids {
            if self.within.get(i).copied().unwrap_or(true) {
                continue;
            }
            let (Some(r), Some(f), Some(w)) =
                (self.bodies.get_mut(i), computed.get(i), applied.get_mut(i))
            else {
                continue;
            };
            if let Some(o) = self
                .pending
                .get(i)
                .copied()
                .flatten()
                .filter(|o| o.is_finite())
            {
                // A non-positive secant: this particle's residual grew along its
                // previous direction, driven by its neighbours — take the system's ω.
                r.omega = if o <= 0.0 {
                    self.omega
                } else {
                    o.clamp(params.min_relaxation, params.max_relaxation)
                };
            }
            // A second switch in a row: the contact flips between the guesses, and
            // Aitken's secant across the kink overshoots — bisect instead.
            let switching = self.switching.get(i).copied().unwrap_or(false);
            if switching && r.switched {
                r.omega = r.omega.min(SWITCH_OMEGA);
            }
            r.switched = switching;
            if relax {
                w.force += r.omega * (f.force - w.force);
                w.torque += r.omega * (f.torque - w.torque);
            }
        }
    }

    /// Smallest relaxation weight in use among the particles `ids` and the system [-].
    pub fn min_omega(&self, ids: impl Iterator<Item = usize>) -> f64 {
        ids.filter_map(|i| self.bodies.get(i))
            .map(|b| b.omega)
            .fold(f64::INFINITY, f64::min)
            .min(self.omega)
    }
}

impl Relaxation {
    /// Per particle, from the last [`Relaxation::residual`] with `update`: whether it kept
    /// its wrench (both updates within half the tolerance, with local updates on).
    pub fn kept(&self) -> &[bool] {
        &self.within
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> Body {
        Body::test_body()
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
                switched: false,
            }],
            omega: 1.0,
            pending: Vec::new(),
            within: Vec::new(),
            secants: Vec::new(),
            switching: Vec::new(),
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
            let res = r.residual(&start, &f, &mut w, &params, true, true);
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

    /// Two particles coupled like neighbours in a lattice: `F(W) = c − A·W` with
    /// `A = [[3, 2], [2, 3]]` per component (modes λ = 1 and 5; plain Picard diverges on
    /// the second). The stacked Aitken weight reaches the exact solution `(I + A)⁻¹·c`,
    /// with ω settling where both modes contract — with and without local updates (a
    /// particle within half the tolerance keeps its wrench).
    #[test]
    fn stacked_aitken_converges_on_a_coupled_system() {
        for local_updates in [false, true] {
            coupled_system(&PicardParams {
                tolerance: 1e-11,
                local_updates,
                ..PicardParams::default()
            });
        }
    }

    fn coupled_system(params: &PicardParams) {
        let one = BodyRelax {
            omega: 1.0,
            prev: None,
            floor_force: 1e-9,
            floor_torque: 1e-9,
            switched: false,
        };
        let mut r = Relaxation {
            bodies: vec![one, one],
            omega: 1.0,
            pending: Vec::new(),
            within: Vec::new(),
            secants: Vec::new(),
            switching: Vec::new(),
        };
        let start = [body(), body()];
        let (c0, c1) = (Vec3::new(10.0, -4.0, 0.0), Vec3::new(2.0, 6.0, 1.0));
        let mut w = [Wrench::default(); 2];
        let mut converged = None;
        for k in 0..60 {
            let f = [
                Wrench {
                    force: c0 - 3.0 * w[0].force - 2.0 * w[1].force,
                    torque: Vec3::zeros(),
                },
                Wrench {
                    force: c1 - 2.0 * w[0].force - 3.0 * w[1].force,
                    torque: Vec3::zeros(),
                },
            ];
            if r.residual(&start, &f, &mut w, params, true, true)
                .max_relative
                < 1e-10
            {
                converged = Some(k);
                break;
            }
        }
        assert!(converged.is_some(), "no convergence in 60 iterations");
        // (I + A)⁻¹ = [[4, −2], [−2, 4]] / 12.
        let e0 = (4.0 * c0 - 2.0 * c1) / 12.0;
        let e1 = (4.0 * c1 - 2.0 * c0) / 12.0;
        assert!(
            (w[0].force - e0).norm() < 1e-8,
            "{:?} vs {e0:?}",
            w[0].force
        );
        assert!(
            (w[1].force - e1).norm() < 1e-8,
            "{:?} vs {e1:?}",
            w[1].force
        );
    }

    /// A relaxation of nine coupled particles `F(W) = c − A·W` (forces and torques).
    fn nine() -> (
        Relaxation,
        Vec<Body>,
        Vec<Wrench>,
        Vec<Vec<f64>>,
        PicardParams,
    ) {
        let n = 9;
        let params = PicardParams {
            tolerance: 1e-9,
            ..PicardParams::default()
        };
        let mut seed = 12345u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let coupling: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| if i == j { 1.5 } else { 0.4 * next() - 0.1 })
                    .collect()
            })
            .collect();
        let c: Vec<Wrench> = (0..n)
            .map(|i| Wrench {
                force: Vec3::new(10.0 * next(), -3.0 * next(), (i as f64) * next()),
                torque: Vec3::new(next(), 0.0, -2.0 * next()),
            })
            .collect();
        let mut bodies = Vec::new();
        for i in 0..n {
            let mut b = body();
            b.mass = 1.0 + i as f64;
            bodies.push(b);
        }
        let one = BodyRelax {
            omega: params.relaxation,
            prev: None,
            floor_force: 1e-9,
            floor_torque: 1e-9,
            switched: false,
        };
        let r = Relaxation {
            bodies: vec![one; n],
            omega: params.relaxation,
            ..Relaxation::default()
        };
        (r, bodies, c, coupling, params)
    }

    fn forces(c: &[Wrench], a: &[Vec<f64>], w: &[Wrench]) -> Vec<Wrench> {
        c.iter()
            .zip(a)
            .map(|(c, row)| {
                let mut f = *c;
                for (aij, wj) in row.iter().zip(w) {
                    f.force -= *aij * wj.force;
                    f.torque -= *aij * wj.torque;
                }
                f
            })
            .collect()
    }

    /// The distributed form (each "rank" measures and applies its own particles, the
    /// system's Aitken sums taken over all secants in particle order) gives the bits of
    /// [`Relaxation::residual`] over all particles, for any split of the particles — while
    /// summing the same secants in rank order would not.
    #[test]
    fn split_over_ranks_with_secants_in_particle_order_has_the_bits_of_one_process() {
        let (mut one, bodies, c, a, params) = nine();
        let n = bodies.len();
        let mut w_one = vec![Wrench::default(); n];
        let mut splits = Vec::new();
        for ranks in [2usize, 3, 4] {
            splits.push((ranks, one.clone(), vec![Wrench::default(); n]));
        }
        let mut rank_order_differs = false;
        for k in 0..30 {
            let f = forces(&c, &a, &w_one);
            let res = one.residual(&bodies, &f, &mut w_one, &params, true, true);
            for (ranks, r, w) in &mut splits {
                let f_split = forces(&c, &a, w);
                r.begin_iteration(n);
                let mut secants = Vec::new();
                let mut max_relative: f64 = 0.0;
                // Ranks own every `ranks`-th particle and report in reverse rank order.
                for rank in (0..*ranks).rev() {
                    let ids = (rank..n).step_by(*ranks);
                    let m = r.measure(ids, &bodies, &f_split, w, &params, true, &mut secants);
                    max_relative = max_relative.max(m);
                }
                let mut by_rank = r.clone();
                by_rank.adapt_system(secants.iter().map(|s| (s.1, s.2)), &params);
                secants.sort_unstable_by_key(|s| s.0);
                r.adapt_system(secants.iter().map(|s| (s.1, s.2)), &params);
                rank_order_differs |= by_rank.omega.to_bits() != r.omega.to_bits();
                for rank in 0..*ranks {
                    r.apply((rank..n).step_by(*ranks), &f_split, w, &params, true);
                }
                let min_omega = (0..*ranks)
                    .map(|rank| r.min_omega((rank..n).step_by(*ranks)))
                    .fold(f64::INFINITY, f64::min);
                assert_eq!(
                    max_relative.to_bits(),
                    res.max_relative.to_bits(),
                    "{ranks} ranks, iteration {k}"
                );
                assert_eq!(
                    min_omega.to_bits(),
                    res.min_omega.to_bits(),
                    "{ranks} ranks, iteration {k}"
                );
                for (x, y) in w.iter().zip(&w_one) {
                    for (p, q) in x
                        .force
                        .iter()
                        .chain(x.torque.iter())
                        .zip(y.force.iter().chain(y.torque.iter()))
                    {
                        assert_eq!(p.to_bits(), q.to_bits(), "{ranks} ranks, iteration {k}");
                    }
                }
            }
        }
        assert!(
            rank_order_differs,
            "the summation order matters for this system"
        );
        assert!(one.omega != params.relaxation, "the system's ω adapted");
    }
}
