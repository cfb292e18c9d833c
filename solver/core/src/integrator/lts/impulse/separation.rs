//! The separation term of seed 004 §6: a position-only push that keeps particles from
//! drifting into each other over many collisions ("they might be pressed closer and
//! closer together … we add an additional force term to slowly separate the particles.
//! This artificial term does not contribute to the resulting velocities").
//!
//! A touching contact may overlap the halos by up to half the margin (`dist ≥ m/2`): the
//! pair stays in contact, so a settled pair keeps overlapping and does not constrain the
//! time step (seed §5, case 2). Deeper, `v = m/2 − dist > 0` is the halo violation
//! (interpenetration included, `dist < 0`); one call removes the fraction `f` of it by
//! translating the two particles along the normal in inverse proportion to their masses
//! (obstacles do not move), so the centre of mass of a particle pair stays put. With
//! several contacts, the translations solve `n·(Δx_a − Δx_b) ≥ f·v` for every point by the
//! same coloured Gauss–Seidel sweeps as the impulses, with accumulated pushes clamped at 0.

use super::sweep::Velocities;
use crate::contact::Contact;
use msdem_geom::math::Vec3;

/// Fraction of the margin a settled contact may overlap without being pushed apart [-].
pub const TOLERATED_OVERLAP: f64 = 0.5;

/// One contact point of the position pass.
#[derive(Clone, Debug)]
pub struct SeparationRow {
    a: u32,
    b: Option<u32>,
    n: Vec3,
    /// Gap to open along `n` in this call: `f·v` \[m\].
    pub target: f64,
    /// `1/M_a + 1/M_b` [1/kg].
    inv_mass: f64,
    /// Accumulated push (mass-weighted translation, ≥ 0) \[kg·m\].
    pub accumulated: f64,
    /// Change of the last update \[kg·m\].
    delta: f64,
}

/// The translations being built and the inverse masses they use.
#[derive(Debug)]
pub struct Shifts<'a> {
    /// Inverse mass per particle [1/kg].
    pub inv_mass: &'a [f64],
    /// Translation per particle \[m\].
    pub shift: &'a mut [Vec3],
}

impl SeparationRow {
    /// The row of contact `c` (`b` as in [`super::row::Row::new`]) for the pair margin
    /// `margin` \[m\] and the fraction `fraction` in \[0, 1\] of the violation to remove.
    pub fn new(
        c: &Contact,
        b: Option<u32>,
        margin: f64,
        fraction: f64,
        state: &Velocities,
    ) -> SeparationRow {
        let violation = (TOLERATED_OVERLAP * margin - c.dist).max(0.0);
        SeparationRow {
            a: c.a,
            b,
            n: c.normal.normalize(),
            target: fraction * violation,
            inv_mass: state.inv_mass[c.a as usize] + state.inv_mass_of(b),
            accumulated: 0.0,
            delta: 0.0,
        }
    }

    /// One Gauss–Seidel update from the current translations; returns the size of the
    /// change of the accumulated push.
    pub fn solve(&mut self, s: &Shifts<'_>) -> f64 {
        let a = s.shift[self.a as usize];
        let b = self.b.map_or(Vec3::zeros(), |j| s.shift[j as usize]);
        let gap = self.n.dot(&(a - b));
        let accumulated = (self.accumulated + (self.target - gap) / self.inv_mass).max(0.0);
        self.delta = accumulated - self.accumulated;
        self.accumulated = accumulated;
        self.delta.abs()
    }

    /// Writes the change of the last [`SeparationRow::solve`] into the translations.
    pub fn apply(&self, s: &mut Shifts<'_>) {
        let a = self.a as usize;
        s.shift[a] += self.n * (self.delta * s.inv_mass[a]);
        if let Some(b) = self.b {
            let b = b as usize;
            s.shift[b] -= self.n * (self.delta * s.inv_mass[b]);
        }
    }
}
