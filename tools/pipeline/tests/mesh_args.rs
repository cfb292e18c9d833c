//! The `meshgen` command lines planned for pipeline files. Stage commands are hashed into
//! the stamps, so a change of even one byte reruns every mesh stage (and everything
//! downstream) of existing output folders. The expected strings were produced by the
//! pipeline's own argument builder before the generator parameters moved to
//! `msdem_mesh::generate` (issue 11); they pin the arguments byte for byte.

use std::path::{Path, PathBuf};

use msdem_pipeline::plan::{stages, StageKind};
use msdem_pipeline::{load_pipeline, parse_pipeline, PipelineSpec};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `NAME: ARGS` of every mesh stage, in file order.
fn mesh_args(spec: &PipelineSpec, dir: &Path) -> Vec<String> {
    stages(spec, dir)
        .into_iter()
        .filter(|s| s.kind == StageKind::Mesh)
        .map(|s| {
            assert!(s.args.iter().all(|a| !a.contains(' ') && !a.is_empty()));
            format!("{}: {}", s.name, s.args.join(" "))
        })
        .collect()
}

/// `FILE: MESH: ARGS` for every file in pipelines/ (sorted) and tests/pipelines/tiny.yaml.
const PIPELINE_FILES: &[&str] = &[
    "cube_stacks.yaml: cube: box --size 0.1 0.1 0.1 -o meshes/cube.ply",
    "cube_stacks.yaml: floor: plane --size 14 10 --center 2 0 0 -o meshes/floor.ply",
    "ellipsoid_box.yaml: walls: hopper --top-width 0.33 --outlet-width 0.32 --height 1.4 --outlet square --center 0 0 0 -o meshes/walls.ply",
    "ellipsoid_box.yaml: floor: plane --size 1 1 -o meshes/floor.ply",
    "ellipsoid_hopper.yaml: rock: sphere --radius 0.06 --subdivisions 2 --eta 1.3 --seed 31 -o meshes/rock.ply",
    "ellipsoid_hopper.yaml: hopper: hopper --top-width 1.4 --outlet-width 0.55 --height 0.7 --outlet square --center 0 0 0.4 -o meshes/hopper.ply",
    "ellipsoid_hopper.yaml: floor: plane --size 4 4 -o meshes/floor.ply",
    "grid.yaml: grain: sphere --radius 0.5 --subdivisions 3 --eta 1.1 --seed 1 -o meshes/grain.ply",
    "hopper.yaml: small: sphere --radius 0.04 --subdivisions 2 --eta 1.3 --seed 21 -o meshes/small.ply",
    "hopper.yaml: medium: sphere --radius 0.07 --subdivisions 2 --eta 1.3 --seed 22 -o meshes/medium.ply",
    "hopper.yaml: large: sphere --radius 0.1 --subdivisions 3 --eta 1.3 --seed 23 -o meshes/large.ply",
    "hopper.yaml: hopper: hopper --top-width 1.4 --outlet-width 0.55 --height 0.7 --outlet square --center 0 0 0.4 -o meshes/hopper.ply",
    "hopper.yaml: floor: plane --size 4 4 -o meshes/floor.ply",
    "hopper_lts.yaml: small: sphere --radius 0.04 --subdivisions 2 --eta 1.3 --seed 21 -o meshes/small.ply",
    "hopper_lts.yaml: medium: sphere --radius 0.07 --subdivisions 2 --eta 1.3 --seed 22 -o meshes/medium.ply",
    "hopper_lts.yaml: large: sphere --radius 0.1 --subdivisions 3 --eta 1.3 --seed 23 -o meshes/large.ply",
    "hopper_lts.yaml: hopper: hopper --top-width 1.4 --outlet-width 0.55 --height 0.7 --outlet square --center 0 0 0.4 -o meshes/hopper.ply",
    "hopper_lts.yaml: floor: plane --size 4 4 -o meshes/floor.ply",
    "particle_on_slope.yaml: sphere: sphere --radius 0.1 --subdivisions 3 --eta 1.2 --seed 7 -o meshes/sphere.ply",
    "particle_on_slope.yaml: slope: slope --size 1.5 4 --angle 20 -o meshes/slope.ply",
    "particle_on_slope_implicit.yaml: sphere: sphere --radius 0.1 --subdivisions 3 --eta 1.2 --seed 7 -o meshes/sphere.ply",
    "particle_on_slope_implicit.yaml: slope: slope --size 1.5 4 --angle 20 -o meshes/slope.ply",
    "particle_pair.yaml: sphere_a: sphere --radius 0.1 --subdivisions 3 --eta 1.1 --seed 1 -o meshes/sphere_a.ply",
    "particle_pair.yaml: sphere_b: sphere --radius 0.1 --subdivisions 3 --eta 1.1 --seed 2 -o meshes/sphere_b.ply",
    "particle_pair_implicit.yaml: sphere_a: sphere --radius 0.1 --subdivisions 3 --eta 1.1 --seed 1 -o meshes/sphere_a.ply",
    "particle_pair_implicit.yaml: sphere_b: sphere --radius 0.1 --subdivisions 3 --eta 1.1 --seed 2 -o meshes/sphere_b.ply",
    "particle_pairs_lts.yaml: ball: sphere --radius 0.05 --subdivisions 2 --eta 1 -o meshes/ball.ply",
    "scaled_pairs.yaml: unit: sphere --radius 0.5 --subdivisions 1 --eta 1 --seed 1 -o meshes/unit.ply",
    "scaled_pairs.yaml: x2: sphere --radius 1 --subdivisions 1 --eta 1 --seed 1 -o meshes/x2.ply",
    "scaled_pairs.yaml: x4: sphere --radius 2 --subdivisions 1 --eta 1 --seed 1 -o meshes/x4.ply",
    "scaled_pairs.yaml: x8: sphere --radius 4 --subdivisions 1 --eta 1 --seed 1 -o meshes/x8.ply",
    "scaled_pairs_fine.yaml: unit: sphere --radius 0.5 --subdivisions 1 --eta 1 --seed 1 -o meshes/unit.ply",
    "scaled_pairs_fine.yaml: x2: sphere --radius 1 --subdivisions 2 --eta 1 --seed 1 -o meshes/x2.ply",
    "scaled_pairs_fine.yaml: x4: sphere --radius 2 --subdivisions 3 --eta 1 --seed 1 -o meshes/x4.ply",
    "scaled_pairs_fine.yaml: x8: sphere --radius 4 --subdivisions 4 --eta 1 --seed 1 -o meshes/x8.ply",
    "staircase.yaml: grain: sphere --radius 0.025 --subdivisions 1 --eta 1.3 --seed 11 -o meshes/grain.ply",
    "staircase.yaml: pebble: sphere --radius 0.05 --subdivisions 2 --eta 1.3 --seed 12 -o meshes/pebble.ply",
    "staircase.yaml: rock: sphere --radius 0.1 --subdivisions 3 --eta 1.3 --seed 13 -o meshes/rock.ply",
    "staircase.yaml: stairs: staircase --steps 20 --rise 0.12 --run 0.25 --width 2 -o meshes/stairs.ply",
    "staircase.yaml: ground: plane --size 14 12 --center 4 0 -2.6 -o meshes/ground.ply",
    "staircase_lts.yaml: grain: sphere --radius 0.025 --subdivisions 1 --eta 1.3 --seed 11 -o meshes/grain.ply",
    "staircase_lts.yaml: pebble: sphere --radius 0.05 --subdivisions 2 --eta 1.3 --seed 12 -o meshes/pebble.ply",
    "staircase_lts.yaml: rock: sphere --radius 0.1 --subdivisions 3 --eta 1.3 --seed 13 -o meshes/rock.ply",
    "staircase_lts.yaml: stairs: staircase --steps 20 --rise 0.12 --run 0.25 --width 2 -o meshes/stairs.ply",
    "staircase_lts.yaml: ground: plane --size 14 12 --center 4 0 -2.6 -o meshes/ground.ply",
    "tower.yaml: cube: box --size 0.1 0.1 0.1 -o meshes/cube.ply",
    "tower.yaml: ball: sphere --radius 0.06 --subdivisions 2 --eta 1 -o meshes/ball.ply",
    "tower.yaml: floor: plane --size 20 20 -o meshes/floor.ply",
    "tiny.yaml: grain: sphere --radius 0.05 --subdivisions 1 --eta 1.2 --seed 5 -o meshes/grain.ply",
    "tiny.yaml: floor: plane --size 1 1 -o meshes/floor.ply",
];

