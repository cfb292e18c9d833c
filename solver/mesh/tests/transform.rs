//! Import transforms against analytic expectations: units and scale multiply lengths
//! (volume by the factor cubed, inertia by its fifth power), a rotation gives vertices `R p`
//! and the inertia `R I Rᵀ` (R built here independently, from Rodrigues' formula), the
//! centre of mass lands on the translation after recentring; through `convert_with`, as
//! `meshgen convert` and the pipeline use it.
#![allow(clippy::needless_range_loop)] // index loops over x, y, z read best here

mod common;

use common::*;
use msdem_mesh::check::Role;
use msdem_mesh::generate::{cuboid, noise_sphere, NoiseSphere};
use msdem_mesh::mass::{mass_properties, principal_axes};
use msdem_mesh::transform::{ImportTransform, LengthUnit};
use msdem_mesh::{convert_with, read_mesh, write_mesh, ConvertOptions, SourceMap, TriMesh};
use std::path::Path;

fn box_inertia(m: f64, [a, b, c]: [f64; 3]) -> [[f64; 3]; 3] {
    [
        [m * (b * b + c * c) / 12.0, 0.0, 0.0],
        [0.0, m * (a * a + c * c) / 12.0, 0.0],
        [0.0, 0.0, m * (a * a + b * b) / 12.0],
    ]
}

fn apply(t: &ImportTransform, m: &TriMesh) -> TriMesh {
    t.apply(m, Path::new("m.obj"), &SourceMap::default())
        .unwrap()
}

/// Converts `mesh` (written as OBJ) with `transform` into a PLY and reads that back.
fn converted(mesh: &TriMesh, transform: ImportTransform) -> TriMesh {
    let dir = tempfile::tempdir().unwrap();
    let (src, dst) = (dir.path().join("in.obj"), dir.path().join("out.ply"));
    write_mesh(&src, mesh).unwrap();
    let options = ConvertOptions {
        transform,
        role: Some(Role::Particle),
        fill_holes: false,
    };
    convert_with(&src, &dst, &options).unwrap();
    read_mesh(&dst).unwrap().0
}

#[test]
fn a_unit_cube_in_millimetres_is_a_cubic_millimetre() {
    let cube = cuboid([1.0, 1.0, 1.0], 2).unwrap();
    let out = converted(
        &cube,
        ImportTransform {
            units: LengthUnit::Mm,
            ..Default::default()
        },
    );
    assert_eq!(out.triangles, cube.triangles);
    for (p, q) in cube.vertices.iter().zip(&out.vertices) {
        assert_eq!(*q, p.map(|c| c / 1000.0));
    }
    let mp = mass_properties(&out, 1.0).unwrap();
    assert!(rel(mp.volume, 1e-9) < 1e-12, "{}", mp.volume);
    // Side 1 mm: I = m (a² + a²) / 12 = 1e-9 · 2e-6 / 12 per unit density.
    assert!(mat_rel(&mp.inertia, &box_inertia(1e-9, [1e-3; 3])) < 1e-12);
}

#[test]
fn units_then_scale_multiply_volume_by_the_cube_and_inertia_by_the_fifth_power() {
    let size = [0.3, 0.5, 1.1];
    let mesh = cuboid(size, 1).unwrap();
    for (units, scale, factor) in [
        (LengthUnit::Cm, 4.0, 0.04),
        (LengthUnit::M, 0.5, 0.5),
        (LengthUnit::Mm, 1000.0, 1.0),
    ] {
        let t = ImportTransform {
            units,
            scale,
            ..Default::default()
        };
        let mp = mass_properties(&apply(&t, &mesh), 2.0).unwrap();
        let v = size[0] * size[1] * size[2] * factor * factor * factor;
        assert!(rel(mp.volume, v) < 1e-12, "{units}: {}", mp.volume);
        let sides = size.map(|s| s * factor);
        assert!(mat_rel(&mp.inertia, &box_inertia(2.0 * v, sides)) < 1e-12);
    }
}

