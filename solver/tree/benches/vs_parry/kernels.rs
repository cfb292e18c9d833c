//! Per-pair cost of the triangle kernels on the pair stream of the traversal: at the
//! touching poses (gap ε, overlap 2ε) the real triangle pairs whose bounding spheres
//! (grown by ε each), bounding boxes and face-normal intervals do not separate them by
//! more than the margin — the culling tests our traversal runs before a real pair reaches
//! the kernel (`src/cull.rs`), re-implemented here in `f64`.
//!
//! Timed per pair: our exact kernel alone, the batched hybrid kernel alone (pre-screen
//! off), both behind the pre-screen (as the traversal runs them), and parry3d's
//! GJK distance between two `Triangle` shapes
//! (`query::details::distance_support_map_support_map`, what `query::distance` dispatches
//! to for two triangles), interleaved, thread-CPU medians.

use super::cases::{transformed, Case, EPS};
use super::oracle::T64;
use super::timing::{median, per_call_ns};
use msdem_geom::kernel::{
    triangle_triangle_exact, IterativeParams, KernelKind, PairBatch, PairOutcome,
};
use msdem_geom::math::{Iso3, Tri};

fn culled(a: &T64, b: &T64, margin: f64) -> bool {
    let c = |t: &T64| [0, 1, 2].map(|k| (t[0][k] + t[1][k] + t[2][k]) / 3.0);
    let r = |t: &T64, c: [f64; 3]| {
        t.iter()
            .map(|p| (0..3).map(|k| (p[k] - c[k]).powi(2)).sum::<f64>().sqrt())
            .fold(0.0, f64::max)
    };
    let (ca, cb) = (c(a), c(b));
    let d = (0..3).map(|k| (ca[k] - cb[k]).powi(2)).sum::<f64>().sqrt();
    if d > r(a, ca) + r(b, cb) + margin {
        return true;
    }
    for k in 0..3 {
        let lo = |t: &T64| t.iter().map(|p| p[k]).fold(f64::MAX, f64::min);
        let hi = |t: &T64| t.iter().map(|p| p[k]).fold(f64::MIN, f64::max);
        if lo(b) - hi(a) > margin || lo(a) - hi(b) > margin {
            return true;
        }
    }
    let apart = |p: &T64, q: &T64| {
        let e1 = [0, 1, 2].map(|k| p[1][k] - p[0][k]);
        let e2 = [0, 1, 2].map(|k| p[2][k] - p[0][k]);
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        if l == 0.0 {
            return false;
        }
        let pr = |v: &[f64; 3]| (v[0] * n[0] + v[1] * n[1] + v[2] * n[2]) / l;
        let (plo, phi) = (
            p.iter().map(pr).fold(f64::MAX, f64::min),
            p.iter().map(pr).fold(f64::MIN, f64::max),
        );
        let (qlo, qhi) = (
            q.iter().map(pr).fold(f64::MAX, f64::min),
            q.iter().map(pr).fold(f64::MIN, f64::max),
        );
        qlo - phi > margin || plo - qhi > margin
    };
    apart(a, b) || apart(b, a)
}

/// The stream at the given poses: `f32` triangle pairs (B's posed in `f64`, then rounded).
pub fn stream(cases: &[Case], poses: &[(usize, Iso3)]) -> Vec<(Tri, Tri)> {
    let margin = 2.0 * EPS;
    let mut v = Vec::new();
    for (ci, iso) in poses {
        let c = &cases[*ci];
        let b = transformed(&c.b.tris, iso);
        for (i, j, _) in super::oracle::near_pairs(&c.a.tris, &b, margin + 0.1) {
            let (ta, tb) = (&c.a.tris[i as usize], &b[j as usize]);
            // near_pairs is only the sweep here: the window is wide, the culling decides.
            if !culled(ta, tb, margin) {
                let f = |t: &T64| Tri {
                    v: t.map(|p| p.map(|x| x as f32)),
                };
                v.push((f(ta), f(tb)));
            }
        }
    }
    v
}

/// Median ns per pair of: exact alone, hybrid alone, exact behind the pre-screen, hybrid
/// behind the pre-screen, parry's triangle–triangle distance; and the hybrid fallback
/// count.
pub fn per_pair_ns(pairs: &[(Tri, Tri)], reps: usize) -> ([f64; 5], u64) {
    let margin = (2.0 * EPS) as f32;
    let mut batch = PairBatch::<u32>::new();
    for (i, (a, b)) in pairs.iter().enumerate() {
        batch.push(a, b, margin, i as u32, true);
    }
    let ptri = |t: &Tri| {
        let p = |k: usize| parry3d::math::Vec3::new(t.v[k][0], t.v[k][1], t.v[k][2]);
        parry3d::shape::Triangle::new(p(0), p(1), p(2))
    };
    let pp: Vec<_> = pairs.iter().map(|(a, b)| (ptri(a), ptri(b))).collect();
    let id = parry3d::math::Pose::IDENTITY;
    let mut results: Vec<PairOutcome<u32>> = Vec::new();
    let alone = IterativeParams {
        prescreen: false,
        ..Default::default()
    };
    let screened = IterativeParams::default();
    let fallbacks = batch
        .run(KernelKind::Hybrid, &alone, &mut results)
        .fallbacks;
    let mut sink = 0.0f32;
    let mut samples: [Vec<f64>; 5] = Default::default();
    let n = pairs.len().max(1) as f64;
    for rep in 0..=reps {
        for m in 0..5 {
            let m = (m + rep) % 5;
            let mut f = || match m {
                0 => pairs
                    .iter()
                    .for_each(|(a, b)| sink += triangle_triangle_exact(a, b).dist_sq),
                1 => {
                    batch.run(KernelKind::Hybrid, &alone, &mut results);
                }
                2 => {
                    batch.run(KernelKind::Exact, &screened, &mut results);
                }
                3 => {
                    batch.run(KernelKind::Hybrid, &screened, &mut results);
                }
                _ => pp.iter().for_each(|(a, b)| {
                    sink += parry3d::query::details::distance_support_map_support_map(&id, a, b)
                }),
            };
            let t = per_call_ns(1, &mut f) / n;
            if rep > 0 {
                samples[m].push(t);
            }
        }
    }
    std::hint::black_box(sink);
    (std::array::from_fn(|m| median(&samples[m])), fallbacks)
}
