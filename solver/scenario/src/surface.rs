//! The contact surface of a material (`materials.NAME.surface`, `docs/design.md` §3,
//! *Smooth surfaces*).

use serde::{Deserialize, Serialize};

/// Which surface a material's particles meet others with (`materials.NAME.surface`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SurfaceSpec {
    /// The mesh's flat facets (seed 000 §2; default).
    #[default]
    Facets,
    /// The curved surface the mesh's vertex normals describe (Phong tessellation, creases
    /// above 30° kept sharp): contact gaps between curved surfaces where the mesh is smooth.
    Smooth,
}
