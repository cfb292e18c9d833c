//! Direct solve of a small cluster's contact conditions by active sets (issue 12: jammed
//! clusters), the exact complement of the Picard sweeps (seed 004 §6).
//!
//! The projected Gauss–Seidel sweeps stall where contact points are redundant (a cube face rests on four corner points: the Delassus operator `W`, the
//! relative contact velocity change per unit impulse over all points, is singular) and
//! masses differ: a stack of five equal cubes still misses 1e-5 after 5,000 sweeps. Once
//! the sweeps have sorted the points (pushing or open, sticking or sliding), the conditions
//! of §6 are linear on that active set: a pushing point has `v_n⁺ = 0`, a sticking one
//! `v_t⁺ = 0`, an open one keeps `P_n` at its floor, a sliding one `P_t = μ·P_n·d` along a
//! fixed direction `d`. That square system, `(E·W·C)·x = −E·(v + W·(c − P))` (unknowns `x`,
//! constant part `c`, columns `C` of the impulses, `E` the rows of the equations), is solved
//! densely by LU, slightly regularised (the redundant points make it singular; the bias is
//! removed by iterative refinement) — [`solve`]. The classification is then corrected
//! from the solution (a pushing point below its floor opens, an open point that approaches
//! pushes, a sticking point outside the disc slides along its impulse, a sliding point
//! whose velocity turns to the impulse sticks, otherwise its direction follows `−v_t`) and
//! the system solved again, a few passes at most. The result counts as converged only if it
//! meets every condition in the real velocities to the velocity tolerance; otherwise it is
//! projected onto the bounds and kept as the sweeps' next iterate if it is closer to the
//! conditions than theirs (else impulses and velocities are restored), and the sweeps go on.

mod blocks;
mod dense;
mod newton;
mod sparse;

use super::row::Row;
use super::sweep::Velocities;
use super::NewtonUse;
use msdem_geom::math::Vec3;
use nalgebra::DMatrix;

/// Default largest cluster (contact points) solved by the dense LU
/// (`direct/dense.rs`, [`crate::integrator::lts::impulse::ImpulseSettings::dense_max_points`]):
/// 96 unknowns, one dense LU of ≈ 6·10⁵ flops per pass, the cost of about two hundred
/// sweeps over 32 points. Larger clusters are solved in body space (`direct/sparse.rs`):
/// dense LU at 64 points made the toppling debris of `cube_stacks` ≈ 25× slower.
pub const DENSE_MAX_ROWS: usize = 32;
/// Largest cluster (contact points) solved directly at all, by the body-space sparse
/// solve; larger ones are left to the sweeps. Its cost per pass grows with the bodies and
/// the fill of their graph, not with the points cubed.
pub const DIRECT_MAX_ROWS: usize = 4096;
/// Diagonal regularisation of the dense active-set system, relative to its diagonal.
const REGULARISATION: f64 = 1e-12;
/// Iterative refinement steps after the regularised dense solve.
const REFINEMENTS: usize = 3;
/// Most re-classifications of the active set: dense (each pass an `O(m³)` LU) and sparse.
const MAX_PASSES: usize = 8;
const MAX_PASSES_SPARSE: usize = 32;
/// Passes that may swap every infeasible point without lowering their number.
const FULL_SWAPS: u32 = 3;
/// Passes without fewer violating points after which the passes stop.
const STALL_PASSES: u32 = 6;

/// What a direct solve achieved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// Every condition met to the velocity tolerance: the cluster is solved.
    Solved,
    /// Not exact, but the projected result is closer to the conditions than the sweeps'
    /// iterate and replaced it.
    Improved,
    /// Nothing changed.
    Failed,
}

/// Normal state of a point: pushing (`P_n` unknown, `v_n⁺ = 0`) or open (`P_n` = floor).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Normal {
    Push,
    Open,
}

/// Tangential state: sticking (`P_t` unknown, `v_t⁺ = 0`) or sliding along the unit
/// direction `d` (in the row's `t1`, `t2` basis) with `|P_t| = μ·P_n`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Tangent {
    Stick,
    Slide([f64; 2]),
}

