//! Triangle meshes for the multiresolution DEM (pipeline stage 1).
//!
//! Lengths in metres, densities in kg/m³, masses in kg.
//!
//! - [`read_mesh`] / [`write_mesh`]: PLY, OBJ, STL by extension, hashed reads, atomic writes;
//! - [`check`]: topology and geometry checks per [`check::Role`];
//! - [`mass`]: volume, centre of mass, inertia (divergence theorem);
//! - [`generate`]: spheres (Perlin noise), boxes, ellipsoids, obstacles;
//! - [`hash`]: SHA-256 of file bytes;
//! - [`transform`]: unit, scale, rotation, recentring and translation of imported meshes;
//! - [`info`]: everything `meshgen info` prints about a mesh.
#![warn(missing_docs)]

pub mod check;
mod error;
mod fill;
pub mod generate;
pub mod hash;
pub mod info;
pub mod io;
pub mod mass;
pub mod transform;
mod trimesh;
mod vec3;

pub use error::MeshError;
pub use fill::{fill_holes, FillReport};
pub use hash::file_hash;
pub use io::{read_mesh, read_mesh_source, write_mesh, SourceMap};
pub use trimesh::TriMesh;

/// Checks a mesh for its role and writes it atomically (format by extension); nothing is
/// written if the check fails. Errors name `path`.
pub fn write_validated(
    path: impl AsRef<std::path::Path>,
    mesh: &TriMesh,
    role: check::Role,
) -> Result<check::MeshReport, MeshError> {
    let path = path.as_ref();
    io::Format::from_path(path)?;
    let report = check::validate_mesh(mesh, role, path)?;
    write_mesh(path, mesh)?;
    Ok(report)
}

/// Refuses an `output` that is the file `input` (compared after resolving links, `.` and
/// `..`, and on Unix by device and inode, so hard links count too). An output that does
/// not exist yet is never the input.
pub fn refuse_output_equal_to_input(
    input: impl AsRef<std::path::Path>,
    output: impl AsRef<std::path::Path>,
) -> Result<(), MeshError> {
    let (input, output) = (input.as_ref(), output.as_ref());
    let same = match (input.canonicalize(), output.canonicalize()) {
        (Ok(a), Ok(b)) => a == b || same_inode(&a, &b),
        _ => false,
    };
    if same {
        return Err(MeshError::OutputIsInput {
            output: output.to_path_buf(),
            input: input.to_path_buf(),
        });
    }
    Ok(())
}

#[cfg(unix)]
fn same_inode(a: &std::path::Path, b: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_inode(_: &std::path::Path, _: &std::path::Path) -> bool {
    false
}

/// Reads any supported mesh file and writes it in the format of `output`'s extension.
/// Refuses an output that is the input file, empty meshes and meshes with non-finite
/// coordinates; other findings are
/// returned in the report (an open or non-manifold mesh can still be converted).
pub fn convert(
    input: impl AsRef<std::path::Path>,
    output: impl AsRef<std::path::Path>,
) -> Result<check::MeshReport, MeshError> {
    convert_with(input, output, &ConvertOptions::default()).map(|r| r.input)
}

/// Options of [`convert_with`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConvertOptions {
    /// Applied to the mesh before it is written.
    pub transform: transform::ImportTransform,
    /// The role the input must be fit for ([`check::MeshReport::problems`]); `None` refuses
    /// only empty meshes and non-finite coordinates. Checked after hole filling.
    pub role: Option<check::Role>,
    /// Close the mesh's holes first ([`fill_holes`]; off by default).
    pub fill_holes: bool,
}

/// What [`convert_with`] found and did.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvertReport {
    /// Topology report of the input as read (before filling and transforming).
    pub input: check::MeshReport,
    /// The hole filling, when it was asked for.
    pub filled: Option<FillReport>,
    /// Vertices written.
    pub vertex_count: usize,
    /// Triangles written.
    pub triangle_count: usize,
}

/// [`convert`] with a transform and, optionally, the check for a role. Problems of the
/// input name the input file and its elements in the file's own numbering (OBJ faces and
/// vertices from 1 with their lines, PLY from 0, STL facets from 1); a problem that only the
/// transform creates (coordinates overflowing) is said to come after the transform.
/// `transform.recentre` needs a closed, outward mesh whatever the role. With
/// `fill_holes`, the holes are closed right after reading (so a scan can be recentred and
/// checked as a particle); a boundary that cannot be closed is refused with one line.
pub fn convert_with(
    input: impl AsRef<std::path::Path>,
    output: impl AsRef<std::path::Path>,
    options: &ConvertOptions,
) -> Result<ConvertReport, MeshError> {
    let (input, output) = (input.as_ref(), output.as_ref());
    io::Format::from_path(output)?;
    refuse_output_equal_to_input(input, output)?;
    let transform = &options.transform;
    transform.check()?;
    let (mesh, map, _) = read_mesh_source(input)?;
    let input_report = check::check_mesh(&mesh, check::Role::Obstacle);
    let invalid = |problem: String| MeshError::Invalid {
        path: input.to_path_buf(),
        problem,
    };
    let (mesh, filled) = if options.fill_holes {
        if !input_report.non_finite_vertices.is_empty() || input_report.triangle_count == 0 {
            let problem = input_report.problems_in(&map).into_iter().next();
            return Err(invalid(problem.unwrap_or_else(|| "empty mesh".into())));
        }
        let (closed, report) = fill_holes(&mesh, &map).map_err(invalid)?;
        (closed, Some(report))
    } else {
        (mesh, None)
    };
    let first = |mesh: &TriMesh, role| {
        let report = check::check_mesh(mesh, role);
        report.problems_in(&map).into_iter().next()
    };
    let fatal = |mesh: &TriMesh| -> Option<String> {
        match options.role {
            Some(role) => first(mesh, role),
            None => {
                let report = check::check_mesh(mesh, check::Role::Obstacle);
                let lenient = report.triangle_count == 0 || !report.non_finite_vertices.is_empty();
                lenient
                    .then(|| report.problems_in(&map).into_iter().next())
                    .flatten()
            }
        }
    };
    if let Some(problem) = fatal(&mesh) {
        return Err(invalid(problem));
    }
    if transform.recentre && options.role != Some(check::Role::Particle) {
        if let Some(problem) = first(&mesh, check::Role::Particle) {
            return Err(invalid(format!(
                "{problem} (--recentre needs a closed, outward mesh)"
            )));
        }
    }
    let mesh = if transform.is_identity() {
        mesh
    } else {
        let moved = transform.apply(&mesh, input, &map)?;
        if let Some(problem) = fatal(&moved) {
            return Err(invalid(format!("after the transform: {problem}")));
        }
        moved
    };
    write_mesh(output, &mesh)?;
    Ok(ConvertReport {
        input: input_report,
        filled,
        vertex_count: mesh.vertices.len(),
        triangle_count: mesh.triangles.len(),
    })
}
