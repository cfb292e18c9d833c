//! The three VTK series of a run (docs/design.md §2, stage 4): posed particles, static
//! obstacles and contact points, each frame as one [`PolyData`].

use msdem_frames::{Frame, Other};

use crate::scene::{PosedParticles, Soup};
use crate::vtp::{DataArray, PolyData};

/// Particles of one frame: triangles with cell data `particle_id` (Int32) and point data
/// `velocity` (rigid-body velocity `v + ω × r` at each vertex [m/s]) and
/// `angular_velocity` (the body's ω [rad/s]), both Float64 with 3 components.
pub fn particles_polydata(p: &PosedParticles) -> PolyData {
    PolyData {
        points: p.soup.points.clone(),
        verts: Vec::new(),
        polys: p.soup.triangles.clone(),
        point_data: vec![
            DataArray::vec3("velocity", &p.velocity),
            DataArray::vec3("angular_velocity", &p.angular_velocity),
        ],
        cell_data: vec![DataArray::i32(
            "particle_id",
            p.soup.triangle_owner.iter().map(|&i| i as i32).collect(),
        )],
    }
}

/// Obstacles: triangles with cell data `obstacle_id` (Int32, manifest order).
pub fn obstacles_polydata(s: &Soup) -> PolyData {
    PolyData {
        points: s.points.clone(),
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
