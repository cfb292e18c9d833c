//! A solver scenario from a pipeline file (`pipelines/*.yaml`) without running the
//! pipeline (used by `examples/implicit_vs_explicit.rs` via `#[path]`): the `meshes:` are
//! generated with [`MeshGenerator`], the `trees:` built with [`run_treebuild`] into a cache
//! folder (a tree whose mesh and parameters did not change is kept), and the `scenario:`
//! section is written next to them with the shapes' and obstacles' `tree:` names replaced
//! by the file paths, as the pipeline's solver stage does.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use msdem_mesh::generate::MeshGenerator;
use msdem_solver::scenario::{load_scenario, Scenario};
use msdem_tree::{run_treebuild, BuildParams, TreebuildJob};
use serde_norway::{Mapping, Value};

/// Generates the meshes and trees of the pipeline file `pipeline` under `cache` and
/// returns its solver scenario (VTK and other exports are not part of it).
pub fn scenario_from_pipeline(pipeline: &Path, cache: &Path) -> Result<Scenario> {
    let text = std::fs::read_to_string(pipeline)
        .with_context(|| format!("reading {}", pipeline.display()))?;
    let doc: Value =
        serde_norway::from_str(&text).with_context(|| format!("parsing {}", pipeline.display()))?;
    let meshes_dir = cache.join("meshes");
    let trees_dir = cache.join("trees");
    std::fs::create_dir_all(&meshes_dir)?;
    std::fs::create_dir_all(&trees_dir)?;
    let meshes = doc
        .get("meshes")
        .and_then(Value::as_mapping)
        .context("pipeline without `meshes:`")?;
    for (name, spec) in meshes {
        let name = name.as_str().context("mesh name")?;
        let generator: MeshGenerator =
            serde_norway::from_value(spec.clone()).with_context(|| format!("meshes.{name}"))?;
        let path = meshes_dir.join(format!("{name}.ply"));
        let mesh = generator.generate()?;
        msdem_mesh::write_validated(&path, &mesh, generator.role())?;
    }
    let trees = doc
        .get("trees")
        .and_then(Value::as_mapping)
        .context("pipeline without `trees:`")?;
    let mut files = std::collections::BTreeMap::new();
    for (name, spec) in trees {
        let name = name.as_str().context("tree name")?.to_owned();
        let mesh = spec
            .get("mesh")
            .and_then(Value::as_str)
            .context("tree without mesh")?;
        let obstacle = spec
            .get("obstacle")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let job = TreebuildJob {
            mesh: meshes_dir.join(format!("{mesh}.ply")),
            out: trees_dir.join(format!("{name}.tree")),
            params: BuildParams::default(),
            obstacle,
            progress: false,
        };
        run_treebuild(&job).with_context(|| format!("building tree {name}"))?;
        let tree_file = format!("trees/{name}.tree");
        files.insert(name, (format!("meshes/{mesh}.ply"), tree_file));
    }
    let mut scenario = doc
        .get("scenario")
        .and_then(Value::as_mapping)
        .cloned()
        .context("pipeline without `scenario:`")?;
    let files_of = |entry: &mut Mapping| -> Result<()> {
        let tree = entry
            .get("tree")
            .and_then(Value::as_str)
            .context("entry without tree")?
            .to_owned();
        let Some((mesh, tree_file)) = files.get(&tree) else {
            bail!("unknown tree {tree}");
        };
        entry.insert("mesh".into(), mesh.clone().into());
        entry.insert("tree".into(), tree_file.clone().into());
        Ok(())
    };
    if let Some(Value::Mapping(shapes)) = scenario.get_mut("shapes") {
        for (_, shape) in shapes.iter_mut() {
            files_of(shape.as_mapping_mut().context("shape")?)?;
        }
    }
    if let Some(Value::Sequence(obstacles)) = scenario.get_mut("obstacles") {
        for obstacle in obstacles.iter_mut() {
            files_of(obstacle.as_mapping_mut().context("obstacle")?)?;
        }
    }
    let mut out = Mapping::new();
    out.insert("version".into(), 1.into());
    out.insert(
        "name".into(),
        doc.get("name").cloned().unwrap_or_else(|| "scene".into()),
    );
    for (k, v) in scenario {
        out.insert(k, v);
    }
    let file: PathBuf = cache.join("scenario.yaml");
    std::fs::write(&file, serde_norway::to_string(&Value::Mapping(out))?)?;
    Ok(load_scenario(&file)?)
}
