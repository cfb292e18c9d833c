//! The scenario keys as data: one [`KeyDoc`] per key with its type, unit, default and
//! allowed range — the source of `docs/reference.md` (written by the reference test of
//! the `tests` crate, which also checks every section's keys against the names the parser
//! accepts, so the table and the schema cannot drift apart).

/// One key of a YAML schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyDoc {
    /// Where the key lives: `""` for the top level, `time`, `materials.<name>`,
    /// `obstacles[]`, `generators[].drop`, …
    pub section: &'static str,
    /// The key.
    pub key: &'static str,
    /// Its YAML type: `number`, `integer`, `bool`, `string`, `[x, y, z]`, `mapping`, …
    pub ty: &'static str,
    /// SI unit, `-` for none.
    pub unit: &'static str,
    /// Default when left out, or `required`.
    pub default: &'static str,
    /// Allowed values.
    pub range: &'static str,
    /// What it does.
    pub meaning: &'static str,
}

/// A [`KeyDoc`] from its columns in table order (section, key, type, unit, default, range,
/// meaning); the tables of this and the other crates are lists of such calls.
pub const fn key(
    section: &'static str,
    key: &'static str,
    ty: &'static str,
    unit: &'static str,
    default: &'static str,
    range: &'static str,
    meaning: &'static str,
) -> KeyDoc {
    KeyDoc {
        section,
        key,
        ty,
        unit,
        default,
        range,
        meaning,
    }
}

use self::key as k;

const MATERIAL: &str = "materials.<name>";
const MATERIAL_HALO: &str = "materials.<name>.halo";
const MATERIAL_PAIR: &str = "material_pairs[]";
const SHAPE: &str = "shapes.<name>";
const OBSTACLE: &str = "obstacles[]";
const PARTICLE: &str = "particles[]";
const LATTICE: &str = "generators[].lattice";
const RANDOM_BOX: &str = "generators[].random_box";
const DROP: &str = "generators[].drop";
const PAIRS: &str = "generators[].pairs";
const STACK: &str = "generators[].stack";
const RING: &str = "generators[].ring";