/// `MESH: ARGS` of [`every_option`].
const EVERY_OPTION: &[&str] = &[
    "grain: sphere --radius 0.05 --subdivisions 1 --eta 1.2 --seed 5 -o meshes/grain.ply",
    "floor: plane --size 1 1 -o meshes/floor.ply",
    "s_all: sphere --radius 0.001 --subdivisions 4 --eta 1 --seed 4294967295 --octaves 16 --stretch 2.5 -o meshes/s_all.ply",
    "s_min: sphere --radius 3 --subdivisions 2 -o meshes/s_min.ply",
    "s_odd: sphere --radius 0.1 --subdivisions 2 --eta 1.3 --seed 0 --octaves 1 --stretch 1000000000000000000000 -o meshes/s_odd.ply",
    "ell: ellipsoid --radii 0.1 0.0000002 3 --subdivisions 2 -o meshes/ell.ply",
    "box_min: box --size 1 2 3 -o meshes/box_min.ply",
    "box_all: box --size 0.5 0.25 -1.5 --subdivisions 7 -o meshes/box_all.ply",
    "pl_all: plane --size 14 12.5 --subdivisions 3 --center 4 -0 -2.6 -o meshes/pl_all.ply",
    "sl_min: slope --size 1.5 4 --angle 20 -o meshes/sl_min.ply",
    "sl_all: slope --size 1.5 4 --angle 33.333333333333336 --center 0.1 0.2 0.30000000000000004 -o meshes/sl_all.ply",
    "hop_min: hopper --top-width 1.4 --outlet-width 0.55 --height 0.7 -o meshes/hop_min.ply",
    "hop_sq: hopper --top-width 1.4 --outlet-width 0.55 --height 0.7 --outlet square --center 0 0 0.4 -o meshes/hop_sq.ply",
    "hop_rd: hopper --top-width 2 --outlet-width 1 --height 1 --outlet round --segments 64 --center 1 2 3 -o meshes/hop_rd.ply",
    "st_min: staircase --rise 0.12 --run 0.25 --width 2 -o meshes/st_min.ply",
    "st_all: staircase --steps 3 --rise 0.12 --run 0.25 --width 2 --origin -1 0 5 -o meshes/st_all.ply",
    "imp: convert ./../meshes/tetrahedron.obj -o meshes/imp.ply",
    "imp_mm: convert ./../meshes/tetrahedron.obj --units mm -o meshes/imp_mm.ply",
    "imp_all: convert ./../meshes/cube.stl --fill-holes --units cm --scale 2.5 --rotate-deg 0 90 -45.5 --recentre --translate 1 -0 0.001 -o meshes/imp_all.ply",
    "imp_one: convert ./../meshes/cube.stl --rotate-deg 0 0 0.0000001 -o meshes/imp_one.ply",
];

