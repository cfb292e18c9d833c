//! The real binaries chained by the real runner on `tests/pipelines/tiny.yaml`: all four
//! stages run and leave frames and VTK output; a second run skips every stage; changing one
//! mesh's parameters rebuilds that mesh, its tree and what follows, nothing else; a failing
//! stage stops the pipeline with its own message. Imported meshes: the transform is applied
//! and stamped, a mesh unfit for its use (particle or obstacle) is refused at the mesh stage
//! naming the user's file, a missing import file is reported before anything runs.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use msdem_e2e::{pipeline_binary, run_in, test_pipelines_dir, texts};
use msdem_frames::{
    frame_path, manifest_path, read_record, Frame, RunManifest, FRAME_MAGIC, MANIFEST_MAGIC,
};

struct Sandbox {
    dir: tempfile::TempDir,
    pipeline: PathBuf,
}

impl Sandbox {
    /// A scratch folder holding a copy of the tiny pipeline (so the test can edit it).
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let pipeline = dir.path().join("tiny.yaml");
        fs::copy(test_pipelines_dir().join("tiny.yaml"), &pipeline).unwrap();
        Self { dir, pipeline }
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out").join("tiny")
    }

    /// `pipeline tiny.yaml` in the scratch folder (default output folder `out/tiny`).
    fn run(&self, extra: &[&str]) -> Output {
        let mut args = vec!["tiny.yaml"];
        args.extend(extra);
        run_in(&pipeline_binary(), args, self.dir.path())
    }

    fn run_ok(&self, extra: &[&str]) -> String {
        let output = self.run(extra);
        let (stdout, stderr) = texts(&output);
        assert!(
            output.status.success(),
            "pipeline failed\n{stdout}\n{stderr}"
        );
        stdout
    }

    fn edit(&self, from: &str, to: &str) {
        let text = fs::read_to_string(&self.pipeline).unwrap();
        assert!(text.contains(from));
        fs::write(&self.pipeline, text.replacen(from, to, 1)).unwrap();
    }
}

/// The stage labels that ran (`[n/N] run   LABEL: …`) and were skipped (`[n/N] skip  LABEL
/// (up to date)`), in order; `n` must count from 1 and `N` be the same on every line.
fn stages(stdout: &str) -> (Vec<String>, Vec<String>) {
    let mut ran = Vec::new();
    let mut skipped = Vec::new();
    let mut counted = 0;
    for line in stdout.lines() {
        let Some((position, line)) = line.strip_prefix('[').and_then(|l| l.split_once("] ")) else {
            continue;
        };
        if line.starts_with("run ") || line.starts_with("skip ") {
            counted += 1;
            let (n, total) = position.split_once('/').unwrap();
            assert_eq!(n.parse::<usize>().unwrap(), counted, "{stdout}");
            assert_eq!(total.parse::<usize>().unwrap(), ALL.len(), "{stdout}");
        }
        if let Some(rest) = line.strip_prefix("run   ") {
            ran.push(rest.split(':').next().unwrap().to_owned());
        } else if let Some(rest) = line.strip_prefix("skip  ") {
            skipped.push(rest.trim_end_matches(" (up to date)").to_owned());
        }
    }
    (ran, skipped)
}

