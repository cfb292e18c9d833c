//! Merging of redundant contact points (seed 000 §2, Implementation remark 1).
//!
//! Several fine triangle pairs report (almost) the same contact, e.g. all triangles around
//! the closest vertex. Points of one body pair closer than ε are replaced by their average.
//! The merge is greedy and deterministic: raw points are visited in the order the narrow
//! phase produced them; each joins the first cluster whose current average midpoint is
//! closer than ε, or opens a new cluster.

use super::{Contact, RawContact};
use crate::model::Other;
use msdem_geom::math::Vec3;

struct Cluster {
    first_normal: Vec3,
    sum_point: Vec3,
    sum_normal: Vec3,
    sum_dist: f64,
    min_dist: f64,
    count: u32,
}

impl Cluster {
    fn centre(&self) -> Vec3 {
        self.sum_point / f64::from(self.count)
    }
}

/// Merges the raw contacts of the body pair (`a`, `b`) whose midpoints are closer than
/// `radius` (the pair's ε, i.e. half the margin) into their averages and appends the
/// merged contacts to `out`. Averages: midpoint `(p + q)/2`, distance, and the unit normal
/// (renormalised; if the normals cancel, the cluster's first normal is kept).
pub fn merge_pair(a: u32, b: Other, raw: &[RawContact], radius: f64, out: &mut Vec<Contact>) {
    let mut clusters: Vec<Cluster> = Vec::new();
    let r2 = radius * radius;
    for rc in raw {
        let mid = 0.5 * (rc.p + rc.q);
        let n = rc.normal;
        match clusters
            .iter_mut()
            .find(|c| (c.centre() - mid).norm_squared() < r2)
        {
            Some(c) => {
                c.sum_point += mid;
                c.sum_normal += n;
                c.sum_dist += rc.dist;
                c.min_dist = c.min_dist.min(rc.dist);
                c.count += 1;
            }
            None => clusters.push(Cluster {
                first_normal: n,
                sum_point: mid,
                sum_normal: n,
                sum_dist: rc.dist,
                min_dist: rc.dist,
                count: 1,
            }),
        }
    }
    out.extend(clusters.iter().map(|c| {
        let len = c.sum_normal.norm();
        let normal = if len > 1e-6 * f64::from(c.count) {
            c.sum_normal / len
        } else {
            c.first_normal
        };
        Contact {
            a,
            b,
            point: c.centre(),
            normal,
            dist: c.sum_dist / f64::from(c.count),
            weight: 1.0,
            depth: (2.0 * radius - c.min_dist).max(0.0),
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(p: [f64; 3], q: [f64; 3]) -> RawContact {
        let p = Vec3::from(p);
        let q = Vec3::from(q);
        RawContact {
            p,
            q,
            dist: (p - q).norm(),
            normal: (p - q).normalize(),
            tri_a: 0,
            tri_b: 0,
        }
    }

    #[test]
    fn duplicates_merge_and_distant_points_stay_apart() {
        let raws = [
            raw([0.0, 0.0, 0.01], [0.0, 0.0, 0.0]),
            raw([0.001, 0.0, 0.01], [0.001, 0.0, 0.0]),
            raw([1.0, 0.0, 0.02], [1.0, 0.0, 0.0]),
            raw([0.0, 0.002, 0.01], [0.0, 0.002, 0.0]),
        ];
        let mut out = Vec::new();
        merge_pair(3, Other::Obstacle(1), &raws, 0.02, &mut out);
        assert_eq!(out.len(), 2);
        let c = out[0];
        assert_eq!((c.a, c.b), (3, Other::Obstacle(1)));
        assert!((c.point - Vec3::new(0.001 / 3.0, 0.002 / 3.0, 0.005)).norm() < 1e-12);
        assert!((c.normal - Vec3::z()).norm() < 1e-12);
        assert!((c.dist - 0.01).abs() < 1e-12);
        assert!((out[1].dist - 0.02).abs() < 1e-12);
        assert!((out[1].point - Vec3::new(1.0, 0.0, 0.01)).norm() < 1e-12);
    }

    #[test]
    fn opposite_normals_keep_the_first() {
        let mut r1 = raw([0.0, 0.0, 0.01], [0.0, 0.0, 0.0]);
        let mut r2 = r1;
        r1.normal = Vec3::x();
        r2.normal = -Vec3::x();
        let mut out = Vec::new();
        merge_pair(0, Other::Particle(1), &[r1, r2], 0.01, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].normal, Vec3::x());
    }
}
