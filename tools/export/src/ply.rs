//! Binary little-endian PLY of posed geometry (one file per frame for the particles, one
//! static file for the obstacles), written with `ply-rs-bw`.
//!
//! Elements: `vertex` with `float x, y, z` \[m\]; `face` with `list uchar int
//! vertex_indices` and `int <owner>` (`particle_id` or `obstacle_id`).

use ply_rs_bw::ply::{
    Addable, ElementDef, Encoding, Header, PropertyAccess, PropertyDef, PropertyType, ScalarType,
};
use ply_rs_bw::writer::Writer;

use crate::scene::Soup;

struct Vertex([f32; 3]);

impl PropertyAccess for Vertex {
    fn new() -> Self {
        Vertex([0.0; 3])
    }
    fn get_float(&self, name: &str) -> Option<f32> {
        match name {
            "x" => Some(self.0[0]),
            "y" => Some(self.0[1]),
            "z" => Some(self.0[2]),
            _ => None,
        }
    }
}

struct Face {
    indices: [i32; 3],
    owner: i32,
}

impl PropertyAccess for Face {
    fn new() -> Self {
        Face {
            indices: [0; 3],
            owner: 0,
        }
    }
    fn get_list_int(&self, name: &str) -> Option<&[i32]> {
        (name == "vertex_indices").then_some(&self.indices[..])
    }
    fn get_int(&self, _name: &str) -> Option<i32> {
        Some(self.owner)
    }
}

/// The binary PLY bytes of `soup`; `owner_name` names the per-face owner property and
/// `comment` goes into the header (e.g. frame index and time).
pub fn ply_bytes(soup: &Soup, owner_name: &str, comment: &str) -> std::io::Result<Vec<u8>> {
    let mut header = Header::new();
    header.encoding = Encoding::BinaryLittleEndian;
    if !comment.is_empty() {
        header.comments.push(comment.replace('\n', " "));
    }
    let mut vdef = ElementDef::new("vertex".to_string());
    for axis in ["x", "y", "z"] {
        vdef.properties.add(PropertyDef::new(
            axis.to_string(),
            PropertyType::Scalar(ScalarType::Float),
        ));
    }
    vdef.count = soup.points.len();
    let mut fdef = ElementDef::new("face".to_string());
    fdef.properties.add(PropertyDef::new(
        "vertex_indices".to_string(),
        PropertyType::List(ScalarType::UChar, ScalarType::Int),
    ));
    fdef.properties.add(PropertyDef::new(
        owner_name.to_string(),
        PropertyType::Scalar(ScalarType::Int),
    ));
    fdef.count = soup.triangles.len();
    header.elements.add(vdef.clone());
    header.elements.add(fdef.clone());

    let vertices: Vec<Vertex> = soup
        .points
        .iter()
        .map(|p| Vertex([p[0] as f32, p[1] as f32, p[2] as f32]))
        .collect();
    let faces: Vec<Face> = soup
        .triangles
        .iter()
        .zip(&soup.triangle_owner)
        .map(|(t, &o)| Face {
            indices: [t[0] as i32, t[1] as i32, t[2] as i32],
            owner: o as i32,
        })
        .collect();

    let mut out = Vec::with_capacity(64 + 12 * vertices.len() + 17 * faces.len());
    let vw = Writer::<Vertex>::new();
    vw.write_header(&mut out, &header)?;
    vw.write_payload_of_element(&mut out, &vertices, &vdef, &header)?;
    Writer::<Face>::new().write_payload_of_element(&mut out, &faces, &fdef, &header)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_header_byte_for_byte() {
        let soup = Soup {
            points: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.5, 0.0]],
            triangles: vec![[0, 1, 2]],
            point_owner: vec![4; 3],
            triangle_owner: vec![4],
        };
        let bytes = ply_bytes(&soup, "particle_id", "frame 3").unwrap();
        let end = b"end_header\n";
        let pos = bytes.windows(end.len()).position(|w| w == end).unwrap() + end.len();
        let header = std::str::from_utf8(&bytes[..pos]).unwrap();
        assert!(header.starts_with("ply\nformat binary_little_endian 1.0\n"));
        assert!(header.contains("element vertex 3\n"));
        assert!(header.contains("element face 1\n"));
        assert!(header.contains("property list uchar int vertex_indices\n"));
        let body = &bytes[pos..];
        assert_eq!(body.len(), 3 * 12 + 1 + 12 + 4);
        assert_eq!(f32::from_le_bytes(body[28..32].try_into().unwrap()), 1.5);
        assert_eq!(body[36], 3);
        assert_eq!(i32::from_le_bytes(body[45..49].try_into().unwrap()), 2);
        assert_eq!(i32::from_le_bytes(body[49..53].try_into().unwrap()), 4);
    }
}