/// Reusable buffers of the direct solve.
#[derive(Debug, Default)]
pub struct Direct {
    /// Dense Delassus operator in the rows' local bases (n, t1, t2), `3m × 3m`.
    w: DMatrix<f64>,
    /// Relative velocity of every row in its local basis at the start.
    v0: Vec<[f64; 3]>,
    /// Impulses at the start (local basis).
    p0: Vec<[f64; 3]>,
    /// Active set per row.
    normal: Vec<Normal>,
    tangent: Vec<Tangent>,
    /// Trial impulses (local basis) and the velocities they give.
    p: Vec<[f64; 3]>,
    v: Vec<[f64; 3]>,
    /// Body-space factors and buffers of the sparse pass (`direct/sparse.rs`).
    lu: blocks::BlockLu,
    du: Vec<blocks::Six>,
    z: Vec<blocks::Six>,
    /// Block principal pivoting: fewest infeasible points so far, full swaps left.
    fewest: usize,
    budget: u32,
    /// The cluster is solved in body space (`direct/sparse.rs`), with its own start and
    /// pivoting rules.
    large: bool,
    /// The last semismooth Newton solve stopped on a flat stretch of its merit
    /// (`direct/newton.rs`).
    stalled: bool,
}

/// Unknowns of an active set: per row the index of its first unknown; per unknown its
/// row and impulse column (local components, a sliding point's carrying its friction
/// `μ·d`); per equation its row and component (n, t1, t2). Per row: the normal unknown and
/// equation if pushing, then the two tangential ones if sticking; unknown `c` and equation
/// `c` belong to the same row.
type Unknowns = (Vec<usize>, Vec<(usize, [f64; 3])>, Vec<(usize, usize)>);

/// The [`Unknowns`] of the active set `normal`, `tangent` of `rows`.
fn relative_unknowns(rows: &[Row], normal: &[Normal], tangent: &[Tangent]) -> Unknowns {
    let mut index = Vec::with_capacity(rows.len());
    let mut columns = Vec::new();
    let mut equations = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        index.push(columns.len());
        if normal[i] == Normal::Push {
            let q = match tangent[i] {
                Tangent::Stick => [1.0, 0.0, 0.0],
                Tangent::Slide(d) => [1.0, row.mu * d[0], row.mu * d[1]],
            };
            columns.push((i, q));
            equations.push((i, 0));
        }
        if tangent[i] == Tangent::Stick {
            columns.push((i, [0.0, 1.0, 0.0]));
            columns.push((i, [0.0, 0.0, 1.0]));
            equations.push((i, 1));
            equations.push((i, 2));
        }
    }
    (index, columns, equations)
}

/// Local basis (n, t1, t2) of a row.
fn basis(row: &Row) -> [Vec3; 3] {
    [row.n, row.t1, row.t2]
}

/// Relative velocity of `row`'s contact point in its local basis.
pub(super) fn relative(row: &Row, state: &Velocities) -> [f64; 3] {
    let v = state.point_velocity(Some(row.a), &row.ra) - state.point_velocity(row.b, &row.rb);
    basis(row).map(|e| e.dot(&v))
}

impl Direct {
    /// Impulses `self.p` of the active set for unknowns `x` (`index[i]`: first unknown of
    /// row i); the open and sliding parts follow from the normal impulse.
    fn impulses_of(&mut self, rows: &[Row], index: &[usize], x: &[f64]) {
        for (i, row) in rows.iter().enumerate() {
            let mut k = index[i];
            let pn = match self.normal[i] {
                Normal::Push => {
                    k += 1;
                    x[k - 1]
                }
                Normal::Open => row.floor,
            };
            let pt = match self.tangent[i] {
                Tangent::Stick => [x[k], x[k + 1]],
                Tangent::Slide(d) => [row.mu * pn * d[0], row.mu * pn * d[1]],
            };
            self.p[i] = [pn, pt[0], pt[1]];
        }
    }

