//! Builder parameters (Alg. 7 and eq. (6) of seed 000), their canonical encoding and hash.

use crate::error::TreeError;
use sha2::{Digest, Sha256};

/// Version of the build algorithm; part of the parameter hash so that trees built by an
/// older builder are rebuilt rather than silently reused.
pub const BUILDER_VERSION: u32 = 4;

/// Parameters of the surrogate-tree builder. All fit weights are dimensionless: the fit
/// runs in coordinates scaled by the node's bounding radius (see `fit.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct BuildParams {
    /// Children per internal node, `N_surrogate` of seed 000 (≥ 2).
    pub branching: u32,
    /// A node with more real triangles than this is split (≥ 1).
    pub leaf_size: u32,
    /// Seed of the per-node k-means RNGs.
    pub seed: u64,
    /// Iteration budget of the eq. (6) minimiser per surrogate (≥ 1).
    pub fit_iterations: u32,
    /// `β_size` of eq. (6): power of the point–triangle distances (even, ≥ 2).
    pub beta_size: u32,
    /// `α_area` of eq. (6): weight of the inverse squared area regulariser.
    pub alpha_area: f64,
    /// `α_inside` of eq. (6): weight of the outer-normal penalty.
    pub alpha_inside: f64,
    /// `β_normal` of eq. (6): power of the outer-normal penalty (≥ 2).
    pub beta_normal: u32,
    /// Barycentric subdivisions used to sample a surrogate for the inner distance.
    pub inner_samples: u32,
    /// Iteration budget per start of the second fitting stage that minimises the halo of
    /// each surrogate directly (`refine.rs`); 0 keeps the eq. (6) fit unchanged.
    pub refine_iterations: u32,
    /// Final exponent `p` of the power mean that smooths the maximum vertex distance in
    /// the second stage (≥ 2; the stage raises it to `p` through `p/16` and `p/4`).
    pub refine_power: u32,
    /// Most real triangles (eq. (6) fit) and distinct real vertices (halo refinement) one
    /// surrogate's minimisation sees: a larger node is represented by an even stride of
    /// them (`fit.rs`, `refine.rs`); its offset and inner distance are still computed
    /// over all of them. 0 = no subsampling (builder version 3 behaviour).
    pub fit_samples: u32,
    /// Relative decrease of the objective below which an L-BFGS minimisation stops early
    /// (`lbfgs.rs`), in `[0, 1)`; `1e-15` is builder version 3's rule.
    pub fit_tolerance: f64,
}

impl Default for BuildParams {
    fn default() -> Self {
        BuildParams {
            branching: 8,
            leaf_size: 8,
            seed: 0,
            fit_iterations: 100,
            beta_size: 16,
            alpha_area: 1e-4,
            alpha_inside: 10.0,
            beta_normal: 2,
            inner_samples: 16,
            refine_iterations: 60,
            refine_power: 256,
            fit_samples: 1024,
            fit_tolerance: 3e-4,
        }
    }
}

impl BuildParams {
    /// Checks every parameter's range.
    pub fn validate(&self) -> Result<(), TreeError> {
        let bad = |name, value: String, reason| {
            Err(TreeError::Param {
                name,
                value,
                reason,
            })
        };
        if self.branching < 2 {
            return bad(
                "branching",
                self.branching.to_string(),
                "must be at least 2",
            );
        }
        if self.leaf_size < 1 {
            return bad(
                "leaf-size",
                self.leaf_size.to_string(),
                "must be at least 1",
            );
        }
        if self.fit_iterations < 1 {
            return bad(
                "fit-iterations",
                self.fit_iterations.to_string(),
                "must be at least 1",
            );
        }
        if self.beta_size < 2 || self.beta_size > 64 {
            return bad("beta-size", self.beta_size.to_string(), "must be in 2..=64");
        }
        if self.beta_normal < 2 || self.beta_normal > 64 {
            return bad(
                "beta-normal",
                self.beta_normal.to_string(),
                "must be in 2..=64",
            );
        }
        if !(self.alpha_area.is_finite() && self.alpha_area > 0.0) {
            return bad(
                "alpha-area",
                self.alpha_area.to_string(),
                "must be finite and > 0",
            );
        }
        if !(self.alpha_inside.is_finite() && self.alpha_inside >= 0.0) {
            return bad(
                "alpha-inside",
                self.alpha_inside.to_string(),
                "must be finite and ≥ 0",
            );
        }
        if self.inner_samples < 1 || self.inner_samples > 1024 {
            return bad(
                "inner-samples",
                self.inner_samples.to_string(),
                "must be in 1..=1024",
            );
        }
        if self.refine_power < 2 || self.refine_power > 4096 {
            return bad(
                "refine-power",
                self.refine_power.to_string(),
                "must be in 2..=4096",
            );
        }
        if !(self.fit_tolerance.is_finite() && (0.0..1.0).contains(&self.fit_tolerance)) {
            return bad(
                "fit-tolerance",
                self.fit_tolerance.to_string(),
                "must be in [0, 1)",
            );
        }
        Ok(())
    }

