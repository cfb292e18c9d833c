//! PLY reader (ascii, binary little or big endian; `x y z` of any scalar type, the face's
//! `vertex_indices` or `vertex_index` as a list of any integer type; other elements and
//! properties skipped) and writer (binary little endian, `double` x y z, `uchar`/`uint`
//! `vertex_indices`).
//!
//! The header is checked line by line, and the element counts against the file's size
//! before anything is allocated for them. Errors are one line naming the header line, or the
//! element and record (from 0, as PLY counts) and, in ascii files, the line.

use super::source::SourceMap;
use super::{fan, Format};
use crate::TriMesh;
use ply_rs_bw::ply::{
    Addable, ElementDef, Encoding, Ply, PropertyAccess, PropertyDef, PropertyType, ScalarType,
};
use ply_rs_bw::writer::Writer;

/// Comment line written into every PLY header (constant, so output stays deterministic).
pub const PLY_COMMENT: &str = "msdem-mesh: lengths in metres";

/// Names under which PLY files store a face's vertex index list.
const INDEX_LISTS: [&str; 2] = ["vertex_indices", "vertex_index"];

/// The scalar types of the PLY format.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scalar {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    F32,
    F64,
}

impl Scalar {
    /// Type names as PLY headers spell them (both generations of names).
    fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "char" | "int8" => Self::I8,
            "uchar" | "uint8" => Self::U8,
            "short" | "int16" => Self::I16,
            "ushort" | "uint16" => Self::U16,
            "int" | "int32" => Self::I32,
            "uint" | "uint32" => Self::U32,
            "float" | "float32" => Self::F32,
            "double" | "float64" => Self::F64,
            _ => return None,
        })
    }

    fn size(self) -> usize {
        match self {
            Self::I8 | Self::U8 => 1,
            Self::I16 | Self::U16 => 2,
            Self::I32 | Self::U32 | Self::F32 => 4,
            Self::F64 => 8,
        }
    }

    fn is_integer(self) -> bool {
        !matches!(self, Self::F32 | Self::F64)
    }

    fn name(self) -> &'static str {
        match self {
            Self::I8 => "char",
            Self::U8 => "uchar",
            Self::I16 => "short",
            Self::U16 => "ushort",
            Self::I32 => "int",
            Self::U32 => "uint",
            Self::F32 => "float",
            Self::F64 => "double",
        }
    }

    /// Decodes one binary value (`b.len() == self.size()`).
    fn binary(self, b: &[u8], big: bool) -> Num {
        macro_rules! get {
            ($t:ty) => {{
                let a = b.try_into().unwrap_or_default();
                if big {
                    <$t>::from_be_bytes(a)
                } else {
                    <$t>::from_le_bytes(a)
                }
            }};
        }
        match self {
            Self::I8 => Num::Int(i64::from(b[0] as i8)),
            Self::U8 => Num::Int(i64::from(b[0])),
            Self::I16 => Num::Int(i64::from(get!(i16))),
            Self::U16 => Num::Int(i64::from(get!(u16))),
            Self::I32 => Num::Int(i64::from(get!(i32))),
            Self::U32 => Num::Int(i64::from(get!(u32))),
            Self::F32 => Num::Float(f64::from(get!(f32))),
            Self::F64 => Num::Float(get!(f64)),
        }
    }

    /// Parses one ascii value, checking an integer's range.
    fn text(self, word: &str) -> Option<Num> {
        let int = |lo: i64, hi: i64| {
            word.parse::<i64>()
                .ok()
                .filter(|v| (lo..=hi).contains(v))
                .map(Num::Int)
        };
        match self {
            Self::I8 => int(i8::MIN.into(), i8::MAX.into()),
            Self::U8 => int(0, u8::MAX.into()),
            Self::I16 => int(i16::MIN.into(), i16::MAX.into()),
            Self::U16 => int(0, u16::MAX.into()),
            Self::I32 => int(i32::MIN.into(), i32::MAX.into()),
            Self::U32 => int(0, u32::MAX.into()),
            Self::F32 => word.parse::<f32>().ok().map(|v| Num::Float(v.into())),
            Self::F64 => word.parse::<f64>().ok().map(Num::Float),
        }
    }
}

/// A value read from the file.
#[derive(Clone, Copy)]
enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    fn as_f64(self) -> f64 {
        match self {
            Num::Int(v) => v as f64,
            Num::Float(v) => v,
        }
    }

    fn as_int(self) -> i64 {
        match self {
            Num::Int(v) => v,
            Num::Float(v) => v as i64,
        }
    }
}

