//! A small writer for VTK XML PolyData (`.vtp`), the format ParaView opens per frame.
//!
//! Layout: `VTKFile type="PolyData" version="1.0" byte_order="LittleEndian"
//! header_type="UInt64"`, one `Piece`; its data arrays are written in one of four
//! encodings ([`VtkFormat`], the VTK XML file format documentation, "Appended data" and
//! "Compressed data"):
//!
//! * [`VtkFormat::Compressed`] (default): every `DataArray` is `format="appended"` with an
//!   `offset` into one `<AppendedData encoding="raw">` section after the piece (offsets
//!   count from the byte after its `_` marker); the `VTKFile` element carries
//!   `compressor="vtkZLibDataCompressor"`. Each array's bytes (little-endian values) are
//!   cut into blocks of [`BLOCK_SIZE`] bytes, each compressed on its own as a zlib stream
//!   (RFC 1950, what VTK's `compress2`/`uncompress` read), preceded by the header
//!   `[number of blocks, block size, size of the last partial block (0 if the last block is
//!   full), compressed size of block 1, …, of block n]`, every entry a `UInt64` (the
//!   `header_type`) in little-endian order. An empty array has the header `[0, block
//!   size, 0]` and no blocks.
//! * [`VtkFormat::Raw`]: appended as above, uncompressed: a `UInt64` byte count, then the
//!   values.
//! * [`VtkFormat::Base64`]: every `DataArray` inline, `format="binary"`: base64 of the
//!   `UInt64` byte count followed by the values (the layout of the first exports; plain
//!   text, larger).
//! * [`VtkFormat::Ascii`]: inline `format="ascii"`, values in decimal (shortest
//!   round-trip form), for reading by eye.
//!
//! Output bytes depend only on the input and the format (deterministic: the compression
//! level and block size are fixed).

use std::cell::RefCell;
use std::io;

use flate2::{Compress, Compression, FlushCompress, Status};

use crate::base64::encode_bytes;

/// Uncompressed bytes per compressed block (VTK's own default, `vtkXMLWriter::BlockSize`).
pub const BLOCK_SIZE: usize = 1 << 15;

/// zlib compression level of [`VtkFormat::Compressed`] (0–9). Level 1 compresses the
/// export's arrays as well as 6 or 9 (within 1 %: float coordinates hardly compress, the
/// constant and index arrays do at any level) and several times faster on the index
/// arrays (docs/performance.md).
pub const ZLIB_LEVEL: u32 = 1;

/// How the data arrays of a `.vtp` file are encoded (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VtkFormat {
    /// Appended raw binary, zlib-compressed blocks (`vtkZLibDataCompressor`).
    #[default]
    Compressed,
    /// Appended raw binary, uncompressed.
    Raw,
    /// Inline base64 binary, uncompressed.
    Base64,
    /// Inline decimal text.
    Ascii,
}

impl VtkFormat {
    /// Every format with its command-line name.
    pub const ALL: [(&'static str, VtkFormat); 4] = [
        ("compressed", VtkFormat::Compressed),
        ("raw", VtkFormat::Raw),
        ("base64", VtkFormat::Base64),
        ("ascii", VtkFormat::Ascii),
    ];

    /// The format named `name` (`compressed`, `raw`, `base64`, `ascii`).
    pub fn from_name(name: &str) -> Option<VtkFormat> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }

