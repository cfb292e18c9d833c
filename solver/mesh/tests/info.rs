//! `meshgen info`'s numbers against closed forms (unit cube, a box) and, for an icosphere,
//! against its exact polyhedral values computed here independently: each signed tetrahedron
//! (origin, triangle) integrated with the 4-point rule that is exact for quadratics, instead
//! of the closed-form tetrahedron moments of `mass.rs`.
#![allow(clippy::needless_range_loop)] // index loops over x, y, z read best here

mod common;

use common::*;
use msdem_mesh::generate::{cuboid, icosphere};
use msdem_mesh::info::mesh_info;
use msdem_mesh::{SourceMap, TriMesh};

#[test]
fn unit_cube_and_box_match_closed_forms() {
    for (size, n) in [([1.0, 1.0, 1.0], 1), ([0.2, 0.7, 0.4], 3)] {
        let info = mesh_info(&cuboid(size, n).unwrap(), &SourceMap::default());
        let [a, b, c] = size;
        let v = a * b * c;
        assert_eq!(info.parts, 1);
        assert_eq!(
            info.bounds,
            Some([size.map(|s| -s / 2.0), size.map(|s| s / 2.0)])
        );
        assert!(rel(info.surface_area, 2.0 * (a * b + b * c + c * a)) < 1e-12);
        let m = info.unit_density.as_ref().unwrap();
        assert!(rel(m.volume, v) < 1e-12);
        assert!(m.com.iter().all(|x| x.abs() < 1e-14), "{:?}", m.com);
        let expected = [
            [v * (b * b + c * c) / 12.0, 0.0, 0.0],
            [0.0, v * (a * a + c * c) / 12.0, 0.0],
            [0.0, 0.0, v * (a * a + b * b) / 12.0],
        ];
        assert!(mat_rel(&m.inertia, &expected) < 1e-12, "{:?}", m.inertia);
        let half_diagonal = 0.5 * (a * a + b * b + c * c).sqrt();
        assert!(rel(m.bounding_radius, half_diagonal) < 1e-12);
    }
    let text = mesh_info(&cuboid([1.0; 3], 1).unwrap(), &SourceMap::default()).render(Some(3.0));
    for line in [
        "triangles: 12\n",
        "vertices: 8 (0 unused)\n",
        "bounding box [m]: min [-0.5, -0.5, -0.5], max [0.5, 0.5, 0.5], size [1.0, 1.0, 1.0]\n",
        "surface area [m²]: 6.0\n",
        "closed: yes (0 boundary edges)\n",
        "manifold: yes (0 edges shared by more than two triangles, 0 pinch vertices)\n",
        "orientation: consistent, outward (signed volume > 0)\n",
        "volume [m³]: 1.0\n",
        "centre of mass [m]: [0.0, 0.0, 0.0]\n",
        "principal moments per unit density [m⁵]: [0.1666666666666666",
        "mass [kg]: 3.0\n",
        "principal moments [kg·m²]: [0.5, 0.5, 0.5]",
    ] {
        assert!(text.contains(line), "{line:?} not in\n{text}");
    }
}

/// Volume, first and second moments (∫ x dV, ∫ x xᵀ dV) of a closed mesh by degree-2
/// quadrature on the signed tetrahedra (0, a, b, c).
fn quadrature_moments(m: &TriMesh) -> (f64, [f64; 3], [[f64; 3]; 3]) {
    let alpha = 0.585_410_196_624_968_5;
    let beta = 0.138_196_601_125_010_5;
    let (mut vol, mut first, mut second) = (0.0, [0.0; 3], [[0.0; 3]; 3]);
    for t in &m.triangles {
        let [a, b, c] = t.map(|i| m.vertices[i as usize]);
        let d = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]);
        let v = d / 6.0;
        vol += v;
        let corners = [[0.0; 3], a, b, c];
        let sum: [f64; 3] = std::array::from_fn(|k| a[k] + b[k] + c[k]);
        for p in corners {
            // alpha · p + beta · (the other three corners)
            let x: [f64; 3] = std::array::from_fn(|k| alpha * p[k] + beta * (sum[k] - p[k]));
            for i in 0..3 {
                first[i] += v / 4.0 * x[i];
                for j in 0..3 {
                    second[i][j] += v / 4.0 * x[i] * x[j];
                }
            }
        }
    }
    (vol, first, second)
}

#[test]
fn icosphere_matches_its_polyhedral_values_by_independent_quadrature() {
    let r = 0.05;
    let mut mesh = icosphere(r, 3).unwrap();
    for v in &mut mesh.vertices {
        *v = [v[0] + 0.3, v[1] - 0.1, v[2] + 0.02];
    }
    let info = mesh_info(&mesh, &SourceMap::default());
    let m = info.unit_density.as_ref().unwrap();
    let (vol, first, second) = quadrature_moments(&mesh);
    assert!(rel(m.volume, vol) < 1e-12, "{} {vol}", m.volume);
    let com = first.map(|f| f / vol);
    for k in 0..3 {
        assert!((m.com[k] - com[k]).abs() < 1e-14, "{:?} {com:?}", m.com);
    }
    let cov: [[f64; 3]; 3] =
        std::array::from_fn(|i| std::array::from_fn(|j| second[i][j] - vol * com[i] * com[j]));
    let tr = cov[0][0] + cov[1][1] + cov[2][2];
    let inertia: [[f64; 3]; 3] =
        std::array::from_fn(|i| std::array::from_fn(|j| if i == j { tr } else { 0.0 } - cov[i][j]));
    assert!(mat_rel(&m.inertia, &inertia) < 1e-10, "{:?}", m.inertia);
    // Close to the sphere it is inscribed in (1,280 triangles: within 1 % / 1.5 %).
    let sphere_v = 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    assert!(rel(m.volume, sphere_v) < 0.01);
    assert!(rel(m.inertia[0][0], 0.4 * sphere_v * r * r) < 0.015);
    assert!(rel(m.bounding_radius, r) < 1e-12);
}

#[test]
fn open_and_split_meshes_are_described_without_mass_properties_or_with_their_parts() {
    let mut open = tetra();
    open.triangles.pop();
    open.vertices.push([9.0, 9.0, 9.0]); // unused
    let info = mesh_info(&open, &SourceMap::default());
    assert_eq!(info.report.unused_vertices, vec![4]);
    assert_eq!(info.bounds, Some([[0.0; 3], [1.0; 3]]));
    let text = info.render(None);
    assert!(text.contains("closed: no (3 boundary edges)"), "{text}");
    assert!(
        text.ends_with(
            "volume, centre of mass, inertia: not defined: open mesh: 3 boundary edges, first (1, 2) of triangle 0"
        ),
        "{text}"
    );
    let mut two = tetra();
    let n = two.vertices.len() as u32;
    two.vertices
        .extend(tetra().vertices.iter().map(|v| [v[0] + 5.0, v[1], v[2]]));
    two.triangles
        .extend(tetra().triangles.iter().map(|t| t.map(|i| i + n)));
    let info = mesh_info(&two, &SourceMap::default());
    assert_eq!(info.parts, 2);
    assert!(rel(info.unit_density.unwrap().volume, 2.0 / 6.0) < 1e-12);
}
