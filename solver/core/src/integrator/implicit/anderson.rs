//! Anderson acceleration of the Picard wrench update, per cluster of touching particles
//! (`picard.acceleration: anderson`; issue 19, `docs/design.md` §6).
//!
//! The Picard map of seed 000 §2 Alg. 3 is `W ↦ F(state(W))`: the wrench `W` that moves the
//! particles over the step, the forces `F` at the state it gives. Its residual
//! `f = F − W` is zero at the implicit step. Where [`super::relax`] mixes `W ← W + ω·f` with
//! Aitken's ω, Anderson's method combines the last `m ≤` [`MEMORY`] iterates: with the
//! differences `ΔW_j`, `Δf_j` of consecutive iterates, it picks the `γ` that minimises
//! `|f − Σ γ_j·Δf_j|` (in acceleration units: forces over mass, torques through the inverse
//! inertia times the radius, as the Aitken rule) and moves to
//! `W ← W + β·f − Σ γ_j·(ΔW_j + β·Δf_j)`, `β` the particle's Aitken weight of
//! [`super::relax`] (with a fixed β the combination is the same for every particle; the
//! Aitken weight damps the first, uncombined steps where plain Picard diverges). On a
//! linear map with fixed β it is a Krylov method (GMRES on the last `m` directions): a
//! map with `m + 1` distinct modes is solved in about `m + 2` iterations, whatever
//! `Δt²·k_c/M`.
//!
//! **Per cluster.** The least-squares problem is solved for each connected cluster of
//! touching particles of the current iteration ([`super::clusters`]) on its own, its sums in
//! particle-id order: particles that do not touch do not share a direction, and a cluster
//! whose particles all updated by less than half the tolerance keeps its wrenches (its
//! pose is bitwise unchanged, so multiscale detection keeps its contacts), so an
//! iteration's cost follows the clusters that have not converged.
//!
//! **Safeguard.** A contact that opens or closes between iterations changes the map; a
//! cluster whose residual grew by more than [`RESTART`] in norm over a combined step drops
//! its history and takes a plain mixing step.

use super::clusters::Clusters;
use crate::contact::force::Wrench;
use crate::contact::Contact;
use crate::state::Body;
use msdem_geom::math::{Mat3, Vec3};

/// Iterates combined by one Anderson step (history depth) [-].
pub const MEMORY: usize = 2;

/// Growth of a cluster's residual norm between iterations above which it drops its
/// history [-].
pub const RESTART: f64 = 1.0;

type V6 = [f64; 6];

/// One particle's last iterates, oldest first.
#[derive(Clone, Debug, Default)]
struct History {
    /// Applied wrenches `W` (force, torque).
    w: Vec<V6>,
    /// Residuals `F − W`.
    f: Vec<V6>,
    /// Scale into acceleration units: `1/M` and `r·I⁻¹` (world frame, start of the step).
    inv_mass: f64,
    ang: Mat3,
    /// The last update of this particle's cluster combined iterates (`m > 0`).
    accelerated: bool,
}

/// Anderson state of all particles for one step (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct Anderson {
    bodies: Vec<History>,
    clusters: Clusters,
}

fn join(w: &Wrench) -> V6 {
    [
        w.force.x, w.force.y, w.force.z, w.torque.x, w.torque.y, w.torque.z,
    ]
}

impl History {
    fn scaled(&self, v: &V6) -> V6 {
        let t = self.ang * Vec3::new(v[3], v[4], v[5]);
        [
            v[0] * self.inv_mass,
            v[1] * self.inv_mass,
            v[2] * self.inv_mass,
            t.x,
            t.y,
            t.z,
        ]
    }

    fn push(&mut self, w: V6, f: V6) {
        if self.w.len() > MEMORY {
            self.w.remove(0);
            self.f.remove(0);
        }
        self.w.push(w);
        self.f.push(f);
    }

    /// Scaled difference `Δf_j` between iterates `len − 1 − j` and `len − 2 − j`.
    fn df(&self, j: usize) -> V6 {
        let n = self.f.len();
        let (a, b) = (&self.f[n - 1 - j], &self.f[n - 2 - j]);
        self.scaled(&std::array::from_fn(|k| a[k] - b[k]))
    }

    fn keep_last(&mut self) {
        let n = self.w.len();
        if n > 1 {
            self.w.drain(..n - 1);
            self.f.drain(..n - 1);
        }
    }
}

