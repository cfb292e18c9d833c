//! Loading instanced geometry: a shape's or obstacle's mesh (checked for its role), its mass
//! properties (divergence theorem, docs/design.md §3) and its prebuilt surrogate tree, refused
//! when missing or built from another mesh.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use msdem_geom::math::{Iso3, Mat3, Quat, Tri, Vec3};
use msdem_mesh::check::{validate_mesh_in, Role};
use msdem_mesh::TriMesh;
use msdem_tree::SurrogateTree;

use crate::error::SolverError;
use crate::model::{Geometry, MeshGeometry, Obstacle, Shape};
use crate::scenario::{EllipsoidSpec, MeshFiles, ObstacleSpec, Scenario, ShapeSource, ShapeSpec};
use msdem_ellipsoid::Ellipsoid;

/// A loaded mesh kept for setup-time checks (placement, interpenetration).
#[derive(Clone, Debug)]
pub struct SetupMesh {
    /// Vertices in the mesh frame \[m\].
    pub vertices: Vec<[f64; 3]>,
    /// Triangles (vertex indices).
    pub triangles: Arc<Vec<[u32; 3]>>,
}

impl SetupMesh {
    fn new(mesh: TriMesh) -> Self {
        SetupMesh {
            vertices: mesh.vertices,
            triangles: Arc::new(mesh.triangles),
        }
    }

    /// World triangles (f32) under `iso`.
    pub fn world_soup(&self, iso: &Iso3) -> Vec<Tri> {
        let p = |i: u32| {
            let v = self.vertices[i as usize];
            [v[0] as f32, v[1] as f32, v[2] as f32]
        };
        self.triangles
            .iter()
            .map(|t| Tri::new(p(t[0]), p(t[1]), p(t[2])).transformed(iso))
            .collect()
    }
}

fn setup_err(scenario: &Scenario, context: &str, message: String) -> SolverError {
    SolverError::Setup {
        file: scenario.file.clone(),
        context: context.to_owned(),
        message,
    }
}

/// Absolute form of a path for the manifest (relative paths are made relative to the run
/// folder when the manifest is written).
fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Reads and checks a mesh for `role`; returns it with the SHA-256 of its bytes.
fn read_checked(
    scenario: &Scenario,
    context: &str,
    path: &Path,
    role: Role,
) -> Result<(TriMesh, [u8; 32]), SolverError> {
    if !path.is_file() {
        let problem = if path.is_dir() {
            "is a folder, not a mesh file"
        } else {
            "missing mesh; generate it with meshgen (pipeline stage 1)"
        };
        return Err(setup_err(
            scenario,
            context,
            format!("{}: {problem}", path.display()),
        ));
    }
    // The source map names faces and vertices by their line in the file.
    let (mesh, map, hash) = msdem_mesh::read_mesh_source(path)
        .map_err(|e| setup_err(scenario, context, e.to_string()))?;
    validate_mesh_in(&mesh, role, path, &map).map_err(|e| {
        let what = match role {
            Role::Particle => "particle mesh",
            Role::Obstacle => "obstacle mesh",
        };
        setup_err(scenario, context, format!("invalid {what}: {e}"))
    })?;
    Ok((mesh, hash))
}

/// Loads the tree at `tree` and checks that it was built from the mesh with `mesh_hash`.
fn load_tree_for(
    scenario: &Scenario,
    context: &str,
    tree: &Path,
    mesh: &Path,
    mesh_hash: [u8; 32],
) -> Result<Arc<SurrogateTree>, SolverError> {
    if tree.is_dir() {
        return Err(setup_err(
            scenario,
            context,
            format!(
                "{}: is a folder, not a surrogate tree file; name the .tree file built from {} \
                 by treebuild (pipeline stage 2)",
                tree.display(),
                mesh.display()
            ),
        ));
    }
    if !tree.is_file() {
        return Err(SolverError::MissingTree {
            tree: tree.to_path_buf(),
            mesh: mesh.to_path_buf(),
        });
    }
    let loaded = msdem_tree::load_tree(tree, None).map_err(|e| {
        // The tree crate's format errors may already say to rebuild the file.
        let message = e.to_string();
        let message = if message.contains("rebuild it with") {
            message
        } else {
            format!("{message}; rebuild it with treebuild (pipeline stage 2)")
        };
        setup_err(scenario, context, message)
    })?;
    if loaded.mesh_hash != mesh_hash {
        return Err(SolverError::StaleTree {
            tree: tree.to_path_buf(),
            mesh: mesh.to_path_buf(),
        });
    }
    Ok(Arc::new(loaded))
}

/// Loads shape `name`: a mesh shape ([`load_mesh_shape`]) or an ellipsoid
/// ([`ellipsoid_shape`]).
pub fn load_shape(
    scenario: &Scenario,
    name: &str,
    spec: &ShapeSpec,
) -> Result<(Shape, SetupMesh), SolverError> {
    match spec {
        ShapeSource::Mesh(files) => load_mesh_shape(scenario, name, files),
        ShapeSource::Ellipsoid { ellipsoid } => ellipsoid_shape(scenario, name, ellipsoid),
    }
}