    /// Corrects the active set from the last pass; returns whether it changed.
    fn reclassify(&mut self, rows: &[Row], tol_v: f64) -> bool {
        // Normal changes: every infeasible point swaps (dense); in a large cluster by
        // block principal pivoting after Júdice and Pires: every infeasible point swaps
        // while their number falls (or for a few passes after it last fell), then one at
        // a time, the last in row order (Murty's rule, which cannot cycle on a P-matrix),
        // and a point that starts pushing starts sticking.
        let scale = self.p.iter().map(|p| p[0].abs()).fold(0.0, f64::max);
        let slack = 1e-9 * scale;
        let infeasible: Vec<usize> = rows
            .iter()
            .enumerate()
            .filter(|&(i, row)| match self.normal[i] {
                Normal::Push => self.p[i][0] < row.floor - slack,
                Normal::Open => self.v[i][0] < -tol_v,
            })
            .map(|(i, _)| i)
            .collect();
        let swap: Vec<usize> = if infeasible.is_empty() {
            Vec::new()
        } else if !self.large || infeasible.len() < self.fewest {
            self.fewest = infeasible.len();
            self.budget = FULL_SWAPS;
            infeasible.clone()
        } else if self.budget > 0 {
            self.budget -= 1;
            infeasible.clone()
        } else {
            infeasible[infeasible.len() - 1..].to_vec()
        };
        for &i in &swap {
            self.normal[i] = match self.normal[i] {
                Normal::Push => Normal::Open,
                Normal::Open => {
                    if self.large && rows[i].mu > 0.0 {
                        self.tangent[i] = Tangent::Stick;
                    }
                    Normal::Push
                }
            };
        }
        if !swap.is_empty() {
            return true;
        }
        // Friction changes once the normal set is feasible (the bounds depend on it).
        let mut changed = false;
        for (i, row) in rows.iter().enumerate() {
            let [pn, p1, p2] = self.p[i];
            let [_, v1, v2] = self.v[i];
            let bound = row.mu * pn.max(row.floor);
            match self.tangent[i] {
                Tangent::Stick => {
                    let size = (p1 * p1 + p2 * p2).sqrt();
                    if size > bound * (1.0 + 1e-9) + slack {
                        let d = if size > 0.0 {
                            [p1 / size, p2 / size]
                        } else {
                            [1.0, 0.0]
                        };
                        self.tangent[i] = Tangent::Slide(d);
                        changed = true;
                    }
                }
                Tangent::Slide(d) => {
                    let speed = (v1 * v1 + v2 * v2).sqrt();
                    if speed <= tol_v || bound <= 0.0 {
                        continue;
                    }
                    if v1 * d[0] + v2 * d[1] > tol_v {
                        // Moving along its friction impulse: less friction is needed.
                        self.tangent[i] = Tangent::Stick;
                        changed = true;
                    } else {
                        let new = [-v1 / speed, -v2 / speed];
                        if (new[0] - d[0]).abs() + (new[1] - d[1]).abs() > 1e-12 {
                            self.tangent[i] = Tangent::Slide(new);
                            changed = true;
                        }
                    }
                }
            }
        }
        if changed {
            // A new friction set is a new normal problem: the pivoting starts over.
            self.fewest = usize::MAX;
            self.budget = FULL_SWAPS;
        }
        changed
    }

