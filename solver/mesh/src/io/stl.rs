//! STL reader (ascii or binary, welded) and binary writer. STL stores `f32` coordinates.
//!
//! A file is binary when its length is exactly `84 + 50·N` bytes for the triangle count `N`
//! in its header (also when the 80-byte header starts with `solid`, as some exporters
//! write); otherwise it must be ascii (`solid …` … `endsolid`). Errors name the facet
//! (from 1) and, for ascii files, the line.

use super::source::SourceMap;
use super::{weld_exact, Format};
use crate::TriMesh;

/// Bytes before the first facet of a binary STL: 80-byte header and a `u32` count.
const BINARY_HEADER: usize = 84;
/// Bytes per facet of a binary STL: normal, three corners (`f32` each) and a `u16`.
const BINARY_FACET: usize = 50;

/// Parses STL bytes (ascii or binary) and welds bit-identical corners.
pub(super) fn decode(bytes: &[u8]) -> Result<(TriMesh, SourceMap), String> {
    let declared = bytes
        .get(80..BINARY_HEADER)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize);
    let binary_size = declared.map(|n| BINARY_HEADER as u128 + BINARY_FACET as u128 * n as u128);
    // An ascii file may start with a UTF-8 byte-order mark (a binary header is 80 free bytes).
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let starts_solid = text.trim_ascii_start().starts_with(b"solid");
    let (positions, face_line, corner_line) = match (binary_size, declared) {
        (Some(size), Some(n)) if size == bytes.len() as u128 => (binary(bytes, n), vec![], vec![]),
        _ if starts_solid => ascii(text)?,
        (Some(size), Some(n)) => {
            return Err(format!(
                "binary STL header declares {n} triangles ({size} bytes) but the file has {} bytes (truncated or not an STL file)",
                bytes.len()
            ))
        }
        _ => {
            return Err(format!(
                "{} bytes: too short for a binary STL (84-byte header) and not an ascii STL (`solid …`)",
                bytes.len()
            ))
        }
    };
    let facets = positions.len() / 3;
    if facets > (u32::MAX / 3) as usize {
        return Err(format!("{facets} facets: too many"));
    }
    let mut triangles: Vec<[u32; 3]> = (0..facets as u32)
        .map(|f| [3 * f, 3 * f + 1, 3 * f + 2])
        .collect();
    let (vertices, vertex_source) = weld_exact(&positions, &mut triangles);
    let map = SourceMap::new(
        Format::Stl,
        (0..facets as u32).collect(),
        face_line,
        vertex_source,
        corner_line,
    );
    Ok((
        TriMesh {
            vertices,
            triangles,
        },
        map,
    ))
}

/// The corners of a binary STL whose size was checked against its count `n`.
fn binary(bytes: &[u8], n: usize) -> Vec<[f64; 3]> {
    let mut positions = Vec::with_capacity(3 * n);
    for facet in bytes[BINARY_HEADER..].chunks_exact(BINARY_FACET) {
        for corner in 0..3 {
            let at = 12 + 12 * corner;
            positions.push(std::array::from_fn(|k| {
                let b = &facet[at + 4 * k..at + 4 * k + 4];
                f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            }));
        }
    }
    positions
}

/// Corners, facet lines and corner lines of an ascii STL.
type Ascii = (Vec<[f64; 3]>, Vec<u32>, Vec<u32>);