fn dot(a: &V6, b: &V6) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Solves the small symmetric system `a·x = b` (`m ≤ MEMORY`) by Gaussian elimination
/// with partial pivoting; `None` when it is singular.
fn solve(a: &mut [[f64; MEMORY]; MEMORY], b: &mut [f64; MEMORY], m: usize) -> Option<()> {
    for col in 0..m {
        let pivot = (col..m).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs().partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let pivot_row = a[col];
        for row in col + 1..m {
            let factor = a[row][col] / pivot_row[col];
            for (x, p) in a[row][col..m].iter_mut().zip(&pivot_row[col..m]) {
                *x -= factor * p;
            }
            b[row] -= factor * b[col];
        }
    }
    for col in (0..m).rev() {
        let mut s = b[col];
        for k in col + 1..m {
            s -= a[col][k] * b[k];
        }
        b[col] = s / a[col][col];
    }
    b[..m].iter().all(|x| x.is_finite()).then_some(())
}

impl Anderson {
    /// Starts a step from the bodies `start`: empty histories.
    pub fn begin(&mut self, start: &[Body]) {
        self.bodies.clear();
        self.bodies.extend(start.iter().map(|b| History {
            w: Vec::with_capacity(MEMORY + 1),
            f: Vec::with_capacity(MEMORY + 1),
            inv_mass: if b.mass > 0.0 { 1.0 / b.mass } else { 0.0 },
            ang: b.world_inv_inertia() * b.radius,
            accelerated: false,
        }));
    }

