//! The pipeline keys and the output folder as data, for `docs/reference.md` (see
//! `msdem_scenario::reference`; the reference test of the `tests` crate checks each
//! section's keys against the names this crate's parser accepts).

use msdem_scenario::reference::{key as k, KeyDoc};

const SPHERE: &str = "meshes.<name> (kind: sphere)";
const ELLIPSOID: &str = "meshes.<name> (kind: ellipsoid)";
const BOX: &str = "meshes.<name> (kind: box)";
const PLANE: &str = "meshes.<name> (kind: plane)";
const SLOPE: &str = "meshes.<name> (kind: slope)";
const HOPPER: &str = "meshes.<name> (kind: hopper)";
const STAIRCASE: &str = "meshes.<name> (kind: staircase)";
const IMPORT: &str = "meshes.<name> (import)";
const TREE: &str = "trees.<name>";

/// Every key of a pipeline file except those of its `scenario:` section
/// ([`msdem_scenario::reference::SCENARIO_KEYS`]). Mesh entries are either generated
/// (`kind:` plus that generator's keys, the parameters of `meshgen KIND`) or imported
/// (`import:` plus the transform keys).
pub const PIPELINE_KEYS: &[KeyDoc] = &[
    k("", "version", "integer", "-", "required", "1", "format version, checked first"),
    k("", "name", "string", "-", "required", "1 – 64 ASCII letters, digits, `_`, `-`, starting with a letter or digit", "pipeline and scenario name; output folder out/NAME"),
    k("", "description", "string", "-", "none", "", "free text"),
    k("", "meshes", "mapping name → mesh", "-", "required", "", "meshes to generate or import (stage 1, meshgen), written to meshes/NAME.ply"),
    k("", "trees", "mapping name → tree", "-", "required", "", "surrogate trees to build (stage 2, treebuild), written to trees/NAME.tree"),
    k("", "scenario", "mapping", "-", "required", "the scenario keys below, without version and name", "the solver scenario (stage 3); shapes and obstacles name a tree: `{ tree: NAME }`"),
    k("", "export", "mapping", "-", "all defaults", "", "exporter options (stage 4)"),
    k("", "report", "mapping", "-", "none", "", "quantities of the run's outcome written to run.log"),
    k(SPHERE, "radius", "number", "m", "required", "> 0", "base radius r of the noisy icosphere (seed 000 §6.1)"),
    k(SPHERE, "subdivisions", "integer", "-", "required", "1 – 8", "icosphere subdivisions K: 20·4^K triangles"),
    k(SPHERE, "eta", "number", "-", "1", "≥ 1", "radius ratio η: vertex radius in [r, η·r] (1 = exact triangulated sphere)"),
    k(SPHERE, "seed", "integer", "-", "0", "0 – 4294967295", "Perlin noise seed"),
    k(SPHERE, "octaves", "integer", "-", "4", "1 – 16", "Perlin octaves"),
    k(SPHERE, "stretch", "number", "-", "1", "> 0", "scale factor along x afterwards (elongated sphere)"),
    k(ELLIPSOID, "radii", "[a, b, c]", "m", "required", "each > 0", "semi-axes (icosphere scaled)"),
    k(ELLIPSOID, "subdivisions", "integer", "-", "required", "1 – 8", "icosphere subdivisions"),
    k(BOX, "size", "[x, y, z]", "m", "required", "each > 0", "edge lengths, centred at the origin"),
    k(BOX, "subdivisions", "integer", "-", "1", "1 – 912", "quads per face edge"),
    k(PLANE, "size", "[x, y]", "m", "required", "each > 0", "extent of the horizontal plane (normal +z)"),
    k(PLANE, "subdivisions", "integer", "-", "1", "1 – 2236", "quads per edge"),
    k(PLANE, "center", "[x, y, z]", "m", "[0, 0, 0]", "finite", "centre"),
    k(SLOPE, "size", "[x, y]", "m", "required", "each > 0", "extent of the plane"),
    k(SLOPE, "angle", "number", "degree", "required", "[0, 90)", "tilt about x, descending towards +y"),
    k(SLOPE, "center", "[x, y, z]", "m", "[0, 0, 0]", "finite", "centre"),
    k(HOPPER, "top_width", "number", "m", "required", "> outlet_width", "width at the top"),
    k(HOPPER, "outlet_width", "number", "m", "required", "> 0", "width of the outlet"),
    k(HOPPER, "height", "number", "m", "required", "> 0", "height of the funnel"),
    k(HOPPER, "outlet", "string", "-", "square", "square, round", "four trapezoid walls or `segments` wall quads"),
    k(HOPPER, "segments", "integer", "-", "32", "3 – 100000", "wall quads of a round hopper"),
    k(HOPPER, "center", "[x, y, z]", "m", "[0, 0, 0]", "finite", "centre of the outlet"),
    k(STAIRCASE, "steps", "integer", "-", "20", "1 – 100000", "number of steps, descending along +x"),
    k(STAIRCASE, "rise", "number", "m", "required", "> 0", "height of one step"),
    k(STAIRCASE, "run", "number", "m", "required", "> 0", "depth of one tread"),
    k(STAIRCASE, "width", "number", "m", "required", "> 0", "width across y"),
    k(STAIRCASE, "origin", "[x, y, z]", "m", "[0, 0, 0]", "finite", "back edge of the first tread"),
    k(IMPORT, "import", "path", "-", "required", ".obj, .stl or .ply; must exist", "the mesh file, relative to the pipeline file"),
    k(IMPORT, "units", "string", "-", "m", "mm, cm, m", "the file's unit: coordinates divided by 1000, 100 or 1 (applied 1st)"),
    k(IMPORT, "scale", "number", "-", "1", "> 0, finite", "coordinates multiplied (2nd)"),
    k(IMPORT, "rotate_deg", "[x, y, z]", "degree", "none", "finite", "rotation about the fixed x, then y, then z axis, about the origin (3rd)"),
    k(IMPORT, "recentre", "bool", "-", "false", "", "centre of mass (uniform density) moved to the origin; needs a closed, outward mesh (4th)"),
    k(IMPORT, "translate", "[x, y, z]", "m", "none", "finite", "added last (5th)"),
    k(IMPORT, "fill_holes", "bool", "-", "false", "", "close the file's holes first, each boundary loop by a fan around its mean (`meshgen convert --fill-holes`); a boundary that is not a set of simple loops is refused"),
    k(TREE, "mesh", "string", "-", "required", "a key of `meshes`", "the mesh the tree is built over"),
    k(TREE, "obstacle", "bool", "-", "false", "", "accept an open mesh (static obstacles); a particle tree's mesh must be closed and outward"),
    k(TREE, "branching", "integer", "-", "8", "≥ 2", "children per node (seed 000 uses 8)"),
    k(TREE, "leaf_size", "integer", "-", "8", "≥ 1", "most triangles in a leaf"),
    k(TREE, "seed", "integer", "-", "0", "0 – 2⁶⁴−1", "k-means seed"),
    k(TREE, "fit_iterations", "integer", "-", "100", "≥ 1", "iterations of the surrogate fit, eq. (6)"),
    k("export", "vtk", "bool", "-", "true", "", "VTK series for ParaView (run/vtk/); false = `--no-vtk`"),
    k("export", "vtk_format", "string", "-", "compressed", "compressed, raw, base64, ascii", "encoding of the .vtp files (`--vtk-format`): zlib appended binary, raw appended binary, inline base64, inline text"),
    k("export", "vtk_meshes", "bool", "-", "true", "", "posed particle meshes of every frame (particles.pvd); false = `--no-vtk-meshes` (ParaView glyphs the shapes)"),
    k("export", "particle_csv", "bool", "-", "false", "", "particle states of every frame as run/csv/particles_NNNNNN.csv (`--particle-csv`)"),
    k("export", "ply", "bool", "-", "true", "", "one PLY per frame (run/ply/); false = `--no-ply`"),
    k("export", "plots", "bool", "-", "true", "", "statistics plots and steps.csv (run/plots/); false = `--no-plots`"),
    k("export", "animation", "bool", "-", "true", "", "animated preview run/preview_animation.png; false = `--no-animation`"),
    k("report", "packing_box", "mapping", "-", "none", "", "box of a settled bed: run.log reports its packing fractions at the last frame: the solid volume of the particles centred in the box over the box volume below the bed height (the highest particle top), and the same for the lower half of the bed (exact ellipsoid volumes below the cut)"),
    k("report.packing_box", "min_m", "[x, y, z]", "m", "required", "finite, < max_m", "lower corner; its z is the floor of the bed"),
    k("report.packing_box", "max_m", "[x, y, z]", "m", "required", "finite", "upper corner (caps the bed height)"),
    k("export", "preview", "string or integer", "-", "none (the exporter shows the last frame)", "last, or a frame index", "frame shown in run/preview.png (`--preview`)"),
];