    /// Tries the direct solve of `rows` from their current impulses and the velocities of
    /// `state`. [`Outcome::Solved`]: the rows carry the solution, `state` its velocities;
    /// otherwise the rows and `state` carry the better of the projected direct result
    /// ([`Outcome::Improved`]) and what they had ([`Outcome::Failed`]) (module docs). `tol_v` [m/s] is the
    /// velocity tolerance every condition must meet in the real velocities. Clusters of at
    /// most `dense_max` points are solved by dense LU (`direct/dense.rs`), larger ones up to
    /// [`DIRECT_MAX_ROWS`] in body space (`direct/sparse.rs`).
    pub fn solve(
        &mut self,
        rows: &mut [Row],
        state: &mut Velocities,
        tol_v: f64,
        dense_max: usize,
        newton: NewtonUse,
    ) -> Outcome {
        let m = rows.len();
        self.stalled = false;
        if m == 0 || m > DIRECT_MAX_ROWS {
            return Outcome::Failed;
        }
        let dense = m <= dense_max;
        if dense {
            self.dense_delassus(rows, state);
        }
        self.v0.clear();
        self.p0.clear();
        self.normal.clear();
        self.tangent.clear();
        for row in rows.iter() {
            self.v0.push(relative(row, state));
            self.p0.push([row.pn, row.pt[0], row.pt[1]]);
        }
        // Large clusters: the velocities with every impulse at its floor (normal) and
        // zero (friction).
        self.large = !dense;
        self.p.clear();
        self.p.extend(rows.iter().map(|row| [row.floor, 0.0, 0.0]));
        self.v.clear();
        self.v.resize(m, [0.0; 3]);
        if self.large {
            self.body_velocities(rows, state);
        }
        for (row, free) in rows.iter().zip(&self.v) {
            let size = (row.pt[0] * row.pt[0] + row.pt[1] * row.pt[1]).sqrt();
            // Small clusters start from the sweeps' sorting. Large ones: pushing are the
            // sweeps' pushing points and every point that does not separate without
            // impulses (redundant corner points the sweeps left open, points they have
            // not carried the load to yet: a resting stack is then solved in one pass,
            // all its points pushing), and pushing points start sticking (the sweeps'
            // sliding points are often points not loaded yet, their friction at the rim
            // of a tiny disc): the passes let the ones that must slide slide.
            let (push, stick) = if self.large {
                let push = row.pn > row.floor || free[0] <= tol_v;
                (push, push && row.mu > 0.0)
            } else {
                (row.pn > row.floor, size < row.mu * row.pn * (1.0 - 1e-9))
            };
            self.normal
                .push(if push { Normal::Push } else { Normal::Open });
            self.tangent.push(if stick {
                Tangent::Stick
            } else if size > 0.0 {
                Tangent::Slide([row.pt[0] / size, row.pt[1] / size])
            } else {
                Tangent::Slide([1.0, 0.0])
            });
        }
        self.p.clear();
        self.p.extend_from_slice(&self.p0);
        self.v.clear();
        self.v.resize(m, [0.0; 3]);
        let start = worst(rows, state);
        if self.large && newton == NewtonUse::Instead {
            return self.newton_try(rows, state, tol_v, start);
        }
        self.fewest = usize::MAX;
        self.budget = FULL_SWAPS;
        let passes = if dense { MAX_PASSES } else { MAX_PASSES_SPARSE };
        let (mut fewest, mut stalled) = (usize::MAX, 0);
        let (mut settled, mut unsolvable) = (false, false);
        for _ in 0..passes {
            let solved = if dense {
                self.dense_pass(rows)
            } else {
                self.sparse_pass(rows, state, tol_v)
            };
            if !solved {
                unsolvable = true;
                break;
            }
            let violators = rows
                .iter()
                .enumerate()
                .filter(|&(i, row)| violation(self.p[i], self.v[i], row.floor, row.mu) > tol_v)
                .count();
            if violators == 0 {
                settled = true;
                break;
            }
            // Give up when the points that violate a condition have not become fewer for
            // a while (the sorting cycles): each pass costs a factorisation.
            if violators < fewest {
                (fewest, stalled) = (violators, 0);
            } else {
                stalled += 1;
                if stalled >= STALL_PASSES {
                    break;
                }
            }
            if !self.reclassify(rows, tol_v) {
                break;
            }
        }
        // Take the last pass, projected onto the bounds (exact if it settled), and check
        // it in the real velocities.
        let saved: Vec<_> = rows.iter().map(|r| (r.pn, r.pt)).collect();
        let before = (state.velocity.clone(), state.angular.clone());
        let end = if unsolvable {
            f64::INFINITY
        } else {
            self.commit(rows, state)
        };
        // The acceptance rule: every condition in the real velocities (in a large cluster
        // also after a last pass that missed only by a pushing point a rounding error
        // below its floor, which the projection removes).
        if (settled || self.large) && end <= tol_v {
            return Outcome::Solved;
        }
        // Not exact: keep it as the sweeps' next iterate only if it is closer to the
        // conditions than the iterate the sweeps had reached.
        let improved = end < start;
        if !improved && !unsolvable {
            for (row, (pn, pt)) in rows.iter_mut().zip(saved) {
                row.accept(pn, pt);
            }
            (state.velocity, state.angular) = before;
        }
        let after = match newton {
            NewtonUse::Large => self.large,
            NewtonUse::Always => true,
            NewtonUse::Off | NewtonUse::Instead => false,
        };
        if after {
            // The semismooth Newton solve from the better of the two iterates.
            let outcome = self.newton_try(rows, state, tol_v, end.min(start));
            if outcome != Outcome::Failed {
                return outcome;
            }
        }
        if improved {
            Outcome::Improved
        } else {
            Outcome::Failed
        }
    }

    /// Whether this solve's semismooth Newton try (`direct/newton.rs`) stopped on a flat
    /// stretch of its merit: it stopped after steps that barely lowered it, or found no
    /// step that lowers it at the largest damping (not where it ran out of steps while
    /// still descending). `false` where no Newton solve ran.
    pub fn newton_stalled(&self) -> bool {
        self.stalled
    }

