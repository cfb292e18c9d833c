//! Particles from the explicit list and the generators, in scenario order: first
//! `particles:`, then each generator's particles. Each body remembers where it came from
//! (`particles[3]`, `generators[1] (random_box)`) for error messages.

use msdem_geom::math::{Quat, Vec3};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::place::{self, ObstacleSoup, PlaceError, Sphere};
use crate::error::SolverError;
use crate::model::{Material, Shape};
use crate::scenario::{GeneratorSpec, Scenario};
use crate::state::Body;

/// Initial state of one particle before its mass properties are attached.
struct Init {
    shape: u32,
    material: u32,
    position: Vec3,
    orientation: Quat,
    velocity: Vec3,
    angular_velocity: Vec3,
}

/// Index of `name` in a list sorted like the scenario's `BTreeMap` keys (validated by the
/// parser, so it is present).
fn index_of<T>(items: &[T], name: &str, key: impl Fn(&T) -> &str) -> u32 {
    items.iter().position(|i| key(i) == name).unwrap_or(0) as u32
}

/// Halo width of a particle \[m\]: the material's `relative` halo × the bounding diameter,
/// or its `absolute_m` halo (docs/design.md §3).
fn halo(shape: &Shape, material: &Material) -> f64 {
    material.halo.width_m(shape.radius)
}

fn quat(q: [f64; 4]) -> Quat {
    Quat::from_quaternion(nalgebra::Quaternion::new(q[0], q[1], q[2], q[3]))
}

/// Builds every particle; returns the bodies and, per body, its scenario origin.
pub fn build_bodies(
    scenario: &Scenario,
    shapes: &[Shape],
    materials: &[Material],
    obstacles: &[ObstacleSoup],
) -> Result<(Vec<Body>, Vec<String>), SolverError> {
    let shape_ix = |n: &str| index_of(shapes, n, |s| &s.name);
    let material_ix = |n: &str| index_of(materials, n, |m| &m.name);
    let bound = |s: u32, m: u32| {
        let (s, m) = (&shapes[s as usize], &materials[m as usize]);
        s.radius + halo(s, m)
    };
    check_particle_count(scenario)?;
    let mut inits = Vec::new();
    let mut origins = Vec::new();
    let mut spheres = Vec::new();
    for (i, p) in scenario.particles.iter().enumerate() {
        let (s, m) = (shape_ix(&p.shape), material_ix(&p.material));
        let position = Vec3::from(p.position);
        spheres.push(Sphere {
            center: position,
            radius: bound(s, m),
        });
        inits.push(Init {
            shape: s,
            material: m,
            position,
            orientation: quat(p.orientation),
            velocity: Vec3::from(p.velocity),
            angular_velocity: Vec3::from(p.angular_velocity),
        });
        origins.push(format!("particles[{i}]"));
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(scenario.seed);
    for (g, gen) in scenario.generators.iter().enumerate() {
        let origin = format!("generators[{g}] ({})", gen.kind());
        if let Some(placed) = place::pattern::placements(gen, &mut rng) {
            let (s, m) = (shape_ix(gen.shape()), material_ix(gen.material()));
            let r = bound(s, m);
            for p in placed {
                spheres.push(Sphere {
                    center: p.position,
                    radius: r,
                });
                inits.push(Init {
                    shape: s,
                    material: m,
                    position: p.position,
                    orientation: p.orientation,
                    velocity: p.velocity,
                    angular_velocity: Vec3::zeros(),
                });
                origins.push(origin.clone());
            }
            continue;
        }
        let (shape, material, positions, velocity, random) = match gen {
            GeneratorSpec::Lattice(l) => {
                let (s, m) = (shape_ix(&l.shape), material_ix(&l.material));
                let pos = place::lattice_positions(l.origin, l.spacing, l.count);
                let r = bound(s, m);
                spheres.extend(pos.iter().map(|&center| Sphere { center, radius: r }));
                (s, m, pos, l.velocity, l.random_orientation)
            }
            GeneratorSpec::RandomBox(b) | GeneratorSpec::Drop(b) => {
                let (s, m) = (shape_ix(&b.shape), material_ix(&b.material));
                let r = bound(s, m);
                let pos = place::random_positions(
                    &mut rng,
                    b.count,
                    r,
                    b.min,
                    b.max,
                    &mut spheres,
                    obstacles,
                )
                .map_err(|e| placement_error(scenario, &origin, b.count, e))?;
                (s, m, pos, b.velocity, b.random_orientation)
            }
            GeneratorSpec::Pairs(_) | GeneratorSpec::Stack(_) | GeneratorSpec::Ring(_) => continue,
        };
        for position in positions {
            let orientation = if random {
                place::random_rotation(&mut rng)
            } else {
                Quat::identity()
            };
            inits.push(Init {
                shape,
                material,
                position,
                orientation,
                velocity: Vec3::from(velocity),
                angular_velocity: Vec3::zeros(),
            });
            origins.push(origin.clone());
        }
    }
    let bodies = inits
        .into_iter()
        .enumerate()
        .map(|(id, init)| make_body(scenario, shapes, materials, init, &origins[id], id))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((bodies, origins))
}

/// Refuses, before anything is allocated, a scenario with more particles than its
/// `limits.max_particles` (the loader refuses it at the count already; this covers
/// scenarios built in code). Counted in `u64`, saturating.
fn check_particle_count(scenario: &Scenario) -> Result<(), SolverError> {
    let generated = scenario.generators.iter().map(GeneratorSpec::total);
    let total = generated.fold(scenario.particles.len() as u64, u64::saturating_add);
    let cap = scenario.limits.max_particles;
    if total > cap {
        return Err(SolverError::Setup {
            file: scenario.file.clone(),
            context: "limits.max_particles".to_owned(),
            message: format!(
                "{total} particles, more than the cap of {cap} (raise `limits: {{ max_particles: N }}` for a larger run)"
            ),
        });
    }
    Ok(())
}

fn placement_error(scenario: &Scenario, origin: &str, count: u32, e: PlaceError) -> SolverError {
    let message = match e {
        PlaceError::BoxTooSmall { radius } => format!(
            "the box is too small for one particle (bounding radius incl. halo {radius:.6} m)"
        ),
        PlaceError::Crowded { placed } => format!(
            "could not place {count} particles without overlap: only {placed} fitted after {} attempts for the next one; enlarge the box or lower count",
            place::MAX_ATTEMPTS
        ),
    };
    SolverError::Setup {
        file: scenario.file.clone(),
        context: origin.to_owned(),
        message,
    }
}

/// Attaches mass properties: `m = ρ V`, `I = ρ I_unit`.
fn make_body(
    scenario: &Scenario,
    shapes: &[Shape],
    materials: &[Material],
    init: Init,
    origin: &str,
    id: usize,
) -> Result<Body, SolverError> {
    let shape = &shapes[init.shape as usize];
    let material = &materials[init.material as usize];
    let inertia = shape.unit_inertia * material.density;
    let inv_inertia = inertia.try_inverse().ok_or_else(|| SolverError::Setup {
        file: scenario.file.clone(),
        context: origin.to_owned(),
        message: format!(
            "particle {id}: singular inertia tensor of shape `{}`",
            shape.name
        ),
    })?;
    Ok(Body {
        shape: init.shape,
        material: init.material,
        mass: material.density * shape.volume,
        inertia,
        inv_inertia,
        epsilon: halo(shape, material),
        radius: shape.radius,
        position: init.position,
        orientation: init.orientation,
        velocity: init.velocity,
        angular_velocity: init.angular_velocity,
    })
}