    fn appended(self) -> bool {
        matches!(self, VtkFormat::Compressed | VtkFormat::Raw)
    }
}

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

    /// The values as little-endian bytes.
    fn bytes(&self) -> Vec<u8> {
        match self {
            Values::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Values::F64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Values::I32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Values::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    /// The values in decimal, separated by spaces (floats in shortest round-trip form).
    fn ascii(&self, out: &mut Vec<u8>) {
        use std::io::Write;
        let mut sep = "";
        // Writing into a Vec cannot fail.
        macro_rules! each {
            ($v:expr, $fmt:literal) => {
                for x in $v {
                    let _ = write!(out, concat!("{}", $fmt), sep, x);
                    sep = " ";
                }
            };
        }
        match self {
            Values::F32(v) => each!(v, "{:?}"),
            Values::F64(v) => each!(v, "{:?}"),
            Values::I32(v) => each!(v, "{}"),
            Values::I64(v) => each!(v, "{}"),
        }
    }
}

/// A named point or cell data array.
#[derive(Clone, Debug, PartialEq)]
pub struct DataArray {
    /// Array name shown in ParaView.
    pub name: String,
    /// Components per tuple (1 = scalar, 3 = vector, 4 = quaternion).
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

    /// A 3-component `Float32` array from vectors (each value rounded to nearest).
    pub fn vec3_f32(name: &str, v: &[[f64; 3]]) -> Self {
        DataArray {
            name: name.to_string(),
            components: 3,
            values: Values::F32(v.iter().flatten().map(|&x| x as f32).collect()),
        }
    }

    /// A 4-component `Float64` array (e.g. quaternions).
    pub fn vec4(name: &str, v: &[[f64; 4]]) -> Self {
        DataArray {
            name: name.to_string(),
            components: 4,
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
    /// Write the points as `Float32` (rounded to nearest) instead of `Float64`.
    pub points_f32: bool,
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

/// zlib-compresses `data` in blocks of [`BLOCK_SIZE`] and appends the VTK compression
/// header (`UInt64` entries) and the blocks to `out`.
fn compressed_block(z: &mut Compress, data: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    let blocks = data.len().div_ceil(BLOCK_SIZE);
    let header_at = out.len();
    let partial = data.len() % BLOCK_SIZE;
    for v in [blocks, BLOCK_SIZE, partial] {
        out.extend_from_slice(&(v as u64).to_le_bytes());
    }
    // Compressed sizes, filled in below.
    out.resize(out.len() + 8 * blocks, 0);
    for (i, chunk) in data.chunks(BLOCK_SIZE).enumerate() {
        z.reset();
        let start = out.len();
        loop {
            // A zlib stream is at most a few bytes per 16 KiB larger than its input.
            out.reserve(chunk.len() / 2 + 64);
            let consumed = z.total_in() as usize;
            let status = z
                .compress_vec(&chunk[consumed..], out, FlushCompress::Finish)
                .map_err(io::Error::other)?;
            if status == Status::StreamEnd {
                break;
            }
        }
        let size = (out.len() - start) as u64;
        let at = header_at + 24 + 8 * i;
        out[at..at + 8].copy_from_slice(&size.to_le_bytes());
    }
    Ok(())
}

/// A cached compressed array: cache key, values, compressed header and blocks.
type CachedArray = (String, Vec<u8>, Vec<u8>);

thread_local! {
    /// One compressor per thread, reused (its tables are large to set up).
    static ZLIB: RefCell<Option<Compress>> = const { RefCell::new(None) };
    /// The last compressed cell arrays of this thread, by element and name: (values,
    /// compressed header and blocks). A series' triangles are the same in every frame,
    /// so their connectivity and offsets are compressed once per thread, not per frame.
    static CELL_CACHE: RefCell<Vec<CachedArray>> = const { RefCell::new(Vec::new()) };
}

/// Writes one `.vtp` file: the XML part and, for appended formats, the appended bytes.
struct Writer {
    format: VtkFormat,
    xml: Vec<u8>,
    appended: Vec<u8>,
    zlib: Option<Compress>,
}

impl Writer {
    /// Appends `bytes` compressed; with a `cache_key`, reuses (and keeps) this thread's
    /// last compression of the same values under that key (same bytes either way).
    fn compressed(&mut self, bytes: &[u8], cache_key: Option<&str>) -> io::Result<()> {
        let Some(z) = &mut self.zlib else {
            return Ok(());
        };
        let Some(key) = cache_key else {
            return compressed_block(z, bytes, &mut self.appended);
        };
        let hit = CELL_CACHE.with(|c| {
            let c = c.borrow();
            let entry = c.iter().find(|(k, raw, _)| k == key && raw == bytes);
            entry.map(|(_, _, enc)| self.appended.extend_from_slice(enc))
        });
        if hit.is_some() {
            return Ok(());
        }
        let start = self.appended.len();
        compressed_block(z, bytes, &mut self.appended)?;
        let encoded = self.appended[start..].to_vec();
        CELL_CACHE.with(|c| {
            let mut c = c.borrow_mut();
            c.retain(|(k, _, _)| k != key);
            c.push((key.to_owned(), bytes.to_vec(), encoded));
        });
        Ok(())
    }

    fn array(&mut self, indent: &str, name: &str, comps: u32, v: &Values) -> io::Result<()> {
        self.array_cached(indent, name, comps, v, None)
    }

    fn array_cached(
        &mut self,
        indent: &str,
        name: &str,
        comps: u32,
        v: &Values,
        cache_key: Option<&str>,
    ) -> io::Result<()> {
        let out = &mut self.xml;
        put(out, indent);
        put(out, &format!("<DataArray type=\"{}\"", v.type_name()));
        put(out, &format!(" Name=\"{}\"", xml_attr(name)));
        if comps != 1 {
            put(out, &format!(" NumberOfComponents=\"{comps}\""));
        }
        match self.format {
            VtkFormat::Compressed | VtkFormat::Raw => {
                put(
                    out,
                    &format!(
                        " format=\"appended\" offset=\"{}\"/>\n",
                        self.appended.len()
                    ),
                );
                let bytes = v.bytes();
                if self.zlib.is_some() {
                    self.compressed(&bytes, cache_key)?;
                } else {
                    let n = bytes.len() as u64;
                    self.appended.extend_from_slice(&n.to_le_bytes());
                    self.appended.extend_from_slice(&bytes);
                }
            }
            VtkFormat::Base64 => {
                put(out, " format=\"binary\">");
                let bytes = v.bytes();
                let mut block = Vec::with_capacity(8 + bytes.len());
                block.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
                block.extend_from_slice(&bytes);
                encode_bytes(&block, out);
                put(out, "</DataArray>\n");
            }
            VtkFormat::Ascii => {
                put(out, " format=\"ascii\">");
                v.ascii(out);
                put(out, "</DataArray>\n");
            }
        }
        Ok(())
    }

    /// A `Verts` or `Polys` element: `Int32` connectivity and offsets when every value
    /// fits, else `Int64`.
    fn cells(&mut self, tag: &str, connectivity: Vec<u32>, per_cell: usize) -> io::Result<()> {
        let n = connectivity.len() / per_cell.max(1);
        put(&mut self.xml, &format!("      <{tag}>\n"));
        if connectivity.len() <= i32::MAX as usize
            && connectivity.iter().all(|&i| i <= i32::MAX as u32)
        {
            let conn = Values::I32(connectivity.into_iter().map(|i| i as i32).collect());
            let offsets = Values::I32((1..=n).map(|k| (k * per_cell) as i32).collect());
            self.cell_arrays(tag, &conn, &offsets)?;
        } else {
            let conn = Values::I64(connectivity.into_iter().map(i64::from).collect());
            let offsets = Values::I64((1..=n).map(|k| (k * per_cell) as i64).collect());
            self.cell_arrays(tag, &conn, &offsets)?;
        }
        put(&mut self.xml, &format!("      </{tag}>\n"));
        Ok(())
    }

    fn cell_arrays(&mut self, tag: &str, conn: &Values, offsets: &Values) -> io::Result<()> {
        let ind = "        ";
        let (kc, ko) = (format!("{tag}/connectivity"), format!("{tag}/offsets"));
        self.array_cached(ind, "connectivity", 1, conn, Some(&kc))?;
        self.array_cached(ind, "offsets", 1, offsets, Some(&ko))
    }

    fn data(&mut self, tag: &str, arrays: &[DataArray]) -> io::Result<()> {
        if arrays.is_empty() {
            return Ok(());
        }
        put(&mut self.xml, &format!("      <{tag}>\n"));
        for a in arrays {
            self.array("        ", &a.name, a.components, &a.values)?;
        }
        put(&mut self.xml, &format!("      </{tag}>\n"));
        Ok(())
    }
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

    /// The complete `.vtp` file in `format`. Fails only if the compressor reports an
    /// error (it does not for in-memory data).
    pub fn to_vtp(&self, format: VtkFormat) -> io::Result<Vec<u8>> {
        debug_assert!(self.is_consistent());
        let zlib = if format == VtkFormat::Compressed {
            Some(
                ZLIB.with(|z| z.borrow_mut().take())
                    .unwrap_or_else(|| Compress::new(Compression::new(ZLIB_LEVEL), true)),
            )
        } else {
            None
        };
        let mut w = Writer {
            format,
            xml: Vec::with_capacity(4096),
            appended: Vec::new(),
            zlib,
        };
        put(&mut w.xml, "<?xml version=\"1.0\"?>\n");
        put(
            &mut w.xml,
            "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" \
             header_type=\"UInt64\"",
        );
        if format == VtkFormat::Compressed {
            put(&mut w.xml, " compressor=\"vtkZLibDataCompressor\"");
        }
        put(&mut w.xml, ">\n  <PolyData>\n");
        put(&mut w.xml, &format!(
            "    <Piece NumberOfPoints=\"{}\" NumberOfVerts=\"{}\" NumberOfLines=\"0\" NumberOfStrips=\"0\" NumberOfPolys=\"{}\">\n",
            self.points.len(),
            self.verts.len(),
            self.polys.len()
        ));
        w.data("PointData", &self.point_data)?;
        w.data("CellData", &self.cell_data)?;
        put(&mut w.xml, "      <Points>\n");
        let flat = self.points.iter().flatten();
        let pts = if self.points_f32 {
            Values::F32(flat.map(|&x| x as f32).collect())
        } else {
            Values::F64(flat.copied().collect())
        };
        w.array("        ", "Points", 3, &pts)?;
        put(&mut w.xml, "      </Points>\n");
        if !self.verts.is_empty() {
            w.cells("Verts", self.verts.clone(), 1)?;
        }
        if !self.polys.is_empty() {
            let conn = self.polys.iter().flatten().copied().collect();
            w.cells("Polys", conn, 3)?;
        }
        put(&mut w.xml, "    </Piece>\n  </PolyData>\n");
        if let Some(z) = w.zlib.take() {
            ZLIB.with(|cell| *cell.borrow_mut() = Some(z));
        }
        let mut s = w.xml;
        if format.appended() {
            put(&mut s, "  <AppendedData encoding=\"raw\">\n   _");
            s.extend_from_slice(&w.appended);
            put(&mut s, "\n  </AppendedData>\n");
        }
        put(&mut s, "</VTKFile>\n");
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

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

    fn inline_arrays(xml: &str) -> Vec<(String, Vec<u8>)> {
        xml.split("<DataArray")
            .skip(1)
            .map(|part| {
                let head = &part[..part.find('>').unwrap()];
                let body = &part[part.find('>').unwrap() + 1..part.find("</DataArray>").unwrap()];
                (head.to_string(), decode(body))
            })
            .collect()
    }

    fn u64_at(b: &[u8], i: usize) -> u64 {
        u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap())
    }

    /// The `(header, offset)` of every appended array and the appended bytes (after `_`).
    fn appended_arrays(file: &[u8]) -> (Vec<(String, usize)>, Vec<u8>) {
        let marker = b"<AppendedData encoding=\"raw\">\n   _";
        let at = file
            .windows(marker.len())
            .position(|w| w == marker)
            .unwrap();
        let xml = std::str::from_utf8(&file[..at]).unwrap();
        let tail = b"\n  </AppendedData>\n</VTKFile>\n";
        assert!(file.ends_with(tail));
        let data = file[at + marker.len()..file.len() - tail.len()].to_vec();
        let heads = xml
            .split("<DataArray")
            .skip(1)
            .map(|part| {
                let head = part[..part.find("/>").unwrap()].to_string();
                let off = head.split("offset=\"").nth(1).unwrap();
                let off = off[..off.find('"').unwrap()].parse().unwrap();
                (head, off)
            })
            .collect();
        (heads, data)
    }

    /// Reads one compressed array at `offset` with an independent zlib decoder, checking
    /// the header's consistency; returns the bytes and the length of header + blocks.
    fn inflate_at(data: &[u8], offset: usize) -> (Vec<u8>, usize) {
        let d = &data[offset..];
        let (blocks, size, partial) = (u64_at(d, 0) as usize, u64_at(d, 1), u64_at(d, 2));
        assert_eq!(size, BLOCK_SIZE as u64);
        let mut at = 8 * (3 + blocks);
        let mut out = Vec::new();
        for b in 0..blocks {
            let c = u64_at(d, 3 + b) as usize;
            let mut block = Vec::new();
            flate2::read::ZlibDecoder::new(&d[at..at + c])
                .read_to_end(&mut block)
                .unwrap();
            let want = if b + 1 == blocks && partial != 0 {
                partial
            } else {
                size
            };
            assert_eq!(block.len() as u64, want, "block {b}");
            out.extend_from_slice(&block);
            at += c;
        }
        (out, at)
    }

    fn sample() -> PolyData {
        PolyData {
            points: vec![[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.5]],
            polys: vec![[0, 1, 2]],
            cell_data: vec![DataArray::i32("particle_id", vec![7])],
            point_data: vec![DataArray::f64("s", vec![1.0, 2.0, 3.0])],
            ..Default::default()
        }
    }

    #[test]
    fn base64_blocks_carry_uint64_byte_count_and_values() {
        let xml = String::from_utf8(sample().to_vtp(VtkFormat::Base64).unwrap()).unwrap();
        assert!(xml.contains("NumberOfPoints=\"3\""));
        assert!(xml.contains("NumberOfPolys=\"1\""));
        assert!(!xml.contains("compressor"));
        let a = inline_arrays(&xml);
        // Order: point data, cell data, points, connectivity, offsets.
        assert_eq!(a.len(), 5);
        let (head, bytes) = &a[1];
        assert!(head.contains("Int32") && head.contains("particle_id"));
        assert_eq!(u64_at(bytes, 0), 4);
        assert_eq!(i32::from_le_bytes(bytes[8..12].try_into().unwrap()), 7);
        let (_, pts) = &a[2];
        assert_eq!(u64_at(pts, 0), 72);
        let last = f64::from_le_bytes(pts[8 + 64..8 + 72].try_into().unwrap());
        assert_eq!(last, 8.5);
        let (head, off) = &a[4];
        assert!(head.contains("Int32") && head.contains("offsets"));
        assert_eq!(i32::from_le_bytes(off[8..12].try_into().unwrap()), 3);
    }

    #[test]
    fn raw_appended_arrays_are_byte_counts_and_values_at_their_offsets() {
        let file = sample().to_vtp(VtkFormat::Raw).unwrap();
        let (heads, data) = appended_arrays(&file);
        assert_eq!(heads.len(), 5);
        let mut expect = 0;
        for (head, off) in &heads {
            assert!(head.contains("format=\"appended\""), "{head}");
            assert_eq!(*off, expect, "arrays follow each other");
            expect += 8 + u64_at(&data[*off..], 0) as usize;
        }
        assert_eq!(expect, data.len());
        let pts = &data[heads[2].1..];
        assert_eq!(u64_at(pts, 0), 72);
        assert_eq!(f64::from_le_bytes(pts[72..80].try_into().unwrap()), 8.5);
    }

    /// The compressed layout of the VTK documentation: UInt64 header `[blocks, block size,
    /// last partial size, compressed sizes…]`, zlib blocks, offsets back to back; a full
    /// last block has partial size 0; an empty array has no blocks.
    #[test]
    fn compressed_arrays_follow_the_vtk_block_layout() {
        let n = BLOCK_SIZE / 8 * 2; // exactly two full blocks of f64
        let s: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
        let t: Vec<f64> = (0..n + 5).map(|i| i as f64 * 0.5).collect();
        let pd = PolyData {
            points: vec![[0.5, -1.0, 2.0]; n],
            points_f32: true,
            point_data: vec![DataArray::f64("s", s.clone())],
            ..Default::default()
        };
        let file = pd.to_vtp(VtkFormat::Compressed).unwrap();
        let head = std::str::from_utf8(&file[..200]).unwrap();
        assert!(head.contains("header_type=\"UInt64\" compressor=\"vtkZLibDataCompressor\">"));
        let (heads, data) = appended_arrays(&file);
        assert_eq!(heads.len(), 2);
        let (bytes, len) = inflate_at(&data, heads[0].1);
        assert_eq!(u64_at(&data[heads[0].1..], 0), 2);
        assert_eq!(u64_at(&data[heads[0].1..], 2), 0, "full last block");
        let back: Vec<f64> = bytes
            .chunks(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(back, s);
        assert_eq!(heads[1].1, heads[0].1 + len);
        assert!(heads[1].0.contains("Float32"));
        let (pts, _) = inflate_at(&data, heads[1].1);
        assert_eq!(pts.len(), 12 * n);
        assert_eq!(f32::from_le_bytes(pts[4..8].try_into().unwrap()), -1.0);

        let pd = PolyData {
            points: vec![[0.0; 3]; n + 5],
            point_data: vec![DataArray::f64("t", t.clone())],
            ..Default::default()
        };
        let (heads, data) = appended_arrays(&pd.to_vtp(VtkFormat::Compressed).unwrap());
        let d = &data[heads[0].1..];
        assert_eq!((u64_at(d, 0), u64_at(d, 2)), (3, 40), "partial last block");
        assert_eq!(inflate_at(&data, heads[0].1).0.len(), 8 * (n + 5));

        let empty = PolyData::default().to_vtp(VtkFormat::Compressed).unwrap();
        let (heads, data) = appended_arrays(&empty);
        assert_eq!(heads.len(), 1);
        assert_eq!(data.len(), 24);
        assert_eq!(
            (u64_at(&data, 0), u64_at(&data, 1), u64_at(&data, 2)),
            (0, BLOCK_SIZE as u64, 0)
        );
    }

    #[test]
    fn ascii_values_read_back_exactly() {
        let pd = PolyData {
            points: vec![[0.1, 1e-7, 2.0]],
            verts: vec![0],
            point_data: vec![DataArray::vec4("q", &[[1.0, 0.0, -0.5, 1.0 / 3.0]])],
            ..Default::default()
        };
        let xml = String::from_utf8(pd.to_vtp(VtkFormat::Ascii).unwrap()).unwrap();
        assert!(xml.contains("NumberOfComponents=\"4\" format=\"ascii\">1.0 0.0 -0.5 0.3333333333333333</DataArray>"), "{xml}");
        assert!(xml.contains(">0.1 1e-7 2.0</DataArray>"), "{xml}");
        assert!(xml.contains("Name=\"connectivity\" format=\"ascii\">0</DataArray>"));
    }

    #[test]
    fn format_names_round_trip() {
        for (name, f) in VtkFormat::ALL {
            assert_eq!(VtkFormat::from_name(name), Some(f));
        }
        assert_eq!(VtkFormat::from_name("zip"), None);
        assert_eq!(VtkFormat::default(), VtkFormat::Compressed);
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
