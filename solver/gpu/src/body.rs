//! Input bodies and output contacts of the ellipsoid detectors (GPU and CPU reference).

/// One posed ellipsoid with its contact halo.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EllipsoidBody {
    /// Centre \[m\].
    pub center_m: [f64; 3],
    /// Orientation, body → world, as a unit quaternion `(w, x, y, z)` (norm within 1e-6 of
    /// 1; it is used as given, so both paths build the same rotation matrix).
    pub orientation: [f64; 4],
    /// Semi-axes along body `x, y, z` \[m\] (seed 002 eq. ), finite and > 0.
    pub semi_axes_m: [f64; 3],
    /// Contact halo ε \[m\], finite and ≥ 0: a pair is in contact when its surfaces are
    /// within `ε_i + ε_j` (seed 000 §2's halo law, as in the solver core).
    pub halo_m: f64,
}

impl EllipsoidBody {
    /// Radius of the bounding sphere about the centre, largest semi-axis plus halo \[m\]
    /// (computed in the same order as the device does, so both paths agree bit for bit).
    pub fn bounding_radius_m(&self) -> f64 {
        let [a, b, c] = self.semi_axes_m;
        a.max(b).max(c) + self.halo_m
    }
}

/// One contact of a pair `i < j`: A = body `i`, B = body `j`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PairContact {
    /// Lower body index.
    pub i: u32,
    /// Higher body index.
    pub j: u32,
    /// Gap (> 0, at most the halo sum) or minus the penetration depth (< 0) \[m\].
    pub signed_distance_m: f64,
    /// Unit normal from B towards A.
    pub normal: [f64; 3],
    /// Witness point on A's surface \[m\].
    pub point_a_m: [f64; 3],
    /// Witness point on B's surface \[m\].
    pub point_b_m: [f64; 3],
    /// Whether OpM met its angular tolerance.
    pub converged: bool,
    /// Newton iterations, all starts together.
    pub iterations: u32,
}

/// Work counts of one detection, comparable between the GPU and the CPU path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DetectionStats {
    /// Pairs whose bounding spheres overlap (the broad phase's output).
    pub bounding_pairs: u64,
    /// Of those, pairs ChM finds touching or overlapping once A is inflated to cover the
    /// halos (the OpM work list).
    pub chm_survivors: u64,
    /// Of those, pairs OpM puts within the halo sum (the contacts).
    pub contacts: u64,
}

/// The result of one detection: contacts sorted by `(i, j)`, and the work counts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Detection {
    /// Contacts, ascending by `(i, j)`, each pair once.
    pub contacts: Vec<PairContact>,
    /// Work counts.
    pub stats: DetectionStats,
}
