//! World-space geometry of a frame: every particle's mesh posed by its body state, and the
//! static obstacles posed by their manifest transform.
//!
//! Convention (crate `msdem-frames`, `solver/frames`): a particle's mesh vertex `x` (mesh
//! frame) is at `position + R(q)·(x − com)` with `q = [w, x, y, z]`; an obstacle's vertex
//! at `translation + R(rotation)·x`.

use msdem_frames::Frame;
use msdem_mesh::TriMesh;
use nalgebra::{Quaternion, UnitQuaternion, Vector3};

use crate::run_reader::RunFolder;

/// An indexed triangle soup in world coordinates \[m\] with the owning body of every
/// point and triangle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Soup {
    /// World positions \[m\].
    pub points: Vec<[f64; 3]>,
    /// Triangles (indices into `points`).
    pub triangles: Vec<[u32; 3]>,
    /// Owning body (particle id or obstacle index) of each point.
    pub point_owner: Vec<u32>,
    /// Owning body of each triangle.
    pub triangle_owner: Vec<u32>,
}

/// Posed particles of one frame with the owning body's kinematics at every vertex.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PosedParticles {
    /// Geometry; owners are particle ids.
    pub soup: Soup,
    /// The owning body's velocity (of its centre of mass) at each vertex [m/s]: constant
    /// over a particle, so a colour map by its magnitude shows each particle's speed (and
    /// compresses to almost nothing). The velocity of the material point at `x` is
    /// `velocity + angular_velocity × (x − position)`.
    pub velocity: Vec<[f64; 3]>,
    /// The owning body's angular velocity at each vertex, world frame [rad/s].
    pub angular_velocity: Vec<[f64; 3]>,
}

/// Unit rotation from a `[w, x, y, z]` quaternion (normalised; callers reject zero ones).
pub fn rotation(q: &[f64; 4]) -> UnitQuaternion<f64> {
    UnitQuaternion::from_quaternion(Quaternion::new(q[0], q[1], q[2], q[3]))
}

impl Soup {
    /// Appends `mesh` with every vertex mapped by `map`, owned by `owner`.
    fn append(&mut self, mesh: &TriMesh, owner: u32, map: impl Fn(Vector3<f64>) -> Vector3<f64>) {
        let base = self.points.len() as u32;
        for v in &mesh.vertices {
            let w = map(Vector3::from(*v));
            self.points.push([w.x, w.y, w.z]);
            self.point_owner.push(owner);
        }
        for t in &mesh.triangles {
            self.triangles.push([base + t[0], base + t[1], base + t[2]]);
            self.triangle_owner.push(owner);
        }
    }
}

/// Poses every particle of `frame` (particle id order).
pub fn pose_particles(run: &RunFolder, frame: &Frame) -> PosedParticles {
    let mut out = PosedParticles::default();
    for (id, (body, rec)) in frame.bodies.iter().zip(&run.manifest.particles).enumerate() {
        let shape = rec.shape as usize;
        let mesh = &run.shape_meshes[shape];
        let com = Vector3::from(run.manifest.shapes[shape].com);
        let rot = rotation(&body.orientation);
        let pos = Vector3::from(body.position);
        out.soup.append(mesh, id as u32, |x| pos + rot * (x - com));
        let n = mesh.vertices.len();
        out.velocity.extend(std::iter::repeat_n(body.velocity, n));
        out.angular_velocity
            .extend(std::iter::repeat_n(body.angular_velocity, n));
    }
    out
}

/// Poses the particles of `frame` one at a time (particle id order) into one reused
/// buffer and calls `f(id, points, triangles)` with the world positions of the particle's
/// mesh vertices and its triangles (indices into `points`): the geometry of
/// [`pose_particles`], bit for bit, without holding a whole frame's of it (a run of 24,576
/// particles of 1,280 triangles would need ≈ 1 GB).
pub fn for_each_posed_particle(
    run: &RunFolder,
    frame: &Frame,
    mut f: impl FnMut(u32, &[[f64; 3]], &[[u32; 3]]),
) {
    let mut points = Vec::new();
    for (id, (body, rec)) in frame.bodies.iter().zip(&run.manifest.particles).enumerate() {
        let shape = rec.shape as usize;
        let (Some(mesh), Some(record)) =
            (run.shape_meshes.get(shape), run.manifest.shapes.get(shape))
        else {
            continue;
        };
        let com = Vector3::from(record.com);
        let rot = rotation(&body.orientation);
        let pos = Vector3::from(body.position);
        points.clear();
        points.extend(mesh.vertices.iter().map(|x| {
            let w = pos + rot * (Vector3::from(*x) - com);
            [w.x, w.y, w.z]
        }));
        f(id as u32, &points, &mesh.triangles);
    }
}

/// Poses every static obstacle (manifest order).
pub fn pose_obstacles(run: &RunFolder) -> Soup {
    let mut soup = Soup::default();
    for (i, (rec, mesh)) in run
        .manifest
        .obstacles
        .iter()
        .zip(&run.obstacle_meshes)
        .enumerate()
    {
        let rot = rotation(&rec.rotation);
        let t = Vector3::from(rec.translation);
        soup.append(mesh, i as u32, |x| t + rot * x);
    }
    soup
}
