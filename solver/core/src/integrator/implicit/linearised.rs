//! Implicit steps with the contacts linearised once per step
//! ([`crate::params::PicardAcceleration::Linearised`]; Moreau–Jean style time stepping).
//!
//! The Picard iterations of the parent module detect contacts at every guess, and the
//! real contact forces jump with the pose (a patch floor's deepest point hopping between
//! facet bumps, seed points merging): the fixed point `W = F(state(W))` of seed 000 §2
//! Alg. 3 then cycles, and each iteration pays a narrow phase. Here the step's system is
//! built once from the detection at its start and solved without any narrow phase:
//!
//! 1. **Candidates**: every contact `c` of the start state (between `a` and `b`, unit normal
//!    `n` from `b` to `a`, distance `d₀`, point `p₀`), plus the contacts that an earlier
//!    attempt of the same step missed (below). Each keeps its normal, its weight and its
//!    world lever arms over the step.
//! 2. **Linearised gap**: at a guess whose particles moved by `Δx` and turned by the
//!    rotation vector `Δφ` from the start, the contact's distance is
//!    `d = d₀ + n·(u_a − u_b)` with `u = Δx + Δφ × (p₀ − x₀)`, the displacement of the
//!    contact's material point to first order: under implicit Euler `Δx = Δt·v'`, so
//!    `d = d₀ + Δt·n·v_rel(v')`, the linear gap prediction of nonsmooth contact dynamics;
//!    the point moves with the bodies' translation (a rolling sphere's contact stays under
//!    it). The relative velocity is the guess's own, so the project's contact law (spring,
//!    capped dashpot, regularised Coulomb friction, Hertz where selected,
//!    [`crate::contact::force`]) is evaluated on the predicted gaps and velocities exactly.
//! 3. **Solve** `W = F(v'(W))` for the wrench `W`: the piecewise-linear active-set update of
//!    [`super::pwl`] (a semi-smooth Newton step on the convex model of the conservative
//!    part plus the monotone dissipative terms, globalised on the residual), with the relaxed
//!    iteration as its fallback. `F` depends on the guess continuously — no contact set,
//!    point or merge changes inside the iteration — so nothing cycles on a jump, and an
//!    iteration costs a force evaluation over the candidates instead of a narrow phase.
//!    Converged: the relative update below [`crate::params::PicardParams::tolerance`]
//!    (the parent's test); otherwise the step is split into substeps, as every
//!    non-converged step is.
//! 4. **Acceptance check** at the end state, from the detection the next step starts from
//!    anyway (it is kept for the next step's first iteration): every real contact is
//!    matched to the prediction of the same body pair nearest to it (points within a
//!    quarter of `a`'s radius). A real halo overlap `δ = margin − d` that differs from the
//!    predicted one by more than [`DEPTH_FRACTION`] of the margin, either way, rejects the
//!    step: unmatched contacts (a pair the start detection did not see: a fast particle
//!    reaching a new contact inside the step) are carried back to the start pose as new
//!    candidates and the step is solved again at the same Δt (at most
//!    [`MAX_CORRECTIONS`] times); a matched one (a large linearisation error: a turn, a
//!    contact point that moved along a facet) splits the step into substeps.
//!
//! **Why the bound keeps the physics.** The spring force is `k·δ` and its energy `½k·δ²`.
//! A contact whose overlap at the accepted state differs from the one the step assumed by
//! at most `f·margin` (`f` = [`DEPTH_FRACTION`] = 5 %) carries a normal force error of at
//! most `f·k·margin` — 5 % of the peak force `k·margin` of the law, whose overlap is
//! capped at the margin — and an energy the step did not account for of at most
//! `k·δ·f·margin + ½k·(f·margin)²` ≤ 10 % of the peak spring energy `½k·margin²`, and far
//! less at the shallow overlaps of resting contacts; the next step starts from the real
//! contacts, so the error does not accumulate as a drift of the contact set. The bound is
//! two-sided because either sign feeds energy in: a contact deeper than predicted stores
//! spring energy no force paid for, one shallower than predicted was pushed harder than
//! the real contact would push on its way out. Measured: at 20 % one-sided a box resting on
//! a plane under the midpoint rule at ten times the explicit step bounced higher and higher
//! (vertical speed 0.18 → 0.5 m/s within 10 steps); at 5 % two-sided it comes to rest
//! carrying its weight (`tests/implicit/linearised.rs`).
//!
//! **Midpoint rule.** The θ-method with θ = ½ evaluates the forces at the midpoint state;
//! with a one-sided spring this gains energy when a contact opens or closes inside a step
//! (the midpoint overlap is zero while the end overlap is not), and at ten times the
//! explicit step an impact lasts one or two steps: a vertex impact rebounded with 1.36–1.54
//! of its speed for restitutions 0.4–1. Because the linearised gap is linear in the
//! displacement, the spring of the linear law acts instead with its *discrete gradient*
//! `k·(U(δ₁) − U(δ₀))/(δ₁ − δ₀)` between the start and end overlaps (`U` its potential;
//! Gonzalez's energy-consistent midpoint rule), which equals `k·δ_mid` while the contact
//! stays closed and makes the spring's work over the step exactly `k·(U(δ₁) − U(δ₀))`: the
//! elastic impact (`e = 1`) rebounds with 1.001 and `e = 0.7` with 0.700 at ten times the
//! explicit step (that test's entry phase). The dashpot keeps the midpoint velocity: over
//! the entry phase of the impact within a step the rebound ranges 0.34–0.69 for `e = 0.4`
//! and 0.54–0.70 for `e = 0.7`, and as the rule is not L-stable a stronger dashpot reverses
//! the velocity inside the step rather than absorbing it, so no per-pair damping
//! calibration fixes it (docs/design.md §6). Hertz contacts keep the midpoint overlap.

