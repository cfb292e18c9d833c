//! Continuity of the curved gap (issue 14, `docs/design.md` §3 *Smooth surfaces*): the
//! distance between two curved facets fixed to the bodies moves by at most the motion of
//! the surfaces, so the gap that detection measures for one fine pair
//! (`contact::smooth::curved_pair`: its start search, then Newton's method) must change by
//! at most the largest displacement of any point of the moved facet. A start that finds a
//! local minimum at one pose and the global one at the next breaks that bound with a jump
//! (a force jump in any contact law).

use crate::smooth_closest::{brute, facet, Rng};
use msdem_geom::kernel::triangle_triangle_exact;
use msdem_geom::math::{Quat, Tri, Vec3};
use msdem_solver::contact::smooth::closest::PhongTri;
use msdem_solver::contact::smooth::curved_pair;
use msdem_solver::contact::RawContact;
use msdem_solver::model::smooth::Corners;
use nalgebra::Unit;

/// The fine pair of the flat facets as the narrow phase gives it (`f32` exact kernel,
/// normal from `b` towards `a`).
fn flat_pair(va: &[Vec3; 3], vb: &[Vec3; 3]) -> RawContact {
    let f = |v: &[Vec3; 3]| {
        Tri::new(
            v[0].map(|x| x as f32).into(),
            v[1].map(|x| x as f32).into(),
            v[2].map(|x| x as f32).into(),
        )
    };
    let c = triangle_triangle_exact(&f(va), &f(vb));
    let p = Vec3::new(c.p[0] as f64, c.p[1] as f64, c.p[2] as f64);
    let q = Vec3::new(c.q[0] as f64, c.q[1] as f64, c.q[2] as f64);
    let d = (p - q).norm();
    RawContact {
        p,
        q,
        dist: d,
        normal: if d > 0.0 { (p - q) / d } else { Vec3::z() },
        tri_a: 0,
        tri_b: 0,
    }
}

/// 300 seeded facing pairs (as `smooth_closest`: `b` 0.2–3 mm above `a`, shifted up to
/// 2 cm sideways, corner normals tilted up to 0.6 rad, shape factors in `[½, 1]`, `b`
/// scaled by ½–2); `b` turns about its centroid by up to 0.2 rad in 400 steps about a
/// random axis, and by 10⁻¹¹ rad from each of those poses. Between consecutive poses
/// (and across each 10⁻¹¹ rad turn) the curved gap changes by at most the largest
/// displacement of `b`'s curved surface (its farthest point from the centroid × the
/// angle) plus 10⁻¹² m; at every 20th pose it is at most the dense brute-force minimum
/// (30 steps per edge on both facets, an upper bound of the true minimum) plus 10⁻¹² m.
/// Before the second descent from the centroids (where the first ends on an edge or
/// unconverged) and the longer Newton budget (40 → 400 iterations) this failed: 36
/// jumps, 26 poses above brute force (docs/validation.md).
#[test]
fn curved_gap_moves_no_more_than_the_surfaces() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let margin = 0.01;
    let (steps, span, tiny) = (400, 0.2, 1e-11);
    let (tmax, smax, cases) = (0.6, 2.0, 300);
    let (mut worst_jump, mut worst_tiny, mut worst_excess) = (0.0_f64, 0.0_f64, f64::NEG_INFINITY);
    let (mut jumps, mut misses, mut checked) = (0, 0, 0);
    for case in 0..cases {
        let tilt_a = rng.range(0.0, tmax);
        let tilt_b = rng.range(0.0, tmax);
        let (va, na) = facet(&mut rng, Vec3::zeros(), 1.0, tilt_a);
        let shift = Vec3::new(rng.range(-0.02, 0.02), rng.range(-0.02, 0.02), 0.0);
        let gap = rng.range(2e-4, 3e-3);
        let scale = rng.range(1.0 / smax, smax);
        let (vb0, nb0) = facet(
            &mut rng,
            shift + Vec3::new(0.0, 0.0, 6e-3 + gap),
            -1.0,
            tilt_b,
        );
        let cz = (vb0[0] + vb0[1] + vb0[2]) / 3.0;
        let vb0 = vb0.map(|v| cz + scale * (v - cz));
        let mut alpha = || [0; 3].map(|_| rng.range(0.5, 1.0));
        let ca = Corners {
            normals: na,
            alpha: alpha(),
        };
        let alpha_b = alpha();
        let axis = Unit::new_normalize(Vec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        ));
        let centre = (vb0[0] + vb0[1] + vb0[2]) / 3.0;
        // Farthest point of b's curved surface from the centre: corners plus its sag bound
        // (a bound of `|p* − p|`, `model::smooth::displacement_bound`).
        let sag = msdem_solver::model::smooth::displacement_bound(
            &vb0,
            &Corners {
                normals: nb0,
                alpha: alpha_b,
            },
        );
        let reach = vb0.iter().map(|v| (v - centre).norm()).fold(0.0, f64::max) + sag;
        let mut last: Option<f64> = None;
        for k in 0..=steps {
            let angle = span * k as f64 / steps as f64;
            let q = Quat::from_axis_angle(&axis, angle);
            let vb = vb0.map(|v| centre + q * (v - centre));
            let cb = Corners {
                normals: nb0.map(|n| q * n),
                alpha: alpha_b,
            };
            let r = flat_pair(&va, &vb);
            let c = curved_pair(&va, Some(ca), &vb, Some(cb), &r, margin);
            let g = (c.p - c.q).norm();
            if let Some(prev) = last {
                let bound = reach * span / steps as f64 + 1e-12;
                let jump = (g - prev).abs();
                worst_jump = worst_jump.max(jump / bound);
                if jump > bound {
                    jumps += 1;
                    eprintln!("case {case} step {k}: gap {prev:.9e} → {g:.9e} (bound {bound:.3e})");
                }
            }
            last = Some(g);
            // A turn of 10⁻¹¹ rad from here.
            let q2 = Quat::from_axis_angle(&axis, angle + tiny);
            let vb2 = vb0.map(|v| centre + q2 * (v - centre));
            let cb2 = Corners {
                normals: nb0.map(|n| q2 * n),
                alpha: alpha_b,
            };
            let c2 = curved_pair(
                &va,
                Some(ca),
                &vb2,
                Some(cb2),
                &flat_pair(&va, &vb2),
                margin,
            );
            let jump = ((c2.p - c2.q).norm() - g).abs();
            let bound = reach * tiny + 1e-12;
            worst_tiny = worst_tiny.max(jump / bound);
            if jump > bound {
                jumps += 1;
                eprintln!(
                    "case {case} step {k} + {tiny:e} rad: gap {g:.9e} → {:.9e}",
                    (c2.p - c2.q).norm()
                );
            }
            if k % 20 == 0 {
                let pa = PhongTri {
                    v: &va,
                    n: Some(&ca),
                };
                let pb = PhongTri {
                    v: &vb,
                    n: Some(&cb),
                };
                let truth = brute(&pa, &pb, 30);
                checked += 1;
                worst_excess = worst_excess.max(g - truth);
                if g > truth + 1e-12 {
                    misses += 1;
                    eprintln!("case {case} step {k}: gap {g:.9e} above brute force {truth:.9e}");
                }
            }
        }
    }
    eprintln!(
        "curved gap: {jumps} jumps, worst change / bound {worst_jump:.3} (10⁻¹¹ rad turns: {worst_tiny:.3}); {misses} of {checked} poses above brute force (worst {worst_excess:.3e} m)"
    );
    assert_eq!((jumps, misses), (0, 0));
}
