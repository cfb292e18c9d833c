//! Per-level summary of a surrogate tree (printed by `treebuild`, compared with seed 000
//! Table 1), including the recursive offset variant `ε_s = d + ε_child` of docs/design.md §5
//! for comparison with the stored (direct) offsets.

use crate::build::subtree_ranges;
use crate::dist::{add, norm, point_triangle_dist, scale, sub, tri64, widen, V};
use crate::tree::SurrogateTree;
use std::fmt::Write;

/// Statistics of one tree level. Lengths are relative to the mesh's bounding radius.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LevelSummary {
    /// Level (root = 0).
    pub level: u32,
    /// Internal (surrogate) nodes on this level.
    pub surrogates: u32,
    /// Leaves on this level.
    pub leaves: u32,
    /// Real triangles held by the leaves of this level.
    pub leaf_triangles: u32,
    /// Mean / max stored offset of the surrogates.
    pub offset: (f64, f64),
    /// Mean / max recursive offset (`d + offset_child`, real vertices for leaf children).
    pub recursive_offset: (f64, f64),
    /// Mean of offset / (bounding radius of the node's own real vertices): 1 ≈ bounding
    /// sphere quality, smaller is tighter.
    pub offset_over_node_radius: f64,
    /// Mean / max inner distance h.
    pub inner: (f64, f64),
    /// Mean / max surrogate diameter (longest edge).
    pub diameter: (f64, f64),
}

/// Whole-tree summary.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TreeSummary {
    /// Bounding radius of the mesh about its vertex centroid \[m\].
    pub radius: f64,
    /// Real triangles.
    pub triangles: u32,
    /// Nodes.
    pub nodes: u32,
    /// One entry per level.
    pub levels: Vec<LevelSummary>,
}

fn mean_max(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    (
        v.iter().sum::<f64>() / v.len() as f64,
        v.iter().copied().fold(0.0, f64::max),
    )
}

fn bounding_radius(verts: &[V]) -> f64 {
    let c = scale(
        verts.iter().fold([0.0; 3], |a, v| add(a, *v)),
        1.0 / verts.len().max(1) as f64,
    );
    verts.iter().map(|v| norm(sub(*v, c))).fold(0.0, f64::max)
}

/// Computes the per-level summary.
pub fn summary(tree: &SurrogateTree) -> TreeSummary {
    let n_real = tree.real_count();
    let verts = |lo: u32, hi: u32| -> Vec<V> {
        tree.soup[lo as usize..hi as usize]
            .iter()
            .flat_map(|t| t.v.map(widen))
            .collect()
    };
    let all = verts(0, n_real as u32);
    let radius = bounding_radius(&all).max(f64::MIN_POSITIVE);
    let ranges = subtree_ranges(tree);
    // Recursive offsets, children (higher indices) first.
    let mut rec = vec![0.0f64; tree.nodes.len()];
    for i in (0..tree.nodes.len()).rev() {
        let n = tree.nodes[i];
        if n.is_leaf() {
            continue;
        }
        let s = tri64(&tree.soup[n.tri as usize]);
        let mut r: f64 = 0.0;
        for c in n.first..n.first + n.count {
            let ch = tree.nodes[c as usize];
            if ch.is_leaf() {
                for v in verts(ch.first, ch.first + ch.count) {
                    r = r.max(point_triangle_dist(v, &s));
                }
            } else {
                let cs = tri64(&tree.soup[ch.tri as usize]);
                let d = cs
                    .iter()
                    .map(|v| point_triangle_dist(*v, &s))
                    .fold(0.0, f64::max);
                r = r.max(d + rec[c as usize]);
            }
        }
        rec[i] = r;
    }
    let depth = tree.depth();
    let mut levels = Vec::new();
    for l in 0..depth {
        let mut ls = LevelSummary {
            level: l,
            ..Default::default()
        };
        let (mut off, mut recv, mut inner, mut diam, mut ratio) =
            (vec![], vec![], vec![], vec![], vec![]);
        for (i, n) in tree.nodes.iter().enumerate().filter(|(_, n)| n.level == l) {
            if n.is_leaf() {
                ls.leaves += 1;
                ls.leaf_triangles += n.count;
                continue;
            }
            ls.surrogates += 1;
            off.push(n.offset as f64 / radius);
            recv.push(rec[i] / radius);
            inner.push(n.inner as f64 / radius);
            let s = tri64(&tree.soup[n.tri as usize]);
            diam.push(crate::bounds::longest_edge(&s) / radius);
            let nr = bounding_radius(&verts(ranges[i].0, ranges[i].1));
            ratio.push(if nr > 0.0 { n.offset as f64 / nr } else { 0.0 });
        }
        ls.offset = mean_max(&off);
        ls.recursive_offset = mean_max(&recv);
        ls.inner = mean_max(&inner);
        ls.diameter = mean_max(&diam);
        ls.offset_over_node_radius = mean_max(&ratio).0;
        levels.push(ls);
    }
    TreeSummary {
        radius,
        triangles: n_real as u32,
        nodes: tree.nodes.len() as u32,
        levels,
    }
}

impl TreeSummary {
    /// Human-readable table (one line per level).
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} triangles, {} nodes, bounding radius R = {:.6} m; lengths below are / R",
            self.triangles, self.nodes, self.radius
        );
        let _ = writeln!(
            s,
            "level  surr leaves  leaf-tris  offset mean/max    recursive mean/max  off/node-R  inner h mean/max   diameter mean/max"
        );
        for l in &self.levels {
            let _ = writeln!(
                s,
                "{:>5} {:>5} {:>6} {:>10}  {:>7.4} / {:<7.4}  {:>7.4} / {:<7.4}  {:>10.3}  {:>7.4} / {:<7.4}  {:>7.4} / {:<7.4}",
                l.level,
                l.surrogates,
                l.leaves,
                l.leaf_triangles,
                l.offset.0,
                l.offset.1,
                l.recursive_offset.0,
                l.recursive_offset.1,
                l.offset_over_node_radius,
                l.inner.0,
                l.inner.1,
                l.diameter.0,
                l.diameter.1
            );
        }
        let _ = writeln!(
            s,
            "inner halo at run time: E = ε − h (positive only where h < ε)"
        );
        s
    }
}
