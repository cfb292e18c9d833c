//! Closest points of two curved facets (`contact/smooth/closest.rs`) against brute force:
//! the distance found is never above the minimum over dense grids of both Phong patches,
//! for seeded random facing pairs whose minimum lies inside, on an edge or at a corner.

use msdem_geom::math::Vec3;
use msdem_solver::contact::smooth::closest::{closest_points, PhongTri};
use msdem_solver::model::smooth::Corners;

/// xorshift64*: a seeded uniform in [0, 1).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
    pub(crate) fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
}

/// A facet of about 2 cm around `centre` facing `up` (±1 along z), its corner normals
/// tilted from the face normal by up to `tilt` rad outward (a convex bump) plus noise.
pub(crate) fn facet(rng: &mut Rng, centre: Vec3, up: f64, tilt: f64) -> ([Vec3; 3], [Vec3; 3]) {
    let mut v = [0, 1, 2].map(|k| {
        let a = 2.0 * std::f64::consts::PI * (k as f64 / 3.0 + rng.range(-0.08, 0.08));
        let r = rng.range(0.008, 0.012);
        centre + Vec3::new(r * a.cos(), r * a.sin(), rng.range(-5e-4, 5e-4))
    });
    if up < 0.0 {
        v.swap(1, 2);
    }
    let nf = (v[1] - v[0]).cross(&(v[2] - v[0])).normalize();
    let mid = (v[0] + v[1] + v[2]) / 3.0;
    let n = v.map(|p| {
        let out = (p - mid).normalize();
        let noise = Vec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        );
        (nf + tilt * out + 0.2 * tilt * noise).normalize()
    });
    (v, n)
}

pub(crate) fn brute(pa: &PhongTri, pb: &PhongTri, n: usize) -> f64 {
    let grid = |p: &PhongTri| {
        let mut pts = Vec::new();
        for i in 0..=n {
            for j in 0..=n - i {
                pts.push(p.eval([i as f64 / n as f64, j as f64 / n as f64]).p);
            }
        }
        pts
    };
    let (ga, gb) = (grid(pa), grid(pb));
    let mut best = f64::INFINITY;
    for x in &ga {
        for y in &gb {
            best = best.min((x - y).norm_squared());
        }
    }
    best.sqrt()
}

/// 300 seeded pairs: `b` 0.2–3 mm above `a` (its corners' height), shifted sideways by up
/// to 2 cm (minima on edges and corners), tilts up to 0.4 rad; started from each
/// facet's centroid and from a corner. The distance is at most the 60-step grids' minimum
/// (an upper bound of the true one) plus 10⁻¹² m, and the points lie in the facets.
#[test]
fn curved_closest_points_are_no_farther_than_brute_force() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut inside, mut on_edge) = (0, 0);
    for case in 0..300 {
        let tilt_a = rng.range(0.0, 0.4);
        let tilt_b = rng.range(0.0, 0.4);
        let (va, na) = facet(&mut rng, Vec3::zeros(), 1.0, tilt_a);
        let shift = Vec3::new(rng.range(-0.02, 0.02), rng.range(-0.02, 0.02), 0.0);
        let gap = rng.range(2e-4, 3e-3);
        let (vb, nb) = facet(
            &mut rng,
            shift + Vec3::new(0.0, 0.0, 6e-3 + gap),
            -1.0,
            tilt_b,
        );
        // Corner shape factors anywhere in their range [½, 1].
        let mut corners = |normals: [Vec3; 3]| Corners {
            normals,
            alpha: [0; 3].map(|_| rng.range(0.5, 1.0)),
        };
        let (ca, cb) = (corners(na), corners(nb));
        let pa = PhongTri {
            v: &va,
            n: Some(&ca),
        };
        let pb = PhongTri {
            v: &vb,
            n: Some(&cb),
        };
        let truth = brute(&pa, &pb, 60);
        for start in [[[1.0 / 3.0; 2]; 2], [[0.0, 0.0], [1.0, 0.0]]] {
            let (ua, ub) = closest_points(&pa, &pb, start);
            for u in [ua, ub] {
                assert!(
                    u[0] >= 0.0 && u[1] >= 0.0 && u[0] + u[1] <= 1.0 + 1e-15,
                    "{u:?}"
                );
            }
            let d = (pa.eval(ua).p - pb.eval(ub).p).norm();
            assert!(
                d <= truth + 1e-12,
                "case {case}: {d} > brute force {truth} (start {start:?}, {ua:?} {ub:?})"
            );
            let edge = |u: [f64; 2]| u[0] <= 0.0 || u[1] <= 0.0 || u[0] + u[1] >= 1.0 - 1e-12;
            if edge(ua) || edge(ub) {
                on_edge += 1;
            } else {
                inside += 1;
            }
        }
    }
    eprintln!("closest points: {inside} inside both facets, {on_edge} on an edge");
    assert!(inside > 50 && on_edge > 50, "{inside} {on_edge}");
}
