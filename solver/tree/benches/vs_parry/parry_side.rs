//! parry3d 0.31 as its users would call it for two triangle meshes: `TriMesh` shapes (BVH
//! built once), `DefaultQueryDispatcher::contact_manifolds` with prediction distance = the
//! margin, and a persistent `ContactManifoldsWorkspace` and manifold vector per body pair.
//! A triangle pair counts as found when one of its manifold's points lies within the
//! margin (a persistent vector also holds manifolds of box-overlapping pairs without
//! points).

use msdem_geom::math::Iso3;
use msdem_mesh::TriMesh;
use parry3d::math::{Pose, Rot3, Vec3 as PVec3};
use parry3d::query::{
    ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher,
};

/// A parry shape of a mesh (vertices rounded to `f32`, the precision both libraries store).
pub fn shape(m: &TriMesh) -> Result<parry3d::shape::TriMesh, String> {
    let v = m
        .vertices
        .iter()
        .map(|p| PVec3::new(p[0] as f32, p[1] as f32, p[2] as f32))
        .collect();
    parry3d::shape::TriMesh::new(v, m.triangles.clone())
        .map_err(|e| format!("parry TriMesh: {e:?}"))
}

/// Our pose (B's frame → A's frame) as parry's `pos12`.
pub fn pose(iso: &Iso3) -> Pose {
    let t = iso.translation.vector;
    let q = iso.rotation.quaternion();
    Pose::from_parts(
        PVec3::new(t.x as f32, t.y as f32, t.z as f32),
        Rot3::from_xyzw(q.i as f32, q.j as f32, q.k as f32, q.w as f32).normalize(),
    )
}

/// One body pair's persistent parry state.
#[derive(Default)]
pub struct Query {
    ws: Option<ContactManifoldsWorkspace>,
    manifolds: Vec<ContactManifold<(), ()>>,
}

impl Query {
    /// `contact_manifolds` with this pair's workspace and manifolds (persistent), or with
    /// new ones (`fresh`: a first contact, allocation included).
    pub fn run(
        &mut self,
        pos12: &Pose,
        a: &parry3d::shape::TriMesh,
        b: &parry3d::shape::TriMesh,
        margin: f32,
        fresh: bool,
    ) {
        if fresh {
            self.ws = None;
            self.manifolds = Vec::new();
        }
        DefaultQueryDispatcher
            .contact_manifolds(pos12, a, b, margin, &mut self.manifolds, &mut self.ws)
            .expect("TriMesh–TriMesh is supported by the default dispatcher");
    }

    /// The triangle pairs `(A's mesh index, B's)` of the last run with a contact point
    /// within `margin`, sorted.
    pub fn pairs(&self, margin: f32) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = self
            .manifolds
            .iter()
            .filter(|m| m.points.iter().any(|p| p.dist <= margin))
            .map(|m| (m.subshape1, m.subshape2))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}
