//! Soft-minimum contact points (`ContactPoints::SoftMin`; issue 19, `docs/design.md` §6):
//! a contact law whose force is a continuous function of the poses.
//!
//! The patch floor (`patch.rs`) holds a curved contact at its deepest fine pair: the
//! potential `½k·(m − d_min)²`. Where two fine pairs of one body pair are almost equally
//! deep — two bumps of a rock on a tread, a vertex of the facets against a face — the
//! deepest switches between them and the force's point of application jumps, the torque
//! with it (measured: `examples/contact_jumps.rs`); an implicit step whose guesses fall on
//! both sides of such a switch never converges. Here every fine pair within the margin
//! pushes, with the overlaps `oᵢ = (m − dᵢ)₊` combined by a p-norm,
//!
//! `s = (Σᵢ oᵢ^p)^{1/p}`, potential `U = ½k·s²`,
//!
//! a smooth maximum of the overlaps (`s → max oᵢ` for `p → ∞`). Each fine pair's force is
//! `−∂U/∂dᵢ = k·s^{2−p}·oᵢ^{p−1}` along its own normal (the gradient of its gap, as for the
//! floor), so the law is conservative and, since a fine pair enters at `oᵢ = 0` with zero
//! force and zero share, continuous in the poses wherever each `dᵢ` is. A single fine
//! pair is the seed's spring `k·(m − d)` exactly. Written as [`Contact`]s with
//! `weight = (oᵢ/s)^{p−2}` and `dist = dᵢ`, so that `k·weight·(m − dist)` is that force,
//! `Σ weight·½k(m − dist)²` is `U`, and the pair dashpot (`force.rs`, `pair_damping`)
//! sees the tangent stiffness `k·Σ weight` and the depth `s`, both continuous.
//!
//! The price: `n` fine pairs tied at the same depth (the closest point on an edge or a
//! vertex, reached through each of its triangles) push `n^{2/p}` times harder than one
//! (1.19× for two, 1.57× for six at [`EXPONENT`] = 8); a larger `p` shrinks that and
//! sharpens the hand-over between two minima (its width in depth is about `s/p`).

use super::{Contact, RawContact};
use crate::model::Other;

/// The exponent `p` of the p-norm of the overlaps [-] (see the module docs).
pub const EXPONENT: f64 = 8.0;