use crate::contact::force::Wrench;
use crate::contact::pair::PairParams;
use crate::contact::Contact;
use crate::detect::{Detector, Search};
use crate::error::StepError;
use crate::frames::PhaseTimes;
use crate::model::{Model, Other};
use crate::params::{DetectionMode, PicardVariant};
use crate::state::{Body, State};
use msdem_geom::math::{Quat, Vec3};

/// Largest excess of a real halo overlap at the end of a step over its linearised
/// prediction, as a fraction of the pair's margin, that the step accepts [-].
pub const DEPTH_FRACTION: f64 = 0.05;
/// Most re-solves of one (sub)step with contacts its check revealed.
pub const MAX_CORRECTIONS: u32 = 2;
/// A real contact matches a predicted one of the same body pair when their points are
/// closer than this fraction of the radius of `a` [-].
const SAME_POINT: f64 = 0.25;

/// The contact set of one step, frozen at its start (see the module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct Frozen {
    /// Candidates at the start poses: the start contacts, then the revealed ones, grouped
    /// by body pair.
    base: Vec<Contact>,
    /// Contacts revealed by the failed checks of this step, at the start poses.
    pub(super) revealed: Vec<Contact>,
    /// The start evaluation (contacts, forces, candidate pairs), restored for a re-solve.
    pub(super) start_contacts: Vec<Contact>,
    pub(super) start_computed: Vec<Wrench>,
    pub(super) start_pairs: u32,
    /// Scratch: the end state's real and predicted contacts.
    pub(super) real: Vec<Contact>,
    predicted: Vec<Contact>,
    /// Re-solves with revealed contacts and splits by the check, over the run.
    pub(super) corrections: u64,
    pub(super) rejections: u64,
    /// Largest overlap error of the last attempt the check split, as a fraction of its
    /// pair's margin (`None`: the last failed attempt did not converge instead).
    pub(super) last_rejection: Option<f64>,
}

/// What the acceptance check decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    Accept,
    /// Real contacts that no candidate predicted: solve again with them.
    Reveal,
    /// A predicted contact much shallower than the real one: split the step.
    Split,
}

/// The complete detection the linearised step uses for `variant`: flat, or the hierarchy
/// on the kept active sets (the explicit step's search; multiscale Picard's iteration
/// widens one level per call and is no complete detection).
pub(super) fn search(variant: PicardVariant) -> Search {
    match variant {
        PicardVariant::Flat => Search::Roots(DetectionMode::Flat),
        PicardVariant::Surrogate => Search::Roots(DetectionMode::Hierarchy),
        PicardVariant::Multiscale => Search::Kept,
    }
}

/// Every contact of `state` by `search` into `out` (the kept sets start a new step, as in
/// the explicit step).
pub(super) fn detect(
    model: &Model,
    state: &State,
    variant: PicardVariant,
    detector: &mut Detector,
    out: &mut Vec<Contact>,
    wall: &mut PhaseTimes,
) -> Result<crate::detect::Detection, StepError> {
    let search = search(variant);
    if search == Search::Kept {
        detector.begin_step(false);
    }
    detector.detect(model, state, search, out, wall)
}