/// Subdivisions of the icosphere that stands for an ellipsoid in the initial overlap check
/// (1,280 triangles; its vertices lie on the surface, so overlaps shallower than the
/// chord height, ≈ 0.2 % of the largest semi-axis, can go unseen there).
const ELLIPSOID_CHECK_SUBDIVISIONS: u32 = 3;

/// The analytic ellipsoid shape `name` (seed 002): exact mass properties per unit
/// density, bounding radius = largest semi-axis, and a tessellation for the initial
/// overlap check.
fn ellipsoid_shape(
    scenario: &Scenario,
    name: &str,
    spec: &EllipsoidSpec,
) -> Result<(Shape, SetupMesh), SolverError> {
    let context = format!("shapes.{name}.ellipsoid");
    let e = Ellipsoid::new(spec.radii).map_err(|e| setup_err(scenario, &context, e.to_string()))?;
    let props = e
        .mass_properties(1.0)
        .map_err(|e| setup_err(scenario, &context, e.to_string()))?;
    let mesh = msdem_mesh::generate::ellipsoid(spec.radii, ELLIPSOID_CHECK_SUBDIVISIONS)
        .map_err(|e| setup_err(scenario, &context, e.to_string()))?;
    let shape = Shape {
        name: name.to_owned(),
        geometry: Geometry::Ellipsoid(e),
        volume: props.volume,
        com: Vec3::zeros(),
        unit_inertia: props.inertia_tensor(),
        radius: e.bounding_radius(),
    };
    Ok((shape, SetupMesh::new(mesh)))
}

/// Loads mesh shape `name`: closed outward mesh, unit-density mass properties, bounding
/// radius about the centre of mass, and its tree.
fn load_mesh_shape(
    scenario: &Scenario,
    name: &str,
    spec: &MeshFiles,
) -> Result<(Shape, SetupMesh), SolverError> {
    let context = format!("shapes.{name}");
    let mesh_path = scenario.resolve(&spec.mesh);
    let tree_path = scenario.resolve(&spec.tree);
    let (mesh, hash) = read_checked(scenario, &context, &mesh_path, Role::Particle)?;
    let props = msdem_mesh::mass::mass_properties(&mesh, 1.0)
        .map_err(|e| setup_err(scenario, &context, format!("{}: {e}", mesh_path.display())))?;
    let tree = load_tree_for(scenario, &context, &tree_path, &mesh_path, hash)?;
    let shape = Shape {
        name: name.to_owned(),
        geometry: Geometry::Mesh(MeshGeometry::new(
            tree,
            absolute(&mesh_path).to_string_lossy().into_owned(),
            hash,
            mesh.triangles.len() as u32,
        )),
        volume: props.volume,
        com: Vec3::from(props.com),
        unit_inertia: Mat3::from_fn(|r, c| props.inertia[r][c]),
        radius: props.bounding_radius,
    };
    Ok((shape, SetupMesh::new(mesh)))
}

/// Loads obstacle `index`: mesh (may be open), pose, world bounds incl. halo, and its tree.
pub fn load_obstacle(
    scenario: &Scenario,
    index: usize,
    spec: &ObstacleSpec,
) -> Result<(Obstacle, SetupMesh), SolverError> {
    let context = format!("obstacles[{index}] ({})", spec.name);
    let mesh_path = scenario.resolve(&spec.geometry.mesh);
    let tree_path = scenario.resolve(&spec.geometry.tree);
    let (mesh, hash) = read_checked(scenario, &context, &mesh_path, Role::Obstacle)?;
    let tree = load_tree_for(scenario, &context, &tree_path, &mesh_path, hash)?;
    let [w, x, y, z] = spec.rotation;
    let rotation = Quat::from_quaternion(nalgebra::Quaternion::new(w, x, y, z));
    let t = spec.translation;
    let pose = Iso3::from_parts(nalgebra::Translation3::new(t[0], t[1], t[2]), rotation);
    let mut lo = Vec3::repeat(f64::INFINITY);
    let mut hi = Vec3::repeat(f64::NEG_INFINITY);
    for v in mesh.triangles.iter().flatten() {
        let p = mesh.vertices[*v as usize];
        let q = (pose * msdem_geom::math::Point3::new(p[0], p[1], p[2])).coords;
        lo = lo.inf(&q);
        hi = hi.sup(&q);
    }
    let eps = Vec3::repeat(spec.halo_m);
    let obstacle = Obstacle {
        name: spec.name.clone(),
        geometry: Geometry::Mesh(MeshGeometry::new(
            tree,
            absolute(&mesh_path).to_string_lossy().into_owned(),
            hash,
            mesh.triangles.len() as u32,
        )),
        pose,
        epsilon: spec.halo_m,
        friction: spec.friction,
        restitution: spec.restitution,
        elastic: super::contact_law::obstacle_elastic(spec),
        rolling_friction: spec.rolling_friction,
        aabb: (lo - eps, hi + eps),
    };
    Ok((obstacle, SetupMesh::new(mesh)))
}
