//! Witness certificates of real pairs in contact for the event-driven pair-set query
//! (`events.rs`, issue 15): an *upper* bound of a pair's distance from two points of its
//! triangles that move rigidly with their bodies, which renews an expired in-margin slack
//! without a kernel call.
//!
//! **Bound.** Let a kernel check of the real pair (`a` of A, `b` of B) at pose `T_k` (B's
//! mesh frame → A's) return a contact with the points `p` on `a` (A's frame) and `q` on
//! `T_k b` (A's frame), and let `q_B = T_k⁻¹ q` be the second one in B's mesh frame. At
//! any later pose `T_j`, `T_j q_B` lies on `T_j b` (a rigid motion maps the triangle's
//! points to the moved triangle's), so the distance of the two triangles is at most
//! `u_j = |p − T_j q_B|` — whatever the closest points are at `T_j`. Hence while
//! `u_j + ρ < M` (`M` the check margin, ρ the rounding allowance of `certify.rs`) the
//! kernel finds the pair within its margin at `T_j`, and `σ_j = M − u_j − ρ` is an
//! in-margin slack at `T_j` in the sense of `certify.rs`: at every later pose `T_l` with
//! accumulated motion bound `m` since `T_j`, `|p − T_l q_B| ≤ u_j + |T_l q_B − T_j q_B| ≤
//! u_j + m`, so the pair stays within its margin while `m < σ_j` — which is how the query
//! stores it (an expiry `spent + σ_j`).
//!
//! The bound uses the displacement of one point of B, not the motion bound of B's whole
//! bounding sphere, and it is measured, not summed: where the relative motion of the two
//! bodies near the contact is small (a contact rolling or resting while the bodies turn
//! about their centres), `u_j` stays close to the last kernel distance however large the
//! accumulated bound `spent` has grown, and the slack renews without a kernel call. A
//! renewal that fails (`σ_j ≤ 0`: the witness points drifted apart, or the pair is
//! leaving the margin) falls back to the kernel check, which gives new witness points.
//!
//! **Rounding.** `p`, `q` are the kernel's `f32` points (within a few ulps of the `f32`
//! triangles at `T_k`, themselves within `√3·u·|x|_max` of the exact transform), `q_B`
//! and `u_j` are evaluated in `f64` (relative error ≈ 10⁻¹⁵ of the coordinates), and the
//! kernel at `T_j` sees the `f32` transform of `b` and rounds its own distance: the same
//! terms that ρ = 2⁻¹⁶·(|x|_max + M) (≈ 256 unit roundoffs of `f32`) covers for the
//! kernel's in-margin slack (`certify.rs`), each occurring once per renewal — a renewal
//! measures from the witness points afresh, nothing accumulates. The slack is rounded
//! down to `f32`.

use msdem_geom::math::{Iso3, Point3};

/// The witness points of a real pair in contact (`p` on A's triangle in A's mesh frame,
/// `q` on B's triangle in B's mesh frame \[m\]); NaN: none yet (the next expiry runs the
/// kernel).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Witness {
    p: [f64; 3],
    q: [f64; 3],
}

impl Witness {
    /// No witness points: the next expiry runs the kernel.
    pub(super) const NONE: Witness = Witness {
        p: [f64::NAN; 3],
        q: [f64::NAN; 3],
    };

    /// The witness of a kernel contact with the points `p` (A's triangle) and `q` (B's
    /// triangle, in A's frame at the pose `a_to_b⁻¹` of the check) \[m\].
    pub(super) fn of(p: [f32; 3], q: [f32; 3], a_to_b: &Iso3) -> Witness {
        let qb = a_to_b * Point3::new(f64::from(q[0]), f64::from(q[1]), f64::from(q[2]));
        Witness {
            p: p.map(f64::from),
            q: [qb.x, qb.y, qb.z],
        }
    }

    /// The upper bound `|p − T q_B|` of the pair's distance at the pose `b_to_a` (`T`)
    /// \[m\]; NaN without witness points.
    pub(super) fn distance(&self, b_to_a: &Iso3) -> f64 {
        let q = b_to_a * Point3::new(self.q[0], self.q[1], self.q[2]);
        let d = [self.p[0] - q.x, self.p[1] - q.y, self.p[2] - q.z];
        (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
    }

    /// The in-margin slack `M − u − ρ` at the pose `b_to_a` for the check margin `margin`
    /// and rounding allowance `rho` \[m\] (module docs; rounded down to `f32`): positive
    /// certifies the pair within its margin; `-inf` without witness points.
    pub(super) fn slack(&self, b_to_a: &Iso3, margin: f32, rho: f32) -> f32 {
        let u = self.distance(b_to_a);
        if u.is_nan() {
            return f32::NEG_INFINITY;
        }
        super::direction::down32(f64::from(margin) - u - f64::from(rho))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use msdem_geom::math::{Quat, Vec3};

    /// The witness distance is the distance of the two points moved rigidly with their
    /// bodies, and at the pose of the check the distance of the kernel's points.
    #[test]
    fn witness_distance_follows_the_points() {
        let t0 = Iso3::from_parts(
            Vec3::new(0.1, -0.2, 0.3).into(),
            Quat::from_scaled_axis(Vec3::new(0.3, 0.1, -0.2)),
        );
        let (p, q) = ([0.01f32, 0.02, 0.03], [0.015f32, 0.021, 0.028]);
        let w = Witness::of(p, q, &t0.inverse());
        let d0 = {
            let d = [p[0] - q[0], p[1] - q[1], p[2] - q[2]].map(f64::from);
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
        };
        assert!(
            (w.distance(&t0) - d0).abs() < 1e-9,
            "{} {d0}",
            w.distance(&t0)
        );
        let t1 = Iso3::from_parts(
            (t0.translation.vector + Vec3::new(0.0, 0.004, 0.0)).into(),
            t0.rotation,
        );
        let qb = t0.inverse() * Point3::new(f64::from(q[0]), f64::from(q[1]), f64::from(q[2]));
        let want =
            (Point3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2])) - t1 * qb).norm();
        assert!((w.distance(&t1) - want).abs() < 1e-12);
        assert_eq!(Witness::NONE.slack(&t1, 0.01, 0.0), f32::NEG_INFINITY);
    }
}