/// Every key of a scenario file (`version: 1`). In a pipeline's `scenario:` section the
/// same keys apply except `version` and `name` (the pipeline's) and the shapes' and
/// obstacles' `mesh` (the tree's mesh is used): `tree` names a tree of the pipeline.
pub const SCENARIO_KEYS: &[KeyDoc] = &[
    k("", "version", "integer", "-", "required", "1", "format version, checked first"),
    k("", "name", "string", "-", "required", "", "scenario name (written into the run)"),
    k("", "time", "mapping", "-", "required", "", "time stepping and output"),
    k("", "gravity", "[x, y, z]", "m/s²", "[0, 0, 0]", "finite", "gravitational acceleration"),
    k("", "integrator", "string", "-", "explicit", "explicit, implicit_flat, implicit_surrogate, implicit_multiscale, local_time_stepping, global_adaptive", "explicit Euler (seed 000 Alg. 1); implicit Euler with Picard iterations: flat detection in every iteration (Alg. 3), tree descent from the roots (§5.2), or active sets unfolded one level per iteration (Alg. 6); or local time stepping with clusters and sequential impulses (seed 004), `global_adaptive` being the same code with one global step (seed 004 §8)"),
    k("", "lts", "mapping", "-", "defaults below", "not with the implicit integrators", "settings of the local time stepping integrators (validated, ignored by `explicit`)"),
    k("", "picard", "mapping", "-", "defaults below", "", "Picard settings of the implicit integrators (validated, ignored by `explicit`)"),
    k("", "detection", "mapping", "-", "defaults below", "", "contact detection options"),
    k("", "broadphase", "string or mapping", "-", "hgrid", "hgrid (alias grid), linked_cells, bins, all_pairs, or a mapping with `kind`", "broad-phase algorithm (seed 001; bins: seed 002 §4); every choice gives the same contacts"),
    k("", "seed", "integer", "-", "0", "0 – 2⁶⁴−1", "seed of the generators' random placement and orientations"),
    k("", "materials", "mapping name → material", "-", "required", "at least one", "materials by name"),
    k("", "material_pairs", "list of mappings", "-", "[] (default rule)", "each pair at most once, in either order", "contact values of a pair of materials, replacing the default rule (means of e, μ, μ_r; E* from both moduli), as LIGGGHTS' per-type-pair coefficients"),
    k("", "shapes", "mapping name → shape", "-", "required", "at least one", "particle shapes by name"),
    k("", "obstacles", "list", "-", "[]", "", "static bodies"),
    k("", "particles", "list", "-", "[]", "", "explicitly placed particles"),
    k("", "generators", "list", "-", "[]", "", "particle generators, each `{ KIND: {…} }`"),
    k("", "limits", "mapping", "-", "defaults below", "", "caps checked before anything is allocated"),
    k("", "checkpoint", "mapping", "-", "defaults below", "", "when the solver writes a checkpoint to resume a killed run from (`solver --restart`, `pipeline --resume`); the solver's flags override it"),
    k("", "distributed", "mapping", "-", "defaults below", "", "settings of runs over several MPI ranks (`mpirun -np N solver …`, a build with the `mpi` feature); ignored by a run on one process"),
    k("time", "dt", "number", "s", "required", "> 0", "time step (of the local time stepping integrators too, unless `lts.interval_s` is given)"),
    k("time", "end", "number", "s", "required", "> 0", "end time; steps = end/dt rounded up (within 10⁻⁹ of a whole number: that number)"),
    k("time", "output_every", "integer", "steps", "required", "≥ 1", "steps of `time.dt` between two frames (frame 0 is the initial state)"),
    k("lts", "interval_s", "number", "s", "time.dt", "> 0; time.output_every × time.dt a whole number of intervals", "synchronisation interval of the local time stepping integrators: clusters never step past it, frames are written at synchronised times; `time.dt` stays the step of `explicit`, and `time.output_every` counts steps of `time.dt`, so one `integrator:` line switches a scene"),
    k("lts", "min_step_s", "number", "s", "1e-9", "> 0", "floor of a cluster's time step: a cluster below it stops the run with an error naming its particles and the time"),
    k("lts", "max_sweeps_per_interval", "integer", "-", "100000", "≥ 1", "most sweeps per synchronisation interval (`lts.interval_s`) before the run stops"),
    k("lts", "span_memory", "number", "-", "0.5", "[0, 1]", "C of seed 004 eq. (3): a particle's admissible span is C·dt + (1 − C)·(its last step)"),
    k("lts", "impulse", "mapping", "-", "solver defaults", "", "sequential-impulse collision solver (seed 004 §6)"),
    k("lts.impulse", "max_iterations", "integer", "-", "200", "≥ 1", "most Picard sweeps over a cluster's contact points"),
    k("lts.impulse", "tolerance", "number", "-", "1e-8", "> 0", "sweeps stop when the largest impulse change, relative to the largest impulse, is below it"),
    k("lts.impulse", "relaxation", "number", "-", "0.9", "(0, 1]", "under-relaxation ω of the impulse updates"),
    k("lts.impulse", "separation_fraction", "number", "-", "0.2", "[0, 1]", "fraction of the excess halo violation removed per collision by moving positions (velocities unchanged)"),
    k("lts.impulse", "fallback_iterations", "integer", "-", "20000", "≥ 0", "most steps of the fallback for collisions the sweeps and direct solves leave unconverged: the convex relaxation of the Coulomb problem (cone complementarity) by accelerated projected gradients; 0 switches it off"),
    k("picard", "tolerance", "number", "-", "0.01", "> 0", "relative force/torque update below which the iterations stop"),
    k("picard", "max_iterations", "integer", "-", "50", "≥ 1", "iterations per step; a step that runs out is retried with smaller steps or stops the run (`on_no_convergence`)"),
    k("picard", "relaxation", "number", "-", "1.0", "[min_relaxation, max_relaxation]", "initial relaxation factor ω"),
    k("picard", "min_relaxation", "number", "-", "0.01", "> 0, ≤ max_relaxation", "smallest adaptive ω"),
    k("picard", "max_relaxation", "number", "-", "1.5", "> 0, < 2", "largest adaptive ω"),
    k("picard", "force_floor", "number", "-", "0.001", "≥ 0", "absolute floor of the convergence test, × K_s·√M + M·|g|"),
    k("picard", "coarse_force_damping", "number", "-", "0.5", "[0, 1]", "multiscale: factor on forces from surrogate levels"),
    k("picard", "keep_active_sets", "bool", "-", "true", "", "multiscale: keep active sets from step to step"),
    k("picard", "local_updates", "bool", "-", "true", "", "particles within tolerance/2 keep their wrench; multiscale re-detects only pairs that moved"),
    k("picard", "scheme", "string", "-", "euler", "euler, midpoint, theta, split", "time discretisation: implicit Euler (first order, damps contact oscillations the step does not resolve), the implicit midpoint rule (second order, keeps more of the contact law's restitution at large steps), the θ-method with θ = `theta` (first order, between the two), or split: the midpoint rule for the springs and implicit Euler for the dashpot and friction (an impact lasting one or two steps keeps about the law's restitution at any step; use with `acceleration: linearised`)"),
    k("picard", "theta", "number", "-", "0.55", "(0.5, 1]", "implicitness θ of `scheme: theta` (forces at x + θ·(x' − x), positions with (1 − θ)·v + θ·v'; ½ would be the midpoint rule, 1 implicit Euler); refused with any other scheme"),
    k("picard", "acceleration", "string", "-", "aitken", "aitken, newton, piecewise_linear, linearised", "wrench update between iterations: the relaxed fixed point with adaptive Aitken ω (seed 000 §6.1), a damped Newton step with the linearised contact law (normal stiffness and damping of every contact, forces and torques, conjugate gradients over the contact graph; fewer iterations for isolated stiff impacts, more on dense scenes), or an active-set Newton step on a piecewise-linear contact model (every contact seen in the step may open or close within the update, backtracking on the residual; one process only), or contacts linearised once per step (detected at the start, gaps carried linearly, the step solved without narrow phase, checked against the detection at the end state, the midpoint rule with an energy-consistent spring; one process only)"),
    k("picard", "on_no_convergence", "string", "-", "substep", "substep, stop", "a step that uses up max_iterations: retried from its start as two steps of Δt/2 (recursively, counted in `substeps`), or the run stops naming the step and its residual"),
    k("picard", "max_substep_levels", "integer", "-", "4", "≤ 20", "most halvings of Δt for one step; a step still not converged then stops the run"),
    k("detection", "mode", "string", "-", "hierarchy", "hierarchy, flat", "explicit only: tree traversal (seed 000 Alg. 5) or every real triangle pair; refused where it contradicts an implicit variant"),
    k("detection", "kernel", "string", "-", "exact", "exact, hybrid", "triangle–triangle distance: comparison-based exact, or iterative with exact fallback (seed 000 Alg. 4)"),
    k("detection", "kept_sets", "bool", "-", "true", "", "explicit hierarchy: keep each pair's active set from step to step (same contacts, less work)"),
    k("detection", "contact_points", "string", "-", "patches with explicit, seed with the others", "seed, patches", "mesh–mesh contact points: surface patches integrating the halo overlap, whose force does not depend on the triangulation (docs/design.md §3), or the fine triangle pairs' closest points merged within the halo (seed 000 §2)"),
    k("broadphase", "kind", "string", "-", "required in a mapping", "hgrid, grid, linked_cells, bins, all_pairs", "the algorithm; the other keys must belong to it"),
    k("broadphase", "levels", "integer", "-", "from the cost model (seed 001 eq. 27)", "1 – 16", "hgrid: number of levels"),
    k("broadphase", "cell_sizes", "list of numbers", "m", "automatic (seed 001 §5.2.3)", "> 0, strictly increasing", "hgrid: cell size per level; must hold every particle's bounding diameter (incl. halo and skin)"),
    k("broadphase", "cell_size", "number", "m", "largest bounding diameter, per rebuild", "> 0", "linked_cells: cell size"),
    k("broadphase", "bin_size", "number", "m", "from the bounding radii, per rebuild", "> 0", "bins: bin size"),
    k("broadphase", "skin", "number", "m", "0.1 × smallest bounding diameter (incl. halo); 0 with given cells", "≥ 0", "hgrid, linked_cells: Verlet skin; candidate pairs are reused until a particle moved skin/2"),
    k(MATERIAL, "density", "number", "kg/m³", "required", "> 0", "mass density"),
    k(MATERIAL, "halo", "mapping, one key", "-", "{ relative: 0.01 }", "`relative` or `absolute_m`", "contact halo width of its particles (replaces `epsilon`, which is refused)"),
    k(MATERIAL, "spring", "number", "N·kg^-1/2", "1000", "> 0", "spring constant K_s of the contact law"),
    k(MATERIAL, "friction", "number", "-", "0", "≥ 0", "Coulomb friction coefficient μ"),
    k(MATERIAL, "restitution", "number", "-", "1", "(0, 1]", "coefficient of restitution; 1 = undamped; below ≈ 0.11 the solver warns (lowest reachable)"),
    k(MATERIAL, "contact_law", "string", "-", "seed", "`seed` or `hertz_mindlin`", "contact law: the seed's fade-in spring, or Hertz–Mindlin (4/3·E*·sqrt(R*)·δ^{3/2}, overlap measured in the halo); a pair meets under Hertz–Mindlin when either material uses it (a seed material is then rigid, E = ∞)"),
    k(MATERIAL, "youngs_modulus_pa", "number", "Pa", "required for hertz_mindlin", "> 0", "Young's modulus E (hertz_mindlin only)"),
    k(MATERIAL, "poisson_ratio", "number", "-", "required for hertz_mindlin", "(-1, 0.5)", "Poisson's ratio ν (hertz_mindlin only)"),
    k(MATERIAL, "rolling_friction", "number", "-", "0", "≥ 0", "rolling friction coefficient μ_r: torque μ_r·R*·F_n against the relative spin (hertz_mindlin only)"),
    k(MATERIAL, "surface", "string", "-", "facets", "`facets` or `smooth`", "contact surface: the mesh's flat facets, or the curved surface its vertex normals describe (Phong tessellation, shape factor ½; edges sharper than 30° stay creases, so flat-faced meshes are unchanged); the gap of each fine pair is measured between the curved surfaces (docs/design.md §3)"),
    k(MATERIAL_PAIR, "materials", "[a, b]", "-", "required", "two keys of `materials` (the same one twice: the material with itself)", "the pair"),
    k(MATERIAL_PAIR, "restitution", "number", "-", "mean of the two", "(0, 1]", "coefficient of restitution of the pair"),
    k(MATERIAL_PAIR, "friction", "number", "-", "mean of the two", "≥ 0", "Coulomb friction coefficient μ of the pair"),
    k(MATERIAL_PAIR, "rolling_friction", "number", "-", "mean over the hertz_mindlin sides", "≥ 0; needs a hertz_mindlin material in the pair", "rolling friction coefficient μ_r of the pair"),
    k(MATERIAL_HALO, "relative", "number", "- (× bounding diameter)", "0.01", "(0, 0.5]", "halo as a fraction of the particle's bounding diameter"),
    k(MATERIAL_HALO, "absolute_m", "number", "m", "-", "> 0", "halo in metres, whatever the particle's size"),
    k(SHAPE, "mesh", "path", "-", "required (scenario file)", "OBJ, STL or PLY", "the shape's closed, outward mesh, relative to the scenario file; not in a pipeline"),
    k(SHAPE, "tree", "path (scenario file) or tree name (pipeline)", "-", "required for a mesh shape", "", "the prebuilt surrogate tree of the mesh (treebuild); in a pipeline the name of a tree"),
    k(SHAPE, "ellipsoid", "mapping", "-", "-", "instead of mesh and tree", "an analytic ellipsoid shape (seed 002)"),
    k("shapes.<name>.ellipsoid", "radii", "[a, b, c]", "m", "required", "each > 0", "semi-axes along the body's x, y, z"),
    k(OBSTACLE, "name", "string", "-", "required", "unique", "obstacle name"),
    k(OBSTACLE, "mesh", "path", "-", "required (scenario file)", "OBJ, STL or PLY", "the obstacle's mesh (may be open), relative to the scenario file; not in a pipeline"),
    k(OBSTACLE, "tree", "path (scenario file) or tree name (pipeline)", "-", "required", "", "its prebuilt tree (`obstacle: true` in a pipeline)"),
    k(OBSTACLE, "halo", "mapping, one key", "-", "required", "`absolute_m` only", "contact halo width (an obstacle has no bounding diameter)"),
    k("obstacles[].halo", "absolute_m", "number", "m", "required", "> 0", "halo width in metres"),
    k(OBSTACLE, "friction", "number", "-", "0", "≥ 0", "Coulomb friction coefficient against particles"),
    k(OBSTACLE, "restitution", "number", "-", "1", "(0, 1]", "coefficient of restitution against particles"),
    k(OBSTACLE, "youngs_modulus_pa", "number", "Pa", "rigid (E = ∞)", "> 0", "Young's modulus against hertz_mindlin particles"),
    k(OBSTACLE, "poisson_ratio", "number", "-", "0", "(-1, 0.5); needs youngs_modulus_pa", "Poisson's ratio against hertz_mindlin particles"),
    k(OBSTACLE, "rolling_friction", "number", "-", "0", "≥ 0", "rolling friction coefficient μ_r against hertz_mindlin particles"),
    k(OBSTACLE, "translation", "[x, y, z]", "m", "[0, 0, 0]", "finite", "placement of the mesh in the world"),
    k(OBSTACLE, "rotation", "[w, x, y, z]", "-", "[1, 0, 0, 0]", "non-zero (normalised)", "orientation quaternion, mesh → world"),
    k(PARTICLE, "shape", "string", "-", "required", "a key of `shapes`", "the particle's shape"),
    k(PARTICLE, "material", "string", "-", "required", "a key of `materials`", "the particle's material"),
    k(PARTICLE, "position", "[x, y, z]", "m", "required", "finite", "centre of mass"),
    k(PARTICLE, "orientation", "[w, x, y, z]", "-", "[1, 0, 0, 0]", "non-zero (normalised)", "orientation quaternion, body → world"),
    k(PARTICLE, "velocity", "[x, y, z]", "m/s", "[0, 0, 0]", "finite", "initial velocity"),
    k(PARTICLE, "angular_velocity", "[x, y, z]", "rad/s", "[0, 0, 0]", "finite", "initial angular velocity (world frame)"),
    k("generators[]", "lattice", "mapping", "-", "-", "exactly one of the six keys", "particles on a regular grid"),
    k("generators[]", "random_box", "mapping", "-", "-", "exactly one of the six keys", "random non-overlapping placement in a box (bounding spheres incl. halo)"),
    k("generators[]", "drop", "mapping", "-", "-", "exactly one of the six keys", "as random_box, with a required initial velocity"),
    k(LATTICE, "shape", "string", "-", "required", "a key of `shapes`", "shape of every particle"),
    k(LATTICE, "material", "string", "-", "required", "a key of `materials`", "material of every particle"),
    k(LATTICE, "origin", "[x, y, z]", "m", "required", "finite", "centre of mass of the first particle"),
    k(LATTICE, "spacing", "[x, y, z]", "m", "required", "each > 0", "distance between neighbours along x, y, z"),
    k(LATTICE, "count", "[nx, ny, nz]", "-", "required", "each ≥ 1; product ≤ limits.max_particles", "particles along x, y, z"),
    k(LATTICE, "velocity", "[x, y, z]", "m/s", "[0, 0, 0]", "finite", "initial velocity"),
    k(LATTICE, "random_orientation", "bool", "-", "false", "", "random orientations (seeded by `seed`)"),
    k(RANDOM_BOX, "shape", "string", "-", "required", "a key of `shapes`", "shape of every particle"),
    k(RANDOM_BOX, "material", "string", "-", "required", "a key of `materials`", "material of every particle"),
    k(RANDOM_BOX, "count", "integer", "-", "required", "≥ 1; total ≤ limits.max_particles", "number of particles; placement that cannot fit them is an error"),
    k(RANDOM_BOX, "min", "[x, y, z]", "m", "required", "< max on every axis", "lower corner of the box"),
    k(RANDOM_BOX, "max", "[x, y, z]", "m", "required", "> min on every axis", "upper corner of the box"),
    k(RANDOM_BOX, "velocity", "[x, y, z]", "m/s", "[0, 0, 0]", "finite", "initial velocity"),
    k(RANDOM_BOX, "random_orientation", "bool", "-", "false", "", "random orientations (seeded by `seed`)"),
    k(DROP, "shape", "string", "-", "required", "a key of `shapes`", "shape of every particle"),
    k(DROP, "material", "string", "-", "required", "a key of `materials`", "material of every particle"),
    k(DROP, "count", "integer", "-", "required", "≥ 1; total ≤ limits.max_particles", "number of particles"),
    k(DROP, "min", "[x, y, z]", "m", "required", "< max on every axis", "lower corner of the box"),
    k(DROP, "max", "[x, y, z]", "m", "required", "> min on every axis", "upper corner of the box"),
    k(DROP, "velocity", "[x, y, z]", "m/s", "required", "finite", "initial velocity of every particle"),
    k(DROP, "random_orientation", "bool", "-", "false", "", "random orientations (seeded by `seed`)"),
    k("generators[]", "pairs", "mapping", "-", "-", "exactly one of the six keys", "particle pairs on head-on collision courses, one pair per horizontal line (seed 004 §8.1)"),
    k("generators[]", "stack", "mapping", "-", "-", "exactly one of the six keys", "slanted stacks of particles on a grid of stacks (seed 004 §8.2)"),
    k("generators[]", "ring", "mapping", "-", "-", "exactly one of the six keys", "rings of particles in layers, a tower (seed 004 §8.2)"),
    k(PAIRS, "shape", "string", "-", "required", "a key of `shapes`", "shape of every particle"),
    k(PAIRS, "material", "string", "-", "required", "a key of `materials`", "material of every particle"),
    k(PAIRS, "count", "integer", "-", "required", "≥ 1; 2·count ≤ limits.max_particles", "number of pairs"),
    k(PAIRS, "origin", "[x, y, z]", "m", "required", "finite", "midpoint of the first pair's centres"),
    k(PAIRS, "pitch_m", "number", "m", "required", "> 0", "vertical distance between consecutive pairs"),
    k(PAIRS, "separation_m", "number", "m", "required", "> 0", "initial distance between a pair's centres, along x"),
    k(PAIRS, "speed_m_s", "[min, max]", "m/s", "required", "0 < min ≤ max", "range of each particle's speed towards its partner (uniform, seeded by `seed`)"),
    k(STACK, "shape", "string", "-", "required", "a key of `shapes`", "shape of every particle"),
    k(STACK, "material", "string", "-", "required", "a key of `materials`", "material of every particle"),
    k(STACK, "count", "integer", "-", "required", "≥ 1; total ≤ limits.max_particles", "particles per stack"),
    k(STACK, "stacks", "[nx, ny]", "-", "required", "each ≥ 1", "stacks along x and y"),
    k(STACK, "origin", "[x, y, z]", "m", "required", "finite", "centre of mass of the bottom particle of the first stack"),
    k(STACK, "pitch_m", "[x, y]", "m", "required", "each > 0", "distance between neighbouring stacks along x and y"),
    k(STACK, "layer_m", "number", "m", "required", "> 0", "vertical distance between consecutive layers' centres"),
    k(STACK, "slant_m", "[first, last]", "m", "[0, 0]", "finite", "shift per layer along x of the first and the last stack of a row"),
    k(RING, "shape", "string", "-", "required", "a key of `shapes`", "shape of every particle"),
    k(RING, "material", "string", "-", "required", "a key of `materials`", "material of every particle"),
    k(RING, "count", "integer", "-", "required", "≥ 1; total ≤ limits.max_particles", "particles per ring"),
    k(RING, "layers", "integer", "-", "required", "≥ 1", "rings"),
    k(RING, "center", "[x, y, z]", "m", "required", "finite", "centre of the bottom ring (height of its centres of mass)"),
    k(RING, "radius_m", "number", "m", "required", "> 0", "radius of the circle through the centres of mass"),
    k(RING, "layer_m", "number", "m", "required", "> 0", "vertical distance between consecutive rings"),
    k(RING, "stagger", "bool", "-", "true", "", "turn every other ring by half a place"),
    k("limits", "max_particles", "integer", "-", "10000000", "≥ 1", "cap on listed plus generated particles, counted in 64 bits"),
    k("limits", "max_steps", "integer", "steps", "100000000", "≥ 1", "cap on the run length end/dt; `solver --max-steps` overrides it"),
    k("limits", "memory_bytes", "integer", "bytes", "none", "≥ 1", "cap on the solver's memory estimate (particles, shapes' meshes and trees), checked with what the machine has available before set-up"),
    k("limits", "disk_bytes", "integer", "bytes", "none", "≥ 1", "cap on the estimated output size (frames × frame size + per-step statistics), checked with the output folder's free space before the run"),
    k("checkpoint", "every_steps", "integer", "steps", "0", "≥ 0 (0: off)", "a checkpoint after every N steps; `--checkpoint-every-steps` overrides it"),
    k("checkpoint", "every_wall_s", "number", "s", "60", "finite, ≥ 0 (0: off)", "a checkpoint once this much wall time passed since the last; `--checkpoint-every-wall-s` overrides it; never changes the results"),
    k("distributed", "rebalance_imbalance", "number", "-", "1.1", "finite, ≥ 1", "the domains (recursive coordinate bisection by particle cost: triangles per particle) are recomputed after a step whose largest rank load exceeds this multiple of the mean; never changes the results"),
];