    /// One Anderson update of the `applied` wrenches from the forces `computed` at the
    /// guess they produced, per cluster of the particle–particle `contacts`; a cluster all
    /// of whose particles are `kept` (within half the tolerance, [`super::relax`]) keeps
    /// its wrenches. `beta(i)` is particle `i`'s mixing weight β [-].
    pub fn update<'a>(
        &mut self,
        contacts: impl Iterator<Item = &'a Contact>,
        computed: &[Wrench],
        applied: &mut [Wrench],
        kept: &[bool],
        beta: &dyn Fn(usize) -> f64,
    ) {
        let n = self.bodies.len().min(computed.len()).min(applied.len());
        for (h, (f, w)) in self
            .bodies
            .iter_mut()
            .zip(computed.iter().zip(applied.iter()))
        {
            let (f, w) = (join(f), join(w));
            h.push(w, std::array::from_fn(|k| f[k] - w[k]));
        }
        let mut clusters = std::mem::take(&mut self.clusters);
        clusters.build(n, contacts);
        for c in 0..clusters.len() {
            let members = clusters.members(c);
            if members
                .iter()
                .all(|&i| kept.get(i as usize).copied().unwrap_or(false))
            {
                continue;
            }
            self.update_cluster(members, applied, beta);
        }
        self.clusters = clusters;
    }

    fn update_cluster(
        &mut self,
        members: &[u32],
        applied: &mut [Wrench],
        beta: &dyn Fn(usize) -> f64,
    ) {
        let mut m = members
            .iter()
            .map(|&i| self.bodies[i as usize].f.len().saturating_sub(1))
            .min()
            .unwrap_or(0)
            .min(MEMORY);
        let accelerated = members.iter().any(|&i| self.bodies[i as usize].accelerated);
        if m > 0 && accelerated {
            // Safeguard: the residual grew after a combined step, the map changed (a
            // contact switched). (A plain mixing step may grow it: β·f overshoots where
            // Picard diverges, which is what the next combined step corrects.)
            let (mut now, mut before) = (0.0, 0.0);
            for &i in members {
                let h = &self.bodies[i as usize];
                let k = h.f.len();
                let (a, b) = (h.scaled(&h.f[k - 1]), h.scaled(&h.f[k - 2]));
                now += dot(&a, &a);
                before += dot(&b, &b);
            }
            if now > RESTART * RESTART * before {
                for &i in members {
                    self.bodies[i as usize].keep_last();
                }
                m = 0;
            }
        }
        let mut gamma = [0.0; MEMORY];
        if m > 0 {
            let mut a = [[0.0; MEMORY]; MEMORY];
            for &i in members {
                let h = &self.bodies[i as usize];
                let fk = h.scaled(&h.f[h.f.len() - 1]);
                let dfs: [V6; MEMORY] =
                    std::array::from_fn(|j| if j < m { h.df(j) } else { [0.0; 6] });
                for j in 0..m {
                    gamma[j] += dot(&dfs[j], &fk);
                    for l in 0..m {
                        a[j][l] += dot(&dfs[j], &dfs[l]);
                    }
                }
            }
            let scale = (0..m).map(|j| a[j][j]).fold(0.0, f64::max);
            for (j, row) in a.iter_mut().enumerate().take(m) {
                row[j] += 1e-12 * scale;
            }
            if scale.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
                || solve(&mut a, &mut gamma, m).is_none()
            {
                gamma = [0.0; MEMORY];
            }
        }
        for &i in members {
            if let Some(h) = self.bodies.get_mut(i as usize) {
                h.accelerated = m > 0;
            }
            let (Some(h), Some(out)) = (self.bodies.get(i as usize), applied.get_mut(i as usize))
            else {
                continue;
            };
            let k = h.f.len();
            let beta = beta(i as usize);
            let (w, f) = (h.w[k - 1], h.f[k - 1]);
            let mut next: V6 = std::array::from_fn(|c| w[c] + beta * f[c]);
            for (j, g) in gamma.iter().enumerate().take(m) {
                let (w1, w0, f1, f0) = (
                    h.w[k - 1 - j],
                    h.w[k - 2 - j],
                    h.f[k - 1 - j],
                    h.f[k - 2 - j],
                );
                for c in 0..6 {
                    next[c] -= g * ((w1[c] - w0[c]) + beta * (f1[c] - f0[c]));
                }
            }
            out.force = Vec3::new(next[0], next[1], next[2]);
            out.torque = Vec3::new(next[3], next[4], next[5]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Other;
    use msdem_geom::math::Quat;

    fn body(mass: f64) -> Body {
        Body {
            shape: 0,
            material: 0,
            mass,
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

    /// Three particles, two of them touching: `F(W) = c − A·W` with `A` coupling the
    /// touching pair's forces (modes λ = 1 and 9, where plain Picard diverges; torques
    /// λ = 3) and the third alone (λ = 4). With β = 0.1 the plain mixing `W ← W + β·f`
    /// contracts, slowly (0.8 per iteration on the λ = 1 mode); Anderson per cluster on top
    /// of it reaches the exact `(I + A)⁻¹·c` — solved here by hand — within 12 iterations,
    /// where the plain mixing is still far off.
    #[test]
    fn anderson_per_cluster_solves_a_coupled_linear_map_where_its_mixing_crawls() {
        let bodies = [body(1.0), body(2.0), body(3.0)];
        let contacts = [Contact {
            a: 0,
            b: Other::Particle(1),
            point: Vec3::zeros(),
            normal: Vec3::z(),
            dist: 0.0,
            weight: 1.0,
            depth: 0.0,
        }];
        let c = [
            Vec3::new(10.0, -4.0, 1.0),
            Vec3::new(2.0, 6.0, -3.0),
            Vec3::new(5.0, 0.0, 2.0),
        ];
        // A = [[5, 4], [4, 5]] on particles 0–1 (modes 1 and 9), 4 on particle 2.
        let map = |w: &[Wrench]| -> Vec<Wrench> {
            let f = [
                c[0] - 5.0 * w[0].force - 4.0 * w[1].force,
                c[1] - 4.0 * w[0].force - 5.0 * w[1].force,
                c[2] - 4.0 * w[2].force,
            ];
            f.iter()
                .zip(w)
                .map(|(f, w)| Wrench {
                    force: *f,
                    torque: Vec3::new(1.0, 0.0, 0.0) - 3.0 * w.torque,
                })
                .collect()
        };
        let mut anderson = Anderson::default();
        anderson.begin(&bodies);
        let mut w = vec![Wrench::default(); 3];
        let mut converged = None;
        for k in 0..=12 {
            let f = map(&w);
            let r: f64 = f
                .iter()
                .zip(&w)
                .map(|(f, w)| (f.force - w.force).norm() + (f.torque - w.torque).norm())
                .sum();
            if r < 1e-9 {
                converged = Some(k);
                break;
            }
            anderson.update(contacts.iter(), &f, &mut w, &[false; 3], &|_| 0.1);
        }
        assert!(converged.is_some(), "not converged: {w:?}");
        // (I + A)⁻¹ = [[6, −4], [−4, 6]] / 20 on the pair; 1/5 alone; torques 1/4.
        let e0 = (6.0 * c[0] - 4.0 * c[1]) / 20.0;
        let e1 = (6.0 * c[1] - 4.0 * c[0]) / 20.0;
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
        assert!((w[2].force - c[2] / 5.0).norm() < 1e-8);
        assert!((w[2].torque.x - 0.25).abs() < 1e-8);
        // The plain mixing alone, as many iterations.
        let mut x = vec![Wrench::default(); 3];
        for _ in 0..12 {
            let f = map(&x);
            for (x, f) in x.iter_mut().zip(&f) {
                x.force += 0.1 * (f.force - x.force);
                x.torque += 0.1 * (f.torque - x.torque);
            }
        }
        assert!((x[0].force - e0).norm() > 1e-2 * e0.norm());
    }
}
