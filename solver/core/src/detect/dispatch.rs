//! Contact detection dispatched by the pair of particle kinds (in the manner of parry3d's
//! query dispatcher): the generic passes of the detection layer (`detect/roots.rs`,
//! `detect/kept.rs`) call [`roots_pair`] and [`kept_pair`], which hand each candidate pair
//! to the code of its two kinds. A new particle kind adds its pair files beside
//! [`super::mesh_mesh`] and one arm per pair of kinds here; the existing pair code does
//! not change.

use super::active::CertificateSkin;
use super::broad::CandidatePair;
use super::mesh_mesh::events::MeshEvents;
use super::mesh_mesh::kept::{MeshPair, MeshScratch, TreeCache};
use super::mesh_mesh::{self, RootsScratch};
use super::report::{Detection, KeptPass};
use super::{ellipsoid_ellipsoid, ellipsoid_mesh};
use crate::contact::RawContact;
use crate::model::{Kind, Model, Other};
use crate::params::{DetectionMode, KernelChoice};
use crate::state::Body;
use msdem_tree::LevelStats;

/// The pair of kinds of a candidate pair (`a` is always a particle; `b` a particle or an
/// obstacle).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairKind {
    /// Two triangle meshes with surrogate trees (seed 000).
    MeshMesh,
    /// Two ellipsoids (seed 002).
    EllipsoidEllipsoid,
    /// An ellipsoid and a mesh (either side), through the mesh's surrogate tree.
    EllipsoidMesh,
}

/// The kinds of `pair`'s two sides; `None` for an id that does not exist.
pub fn pair_kind(model: &Model, bodies: &[Body], pair: &CandidatePair) -> Option<PairKind> {
    let shape_kind = |i: u32| {
        let b = bodies.get(i as usize)?;
        Some(model.shapes.get(b.shape as usize)?.geometry.kind())
    };
    let a = shape_kind(pair.a)?;
    let b = match pair.b {
        Other::Particle(j) => shape_kind(j)?,
        Other::Obstacle(o) => model.obstacles.get(o as usize)?.geometry.kind(),
    };
    match (a, b) {
        (Kind::Mesh, Kind::Mesh) => Some(PairKind::MeshMesh),
        (Kind::Ellipsoid, Kind::Ellipsoid) => Some(PairKind::EllipsoidEllipsoid),
        (Kind::Ellipsoid, Kind::Mesh) | (Kind::Mesh, Kind::Ellipsoid) => {
            Some(PairKind::EllipsoidMesh)
        }
    }
}

/// Per-thread buffers of every pair kind's detection from the roots.
#[derive(Debug, Default)]
pub struct RootsScratches {
    mesh: RootsScratch,
}

/// Contacts of one candidate pair by a complete search from scratch (Alg. 5 from the
/// roots, or the flat search of every real triangle pair), appended to `raw` (world
/// frame, in the pair code's deterministic order); checks added to `stats`.
#[allow(clippy::too_many_arguments)]
pub fn roots_pair(
    model: &Model,
    bodies: &[Body],
    pair: &CandidatePair,
    mode: DetectionMode,
    kernel: KernelChoice,
    ts: &mut RootsScratches,
    raw: &mut Vec<RawContact>,
    stats: &mut LevelStats,
) {
    match pair_kind(model, bodies, pair) {
        Some(PairKind::MeshMesh) => {
            mesh_mesh::roots_pair(model, bodies, pair, mode, kernel, &mut ts.mesh, raw, stats)
        }
        Some(PairKind::EllipsoidEllipsoid) => {
            ellipsoid_ellipsoid::pair(model, bodies, pair, raw, stats)
        }
        Some(PairKind::EllipsoidMesh) => ellipsoid_mesh::pair(model, bodies, pair, raw, stats),
        None => {}
    }
}

/// What a pair keeps between detections, by pair kind. (`Empty` is only the state before a
/// pair's first detection, so the size difference to the mesh variant costs nothing: a
/// box would add an allocation and an indirection per pair.)
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
#[allow(clippy::large_enum_variant)]
pub enum KeptPair {
    /// Nothing kept yet.
    #[default]
    Empty,
    /// A mesh–mesh pair's active set with certificates.
    MeshMesh(MeshPair),
}

