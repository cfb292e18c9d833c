//! The two forms of the one schema: a scenario file (`mesh` + `tree` paths) and a
//! pipeline's `scenario:` section (`tree: NAME`, no `version` or `name`), and the
//! scenario file the pipeline form turns into, written by `Serialize` and read back.

use std::path::Path;

use msdem_scenario::{
    parse_scenario, with_known, BroadPhaseSpec, Known, MeshFiles, Scenario, TreeName,
};

const SECTION: &str = "\
time: { dt: 1.0e-4, end: 0.5, output_every: 10 }
gravity: [0, 0, -9.81]
integrator: implicit_multiscale
picard: { tolerance: 0.02, relaxation: 0.8 }
detection: { kernel: hybrid }
broadphase: { kind: linked_cells, skin: 0.01 }
seed: 7
materials: { rock: { density: 2500, friction: 0.3 } }
shapes: { grain: { tree: grain } }
obstacles: [ { name: floor, tree: floor, halo: { absolute_m: 0.002 }, rotation: [0, 0, 0, 1] } ]
particles: [ { shape: grain, material: rock, position: [0, 0, 1] } ]
generators:
  - lattice: { shape: grain, material: rock, origin: [0, 0, 2], spacing: [0.2, 0.2, 0.2],
               count: [2, 2, 1] }
  - drop: { shape: grain, material: rock, count: 3, min: [0, 0, 3], max: [1, 1, 4],
            velocity: [0, 0, -1], random_orientation: true }
";

fn section(text: &str, trees: &[&str]) -> Result<Scenario<TreeName>, String> {
    let first: Scenario<TreeName> = serde_norway::from_str(text).map_err(|e| e.to_string())?;
    let known = Known {
        trees: trees.iter().map(|t| t.to_string()).collect(),
        ..Known::of(&first)
    };
    with_known(known, || serde_norway::from_str(text)).map_err(|e| e.to_string())
}

#[test]
fn a_pipeline_section_written_as_a_scenario_file_reads_back_the_same() {
    let mut spec = section(SECTION, &["grain", "floor"]).unwrap();
    spec.name = "demo".to_owned();
    assert_eq!(spec.version, 1);
    assert_eq!(
        spec.shapes["grain"].mesh().expect("mesh shape").tree,
        "grain"
    );
    let files = spec.map_geometry(|t| MeshFiles {
        mesh: format!("meshes/{}.ply", t.tree).into(),
        tree: format!("trees/{}.tree", t.tree).into(),
    });
    let text = serde_norway::to_string(&files).unwrap();
    let back = parse_scenario(&text, Path::new("s.yaml")).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.file, Path::new("s.yaml"));
    assert_eq!(
        Scenario {
            file: files.file.clone(),
            ..back
        },
        files,
        "{text}"
    );
    assert_eq!(
        files.broadphase,
        BroadPhaseSpec::LinkedCells {
            cell_size: None,
            skin: Some(0.01)
        }
    );
}

#[test]
fn each_form_refuses_the_other_forms_keys_where_they_are_written() {
    let with_mesh = SECTION.replace("{ tree: grain }", "{ mesh: m.ply, tree: grain }");
    let e = section(&with_mesh, &["grain", "floor"]).unwrap_err();
    assert!(
        e.starts_with("shapes.grain.mesh: a pipeline names a tree"),
        "{e}"
    );
    assert!(e.contains("line 9 column 26"), "{e}");
    let named = format!("name: x\n{SECTION}");
    let e = section(&named, &["grain", "floor"]).unwrap_err();
    assert!(
        e.starts_with("name: the scenario of a pipeline takes its `name`"),
        "{e}"
    );
    let e = section(SECTION, &["grain"]).unwrap_err();
    assert!(
        e.starts_with("obstacles[0].tree: unknown tree `floor` (declared under trees: grain)"),
        "{e}"
    );
    let file = format!("version: 1\nname: x\n{SECTION}");
    let e = parse_scenario(&file, Path::new("f.yaml"))
        .unwrap_err()
        .to_string();
    assert_eq!(e, "f.yaml:11:18: shapes.grain: missing field `mesh`");
    let unnamed = format!(
        "version: 1\n{}",
        SECTION
            .replace("{ tree: grain }", "{ mesh: a, tree: b }")
            .replace("tree: floor,", "mesh: c, tree: d,")
    );
    let e = parse_scenario(&unnamed, Path::new("f.yaml"))
        .unwrap_err()
        .to_string();
    assert_eq!(e, "f.yaml:1:1: missing field `name`");
}

#[test]
fn bins_broadphase_reads_back_as_written() {
    for spec in [
        BroadPhaseSpec::Bins { bin_size: None },
        BroadPhaseSpec::Bins {
            bin_size: Some(0.25),
        },
    ] {
        let text = serde_norway::to_string(&spec).unwrap();
        let back: BroadPhaseSpec = serde_norway::from_str(&text).unwrap();
        assert_eq!(back, spec, "{text}");
    }
    assert_eq!(
        serde_norway::to_string(&BroadPhaseSpec::Bins { bin_size: None })
            .unwrap()
            .trim(),
        "bins"
    );
}
