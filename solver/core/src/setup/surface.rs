//! The curved surfaces of the particle shapes whose material asks for `surface: smooth`
//! (`docs/design.md` §3, *Smooth surfaces*): their vertex normals
//! ([`crate::model::smooth`]) and the mass properties of the solid the curved surface
//! bounds ([`crate::model::smooth_mass`]).

use crate::error::SolverError;
use crate::model::smooth::Surface;
use crate::model::{Geometry, Material, Shape};
use crate::scenario::Scenario;

/// Computes the curved surfaces of the mesh shapes when any material is smooth, and gives
/// each mesh shape that smooth particles use the curved solid's mass properties. A shape
/// used by particles of both surfaces is refused (its centre of mass and mass would
/// differ between them), naming a material of each.
pub fn apply(
    scenario: &Scenario,
    shapes: &mut [Shape],
    materials: &[Material],
) -> Result<(), SolverError> {
    if !materials.iter().any(|m| m.surface == Surface::Smooth) {
        return Ok(());
    }
    // Obstacles meet with their facets.
    for shape in shapes.iter_mut() {
        if let Geometry::Mesh(mesh) = &mut shape.geometry {
            *mesh = mesh.clone().with_smooth();
        }
    }
    // Per shape: a material of each surface that uses it, in scenario order.
    let mut users: Vec<[Option<&str>; 2]> = vec![[None, None]; shapes.len()];
    let uses = scenario
        .particles
        .iter()
        .map(|p| (p.shape.as_str(), p.material.as_str()))
        .chain(
            scenario
                .generators
                .iter()
                .map(|g| (g.shape(), g.material())),
        );
    for (shape, material) in uses {
        let (Some(s), Some(m)) = (
            shapes.iter().position(|x| x.name == shape),
            materials.iter().find(|x| x.name == material),
        ) else {
            continue;
        };
        let slot = usize::from(m.surface == Surface::Smooth);
        users[s][slot].get_or_insert(&m.name);
    }
    for (shape, [facets, smooth]) in shapes.iter_mut().zip(users) {
        let Some(smooth) = smooth else { continue };
        if shape.geometry.mesh().is_none() {
            continue;
        }
        if let Some(facets) = facets {
            return Err(SolverError::Setup {
                file: scenario.file.clone(),
                context: format!("shapes.{}", shape.name),
                message: format!(
                    "used by material `{smooth}` (surface: smooth) and `{facets}` (surface: facets), whose particles differ in mass and centre of mass; give the smooth particles their own shape entry (the same mesh and tree)"
                ),
            });
        }
        if shape.curved_mass().is_none()
            && shape
                .geometry
                .mesh()
                .is_some_and(|m| m.smooth.caps.is_some())
        {
            return Err(SolverError::Setup {
                file: scenario.file.clone(),
                context: format!("shapes.{}", shape.name),
                message: "the curved surface of the mesh (surface: smooth) encloses no positive finite volume".to_owned(),
            });
        }
        shape.use_curved_mass();
    }
    Ok(())
}
