//! Partners that cannot be the closest to any point of a refinement cell (issue 14): the
//! patch quadrature evaluates each midpoint against the rest only, with the same result
//! bit for bit ([`SideCtx::nearby`]).

use super::{Corner, Partner, SideCtx, BOUND_SLACK};
use msdem_geom::math::Vec3;

/// A set of partners of one side triangle: bit `i` stands for `o_tris[i]`. With more than
/// [`Mask::BITS`] partners every set holds all of them (no culling).
pub(super) type Mask = u64;

/// The set of all partners.
pub(super) const ALL: Mask = Mask::MAX;

impl Partner {
    /// Distance \[m\] between the partner's axis-aligned box and the box `lo`–`hi`: a
    /// lower bound of the distance from any point of the box to the triangle.
    fn box_distance(&self, lo: &Vec3, hi: &Vec3) -> f64 {
        let mut sum = 0.0;
        for k in 0..3 {
            let gap = (self.lo[k] - hi[k]).max(lo[k] - self.hi[k]).max(0.0);
            sum += gap * gap;
        }
        sum.sqrt()
    }
}

impl SideCtx<'_> {
    /// The partners of `mask` that may be the closest to a point of the cell `x` (corner
    /// values `v`, longest edge `longest` \[m\]), in their order. The distance to the
    /// partners is 1-Lipschitz, so at every point of `x` it is at most
    /// `U = min_j d(x_j) + longest`; a partner whose box is farther than `U` from the
    /// cell's box (with a slack far above rounding) is farther than the closest one at
    /// every point of `x` and never `eval`'s closest: dropping it changes no value of
    /// [`SideCtx::eval`] inside `x`, bit for bit (the rest keep their order, so ties go
    /// the same way).
    pub(super) fn nearby(&self, x: &[Vec3; 3], v: &[Corner; 3], longest: f64, mask: Mask) -> Mask {
        if self.o_tris.len() > Mask::BITS as usize {
            return ALL;
        }
        let reach = v[0].d.min(v[1].d).min(v[2].d) + longest;
        let reach = reach * (1.0 + 1e-9) + BOUND_SLACK;
        let lo = x[0].inf(&x[1]).inf(&x[2]);
        let hi = x[0].sup(&x[1]).sup(&x[2]);
        let mut kept = 0;
        let mut rest = mask & self.all();
        while rest != 0 {
            let i = rest.trailing_zeros();
            rest &= rest - 1;
            if self.o_tris[i as usize].box_distance(&lo, &hi) <= reach {
                kept |= 1 << i;
            }
        }
        kept
    }

    /// The set of all partners of this side triangle.
    pub(super) fn all(&self) -> Mask {
        match self.o_tris.len() {
            n if n >= Mask::BITS as usize => ALL,
            n => (1 << n) - 1,
        }
    }

    /// Calls `f` with the index and partner of each member of `mask`, in order.
    pub(super) fn each(&self, mask: Mask, mut f: impl FnMut(usize, &Partner)) {
        if self.o_tris.len() > Mask::BITS as usize {
            for (i, p) in self.o_tris.iter().enumerate() {
                f(i, p);
            }
            return;
        }
        let mut rest = mask;
        while rest != 0 {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if let Some(p) = self.o_tris.get(i) {
                f(i, p);
            }
        }
    }
}
