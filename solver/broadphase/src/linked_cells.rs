//! Single-level linked cells: the HGrid with one level (seed 001 §5.1, the reference the
//! paper compares against).

use crate::{BroadPhase, BroadPhaseError, BroadPhaseStats, HGrid, HGridConfig, Sphere};

/// Uniform hashed grid whose cell is the largest sphere diameter (or a given size),
/// searched over the own cell and half of the 26 neighbours. Unbounded domain.
///
/// *Rebuild policy:* rebuilt from scratch on every query (O(N)), or reused with a Verlet
/// skin exactly as [`HGridConfig::skin`] describes.
#[derive(Clone, Debug)]
pub struct LinkedCells {
    inner: HGrid,
}

impl LinkedCells {
    /// Linked cells whose cell size \[m\] is `cell_size`, or the largest diameter (+ skin)
    /// of each query when `None`. With a given size, a larger sphere is an error.
    pub fn new(cell_size: Option<f64>, skin: f64) -> Result<Self, BroadPhaseError> {
        let config = HGridConfig {
            levels: Some(1),
            cell_sizes: cell_size.map(|s| vec![s]),
            skin,
        };
        Ok(LinkedCells {
            inner: HGrid::new(config)?,
        })
    }

    /// The cell size \[m\] of the last rebuild.
    pub fn cell_size(&self) -> Option<f64> {
        self.inner.cell_sizes().first().copied()
    }
}

impl BroadPhase for LinkedCells {
    fn find_pairs(
        &mut self,
        spheres: &[Sphere],
        out: &mut Vec<(u32, u32)>,
    ) -> Result<(), BroadPhaseError> {
        self.inner.find_pairs(spheres, out)
    }

    fn stats(&self) -> BroadPhaseStats {
        self.inner.stats()
    }
}