    /// Writes `self.p`, projected onto the bounds, into `rows` and their velocity changes
    /// into `state`; returns the largest violation of the conditions in the real velocities
    /// [m/s].
    fn commit(&self, rows: &mut [Row], state: &mut Velocities) -> f64 {
        for (row, p) in rows.iter_mut().zip(&self.p) {
            let (pn, pt) = projected(row, *p);
            row.accept(pn, pt);
            row.apply(state);
        }
        worst(rows, state)
    }

    /// The semismooth Newton solve (`direct/newton.rs`) from the rows' impulses, accepted by
    /// the same rule as the active sets: [`Outcome::Solved`] if every condition holds in
    /// the real velocities to `tol_v`, [`Outcome::Improved`] if its projected iterate is
    /// closer to the conditions than `start` (the rows' violation), else the rows and
    /// `state` are restored ([`Outcome::Failed`]).
    fn newton_try(
        &mut self,
        rows: &mut [Row],
        state: &mut Velocities,
        tol_v: f64,
        start: f64,
    ) -> Outcome {
        let converged = self.newton(rows, state, tol_v);
        let saved: Vec<_> = rows.iter().map(|r| (r.pn, r.pt)).collect();
        let before = (state.velocity.clone(), state.angular.clone());
        let end = self.commit(rows, state);
        if converged && end <= tol_v {
            return Outcome::Solved;
        }
        if end < start {
            return Outcome::Improved;
        }
        for (row, (pn, pt)) in rows.iter_mut().zip(saved) {
            row.accept(pn, pt);
        }
        (state.velocity, state.angular) = before;
        Outcome::Failed
    }
}

/// The impulse `p` (local n, t1, t2) of `row` projected onto its bounds: `P_n ≥ floor`,
/// `|P_t| ≤ μ·P_n` (radially).
fn projected(row: &Row, p: [f64; 3]) -> (f64, [f64; 2]) {
    let pn = p[0].max(row.floor);
    let size = (p[1] * p[1] + p[2] * p[2]).sqrt();
    let scale = if size > row.mu * pn {
        row.mu * pn / size
    } else {
        1.0
    };
    (pn, [p[1] * scale, p[2] * scale])
}

/// Largest violation of the conditions over `rows` in the velocities of `state` [m/s]
/// (see [`violation`]).
pub(super) fn worst(rows: &[Row], state: &Velocities) -> f64 {
    rows.iter()
        .map(|row| {
            let p = [row.pn, row.pt[0], row.pt[1]];
            violation(p, relative(row, state), row.floor, row.mu)
        })
        .fold(0.0, f64::max)
}

/// How far the impulse `p` and relative velocity `v` (local basis n, t1, t2) of a point
/// with normal floor `floor` and friction `mu` are from the conditions of §6 [m/s]:
/// infinite if `P_n < floor` or `|P_t| > μ·P_n` (beyond a relative 1e-9), otherwise the
/// largest of the approach speed `−v_n`, `|v_n|` if pushing above the floor, `|v_t|` inside
/// the disc, and on its rim the part of `v_t` not opposed to `P_t`.
fn violation(p: [f64; 3], v: [f64; 3], floor: f64, mu: f64) -> f64 {
    let ([pn, p1, p2], [vn, v1, v2]) = (p, v);
    let size = (p1 * p1 + p2 * p2).sqrt();
    let bound = mu * pn;
    let slack = 1e-9 * pn.abs().max(floor.abs());
    // NaN impulses fail too.
    let within = pn >= floor - slack && size <= bound + slack;
    if !within {
        return f64::INFINITY;
    }
    let mut worst = (-vn).max(0.0);
    if pn > floor + slack {
        worst = worst.max(vn.abs());
    }
    if size < bound - slack {
        return worst.max((v1 * v1 + v2 * v2).sqrt());
    }
    if size == 0.0 {
        return worst;
    }
    // On the rim: v_t = −λ·P̂_t, λ ≥ 0.
    let d = [p1 / size, p2 / size];
    let along = v1 * d[0] + v2 * d[1];
    let across = (v1 - along * d[0], v2 - along * d[1]);
    worst
        .max(along)
        .max((across.0 * across.0 + across.1 * across.1).sqrt())
}
