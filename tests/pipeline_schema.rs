//! Pipeline files against the schema: every shipped pipeline loads, and what the runner
//! writes from it is accepted by the solver's own scenario parser (an independent reader);
//! the shipped scenarios meet their specification; every bad pipeline under
//! `tests/pipelines/bad/` fails with exactly the message in its `# expect:` first line.

use std::path::Path;

use msdem_e2e::{pipeline_binary, pipelines_dir, run_in, test_pipelines_dir, texts, yaml_files};
use msdem_mesh::generate::{defaults, MeshGenerator};
use msdem_pipeline::spec::MeshSpec;
use msdem_pipeline::{load_pipeline, scenario_text, PipelineSpec};

fn load(path: &Path) -> PipelineSpec {
    load_pipeline(path).unwrap_or_else(|e| panic!("{e}"))
}

/// The solver's loader (`msdem_scenario::parse_scenario`, scenario-file form) reads the
/// scenario the runner would write for `path`, and it is the pipeline's scenario with the
/// trees turned into files.
fn check_scenario_round_trip(path: &Path) {
    let spec = load(path);
    let text = scenario_text(&spec).unwrap();
    let out = Path::new("out")
        .join(spec.name.as_str())
        .join("scenario.yaml");
    let scenario = msdem_scenario::parse_scenario(&text, &out).unwrap_or_else(|e| {
        panic!(
            "{}: solver refuses the written scenario: {e}\n{text}",
            path.display()
        )
    });
    assert_eq!(scenario.name, spec.name.as_str());
    assert_eq!(scenario.shapes.len(), spec.scenario.shapes.len());
    assert_eq!(scenario.obstacles.len(), spec.scenario.obstacles.len());
    assert_eq!(scenario.generators.len(), spec.scenario.generators.len());
    assert_eq!(scenario.particles, spec.scenario.particles);
    assert_eq!(scenario.generators, spec.scenario.generators);
    assert_eq!(scenario.picard, spec.scenario.picard);
    assert_eq!(scenario.broadphase, spec.scenario.broadphase);
    for (name, shape) in spec.scenario.shapes.iter() {
        let parsed = &scenario.shapes[name.as_str()];
        let Some(source) = shape.mesh() else {
            // An ellipsoid is written as it was given.
            assert_eq!(parsed.mesh(), None, "{parsed:?}");
            assert_eq!(format!("{shape:?}"), format!("{parsed:?}"));
            continue;
        };
        let tree = source.tree.as_str();
        let mesh = spec.trees.get(tree).unwrap().mesh.as_str();
        let files = parsed.mesh().expect("a mesh shape stays a mesh shape");
        assert!(
            files.tree.ends_with(format!("trees/{tree}.tree")),
            "{parsed:?}"
        );
        assert!(
            files.mesh.ends_with(format!("meshes/{mesh}.ply")),
            "{parsed:?}"
        );
    }
}

#[test]
fn every_shipped_pipeline_loads_and_its_scenario_reads_back() {
    let files = yaml_files(&pipelines_dir());
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    for required in ["hopper", "particle_on_slope", "particle_pair", "staircase"] {
        assert!(
            names.iter().any(|n| n == required),
            "pipelines/{required}.yaml missing"
        );
    }
    for file in files
        .iter()
        .chain(&[test_pipelines_dir().join("tiny.yaml")])
    {
        let spec = load(file);
        assert_eq!(
            spec.name.as_str(),
            file.file_stem().unwrap().to_string_lossy(),
            "{}: name differs from the file name",
            file.display()
        );
        check_scenario_round_trip(file);
    }
}

/// Radius and triangle count of a generated sphere mesh.
fn sphere(spec: &PipelineSpec, shape: &str) -> (f64, u32) {
    let tree = spec.scenario.shapes[shape]
        .mesh()
        .expect("a mesh shape")
        .tree
        .as_str();
    let mesh = spec.trees.get(tree).unwrap().mesh.as_str();
    match spec.meshes.get(mesh).unwrap() {
        MeshSpec::Generate(MeshGenerator::Sphere {
            radius,
            subdivisions,
            ..
        }) => (*radius, 20 * 4u32.pow(*subdivisions)),
        other => panic!("shape {shape} is not a generated sphere: {other:?}"),
    }
}

/// (shape, count) of every generator and explicit particle.
fn particles(spec: &PipelineSpec) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = spec
        .scenario
        .particles
        .iter()
        .map(|p| (p.shape.clone(), 1))
        .collect();
    for g in &spec.scenario.generators {
        out.push((g.shape().to_owned(), g.total() as u32));
    }
    out
}

