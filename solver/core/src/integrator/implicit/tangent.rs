//! Linearised friction rows for the piecewise-linear update ([`super::pwl`]).
//!
//! Friction is regularised Coulomb friction (`crate::contact::force`, module docs):
//! `F_t = −μ·F_n·v_t / max(|v_t|, v_reg)` with `v_reg = 2·Δt·w_t·L`. Below `v_reg` it is
//! a viscous damper `F_t = −γ·v_t` with `γ = μ·F_n/v_reg`, and `v_reg` is chosen so that
//! `Δt·w_t·γ ≤ ½`: a Picard iteration that updates the wrench with the forces of the last
//! guess contracts its friction error by a factor ½ per iteration and no better — on the
//! staircase this halving set the pace of most steps once the normal contacts were solved
//! by the model (0.31 → 0.16 → 0.085 → … over seven iterations to reach 1 %). The update
//! therefore linearises friction too: a change `q` of the generalised accelerations changes
//! the slip velocity at the evaluated state by `θΔt·J_t·q` along a tangent `t` (rows
//! `J_t = (t, (x − x_a) × t)` as for the normal, [`super::newton`]), so friction adds the
//! weights
//!
//! * `s_t = θΔt·γ` along both tangents while `|v_t| < v_reg` (viscous, linear);
//! * `s_t = θΔt·μ·F_n/|v_t|` across the slip direction when sliding (the direction of
//!   the Coulomb force turns with the slip; its size does not change along it).
//!
//! The dependence of `F_t` on the normal force and on `v_reg` is left to the outer
//! iteration.

use super::newton::{join, Vec6};
use super::scheme::Implicitness;
use crate::contact::force::{friction_regularisation, inverse_mass_along, PreparedContact};
use crate::contact::Contact;
use crate::model::Other;
use crate::state::Body;
use msdem_geom::math::Vec3;

/// One linear friction row: rows of `a` and `b` (`None`: an obstacle) and weight \[kg\].
#[derive(Clone, Debug)]
pub(super) struct TangentRow {
    pub a: usize,
    pub b: Option<usize>,
    pub ja: Vec6,
    pub jb: Vec6,
    pub s: f64,
}

/// A unit vector perpendicular to the unit vector `n`.
fn perpendicular(n: &Vec3) -> Vec3 {
    let helper = if n.x.abs() < 0.9 {
        Vec3::x()
    } else {
        Vec3::y()
    };
    n.cross(&helper).normalize()
}

/// Appends the friction rows of `contacts` at the evaluated state `bodies` for the step
/// `dt` \[s\] and implicitness `im` to `out` (see the module docs), in contact order;
/// `prepared` are the contacts' normal forces there
/// ([`crate::contact::force::prepare_forces`]).
pub(super) fn friction_rows(
    bodies: &[Body],
    contacts: &[Contact],
    prepared: &[PreparedContact],
    dt: f64,
    im: Implicitness,
    out: &mut Vec<TangentRow>,
) {
    let n = bodies.len();
    if prepared.len() != contacts.len()
        || contacts
            .iter()
            .any(|c| c.a as usize >= n || matches!(c.b, Other::Particle(j) if j as usize >= n))
    {
        return;
    }
    let mut load = vec![0.0; n];
    for (c, p) in contacts.iter().zip(prepared) {
        load[c.a as usize] += p.limit;
        if let Other::Particle(j) = c.b {
            load[j as usize] += p.limit;
        }
    }
    for (c, p) in contacts.iter().zip(prepared) {
        if !(p.limit > 0.0 && p.limit.is_finite()) {
            continue;
        }
        let a = c.a as usize;
        let other = match c.b {
            Other::Particle(j) => Some(j as usize),
            Other::Obstacle(_) => None,
        };
        let vt = p.v_rel - p.v_rel.dot(&c.normal) * c.normal;
        let slip = vt.norm();
        let t = if slip > 0.0 { vt / slip } else { Vec3::zeros() };
        let mut w_t = inverse_mass_along(&bodies[a], &c.point, &t);
        let mut body_load = load[a];
        if let Some(j) = other {
            w_t += inverse_mass_along(&bodies[j], &c.point, &t);
            body_load = body_load.max(load[j]);
        }
        let v_reg = friction_regularisation(dt, w_t, body_load);
        let row = |dir: Vec3, s: f64| {
            let ja = join(&dir, &(c.point - bodies[a].position).cross(&dir));
            let jb = other.map_or(Vec6::zeros(), |j| {
                join(&dir, &(c.point - bodies[j].position).cross(&dir))
            });
            TangentRow {
                a,
                b: other,
                ja,
                jb,
                s,
            }
        };
        if slip < v_reg {
            let s = im.velocity * dt * p.limit / v_reg;
            if s.is_finite() && s > 0.0 {
                let t1 = perpendicular(&c.normal);
                let t2 = c.normal.cross(&t1);
                out.push(row(t1, s));
                out.push(row(t2, s));
            }
        } else {
            let s = im.velocity * dt * p.limit / slip;
            if s.is_finite() && s > 0.0 {
                out.push(row(c.normal.cross(&t), s));
            }
        }
    }
}