/// The first-order displacement \[m\] of the material point `p` of a body from `from` to
/// `to`: `Δx + Δφ × (p − x₀)`.
fn displacement(from: &Body, to: &Body, p: &Vec3) -> Vec3 {
    let turn: Vec3 = rotation(&from.orientation, &to.orientation);
    (to.position - from.position) + turn.cross(&(p - from.position))
}

/// The rotation vector \[rad\] that turns `from` into `to`.
fn rotation(from: &Quat, to: &Quat) -> Vec3 {
    (to * from.inverse()).scaled_axis()
}

/// The other particle of a contact, if it is one of `n` particles.
fn particle(b: Other, n: usize) -> Option<usize> {
    match b {
        Other::Particle(j) if (j as usize) < n => Some(j as usize),
        _ => None,
    }
}

/// Sort key grouping contacts by body pair (obstacles after particles).
fn pair_key(c: &Contact) -> (u32, u8, u32) {
    match c.b {
        Other::Particle(j) => (c.a, 0, j),
        Other::Obstacle(o) => (c.a, 1, o),
    }
}

/// The contacts `base` (at the poses `from`) carried to the poses `to` with the
/// linearised gap of the module docs, into `out` (swapped poses carry back).
fn carry(base: &[Contact], from: &[Body], to: &[Body], out: &mut Vec<Contact>) {
    out.clear();
    let n = from.len().min(to.len());
    for c in base {
        let a = c.a as usize;
        if a >= n {
            out.push(*c);
            continue;
        }
        let ua = displacement(&from[a], &to[a], &c.point);
        let (ub, shift) = match particle(c.b, n) {
            Some(j) => {
                let ub = displacement(&from[j], &to[j], &c.point);
                let t = 0.5
                    * ((to[a].position - from[a].position) + (to[j].position - from[j].position));
                (ub, t)
            }
            None => (Vec3::zeros(), to[a].position - from[a].position),
        };
        let opening = c.normal.dot(&(ua - ub));
        out.push(Contact {
            point: c.point + shift,
            dist: c.dist + opening,
            depth: (c.depth - opening).max(0.0),
            ..*c
        });
    }
}

/// The potential per unit stiffness and weight \[m²\] of the linear law's spring at
/// the halo overlap `delta` \[m\]: `½δ²` up to the margin `m`, where the overlap (and so
/// the force `k·δ`) is capped, and `½m² + m·(δ − m)` beyond (the force stays `k·m`).
fn spring_potential(delta: f64, margin: f64) -> f64 {
    if delta <= 0.0 {
        0.0
    } else if delta <= margin {
        0.5 * delta * delta
    } else {
        margin * (delta - 0.5 * margin)
    }
}

/// The distance \[m\] at which the linear law's spring force equals its discrete gradient
/// between the distances `d0` and `d1` \[m\] of the start and the end of a step,
/// `k·(U(δ₁) − U(δ₀))/(δ₁ − δ₀)` with `δ = m − d` ([`spring_potential`]); `None` where
/// the two are too close to tell (the midpoint's own distance then serves).
///
/// Under the θ-method (`theta` > ½) the spring acts with the blend of the discrete
/// gradient and the end-of-step force of [`super::theta::spring_overlap`]; θ = ½ is the
/// discrete gradient itself, bit for bit.
fn discrete_gradient_dist(margin: f64, d0: f64, d1: f64, theta: f64) -> Option<f64> {
    let (o0, o1) = (margin - d0, margin - d1);
    if (o1 - o0).abs() <= 1e-9 * margin || !o1.is_finite() || !o0.is_finite() {
        return None;
    }
    let gradient = (spring_potential(o1, margin) - spring_potential(o0, margin)) / (o1 - o0);
    let overlap = if theta == 0.5 {
        gradient
    } else {
        super::theta::spring_overlap(theta, gradient.clamp(0.0, margin), o1, margin)
    };
    Some(margin - overlap.clamp(0.0, margin))
}

