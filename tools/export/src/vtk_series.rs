//! The VTK series of a run (docs/design.md §2, stage 4): posed particles, static
//! obstacles and contact points, each frame as one [`PolyData`], and the shape meshes
//! (once) that ParaView glyphs onto the particle states
//! ([`crate::particle_state::states_polydata`]).

use msdem_frames::{Frame, Other};
use msdem_mesh::TriMesh;

use crate::scene::{PosedParticles, Soup};
use crate::vtp::{DataArray, PolyData};

/// Particles of one frame: triangles with cell data `particle_id` (Int32) and point data
/// `velocity` (the particle's velocity, of its centre of mass, at each of its vertices
/// [m/s]) and `angular_velocity` (the particle's ω [rad/s]), both 3 components.
///
/// Points, `velocity` and `angular_velocity` are Float32 (relative rounding ≤ 6e-8, e.g.
/// 0.3 µm at 5 m from the origin): these surfaces are for looking at, and they are most
/// of the export's bytes. The exact values (Float64) are in the particle states
/// (`particles_state.pvd`) and the run's frames.
pub fn particles_polydata(p: &PosedParticles) -> PolyData {
    PolyData {
        points: p.soup.points.clone(),
        points_f32: true,
        verts: Vec::new(),
        polys: p.soup.triangles.clone(),
        point_data: vec![
            DataArray::vec3_f32("velocity", &p.velocity),
            DataArray::vec3_f32("angular_velocity", &p.angular_velocity),
        ],
        cell_data: vec![DataArray::i32(
            "particle_id",
            p.soup.triangle_owner.iter().map(|&i| i as i32).collect(),
        )],
    }
}

/// Obstacles: triangles with cell data `obstacle_id` (Int32, manifest order); points
/// Float64 (written once, so precision costs nothing).
pub fn obstacles_polydata(s: &Soup) -> PolyData {
    PolyData {
        points: s.points.clone(),
        points_f32: false,
        verts: Vec::new(),
        polys: s.triangles.clone(),
        point_data: Vec::new(),
        cell_data: vec![DataArray::i32(
            "obstacle_id",
            s.triangle_owner.iter().map(|&i| i as i32).collect(),
        )],
    }
}

/// Contacts of one frame: one vertex cell per contact point with point data `normal`
/// (unit, from the other body towards `particle_a`), `force` (vector on `particle_a` \[N\]),
/// `force_magnitude` \[N\], `particle_a` (Int32), `other_id` (Int32: particle id or obstacle
/// index) and `other_is_obstacle` (Int32, 0/1).
pub fn contacts_polydata(frame: &Frame) -> PolyData {
    let c = &frame.contacts;
    let (other_id, other_is_obstacle): (Vec<i32>, Vec<i32>) = c
        .iter()
        .map(|c| match c.b {
            Other::Particle(j) => (j as i32, 0),
            Other::Obstacle(j) => (j as i32, 1),
        })
        .unzip();
    let forces: Vec<[f64; 3]> = c.iter().map(|c| c.force).collect();
    PolyData {
        points: c.iter().map(|c| c.point).collect(),
        points_f32: false,
        verts: (0..c.len() as u32).collect(),
        polys: Vec::new(),
        point_data: vec![
            DataArray::vec3("normal", &c.iter().map(|c| c.normal).collect::<Vec<_>>()),
            DataArray::vec3("force", &forces),
            DataArray::f64(
                "force_magnitude",
                forces
                    .iter()
                    .map(|f| (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]).sqrt())
                    .collect(),
            ),
            DataArray::i32("particle_a", c.iter().map(|c| c.a as i32).collect()),
            DataArray::i32("other_id", other_id),
            DataArray::i32("other_is_obstacle", other_is_obstacle),
        ],
        cell_data: Vec::new(),
    }
}

/// The mesh of one particle shape in its body frame, centred at the centre of mass
/// (vertex `x − com`, Float64), with cell data `shape` (Int32, the shape index). Placed at
/// a particle's `position` and turned by its `orientation` it is the posed particle:
/// `position + R(orientation)·(x − com)`, what ParaView's 3D Glyphs representation does
/// with `Orientation Mode = Quaternion`.
pub fn shape_polydata(index: u32, mesh: &TriMesh, com: [f64; 3]) -> PolyData {
    PolyData {
        points: mesh
            .vertices
            .iter()
            .map(|v| std::array::from_fn(|i| v[i] - com[i]))
            .collect(),
        points_f32: false,
        verts: Vec::new(),
        polys: mesh.triangles.clone(),
        point_data: Vec::new(),
        cell_data: vec![DataArray::i32(
            "shape",
            vec![index as i32; mesh.triangles.len()],
        )],
    }
}
