//! Runner logic against fake stage binaries (small shell scripts that write predictable
//! files), so that skipping, invalidation and failure handling are tested independently of
//! the real meshgen / treebuild / solver / export.
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use msdem_pipeline::{run_pipeline, PipelineError, RunOptions, RunReport};

/// meshgen: writes its command line into the `-o` file (the last argument).
const MESHGEN: &str = r#"#!/bin/sh
echo "meshgen $*" >> calls.log
for last; do :; done
case "$*" in *--radius\ 666*) echo "error: radius 666 is cursed" >&2; exit 3;; esac
echo "$*" > "$last"
"#;

/// treebuild MESH -o OUT: copies the mesh and its options into OUT.
const TREEBUILD: &str = r#"#!/bin/sh
echo "treebuild $*" >> calls.log
mesh="$1"; out="$3"
{ cat "$mesh"; echo "$*"; } > "$out"
"#;

/// solver SCENARIO -o DIR: a manifest, stats and two frames.
const SOLVER: &str = r#"#!/bin/sh
echo "solver $*" >> calls.log
echo "warning: scenario.yaml: time step dt = 1 s exceeds the stable estimate" >&2
dir="$3"
mkdir -p "$dir/frames"
cat "$1" > "$dir/run.msdem"
echo stats > "$dir/stats.msdem"
echo f0 > "$dir/frames/frame_000000.msdem"
echo f1 > "$dir/frames/frame_000001.msdem"
"#;

/// export RUNDIR [flags]: the folders the real exporter writes.
const EXPORT: &str = r#"#!/bin/sh
echo "export $*" >> calls.log
mkdir -p "$1/vtk" "$1/ply" "$1/plots"
echo pvd > "$1/vtk/particles.pvd"
echo pvd > "$1/vtk/particles_state.pvd"
echo ply > "$1/ply/frame_000000.ply"
echo png > "$1/plots/energy.png"
echo apng > "$1/preview_animation.png"
case "$*" in *--particle-csv*) mkdir -p "$1/csv"; echo csv > "$1/csv/particles_000000.csv";; esac
"#;

const PIPELINE: &str = r#"version: 1
name: fake
meshes:
  grain: { kind: sphere, radius: 0.05, subdivisions: 1, eta: 1.2, seed: 3 }
  rock: { kind: sphere, radius: 0.2, subdivisions: 2 }
  floor: { kind: plane, size: [2, 2], center: [0, 0, -0.5] }
trees:
  grain: { mesh: grain }
  rock: { mesh: rock, leaf_size: 4 }
  floor: { mesh: floor, obstacle: true }
scenario:
  time: { dt: 1.0e-4, end: 0.01, output_every: 10 }
  gravity: [0, 0, -9.81]
  materials:
    stone: { density: 2500, friction: 0.5 }
  shapes:
    grain: { tree: grain }
    rock: { tree: rock }
  obstacles:
    - { name: floor, tree: floor, halo: { absolute_m: 0.002 } }
  particles:
    - { shape: rock, material: stone, position: [0, 0, 0.5] }
  generators:
    - drop: { shape: grain, material: stone, count: 3, min: [-1, -1, 1], max: [1, 1, 2], velocity: [0, 0, -1] }
"#;

struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        fs::create_dir(&bin).unwrap();
        for (name, text) in [
            ("meshgen", MESHGEN),
            ("treebuild", TREEBUILD),
            ("solver", SOLVER),
            ("export", EXPORT),
        ] {
            write_script(&bin.join(name), text);
        }
        fs::write(dir.path().join("fake.yaml"), PIPELINE).unwrap();
        Self { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn out(&self) -> PathBuf {
        self.path("out")
    }

    fn options(&self) -> RunOptions {
        RunOptions {
            pipeline: self.path("fake.yaml"),
            out_dir: Some(self.out()),
            bin_dir: self.path("bin"),
            force: false,
            only: None,
            resume: false,
            command: Vec::new(),
            ranks: None,
        }
    }

    fn run_with(&self, opts: &RunOptions) -> (Result<RunReport, PipelineError>, String) {
        let _ = fs::remove_file(self.out().join("calls.log"));
        let mut log = Vec::new();
        let result = run_pipeline(opts, &mut log);
        (result, String::from_utf8(log).unwrap())
    }

    fn run(&self) -> (RunReport, String) {
        let (result, log) = self.run_with(&self.options());
        (result.unwrap(), log)
    }

    /// The binaries called in the last run, e.g. `["meshgen", "treebuild", …]`.
    fn calls(&self) -> Vec<String> {
        fs::read_to_string(self.out().join("calls.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn edit_pipeline(&self, from: &str, to: &str) {
        let path = self.path("fake.yaml");
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{from} not in pipeline");
        fs::write(&path, text.replacen(from, to, 1)).unwrap();
    }
}

fn write_script(path: &Path, text: &str) {
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

fn ran(report: &RunReport) -> Vec<&str> {
    report
        .stages
        .iter()
        .filter(|s| s.ran)
        .map(|s| s.label.as_str())
        .collect()
}

const ALL: [&str; 8] = [
    "mesh grain",
    "mesh rock",
    "mesh floor",
    "tree grain",
    "tree rock",
    "tree floor",
    "solve fake",
    "export fake",
];

#[test]
fn first_run_runs_everything_second_run_skips_everything() {
    let s = Setup::new();
    let (report, _) = s.run();
    assert_eq!(ran(&report), ALL);
    let calls = s.calls();
    assert_eq!(calls.len(), 8);
    assert!(calls[0].starts_with(
        "meshgen sphere --radius 0.05 --subdivisions 1 --eta 1.2 --seed 3 -o meshes/grain.ply"
    ));
    assert_eq!(
        calls[2],
        "meshgen plane --size 2 2 --center 0 0 -0.5 -o meshes/floor.ply"
    );
    assert_eq!(
        calls[4],
        "treebuild meshes/rock.ply -o trees/rock.tree --leaf-size 4"
    );
    assert_eq!(
        calls[5],
        "treebuild meshes/floor.ply -o trees/floor.tree --obstacle"
    );
    assert_eq!(calls[6], "solver scenario.yaml -o run.partial");
    assert_eq!(calls[7], "export run");
    for f in [
        "meshes/grain.ply",
        "trees/floor.tree",
        "run/run.msdem",
        "run/frames/frame_000001.msdem",
        "run/vtk/particles.pvd",
    ] {
        assert!(s.out().join(f).is_file(), "{f} missing");
    }
    assert!(!s.out().join("run.partial").exists());

    let (report, log) = s.run();
    assert!(ran(&report).is_empty(), "{log}");
    assert!(s.calls().is_empty());
    for label in ALL {
        assert!(
            log.contains(&format!("skip  {label} (up to date)")),
            "{log}"
        );
    }
}

#[test]
fn changing_one_mesh_rebuilds_only_it_and_downstream() {
    let s = Setup::new();
    s.run();
    s.edit_pipeline("radius: 0.2", "radius: 0.25");
    let (report, _) = s.run();
    assert_eq!(
        ran(&report),
        ["mesh rock", "tree rock", "solve fake", "export fake"]
    );
}

#[test]
fn changing_tree_options_rebuilds_only_that_tree_and_downstream() {
    let s = Setup::new();
    s.run();
    s.edit_pipeline("leaf_size: 4", "leaf_size: 6");
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["tree rock", "solve fake", "export fake"]);
}

#[test]
fn changing_the_scenario_reruns_solver_and_export_only() {
    let s = Setup::new();
    s.run();
    s.edit_pipeline("end: 0.01", "end: 0.02");
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["solve fake", "export fake"]);
    let scenario = fs::read_to_string(s.out().join("scenario.yaml")).unwrap();
    assert!(scenario.contains("end: 0.02"), "{scenario}");
}

#[test]
fn changing_export_options_reruns_export_only() {
    let s = Setup::new();
    s.run();
    s.edit_pipeline("version: 1\n", "version: 1\nexport: { plots: false }\n");
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["export fake"]);
    assert_eq!(s.calls(), ["export run --no-plots"]);
}

#[test]
fn a_new_binary_reruns_its_stages_and_unchanged_outputs_stop_the_cascade() {
    let s = Setup::new();
    s.run();
    // Same behaviour, different bytes: every mesh reruns, but writes the same files, so
    // the trees and everything after them stay up to date.
    write_script(&s.path("bin/meshgen"), &format!("{MESHGEN}# v2\n"));
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["mesh grain", "mesh rock", "mesh floor"]);
}

#[test]
fn deleted_output_is_rebuilt() {
    let s = Setup::new();
    s.run();
    fs::remove_file(s.out().join("trees/grain.tree")).unwrap();
    let (report, log) = s.run();
    assert_eq!(ran(&report), ["tree grain"]);
    assert!(
        log.contains("[4/8] stale tree grain: trees/grain.tree is missing\n"),
        "{log}"
    );
    fs::remove_dir_all(s.out().join("run/vtk")).unwrap();
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["export fake"]);
}

#[test]
fn force_reruns_everything() {
    let s = Setup::new();
    s.run();
    let opts = RunOptions {
        force: true,
        ..s.options()
    };
    let (result, _) = s.run_with(&opts);
    assert_eq!(ran(&result.unwrap()), ALL);
}

