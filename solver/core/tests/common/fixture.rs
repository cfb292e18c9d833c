//! Test fixtures shared by the scenario, run and CLI tests: a folder with particle and
//! obstacle meshes made by `msdem_mesh::generate` and their trees built by `msdem_tree`,
//! plus a helper that writes a scenario next to them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use msdem_mesh::generate;
use msdem_tree::BuildParams;

/// Radius of `meshes/grain.ply` [m].
pub const GRAIN_RADIUS: f64 = 0.05;
/// Edge length of `meshes/cube.ply` [m].
pub const CUBE_SIZE: f64 = 0.1;

/// A fixture folder:
/// * `meshes/grain.ply` (icosphere r = 0.05 m, 80 triangles) + `trees/grain.tree`;
/// * `meshes/pebble.ply` (icosphere r = 0.03 m) + `trees/pebble.tree`;
/// * `meshes/cube.ply` (0.1 m box) + `trees/cube.tree`;
/// * `meshes/floor.ply` (2 m × 2 m plane at z = 0) + `trees/floor.tree`.
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

fn write_with_tree(dir: &Path, name: &str, mesh: &msdem_mesh::TriMesh) {
    let mesh_path = dir.join("meshes").join(format!("{name}.ply"));
    msdem_mesh::write_mesh(&mesh_path, mesh).unwrap();
    let (read, hash) = msdem_mesh::read_mesh(&mesh_path).unwrap();
    let params = BuildParams {
        fit_iterations: 20,
        ..BuildParams::default()
    };
    let tree = msdem_tree::build_tree(&read, hash, &params).unwrap();
    let tree_path = dir.join("trees").join(format!("{name}.tree"));
    msdem_tree::write_tree(&tree_path, &tree, &params).unwrap();
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("meshes")).unwrap();
        std::fs::create_dir_all(dir.path().join("trees")).unwrap();
        write_with_tree(
            dir.path(),
            "grain",
            &generate::icosphere(GRAIN_RADIUS, 1).unwrap(),
        );
        write_with_tree(dir.path(), "pebble", &generate::icosphere(0.03, 1).unwrap());
        write_with_tree(
            dir.path(),
            "cube",
            &generate::cuboid([CUBE_SIZE; 3], 1).unwrap(),
        );
        write_with_tree(
            dir.path(),
            "floor",
            &generate::plane([2.0, 2.0], 1, [0.0, 0.0, 0.0]).unwrap(),
        );
        Fixture { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `text` as `name` in the fixture folder and returns its path.
    pub fn scenario(&self, name: &str, text: &str) -> PathBuf {
        let p = self.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

/// A valid scenario header: materials `rock` and shapes `grain`, `pebble`, `cube`; `body`
/// follows (obstacles, particles, generators).
pub fn scenario_text(time: &str, body: &str) -> String {
    format!(
        "version: 1
name: test
time: {time}
materials:
  rock: {{ density: 2500.0 }}
shapes:
  grain: {{ mesh: meshes/grain.ply, tree: trees/grain.tree }}
  pebble: {{ mesh: meshes/pebble.ply, tree: trees/pebble.tree }}
  cube: {{ mesh: meshes/cube.ply, tree: trees/cube.tree }}
{body}"
    )
}
