//! Scenario file schema (YAML, `version: 1`). Units are SI: m, kg, s, N.
//!
//! Relative paths inside a scenario are resolved against the scenario file's folder.
//! Unknown keys are rejected; errors carry `file:line:column`.
//!
//! ```yaml
//! version: 1
//! name: particle_pair
//! time: { dt: 1.0e-4, end: 0.5, output_every: 50 }   # [s], [s], steps
//! gravity: [0.0, 0.0, -9.81]                          # [m/s²]
//! integrator: explicit                                # explicit (implicit variants later)
//! detection: { mode: hierarchy, kernel: exact }       # hierarchy | flat; exact | iterative | hybrid
//! broadphase: grid                                    # grid | all_pairs
//! seed: 1
//! materials:
//!   rock: { density: 2500.0, epsilon: 0.01, spring: 1000.0, friction: 0.5, restitution: 0.5 }
//! shapes:
//!   ball: { mesh: ../out/pair/meshes/ball.ply, tree: ../out/pair/trees/ball.tree }
//! obstacles:
//!   - { name: floor, mesh: floor.ply, tree: floor.tree, epsilon: 0.001, friction: 0.5 }
//! particles:
//!   - { shape: ball, material: rock, position: [0, 0, 0], velocity: [1, 0, 0] }
//! generators:
//!   - lattice: { shape: ball, material: rock, origin: [0,0,1], spacing: [0.1,0.1,0.1], count: [5,5,2] }
//!   - random_box: { shape: ball, material: rock, count: 20, min: [..], max: [..] }
//!   - drop: { shape: ball, material: rock, count: 20, min: [..], max: [..], velocity: [0,0,-1] }
//! ```
//!
//! The solver's scenario module owns the exact structs; this header is the contract the
//! pipeline runner and the docs rely on.
