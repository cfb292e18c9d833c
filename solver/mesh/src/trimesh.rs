//! Indexed triangle mesh.

use msdem_geom::math::Tri;

/// Indexed triangle mesh \[m\]. Triangles are counter-clockwise seen from outside, so
/// `(b − a) × (c − a)` is the outward normal of a closed particle mesh.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriMesh {
    /// Vertex positions \[m\].
    pub vertices: Vec<[f64; 3]>,
    /// Vertex indices per triangle.
    pub triangles: Vec<[u32; 3]>,
}

impl TriMesh {
    /// The mesh as a flat `f32` triangle soup (seed 000, Implementation remark 2).
    pub fn soup(&self) -> Vec<Tri> {
        let p = |i: u32| {
            let v = self.vertices[i as usize];
            [v[0] as f32, v[1] as f32, v[2] as f32]
        };
        self.triangles
            .iter()
            .map(|t| Tri::new(p(t[0]), p(t[1]), p(t[2])))
            .collect()
    }
}
