//! Culling data of the elements one unfolding produces (seed 000 Alg. 5: the child pairs
//! of a surrogate pair in contact), stored contiguously per coordinate so the child-pair
//! tests run over plain arrays the compiler vectorises, and cached per element for the
//! duration of one query so an element unfolded next to many partners is bounded once.
//!
//! The tests are those of `cull.rs` (bounding spheres grown by the halos) and
//! `node_box.rs` (boxes), with the same `f32` operations in the same order, so every
//! decision is the one [`crate::cull::spheres_apart_mag`] and
//! [`crate::node_box::boxes_apart_mag`] take (both are symmetric in their two
//! arguments, which lets either side be the lanes).

use crate::node_box::Aabb;

/// Relative slack of the sphere test (`cull.rs`).
const SPH_SLACK: f32 = 1e-5;
/// Relative slack of the box test (`node_box.rs`).
const BOX_SLACK: f32 = 1e-5;

/// Bounding sphere (grown by the element's halo) and box of one element with their slack
/// magnitudes ([`crate::cull::centre_mag`], [`crate::node_box::box_mag`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Cull {
    pub sph: [f32; 4],
    pub smag: f32,
    pub bx: Aabb,
    pub bmag: f32,
}

/// [`Cull`] of every element of one tree met in the current query, by element key (node
/// index for a surrogate, node count + soup index for a real triangle); an entry is valid
/// when its stamp is the query's.
#[derive(Debug, Default)]
pub(crate) struct CullCache {
    data: Vec<Cull>,
    stamp: Vec<u32>,
}

impl CullCache {
    /// Makes room for `n` keys.
    pub fn size(&mut self, n: usize) {
        if self.stamp.len() < n {
            self.stamp.resize(n, 0);
            self.data.resize(n, Cull::default());
        }
    }

    /// Invalidates every entry (after the query stamp wrapped).
    pub fn reset(&mut self) {
        self.stamp.iter_mut().for_each(|s| *s = 0);
    }

    /// The entry of `key` if it was stored under `stamp`.
    #[inline]
    pub fn hit(&self, key: usize, stamp: u32) -> Option<Cull> {
        (self.stamp[key] == stamp).then(|| self.data[key])
    }

    /// Stores the entry of `key` under `stamp`.
    #[inline]
    pub fn set(&mut self, key: usize, stamp: u32, c: Cull) {
        self.stamp[key] = stamp;
        self.data[key] = c;
    }
}

/// The [`Cull`] data of one side's unfolded elements, one array per component.
#[derive(Debug, Default)]
pub(crate) struct Lanes {
    c: [Vec<f32>; 3],
    r: Vec<f32>,
    smag: Vec<f32>,
    lo: [Vec<f32>; 3],
    hi: [Vec<f32>; 3],
    bmag: Vec<f32>,
    /// Number of elements in use (the vectors only grow).
    n: usize,
}

impl Lanes {
    /// Sizes the lanes for `n` elements (contents then set with [`Lanes::put`]).
    pub fn resize(&mut self, n: usize) {
        let cap = n.next_multiple_of(W);
        if self.r.len() < cap {
            for v in self.c.iter_mut().chain(&mut self.lo).chain(&mut self.hi) {
                v.resize(cap, 0.0);
            }
            self.r.resize(cap, 0.0);
            self.smag.resize(cap, 0.0);
            self.bmag.resize(cap, 0.0);
        }
        self.n = n;
    }