impl Frozen {
    /// Starts a (sub)step from the start evaluation: `contacts` detected at the start,
    /// `computed` their forces, `pairs` the candidate pairs; the candidates are these plus
    /// the contacts revealed by earlier checks of the same step.
    pub(super) fn begin(&mut self, contacts: &[Contact], computed: &[Wrench], pairs: u32) {
        self.start_contacts.clear();
        self.start_contacts.extend_from_slice(contacts);
        self.start_computed.clear();
        self.start_computed.extend_from_slice(computed);
        self.start_pairs = pairs;
        self.base.clear();
        self.base.extend_from_slice(contacts);
        if !self.revealed.is_empty() {
            self.base.extend_from_slice(&self.revealed);
            // Contacts of one pair stay consecutive (the law groups them, `pair_runs`).
            self.base.sort_by_key(pair_key);
        }
    }

    /// The candidates carried from the start poses `start` to the guess `bodies` (implicit
    /// Euler: the end state). For the midpoint rule and the θ-method, `bodies` is the
    /// state where forces are evaluated and `end` the end state with the scheme's θ: the
    /// spring of the linear law then acts with its discrete gradient over the step
    /// (module docs, *Midpoint rule*), blended with its end-of-step force for θ > ½
    /// ([`super::theta::spring_overlap`]).
    pub(super) fn contacts_at(
        &mut self,
        model: &Model,
        start: &[Body],
        bodies: &[Body],
        end: Option<(&[Body], f64)>,
        out: &mut Vec<Contact>,
    ) {
        carry(&self.base, start, bodies, out);
        let Some((end, theta)) = end else {
            return;
        };
        let mut at_end = std::mem::take(&mut self.predicted);
        carry(&self.base, start, end, &mut at_end);
        for ((c, c0), c1) in out.iter_mut().zip(&self.base).zip(&at_end) {
            let pp = PairParams::of(model, bodies, c.a, c.b);
            if pp.hertz.is_some() {
                continue;
            }
            if let Some(d) = discrete_gradient_dist(pp.margin, c0.dist, c1.dist, theta) {
                c.dist = d;
            }
        }
        self.predicted = at_end;
    }

