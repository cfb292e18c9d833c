//! The stages of a pipeline: which binary runs with which command line, what it reads
//! and what it writes. Paths are relative to the output folder, where every stage runs.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::spec::{ExportSpec, MeshSpec, PipelineSpec, TreeSpec, VtkFormatKey};

/// The four kinds of stage, in pipeline order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StageKind {
    /// Stage 1: `meshgen`.
    Mesh,
    /// Stage 2: `treebuild`.
    Tree,
    /// Stage 3: `solver`.
    Solve,
    /// Stage 4: `export`.
    Export,
}

impl StageKind {
    /// Every kind, in pipeline order.
    pub const ALL: [StageKind; 4] = [Self::Mesh, Self::Tree, Self::Solve, Self::Export];

    /// The word used in messages and in `--only`.
    pub fn word(self) -> &'static str {
        match self {
            Self::Mesh => "mesh",
            Self::Tree => "tree",
            Self::Solve => "solve",
            Self::Export => "export",
        }
    }

    /// The stage binary's file name (without the platform's executable suffix).
    pub fn program(self) -> &'static str {
        match self {
            Self::Mesh => "meshgen",
            Self::Tree => "treebuild",
            Self::Solve => "solver",
            Self::Export => "export",
        }
    }

    /// Parses a `--only` word: the kind's word, its plural or its binary's name.
    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|k| word == k.word() || word == k.program() || word == format!("{}s", k.word()))
    }
}

/// One subprocess of the pipeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    /// What it is.
    pub kind: StageKind,
    /// The mesh or tree name, or the pipeline name for solve and export.
    pub name: String,
    /// Command-line arguments after the binary.
    pub args: Vec<String>,
    /// Files it reads (hashed into its stamp).
    pub inputs: Vec<PathBuf>,
    /// A folder all of whose files it reads (hashed into its stamp), if any.
    pub input_dir: Option<PathBuf>,
    /// Files or folders it must have written.
    pub outputs: Vec<PathBuf>,
    /// Files or folders whose every file its stamp records (size and SHA-256, see
    /// [`crate::outputs`]): the stage is reused only while they are unchanged.
    pub products: Vec<PathBuf>,
    /// Paths under `products` that another stage writes (the exporter's folders inside
    /// the run folder), left out of the record.
    pub product_skip: Vec<PathBuf>,
    /// `(written, final)`: the stage writes a fresh folder that replaces `final` once the
    /// stage succeeded, so a failed run leaves the previous results intact.
    pub staging: Option<(PathBuf, PathBuf)>,
    /// Earlier outputs of this stage removed before it runs, so none of them goes stale.
    pub clear: Vec<PathBuf>,
    /// Added to the stage's message when it fails (why it checks what it checks).
    pub hint: Option<String>,
    /// How a killed run of this stage is continued by `pipeline --resume`, if it can be.
    pub restart: Option<Restart>,
}

/// How `pipeline --resume` continues a stage that was killed: when one of `checkpoints`
/// exists and was written by a run of the same stage (same stamp digest, recorded before
/// it started), the stage runs with `flag` added and without clearing its earlier outputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Restart {
    /// The checkpoint files it continues from, latest first (relative to the output folder).
    pub checkpoints: Vec<PathBuf>,
    /// The argument that makes the stage binary continue (`--restart`).
    pub flag: String,
}

impl Stage {
    /// `tree grain`, as printed.
    pub fn label(&self) -> String {
        format!("{} {}", self.kind.word(), self.name)
    }

    /// The stamp file of this stage, relative to the output folder.
    pub fn stamp_path(&self) -> PathBuf {
        Path::new(STAMPS_DIR).join(format!("{}-{}.stamp", self.kind.word(), self.name))
    }
}

/// Folder of the stamp files, relative to the output folder.
pub const STAMPS_DIR: &str = ".stamps";
/// The scenario file written for the solver, relative to the output folder.
pub const SCENARIO_FILE: &str = "scenario.yaml";
/// The solver's run folder, relative to the output folder.
pub const RUN_DIR: &str = "run";
/// Where the solver writes before its folder replaces [`RUN_DIR`].
pub const RUN_STAGING_DIR: &str = "run.partial";

/// A mesh's file, relative to the output folder.
pub fn mesh_file(name: &str) -> String {
    format!("meshes/{name}.ply")
}

/// A tree's file, relative to the output folder.
pub fn tree_file(name: &str) -> String {
    format!("trees/{name}.tree")
}

fn push_opt<T: fmt::Display>(args: &mut Vec<String>, flag: &str, value: Option<T>) {
    if let Some(v) = value {
        args.push(flag.to_owned());
        args.push(v.to_string());
    }
}

