//! Broad phase in space-time (seed 004 §3): every particle's bounding sphere incl. its
//! halo ε, swept over its admissible span, forms a *space-time tube* of two segments —
//! the interpolated one between its snapshots `[t⁻, t]` (other particles may sit on
//! earlier time stamps) and the extrapolated free flight `[t, t + Δt_p]`.
//!
//! * **Check 1** (bounding volumes, collapsed along time): one sphere bounds the whole
//!   tube; the HGrid of `msdem-broadphase` yields the pairs of overlapping spheres.
//! * **Check 2** (hoses): over the common time window of two tubes, split at both
//!   particles' time stamps, each centre moves on a parabola with the same acceleration `g`
//!   (we keep gravity), so their *difference* is linear in time and the closest approach
//!   of the two spheres is exact: the pair is kept iff it is at most the sum of the two
//!   radii `r + ε`.
//!
//! A parabola arc over `[a, b]` lies within `|g|·(b − a)²/8` of its chord, which the
//! bounding sphere of check 1 adds (tested against sampled trajectories).

use super::snapshot::Timeline;
use msdem_broadphase::Sphere;
use msdem_geom::math::Vec3;

/// The space-time tube of one particle over `[lo, hi]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tube {
    /// Start of the window \[s\] (`max(t⁻, global minimum time stamp)`).
    pub lo: f64,
    /// End of the window \[s\] (`t + Δt_p`, at most the synchronisation time).
    pub hi: f64,
    /// Radius of the moving sphere: bounding radius + ε \[m\].
    pub reach: f64,
    /// Sphere containing the whole tube (check 1) \[m\].
    pub bound: Sphere,
}

/// Bounding sphere (centre, radius) of the centre's trajectory over `[a, b]`.
fn arc_sphere(tl: &Timeline, a: f64, b: f64, g: &Vec3) -> (Vec3, f64) {
    let pa = tl.trajectory(a, g);
    let pb = tl.trajectory(b, g);
    let len = (b - a).max(0.0);
    (
        0.5 * (pa + pb),
        0.5 * (pb - pa).norm() + 0.125 * g.norm() * len * len,
    )
}

/// The tube of a particle with snapshots `tl`, window `[lo, hi]` (`lo ≥ t⁻`), moving
/// sphere radius `reach` \[m\], under gravity `g`.
pub fn tube(tl: &Timeline, lo: f64, hi: f64, reach: f64, g: &Vec3) -> Tube {
    let t = tl.cur.time;
    let mut pieces = [(Vec3::zeros(), -1.0); 2];
    if lo < t {
        pieces[0] = arc_sphere(tl, lo, t.min(hi), g);
    }
    if hi > t || lo >= t {
        pieces[1] = arc_sphere(tl, t.max(lo), hi.max(lo), g);
    }
    let mut min = Vec3::repeat(f64::INFINITY);
    let mut max = Vec3::repeat(f64::NEG_INFINITY);
    for (c, r) in pieces.iter().filter(|p| p.1 >= 0.0) {
        min = min.inf(&(c - Vec3::repeat(*r)));
        max = max.sup(&(c + Vec3::repeat(*r)));
    }
    let centre = 0.5 * (min + max);
    let radius = 0.5 * (max - min).norm();
    Tube {
        lo,
        hi,
        reach,
        bound: Sphere::new(centre.into(), radius * (1.0 + 1e-12) + reach),
    }
}