    /// The acceptance check (module docs) of the end state `end` reached from `start`
    /// against its real contacts `real`; the contacts no candidate predicted are carried
    /// back to the start and remembered for a re-solve. With `strict` (the split scheme,
    /// [`super::split`]) a real contact that no candidate predicted is revealed at any
    /// overlap, not only beyond [`DEPTH_FRACTION`] of the margin: its spring energy would
    /// otherwise enter the next step unpaid, which the split scheme's conservative
    /// spring returns in full (a resting box then hops on its own).
    pub(super) fn check(
        &mut self,
        model: &Model,
        start: &[Body],
        end: &[Body],
        real: &[Contact],
        strict: bool,
    ) -> Verdict {
        let mut predicted = std::mem::take(&mut self.predicted);
        carry(&self.base, start, end, &mut predicted);
        let mut verdict = Verdict::Accept;
        let mut missed = Vec::new();
        let mut worst: f64 = 0.0;
        for r in real {
            let pp = PairParams::of(model, end, r.a, r.b);
            let margin = pp.margin;
            let overlap = |d: f64| (margin - d).clamp(0.0, margin);
            let reach = SAME_POINT * end.get(r.a as usize).map_or(0.0, |b| b.radius);
            let nearest = predicted
                .iter()
                .filter(|p| p.a == r.a && p.b == r.b)
                .map(|p| ((p.point - r.point).norm(), p))
                .filter(|(d, _)| *d <= reach)
                .min_by(|x, y| x.0.total_cmp(&y.0));
            let excess = overlap(r.dist) - nearest.map_or(0.0, |(_, p)| overlap(p.dist));
            let unpredicted = strict && nearest.is_none() && excess > 0.0;
            if excess.abs() <= DEPTH_FRACTION * margin && !unpredicted {
                continue;
            }
            if nearest.is_some() {
                verdict = Verdict::Split;
                worst = worst.max(excess.abs() / margin);
            } else {
                missed.push(*r);
                if verdict == Verdict::Accept {
                    verdict = Verdict::Reveal;
                }
            }
        }
        self.last_rejection = (verdict == Verdict::Split).then_some(worst);
        if verdict == Verdict::Reveal {
            // Back to the start poses: the same first-order transport, reversed.
            let mut back = Vec::new();
            carry(&missed, end, start, &mut back);
            self.revealed.extend(back);
        }
        self.predicted = predicted;
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::super::ImplicitEuler;
    use super::*;
    use msdem_geom::math::Mat3;

    fn body(x: Vec3, q: Quat) -> Body {
        Body {
            shape: 0,
            material: 0,
            mass: 1.0,
            inertia: Mat3::identity(),
            inv_inertia: Mat3::identity(),
            epsilon: 0.01,
            radius: 0.5,
            position: x,
            orientation: q,
            velocity: Vec3::zeros(),
            angular_velocity: Vec3::zeros(),
        }
    }

    /// The check's `strict` mode (the split scheme): a real contact no candidate
    /// predicted is revealed even below [`DEPTH_FRACTION`] of the margin; otherwise it is
    /// accepted there. Above the fraction both reveal it.
    #[test]
    fn strict_checks_reveal_every_unpredicted_contact() {
        let model = Model {
            materials: vec![crate::model::Material {
                name: "m".into(),
                density: 1000.0,
                halo: Default::default(),
                spring: 1000.0,
                friction: 0.0,
                restitution: 0.5,
                law: Default::default(),
                surface: Default::default(),
            }],
            ..Model::default()
        };
        let bodies = [
            body(Vec3::zeros(), Quat::identity()),
            body(Vec3::new(0.0, 0.0, 1.0), Quat::identity()),
        ];
        let margin = 2.0 * bodies[0].epsilon;
        let real = |overlap: f64| Contact {
            a: 0,
            b: Other::Particle(1),
            point: Vec3::new(0.0, 0.0, 0.5),
            normal: -Vec3::z(),
            dist: margin - overlap,
            weight: 1.0,
            depth: overlap,
        };
        for (overlap, strict, want) in [
            (0.5 * DEPTH_FRACTION * margin, false, Verdict::Accept),
            (0.5 * DEPTH_FRACTION * margin, true, Verdict::Reveal),
            (2.0 * DEPTH_FRACTION * margin, false, Verdict::Reveal),
            (2.0 * DEPTH_FRACTION * margin, true, Verdict::Reveal),
        ] {
            let mut frozen = Frozen::default();
            frozen.begin(&[], &[], 0);
            let got = frozen.check(&model, &bodies, &bodies, &[real(overlap)], strict);
            assert_eq!(got, want, "overlap {overlap}, strict {strict}");
        }
    }

    /// A step split down to the deepest substep by the acceptance check is reported as
    /// such; one whose iterations did not converge keeps the Picard message.
    #[test]
    fn a_step_the_check_keeps_rejecting_says_so() {
        let params = crate::params::PicardParams::default();
        let mut im = ImplicitEuler::with(1e-3, Vec3::zeros(), &params, PicardVariant::Flat);
        let e = || StepError::NotConverged {
            step: 7,
            time: 0.25,
            iterations: 50,
            residual: 1e-5,
            tolerance: 0.01,
            levels: 4,
        };
        assert!(matches!(im.explain(e()), StepError::NotConverged { .. }));
        im.frozen.last_rejection = Some(0.12);
        let msg = im.explain(e()).to_string();
        assert!(
            msg.contains("step 7") && msg.contains("12 %") && msg.contains("Δt/16"),
            "{msg}"
        );
    }

    /// A contact under a body moved by `Δx` and turned about the contact normal's
    /// perpendicular: its gap changes by `n·(Δx + Δφ × r)` (first order), and carrying
    /// forward then back restores it.
    #[test]
    fn the_gap_follows_the_first_order_displacement() {
        let start = [body(Vec3::zeros(), Quat::identity())];
        let turn = Vec3::new(0.0, 0.02, 0.0);
        let end = [body(
            Vec3::new(0.001, 0.0, -0.003),
            Quat::from_scaled_axis(turn),
        )];
        let c = Contact {
            a: 0,
            b: Other::Obstacle(0),
            point: Vec3::new(0.1, 0.0, -0.5),
            normal: Vec3::z(),
            dist: 0.004,
            weight: 1.0,
            depth: 0.006,
        };
        let mut out = Vec::new();
        carry(&[c], &start, &end, &mut out);
        let want = 0.004 - 0.003 + turn.cross(&Vec3::new(0.1, 0.0, -0.5)).z;
        assert!(
            (out[0].dist - want).abs() < 1e-12,
            "{} vs {want}",
            out[0].dist
        );
        assert!((out[0].depth - (0.006 - (want - 0.004))).abs() < 1e-12);
        // The point follows the translation only.
        assert!((out[0].point - Vec3::new(0.101, 0.0, -0.503)).norm() < 1e-12);
        let mut back = Vec::new();
        carry(&out, &end, &start, &mut back);
        assert!((back[0].dist - c.dist).abs() < 1e-4, "{}", back[0].dist);
    }
}