/// `meshes:` entries (in place of tiny.yaml's `floor`) and their errors. All as before the
/// move to `msdem_mesh`, except the seed, now `u32` like `meshgen`'s `--seed` (it was `u64`
/// here, so 5000000000 passed the pipeline file and failed in the `meshgen` stage).
const BAD_ENTRIES: &[(&str, &str)] = &[
    (
        "{ kind: sphere, radius: 0.05, subdivisions: 1, seed: -1 }",
        "p.yaml:10:10: meshes.floor: invalid value: integer `-1`, expected u32 (or use `import: FILE`)",
    ),
    (
        "{ kind: sphere, radius: 0.05, subdivisions: 1, seed: 5000000000 }",
        "p.yaml:10:10: meshes.floor: invalid value: integer `5000000000`, expected u32 (or use `import: FILE`)",
    ),
    (
        "{ kind: sphere, radius: 0.05, subdivisions: 1, eta: high }",
        "p.yaml:10:10: meshes.floor: invalid type: string \"high\", expected f64 (or use `import: FILE`)",
    ),
    (
        "{ kind: sphere, radius: 0.05 }",
        "p.yaml:10:10: meshes.floor: missing field `subdivisions` (or use `import: FILE`)",
    ),
    (
        "{ kind: ellipsoid, radii: [1, 2], subdivisions: 1 }",
        "p.yaml:10:10: meshes.floor: invalid length 2, expected an array of length 3 (or use `import: FILE`)",
    ),
    (
        "{ kind: hopper, top_width: 1.4, outlet_width: 0.55, height: 0.7, outlet: oval }",
        "p.yaml:10:10: meshes.floor: unknown variant `oval`, expected `square` or `round` (or use `import: FILE`)",
    ),
    (
        "{ kind: staircase, steps: -3, rise: 0.12, run: 0.25, width: 2.0 }",
        "p.yaml:10:10: meshes.floor: invalid value: integer `-3`, expected u32 (or use `import: FILE`)",
    ),
    (
        "{ kind: plane, size: [1, 1], center: [0, 0] }",
        "p.yaml:10:10: meshes.floor: invalid length 2, expected an array of length 3 (or use `import: FILE`)",
    ),
    (
        "{ radius: 1 }",
        "p.yaml:10:10: meshes.floor: missing field `kind` (or use `import: FILE`)",
    ),
    (
        "{ kind: sphere, radius: 0.05, subdivisions: 1, import: a.obj }",
        "p.yaml:10:10: meshes.floor: unknown field `kind`, expected one of `import`, `units`, `scale`, `rotate_deg`, `recentre`, `translate`, `fill_holes`",
    ),
];