#[test]
fn only_selects_a_kind_or_one_stage() {
    let s = Setup::new();
    let only = |v: &str| RunOptions {
        only: Some(v.to_owned()),
        ..s.options()
    };
    let (result, _) = s.run_with(&only("mesh"));
    assert_eq!(
        ran(&result.unwrap()),
        ["mesh grain", "mesh rock", "mesh floor"]
    );
    let (result, _) = s.run_with(&only("tree:rock"));
    assert_eq!(ran(&result.unwrap()), ["tree rock"]);
    let (result, _) = s.run_with(&only("solve"));
    match result {
        Err(PipelineError::InputMissing { stage, path }) => {
            assert_eq!(stage, "solve fake");
            assert!(path.ends_with("trees/grain.tree"), "{}", path.display());
        }
        other => panic!("expected InputMissing, got {other:?}"),
    }
    let (result, _) = s.run_with(&only("tree:nope"));
    assert!(matches!(result, Err(PipelineError::UnknownStage { .. })));
    let (result, _) = s.run_with(&only("simulate"));
    let message = result.unwrap_err().to_string();
    assert!(
        message.starts_with("--only simulate: no such stage"),
        "{message}"
    );
}

#[test]
fn failing_stage_stops_with_its_message_and_leaves_no_stamp() {
    let s = Setup::new();
    s.run();
    s.edit_pipeline("radius: 0.2", "radius: 666");
    let (result, _) = s.run_with(&s.options());
    let err = result.unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, PipelineError::StageFailed { .. }));
    assert_eq!(
        message,
        "mesh rock failed (exit status: 3): radius 666 is cursed"
    );
    // Nothing after the failing stage ran; its stamp is gone, the others stay valid.
    assert_eq!(s.calls().len(), 1);
    assert!(!s.out().join(".stamps/mesh-rock.stamp").exists());
    assert!(s.out().join(".stamps/mesh-grain.stamp").exists());
    // Fixing the file reruns the mesh (back to the old bytes) and nothing else.
    s.edit_pipeline("radius: 666", "radius: 0.2");
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["mesh rock"]);
}

#[test]
fn failed_solver_keeps_the_previous_run() {
    let s = Setup::new();
    s.run();
    write_script(
        &s.path("bin/solver"),
        "#!/bin/sh\nmkdir -p \"$3\"\necho half > \"$3/run.msdem\"\necho 'error: scenario.yaml:3:7: dt must be > 0' >&2\nexit 1\n",
    );
    s.edit_pipeline("end: 0.01", "end: 0.03");
    let (result, _) = s.run_with(&s.options());
    assert_eq!(
        result.unwrap_err().to_string(),
        "solve fake failed (exit status: 1): scenario.yaml:3:7: dt must be > 0"
    );
    let manifest = fs::read_to_string(s.out().join("run/run.msdem")).unwrap();
    assert!(
        manifest.contains("end: 0.01"),
        "previous run replaced: {manifest}"
    );
    assert!(!s.out().join(".stamps/solve-fake.stamp").exists());
}

#[test]
fn stage_without_its_output_is_an_error() {
    let s = Setup::new();
    write_script(&s.path("bin/treebuild"), "#!/bin/sh\nexit 0\n");
    let (result, _) = s.run_with(&s.options());
    match result {
        Err(PipelineError::OutputMissing { stage, path }) => {
            assert_eq!(stage, "tree grain");
            assert_eq!(path, Path::new("trees/grain.tree"));
        }
        other => panic!("expected OutputMissing, got {other:?}"),
    }
}

#[test]
fn missing_binary_is_reported_before_anything_runs() {
    let s = Setup::new();
    fs::remove_file(s.path("bin/export")).unwrap();
    let (result, _) = s.run_with(&s.options());
    let message = result.unwrap_err().to_string();
    assert!(
        message.contains("bin/export: stage binary not found"),
        "{message}"
    );
    assert!(s.calls().is_empty());
}