    /// Sets element `i`.
    #[inline]
    pub fn put(&mut self, i: usize, c: &Cull) {
        for k in 0..3 {
            self.c[k][i] = c.sph[k];
            self.lo[k][i] = c.bx.0[k];
            self.hi[k][i] = c.bx.1[k];
        }
        self.r[i] = c.sph[3];
        self.smag[i] = c.smag;
        self.bmag[i] = c.bmag;
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Into `keep[i]` (`keep` grown to at least [`Lanes::len`]): whether the pair of
    /// element `x` and lane `i` survives — spheres not apart, and boxes not more than
    /// `margin` \[m\] apart. Real–real pairs are box-tested here too (the check's own
    /// box test, `cull.rs`, would drop them one by one after they were queued).
    pub fn survivors(&self, x: &Cull, margin: f32, keep: &mut Vec<bool>) {
        // Whole blocks of `W` lanes (the lanes are allocated in whole blocks; the ones
        // past `len` hold stale or zero data and their answers are ignored), so the
        // fixed-width inner loop runs in SIMD registers with no scalar remainder.
        let n = self.len().next_multiple_of(W);
        if keep.len() < n {
            keep.resize(n, false);
        }
        let (xl, xh) = x.bx;
        // Branch-free (`|`, and `max` as a select, equal to `f32::max` on the finite,
        // non-negative magnitudes) so the loop runs in SIMD lanes.
        let mx = |a: f32, b: f32| if a > b { a } else { b };
        for b in (0..n).step_by(W) {
            let (cx, cy, cz) = (blk(&self.c[0], b), blk(&self.c[1], b), blk(&self.c[2], b));
            let (r, smag, bmag) = (blk(&self.r, b), blk(&self.smag, b), blk(&self.bmag, b));
            let (lx, ly, lz) = (
                blk(&self.lo[0], b),
                blk(&self.lo[1], b),
                blk(&self.lo[2], b),
            );
            let (hx, hy, hz) = (
                blk(&self.hi[0], b),
                blk(&self.hi[1], b),
                blk(&self.hi[2], b),
            );
            let mut k = [false; W];
            for i in 0..W {
                // `spheres_apart_mag(x, y)`.
                let d = [x.sph[0] - cx[i], x.sph[1] - cy[i], x.sph[2] - cz[i]];
                let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                let m = mx(x.smag, smag[i]);
                let rr = x.sph[3] + r[i];
                let rr = rr + SPH_SLACK * (rr + m);
                let sph_apart = d2 > rr * rr;
                // `boxes_apart_mag(x, y, margin)`.
                let mag = mx(x.bmag, bmag[i]);
                let mb = margin + BOX_SLACK * (margin + mag);
                let box_apart = (lx[i] - xh[0] > mb)
                    | (xl[0] - hx[i] > mb)
                    | (ly[i] - xh[1] > mb)
                    | (xl[1] - hy[i] > mb)
                    | (lz[i] - xh[2] > mb)
                    | (xl[2] - hz[i] > mb);
                k[i] = !sph_apart & !box_apart;
            }
            keep[b..b + W].copy_from_slice(&k);
        }
    }
}

/// Lanes per block of [`Lanes::survivors`].
const W: usize = 8;

/// Lanes `b..b + W` of `v` (whole blocks are allocated).
#[inline(always)]
fn blk(v: &[f32], b: usize) -> [f32; W] {
    let mut o = [0.0; W];
    o.copy_from_slice(&v[b..b + W]);
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cull::{centre_mag, spheres_apart_mag};
    use crate::node_box::{box_mag, boxes_apart_mag};

    fn cull(seed: u32) -> Cull {
        let mut x = seed.wrapping_mul(2654435761).wrapping_add(977);
        let mut r = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x % 20000) as f32 / 10000.0 - 1.0
        };
        let c = [0.3 * r(), 0.3 * r(), 0.3 * r()];
        let h = [0.3 * r().abs(), 0.3 * r().abs(), 0.3 * r().abs()];
        let sph = [c[0], c[1], c[2], 0.4 * r().abs()];
        let bx = (
            [0, 1, 2].map(|k| c[k] - h[k]),
            [0, 1, 2].map(|k| c[k] + h[k]),
        );
        Cull {
            sph,
            smag: centre_mag(&sph),
            bx,
            bmag: box_mag(&bx),
        }
    }

    /// The lane test takes exactly the decisions of the scalar tests, for every lane count
    /// (remainders of the SIMD width included).
    #[test]
    fn survivors_match_the_scalar_tests() {
        let (mut lanes, mut keep) = (Lanes::default(), Vec::new());
        let (mut kept, mut dropped) = (0, 0);
        for round in 0..200u32 {
            let n = (round % 37) as usize;
            let els: Vec<Cull> = (0..n as u32).map(|i| cull(round * 1000 + i)).collect();
            lanes.resize(n);
            for (i, c) in els.iter().enumerate() {
                lanes.put(i, c);
            }
            let x = cull(round * 1000 + 999);
            let margin = 0.01 * (round % 5) as f32;
            lanes.survivors(&x, margin, &mut keep);
            for (i, y) in els.iter().enumerate() {
                let want = !spheres_apart_mag(&x.sph, x.smag, &y.sph, y.smag)
                    && !boxes_apart_mag(&x.bx, x.bmag, &y.bx, y.bmag, margin);
                assert_eq!(keep[i], want, "round {round}, lane {i}");
                if want {
                    kept += 1;
                } else {
                    dropped += 1;
                }
            }
        }
        assert!(
            kept > 300 && dropped > 300,
            "kept {kept}, dropped {dropped}"
        );
    }
}
