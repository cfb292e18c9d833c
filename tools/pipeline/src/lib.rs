//! Pipeline runner: chains `meshgen` → `treebuild` → `solver` → `export` from one YAML
//! pipeline file, skipping every stage whose inputs are unchanged.
//!
//! # Pipeline file (`version: 1`)
//!
//! ```yaml
//! version: 1                   # required, must be 1
//! name: staircase              # required; scenario name, output folder out/NAME
//! description: free text       # optional
//! meshes:                      # name → meshgen generator (docs/cli.md) or import
//!   grain: { kind: sphere, radius: 0.05, subdivisions: 2, eta: 1.3, seed: 1 }
//!   stairs: { kind: staircase, steps: 20, rise: 0.1, run: 0.2, width: 1.0 }
//!   rock: { import: ../meshes/rock.obj, units: mm, recentre: true }   # relative to the
//!                              #   pipeline file; also scale, rotate_deg, translate
//! trees:                       # name → treebuild options
//!   grain: { mesh: grain }
//!   stairs: { mesh: stairs, obstacle: true, leaf_size: 8 }
//! scenario:                    # the solver scenario (msdem_scenario) without version and
//!   time: { dt: 1.0e-4, end: 1.0, output_every: 100 }   #   name; shapes and obstacles
//!                                                       #   name trees: `{ tree: NAME }`
//!   gravity: [0, 0, -9.81]
//!   materials: { rock: { density: 2500, friction: 0.5, restitution: 0.4 } }
//!   shapes: { grain: { tree: grain } }
//!   obstacles: [ { name: stairs, tree: stairs, halo: { absolute_m: 0.005 } } ]
//!   generators: [ { drop: { shape: grain, material: rock, count: 20,
//!                           min: [0, -0.3, 0.3], max: [0.4, 0.3, 0.8] } } ]
//! export: { vtk: true, ply: true, plots: true, preview: last }   # optional; also
//!                              #   vtk_format, vtk_meshes, particle_csv, animation
//! report: { packing_box: { min_m: [-0.3, -0.3, 0], max_m: [0.3, 0.3, 0.6] } }  # optional:
//!                              #   run.log reports the packing fraction ([`packing`])
//! ```
//!
//! Unknown keys, wrong types, dangling names and every value the solver would refuse in the
//! scenario section (the schema and its checks are `msdem_scenario`'s, shared with the
//! solver) are errors `FILE:LINE:COL: message`, reported before any stage runs.
//!
//! # Output folder (`out/NAME/` by default)
//!
//! `meshes/NAME.ply`, `trees/NAME.tree`, `scenario.yaml` (paths relative to the folder),
//! `run/` (solver output: `run.msdem`, `frames/`, `stats.msdem`) with the exporter's
//! `vtk/`, `ply/`, `plots/` and `preview.png` inside it, `run.log` (see [`run_log`]) and
//! `.stamps/` (one stamp per stage, recording its outputs' sizes and hashes, see [`stamp`]
//! and [`outputs`]), `.lock` while a run holds the folder (`msdem_frames::lock`). Every key and output file:
//! `docs/reference.md`, generated from [`mod@reference`].
#![warn(missing_docs)]

pub mod error;
pub mod load;
pub mod names;
pub mod outputs;
pub mod packing;
pub mod plan;
mod process;
pub mod ranks;
pub mod reference;
mod report;
pub mod run_facts;
pub mod run_log;
pub mod runner;
pub mod spec;
pub mod stamp;

pub use error::PipelineError;
pub use load::{load_pipeline, parse_pipeline};
pub use runner::{run_pipeline, scenario_text, RunOptions, RunReport, StageReport};
pub use spec::PipelineSpec;