/// Whitespace-separated words with their 1-based line, read lazily.
struct Words<'a> {
    lines: std::iter::Enumerate<std::str::Lines<'a>>,
    current: Option<(u32, std::str::SplitWhitespace<'a>)>,
    peeked: Option<(u32, &'a str)>,
    last_line: u32,
}

impl<'a> Words<'a> {
    fn new(text: &'a str) -> Self {
        Words {
            lines: text.lines().enumerate(),
            current: None,
            peeked: None,
            last_line: 1,
        }
    }

    fn peek(&mut self) -> Option<(u32, &'a str)> {
        while self.peeked.is_none() {
            if let Some((line, words)) = &mut self.current {
                if let Some(w) = words.next() {
                    self.peeked = Some((*line, w));
                    break;
                }
            }
            let (i, text) = self.lines.next()?;
            let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
            self.last_line = line;
            self.current = Some((line, text.split_whitespace()));
        }
        self.peeked
    }

    fn next(&mut self) -> Option<(u32, &'a str)> {
        self.peek();
        self.peeked.take()
    }

    /// The line of the next word, or the last line at the end of the file.
    fn line(&mut self) -> u32 {
        self.peek().map_or(self.last_line, |(l, _)| l)
    }

    /// The next word, which must be `want` (case-insensitive).
    fn expect(&mut self, want: &str) -> Result<u32, String> {
        let line = self.line();
        match self.next() {
            Some((l, w)) if w.eq_ignore_ascii_case(want) => Ok(l),
            Some((l, w)) => Err(format!("line {l}: expected `{want}`, found `{w}`")),
            None => Err(format!(
                "line {line}: the file ends where `{want}` was expected"
            )),
        }
    }

    /// The next word as an `f32` coordinate or normal component.
    fn number(&mut self) -> Result<f32, String> {
        let line = self.line();
        match self.next() {
            Some((l, w)) => w
                .parse()
                .map_err(|_| format!("line {l}: `{w}` is not a number")),
            None => Err(format!("line {line}: the file ends inside a facet")),
        }
    }

    /// Skips the rest of `line` (a solid's name) if the next words are on it.
    fn skip_line(&mut self, line: u32) {
        if self.peeked.is_some_and(|(l, _)| l == line) {
            self.peeked = None;
        }
        if self.peeked.is_none() && self.current.as_ref().is_some_and(|(l, _)| *l == line) {
            self.current = None;
        }
    }

    fn peek_is(&mut self, want: &str) -> bool {
        self.peek()
            .is_some_and(|(_, w)| w.eq_ignore_ascii_case(want))
    }
}

/// Parses `solid NAME (facet normal x y z outer loop (vertex x y z)×3 endloop endfacet)*
/// endsolid [NAME]`, possibly several solids.
fn ascii(bytes: &[u8]) -> Result<Ascii, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "ascii STL is not valid UTF-8 text (byte {}); a binary STL must be exactly 84 + 50 × (its triangle count) bytes long",
            e.valid_up_to()
        )
    })?;
    let mut words = Words::new(text);
    let (mut positions, mut face_line, mut corner_line) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        let solid = words.expect("solid")?;
        words.skip_line(solid);
        while words.peek_is("facet") {
            let facet = face_line.len() + 1;
            face_line.push(words.expect("facet")?);
            words.expect("normal")?;
            for _ in 0..3 {
                words.number()?;
            }
            words.expect("outer")?;
            words.expect("loop")?;
            for _ in 0..3 {
                let line = words
                    .expect("vertex")
                    .map_err(|e| format!("{e} (facet {facet})"))?;
                let mut p = [0.0; 3];
                for c in &mut p {
                    *c = f64::from(words.number()?);
                }
                positions.push(p);
                corner_line.push(line);
            }
            words
                .expect("endloop")
                .map_err(|e| format!("{e} (facet {facet}: a facet has exactly 3 vertices)"))?;
            words.expect("endfacet")?;
        }
        let end = words.expect("endsolid")?;
        words.skip_line(end);
        if words.peek_is("solid") {
            continue;
        }
        if let Some((l, w)) = words.next() {
            return Err(format!("line {l}: unexpected `{w}` after `endsolid`"));
        }
        return Ok((positions, face_line, corner_line));
    }
}

/// Serialises a mesh as binary STL with per-facet unit normals.
pub(super) fn encode(mesh: &TriMesh) -> std::io::Result<Vec<u8>> {
    let tris: Vec<stl_io::Triangle> = mesh
        .triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| mesh.vertices[i as usize]);
            let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let w = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let n = [
                u[1] * w[2] - u[2] * w[1],
                u[2] * w[0] - u[0] * w[2],
                u[0] * w[1] - u[1] * w[0],
            ];
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            let n = if len > 0.0 {
                n.map(|c| c / len)
            } else {
                [0.0; 3]
            };
            let f = |p: [f64; 3]| stl_io::Vector::new(p.map(|c| c as f32));
            stl_io::Triangle {
                normal: f(n),
                vertices: [f(a), f(b), f(c)],
            }
        })
        .collect();
    let mut out = Vec::new();
    stl_io::write_stl(&mut out, tris.iter())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FACET: &str = "facet normal 0 0 1\n outer loop\n  vertex 0 0 0\n  vertex 1 0 0\n  vertex 0 1 0\n endloop\nendfacet\n";

    #[test]
    fn ascii_without_a_name_and_binary_starting_with_solid_both_read() {
        let text = format!("solid\n{FACET}endsolid\n");
        let (m, map) = decode(text.as_bytes()).unwrap();
        assert_eq!(m.triangles, vec![[0, 1, 2]]);
        assert_eq!(map.triangle_label(0), "facet 1 (line 2)");
        assert_eq!(map.vertex_label(2), "vertex 1.3 (line 6)");
        let mut b = b"solid exported by a CAD program".to_vec();
        b.resize(80, b' ');
        b.extend(1u32.to_le_bytes());
        for v in [
            [0.0f32; 3],
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
        ] {
            for c in v {
                b.extend(c.to_le_bytes());
            }
        }
        b.extend([0, 0]);
        let (m, map) = decode(&b).unwrap();
        assert_eq!(m.vertices[1], [1.0, 0.0, 0.0]);
        assert_eq!(map.triangle_label(0), "facet 1");
    }

    #[test]
    fn errors_name_line_and_facet() {
        let e = |s: &str| decode(s.as_bytes()).unwrap_err();
        assert_eq!(
            e("solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n"),
            "line 4: the file ends where `vertex` was expected (facet 1)"
        );
        assert_eq!(
            e(&format!("solid x\n{FACET}facet normal 0 0 1 outer loop vertex 0 0 0 vertex 1 0 0 vertex 1 1 1 vertex 2 2 2 endloop endfacet\nendsolid x\n")),
            "line 9: expected `endloop`, found `vertex` (facet 2: a facet has exactly 3 vertices)"
        );
        assert_eq!(
            e("solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 1,5\n"),
            "line 4: `1,5` is not a number"
        );
        assert_eq!(
            e("solix"),
            "5 bytes: too short for a binary STL (84-byte header) and not an ascii STL (`solid …`)"
        );
        let mut b = vec![0u8; 80];
        b.extend(u32::MAX.to_le_bytes());
        assert_eq!(
            decode(&b).unwrap_err(),
            "binary STL header declares 4294967295 triangles (214748364834 bytes) but the file has 84 bytes (truncated or not an STL file)"
        );
    }
}
