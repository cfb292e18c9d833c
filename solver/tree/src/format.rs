//! The `.tree` file (versioned, little-endian, checksummed; docs/design.md §5).
//!
//! ```text
//! magic         8  b"MSDEMTRE"
//! version       u32  FORMAT_VERSION
//! mesh_hash     [u8; 32]   SHA-256 of the source mesh file's bytes
//! params_hash   [u8; 32]   SHA-256 of the encoded builder parameters
//! params_len    u32, then params_len bytes (BuildParams::encode, 72 bytes in version 3)
//! node_count    u32
//! soup_count    u32
//! nodes         node_count × (tri u32, first u32, count u32, level u32, offset f32, inner f32)
//! soup          soup_count × 9 f32
//! source        soup_count × u32
//! checksum      [u8; 32]   SHA-256 of every byte before it
//! ```
//!
//! Readers check, in this order, the magic, the version, the checksum (which catches
//! truncation and corruption), the layout, the parameter hash, and finally run
//! [`crate::validate()`]; any failure refuses the whole file with a message naming it.
//! Writers write a temporary file in the target folder and rename it over the target.

use crate::error::{hex_prefix, TreeError};
use crate::params::BuildParams;
use crate::tree::{Node, SurrogateTree};
use crate::validate::validate;
use msdem_geom::math::Tri;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::Path;

/// File magic.
pub const MAGIC: &[u8; 8] = b"MSDEMTRE";
/// Current format version. History: 1 = first release; 2 = the parameter block gained the
/// halo-refinement parameters (`refine_iterations`, `refine_power`; builder version 3);
/// 3 = the parameter block gained `fit_samples` and `fit_tolerance` (builder version 4:
/// own parallel k-means, subsampled fits, early-stopping minimisations).
pub const FORMAT_VERSION: u32 = 3;

/// Serialises a tree and the parameters it was built with.
pub fn encode_tree(tree: &SurrogateTree, params: &BuildParams) -> Vec<u8> {
    let pb = params.encode();
    let mut b = Vec::with_capacity(150 + tree.nodes.len() * 24 + tree.soup.len() * 40);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    b.extend_from_slice(&tree.mesh_hash);
    b.extend_from_slice(&tree.params_hash);
    b.extend_from_slice(&(pb.len() as u32).to_le_bytes());
    b.extend_from_slice(&pb);
    b.extend_from_slice(&(tree.nodes.len() as u32).to_le_bytes());
    b.extend_from_slice(&(tree.soup.len() as u32).to_le_bytes());
    for n in &tree.nodes {
        for w in [
            n.tri,
            n.first,
            n.count,
            n.level,
            n.offset.to_bits(),
            n.inner.to_bits(),
        ] {
            b.extend_from_slice(&w.to_le_bytes());
        }
    }
    for t in &tree.soup {
        for c in t.v.iter().flatten() {
            b.extend_from_slice(&c.to_le_bytes());
        }
    }
    for s in &tree.source {
        b.extend_from_slice(&s.to_le_bytes());
    }
    let sum: [u8; 32] = Sha256::digest(&b).into();
    b.extend_from_slice(&sum);
    b
}

/// Writes a tree file atomically (temporary file in the same folder, then rename).
pub fn write_tree(
    path: &Path,
    tree: &SurrogateTree,
    params: &BuildParams,
) -> Result<(), TreeError> {
    let bytes = encode_tree(tree, params);
    let io = |source| TreeError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = msdem_mesh::io::temp_file_in(dir).map_err(io)?;
    tmp.write_all(&bytes).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.b.get(self.at..end)?;
        self.at = end;
        Some(s)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn hash(&mut self) -> Option<[u8; 32]> {
        self.take(32)?.try_into().ok()
    }
}

