//! Scenario file schema (YAML, `version: 1`). Units are SI: m, kg, s, N.
//!
//! Relative paths inside a scenario are resolved against the scenario file's folder.
//! Unknown keys are rejected; errors carry `file:line:column`.
//!
//! ```yaml
//! version: 1                       # required, must be 1
//! name: staircase                  # required
//! time:                            # required
//!   dt: 2.0e-5                     # time step [s], > 0
//!   end: 2.0                       # end time [s], > 0
//!   output_every: 500              # steps between frames, ≥ 1
//! gravity: [0.0, 0.0, -9.81]       # [m/s²], default [0, 0, 0]
//! integrator: explicit             # default explicit
//! detection:                       # optional
//!   mode: hierarchy                # hierarchy | flat (default hierarchy)
//!   kernel: exact                  # exact | hybrid (default exact)
//! broadphase: grid                 # grid | all_pairs (default grid)
//! seed: 0                          # RNG seed of the generators (default 0)
//! materials:                       # required: name → material
//!   rock:
//!     density: 2500.0              # [kg/m³] > 0
//!     epsilon: 0.01                # halo width relative to the bounding diameter (default 0.01)
//!     spring: 1000.0               # K_s [N·kg^-1/2] (default 1000)
//!     friction: 0.5                # Coulomb μ ≥ 0 (default 0)
//!     restitution: 0.5             # in (0, 1]; 1 = undamped (default 1)
//! shapes:                          # required: name → shape (instanced geometry)
//!   grain: { mesh: meshes/grain.ply, tree: trees/grain.tree }
//! obstacles:                       # optional list of static bodies
//!   - name: stairs
//!     mesh: meshes/stairs.ply
//!     tree: trees/stairs.tree
//!     epsilon: 0.002               # absolute halo [m] > 0
//!     friction: 0.5                # default 0
//!     restitution: 0.5             # default 1
//!     translation: [0.0, 0.0, 0.0] # optional [m]
//! particles:                       # optional explicit list
//!   - shape: grain
//!     material: rock
//!     position: [0.0, 0.0, 1.0]    # centre of mass [m]
//!     orientation: [1, 0, 0, 0]    # optional quaternion [w, x, y, z]
//!     velocity: [0.0, 0.0, -1.0]   # optional [m/s]
//!     angular_velocity: [0, 0, 0]  # optional [rad/s]
//! generators:                      # optional list; each item has exactly one key
//!   - lattice: { shape: grain, material: rock, origin: [0, 0, 1], spacing: [0.1, 0.1, 0.1],
//!                count: [5, 5, 2], velocity: [0, 0, 0], random_orientation: false }
//!   - random_box: { shape: grain, material: rock, count: 20, min: [0, 0, 0], max: [1, 1, 1],
//!                   random_orientation: true }
//!   - drop: { shape: grain, material: rock, count: 20, min: [0, 0, 1], max: [1, 1, 1.5],
//!             velocity: [0, 0, -1], random_orientation: true }
//! ```
//!
//! `random_box` and `drop` place particles at random non-overlapping positions (bounding
//! spheres incl. ε) inside the box with the seeded RNG; `drop` additionally gives every
//! particle the initial velocity. Placement that cannot fit `count` particles is an error.