impl KeptPair {
    /// The mesh–mesh set, a new empty one in place of anything else (always `Some`).
    fn mesh_mesh(&mut self) -> Option<&mut MeshPair> {
        if !matches!(self, KeptPair::MeshMesh(_)) {
            *self = KeptPair::MeshMesh(MeshPair::default());
        }
        match self {
            KeptPair::MeshMesh(m) => Some(m),
            KeptPair::Empty => None,
        }
    }

    /// Forgets per-step memory (memory sets and vetoes of Alg. 6) but keeps the sets.
    pub fn forget(&mut self) {
        match self {
            KeptPair::Empty => {}
            KeptPair::MeshMesh(m) => m.forget(),
        }
    }

    /// Number of active element pairs.
    pub fn active_len(&self) -> usize {
        match self {
            KeptPair::Empty => 0,
            KeptPair::MeshMesh(m) => m.active_len(),
        }
    }

    /// Heap bytes held beyond the enum itself.
    pub fn extra_bytes(&self) -> usize {
        match self {
            KeptPair::Empty => 0,
            KeptPair::MeshMesh(m) => m.extra_bytes(),
        }
    }
}

/// Per-model data of every pair kind's kept detection (e.g. per-tree bounding spheres).
#[derive(Debug, Default)]
pub struct KeptCaches {
    mesh: TreeCache,
}

impl KeptCaches {
    /// Brings the caches in line with `model`.
    pub fn update(&mut self, model: &Model) {
        self.mesh.update(model);
    }

    /// Sets the certificate skin (base skin and refresh period) of the sets processed with
    /// these caches (the setting of the sets' user; [`CertificateSkin::DEFAULT`] until set).
    pub fn set_skin(&mut self, skin: CertificateSkin) {
        self.mesh.skin = skin;
    }

    /// The certificate skin of the sets.
    pub fn skin(&self) -> CertificateSkin {
        self.mesh.skin
    }
}

/// Per-thread buffers of every pair kind's kept detection.
#[derive(Debug, Default)]
pub struct KeptScratches {
    mesh: MeshScratch,
}

/// One kept-set detection of `pair` at the poses of `bodies`: fine contacts to `raw`,
/// coarse force estimates to `coarse_raw`.
#[allow(clippy::too_many_arguments)]
pub fn kept_pair(
    model: &Model,
    bodies: &[Body],
    kernel: KernelChoice,
    caches: &KeptCaches,
    pair: &CandidatePair,
    kept: &mut KeptPair,
    ts: &mut KeptScratches,
    pass: KeptPass,
    raw: &mut Vec<RawContact>,
    coarse_raw: &mut Vec<RawContact>,
) -> Detection {
    match pair_kind(model, bodies, pair) {
        Some(PairKind::MeshMesh) => {
            let Some(m) = kept.mesh_mesh() else {
                return Detection::default();
            };
            mesh_mesh::kept::process(
                model,
                bodies,
                kernel,
                &caches.mesh,
                pair,
                m,
                &mut ts.mesh,
                pass,
                raw,
                coarse_raw,
            )
        }
        // Analytic pairs keep nothing: every detection is complete and cheap.
        Some(PairKind::EllipsoidEllipsoid) => {
            complete(ellipsoid_ellipsoid::pair, model, bodies, pair, raw)
        }
        Some(PairKind::EllipsoidMesh) => complete(ellipsoid_mesh::pair, model, bodies, pair, raw),
        None => Detection::default(),
    }
}

/// The pair-set query of a mesh–mesh `pair` on its kept set at the poses of `bodies`:
/// every real triangle pair within the margin as soup indices `(A's, B's)` (each once) to
/// `out`, with the in-margin certificates of [`mesh_mesh::kept::pair_set`] (a query of
/// which triangles touch, not for forces). Other pair kinds have no triangle pairs:
/// `out` is left empty.
#[allow(clippy::too_many_arguments)]
pub fn kept_pair_set(
    model: &Model,
    bodies: &[Body],
    kernel: KernelChoice,
    caches: &KeptCaches,
    pair: &CandidatePair,
    kept: &mut KeptPair,
    ts: &mut KeptScratches,
    out: &mut Vec<(u32, u32)>,
) -> Detection {
    out.clear();
    if pair_kind(model, bodies, pair) != Some(PairKind::MeshMesh) {
        return Detection::default();
    }
    let Some(m) = kept.mesh_mesh() else {
        return Detection::default();
    };
    mesh_mesh::kept::pair_set(
        model,
        bodies,
        kernel,
        &caches.mesh,
        pair,
        m,
        &mut ts.mesh,
        out,
    )
}