#[test]
fn staircase_meets_its_specification() {
    let spec = load(&pipelines_dir().join("staircase.yaml"));
    let stairs = spec
        .meshes
        .iter()
        .find_map(|(_, m)| match m {
            MeshSpec::Generate(MeshGenerator::Staircase { steps, .. }) => Some(*steps),
            _ => None,
        })
        .expect("a staircase mesh");
    assert!(stairs.unwrap_or(defaults::STEPS) >= 20);
    let list = particles(&spec);
    assert!(list.iter().map(|(_, n)| n).sum::<u32>() >= 50);
    let radii: Vec<f64> = list.iter().map(|(s, _)| sphere(&spec, s).0).collect();
    let (min, max) = radii
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
    assert!(max / min >= 4.0, "radius ratio {}", max / min);
    let gravity = spec.scenario.gravity;
    assert!(gravity[2] < 0.0);
}

#[test]
fn hopper_particle_pair_and_slope_meet_their_specification() {
    let hopper = load(&pipelines_dir().join("hopper.yaml"));
    let list = particles(&hopper);
    assert!(list.iter().map(|(_, n)| n).sum::<u32>() >= 25);
    let mut radii: Vec<f64> = list.iter().map(|(s, _)| sphere(&hopper, s).0).collect();
    radii.sort_by(f64::total_cmp);
    radii.dedup();
    assert!(radii.len() >= 3, "three sizes of rocks: {radii:?}");
    assert!(hopper
        .meshes
        .iter()
        .any(|(_, m)| matches!(m, MeshSpec::Generate(MeshGenerator::Hopper { .. }))));

    let pair = load(&pipelines_dir().join("particle_pair.yaml"));
    assert_eq!(pair.scenario.particles.len(), 2);
    assert_eq!(pair.scenario.gravity, [0.0; 3]);
    for p in &pair.scenario.particles {
        assert_eq!(sphere(&pair, p.shape.as_str()).1, 1280);
    }
    let [a, b] = [&pair.scenario.particles[0], &pair.scenario.particles[1]];
    let closing: f64 = (0..3)
        .map(|i| (b.position[i] - a.position[i]) * (a.velocity[i] - b.velocity[i]))
        .sum();
    assert!(closing > 0.0, "the spheres must approach each other");

    let slope = load(&pipelines_dir().join("particle_on_slope.yaml"));
    assert_eq!(particles(&slope).len(), 1);
    assert!(slope
        .meshes
        .iter()
        .any(|(_, m)| matches!(m, MeshSpec::Generate(MeshGenerator::Slope { .. }))));
}

