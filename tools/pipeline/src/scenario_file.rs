//! The solver's `scenario.yaml`, written from the inline scenario of a pipeline: version and
//! name from the pipeline, each shape's and obstacle's tree turned into the mesh and tree
//! file paths relative to the output folder (the scenario file's folder).

use serde::Serialize;

use crate::names::{Name, NamedMap};
use crate::scenario::{
    Broadphase, DetectionSpec, GeneratorSpec, Integrator, MaterialSpec, ParticleSpec, PicardSpec,
    ScenarioSpec, TimeSpec,
};

/// A shape as written to `scenario.yaml`.
#[derive(Serialize)]
struct ShapeFile {
    mesh: String,
    tree: String,
}

/// Named entries serialized as a mapping, in order.
struct Entries<'a, T>(Vec<(&'a Name, T)>);

impl<T: Serialize> Serialize for Entries<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(n, t)| (n, t)))
    }
}

/// An obstacle as written to `scenario.yaml`.
#[derive(Serialize)]
struct ObstacleFile<'a> {
    name: &'a Name,
    mesh: String,
    tree: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    epsilon: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    friction: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    restitution: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    translation: Option<[f64; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rotation: Option<[f64; 4]>,
}

/// The solver's scenario file, field order as in its schema.
#[derive(Serialize)]
struct ScenarioFile<'a> {
    version: u32,
    name: &'a Name,
    time: &'a TimeSpec,
    #[serde(skip_serializing_if = "Option::is_none")]
    gravity: Option<[f64; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    integrator: Option<Integrator>,
    #[serde(skip_serializing_if = "Option::is_none")]
    picard: Option<&'a PicardSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detection: Option<&'a DetectionSpec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    broadphase: Option<&'a Broadphase>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    materials: &'a NamedMap<MaterialSpec>,
    shapes: Entries<'a, ShapeFile>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    obstacles: Vec<ObstacleFile<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    particles: &'a Vec<ParticleSpec>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    generators: &'a Vec<GeneratorSpec>,
}

/// Version of the solver's scenario schema written by [`scenario_yaml`].
pub const SCENARIO_VERSION: u32 = 1;

/// The YAML text of the solver scenario for pipeline `name`. `tree_files(tree)` gives the
/// (mesh, tree) paths, relative to the scenario file, of a tree of the pipeline.
pub fn scenario_yaml(
    name: &Name,
    spec: &ScenarioSpec,
    tree_files: impl Fn(&str) -> (String, String),
) -> Result<String, serde_norway::Error> {
    let shape_file = |tree: &str| {
        let (mesh, tree) = tree_files(tree);
        ShapeFile { mesh, tree }
    };
    let file = ScenarioFile {
        version: SCENARIO_VERSION,
        name,
        time: &spec.time,
        gravity: spec.gravity,
        integrator: spec.integrator,
        picard: spec.picard.as_ref(),
        detection: spec.detection.as_ref(),
        broadphase: spec.broadphase.as_ref(),
        seed: spec.seed,
        materials: &spec.materials,
        shapes: Entries(
            spec.shapes
                .iter()
                .map(|(n, s)| (n, shape_file(s.tree.as_str())))
                .collect(),
        ),
        obstacles: spec
            .obstacles
            .iter()
            .map(|o| {
                let ShapeFile { mesh, tree } = shape_file(o.tree.as_str());
                ObstacleFile {
                    name: &o.name,
                    mesh,
                    tree,
                    epsilon: o.epsilon,
                    friction: o.friction,
                    restitution: o.restitution,
                    translation: o.translation,
                    rotation: o.rotation,
                }
            })
            .collect(),
        particles: &spec.particles,
        generators: &spec.generators,
    };
    serde_norway::to_string(&file)
}