#[test]
fn rotate_deg_turns_about_x_then_y_then_z_giving_r_p_and_r_i_rt() {
    let size = [0.3, 0.2, 0.1];
    let mesh = cuboid(size, 2).unwrap();
    let [a, b, c] = [30.0f64, -50.0, 110.0];
    let t = ImportTransform {
        rotate_deg: [a, b, c],
        ..Default::default()
    };
    // R = Rz(c) · Ry(b) · Rx(a): x first, about fixed axes.
    let rx = rotation([1.0, 0.0, 0.0], a.to_radians());
    let ry = rotation([0.0, 1.0, 0.0], b.to_radians());
    let rz = rotation([0.0, 0.0, 1.0], c.to_radians());
    let mm = |p: &[[f64; 3]; 3], q: &[[f64; 3]; 3]| -> [[f64; 3]; 3] {
        std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| p[i][k] * q[k][j]).sum()))
    };
    let r = mm(&rz, &mm(&ry, &rx));
    assert!(mat_rel(&t.rotation(), &r) < 1e-15);
    let out = apply(&t, &mesh);
    for (p, q) in mesh.vertices.iter().zip(&out.vertices) {
        let expected = mul(&r, *p);
        for k in 0..3 {
            assert!((q[k] - expected[k]).abs() < 1e-15, "{q:?} {expected:?}");
        }
    }
    let v = size[0] * size[1] * size[2];
    let mp = mass_properties(&out, 1.0).unwrap();
    let expected = conj(&r, &box_inertia(v, size));
    assert!(mat_rel(&mp.inertia, &expected) < 1e-12, "{:?}", mp.inertia);
    // The principal moments do not change; the axes are the rotated box axes.
    let (moments, axes) = principal_axes(&mp.inertia);
    let analytic = box_inertia(v, size);
    for (k, d) in [0, 1, 2].into_iter().enumerate() {
        assert!(rel(moments[k], analytic[d][d]) < 1e-12, "{moments:?}");
        let column = [r[0][d], r[1][d], r[2][d]];
        let cos: f64 = (0..3).map(|i| axes[k][i] * column[i]).sum();
        assert!((cos.abs() - 1.0).abs() < 1e-12, "{axes:?}");
    }
    // A quarter turn about z takes x to y, exactly.
    let quarter = ImportTransform {
        rotate_deg: [0.0, 0.0, 90.0],
        ..Default::default()
    };
    let unit = TriMesh {
        vertices: vec![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        triangles: vec![[0, 1, 2]],
    };
    assert_eq!(
        apply(&quarter, &unit).vertices,
        vec![[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    );
}

#[test]
fn recentre_then_translate_puts_the_centre_of_mass_on_the_translation() {
    let mut rock = noise_sphere(&NoiseSphere {
        radius: 0.05,
        subdivisions: 2,
        eta: 1.4,
        seed: 9,
        octaves: 4,
        stretch: 1.5,
    })
    .unwrap();
    for v in &mut rock.vertices {
        *v = [v[0] + 5.0, v[1] - 3.0, v[2] + 2.0];
    }
    let com0 = mass_properties(&rock, 1.0).unwrap().com;
    let shift = [0.1, 0.2, -0.3];
    let t = ImportTransform {
        scale: 2.0,
        rotate_deg: [0.0, 0.0, 90.0],
        recentre: true,
        translate: shift,
        ..Default::default()
    };
    let mp = mass_properties(&converted(&rock, t.clone()), 1.0).unwrap();
    for k in 0..3 {
        assert!((mp.com[k] - shift[k]).abs() < 1e-13, "{:?}", mp.com);
    }
    // Without recentring, the centre of mass moves with the vertices: 2 R com0 + shift.
    let t = ImportTransform {
        recentre: false,
        ..t
    };
    let mp = mass_properties(&converted(&rock, t.clone()), 1.0).unwrap();
    let expected = mul(&t.rotation(), com0.map(|c| 2.0 * c));
    for k in 0..3 {
        assert!((mp.com[k] - (expected[k] + shift[k])).abs() < 1e-12);
    }
}

#[test]
fn recentring_an_open_mesh_is_refused_naming_the_file_and_its_face() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("open.obj");
    std::fs::write(
        &src,
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 4\nf 1 4 3\nf 2 3 4\n",
    )
    .unwrap();
    let options = ConvertOptions {
        transform: ImportTransform {
            recentre: true,
            ..Default::default()
        },
        role: None,
        fill_holes: false,
    };
    let e = convert_with(&src, dir.path().join("o.ply"), &options).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: open mesh: 3 boundary edges, first between vertex 1 (line 1) and vertex 2 (line 2) of face 1 (line 5) (--recentre needs a closed, outward mesh)",
            src.display()
        )
    );
    assert!(!dir.path().join("o.ply").exists());
    // The same mesh converts without recentring (an obstacle may be open).
    convert_with(
        &src,
        dir.path().join("o.ply"),
        &ConvertOptions {
            transform: ImportTransform {
                translate: [1.0, 2.0, 3.0],
                ..Default::default()
            },
            role: None,
            fill_holes: false,
        },
    )
    .unwrap();
    let (out, _) = read_mesh(dir.path().join("o.ply")).unwrap();
    assert_eq!(out.vertices[0], [1.0, 2.0, 3.0]);
}

#[test]
fn a_transform_that_overflows_the_coordinates_is_refused_after_the_transform() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("t.obj");
    write_mesh(&src, &tetra()).unwrap();
    let options = ConvertOptions {
        transform: ImportTransform {
            scale: 1e308,
            units: LengthUnit::M,
            translate: [1e308, 0.0, 0.0],
            ..Default::default()
        },
        role: None,
        fill_holes: false,
    };
    let e = convert_with(&src, dir.path().join("o.ply"), &options).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: after the transform: non-finite coordinates (NaN/inf): 1 vertices, first vertex 2 (line 3)",
            src.display()
        )
    );
}
