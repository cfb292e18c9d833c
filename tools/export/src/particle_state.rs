//! The state of every particle in one frame, one row per particle: constants from the
//! manifest, kinematics and contact loads from the frame, and the kinetic energy. Written
//! as the VTK series `vtk/particles_state.pvd` (one vertex per centre of mass, for glyphs)
//! and, on request, as `csv/particles_NNNNNN.csv`.

use std::fmt::Write as _;

use msdem_frames::Frame;
use nalgebra::{Matrix3, Vector3};

use crate::run_reader::RunFolder;
use crate::scene::rotation;
use crate::vtp::{DataArray, PolyData};

/// One particle in one frame. Vectors are in the world frame.
#[derive(Clone, Debug, PartialEq)]
pub struct ParticleState {
    /// Particle id (index in the manifest).
    pub id: u32,
    /// Shape index (into the manifest's shapes).
    pub shape: u32,
    /// Material index (the scenario's materials in alphabetical order of their names).
    pub material: u32,
    /// Mass \[kg\].
    pub mass_kg: f64,
    /// Bounding radius about the centre of mass, without the halo \[m\].
    pub bounding_radius_m: f64,
    /// Centre of mass \[m\].
    pub position_m: [f64; 3],
    /// Velocity of the centre of mass \[m/s\].
    pub velocity_m_per_s: [f64; 3],
    /// Angular velocity \[rad/s\].
    pub angular_velocity_rad_per_s: [f64; 3],
    /// Orientation quaternion `[w, x, y, z]` (shape axes to world), as the solver wrote it.
    pub orientation: [f64; 4],
    /// Sum of the contact forces \[N\] (gravity excluded).
    pub force_n: [f64; 3],
    /// Sum of the contact torques about the centre of mass \[N·m\].
    pub torque_n_m: [f64; 3],
    /// Contact points involving the particle.
    pub contact_count: u32,
    /// Kinetic energy `½·m·|v|² + ½·ωᵀ·R·I·Rᵀ·ω` \[J\].
    pub kinetic_energy_j: f64,
}

/// Kinetic energy \[J\] of a rigid body: mass `m` \[kg\], inertia `inertia` about the
/// centre of mass in body axes \[kg·m²\], orientation `q = [w, x, y, z]`, velocity `v`
/// \[m/s\] and angular velocity `w` \[rad/s\] in the world frame.
pub fn kinetic_energy(
    m: f64,
    inertia: &[[f64; 3]; 3],
    q: &[f64; 4],
    v: &[f64; 3],
    w: &[f64; 3],
) -> f64 {
    let i = Matrix3::from_fn(|r, c| inertia[r][c]);
    let r = rotation(q).to_rotation_matrix();
    let w = Vector3::from(*w);
    let v = Vector3::from(*v);
    let spin = r.matrix() * (i * (r.matrix().transpose() * w));
    0.5 * m * v.dot(&v) + 0.5 * w.dot(&spin)
}

/// Every particle of `frame` (id order). The frame was checked against the manifest by
/// [`RunFolder::read_frame`] (one body and one load per particle).
pub fn particle_states(run: &RunFolder, frame: &Frame) -> Vec<ParticleState> {
    run.manifest
        .particles
        .iter()
        .zip(&frame.bodies)
        .zip(&frame.loads)
        .enumerate()
        .map(|(id, ((p, b), l))| ParticleState {
            id: id as u32,
            shape: p.shape,
            material: p.material,
            mass_kg: p.mass,
            bounding_radius_m: p.radius,
            position_m: b.position,
            velocity_m_per_s: b.velocity,
            angular_velocity_rad_per_s: b.angular_velocity,
            orientation: b.orientation,
            force_n: l.force,
            torque_n_m: l.torque,
            contact_count: l.contacts,
            kinetic_energy_j: kinetic_energy(
                p.mass,
                &p.inertia,
                &b.orientation,
                &b.velocity,
                &b.angular_velocity,
            ),
        })
        .collect()
}

/// One vertex cell per particle at its centre of mass, with the point data arrays `id`,
/// `shape`, `material`, `contact_count` (Int32), `mass` \[kg\], `bounding_radius` \[m\],
/// `kinetic_energy` \[J\] (Float64), `velocity` \[m/s\], `angular_velocity` \[rad/s\],
/// `force` \[N\], `torque` \[N·m\] (Float64, 3 components) and `orientation` (Float64, 4
/// components `w, x, y, z`). Everything is Float64: these are the values to compute with,
/// and one vertex per particle costs little.
pub fn states_polydata(s: &[ParticleState]) -> PolyData {
    let i32s = |f: fn(&ParticleState) -> u32| s.iter().map(|p| f(p) as i32).collect();
    let f64s = |f: fn(&ParticleState) -> f64| s.iter().map(f).collect();
    let vec3 = |f: fn(&ParticleState) -> [f64; 3]| s.iter().map(f).collect::<Vec<_>>();
    PolyData {
        points: vec3(|p| p.position_m),
        points_f32: false,
        verts: (0..s.len() as u32).collect(),
        polys: Vec::new(),
        point_data: vec![
            DataArray::i32("id", i32s(|p| p.id)),
            DataArray::i32("shape", i32s(|p| p.shape)),
            DataArray::i32("material", i32s(|p| p.material)),
            DataArray::f64("mass", f64s(|p| p.mass_kg)),
            DataArray::f64("bounding_radius", f64s(|p| p.bounding_radius_m)),
            DataArray::vec3("velocity", &vec3(|p| p.velocity_m_per_s)),
            DataArray::vec3("angular_velocity", &vec3(|p| p.angular_velocity_rad_per_s)),
            DataArray::vec4(
                "orientation",
                &s.iter().map(|p| p.orientation).collect::<Vec<_>>(),
            ),
            DataArray::vec3("force", &vec3(|p| p.force_n)),
            DataArray::vec3("torque", &vec3(|p| p.torque_n_m)),
            DataArray::i32("contact_count", i32s(|p| p.contact_count)),
            DataArray::f64("kinetic_energy", f64s(|p| p.kinetic_energy_j)),
        ],
        cell_data: Vec::new(),
    }
}