/// Check 2: whether the moving spheres of two tubes come within touching distance at a
/// common time (exact closest approach, see the module docs).
pub fn tubes_meet(tp: &Timeline, p: &Tube, tq: &Timeline, q: &Tube, g: &Vec3) -> bool {
    let w0 = p.lo.max(q.lo);
    let w1 = p.hi.min(q.hi);
    if w0 > w1 {
        return false;
    }
    let touch = (p.reach + q.reach) * (1.0 + 1e-9);
    let mut cuts = [w0, tp.cur.time, tq.cur.time, w1];
    cuts[1] = cuts[1].clamp(w0, w1);
    cuts[2] = cuts[2].clamp(w0, w1);
    if cuts[1] > cuts[2] {
        cuts.swap(1, 2);
    }
    let diff = |t: f64| tp.trajectory(t, g) - tq.trajectory(t, g);
    let mut prev = diff(cuts[0]);
    if prev.norm() <= touch {
        return true;
    }
    for w in cuts.windows(2) {
        if w[1] <= w[0] {
            continue;
        }
        let next = diff(w[1]);
        let e = next - prev;
        let ee = e.norm_squared();
        let s = if ee > 0.0 {
            (-prev.dot(&e) / ee).clamp(0.0, 1.0)
        } else {
            0.0
        };
        if (prev + s * e).norm() <= touch {
            return true;
        }
        prev = next;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::snapshot::Snapshot;
    use super::*;
    use msdem_geom::math::Quat;

    fn snap(t: f64, x: [f64; 3], v: [f64; 3]) -> Snapshot {
        Snapshot {
            time: t,
            position: Vec3::from(x),
            orientation: Quat::identity(),
            velocity: Vec3::from(v),
            angular_velocity: Vec3::zeros(),
        }
    }

    #[test]
    fn tube_bounds_the_parabolic_free_flight() {
        let g = Vec3::new(0.0, 0.0, -9.81);
        for (k, v) in [[3.0, 0.0, 5.0], [0.0, 0.0, 0.0], [-1.0, 2.0, -4.0]]
            .iter()
            .enumerate()
        {
            let s0 = snap(0.0, [0.0, 0.0, 1.0], *v);
            let s1 = s0.flown(0.3, &g);
            let mut s1b = s1;
            s1b.velocity = Vec3::new(-2.0, 1.0, 7.0); // an impulse at t = 0.3
            let tl = Timeline { prev: s0, cur: s1b };
            let t = tube(&tl, 0.1, 0.9, 0.05, &g);
            let c = Vec3::from(t.bound.center);
            // True trajectory: flight from s0 up to 0.3, then flight from s1b.
            for i in 0..=400 {
                let tau = 0.1 + 0.8 * i as f64 / 400.0;
                let x = if tau <= 0.3 {
                    s0.flown_position(tau, &g)
                } else {
                    s1b.flown_position(tau - 0.3, &g)
                };
                assert!(
                    (x - c).norm() + 0.05 <= t.bound.radius + 1e-12,
                    "case {k}: τ = {tau}: {} > {}",
                    (x - c).norm() + 0.05,
                    t.bound.radius
                );
            }
        }
    }

    #[test]
    fn hoses_detect_exactly_the_closest_approach() {
        let g = Vec3::new(0.0, 0.0, -9.81);
        // Two spheres of reach 0.1 crossing: closest centre distance 0.15 at t = 0.5.
        let a = Timeline::at_rest(snap(0.0, [-1.0, 0.0, 0.0], [2.0, 0.0, 0.0]));
        let b = Timeline::at_rest(snap(0.0, [0.0, -1.0, 0.15], [0.0, 2.0, 0.0]));
        let ta = tube(&a, 0.0, 1.0, 0.1, &g);
        let tb = tube(&b, 0.0, 1.0, 0.1, &g);
        assert!(tubes_meet(&a, &ta, &b, &tb, &g));
        let tb2 = tube(&b, 0.0, 1.0, 0.049, &g);
        assert!(!tubes_meet(&a, &ta, &b, &tb2, &g));
        // Parallel movers one behind the other never meet, though their boxes overlap.
        let c = Timeline::at_rest(snap(0.0, [-1.0, 0.0, 0.0], [2.0, 0.0, 0.0]));
        let d = Timeline::at_rest(snap(0.0, [-0.5, 0.0, 0.0], [2.0, 0.0, 0.0]));
        let (tc, td) = (tube(&c, 0.0, 1.0, 0.2, &g), tube(&d, 0.0, 1.0, 0.2, &g));
        assert!(!tubes_meet(&c, &tc, &d, &td, &g));
        // Windows that do not overlap in time never meet.
        let e = Timeline::at_rest(snap(2.0, [-1.0, 0.0, 0.0], [2.0, 0.0, 0.0]));
        let te = tube(&e, 2.0, 3.0, 0.1, &g);
        assert!(!tubes_meet(&a, &ta, &e, &te, &g));
    }
}