#[test]
fn import_reads_the_file_relative_to_the_pipeline_and_tracks_its_bytes() {
    let s = Setup::new();
    fs::create_dir(s.path("shapes")).unwrap();
    fs::write(s.path("shapes/rock.obj"), "v 0 0 0\n").unwrap();
    s.edit_pipeline(
        "rock: { kind: sphere, radius: 0.2, subdivisions: 2 }",
        "rock: { import: shapes/rock.obj }",
    );
    s.run();
    let convert = s.calls()[1].clone();
    // Tree `rock` is a particle tree: the import is checked as a particle where it is read.
    let expected = format!(
        "meshgen convert {} --particle -o meshes/rock.ply",
        s.path("shapes/rock.obj").display()
    );
    assert_eq!(convert, expected);
    let (report, _) = s.run();
    assert!(ran(&report).is_empty());
    fs::write(s.path("shapes/rock.obj"), "v 0 0 1\n").unwrap();
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["mesh rock"]);

    // The transform is part of the stage's command line, hence of its stamp.
    s.edit_pipeline(
        "rock: { import: shapes/rock.obj }",
        "rock: { import: shapes/rock.obj, units: mm, rotate_deg: [0, 0, 90] }",
    );
    let (report, _) = s.run();
    assert_eq!(
        ran(&report),
        ["mesh rock", "tree rock", "solve fake", "export fake"]
    );
    assert!(s.calls()[0].contains(" --units mm --rotate-deg 0 0 90 --particle -o "));
    let (report, _) = s.run();
    assert!(ran(&report).is_empty());

    // The import file is checked when the pipeline file is read: nothing runs.
    fs::remove_file(s.path("shapes/rock.obj")).unwrap();
    let (result, _) = s.run_with(&s.options());
    let message = result.unwrap_err().to_string();
    assert_eq!(
        message,
        format!(
            "{}:5:19: meshes.rock.import: import file shapes/rock.obj not found (relative to the pipeline file's folder)",
            s.path("fake.yaml").display()
        )
    );
    assert!(s.calls().is_empty());
}

#[test]
fn an_import_used_only_by_obstacle_trees_is_checked_as_an_obstacle() {
    let s = Setup::new();
    fs::write(s.path("wall.stl"), "solid w\nendsolid w\n").unwrap();
    s.edit_pipeline(
        "floor: { kind: plane, size: [2, 2], center: [0, 0, -0.5] }",
        "floor: { import: wall.stl, translate: [0, 0, -0.5] }",
    );
    s.run();
    let convert = s.calls()[2].clone();
    assert_eq!(
        convert,
        format!(
            "meshgen convert {} --translate 0 0 -0.5 --obstacle -o meshes/floor.ply",
            s.path("wall.stl").display()
        )
    );
}

#[test]
fn the_log_names_outputs_and_results() {
    let s = Setup::new();
    let (_, log) = s.run();
    assert!(
        log.contains("run   tree grain: treebuild meshes/grain.ply -o trees/grain.tree"),
        "{log}"
    );
    assert!(
        log.contains("made  tree grain: trees/grain.tree ("),
        "{log}"
    );
    assert!(log.contains("made  solve fake: run/run.msdem ("), "{log}");
    let pvd = s.out().join("run/vtk/particles.pvd");
    assert!(
        log.contains(&format!("paraview  {}", pvd.display())),
        "{log}"
    );
}

#[test]
fn a_damaged_or_foreign_stamp_counts_as_missing() {
    let s = Setup::new();
    s.run();
    let stamps = s.out().join(".stamps");
    fs::write(
        stamps.join("tree-grain.stamp"),
        "msdem-pipeline-stamp 2\nnot hex\n",
    )
    .unwrap();
    let text = fs::read_to_string(stamps.join("tree-rock.stamp")).unwrap();
    fs::write(
        stamps.join("tree-rock.stamp"),
        // A stamp of version 1 (no outputs recorded) counts as none.
        text.replace("msdem-pipeline-stamp 2", "msdem-pipeline-stamp 1"),
    )
    .unwrap();
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["tree grain", "tree rock"]);
    // Rewritten as valid stamps: the next run is a no-op.
    let (report, _) = s.run();
    assert!(ran(&report).is_empty());
}

#[test]
fn the_written_scenario_names_files_relative_to_the_output_folder() {
    let s = Setup::new();
    s.run();
    let text = fs::read_to_string(s.out().join("scenario.yaml")).unwrap();
    let value: serde_norway::Value = serde_norway::from_str(&text).unwrap();
    assert_eq!(value["version"].as_u64(), Some(1));
    assert_eq!(value["name"].as_str(), Some("fake"));
    assert_eq!(
        value["shapes"]["rock"]["mesh"].as_str(),
        Some("meshes/rock.ply")
    );
    assert_eq!(
        value["shapes"]["rock"]["tree"].as_str(),
        Some("trees/rock.tree")
    );
    assert_eq!(
        value["obstacles"][0]["tree"].as_str(),
        Some("trees/floor.tree")
    );
    let drop = &value["generators"][0]["drop"];
    assert_eq!(drop["count"].as_u64(), Some(3));
    assert_eq!(drop["shape"].as_str(), Some("grain"));
    for file in ["meshes/rock.ply", "trees/rock.tree", "trees/floor.tree"] {
        assert!(s.out().join(file).is_file(), "{file}");
    }
}