/// Header of `csv/particles_NNNNNN.csv`: the unit of every column is in its name.
pub const CSV_HEADER: &str = "step,time_s,id,shape,material,mass_kg,bounding_radius_m,\
x_m,y_m,z_m,vx_m_per_s,vy_m_per_s,vz_m_per_s,wx_rad_per_s,wy_rad_per_s,wz_rad_per_s,\
qw,qx,qy,qz,fx_n,fy_n,fz_n,tx_n_m,ty_n_m,tz_n_m,contact_count,kinetic_energy_j";

/// The CSV text of one frame (step `step`, time `time` \[s\]): [`CSV_HEADER`], then one
/// row per particle; floating-point values in shortest round-trip form (they read back
/// bit for bit), no quoting needed.
pub fn states_csv(step: u64, time: f64, s: &[ParticleState]) -> String {
    let mut out = String::with_capacity(64 + s.len() * 400);
    out.push_str(CSV_HEADER);
    out.push('\n');
    for p in s {
        // Writing into a String cannot fail.
        let _ = write!(
            out,
            "{step},{time:?},{},{},{},{:?},{:?}",
            p.id, p.shape, p.material, p.mass_kg, p.bounding_radius_m
        );
        let groups: [&[f64]; 6] = [
            &p.position_m,
            &p.velocity_m_per_s,
            &p.angular_velocity_rad_per_s,
            &p.orientation,
            &p.force_n,
            &p.torque_n_m,
        ];
        for v in groups.iter().flat_map(|g| g.iter()) {
            let _ = write!(out, ",{v:?}");
        }
        let _ = writeln!(out, ",{},{:?}", p.contact_count, p.kinetic_energy_j);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinetic_energy_of_a_spinning_box_uses_the_world_inertia() {
        // Box 1 × 2 × 3 m of 6 kg: I = m/12·diag(4 + 9, 1 + 9, 1 + 4).
        let m = 6.0;
        let i = [[6.5, 0.0, 0.0], [0.0, 5.0, 0.0], [0.0, 0.0, 2.5]];
        let id = [1.0, 0.0, 0.0, 0.0];
        assert_eq!(
            kinetic_energy(m, &i, &id, &[1.0, 2.0, 2.0], &[0.0; 3]),
            27.0
        );
        assert_eq!(
            kinetic_energy(m, &i, &id, &[0.0; 3], &[2.0, 0.0, 0.0]),
            13.0
        );
        // Turned 90° about z: the body's y axis points along world −x, so spinning about
        // world x is spinning about the body's y axis (I = 5).
        let h = 0.5f64.sqrt();
        let e = kinetic_energy(m, &i, &[h, 0.0, 0.0, h], &[0.0; 3], &[2.0, 0.0, 0.0]);
        assert!((e - 10.0).abs() < 1e-12, "{e}");
    }

    #[test]
    fn csv_has_one_row_per_particle_with_every_column() {
        let p = ParticleState {
            id: 3,
            shape: 1,
            material: 0,
            mass_kg: 0.5,
            bounding_radius_m: 0.1,
            position_m: [1.0, 2.0, 3.0],
            velocity_m_per_s: [0.1, 0.0, -0.2],
            angular_velocity_rad_per_s: [0.0, 1.0, 0.0],
            orientation: [1.0, 0.0, 0.0, 0.0],
            force_n: [0.0, 0.0, 4.9],
            torque_n_m: [0.0; 3],
            contact_count: 2,
            kinetic_energy_j: 0.0125,
        };
        let csv = states_csv(400, 0.02, &[p.clone(), p]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        let columns = CSV_HEADER.split(',').count();
        assert_eq!(columns, 28);
        assert!(lines.iter().all(|l| l.split(',').count() == columns));
        assert_eq!(
            lines[1],
            "400,0.02,3,1,0,0.5,0.1,1.0,2.0,3.0,0.1,0.0,-0.2,0.0,1.0,0.0,1.0,0.0,0.0,0.0,\
             0.0,0.0,4.9,0.0,0.0,0.0,2,0.0125"
        );
    }
}
