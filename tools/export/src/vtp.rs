//! A small writer for VTK XML PolyData (`.vtp`), the format ParaView opens per frame.
//!
//! Layout: `VTKFile type="PolyData" version="1.0" byte_order="LittleEndian"
//! header_type="UInt64"`, one `Piece`, every `DataArray` `format="binary"`: base64 of an
//! 8-byte little-endian byte count followed by the raw little-endian values (no
//! compression). Output bytes depend only on the input (deterministic).

use crate::base64::encode_bytes;

/// Values of one data array.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// `Float32`.
    F32(Vec<f32>),
    /// `Float64`.
    F64(Vec<f64>),
    /// `Int32`.
    I32(Vec<i32>),
    /// `Int64`.
    I64(Vec<i64>),
}

impl Values {
    fn type_name(&self) -> &'static str {
        match self {
            Values::F32(_) => "Float32",
            Values::F64(_) => "Float64",
            Values::I32(_) => "Int32",
            Values::I64(_) => "Int64",
        }
    }

    fn len(&self) -> usize {
        match self {
            Values::F32(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::I32(v) => v.len(),
            Values::I64(v) => v.len(),
        }
    }

    /// The binary block: `UInt64` byte count, then the little-endian values.
    fn block(&self) -> Vec<u8> {
        let width = match self {
            Values::F32(_) | Values::I32(_) => 4,
            Values::F64(_) | Values::I64(_) => 8,
        };
        let n = width * self.len();
        let mut b = Vec::with_capacity(8 + n);
        b.extend_from_slice(&(n as u64).to_le_bytes());
        match self {
            Values::F32(v) => v.iter().for_each(|x| b.extend_from_slice(&x.to_le_bytes())),
            Values::F64(v) => v.iter().for_each(|x| b.extend_from_slice(&x.to_le_bytes())),
            Values::I32(v) => v.iter().for_each(|x| b.extend_from_slice(&x.to_le_bytes())),
            Values::I64(v) => v.iter().for_each(|x| b.extend_from_slice(&x.to_le_bytes())),
        }
        b
    }
}

/// A named point or cell data array.
#[derive(Clone, Debug, PartialEq)]
pub struct DataArray {
    /// Array name shown in ParaView.
    pub name: String,
    /// Components per tuple (1 = scalar, 3 = vector).
    pub components: u32,
    /// Flat values, `components` per tuple.
    pub values: Values,
}

impl DataArray {
    /// A 3-component `Float64` array from vectors.
    pub fn vec3(name: &str, v: &[[f64; 3]]) -> Self {
        DataArray {
            name: name.to_string(),
            components: 3,
            values: Values::F64(v.iter().flatten().copied().collect()),
        }
    }

    /// A scalar `Float64` array.
    pub fn f64(name: &str, v: Vec<f64>) -> Self {
        DataArray {
            name: name.to_string(),
            components: 1,
            values: Values::F64(v),
        }
    }

    /// A scalar `Int32` array.
    pub fn i32(name: &str, v: Vec<i32>) -> Self {
        DataArray {
            name: name.to_string(),
            components: 1,
            values: Values::I32(v),
        }
    }
}

/// One PolyData piece: points with either vertex cells (one point each) or triangles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolyData {
    /// Point positions \[m\].
    pub points: Vec<[f64; 3]>,
    /// Vertex cells (`Verts`), one point index each.
    pub verts: Vec<u32>,
    /// Triangle cells (`Polys`).
    pub polys: Vec<[u32; 3]>,
    /// Point data arrays (one tuple per point).
    pub point_data: Vec<DataArray>,
    /// Cell data arrays (one tuple per cell, verts first, then polys, as VTK orders them).
    pub cell_data: Vec<DataArray>,
}

fn put(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(s.as_bytes());
}

fn xml_attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn write_array(out: &mut Vec<u8>, indent: &str, name: Option<&str>, comps: u32, v: &Values) {
    put(out, indent);
    put(out, &format!("<DataArray type=\"{}\"", v.type_name()));
    if let Some(n) = name {
        put(out, &format!(" Name=\"{}\"", xml_attr(n)));
    }
    if comps != 1 {
        put(out, &format!(" NumberOfComponents=\"{comps}\""));
    }
    put(out, " format=\"binary\">");
    encode_bytes(&v.block(), out);
    put(out, "</DataArray>\n");
}

fn write_cells(out: &mut Vec<u8>, tag: &str, connectivity: Vec<i64>, per_cell: i64) {
    let n = if per_cell == 0 {
        0
    } else {
        connectivity.len() as i64 / per_cell
    };
    let offsets: Vec<i64> = (1..=n).map(|k| k * per_cell).collect();
    put(out, &format!("      <{tag}>\n"));
    let ind = "        ";
    write_array(
        out,
        ind,
        Some("connectivity"),
        1,
        &Values::I64(connectivity),
    );
    write_array(out, ind, Some("offsets"), 1, &Values::I64(offsets));
    put(out, &format!("      </{tag}>\n"));
}