fn pipeline_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("pipelines"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files.push(repo().join("tests/pipelines/tiny.yaml"));
    files
}

#[test]
fn every_pipeline_file_plans_the_same_meshgen_arguments() {
    let mut planned = Vec::new();
    for file in pipeline_files() {
        let spec = load_pipeline(&file).unwrap();
        let file = file.file_name().unwrap().to_string_lossy().into_owned();
        planned.extend(
            mesh_args(&spec, Path::new("."))
                .into_iter()
                .map(|line| format!("{file}: {line}")),
        );
    }
    // A new pipeline file needs its lines here: take them from the failure message.
    assert_eq!(planned, PIPELINE_FILES);
}

#[test]
fn every_generator_option_plans_the_same_meshgen_arguments() {
    // Imports are resolved against the pipeline file's folder and must exist there.
    let path = repo().join("pipelines/every_option.yaml");
    let spec = parse_pipeline(&every_option(), &path).unwrap();
    assert_eq!(mesh_args(&spec, Path::new(".")), EVERY_OPTION);
}

#[test]
fn bad_mesh_entries_are_reported_at_the_entry() {
    let tiny = std::fs::read_to_string(repo().join("tests/pipelines/tiny.yaml")).unwrap();
    for (entry, expected) in BAD_ENTRIES {
        let text = tiny.replace("{ kind: plane, size: [1, 1] }", entry);
        let error = parse_pipeline(&text, Path::new("p.yaml")).unwrap_err();
        assert_eq!(error.to_string(), *expected, "{entry}");
    }
}

/// tests/pipelines/tiny.yaml with every generator and option in its `meshes:` section.
fn every_option() -> String {
    let tiny = std::fs::read_to_string(repo().join("tests/pipelines/tiny.yaml")).unwrap();
    let meshes = "meshes:
  grain: { kind: sphere, radius: 0.05, subdivisions: 1, eta: 1.2, seed: 5 }
  floor: { kind: plane, size: [1, 1] }
  s_all: { kind: sphere, radius: 1.0e-3, subdivisions: 4, eta: 1.0, seed: 4294967295, octaves: 16, stretch: 2.5 }
  s_min: { kind: sphere, radius: 3, subdivisions: 2 }
  s_odd: { kind: sphere, radius: 0.1, subdivisions: 2, eta: 1.30000000000000004, seed: 0, octaves: 1, stretch: 1e21 }
  ell: { kind: ellipsoid, radii: [0.1, 2e-7, 3], subdivisions: 2 }
  box_min: { kind: box, size: [1, 2, 3] }
  box_all: { kind: box, size: [0.5, 0.25, -1.5], subdivisions: 7 }
  pl_all: { kind: plane, size: [14, 12.5], subdivisions: 3, center: [4, -0.0, -2.6] }
  sl_min: { kind: slope, size: [1.5, 4.0], angle: 20 }
  sl_all: { kind: slope, size: [1.5, 4.0], angle: 33.333333333333336, center: [0.1, 0.2, 0.30000000000000004] }
  hop_min: { kind: hopper, top_width: 1.4, outlet_width: 0.55, height: 0.7 }
  hop_sq: { kind: hopper, top_width: 1.4, outlet_width: 0.55, height: 0.7, outlet: square, center: [0, 0, 0.4] }
  hop_rd: { kind: hopper, top_width: 2, outlet_width: 1, height: 1, outlet: round, segments: 64, center: [1, 2, 3] }
  st_min: { kind: staircase, rise: 0.12, run: 0.25, width: 2.0 }
  st_all: { kind: staircase, steps: 3, rise: 0.12, run: 0.25, width: 2.0, origin: [-1, 0, 5] }
  imp: { import: ../meshes/tetrahedron.obj }
  imp_mm: { import: ../meshes/tetrahedron.obj, units: mm }
  imp_all: { translate: [1, -0.0, 1.0e-3], import: ../meshes/cube.stl, fill_holes: true, recentre: true, rotate_deg: [0, 90.0, -45.5], scale: 2.5, units: cm }
  imp_one: { import: ../meshes/cube.stl, units: m, scale: 1, rotate_deg: [0, 0, 1.0e-7], recentre: false, translate: [0, 0, 0], fill_holes: false }
";
    let start = tiny.find("meshes:\n").unwrap();
    let end = tiny.find("trees:\n").unwrap();
    format!("{}{meshes}{}", &tiny[..start], &tiny[end..])
}
