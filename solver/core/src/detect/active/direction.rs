//! Directional certificates of idle pairs for the event-driven pair-set query
//! (`events.rs`, issue 15): a clearance measured along one direction `w` fixed in A's
//! frame, spent only by the motion that closes the gap along `w`.
//!
//! **Slab gap.** For a vector `w` with `|w| ≤ 1` and two triangles `a` (A's) and `b`
//! (B's, in A's frame), let `g_w = min_{y∈b} w·y − max_{x∈a} w·x` (over the vertices: a
//! linear function takes its extremes over a triangle at vertices). If `g_w > 0`, every
//! `x ∈ a`, `y ∈ b` have `|y − x| ≥ w·(y − x)/|w| ≥ w·(y − x) ≥ g_w`, so the distance of
//! the two triangles is at least `g_w` — whatever the closest points are and however they
//! move: the bound holds for the whole sets, not for a projection of one witness pair.
//! (For convex sets and `w` the unit witness direction of their distance `d`, `g_w = d`:
//! the plane through the closest points normal to `w` separates them, so nothing is lost
//! where `w` is that direction.)
//!
//! **Motion along `w`.** Let B's bounding sphere have centre `c` and radius `r` in B's
//! frame, and `C_j = T_j c` its centre in A's frame at pose `T_j = (R_j, t_j)`. A point
//! `y` of B is at `T_j y = C_j + R_j (y − c)`, so between poses `k` and `j`
//! `w·(T_j y − T_k y) = w·(C_j − C_k) + w·(R_j − R_k)(y − c) ≥ w·(C_j − C_k) − ‖R_j − R_k‖·r`
//! (`|w| ≤ 1`), and `‖R_j − R_k‖ ≤ Σ ‖R_{i+1} − R_i‖` over the poses in between, each
//! `2·|vec(q_{i+1} q_i⁻¹)|` (`certify.rs`). A's triangle does not move in A's frame. With
//! `D_j` the sum of those rotation terms × `r` up to pose `j` (the *drift*), every vertex
//! of `b` gains at least `w·(C_j − C_k) − (D_j − D_k)` along `w`, hence
//! `g_w(j) ≥ g_w(k) + w·(C_j − C_k) − (D_j − D_k)`: a translation that moves B away from A
//! along `w` *adds* to the gap, one across `w` costs nothing, and only the rotation is
//! spent isotropically. The translation is not summed step by step: `C_j − C_k` is exact.
//!
//! **Certificate.** One `w` per set: the unit vector from A's bounding-sphere centre to
//! B's at the set's first pose, scaled by `1 − 10⁻⁶` (so `|w| ≤ 1` despite rounding). A
//! pair idle at pose `k` with check margin `M` gets the room `ρ_w = g_w(k) − M − ρ` (ρ the
//! rounding allowance of `certify.rs`, which covers the `f32` transform of B's triangle at
//! both poses and the kernel's rounding exactly as for the isotropic clearance), stored
//! as `K = ρ_w + S_k` with `S_j = D_j − w·C_j` ([`SlabCache::anchor`], rounded down to `f32`).
//! At a later pose `j`, `K − S_j = ρ_w + w·(C_j − C_k) − (D_j − D_k) ≤ g_w(j) − M − ρ ≤
//! dist − M − ρ`, so while `K > S_j` the kernel finds the pair outside its margin and the
//! pair is certainly still idle; `K − S_j` is a clearance at pose `j` in the sense of
//! `certify.rs` (a validation materialises the larger of it and the isotropic one). `S`
//! is one number per query, so the test is one comparison per pair. The drift also holds
//! `2⁻¹⁰` × B's displacement bound per step (`MOTION_SLACK`): a surrogate pair's padded
//! margin and ρ grow with the coordinate bound by at most `2⁻¹⁶` of that displacement.
//! Every sum is in `f64` (relative error ≈ 10⁻¹⁵ of the coordinates, far inside
//! ρ = 2⁻¹⁶ of them); `K` and the expiry are rounded down to `f32` (8 bytes per pair,
//! carried through the walks beside the 20-byte leaves).
//!
//! Contacts keep their isotropic in-margin slack (an upper bound of the distance needs
//! points of the two triangles, not a slab): an expired one is renewed from the witness
//! points of its last kernel check where they still certify it (`witness.rs`).