fn write_data(out: &mut Vec<u8>, tag: &str, arrays: &[DataArray]) {
    if arrays.is_empty() {
        return;
    }
    put(out, &format!("      <{tag}>\n"));
    for a in arrays {
        write_array(out, "        ", Some(&a.name), a.components, &a.values);
    }
    put(out, &format!("      </{tag}>\n"));
}

impl PolyData {
    /// Checks that every data array has one tuple per point / cell.
    pub fn is_consistent(&self) -> bool {
        let cells = self.verts.len() + self.polys.len();
        let ok = |arrays: &[DataArray], n: usize| {
            arrays
                .iter()
                .all(|a| a.components > 0 && a.values.len() == n * a.components as usize)
        };
        ok(&self.point_data, self.points.len()) && ok(&self.cell_data, cells)
    }

    /// The complete `.vtp` file.
    pub fn to_vtp(&self) -> Vec<u8> {
        debug_assert!(self.is_consistent());
        let mut s = Vec::with_capacity(1024 + self.points.len() * 100);
        put(&mut s, "<?xml version=\"1.0\"?>\n");
        put(&mut s, "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n");
        put(&mut s, "  <PolyData>\n");
        put(&mut s, &format!(
            "    <Piece NumberOfPoints=\"{}\" NumberOfVerts=\"{}\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"{}\">\n",
            self.points.len(),
            self.verts.len(),
            self.polys.len()
        ));
        write_data(&mut s, "PointData", &self.point_data);
        write_data(&mut s, "CellData", &self.cell_data);
        put(&mut s, "      <Points>\n");
        let pts = Values::F64(self.points.iter().flatten().copied().collect());
        write_array(&mut s, "        ", Some("Points"), 3, &pts);
        put(&mut s, "      </Points>\n");
        if !self.verts.is_empty() {
            let conn = self.verts.iter().map(|&i| i64::from(i)).collect();
            write_cells(&mut s, "Verts", conn, 1);
        }
        if !self.polys.is_empty() {
            let conn = self.polys.iter().flatten().map(|&i| i64::from(i)).collect();
            write_cells(&mut s, "Polys", conn, 3);
        }
        put(&mut s, "    </Piece>\n  </PolyData>\n</VTKFile>\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decodes standard base64 (test-side reader, independent of the encoder's tables).
    fn decode(s: &str) -> Vec<u8> {
        let val = |c: u8| match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("bad symbol {c}"),
        };
        let mut out = Vec::new();
        for q in s.as_bytes().chunks(4) {
            let pad = q.iter().filter(|&&c| c == b'=').count();
            let mut n = 0u32;
            for &c in q {
                n = (n << 6) | if c == b'=' { 0 } else { u32::from(val(c)) };
            }
            let b = n.to_be_bytes();
            out.extend_from_slice(&b[1..4 - pad]);
        }
        out
    }

    fn arrays(xml: &str) -> Vec<(String, Vec<u8>)> {
        xml.split("<DataArray")
            .skip(1)
            .map(|part| {
                let head = &part[..part.find('>').unwrap()];
                let body = &part[part.find('>').unwrap() + 1..part.find("</DataArray>").unwrap()];
                (head.to_string(), decode(body))
            })
            .collect()
    }

    #[test]
    fn binary_blocks_carry_uint64_byte_count_and_values() {
        let pd = PolyData {
            points: vec![[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.5]],
            polys: vec![[0, 1, 2]],
            cell_data: vec![DataArray::i32("particle_id", vec![7])],
            point_data: vec![DataArray::f64("s", vec![1.0, 2.0, 3.0])],
            ..Default::default()
        };
        let xml = String::from_utf8(pd.to_vtp()).unwrap();
        assert!(xml.contains("NumberOfPoints=\"3\""));
        assert!(xml.contains("NumberOfPolys=\"1\""));
        let a = arrays(&xml);
        // Order: point data, cell data, points, connectivity, offsets.
        assert_eq!(a.len(), 5);
        let (head, bytes) = &a[1];
        assert!(head.contains("Int32") && head.contains("particle_id"));
        assert_eq!(u64::from_le_bytes(bytes[..8].try_into().unwrap()), 4);
        assert_eq!(i32::from_le_bytes(bytes[8..12].try_into().unwrap()), 7);
        let (_, pts) = &a[2];
        assert_eq!(u64::from_le_bytes(pts[..8].try_into().unwrap()), 72);
        let last = f64::from_le_bytes(pts[8 + 64..8 + 72].try_into().unwrap());
        assert_eq!(last, 8.5);
        let (_, off) = &a[4];
        assert_eq!(i64::from_le_bytes(off[8..16].try_into().unwrap()), 3);
    }

    #[test]
    fn inconsistent_arrays_are_detected() {
        let pd = PolyData {
            points: vec![[0.0; 3]; 2],
            point_data: vec![DataArray::f64("s", vec![1.0])],
            ..Default::default()
        };
        assert!(!pd.is_consistent());
    }
}