#[test]
fn stage_lines_count_the_stages_and_the_run_log_records_the_run() {
    let s = Setup::new();
    let opts = RunOptions {
        command: vec!["pipeline".into(), "fake.yaml".into()],
        ..s.options()
    };
    let (result, log) = s.run_with(&opts);
    result.unwrap();
    assert!(
        log.contains("[1/8] run   mesh grain: meshgen sphere"),
        "{log}"
    );
    assert!(
        log.contains("[7/8] made  solve fake: run/run.msdem ("),
        "{log}"
    );
    assert!(
        log.contains("[8/8] run   export fake: export run\n"),
        "{log}"
    );
    let text = fs::read_to_string(s.out().join("run.log")).unwrap();
    for section in [
        "[run]",
        "[parameters]",
        "[stages]",
        "[solver]",
        "[warnings]",
        "[binaries]",
    ] {
        assert!(
            text.contains(&format!("\n{section}\n")),
            "{section}:\n{text}"
        );
    }
    let digest = {
        use sha2::Digest;
        let bytes = fs::read(s.path("fake.yaml")).unwrap();
        let d: [u8; 32] = sha2::Sha256::digest(&bytes).into();
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    assert!(text.contains(&format!("(SHA-256 {digest})")), "{text}");
    assert!(
        text.contains("command         pipeline fake.yaml\n"),
        "{text}"
    );
    assert!(text.contains("status          completed in "), "{text}");
    assert!(text.contains("integrator      explicit\n"), "{text}");
    assert!(
        text.contains("time            dt = 0.0001 s, end = 0.01 s, a frame every 10 steps"),
        "{text}"
    );
    // The fake run folder is not a real one: the log says so instead of guessing.
    assert!(
        text.contains("particles       4 listed and generated, of 2 shapes (scenario; "),
        "{text}"
    );
    assert!(text.contains("statistics      not available ("), "{text}");
    assert!(text.contains("[1/8] mesh grain   ran  "), "{text}");
    let warning =
        "solve fake: warning: scenario.yaml: time step dt = 1 s exceeds the stable estimate";
    assert!(text.contains(&format!("{warning}\n")), "{text}");
    // A second run reuses everything; the solver's warning is still reported, as recorded.
    let (result, log) = s.run_with(&opts);
    result.unwrap();
    assert!(log.contains("[7/8] skip  solve fake (up to date)"), "{log}");
    let text = fs::read_to_string(s.out().join("run.log")).unwrap();
    assert!(
        text.contains("[7/8] solve fake   reused    (outputs up to date)"),
        "{text}"
    );
    assert!(
        text.contains("solve fake (recorded when its outputs were made): warning: scenario.yaml"),
        "{text}"
    );
}

#[test]
fn a_failing_stage_is_named_in_the_run_log_with_its_error() {
    let s = Setup::new();
    s.edit_pipeline("radius: 0.2", "radius: 666");
    let (result, _) = s.run_with(&s.options());
    assert!(result.is_err());
    let text = fs::read_to_string(s.out().join("run.log")).unwrap();
    assert!(
        text.contains("status          FAILED after ")
            && text.contains(": mesh rock failed (exit status: 3): radius 666 is cursed\n"),
        "{text}"
    );
    assert!(
        text.contains("[2/8] mesh rock    FAILED  ")
            && text.contains(" s: (exit status: 3) radius 666 is cursed\n"),
        "{text}"
    );
    assert!(
        text.contains("[3/8] mesh floor   not run   (an earlier stage failed)"),
        "{text}"
    );
    assert!(!s.out().join("run").exists());
}

#[test]
fn export_keys_become_export_flags_and_outputs() {
    let s = Setup::new();
    let text = fs::read_to_string(s.path("fake.yaml")).unwrap();
    fs::write(
        s.path("fake.yaml"),
        format!(
            "{text}export: {{ vtk_format: raw, vtk_meshes: false, particle_csv: true, animation: false }}\n"
        ),
    )
    .unwrap();
    let (result, log) = s.run_with(&s.options());
    result.unwrap();
    assert!(
        log.contains("run   export fake: export run --no-vtk-meshes --vtk-format raw --particle-csv --no-animation\n"),
        "{log}"
    );
    assert!(log.contains("run/csv (1 files, "), "{log}");
    let csv = s.out().join("run/csv");
    assert!(
        log.contains(&format!("csv       {}", csv.display())),
        "{log}"
    );
    // Turning the animation back on reruns the export only, which must then write it.
    s.edit_pipeline("animation: false", "animation: true");
    let (result, log) = s.run_with(&s.options());
    result.unwrap();
    assert!(log.contains("run/preview_animation.png ("), "{log}");
    assert!(log.contains("skip  solve fake"), "{log}");
}

/// solver SCENARIO -o DIR [--restart]: writes frame 0 and a checkpoint naming the
/// scenario, then "dies" (exit 9) while the file `die` exists in the output folder; with
/// `--restart` it requires the checkpoint, keeps frame 0 and writes the rest.
const KILLABLE_SOLVER: &str = r#"#!/bin/sh
echo "solver $*" >> calls.log
dir="$3"
case "$*" in
  *--restart*)
    cmp -s "$1" "$dir/checkpoint.msdem" || { echo "error: checkpoint of another run" >&2; exit 1; }
    test -f "$dir/frames/frame_000000.msdem" || { echo "error: frame 0 lost" >&2; exit 1; } ;;
  *)
    mkdir -p "$dir/frames"
    echo f0 > "$dir/frames/frame_000000.msdem"
    cat "$1" > "$dir/checkpoint.msdem" ;;
