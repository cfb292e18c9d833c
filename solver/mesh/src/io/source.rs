//! Where the elements of a mesh read from a file came from, so that findings can name them
//! in the file's own numbering (OBJ from 1, PLY from 0, STL facets from 1) and, for text
//! files, by line.

use super::Format;

/// Maps the triangles and vertices of a [`crate::TriMesh`] back to the faces, vertices and
/// lines of the file it was read from. The default map (no file) names elements by their
/// index in the mesh, from 0.
///
/// Polygons are fan-triangulated on read, so several triangles can map to one face;
/// vertices with bit-identical coordinates are welded (OBJ, STL), so a vertex maps to the
/// first of its copies.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceMap {
    /// The file's format; `None` for a mesh that was not read from a file.
    format: Option<Format>,
    /// Per triangle: the face (facet) it came from, 0-based in file order.
    triangle_face: Vec<u32>,
    /// Per face: its 1-based line (text files only; empty otherwise).
    face_line: Vec<u32>,
    /// Per mesh vertex: the first file vertex it came from, 0-based in file order (for STL
    /// the corner `3·facet + k`).
    vertex_source: Vec<u32>,
    /// Per file vertex (STL: per corner): its 1-based line (text files only).
    vertex_line: Vec<u32>,
}

impl SourceMap {
    /// A map for a mesh read from a file of `format`. `triangle_face` has one entry per
    /// triangle; `vertex_source` one per (welded) mesh vertex; the line lists are empty for
    /// binary files.
    pub(crate) fn new(
        format: Format,
        triangle_face: Vec<u32>,
        face_line: Vec<u32>,
        vertex_source: Vec<u32>,
        vertex_line: Vec<u32>,
    ) -> Self {
        Self {
            format: Some(format),
            triangle_face,
            face_line,
            vertex_source,
            vertex_line,
        }
    }

    /// The format of the file, if the mesh was read from one.
    pub fn format(&self) -> Option<Format> {
        self.format
    }

    /// How elements are numbered in messages, one line (e.g. for `meshgen check`).
    pub fn numbering(&self) -> &'static str {
        match self.format {
            None => "triangles and vertices counted from 0 in mesh order",
            Some(Format::Obj) => {
                "OBJ numbering: faces and vertices counted from 1 in file order, as in `f` lines"
            }
            Some(Format::Ply) => {
                "PLY numbering: faces and vertices counted from 0 in file order, as in vertex_indices"
            }
            Some(Format::Stl) => {
                "STL numbering: facets counted from 1; vertex F.C is corner C (1-3) of facet F"
            }
        }
    }

    fn face_of(&self, t: u32) -> u32 {
        self.triangle_face.get(t as usize).copied().unwrap_or(t)
    }

    fn source_of(&self, v: u32) -> u32 {
        self.vertex_source.get(v as usize).copied().unwrap_or(v)
    }

    fn line(lines: &[u32], i: u32) -> String {
        lines
            .get(i as usize)
            .map(|l| format!(" (line {l})"))
            .unwrap_or_default()
    }

    /// A triangle's number as the file counts its faces (`7`, or `5` for STL facet 5).
    pub fn triangle_number(&self, t: u32) -> String {
        let f = u64::from(self.face_of(t));
        match self.format {
            None | Some(Format::Ply) => f.to_string(),
            Some(Format::Obj) | Some(Format::Stl) => (f + 1).to_string(),
        }
    }

    /// A vertex's number as the file counts them (`13`; `5.2` for STL, facet 5 corner 2).
    pub fn vertex_number(&self, v: u32) -> String {
        let s = u64::from(self.source_of(v));
        match self.format {
            None | Some(Format::Ply) => s.to_string(),
            Some(Format::Obj) => (s + 1).to_string(),
            Some(Format::Stl) => format!("{}.{}", s / 3 + 1, s % 3 + 1),
        }
    }

    /// A triangle in words: `triangle 7` (no file), `face 8 (line 120)` (OBJ), `face 7`
    /// (PLY binary), `facet 8 (line 30)` (STL ascii).
    pub fn triangle_label(&self, t: u32) -> String {
        let noun = match self.format {
            None => "triangle",
            Some(Format::Obj) | Some(Format::Ply) => "face",
            Some(Format::Stl) => "facet",
        };
        let line = Self::line(&self.face_line, self.face_of(t));
        format!("{noun} {}{line}", self.triangle_number(t))
    }

    /// A vertex in words: `vertex 12`, `vertex 13 (line 13)` (OBJ), `vertex 5.2 (line 33)`
    /// (STL: corner 2 of facet 5).
    pub fn vertex_label(&self, v: u32) -> String {
        let line = Self::line(&self.vertex_line, self.source_of(v));
        format!("vertex {}{line}", self.vertex_number(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_follow_each_format_numbering() {
        let none = SourceMap::default();
        assert_eq!(none.triangle_label(7), "triangle 7");
        assert_eq!(none.vertex_label(0), "vertex 0");
        let obj = SourceMap::new(
            Format::Obj,
            vec![0, 0, 1],
            vec![10, 11],
            vec![0, 1],
            vec![1, 2],
        );
        assert_eq!(obj.triangle_label(1), "face 1 (line 10)");
        assert_eq!(obj.triangle_label(2), "face 2 (line 11)");
        assert_eq!(obj.vertex_label(1), "vertex 2 (line 2)");
        let ply = SourceMap::new(Format::Ply, vec![0, 1], vec![], vec![0, 1, 2], vec![]);
        assert_eq!(ply.triangle_label(1), "face 1");
        assert_eq!(ply.vertex_label(2), "vertex 2");
        let stl = SourceMap::new(Format::Stl, vec![0, 1], vec![], vec![0, 1, 2, 5], vec![]);
        assert_eq!(stl.triangle_label(1), "facet 2");
        assert_eq!(stl.vertex_label(3), "vertex 2.3");
    }
}