/// The trees built over an imported mesh decide what `meshgen convert` checks it for, so
/// that a mesh unfit for its use is reported at its mesh stage, naming the imported file.
#[derive(Clone, Copy, Debug, PartialEq)]
enum ImportUse<'a> {
    /// No tree is built over it: only empty meshes and non-finite coordinates are refused.
    Unused,
    /// Only obstacle trees (`--obstacle`), e.g. this one.
    Obstacle(&'a str),
    /// A particle tree (`--particle`), this one.
    Particle(&'a str),
}

/// The `meshgen` stage of mesh `name`; imports are resolved against `pipeline_dir` and
/// checked for their `import_use`.
fn mesh_stage(name: &str, mesh: &MeshSpec, pipeline_dir: &Path, import_use: ImportUse) -> Stage {
    let out = mesh_file(name);
    let mut hint = None;
    let (mut args, inputs) = match mesh {
        MeshSpec::Generate(g) => (g.meshgen_args(), Vec::new()),
        MeshSpec::Import(i) => {
            let source = pipeline_dir.join(&i.import);
            let mut args = vec!["convert".to_owned(), source.display().to_string()];
            if i.fill_holes {
                args.push("--fill-holes".to_owned());
            }
            args.extend(i.transform.meshgen_args());
            match import_use {
                ImportUse::Unused => {}
                ImportUse::Obstacle(tree) => {
                    args.push("--obstacle".to_owned());
                    hint = Some(format!(
                        "checked as an obstacle: tree {tree} is built over it with `obstacle: true`"
                    ));
                }
                ImportUse::Particle(tree) => {
                    args.push("--particle".to_owned());
                    hint = Some(format!(
                        "checked as a particle: tree {tree} is built over it without `obstacle: true`"
                    ));
                }
            }
            (args, vec![source])
        }
    };
    args.extend(["-o".to_owned(), out.clone()]);
    Stage {
        kind: StageKind::Mesh,
        name: name.to_owned(),
        args,
        inputs,
        input_dir: None,
        outputs: vec![out.clone().into()],
        products: vec![out.into()],
        product_skip: Vec::new(),
        staging: None,
        clear: Vec::new(),
        hint,
        restart: None,
    }
}

/// The `treebuild` stage of tree `name`.
fn tree_stage(name: &str, tree: &TreeSpec) -> Stage {
    let mesh = mesh_file(tree.mesh.as_str());
    let out = tree_file(name);
    let mut args = vec![mesh.clone(), "-o".to_owned(), out.clone()];
    push_opt(&mut args, "--branching", tree.branching);
    push_opt(&mut args, "--leaf-size", tree.leaf_size);
    push_opt(&mut args, "--seed", tree.seed);
    push_opt(&mut args, "--fit-iterations", tree.fit_iterations);
    if tree.obstacle {
        args.push("--obstacle".to_owned());
    }
    Stage {
        kind: StageKind::Tree,
        name: name.to_owned(),
        args,
        inputs: vec![mesh.into()],
        input_dir: None,
        outputs: vec![out.clone().into()],
        products: vec![out.into()],
        product_skip: Vec::new(),
        staging: None,
        clear: Vec::new(),
        hint: None,
        restart: None,
    }
}

/// The solver stage: reads the scenario and the meshes and trees it names.
fn solve_stage(spec: &PipelineSpec) -> Stage {
    let mut inputs: Vec<PathBuf> = vec![SCENARIO_FILE.into()];
    let used_trees = spec
        .scenario
        .shapes
        .values()
        .filter_map(|s| s.mesh().map(|m| m.tree.as_str()))
        .chain(
            spec.scenario
                .obstacles
                .iter()
                .map(|o| o.geometry.tree.as_str()),
        );
    for tree in used_trees {
        let Some(t) = spec.trees.get(tree) else {
            continue;
        };
        for file in [mesh_file(t.mesh.as_str()), tree_file(tree)] {
            let file = PathBuf::from(file);
            if !inputs.contains(&file) {
                inputs.push(file);
            }
        }
    }
    let run = Path::new(RUN_DIR);
    Stage {
        kind: StageKind::Solve,
        name: spec.name.to_string(),
        args: vec![
            SCENARIO_FILE.to_owned(),
            "-o".to_owned(),
            RUN_STAGING_DIR.to_owned(),
        ],
        inputs,
        input_dir: None,
        outputs: vec![
            run.join("run.msdem"),
            run.join("stats.msdem"),
            run.join("frames"),
        ],
        // Everything the solver leaves in its folder (manifest, frames, statistics,
        // timings), not what the exporter adds to it.
        products: vec![run.to_owned()],
        product_skip: EXPORT_OUTPUTS.into_iter().map(|p| run.join(p)).collect(),
        staging: Some((RUN_STAGING_DIR.into(), RUN_DIR.into())),
        clear: vec![RUN_STAGING_DIR.into()],
        hint: None,
        // The solver's checkpoints (`msdem_frames::checkpoint_path`,
        // `previous_checkpoint_path`) in the folder it writes.
        restart: Some(Restart {
            checkpoints: vec![
                msdem_frames::checkpoint_path(Path::new(RUN_STAGING_DIR)),
                msdem_frames::previous_checkpoint_path(Path::new(RUN_STAGING_DIR)),
            ],
            flag: "--restart".to_owned(),
        }),
    }
}

/// The exporter stage: reads the run folder, writes into it. Options at their defaults add
/// no flag, so adding a key did not change existing stages' command lines.
fn export_stage(name: &str, export: &ExportSpec) -> Stage {
    let run = Path::new(RUN_DIR);
    let mut args = vec![RUN_DIR.to_owned()];
    let mut outputs = Vec::new();
    if export.vtk {
        if export.vtk_meshes {
            outputs.push(run.join("vtk").join("particles.pvd"));
        } else {
            args.push("--no-vtk-meshes".to_owned());
        }
        outputs.push(run.join("vtk").join("particles_state.pvd"));
        if export.vtk_format != VtkFormatKey::default() {
            args.extend([
                "--vtk-format".to_owned(),
                export.vtk_format.name().to_owned(),
            ]);
        }
    } else {
        args.push("--no-vtk".to_owned());
    }
    if export.particle_csv {
        args.push("--particle-csv".to_owned());
        outputs.push(run.join("csv"));
    }
    if export.ply {
        outputs.push(run.join("ply"));
    } else {
        args.push("--no-ply".to_owned());
    }
    if export.plots {
        outputs.push(run.join("plots"));
    } else {
        args.push("--no-plots".to_owned());
    }
    if export.animation {
        outputs.push(run.join("preview_animation.png"));
    } else {
        args.push("--no-animation".to_owned());
    }
    if let Some(p) = export.preview {
        args.extend(["--preview".to_owned(), p.to_string()]);
        outputs.push(run.join("preview.png"));
    }
    Stage {
        kind: StageKind::Export,
        name: name.to_owned(),
        args,
        inputs: vec![run.join("run.msdem"), run.join("stats.msdem")],
        input_dir: Some(run.join("frames")),
        staging: None,
        products: EXPORT_OUTPUTS
            .into_iter()
            .map(|p| run.join(p))
            .filter(|p| outputs.iter().any(|o| o.starts_with(p)))
            .collect(),
        product_skip: Vec::new(),
        // The exporter replaces what it writes only once everything is written (a failed
        // export leaves the previous one intact), so only outputs switched off are cleared
        // here, that none of them goes stale.
        clear: EXPORT_OUTPUTS
            .into_iter()
            .map(|p| run.join(p))
            .filter(|p| !outputs.iter().any(|o| o.starts_with(p)))
            .collect(),
        outputs,
        hint: None,
        restart: None,
    }
}

/// Everything the exporter may write in the run folder.
pub const EXPORT_OUTPUTS: [&str; 6] = [
    "vtk",
    "csv",
    "ply",
    "plots",
    "preview.png",
    "preview_animation.png",
];

/// Every stage of `spec` in execution order: meshes, trees (file order), solve, export.
/// Imported meshes are resolved against `pipeline_dir` (the pipeline file's folder).
pub fn stages(spec: &PipelineSpec, pipeline_dir: &Path) -> Vec<Stage> {
    let import_use = |mesh: &str| {
        let over = |obstacle: bool| {
            spec.trees
                .iter()
                .find(|(_, t)| t.obstacle == obstacle && t.mesh.as_str() == mesh)
                .map(|(n, _)| n.as_str())
        };
        match (over(false), over(true)) {
            (Some(tree), _) => ImportUse::Particle(tree),
            (None, Some(tree)) => ImportUse::Obstacle(tree),
            (None, None) => ImportUse::Unused,
        }
    };
    let meshes = spec
        .meshes
        .iter()
        .map(|(n, m)| mesh_stage(n.as_str(), m, pipeline_dir, import_use(n.as_str())));
    let trees = spec.trees.iter().map(|(n, t)| tree_stage(n.as_str(), t));
    meshes
        .chain(trees)
        .chain([
            solve_stage(spec),
            export_stage(spec.name.as_str(), &spec.export),
        ])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_clears_only_the_outputs_it_no_longer_writes() {
        // A failed export must not lose the previous one: what it writes, the exporter
        // replaces itself once everything is written.
        let all = export_stage("x", &ExportSpec::default());
        assert!(all
            .clear
            .iter()
            .all(|p| !all.outputs.iter().any(|o| o.starts_with(p))));
        assert_eq!(
            all.clear,
            [
                Path::new(RUN_DIR).join("csv"),
                Path::new(RUN_DIR).join("preview.png")
            ]
        );
        assert_eq!(all.args, [RUN_DIR], "defaults add no flag");
        let some = export_stage(
            "x",
            &ExportSpec {
                ply: false,
                ..ExportSpec::default()
            },
        );
        assert!(some.clear.contains(&Path::new(RUN_DIR).join("ply")));
        assert!(!some.clear.contains(&Path::new(RUN_DIR).join("vtk")));
    }
}