esac
if [ -f die ]; then rm die; exit 9; fi
cat "$1" > "$dir/run.msdem"
echo stats > "$dir/stats.msdem"
echo f1 > "$dir/frames/frame_000001.msdem"
rm -f "$dir/checkpoint.msdem"
"#;

#[test]
fn resume_continues_a_killed_solver_only_from_a_checkpoint_of_the_same_run() {
    let s = Setup::new();
    write_script(&s.path("bin/solver"), KILLABLE_SOLVER);
    s.run();
    let resume = RunOptions {
        resume: true,
        ..s.options()
    };
    // Killed after its checkpoint: --resume continues it, upstream stages are skipped,
    // export runs as usual.
    s.edit_pipeline("end: 0.01", "end: 0.02");
    fs::write(s.out().join("die"), "").unwrap();
    let (result, _) = s.run_with(&s.options());
    assert!(result.is_err());
    assert!(s.out().join("run.partial/checkpoint.msdem").is_file());
    assert!(s.out().join(".stamps/solve-fake.started").is_file());
    let (result, log) = s.run_with(&resume);
    assert_eq!(ran(&result.unwrap()), ["solve fake", "export fake"]);
    assert!(
        log.contains(
            "[7/8] resume solve fake from run.partial/checkpoint.msdem: solver scenario.yaml \
             -o run.partial --restart"
        ),
        "{log}"
    );
    assert_eq!(
        s.calls()[0],
        "solver scenario.yaml -o run.partial --restart"
    );
    assert!(fs::read_to_string(s.out().join("run/run.msdem"))
        .unwrap()
        .contains("end: 0.02"));
    assert!(!s.out().join(".stamps/solve-fake.started").exists());
    assert!(s.out().join(".stamps/solve-fake.stamp").is_file());

    // Nothing left to continue: --resume reruns nothing.
    let (result, _) = s.run_with(&resume);
    assert!(ran(&result.unwrap()).is_empty());

    // Killed, then the scenario changed: the checkpoint is of another run, so --resume
    // starts the solver over (the fake solver would refuse the foreign checkpoint).
    s.edit_pipeline("end: 0.02", "end: 0.03");
    fs::write(s.out().join("die"), "").unwrap();
    assert!(s.run_with(&s.options()).0.is_err());
    s.edit_pipeline("end: 0.03", "end: 0.04");
    let (result, log) = s.run_with(&resume);
    assert_eq!(ran(&result.unwrap()), ["solve fake", "export fake"]);
    assert!(log.contains("[7/8] run   solve fake: solver scenario.yaml -o run.partial\n"));
    assert_eq!(s.calls()[0], "solver scenario.yaml -o run.partial");

    // Killed, then run without --resume: the solver starts over on a cleared folder.
    s.edit_pipeline("end: 0.04", "end: 0.05");
    fs::write(s.out().join("die"), "").unwrap();
    assert!(s.run_with(&s.options()).0.is_err());
    fs::write(s.out().join("run.partial/stray"), "").unwrap();
    let (result, _) = s.run_with(&s.options());
    assert_eq!(ran(&result.unwrap()), ["solve fake", "export fake"]);
    assert_eq!(s.calls()[0], "solver scenario.yaml -o run.partial");
    assert!(!s.out().join("run/stray").exists());

    // A killed solver without a checkpoint (killed before its first): --resume runs it
    // normally.
    s.edit_pipeline("end: 0.05", "end: 0.06");
    fs::write(s.out().join("die"), "").unwrap();
    assert!(s.run_with(&s.options()).0.is_err());
    fs::remove_file(s.out().join("run.partial/checkpoint.msdem")).unwrap();
    let (result, _) = s.run_with(&resume);
    assert_eq!(ran(&result.unwrap()), ["solve fake", "export fake"]);
    assert_eq!(s.calls()[0], "solver scenario.yaml -o run.partial");
}