use msdem_geom::math::Tri;

/// What a stored pair of the event-driven query carries (`ActiveSet::expiry`, parallel to
/// the leaves, carried through the walks: 8 bytes beside the 20-byte leaf).
/// `#[repr(C)]`: the scan reads the pairs as consecutive `f32` (`scan.rs`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub(super) struct Expiry {
    /// The accumulated isotropic motion at which the pair's certificate expires \[m\]
    /// (rounded down); NaN for a leaf a walk just created.
    pub(super) at: f32,
    /// `K` of the directional certificate \[m\] (module docs, rounded down); `-inf`: none;
    /// NaN: not computed yet (an idle pair a walk created: `LAZY` in `events.rs`).
    pub(super) k: f32,
}

impl Expiry {
    /// A leaf a walk just created: no expiry, no directional certificate.
    pub(super) const NEW: Expiry = Expiry {
        at: f32::NAN,
        k: f32::NEG_INFINITY,
    };
}

/// The set's direction `w` and the motion of B's bounding sphere along it since the set
/// started.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Drift {
    /// `w` (A's frame, `|w| ≤ 1`): from A's sphere centre to B's at the set's first pose.
    w: [f64; 3],
    /// `D_j` \[m\]: the rotation terms and slack, summed and rounded up.
    drift: f64,
    /// `S_j = D_j − w·C_j` \[m\] at the last query.
    s: f64,
}

impl Drift {
    /// The set's direction from the two bounding-sphere centres in A's frame at its first
    /// pose, `a` (A's) and `c` (B's); zero if they coincide.
    pub(super) fn start(a: [f64; 3], c: [f64; 3]) -> Drift {
        let d = sub(&c, &a);
        let n = dot(&d, &d).sqrt();
        let w = if n > 0.0 && n.is_finite() {
            d.map(|x| x / n * (1.0 - 1e-6))
        } else {
            [0.0; 3]
        };
        let mut out = Drift {
            w,
            drift: 0.0,
            s: 0.0,
        };
        out.to(c);
        out
    }

    /// Adds a step's drift `step` \[m\] (rounded up by the caller) and moves to B's
    /// centre `c` in A's frame.
    pub(super) fn advance(&mut self, step: f64, c: [f64; 3]) {
        if step > 0.0 {
            self.drift = next_up(self.drift + step);
        } else if step.is_nan() {
            self.drift = f64::INFINITY;
        }
        self.to(c);
    }

    fn to(&mut self, c: [f64; 3]) {
        let s = self.drift - dot(&self.w, &c);
        self.s = if s.is_nan() { f64::INFINITY } else { s };
    }

    /// `S` at the last query \[m\]: a pair's directional room is `K − S`.
    pub(super) fn s(&self) -> f64 {
        self.s
    }

    /// The directional room of `e` at the current pose \[m\] (a clearance; `-inf` or
    /// negative: not certified).
    pub(super) fn room(&self, e: &Expiry) -> f64 {
        let r = f64::from(e.k) - self.s;
        if r.is_nan() {
            f64::NEG_INFINITY
        } else {
            r
        }
    }

    /// `K` of a pair with check margin `margin` and rounding allowance `rho` \[m\] from
    /// `hi` = [`Drift::hi`] of its A's triangle and `lo` = [`Drift::lo`] of its B's (in
    /// A's frame at the current pose): its slab gap `lo − hi` along `w` less both, plus
    /// `S` (rounded down).
    fn anchor_of(&self, hi: f64, lo: f64, margin: f32, rho: f32) -> f32 {
        down32(lo - hi - f64::from(margin) - f64::from(rho) + self.s)
    }