/// Parses a tree file's bytes (`path` only names the file in errors).
pub fn decode_tree(bytes: &[u8], path: &Path) -> Result<(SurrogateTree, BuildParams), TreeError> {
    let fail = |what: String| TreeError::Format {
        path: path.to_path_buf(),
        what,
    };
    if bytes.len() < MAGIC.len() || &bytes[..8] != MAGIC {
        return Err(fail(
            "not a surrogate-tree file (bad magic; expected MSDEMTRE)".into(),
        ));
    }
    let Some(vb) = bytes.get(8..12) else {
        return Err(fail("truncated tree file (no version)".into()));
    };
    let version = u32::from_le_bytes([vb[0], vb[1], vb[2], vb[3]]);
    if version != FORMAT_VERSION {
        return Err(fail(format!(
            "tree format version {version}, this program reads version {FORMAT_VERSION}; rebuild it with `treebuild`"
        )));
    }
    if bytes.len() < 12 + 32 {
        return Err(fail("truncated tree file (no checksum)".into()));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 32);
    if Sha256::digest(body).as_slice() != sum {
        return Err(fail(
            "checksum mismatch: the tree file is truncated or corrupt".into(),
        ));
    }
    let mut c = Cursor { b: body, at: 12 };
    let short = || fail("truncated tree file (layout shorter than its counts)".into());
    let mesh_hash = c.hash().ok_or_else(short)?;
    let params_hash = c.hash().ok_or_else(short)?;
    let plen = c.u32().ok_or_else(short)? as usize;
    let pbytes = c.take(plen).ok_or_else(short)?;
    let params = BuildParams::decode(pbytes).ok_or_else(|| {
        fail("builder parameters of another builder version; rebuild it with `treebuild`".into())
    })?;
    if params.hash() != params_hash {
        return Err(fail(
            "parameter hash does not match the stored parameters".into(),
        ));
    }
    let nn = c.u32().ok_or_else(short)? as usize;
    let ns = c.u32().ok_or_else(short)? as usize;
    let expected = nn
        .checked_mul(24)
        .and_then(|x| ns.checked_mul(40).and_then(|y| x.checked_add(y)));
    if expected != Some(body.len() - c.at) {
        return Err(fail(format!(
            "{nn} nodes and {ns} triangles do not fit the file size"
        )));
    }
    let mut nodes = Vec::with_capacity(nn);
    for _ in 0..nn {
        let w: Vec<u32> = (0..6).map(|_| c.u32().unwrap_or(0)).collect();
        nodes.push(Node {
            tri: w[0],
            first: w[1],
            count: w[2],
            level: w[3],
            offset: f32::from_bits(w[4]),
            inner: f32::from_bits(w[5]),
        });
    }
    let mut soup = Vec::with_capacity(ns);
    for _ in 0..ns {
        let mut v = [[0.0f32; 3]; 3];
        for c3 in v.iter_mut().flatten() {
            *c3 = f32::from_bits(c.u32().unwrap_or(0));
        }
        soup.push(Tri { v });
    }
    let source = (0..ns).map(|_| c.u32().unwrap_or(0)).collect();
    let tree = SurrogateTree {
        nodes,
        soup,
        source,
        mesh_hash,
        params_hash,
    };
    validate(&tree).map_err(|e| fail(e.to_string()))?;
    Ok((tree, params))
}

/// Reads and fully checks a tree file.
pub fn read_tree(path: &Path) -> Result<(SurrogateTree, BuildParams), TreeError> {
    let bytes = std::fs::read(path).map_err(|source| TreeError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    decode_tree(&bytes, path)
}

/// Loads a tree for a simulation; with `expected_mesh_hash` set, refuses a tree built from
/// other mesh bytes (stale) with a message saying to rebuild it with `treebuild`.
pub fn load_tree(
    path: &Path,
    expected_mesh_hash: Option<[u8; 32]>,
) -> Result<SurrogateTree, TreeError> {
    let (tree, _) = read_tree(path)?;
    if let Some(h) = expected_mesh_hash {
        if h != tree.mesh_hash {
            return Err(TreeError::Stale {
                path: path.to_path_buf(),
                found: hex_prefix(&tree.mesh_hash, 6),
                expected: hex_prefix(&h, 6),
            });
        }
    }
    Ok(tree)
}