/// A property as declared.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Scalar(Scalar),
    /// Count type, item type.
    List(Scalar, Scalar),
}

/// What the reader does with a property.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Skip,
    Axis(usize),
    Indices,
}

#[derive(Debug)]
struct Element {
    name: String,
    count: u64,
    line: u32,
    props: Vec<(Kind, Role)>,
}

#[derive(Clone, Copy, PartialEq)]
enum Body {
    Ascii,
    Little,
    Big,
}

struct Header {
    body: Body,
    elements: Vec<Element>,
    /// Byte offset of the body.
    start: usize,
    /// Line number of the first body line (ascii).
    start_line: u32,
}

const TYPE_NAMES: &str =
    "char, uchar, short, ushort, int, uint, float, double (or int8 … uint32, float32, float64)";

/// Shortens a header line for a message.
fn show(line: &str) -> String {
    let s: String = line.chars().take(60).collect();
    if s.len() < line.len() {
        format!("{s}…")
    } else {
        s
    }
}

fn parse_header(bytes: &[u8]) -> Result<Header, String> {
    let mut at = 0usize;
    let mut number = 0u32;
    let mut body = None;
    let mut elements: Vec<Element> = Vec::new();
    loop {
        let Some(len) = bytes[at..].iter().position(|&b| b == b'\n') else {
            return Err(if number == 0 && !bytes.starts_with(b"ply") {
                "not a PLY file: it does not start with the line `ply`".to_owned()
            } else {
                format!(
                    "the header ends at line {} without `end_header` (truncated file?)",
                    number + 1
                )
            });
        };
        number += 1;
        let raw = &bytes[at..at + len];
        at += len + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let Ok(line) = std::str::from_utf8(raw) else {
            return Err(if number == 1 {
                "not a PLY file: it does not start with the line `ply`".to_owned()
            } else {
                format!("header line {number} is not text (truncated header?)")
            });
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        if number == 1 {
            if words != ["ply"] {
                return Err(format!(
                    "not a PLY file: the first line is `{}`, expected `ply`",
                    show(line)
                ));
            }
            continue;
        }
        let bad = |what: &str| format!("header line {number}: {what}: `{}`", show(line));
        match words.first().copied() {
            None | Some("comment") | Some("obj_info") => {}
            Some("format") => {
                body = Some(match words[1..] {
                    ["ascii", "1.0"] => Body::Ascii,
                    ["binary_little_endian", "1.0"] => Body::Little,
                    ["binary_big_endian", "1.0"] => Body::Big,
                    _ => return Err(bad("unsupported format (expected ascii, binary_little_endian or binary_big_endian, version 1.0)")),
                });
            }
            Some("element") => {
                let [_, name, count] = words[..] else {
                    return Err(bad("expected `element NAME COUNT`"));
                };
                let count = count
                    .parse()
                    .map_err(|_| bad("the element count is not a whole number ≥ 0"))?;
                if let Some(first) = elements.iter().find(|e| e.name == name) {
                    return Err(bad(&format!(
                        "element `{name}` declared a second time (first on header line {})",
                        first.line
                    )));
                }
                elements.push(Element {
                    name: name.to_owned(),
                    count,
                    line: number,
                    props: Vec::new(),
                });
            }
            Some("property") => {
                let Some(element) = elements.last_mut() else {
                    return Err(bad("property before any `element` line"));
                };
                let ty = |name: &str| {
                    Scalar::parse(name).ok_or_else(|| {
                        bad(&format!(
                            "unknown property type `{name}` (expected {TYPE_NAMES})"
                        ))
                    })
                };
                let (kind, name) = match words[1..] {
                    ["list", count, item, name] => {
                        let (count, item) = (ty(count)?, ty(item)?);
                        if !count.is_integer() {
                            return Err(bad("a list's count type must be an integer type"));
                        }
                        (Kind::List(count, item), name)
                    }
                    [t, name] if t != "list" => (Kind::Scalar(ty(t)?), name),
                    _ => {
                        return Err(bad(
                            "expected `property TYPE NAME` or `property list COUNT_TYPE ITEM_TYPE NAME`",
                        ))
                    }
                };
                let role = match (element.name.as_str(), name, kind) {
                    ("vertex", "x", _) => Role::Axis(0),
                    ("vertex", "y", _) => Role::Axis(1),
                    ("vertex", "z", _) => Role::Axis(2),
                    ("face", n, _) if INDEX_LISTS.contains(&n) => Role::Indices,
                    _ => Role::Skip,
                };
                match (role, kind) {
                    (Role::Axis(_), Kind::List(..)) => {
                        return Err(bad(
                            "a vertex coordinate must be a single number, not a list",
                        ))
                    }
                    (Role::Indices, Kind::Scalar(_)) => {
                        return Err(bad("a face's vertex indices must be a list"))
                    }
                    (Role::Indices, Kind::List(_, item)) if !item.is_integer() => {
                        return Err(bad(&format!(
                            "a face's vertex indices must be integers, not {}",
                            item.name()
                        )))
                    }
                    _ => {}
                }
                if role != Role::Skip && element.props.iter().any(|p| p.1 == role) {
                    return Err(bad("property declared twice"));
                }
                element.props.push((kind, role));
            }
            Some("end_header") if words.len() == 1 => {
                let body = body.ok_or("the header has no `format` line")?;
                return Ok(Header {
                    body,
                    elements,
                    start: at,
                    start_line: number + 1,
                });
            }
            Some(_) => return Err(bad("unexpected header line")),
        }
    }
}

/// Refuses element counts that the file cannot hold (before anything is allocated): at
/// least one line per record in ascii, the smallest record size in binary.
fn check_counts(header: &Header, bytes: &[u8]) -> Result<(), String> {
    let body = &bytes[header.start.min(bytes.len())..];
    let room = match header.body {
        Body::Ascii => {
            body.iter().filter(|&&b| b == b'\n').count() as u128
                + u128::from(body.last().is_some_and(|&b| b != b'\n'))
        }
        _ => body.len() as u128,
    };
    let mut need = 0u128;
    for e in &header.elements {
        let per_record = match header.body {
            Body::Ascii => 1,
            _ => e
                .props
                .iter()
                .map(|(k, _)| match k {
                    Kind::Scalar(s) | Kind::List(s, _) => s.size() as u128,
                })
                .sum(),
        };
        need += u128::from(e.count) * per_record;
        if need > room {
            let unit = match header.body {
                Body::Ascii => "lines",
                _ => "bytes",
            };
            return Err(format!(
                "header line {}: element `{}` declares {} records, more than the {room} {unit} after the header can hold (truncated file?)",
                e.line, e.name, e.count
            ));
        }
    }
    Ok(())
}

/// A record's position for messages: `vertex 3` (and `line 17: ` in ascii files).
fn place(line: Option<u32>, e: &Element, record: u64) -> String {
    match line {
        Some(l) => format!("line {l}: {} {record}", e.name),
        None => format!("{} {record}", e.name),
    }
}

/// Reads the body: vertex coordinates, face index lists and, in ascii files, their lines.
/// Faces are fan-triangulated as they are read, their indices checked against the
/// vertex count `n` of the header.
struct Records {
    vertices: Vec<[f64; 3]>,
    vertex_lines: Vec<u32>,
    triangles: Vec<[u32; 3]>,
    triangle_face: Vec<u32>,
    face_lines: Vec<u32>,
}

fn read_body(header: &Header, bytes: &[u8], n: u64) -> Result<Records, String> {
    let mut out = Records {
        vertices: Vec::new(),
        vertex_lines: Vec::new(),
        triangles: Vec::new(),
        triangle_face: Vec::new(),
        face_lines: Vec::new(),
    };
    let mut indices: Vec<i64> = Vec::new();
    let mut polygon: Vec<u32> = Vec::new();
    let mut faces = 0u32;
    let mut at = header.start;
    let mut line = header.start_line;
    let big = header.body == Body::Big;
    for e in &header.elements {
        let keep_vertex = e.name == "vertex";
        let keep_face = e.name == "face";
        for record in 0..e.count {
            let mut xyz = [0.0; 3];
            indices.clear();
            let mut record_line = None;
            if header.body == Body::Ascii {
                // One record per line (blank lines skipped).
                let text = loop {
                    let rest = bytes.get(at..).unwrap_or_default();
                    if rest.is_empty() {
                        return Err(format!(
                            "{}: the file ends before this record (truncated file?)",
                            place(Some(line), e, record)
                        ));
                    }
                    let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                    let raw = &rest[..len];
                    at += len + 1;
                    line += 1;
                    let text = String::from_utf8_lossy(raw);
                    if !text.trim().is_empty() {
                        break text;
                    }
                };
                let here = Some(line - 1);
                let mut words = text.split_whitespace();
                let mut value = |s: Scalar| -> Result<Num, String> {
                    let w = words.next().ok_or_else(|| {
                        format!(
                            "{}: fewer values than the header declares",
                            place(here, e, record)
                        )
                    })?;
                    s.text(w).ok_or_else(|| {
                        format!("{}: `{w}` is not a {}", place(here, e, record), s.name())
                    })
                };
                for &(kind, role) in &e.props {
                    match kind {
                        Kind::Scalar(s) => {
                            let v = value(s)?;
                            if let Role::Axis(a) = role {
                                xyz[a] = v.as_f64();
                            }
                        }
                        Kind::List(c, item) => {
                            let n = value(c)?.as_int();
                            if n < 0 {
                                return Err(format!(
                                    "{}: negative list length {n}",
                                    place(here, e, record)
                                ));
                            }
                            for _ in 0..n {
                                let v = value(item)?;
                                if role == Role::Indices {
                                    indices.push(v.as_int());
                                }
                            }
                        }
                    }
                }
                if words.next().is_some() {
                    return Err(format!(
                        "{}: more values than the header declares",
                        place(here, e, record)
                    ));
                }
                record_line = here;
                if keep_vertex {
                    out.vertex_lines.push(line - 1);
                }
                if keep_face {
                    out.face_lines.push(line - 1);
                }
            } else {
                let truncated = || {
                    format!(
                        "{}: the file ends inside this record (truncated file?)",
                        place(None, e, record)
                    )
                };
                let mut take = |n: usize| -> Result<&[u8], String> {
                    let s = bytes.get(at..at.saturating_add(n)).ok_or_else(truncated)?;
                    at += n;
                    Ok(s)
                };
                for &(kind, role) in &e.props {
                    match kind {
                        Kind::Scalar(s) => {
                            let v = s.binary(take(s.size())?, big);
                            if let Role::Axis(a) = role {
                                xyz[a] = v.as_f64();
                            }
                        }
                        Kind::List(c, item) => {
                            let n = c.binary(take(c.size())?, big).as_int();
                            if n < 0 {
                                return Err(format!(
                                    "{}: negative list length {n}",
                                    place(None, e, record)
                                ));
                            }
                            // The length is checked against the bytes left before the
                            // items are read (and anything is allocated for them).
                            let items = take((n as usize).saturating_mul(item.size()))?;
                            if role == Role::Indices {
                                indices.extend(
                                    items
                                        .chunks_exact(item.size())
                                        .map(|b| item.binary(b, big).as_int()),
                                );
                            }
                        }
                    }
                }
            }
            if keep_vertex {
                out.vertices.push(xyz);
            }
            if keep_face {
                let at = place(record_line, e, record);
                if indices.len() < 3 {
                    return Err(format!(
                        "{at} has {} vertices (at least 3 needed)",
                        indices.len()
                    ));
                }
                polygon.clear();
                for &i in &indices {
                    if i < 0 || i as u64 >= n {
                        return Err(format!(
                            "{at}: vertex index {i} out of range ({n} vertices)"
                        ));
                    }
                    polygon.push(i as u32);
                }
                let before = out.triangles.len();
                fan(&polygon, &mut out.triangles);
                let added = out.triangles.len() - before;
                out.triangle_face.extend(std::iter::repeat_n(faces, added));
                faces = faces.checked_add(1).ok_or("more than 4294967295 faces")?;
            }
        }
    }
    Ok(out)
}

/// Parses PLY bytes. Errors name the header line, or the element and record.
pub(super) fn decode(bytes: &[u8]) -> Result<(TriMesh, SourceMap), String> {
    // A UTF-8 byte-order mark before `ply` (an editor's) is not part of the magic.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let header = parse_header(bytes)?;
    let vertex = header
        .elements
        .iter()
        .find(|e| e.name == "vertex")
        .ok_or("no `vertex` element in the header")?;
    for (axis, name) in ["x", "y", "z"].iter().enumerate() {
        if !vertex.props.iter().any(|p| p.1 == Role::Axis(axis)) {
            return Err(format!(
                "header line {}: `vertex` element has no property `{name}`",
                vertex.line
            ));
        }
    }
    if vertex.count > u64::from(u32::MAX) {
        return Err(format!(
            "header line {}: {} vertices: more than 4294967295",
            vertex.line, vertex.count
        ));
    }
    if let Some(face) = header.elements.iter().find(|e| e.name == "face") {
        if !face.props.iter().any(|p| p.1 == Role::Indices) {
            return Err("`face` element has no `vertex_indices` list".into());
        }
    }
    check_counts(&header, bytes)?;
    let records = read_body(&header, bytes, vertex.count)?;
    let map = SourceMap::new(
        Format::Ply,
        records.triangle_face,
        records.face_lines,
        Vec::new(),
        records.vertex_lines,
    );
    Ok((
        TriMesh {
            vertices: records.vertices,
            triangles: records.triangles,
        },
        map,
    ))
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