/// What a pair keeps between event-driven pair-set queries ([`event_pair_set`]), by pair
/// kind. (`Empty` is only the state before the first query, as for [`KeptPair`].)
#[derive(Debug, Default)]
#[allow(clippy::large_enum_variant)]
pub enum EventPair {
    /// Nothing kept yet.
    #[default]
    Empty,
    /// A mesh–mesh pair's event set.
    MeshMesh(MeshEvents),
}

impl EventPair {
    /// The mesh–mesh state, a new empty one in place of anything else (always `Some`).
    fn mesh_mesh(&mut self) -> Option<&mut MeshEvents> {
        if !matches!(self, EventPair::MeshMesh(_)) {
            *self = EventPair::MeshMesh(MeshEvents::default());
        }
        match self {
            EventPair::MeshMesh(m) => Some(m),
            EventPair::Empty => None,
        }
    }

    /// Number of active element pairs.
    pub fn active_len(&self) -> usize {
        match self {
            EventPair::Empty => 0,
            EventPair::MeshMesh(m) => m.active_len(),
        }
    }
}

/// The event-driven pair-set query of a mesh–mesh `pair` at the poses of `bodies`: the
/// pairs of [`kept_pair_set`] (every real triangle pair within the margin as soup indices
/// `(A's, B's)`), sorted, to `out`, with per step work only where a certificate expired
/// (`detect/active/events.rs`). Other pair kinds have no triangle pairs: `out` is left
/// empty.
#[allow(clippy::too_many_arguments)]
pub fn event_pair_set(
    model: &Model,
    bodies: &[Body],
    kernel: KernelChoice,
    caches: &KeptCaches,
    pair: &CandidatePair,
    kept: &mut EventPair,
    ts: &mut KeptScratches,
    out: &mut Vec<(u32, u32)>,
) -> Detection {
    out.clear();
    if pair_kind(model, bodies, pair) != Some(PairKind::MeshMesh) {
        return Detection::default();
    }
    let Some(m) = kept.mesh_mesh() else {
        return Detection::default();
    };
    mesh_mesh::events::pair_set(
        model,
        bodies,
        kernel,
        &caches.mesh,
        pair,
        m,
        &mut ts.mesh,
        out,
    )
}

/// Checks `pair`'s event-driven query state at the poses of its last query (structure,
/// certificates, reported set).
pub fn validate_event_pair(
    model: &Model,
    bodies: &[Body],
    kernel: KernelChoice,
    caches: &KeptCaches,
    pair: &CandidatePair,
    kept: &mut EventPair,
) -> Result<(), String> {
    match kept {
        EventPair::Empty => Err("no event state".into()),
        EventPair::MeshMesh(m) => {
            mesh_mesh::events::validate(model, bodies, kernel, &caches.mesh, pair, m)
        }
    }
}

/// The report of a pair code that searches completely every time (`search` fills the raw
/// contacts and counts its checks).
fn complete(
    search: fn(&Model, &[Body], &CandidatePair, &mut Vec<RawContact>, &mut LevelStats),
    model: &Model,
    bodies: &[Body],
    pair: &CandidatePair,
    raw: &mut Vec<RawContact>,
) -> Detection {
    let mut stats = LevelStats::default();
    search(model, bodies, pair, raw, &mut stats);
    Detection {
        stats,
        ..Detection::default()
    }
}

/// Checks the structural invariants of `pair`'s kept state.
pub fn validate_pair(
    model: &Model,
    bodies: &[Body],
    kernel: KernelChoice,
    caches: &KeptCaches,
    pair: &CandidatePair,
    kept: &mut KeptPair,
) -> Result<(), String> {
    match kept {
        KeptPair::Empty if pair_kind(model, bodies, pair) != Some(PairKind::MeshMesh) => Ok(()),
        KeptPair::Empty => Err("no kept state".into()),
        KeptPair::MeshMesh(m) => {
            mesh_mesh::kept::validate(model, bodies, kernel, &caches.mesh, pair, m)
        }
    }
}