    /// Canonical little-endian encoding (also the parameter block of the tree file),
    /// starting with [`BUILDER_VERSION`].
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(ENCODED_LEN);
        b.extend_from_slice(&BUILDER_VERSION.to_le_bytes());
        b.extend_from_slice(&self.branching.to_le_bytes());
        b.extend_from_slice(&self.leaf_size.to_le_bytes());
        b.extend_from_slice(&self.seed.to_le_bytes());
        b.extend_from_slice(&self.fit_iterations.to_le_bytes());
        b.extend_from_slice(&self.beta_size.to_le_bytes());
        b.extend_from_slice(&self.alpha_area.to_le_bytes());
        b.extend_from_slice(&self.alpha_inside.to_le_bytes());
        b.extend_from_slice(&self.beta_normal.to_le_bytes());
        b.extend_from_slice(&self.inner_samples.to_le_bytes());
        b.extend_from_slice(&self.refine_iterations.to_le_bytes());
        b.extend_from_slice(&self.refine_power.to_le_bytes());
        b.extend_from_slice(&self.fit_samples.to_le_bytes());
        b.extend_from_slice(&self.fit_tolerance.to_le_bytes());
        b
    }

    /// Decodes [`BuildParams::encode`]'s output; `None` if the length or builder version
    /// does not match.
    pub fn decode(b: &[u8]) -> Option<BuildParams> {
        if b.len() != ENCODED_LEN {
            return None;
        }
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap_or([0; 4]));
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
        if u32_at(0) != BUILDER_VERSION {
            return None;
        }
        Some(BuildParams {
            branching: u32_at(4),
            leaf_size: u32_at(8),
            seed: u64_at(12),
            fit_iterations: u32_at(20),
            beta_size: u32_at(24),
            alpha_area: f64::from_bits(u64_at(28)),
            alpha_inside: f64::from_bits(u64_at(36)),
            beta_normal: u32_at(44),
            inner_samples: u32_at(48),
            refine_iterations: u32_at(52),
            refine_power: u32_at(56),
            fit_samples: u32_at(60),
            fit_tolerance: f64::from_bits(u64_at(64)),
        })
    }

    /// SHA-256 of the canonical encoding (the tree file's `params_hash`).
    pub fn hash(&self) -> [u8; 32] {
        Sha256::digest(self.encode()).into()
    }
}

/// Length of [`BuildParams::encode`]'s output \[bytes\].
pub const ENCODED_LEN: usize = 72;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_decode_round_trip_and_hash_depends_on_every_field() {
        let p = BuildParams::default();
        assert_eq!(p.encode().len(), ENCODED_LEN);
        assert_eq!(BuildParams::decode(&p.encode()), Some(p.clone()));
        let variants = [
            BuildParams {
                branching: 4,
                ..p.clone()
            },
            BuildParams {
                leaf_size: 4,
                ..p.clone()
            },
            BuildParams {
                seed: 1,
                ..p.clone()
            },
            BuildParams {
                fit_iterations: 7,
                ..p.clone()
            },
            BuildParams {
                beta_size: 8,
                ..p.clone()
            },
            BuildParams {
                alpha_area: 0.5,
                ..p.clone()
            },
            BuildParams {
                alpha_inside: 0.5,
                ..p.clone()
            },
            BuildParams {
                beta_normal: 4,
                ..p.clone()
            },
            BuildParams {
                inner_samples: 3,
                ..p.clone()
            },
            BuildParams {
                refine_iterations: 0,
                ..p.clone()
            },
            BuildParams {
                refine_power: 64,
                ..p.clone()
            },
            BuildParams {
                fit_samples: 0,
                ..p.clone()
            },
            BuildParams {
                fit_tolerance: 1e-15,
                ..p.clone()
            },
        ];
        for v in &variants {
            assert_ne!(v.hash(), p.hash(), "{v:?}");
            assert_eq!(BuildParams::decode(&v.encode()).as_ref(), Some(v));
        }
        assert_eq!(BuildParams::decode(&p.encode()[1..]), None);
    }

    #[test]
    fn out_of_range_parameters_are_refused() {
        let p = BuildParams::default();
        assert!(p.validate().is_ok());
        let e = BuildParams {
            branching: 1,
            ..p.clone()
        }
        .validate()
        .unwrap_err();
        assert!(e.to_string().contains("branching = 1"), "{e}");
        assert!(BuildParams {
            leaf_size: 0,
            ..p.clone()
        }
        .validate()
        .is_err());
        assert!(BuildParams {
            fit_iterations: 0,
            ..p.clone()
        }
        .validate()
        .is_err());
        assert!(BuildParams {
            alpha_area: f64::NAN,
            ..p.clone()
        }
        .validate()
        .is_err());
        let e = BuildParams {
            refine_power: 1,
            ..p.clone()
        }
        .validate()
        .unwrap_err();
        assert!(e.to_string().contains("refine-power = 1"), "{e}");
        let e = BuildParams {
            fit_tolerance: 1.0,
            ..p.clone()
        }
        .validate()
        .unwrap_err();
        assert!(e.to_string().contains("fit-tolerance = 1"), "{e}");
    }
}