/// Issue 16, defect 2: the stamp records its outputs; an output deleted, truncated, edited
/// (same size) or replaced reruns its stage, which rebuilds it; the stages after it rerun
/// only when the rebuilt output differs from what they read.
#[test]
fn a_changed_or_missing_output_reruns_its_stage_and_is_rebuilt() {
    let s = Setup::new();
    s.run();
    let read = |rel: &str| fs::read(s.out().join(rel)).unwrap();
    let mesh = read("meshes/grain.ply");
    let tree = read("trees/rock.tree");
    let frame = read("run/frames/frame_000001.msdem");
    let vtk = read("run/vtk/particles.pvd");

    // Garbage of the same size: only the hash tells.
    let garbage = vec![b'#'; mesh.len()];
    fs::write(s.out().join("meshes/grain.ply"), &garbage).unwrap();
    let (report, log) = s.run();
    assert_eq!(ran(&report), ["mesh grain"], "{log}");
    assert!(
        log.contains("[1/8] stale mesh grain: meshes/grain.ply changed since the stage made it"),
        "{log}"
    );
    assert_eq!(read("meshes/grain.ply"), mesh);

    // A truncated tree, then one built with other parameters (another tree's file).
    fs::write(s.out().join("trees/rock.tree"), &tree[..tree.len() / 2]).unwrap();
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["tree rock"]);
    assert_eq!(read("trees/rock.tree"), tree);
    fs::copy(
        s.out().join("trees/grain.tree"),
        s.out().join("trees/rock.tree"),
    )
    .unwrap();
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["tree rock"]);
    assert_eq!(read("trees/rock.tree"), tree);

    // A deleted frame, an edited one and one the solver did not write: the solver reruns
    // and its run folder replaces the damaged one, the exporter's folders in it with it,
    // so export runs again.
    fs::remove_file(s.out().join("run/frames/frame_000000.msdem")).unwrap();
    let (report, log) = s.run();
    assert_eq!(ran(&report), ["solve fake", "export fake"], "{log}");
    assert!(
        log.contains("stale solve fake: run/frames/frame_000000.msdem is missing"),
        "{log}"
    );
    fs::write(s.out().join("run/frames/frame_000001.msdem"), "F1\n").unwrap();
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["solve fake", "export fake"]);
    assert_eq!(read("run/frames/frame_000001.msdem"), frame);
    fs::write(s.out().join("run/frames/frame_000099.msdem"), "stray").unwrap();
    let (report, log) = s.run();
    assert_eq!(ran(&report), ["solve fake", "export fake"]);
    assert!(
        log.contains("run/frames/frame_000099.msdem was not made by the stage"),
        "{log}"
    );
    assert!(!s.out().join("run/frames/frame_000099.msdem").exists());
    assert_eq!(read("run/vtk/particles.pvd"), vtk);

    // Export's own files: a garbage .pvd, a deleted .ply.
    fs::write(s.out().join("run/vtk/particles.pvd"), "garbage").unwrap();
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["export fake"]);
    assert_eq!(read("run/vtk/particles.pvd"), vtk);
    fs::remove_file(s.out().join("run/ply/frame_000000.ply")).unwrap();
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["export fake"]);
    assert!(s.out().join("run/ply/frame_000000.ply").is_file());

    // Everything as recorded again: nothing runs.
    let (report, _) = s.run();
    assert!(ran(&report).is_empty());
}

/// A mesh that changes when rebuilt carries the rebuild down the pipeline through the
/// input digests.
#[test]
fn a_rebuilt_output_that_differs_reruns_the_stages_after_it() {
    let s = Setup::new();
    s.run();
    // The next meshgen writes other bytes than the first (same binary digest).
    fs::write(s.path("bin/meshgen-suffix"), "").unwrap();
    write_script(
        &s.path("bin/meshgen"),
        &MESHGEN.replace(
            "echo \"$*\" > \"$last\"",
            "echo \"$*$(cat ../bin/meshgen-suffix 2>/dev/null)\" > \"$last\"",
        ),
    );
    // New binary: all meshes rerun once (same output, no cascade).
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["mesh grain", "mesh rock", "mesh floor"]);
    fs::write(s.path("bin/meshgen-suffix"), "v2").unwrap();
    fs::remove_file(s.out().join("meshes/floor.ply")).unwrap();
    let (report, _) = s.run();
    assert_eq!(
        ran(&report),
        ["mesh floor", "tree floor", "solve fake", "export fake"]
    );
}

/// Issue 16, defect 1: a second run on a folder in use refuses in one line, naming the
/// holder, and touches nothing; once the holder is gone the folder is free.
#[test]
fn a_folder_in_use_is_refused_without_touching_it() {
    let s = Setup::new();
    s.run();
    let before = fs::read(s.out().join("run.log")).unwrap();
    let holder = msdem_frames::lock::lock_folder(&s.out(), "pipeline").unwrap();
    s.edit_pipeline("end: 0.01", "end: 0.02");
    let (result, log) = s.run_with(&s.options());
    let message = result.unwrap_err().to_string();
    assert_eq!(
        message,
        format!(
            "{}: in use by another pipeline run (pid {}); wait for it or stop it",
            s.out().display(),
            std::process::id()
        )
    );
    assert!(log.is_empty(), "{log}");
    assert!(s.calls().is_empty());
    assert_eq!(fs::read(s.out().join("run.log")).unwrap(), before);
    assert!(!fs::read_to_string(s.out().join("scenario.yaml"))
        .unwrap()
        .contains("end: 0.02"));
    drop(holder);
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["solve fake", "export fake"]);
    assert!(!s.out().join(".lock").exists(), "lock file removed");
}