/// Data sets listed by a `.pvd` collection, in order.
fn pvd_files(pvd: &Path) -> Vec<String> {
    let text = fs::read_to_string(pvd).unwrap();
    text.split("file=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().to_owned())
        .collect()
}

const ALL: [&str; 6] = [
    "mesh grain",
    "mesh floor",
    "tree grain",
    "tree floor",
    "solve tiny",
    "export tiny",
];

/// `out/tiny/run.log` after a complete run: the figures of the real run, read back
/// independently from the run folder.
fn check_run_log(out: &Path, manifest: &RunManifest) {
    use msdem_frames::{stats_path, StatsFile};
    let text = fs::read_to_string(out.join("run.log")).unwrap();
    let stats: StatsFile = StatsFile::read(&stats_path(&out.join("run"))).unwrap();
    let last = stats.steps.last().unwrap();
    let contacts: u64 = stats.steps.iter().map(|s| u64::from(s.contacts)).sum();
    let triangles: u64 = manifest
        .particles
        .iter()
        .map(|p| u64::from(manifest.shapes[p.shape as usize].triangles))
        .sum();
    for expected in [
        "status          completed in ".to_owned(),
        "command         ".to_owned(),
        format!("steps           {} to t = {:.6} s\n", last.step, last.time),
        format!("contacts        {contacts} in total, at most "),
        format!("particles       2 of 1 shapes, {triangles} triangles in all (run/run.msdem)"),
        // The floor: `plane` with one subdivision is two triangles.
        "obstacles       1, 2 triangles in all (meshes/)".to_owned(),
        "integrator      explicit\n".to_owned(),
        "[1/6] mesh grain   ran ".to_owned(),
        "[5/6] solve tiny   ran ".to_owned(),
        "phases          wall time summed over ".to_owned(),
        "  narrow      ".to_owned(),
        "  output, setup ".to_owned(),
        "[warnings]\nnone\n".to_owned(),
        "solver    SHA-256 ".to_owned(),
    ] {
        assert!(text.contains(&expected), "{expected:?} not in\n{text}");
    }
    assert!(contacts > 0, "the tiny run has contacts");
}

#[test]
fn tiny_pipeline_runs_skips_and_rebuilds_only_what_changed() {
    let sandbox = Sandbox::new();
    let stdout = sandbox.run_ok(&[]);
    let (ran, skipped) = stages(&stdout);
    assert_eq!(ran, ALL, "{stdout}");
    assert!(skipped.is_empty(), "{stdout}");

    // The run folder: manifest, frames, VTK series, PLY frames, plots.
    let out = sandbox.out();
    let run = out.join("run");
    let manifest: RunManifest = read_record(&manifest_path(&run), &MANIFEST_MAGIC).unwrap();
    assert_eq!(manifest.name, "tiny");
    assert_eq!(manifest.particles.len(), 2);
    let frame_count = fs::read_dir(run.join("frames")).unwrap().count();
    assert!(frame_count >= 3, "{frame_count} frames");
    let last: Frame = read_record(&frame_path(&run, frame_count as u32 - 1), &FRAME_MAGIC).unwrap();
    assert!(last.time > 0.0);
    let datasets = pvd_files(&run.join("vtk").join("particles.pvd"));
    assert_eq!(datasets.len(), frame_count);
    for file in &datasets {
        assert!(run.join("vtk").join(file).is_file(), "{file} missing");
    }
    assert!(run.join("vtk").join("obstacles.pvd").is_file());
    let ply_frames = fs::read_dir(run.join("ply"))
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            name.to_string_lossy().starts_with("frame_")
        })
        .count();
    assert_eq!(ply_frames, frame_count);
    assert!(fs::read_dir(run.join("plots")).unwrap().count() > 0);
    assert!(out.join("scenario.yaml").is_file());
    assert!(
        stdout.contains(&run.join("vtk").join("particles.pvd").display().to_string())
            || stdout.contains("run/vtk/particles.pvd"),
        "{stdout}"
    );
    check_run_log(&out, &manifest);

    // Nothing changed: every stage is skipped, nothing is rewritten.
    let before = fs::metadata(run.join("run.msdem"))
        .unwrap()
        .modified()
        .unwrap();
    let stdout = sandbox.run_ok(&[]);
    let (ran, skipped) = stages(&stdout);
    assert!(ran.is_empty(), "{stdout}");
    assert_eq!(skipped, ALL);
    assert!(stdout.contains("[3/6] skip  tree grain (up to date)"));
    let after = fs::metadata(run.join("run.msdem"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after);

    // One particle shape changes: its mesh, its tree and everything downstream rerun.
    let floor_tree = fs::read(out.join("trees/floor.tree")).unwrap();
    sandbox.edit("radius: 0.05", "radius: 0.045");
    let stdout = sandbox.run_ok(&[]);
    let (ran, skipped) = stages(&stdout);
    assert_eq!(
        ran,
        ["mesh grain", "tree grain", "solve tiny", "export tiny"],
        "{stdout}"
    );
    assert_eq!(skipped, ["mesh floor", "tree floor"], "{stdout}");
    assert_eq!(fs::read(out.join("trees/floor.tree")).unwrap(), floor_tree);

    // --force reruns everything; every stage is deterministic, so the scenario, the tree,
    // the manifest and every frame come out byte-identical.
    let watched = |out: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        let mut files = vec![
            out.join("scenario.yaml"),
            out.join("trees/grain.tree"),
            out.join("run/run.msdem"),
        ];
        let mut frames: Vec<PathBuf> = fs::read_dir(out.join("run/frames"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        frames.sort();
        files.extend(frames);
        files
            .into_iter()
            .map(|f| {
                let bytes = fs::read(&f).unwrap();
                (f, bytes)
            })
            .collect()
    };
    let before = watched(&out);
    let stdout = sandbox.run_ok(&["--force"]);
    assert_eq!(stages(&stdout).0, ALL, "{stdout}");
    let after = watched(&out);
    assert_eq!(before.len(), after.len());
    for ((file, a), (_, b)) in before.iter().zip(&after) {
        assert!(a == b, "{} differs after --force", file.display());
    }
}

#[test]
fn a_failing_stage_stops_the_pipeline_with_its_own_message() {
    let sandbox = Sandbox::new();
    sandbox.run_ok(&[]);
    // An icosphere needs at least one subdivision (docs/cli.md): meshgen refuses 0.
    sandbox.edit("subdivisions: 1", "subdivisions: 0");
    let output = sandbox.run(&[]);
    let (stdout, stderr) = texts(&output);
    assert!(!output.status.success(), "{stdout}");
    let last = stderr.lines().last().unwrap_or_default();
    let prefix = "error: mesh grain failed (exit status: ";
    assert!(last.starts_with(prefix), "{stderr}");
    // The stage's own message (naming the parameter), not just the runner's.
    assert!(last.contains("subdivisions"), "{last}");
    let (ran, _) = stages(&stdout);
    assert_eq!(ran, ["mesh grain"], "{stdout}");
    // No stamp for the failed stage; the previous mesh and run are untouched.
    let out = sandbox.out();
    assert!(!out.join(".stamps/mesh-grain.stamp").exists());
    assert!(out.join(".stamps/mesh-floor.stamp").exists());
    assert!(out.join("meshes/grain.ply").is_file());
    assert!(out.join("run/run.msdem").is_file());
    // The run log names the failing stage and its error line, and what did not run.
    let log = fs::read_to_string(out.join("run.log")).unwrap();
    let error = last.strip_prefix("error: ").unwrap();
    assert!(
        log.contains("status          FAILED after ") && log.contains(error),
        "{error:?} not in\n{log}"
    );
    let failed = log
        .lines()
        .find(|l| l.starts_with("[1/6] mesh grain   FAILED "))
        .unwrap_or_else(|| panic!("{log}"));
    assert!(failed.contains("subdivisions"), "{failed}");
    assert!(
        log.contains("[6/6] export tiny  not run   (an earlier stage failed)"),
        "{log}"
    );
    // Undoing the edit: the mesh is rebuilt with the old bytes, the rest is up to date.
    sandbox.edit("subdivisions: 0", "subdivisions: 1");
    let stdout = sandbox.run_ok(&[]);
    assert_eq!(stages(&stdout).0, ["mesh grain"], "{stdout}");
}

/// The tiny pipeline with its grain imported from `file` (written into the sandbox) with the
/// given extra keys.
fn import_grain(sandbox: &Sandbox, file: &str, keys: &str) {
    sandbox.edit(
        "grain: { kind: sphere, radius: 0.05, subdivisions: 1, eta: 1.2, seed: 5 }",
        &format!("grain: {{ import: {file}{keys} }}"),
    );
}

/// A mesh's volume and centre of mass (density 1).
fn volume_and_com(mesh: &msdem_mesh::TriMesh) -> (f64, [f64; 3]) {
    let mp = msdem_mesh::mass::mass_properties(mesh, 1.0).unwrap();
    (mp.volume, mp.com)
}

#[test]
fn an_imported_grain_in_millimetres_is_transformed_and_its_transform_is_stamped() {
    use msdem_mesh::generate::{noise_sphere, NoiseSphere};
    use msdem_mesh::transform::{ImportTransform, LengthUnit};
    let sandbox = Sandbox::new();
    // The grain of tiny.yaml, but in millimetres and off the origin, as a scan might be.
    let mut grain = noise_sphere(&NoiseSphere {
        radius: 50.0,
        subdivisions: 1,
        eta: 1.2,
        seed: 5,
        octaves: 4,
        stretch: 1.0,
    })
    .unwrap();
    for v in &mut grain.vertices {
        *v = [v[0] + 400.0, v[1], v[2] - 120.0];
    }
    let source = sandbox.dir.path().join("grain_mm.obj");
    msdem_mesh::write_mesh(&source, &grain).unwrap();
    import_grain(
        &sandbox,
        "grain_mm.obj",
        ", units: mm, rotate_deg: [0, 0, 90], recentre: true",
    );
    let stdout = sandbox.run_ok(&[]);
    assert_eq!(stages(&stdout).0, ALL, "{stdout}");
    assert!(
        stdout.contains("meshgen convert ")
            && stdout.contains("grain_mm.obj --units mm --rotate-deg 0 0 90 --recentre --particle -o meshes/grain.ply"),
        "{stdout}"
    );
    // What the stage wrote is the file's mesh transformed as documented.
    let (written, _) = msdem_mesh::read_mesh(sandbox.out().join("meshes/grain.ply")).unwrap();
    let (read, map, _) = msdem_mesh::read_mesh_source(&source).unwrap();
    let expected = ImportTransform {
        units: LengthUnit::Mm,
        rotate_deg: [0.0, 0.0, 90.0],
        recentre: true,
        ..Default::default()
    }
    .apply(&read, &source, &map)
    .unwrap();
    assert_eq!(written, expected);
    let (volume, com) = volume_and_com(&written);
    let (volume_mm, _) = volume_and_com(&grain);
    assert!(
        (volume / (volume_mm * 1e-9) - 1.0).abs() < 1e-12,
        "{volume}"
    );
    assert!(com.iter().all(|c| c.abs() < 1e-15), "{com:?}");

    // Changing the transform reruns the mesh stage (its command line is in the stamp).
    sandbox.edit("rotate_deg: [0, 0, 90]", "rotate_deg: [0, 0, 45]");
    let stdout = sandbox.run_ok(&[]);
    let (ran, skipped) = stages(&stdout);
    assert_eq!(ran[0], "mesh grain", "{stdout}");
    assert!(skipped.contains(&"mesh floor".to_owned()), "{stdout}");
}

#[test]
fn an_imported_mesh_unfit_for_its_use_is_refused_at_the_mesh_stage_naming_the_file() {
    let particle = "(checked as a particle: tree grain is built over it without `obstacle: true`)";
    let obstacle = "(checked as an obstacle: tree floor is built over it with `obstacle: true`)";
    let cases = [
        // Tetrahedron without its bottom face.
        (
            "grain",
            "open.obj",
            "v 0 0 0\nv 0.05 0 0\nv 0 0.05 0\nv 0 0 0.05\nf 1 2 4\nf 1 4 3\nf 2 3 4\n",
            format!("open mesh: 3 boundary edges, first between vertex 1 (line 1) and vertex 2 (line 2) of face 1 (line 5) {particle}"),
        ),
        (
            "grain",
            "pinched.obj",
            "",
            format!("non-manifold vertex: 1 vertices where separate fans of triangles meet (pinch), first vertex 1 (line 5), joining the fans of face 1 (line 12) and face 5 (line 16) {particle}"),
        ),
        // Three fins on one edge: not even an obstacle.
        (
            "floor",
            "fins.obj",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 -1 0\nv 0 0 1\nf 1 2 3\nf 2 1 4\nf 1 2 5\n",
            format!("non-manifold mesh: 1 edges shared by more than two triangles, first between vertex 1 (line 1) and vertex 2 (line 2) of face 1 (line 6), face 2 (line 7), face 3 (line 8) {obstacle}"),
        ),
    ];
    for (mesh, file, text, problem) in cases {
        let sandbox = Sandbox::new();
        let path = sandbox.dir.path().join(file);
        if text.is_empty() {
            let sample = msdem_e2e::workspace_root().join("meshes/pinched_tetrahedra.obj");
            fs::copy(sample, &path).unwrap();
        } else {
            fs::write(&path, text).unwrap();
        }
        if mesh == "grain" {
            import_grain(&sandbox, file, "");
        } else {
            sandbox.edit(
                "floor: { kind: plane, size: [1, 1] }",
                &format!("floor: {{ import: {file} }}"),
            );
        }
        let output = sandbox.run(&[]);
        let (stdout, stderr) = texts(&output);
        assert!(!output.status.success(), "{stdout}");
        let last = stderr.lines().last().unwrap_or_default();
        assert_eq!(
            last,
            format!(
                "error: mesh {mesh} failed (exit status: 1): meshgen: {}: {problem}",
                path.display()
            )
        );
        assert_eq!(
            stages(&stdout).0.last().map(String::as_str),
            Some(format!("mesh {mesh}").as_str()),
            "{stdout}"
        );
        assert!(!sandbox.out().join(format!("meshes/{mesh}.ply")).exists());
    }
}

#[test]
fn a_missing_import_file_is_reported_in_one_line_before_anything_runs() {
    let sandbox = Sandbox::new();
    import_grain(&sandbox, "scans/grain.obj", ", units: mm");
    let output = sandbox.run(&[]);
    let (stdout, stderr) = texts(&output);
    assert!(!output.status.success());
    assert_eq!(
        stderr,
        "error: tiny.yaml:9:20: meshes.grain.import: import file scans/grain.obj not found (relative to the pipeline file's folder)\n"
    );
    assert!(stdout.is_empty(), "{stdout}");
    assert!(!sandbox.dir.path().join("out").exists());
}

/// A local time stepping run's log shows its `lts:` settings and counts sweeps (from
/// `stats.msdem`), not Picard iterations or triangle-pair checks, which it does not make.
#[test]
fn a_local_time_stepping_run_log_counts_sweeps() {
    use msdem_frames::{stats_path, StatsFile};
    let sandbox = Sandbox::new();
    sandbox.edit(
        "  gravity: [0, 0, -9.81]\n",
        "  gravity: [0, 0, -9.81]\n  integrator: local_time_stepping\n",
    );
    sandbox.run_ok(&[]);
    let out = sandbox.out();
    let text = fs::read_to_string(out.join("run.log")).unwrap();
    let stats: StatsFile = StatsFile::read(&stats_path(&out.join("run"))).unwrap();
    let sweeps: u64 = stats.steps.iter().map(|s| u64::from(s.iterations)).sum();
    for expected in [
        "integrator      local_time_stepping\n".to_owned(),
        "lts             { min_step_s: 1e-9, ".to_owned(),
        format!("lts             {sweeps} sweeps, at most "),
    ] {
        assert!(text.contains(&expected), "{expected:?} not in\n{text}");
    }
    for absent in ["picard ", "candidate pairs", "triangle-pair checks"] {
        assert!(!text.contains(absent), "{absent:?} in\n{text}");
    }
    assert!(sweeps >= stats.steps.len() as u64, "{sweeps} sweeps");
}