#[test]
fn every_bad_pipeline_fails_with_its_expected_message() {
    let files = yaml_files(&test_pipelines_dir().join("bad"));
    assert!(files.len() >= 10);
    let mut wrong = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let expect = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# expect: "))
            .unwrap_or_else(|| {
                panic!("{}: first line must be `# expect: MESSAGE`", file.display())
            });
        let expected = format!("{}:{expect}", file.display());
        match load_pipeline(file) {
            Ok(_) => wrong.push(format!("{}: accepted", file.display())),
            Err(e) if e.to_string() != expected => wrong.push(format!(
                "{}\n  expected {expected}\n  got      {e}",
                file.display()
            )),
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_binary_reports_a_bad_pipeline_in_one_line_and_writes_nothing() {
    let pipeline = pipeline_binary();
    let dir = tempfile::tempdir().unwrap();
    let bad = test_pipelines_dir().join("bad").join("missing_mesh.yaml");
    let output = run_in(&pipeline, [bad.as_os_str()], dir.path());
    let (stdout, stderr) = texts(&output);
    assert!(!output.status.success());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let expected = format!("error: {}:", bad.display());
    assert!(stderr.starts_with(&expected), "{stderr}");
    assert!(stderr.contains("unknown mesh `gravel`"), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "files written"
    );
}

#[test]
fn the_binary_reports_bad_arguments_and_missing_files_in_one_line() {
    let pipeline = pipeline_binary();
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (
            &["tiny.yaml", "--bogus"],
            "error: unexpected argument '--bogus' found",
        ),
        (
            &[],
            "error: the following required arguments were not provided: <PIPELINE>",
        ),
        (
            &["tiny.yaml", "--only"],
            "error: a value is required for '--only <STAGE>'",
        ),
        (&["nope.yaml"], "error: nope.yaml: cannot read: "),
    ];
    for (args, start) in cases {
        let output = run_in(&pipeline, args, dir.path());
        let (_, stderr) = texts(&output);
        assert!(!output.status.success(), "{args:?}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with(start), "{args:?}: {stderr}");
    }
    let help = run_in(&pipeline, ["--help"], dir.path());
    assert!(help.status.success());
    assert!(texts(&help).0.contains("--only <STAGE>"));
}

/// The implicit pipelines select an implicit integrator that the solver's parser reads
/// back from the written scenario, together with their `picard:` settings.
#[test]
fn implicit_pipelines_select_their_integrator_and_picard_settings() {
    use msdem_scenario::{DetectionModeSpec, IntegratorSpec};
    for (file, count) in [
        ("particle_pair_implicit.yaml", 2),
        ("particle_on_slope_implicit.yaml", 1),
        ("scaled_pairs.yaml", 8),
    ] {
        let path = pipelines_dir().join(file);
        let spec = load(&path);
        assert_eq!(
            spec.scenario.integrator,
            IntegratorSpec::ImplicitMultiscale,
            "{file}"
        );
        let written = scenario_text(&spec).unwrap();
        let parsed = msdem_scenario::parse_scenario(&written, Path::new("s.yaml"))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(parsed.integrator, IntegratorSpec::ImplicitMultiscale);
        assert_eq!(parsed.picard, spec.scenario.picard, "{file}");
        assert_eq!(parsed.picard.tolerance, 0.01, "{file}");
        assert_eq!(parsed.picard.max_iterations, 50, "{file}");
        assert_eq!(spec.scenario.detection.mode, DetectionModeSpec::Hierarchy);
        assert_eq!(particles(&spec).len(), count, "{file}");
    }
    // Table 7: one 80-triangle unit sphere against partners scaled ×1, ×2, ×4, ×8.
    let scaled = load(&pipelines_dir().join("scaled_pairs.yaml"));
    let mut radii: Vec<(f64, u32)> = scaled
        .scenario
        .particles
        .iter()
        .map(|p| sphere(&scaled, p.shape.as_str()))
        .collect();
    assert!(radii.iter().all(|&(_, t)| t == 80), "{radii:?}");
    radii.sort_by(|a, b| a.0.total_cmp(&b.0));
    radii.dedup();
    let scales: Vec<f64> = radii.iter().map(|r| r.0 / radii[0].0).collect();
    assert_eq!(scales, [1.0, 2.0, 4.0, 8.0]);
}

/// Every `broadphase:` form of a pipeline (short names and the map form with each key)
/// reaches the solver's parser, through the written scenario, as the same choice: what the
/// runner writes (`Serialize`) reads back as what the pipeline file said.
#[test]
fn every_broadphase_form_reaches_the_solver_unchanged() {
    use msdem_scenario::BroadPhaseSpec;
    let hgrid = |levels, cell_sizes: Option<Vec<f64>>, skin| BroadPhaseSpec::HGrid {
        levels,
        cell_sizes,
        skin,
    };
    let cases: Vec<(&str, BroadPhaseSpec)> = vec![
        ("", hgrid(None, None, None)),
        ("broadphase: hgrid", hgrid(None, None, None)),
        ("broadphase: grid", hgrid(None, None, None)),
        (
            "broadphase: linked_cells",
            BroadPhaseSpec::LinkedCells {
                cell_size: None,
                skin: None,
            },
        ),
        ("broadphase: all_pairs", BroadPhaseSpec::AllPairs),
        ("broadphase: { kind: all_pairs }", BroadPhaseSpec::AllPairs),
        (
            "broadphase: { kind: hgrid, levels: 2, skin: 0.004 }",
            hgrid(Some(2), None, Some(0.004)),
        ),
        (
            "broadphase: { kind: grid, cell_sizes: [0.2, 0.9], skin: 0 }",
            hgrid(None, Some(vec![0.2, 0.9]), Some(0.0)),
        ),
        (
            "broadphase: { kind: linked_cells, cell_size: 0.25, skin: 0.01 }",
            BroadPhaseSpec::LinkedCells {
                cell_size: Some(0.25),
                skin: Some(0.01),
            },
        ),
    ];
    let tiny = std::fs::read_to_string(test_pipelines_dir().join("tiny.yaml")).unwrap();
    let anchor = "  gravity: [0, 0, -9.81]\n";
    assert!(tiny.contains(anchor));
    for (line, expected) in cases {
        let text = tiny.replacen(anchor, &format!("{anchor}  {line}\n"), 1);
        let spec = msdem_pipeline::parse_pipeline(&text, Path::new("tiny.yaml"))
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(spec.scenario.broadphase, expected, "{line}");
        let written = scenario_text(&spec).unwrap();
        let parsed = msdem_scenario::parse_scenario(&written, Path::new("s.yaml"))
            .unwrap_or_else(|e| panic!("{line}: solver refuses {written}: {e}"));
        assert_eq!(parsed.broadphase, expected, "{line}\n{written}");
    }
}