    /// The largest `w·x` over the vertices of `t` (A's triangle).
    fn hi(&self, t: &Tri) -> f64 {
        t.v.iter()
            .map(|v| self.along(v))
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// The smallest `w·y` over the vertices of `t` (B's triangle in A's frame).
    fn lo(&self, t: &Tri) -> f64 {
        t.v.iter()
            .map(|v| self.along(v))
            .fold(f64::INFINITY, f64::min)
    }

    fn along(&self, v: &[f32; 3]) -> f64 {
        let w = self.w;
        w[0] * f64::from(v[0]) + w[1] * f64::from(v[1]) + w[2] * f64::from(v[2])
    }
}

/// The two halves of the slab gaps of one set, cached (a triangle takes part in several
/// stored pairs): [`Drift::hi`] of A's soup triangles for the set's life (A's frame and
/// `w` do not change), [`Drift::lo`] of B's for one query (B's pose does). The same
/// values as computed in place, so the same anchors bit for bit.
#[derive(Clone, Debug, Default)]
pub(super) struct SlabCache {
    /// By A's soup index; NaN: not computed yet.
    hi: Vec<f64>,
    /// By B's soup index: the query it was computed at and the value.
    lo: Vec<(u32, f64)>,
    /// The current query's number (0: none).
    now: u32,
}

impl SlabCache {
    /// Forgets everything (a new set: a new `w`).
    pub(super) fn reset(&mut self) {
        self.hi.clear();
        self.lo.clear();
        self.now = 0;
    }

    /// Starts a query of a set of `na` and `nb` soup triangles (B's values expire).
    pub(super) fn begin(&mut self, na: usize, nb: usize) {
        if self.hi.len() != na {
            self.hi.clear();
            self.hi.resize(na, f64::NAN);
        }
        if self.lo.len() != nb {
            self.lo.clear();
            self.lo.resize(nb, (0, f64::NAN));
        }
        self.now = self.now.wrapping_add(1);
        if self.now == 0 {
            self.lo.iter_mut().for_each(|e| e.0 = 0);
            self.now = 1;
        }
    }

    /// `K` (module docs) of the pair of A's soup triangle `ia` (`t1`) and B's `ib` (`t2`,
    /// in A's frame at the current pose) with check margin `margin` and rounding
    /// allowance `rho` \[m\]; indices beyond the cache are computed in place.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn anchor(
        &mut self,
        d: &Drift,
        (ia, t1): (u32, &Tri),
        (ib, t2): (u32, &Tri),
        margin: f32,
        rho: f32,
    ) -> f32 {
        let hi = match self.hi.get_mut(ia as usize) {
            Some(h) if !h.is_nan() => *h,
            Some(h) => {
                *h = d.hi(t1);
                *h
            }
            None => d.hi(t1),
        };
        let now = self.now;
        let lo = match self.lo.get_mut(ib as usize) {
            Some((at, l)) if *at == now && now != 0 => *l,
            Some((at, l)) => {
                *l = d.lo(t2);
                *at = now;
                *l
            }
            None => d.lo(t2),
        };
        d.anchor_of(hi, lo, margin, rho)
    }
}

fn dot(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn sub(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// The next `f64` above a finite `x` (`x` itself otherwise).
pub(super) fn next_up(x: f64) -> f64 {
    if !x.is_finite() {
        x
    } else if x == 0.0 {
        f64::from_bits(1)
    } else if x > 0.0 {
        f64::from_bits(x.to_bits() + 1)
    } else {
        f64::from_bits(x.to_bits() - 1)
    }
}

/// `x` rounded down to `f32` (NaN gives `-inf`).
pub(super) fn down32(x: f64) -> f32 {
    if x.is_nan() {
        return f32::NEG_INFINITY;
    }
    let c = x as f32;
    if f64::from(c) > x {
        if c == f32::INFINITY {
            f32::MAX
        } else if c > 0.0 {
            f32::from_bits(c.to_bits() - 1)
        } else if c == 0.0 {
            -f32::from_bits(1)
        } else {
            f32::from_bits(c.to_bits() + 1)
        }
    } else {
        c
    }
}
