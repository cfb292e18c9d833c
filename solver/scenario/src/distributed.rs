//! `distributed:` — settings of runs over several MPI ranks (`mpirun -np N solver …`,
//! issue 18); a run on one process ignores them.
//!
//! `distributed: { rebalance_imbalance: 1.1 }`: the domains (recursive coordinate
//! bisection by particle cost) are recomputed after a step whose load imbalance — the
//! largest rank's summed particle cost over the mean — exceeds this ratio. Rebalancing
//! changes which rank computes what, never the results.

use serde::{Deserialize, Serialize};

use crate::values;

/// The default [`DistributedSpec::rebalance_imbalance`]: 10 % over the mean.
pub const DEFAULT_REBALANCE_IMBALANCE: f64 = 1.1;

/// `distributed:` section.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DistributedSpec {
    /// Imbalance `max / mean` of the ranks' loads above which the domains are recomputed
    /// [-], finite and ≥ 1.
    #[serde(
        default = "default_rebalance",
        deserialize_with = "values::at_least_one"
    )]
    pub rebalance_imbalance: f64,
}

fn default_rebalance() -> f64 {
    DEFAULT_REBALANCE_IMBALANCE
}

impl Default for DistributedSpec {
    fn default() -> Self {
        DistributedSpec {
            rebalance_imbalance: DEFAULT_REBALANCE_IMBALANCE,
        }
    }
}
