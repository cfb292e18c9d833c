//! Choosing a broad phase by value (for scenario files and benchmarks).

use crate::{AllPairs, Bins, BroadPhase, BroadPhaseError, HGrid, HGridConfig, LinkedCells};

/// Which broad phase to build, with its parameters.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum BroadPhaseKind {
    /// Every pair; O(N²). For tests and tiny scenes.
    AllPairs,
    /// Single-level linked cells.
    LinkedCells {
        /// Cell size \[m\]; `None` = the largest diameter (+ skin) of each query.
        cell_size: Option<f64>,
        /// Verlet skin \[m\], 0 = rebuild every query.
        skin: f64,
    },
    /// Hierarchical grid (the default for polydisperse scenes).
    HGrid(HGridConfig),
    /// Uniform bins with a radix sort of (bin, body) keys (seed 002 §4).
    Bins {
        /// Bin size \[m\]; `None` = chosen per query from the radii.
        bin_size: Option<f64>,
    },
}

impl Default for BroadPhaseKind {
    /// An HGrid with automatic levels and no skin.
    fn default() -> Self {
        BroadPhaseKind::HGrid(HGridConfig::default())
    }
}

impl BroadPhaseKind {
    /// Builds the broad phase; fails on an invalid configuration.
    pub fn build(&self) -> Result<Box<dyn BroadPhase>, BroadPhaseError> {
        Ok(match self {
            BroadPhaseKind::AllPairs => Box::new(AllPairs::new()),
            BroadPhaseKind::LinkedCells { cell_size, skin } => {
                Box::new(LinkedCells::new(*cell_size, *skin)?)
            }
            BroadPhaseKind::HGrid(config) => Box::new(HGrid::new(config.clone())?),
            BroadPhaseKind::Bins { bin_size } => Box::new(Bins::new(*bin_size)?),
        })
    }
}