/// A solver run by hand into the pipeline's run folder holds it: the solve stage refuses
/// rather than replace the folder under it.
#[test]
fn a_run_folder_held_by_another_solver_stops_the_solve_stage() {
    let s = Setup::new();
    s.run();
    let run = s.out().join("run");
    let holder = msdem_frames::lock::lock_folder(&run, "solver").unwrap();
    s.edit_pipeline("end: 0.01", "end: 0.02");
    let (result, _) = s.run_with(&s.options());
    assert_eq!(
        result.unwrap_err().to_string(),
        format!(
            "{}: in use by another solver run (pid {}); wait for it or stop it",
            run.display(),
            std::process::id()
        )
    );
    assert!(s.calls().is_empty(), "the solver did not start");
    assert!(fs::read_to_string(run.join("run.msdem"))
        .unwrap()
        .contains("end: 0.01"));
    drop(holder);
    let (report, _) = s.run();
    assert_eq!(ran(&report), ["solve fake", "export fake"]);
}

/// mpirun -np N PROGRAM ARGS…: logs its command line and the oversubscription and yield
/// switches, then runs PROGRAM ARGS (one "rank").
const MPIRUN: &str = r#"#!/bin/sh
echo "mpirun $* oversubscribe=${OMPI_MCA_rmaps_base_oversubscribe:-unset} yield=${OMPI_MCA_mpi_yield_when_idle:-unset}" >> calls.log
shift 2
exec "$@"
"#;

#[test]
fn ranks_launch_the_solver_under_mpirun_and_a_rerun_at_another_count_reuses_it() {
    let s = Setup::new();
    fs::create_dir(s.path("mpi")).unwrap();
    write_script(&s.path("mpi/mpirun"), MPIRUN);
    let path = s.path("mpi").into_os_string();
    let with = |count: u32, cores: usize| RunOptions {
        ranks: msdem_pipeline::ranks::ranks(count, Some(&path), cores).unwrap(),
        ..s.options()
    };
    // 3 ranks on 2 cores: one thread each, oversubscribed.
    let (result, log) = s.run_with(&with(3, 2));
    assert_eq!(ran(&result.unwrap()), ALL);
    let solver = s.path("bin/solver").display().to_string();
    let calls = s.calls();
    assert!(
        calls.contains(&format!(
            "mpirun -np 3 {solver} scenario.yaml -o run.partial --threads 1 oversubscribe=1 yield=1"
        )),
        "{calls:?}"
    );
    assert!(
        calls.contains(&"solver scenario.yaml -o run.partial --threads 1".to_owned()),
        "{calls:?}"
    );
    assert!(log.contains("[7/8] on 3 MPI ranks × 1 threads: "), "{log}");
    let run_log = fs::read_to_string(s.out().join("run.log")).unwrap();
    assert!(run_log.contains("--ranks 3"), "{run_log}");
    // The same results on any number of ranks: the solve stage is up to date at 2 ranks
    // and in one process.
    for opts in [with(2, 8), s.options()] {
        let (result, _) = s.run_with(&opts);
        assert!(ran(&result.unwrap()).is_empty());
    }
    // 2 ranks on 8 cores, forced: four threads each, no oversubscription.
    let (result, _) = s.run_with(&RunOptions {
        force: true,
        only: Some("solve".to_owned()),
        ..with(2, 8)
    });
    assert_eq!(ran(&result.unwrap()), ["solve fake"]);
    assert_eq!(
        s.calls()[0],
        format!(
            "mpirun -np 2 {solver} scenario.yaml -o run.partial --threads 4 oversubscribe=unset yield=unset"
        )
    );
}

#[test]
fn ranks_without_mpirun_are_refused_in_one_line() {
    let s = Setup::new();
    fs::create_dir(s.path("empty")).unwrap();
    let e = msdem_pipeline::ranks::ranks(4, Some(s.path("empty").as_os_str()), 2).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--ranks 4: mpirun not found on the PATH (install OpenMPI, e.g. `apt-get install \
         openmpi-bin`, and a solver built with `--features msdem-solver/mpi`; or run without \
         --ranks)"
    );
    assert!(matches!(e, PipelineError::MpirunMissing { ranks: 4 }));
}
