//! The VTK arrays the exporter writes, as data, for `docs/reference.md` (the reference test
//! of the `tests` crate checks the table against the arrays of real `.vtp` files).

/// One data array of a VTK series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayDoc {
    /// The series (`.pvd` without extension) or file whose datasets hold it.
    pub series: &'static str,
    /// The array's `Name`.
    pub name: &'static str,
    /// `point` or `cell` data (`Points` for the geometry).
    pub location: &'static str,
    /// VTK type and components, e.g. `Float64 × 3`.
    pub ty: &'static str,
    /// SI unit, `-` for none.
    pub unit: &'static str,
    /// What it holds.
    pub meaning: &'static str,
}

const fn a(
    series: &'static str,
    name: &'static str,
    location: &'static str,
    ty: &'static str,
    unit: &'static str,
    meaning: &'static str,
) -> ArrayDoc {
    ArrayDoc {
        series,
        name,
        location,
        ty,
        unit,
        meaning,
    }
}

/// Every array of every `.vtp` file the exporter writes (`Points` are the geometry).
pub const VTK_ARRAYS: &[ArrayDoc] = &[
    a(
        "particles",
        "Points",
        "geometry",
        "Float32 × 3",
        "m",
        "every particle's mesh posed in the frame",
    ),
    a(
        "particles",
        "velocity",
        "point",
        "Float32 × 3",
        "m/s",
        "the particle's velocity (of its centre of mass) at each of its vertices",
    ),
    a(
        "particles",
        "angular_velocity",
        "point",
        "Float32 × 3",
        "rad/s",
        "the particle's angular velocity at each of its vertices",
    ),
    a(
        "particles",
        "particle_id",
        "cell",
        "Int32",
        "-",
        "index of the particle of each triangle",
    ),
    a(
        "particles_state",
        "Points",
        "geometry",
        "Float64 × 3",
        "m",
        "centre of mass of each particle (one VTK_VERTEX each)",
    ),
    a(
        "particles_state",
        "id",
        "point",
        "Int32",
        "-",
        "particle index",
    ),
    a(
        "particles_state",
        "shape",
        "point",
        "Int32",
        "-",
        "index into the run's shapes (alphabetical by name)",
    ),
    a(
        "particles_state",
        "material",
        "point",
        "Int32",
        "-",
        "index into the scenario's materials (alphabetical by name)",
    ),
    a(
        "particles_state",
        "contact_count",
        "point",
        "Int32",
        "-",
        "merged contact points on the particle in the frame",
    ),
    a("particles_state", "mass", "point", "Float64", "kg", "mass"),
    a(
        "particles_state",
        "bounding_radius",
        "point",
        "Float64",
        "m",
        "bounding radius about the centre of mass, without the halo",
    ),
    a(
        "particles_state",
        "kinetic_energy",
        "point",
        "Float64",
        "J",
        "½m|v|² + ½ωᵀRIRᵀω",
    ),
    a(
        "particles_state",
        "velocity",
        "point",
        "Float64 × 3",
        "m/s",
        "velocity of the centre of mass",
    ),
    a(
        "particles_state",
        "angular_velocity",
        "point",
        "Float64 × 3",
        "rad/s",
        "angular velocity (world frame)",
    ),
    a(
        "particles_state",
        "force",
        "point",
        "Float64 × 3",
        "N",
        "sum of the contact forces on the particle (gravity not included)",
    ),
    a(
        "particles_state",
        "torque",
        "point",
        "Float64 × 3",
        "N·m",
        "sum of the contact torques about the centre of mass",
    ),
    a(
        "particles_state",
        "orientation",
        "point",
        "Float64 × 4",
        "-",
        "quaternion w, x, y, z, shape axes → world",
    ),
    a(
        "contacts",
        "Points",
        "geometry",
        "Float64 × 3",
        "m",
        "merged contact points (one VTK_VERTEX each)",
    ),
    a(
        "contacts",
        "normal",
        "point",
        "Float64 × 3",
        "-",
        "unit normal from the other body towards particle_a",
    ),
    a(
        "contacts",
        "force",
        "point",
        "Float64 × 3",
        "N",
        "contact force on particle_a",
    ),
    a(
        "contacts",
        "force_magnitude",
        "point",
        "Float64",
        "N",
        "its magnitude",
    ),
    a(
        "contacts",
        "particle_a",
        "point",
        "Int32",
        "-",
        "index of the particle",
    ),
    a(
        "contacts",
        "other_id",
        "point",
        "Int32",
        "-",
        "index of the other particle or obstacle",
    ),
    a(
        "contacts",
        "other_is_obstacle",
        "point",
        "Int32",
        "-",
        "1 when other_id is an obstacle",
    ),
    a(
        "obstacles",
        "Points",
        "geometry",
        "Float64 × 3",
        "m",
        "the obstacles' triangles, written once",
    ),
    a(
        "obstacles",
        "obstacle_id",
        "cell",
        "Int32",
        "-",
        "index of the obstacle of each triangle",
    ),
    a(
        "shape_NNN",
        "Points",
        "geometry",
        "Float64 × 3",
        "m",
        "one shape's mesh in its body frame, centred at its centre of mass, written once",
    ),
    a(
        "shape_NNN",
        "shape",
        "cell",
        "Int32",
        "-",
        "the shape index",
    ),
];

/// The VTK array table in Markdown.
pub fn vtk_table() -> String {
    let mut out = String::from("| series / file | array | data | type | unit | meaning |\n");
    out.push_str("|---|---|---|---|---|---|\n");
    for a in VTK_ARRAYS {
        out.push_str(&format!(
            "| `{}` | `{}` | {} | {} | {} | {} |\n",
            a.series, a.name, a.location, a.ty, a.unit, a.meaning
        ));
    }
    out
}