/// Markdown tables of `keys`, one per section in order of first appearance, each headed
/// by the section's path; the top level's heading is `top`.
pub fn markdown_tables(keys: &[KeyDoc], top: &str) -> String {
    let mut sections: Vec<&str> = Vec::new();
    for key in keys {
        if !sections.contains(&key.section) {
            sections.push(key.section);
        }
    }
    let mut out = String::new();
    for section in sections {
        let title = match section {
            "" => top.to_owned(),
            s => format!("`{s}`"),
        };
        out.push_str(&format!("#### {title}\n\n"));
        out.push_str("| key | type | unit | default | allowed | meaning |\n");
        out.push_str("|---|---|---|---|---|---|\n");
        for key in keys.iter().filter(|k| k.section == section) {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | {} |\n",
                key.key,
                cell(key.ty),
                cell(key.unit),
                cell(key.default),
                cell(key.range),
                cell(key.meaning)
            ));
        }
        out.push('\n');
    }
    out
}

/// A table cell: `|` escaped, empty as `-`.
fn cell(text: &str) -> String {
    if text.is_empty() {
        "-".to_owned()
    } else {
        text.replace('|', "\\|")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_documented_once_with_a_type_and_a_default() {
        for (i, a) in SCENARIO_KEYS.iter().enumerate() {
            assert!(!a.ty.is_empty() && !a.default.is_empty() && !a.meaning.is_empty());
            assert!(
                !SCENARIO_KEYS[..i]
                    .iter()
                    .any(|b| b.section == a.section && b.key == a.key),
                "{}.{} twice",
                a.section,
                a.key
            );
        }
    }

    #[test]
    fn tables_group_keys_by_section() {
        let dt = SCENARIO_KEYS
            .iter()
            .position(|k| k.section == "time" && k.key == "dt")
            .expect("time.dt documented");
        let t = markdown_tables(&SCENARIO_KEYS[..=dt], "Scenario top level");
        assert!(t.starts_with("#### Scenario top level\n\n| key |"), "{t}");
        assert!(t.contains("#### `time`\n"), "{t}");
        assert!(
            t.contains(
                "| `dt` | number | s | required | > 0 | time step (of the local time stepping \
                 integrators too, unless `lts.interval_s` is given) |\n"
            ),
            "{t}"
        );
    }
}