/// The soft-minimum contacts of the body pair (`a`, `b`) from its fine pairs `raw` (within
/// the pair's margin `margin` \[m\]), appended to `out` in `raw`'s order; fine pairs
/// without overlap give none.
pub fn pair_contacts(a: u32, b: Other, raw: &[RawContact], margin: f64, out: &mut Vec<Contact>) {
    let overlap = |r: &RawContact| (margin - r.dist).clamp(0.0, margin);
    let largest = raw.iter().map(overlap).fold(0.0, f64::max);
    if !(largest > 0.0 && largest.is_finite()) {
        return;
    }
    // Scaled by the largest overlap, so that `oᵢ^p` neither under- nor overflows.
    let sum: f64 = raw.iter().map(|r| (overlap(r) / largest).powf(EXPONENT)).sum();
    let s = largest * sum.powf(1.0 / EXPONENT);
    for r in raw {
        let o = overlap(r);
        if o <= 0.0 {
            continue;
        }
        out.push(Contact {
            a,
            b,
            point: 0.5 * (r.p + r.q),
            normal: r.normal,
            dist: r.dist.clamp(0.0, margin),
            weight: (o / s).powf(EXPONENT - 2.0),
            depth: s,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use msdem_geom::math::Vec3;

    fn raw(dist: f64, x: f64) -> RawContact {
        RawContact {
            p: Vec3::new(x, 0.0, dist),
            q: Vec3::new(x, 0.0, 0.0),
            dist,
            normal: Vec3::z(),
            tri_a: 0,
            tri_b: 0,
        }
    }

    /// Spring force `Σ k·wᵢ·(m − dᵢ)` and energy `Σ wᵢ·½k(m − dᵢ)²` of the contacts.
    fn force_energy(c: &[Contact], k: f64, m: f64) -> (f64, f64) {
        c.iter().fold((0.0, 0.0), |(f, e), c| {
            let o = m - c.dist;
            (f + k * c.weight * o, e + 0.5 * k * c.weight * o * o)
        })
    }

    #[test]
    fn one_fine_pair_is_the_seed_spring() {
        let mut out = Vec::new();
        pair_contacts(0, Other::Obstacle(0), &[raw(0.004, 0.0)], 0.01, &mut out);
        assert_eq!(out.len(), 1);
        assert!((out[0].weight - 1.0).abs() < 1e-15);
        assert!((out[0].depth - 0.006).abs() < 1e-15);
        let (f, e) = force_energy(&out, 1000.0, 0.01);
        assert!((f - 6.0).abs() < 1e-12 && (e - 0.018).abs() < 1e-14);
    }

    /// The force is the derivative of the energy in each gap (central differences), and a
    /// fine pair entering the margin changes neither.
    #[test]
    fn forces_are_the_gradient_and_enter_at_zero() {
        let (k, m) = (1000.0, 0.01);
        let gaps = [0.0041, 0.0047, 0.0099];
        let energy = |g: &[f64]| {
            let r: Vec<RawContact> = g.iter().map(|&d| raw(d, 0.0)).collect();
            let mut out = Vec::new();
            pair_contacts(0, Other::Obstacle(0), &r, m, &mut out);
            force_energy(&out, k, m).1
        };
        let r: Vec<RawContact> = gaps.iter().map(|&d| raw(d, 0.0)).collect();
        let mut out = Vec::new();
        pair_contacts(0, Other::Obstacle(0), &r, m, &mut out);
        for (i, c) in out.iter().enumerate() {
            let h = 1e-9;
            let (mut up, mut down) = (gaps, gaps);
            up[i] += h;
            down[i] -= h;
            let grad = -(energy(&up) - energy(&down)) / (2.0 * h);
            let f = k * c.weight * (m - c.dist);
            assert!((f - grad).abs() < 1e-6 * f.max(1e-3), "{i}: {f} vs {grad}");
        }
        // A fourth pair just inside the margin: force and energy change continuously.
        let before = force_energy(&out, k, m);
        let mut more = r.clone();
        more.push(raw(m - 1e-9, 0.0));
        let mut out2 = Vec::new();
        pair_contacts(0, Other::Obstacle(0), &more, m, &mut out2);
        let after = force_energy(&out2, k, m);
        assert!((after.0 - before.0).abs() < 1e-9 && (after.1 - before.1).abs() < 1e-12);
    }

    /// Two equally deep minima share the force equally (`2^{2/p}` times one's), and the
    /// hand-over between a deeper and a shallower one is gradual, not a switch.
    #[test]
    fn two_minima_share_the_force() {
        let (k, m) = (1000.0, 0.01);
        let mut out = Vec::new();
        pair_contacts(0, Other::Obstacle(0), &[raw(0.004, -0.01), raw(0.004, 0.01)], m, &mut out);
        let (f, _) = force_energy(&out, k, m);
        assert!((f - 6.0 * 2f64.powf(2.0 / EXPONENT)).abs() < 1e-9);
        assert!((out[0].weight - out[1].weight).abs() < 1e-15);
        let share = |d2: f64| {
            let mut out = Vec::new();
            pair_contacts(0, Other::Obstacle(0), &[raw(0.004, -0.01), raw(d2, 0.01)], m, &mut out);
            let f: Vec<f64> = out.iter().map(|c| k * c.weight * (m - c.dist)).collect();
            f[1] / (f[0] + f[1])
        };
        let mut last = share(0.0039);
        assert!(last > 0.5);
        for i in 1..=40 {
            let s = share(0.0039 + 2.5e-5 * f64::from(i));
            assert!(s < last && last - s < 0.08, "step {i}: {last} → {s}");
            last = s;
        }
    }
}