/// One file or folder of the output folder `out/NAME/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputDoc {
    /// Path relative to the output folder.
    pub path: &'static str,
    /// The stage that writes it.
    pub stage: &'static str,
    /// Byte-identical across runs and thread counts (`yes`), or why not.
    pub deterministic: &'static str,
    /// What it holds, with units.
    pub content: &'static str,
}

const fn o(
    path: &'static str,
    stage: &'static str,
    deterministic: &'static str,
    content: &'static str,
) -> OutputDoc {
    OutputDoc {
        path,
        stage,
        deterministic,
        content,
    }
}

/// Every file and folder a pipeline writes into `out/NAME/`.
pub const OUTPUT_FILES: &[OutputDoc] = &[
    o("meshes/NAME.ply", "mesh", "yes", "generated or imported mesh, binary PLY, metres"),
    o("trees/NAME.tree", "tree", "yes", "surrogate tree, versioned binary (solver/tree/src/format.rs)"),
    o("scenario.yaml", "pipeline", "yes", "the scenario the solver runs, paths relative to out/NAME/"),
    o("run/run.msdem", "solve", "yes", "manifest: shapes, obstacles, particles (mass kg, bounding radius m, inertia kg·m²), dt s, output interval"),
    o("run/frames/frame_NNNNNN.msdem", "solve", "yes", "one frame: step, time s, body states (m, m/s, rad/s), contacts (m, N), loads (N, N·m)"),
    o("run/stats.msdem", "solve", "yes", "per-step statistics: contacts, checks per level, energies J, momenta, Picard iterations"),
    o("run/timings.msdem", "solve", "no: wall-clock times", "wall time per step and phase (broad, narrow, forces, integration) s"),
    o("run/vtk/*.pvd, *.vtp", "export", "yes", "ParaView series, arrays below"),
    o("run/vtk/open_in_paraview.py", "export", "yes", "opens the series in ParaView (pvpython/pvbatch, `--screenshot`)"),
    o("run/csv/particles_NNNNNN.csv", "export (`particle_csv: true`)", "yes", "particle states per frame; units in the column names"),
    o("run/ply/frame_NNNNNN.ply, obstacles.ply", "export", "yes", "posed particle meshes per frame, obstacles once (metres)"),
    o("run/plots/*.png, dashboard.png", "export", "yes", "statistics plots (900 × 560 px), all of them in dashboard.png"),
    o("run/plots/steps.csv", "export", "yes", "every step's statistics (columns in tools/export/src/steps_csv.rs)"),
    o("run/preview.png", "export", "yes", "one frame rendered without ParaView, 1024 × 768"),
    o("run/preview_animation.png", "export", "yes", "animated PNG of the whole run, ≤ 100 frames, 640 × 480"),
    o("run.log", "pipeline", "no: times and dates", "text: command, versions, pipeline hash, parameters, stage selection (with `--ranks N`), stages (ran or reused, seconds), solver counts and phase breakdown, warnings"),
    o(".stamps/KIND-NAME.stamp", "pipeline", "yes (solve's: no, it records timings.msdem)", "SHA-256 of a stage's inputs, command line and binary, and the path, size and SHA-256 of every file the stage made: the stage is skipped while both match (`pipeline --ranks N` is not part of it: the results are the same on any number of ranks)"),
    o(".stamps/KIND-NAME.warnings", "pipeline", "yes", "the warnings a stage printed, repeated in run.log when the stage is reused"),
    o(".stamps/solve-NAME.started", "pipeline", "yes", "the solve stage's stamp digest, written before the solver starts, removed when it succeeded; a killed run leaves it beside `run.partial/` (the folder the solver writes, swapped in as run/ when it succeeded) and its checkpoints: `pipeline --resume` continues only a checkpoint of this digest"),
];

/// The output-folder table in Markdown.
pub fn output_table() -> String {
    let mut out = String::from("| path | written by | byte-identical | content (units) |\n");
    out.push_str("|---|---|---|---|\n");
    for f in OUTPUT_FILES {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            f.path, f.stage, f.deterministic, f.content
        ));
    }
    out
}
