//! PLY reader (ascii / binary, float or double, any integer index list) and writer
//! (binary little endian, `double` x y z, `uchar`/`uint` `vertex_indices`).

use super::fan;
use crate::TriMesh;
use ply_rs_bw::parser::Parser;
use ply_rs_bw::ply::{
    Addable, ElementDef, Encoding, Ply, Property, PropertyAccess, PropertyAccessResult,
    PropertyDef, PropertyType, ScalarType,
};
use ply_rs_bw::writer::Writer;

/// Comment line written into every PLY header (constant, so output stays deterministic).
pub const PLY_COMMENT: &str = "msdem-mesh: lengths in metres";

/// Names under which PLY files store a face's vertex index list.
const INDEX_LISTS: [&str; 2] = ["vertex_indices", "vertex_index"];

/// One element of any kind while reading: only coordinates and index lists are kept.
#[derive(Default)]
struct ReadRecord {
    xyz: [f64; 3],
    indices: Vec<i64>,
}

fn scalar(p: &Property) -> Option<f64> {
    Some(match *p {
        Property::Char(v) => v.into(),
        Property::UChar(v) => v.into(),
        Property::Short(v) => v.into(),
        Property::UShort(v) => v.into(),
        Property::Int(v) => v.into(),
        Property::UInt(v) => v.into(),
        Property::Float(v) => v.into(),
        Property::Double(v) => v,
        _ => return None,
    })
}

fn int_list(p: Property) -> Option<Vec<i64>> {
    fn conv<T: Into<i64>>(v: Vec<T>) -> Vec<i64> {
        v.into_iter().map(Into::into).collect()
    }
    Some(match p {
        Property::ListChar(v) => conv(v),
        Property::ListUChar(v) => conv(v),
        Property::ListShort(v) => conv(v),
        Property::ListUShort(v) => conv(v),
        Property::ListInt(v) => conv(v),
        Property::ListUInt(v) => conv(v),
        _ => return None,
    })
}

impl PropertyAccess for ReadRecord {
    fn new() -> Self {
        Self::default()
    }

    fn set_property(&mut self, name: &str, property: Property) -> PropertyAccessResult {
        let axis = match name {
            "x" => Some(0),
            "y" => Some(1),
            "z" => Some(2),
            _ => None,
        };
        if let Some(axis) = axis {
            return match scalar(&property) {
                Some(v) => {
                    self.xyz[axis] = v;
                    PropertyAccessResult::Set
                }
                None => PropertyAccessResult::UnsupportedType,
            };
        }
        if INDEX_LISTS.contains(&name) {
            return match int_list(property) {
                Some(v) => {
                    self.indices = v;
                    PropertyAccessResult::Set
                }
                None => PropertyAccessResult::UnsupportedType,
            };
        }
        PropertyAccessResult::Ignored
    }
}

/// Parses PLY bytes. Errors carry the element index or header line.
pub(super) fn decode(bytes: &[u8]) -> Result<TriMesh, String> {
    let mut src = bytes;
    let ply = Parser::<ReadRecord>::new()
        .read_ply(&mut src)
        .map_err(|e| one_line(&e.to_string()))?;
    let header = &ply.header;
    let vdef = header
        .elements
        .get("vertex")
        .ok_or("no `vertex` element in header")?;
    for axis in ["x", "y", "z"] {
        if !vdef.properties.contains_key(axis) {
            return Err(format!("`vertex` element has no property `{axis}`"));
        }
    }
    let empty = Vec::new();
    let vertices: Vec<[f64; 3]> = ply
        .payload
        .get("vertex")
        .unwrap_or(&empty)
        .iter()
        .map(|r| r.xyz)
        .collect();
    let mut triangles = Vec::new();
    if let Some(fdef) = header.elements.get("face") {
        if !INDEX_LISTS.iter().any(|n| fdef.properties.contains_key(*n)) {
            return Err("`face` element has no `vertex_indices` list".into());
        }
        let n = vertices.len();
        let mut polygon = Vec::new();
        for (f, rec) in ply.payload.get("face").unwrap_or(&empty).iter().enumerate() {
            if rec.indices.len() < 3 {
                return Err(format!(
                    "face {f} has {} vertices (at least 3 needed)",
                    rec.indices.len()
                ));
            }
            polygon.clear();
            for &i in &rec.indices {
                if i < 0 || i as usize >= n {
                    return Err(format!(
                        "face {f}: vertex index {i} out of range ({n} vertices)"
                    ));
                }
                polygon.push(i as u32);
            }
            fan(&polygon, &mut triangles);
        }
    }
    Ok(TriMesh {
        vertices,
        triangles,
    })
}

/// Collapses a multi-line parser message into one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One element while writing: a vertex or a triangle.
enum WriteRecord {
    Vertex([f64; 3]),
    Face([u32; 3]),
}

impl PropertyAccess for WriteRecord {
    fn new() -> Self {
        WriteRecord::Vertex([0.0; 3])
    }

    fn get_double(&self, name: &str) -> Option<f64> {
        match (self, name) {
            (WriteRecord::Vertex(p), "x") => Some(p[0]),
            (WriteRecord::Vertex(p), "y") => Some(p[1]),
            (WriteRecord::Vertex(p), "z") => Some(p[2]),
            _ => None,
        }
    }

    fn get_list_uint(&self, name: &str) -> Option<&[u32]> {
        match (self, name) {
            (WriteRecord::Face(t), "vertex_indices") => Some(&t[..]),
            _ => None,
        }
    }
}

/// Serialises a mesh as binary little-endian PLY.
pub(super) fn encode(mesh: &TriMesh) -> std::io::Result<Vec<u8>> {
    let mut ply = Ply::<WriteRecord>::new();
    ply.header.encoding = Encoding::BinaryLittleEndian;
    ply.header.comments.push(PLY_COMMENT.to_string());
    let mut vertex = ElementDef::new("vertex".to_string());
    for axis in ["x", "y", "z"] {
        vertex.properties.add(PropertyDef::new(
            axis.to_string(),
            PropertyType::Scalar(ScalarType::Double),
        ));
    }
    ply.header.elements.add(vertex);
    let mut face = ElementDef::new("face".to_string());
    face.properties.add(PropertyDef::new(
        "vertex_indices".to_string(),
        PropertyType::List(ScalarType::UChar, ScalarType::UInt),
    ));
    ply.header.elements.add(face);
    ply.payload.insert(
        "vertex".to_string(),
        mesh.vertices
            .iter()
            .map(|&p| WriteRecord::Vertex(p))
            .collect(),
    );
    ply.payload.insert(
        "face".to_string(),
        mesh.triangles
            .iter()
            .map(|&t| WriteRecord::Face(t))
            .collect(),
    );
    let mut out = Vec::new();
    Writer::new().write_ply(&mut out, &mut ply)?;
    Ok(out)
}
