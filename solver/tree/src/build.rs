//! Top-down surrogate-tree construction (seed 000 App. B, Alg. 7; Implementation remark 3).
//!
//! 1. **Split** (BFS, level by level): a node holding more than `leaf_size` real triangles
//!    is split into `k = min(branching, ⌈n / leaf_size⌉)` compact groups by k-means on the
//!    triangle centroids (`split.rs`); every group becomes an internal node with its own
//!    surrogate. A node with at most `leaf_size` triangles gets a single leaf child holding
//!    them (Alg. 7 lines 8–10), so the finest surrogates bound at most `leaf_size` real
//!    triangles each. Nodes are stored in BFS order, so the children of a node are
//!    contiguous.
//! 2. **Reorder**: real triangles are written to the front of the soup in depth-first leaf
//!    order, so every leaf's triangles *and every subtree's* triangles are contiguous;
//!    `source` keeps their mesh indices. Surrogate triangles follow, one per internal node in
//!    node order.
//! 3. **Fit and bound** every internal node independently (weakly connected surrogates,
//!    Def. 4.5): eq. (6) fit (`fit.rs`), then the halo refinement (`refine.rs`, unless
//!    `refine_iterations` is 0), outer offset and inner distance (`bounds.rs`) over the
//!    real triangles of the subtree.
//!
//! Steps 1 and 3 run in parallel with rayon, over the nodes of a level (step 1) or all
//! internal nodes (step 3), and inside the k-means of a large node over fixed chunks of
//! points (`kmeans.rs`); every node's work depends only on its own triangles and its path
//! from the root (the k-means seed), chunk sums are added in chunk order and results are
//! collected in node order, so the output is byte-identical for any thread count.
//!
//! Cost (builder version 4): k-means restarts see at most 8,192 centroids per node and the
//! minimisations of step 3 at most `fit_samples` triangles or vertices per node, so the
//! large nodes near the root cost about as much as a small one; the offsets, inner
//! distances and the refinement's final choice still use every real triangle below a
//! node. The thousands of small nodes near the leaves dominate; their L-BFGS runs stop
//! once a step gains less than `fit_tolerance` relative.
//!
//! A mesh with at most `leaf_size` triangles yields a single leaf as root (no surrogate).

use crate::bounds::{inner_distance, max_vertex_distance, round_up};
use crate::dist::{add, norm, scale, sub, tri64, V};
use crate::error::TreeError;
use crate::fit::fit_surrogate;
use crate::params::BuildParams;
use crate::refine::{refine_surrogate, REFERENCE_HALO};
use crate::split::{node_seed, split};
use crate::tree::{Node, SurrogateTree, NO_TRIANGLE};
use crate::validate::validate;
use msdem_geom::math::Tri;
use msdem_mesh::TriMesh;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// Progress callback: `(work done, total work)` in triangle-fits; called from worker
/// threads.
pub type Progress<'a> = &'a (dyn Fn(u64, u64) + Sync);

struct TmpNode {
    /// Source (mesh) indices of the real triangles in this subtree.
    tris: Vec<u32>,
    path: Vec<u32>,
    level: u32,
    children: Vec<usize>,
    leaf: bool,
}

/// Builds the surrogate tree of `mesh` (see the module docs); `mesh_hash` is stored in the
/// tree. The result has passed [`validate`].
pub fn build_tree(
    mesh: &TriMesh,
    mesh_hash: [u8; 32],
    params: &BuildParams,
) -> Result<SurrogateTree, TreeError> {
    build_tree_with_progress(mesh, mesh_hash, params, &|_, _| {})
}

/// [`build_tree`] reporting progress.
pub fn build_tree_with_progress(
    mesh: &TriMesh,
    mesh_hash: [u8; 32],
    params: &BuildParams,
    progress: Progress,
) -> Result<SurrogateTree, TreeError> {
    params.validate()?;
    if mesh.triangles.is_empty() {
        return Err(TreeError::EmptyMesh);
    }
    if mesh.triangles.len() >= NO_TRIANGLE as usize / 2 {
        return Err(TreeError::TooLarge(mesh.triangles.len()));
    }
    for (i, t) in mesh.triangles.iter().enumerate() {
        for &vi in t {
            let Some(v) = mesh.vertices.get(vi as usize) else {
                return Err(TreeError::Invalid {
                    node: 0,
                    what: format!("mesh triangle {i} refers to missing vertex {vi}"),
                });
            };
            if let Some(&bad) = v
                .iter()
                .find(|c| !c.is_finite() || c.abs() >= f32::MAX as f64)
            {
                return Err(TreeError::NonFinite {
                    triangle: i,
                    value: bad,
                });
            }
        }
    }
    let soup = mesh.soup();
    let tree = build_from_soup(&soup, mesh_hash, params, progress);
    validate(&tree)?;
    Ok(tree)
}

fn partition(soup: &[Tri], params: &BuildParams) -> Vec<TmpNode> {
    let centroid = |t: &Tri| -> V {
        let v = tri64(t);
        std::array::from_fn(|k| (v[0][k] + v[1][k] + v[2][k]) / 3.0)
    };
    let mut nodes = vec![TmpNode {
        tris: (0..soup.len() as u32).collect(),
        path: Vec::new(),
        level: 0,
        children: Vec::new(),
        leaf: soup.len() <= params.leaf_size as usize,
    }];
    let mut frontier = vec![0usize];
    let leaf = params.leaf_size as usize;
    while !frontier.is_empty() {
        let splits: Vec<Option<Vec<Vec<u32>>>> = frontier
            .par_iter()
            .map(|&i| {
                let node = &nodes[i];
                let n = node.tris.len();
                if node.leaf {
                    None
                } else if n <= leaf {
                    // Alg. 7 line 9: the set becomes the single leaf child of its surrogate.
                    Some(vec![(0..n as u32).collect()])
                } else {
                    let pts: Vec<V> = node
                        .tris
                        .iter()
                        .map(|&t| centroid(&soup[t as usize]))
                        .collect();
                    let k = (params.branching as usize).min(n.div_ceil(leaf));
                    Some(split(&pts, k, node_seed(params.seed, &node.path)))
                }
            })
            .collect();
        let mut next = Vec::new();
        for (&i, groups) in frontier.iter().zip(splits) {
            let Some(groups) = groups else { continue };
            let single = groups.len() == 1;
            for (c, g) in groups.into_iter().enumerate() {
                let tris = g.iter().map(|&j| nodes[i].tris[j as usize]).collect();
                let mut path = nodes[i].path.clone();
                path.push(c as u32);
                let level = nodes[i].level + 1;
                nodes.push(TmpNode {
                    tris,
                    path,
                    level,
                    children: Vec::new(),
                    leaf: single,
                });
                let id = nodes.len() - 1;
                nodes[i].children.push(id);
                next.push(id);
            }
        }
        frontier = next;
    }
    nodes
}

/// Depth-first order of the real triangles: `(order of source indices, subtree range per
/// node)`.
fn dfs_order(nodes: &[TmpNode]) -> (Vec<u32>, Vec<(u32, u32)>) {
    let mut order = Vec::new();
    let mut ranges = vec![(0u32, 0u32); nodes.len()];
    // Iterative post-order so that deep trees cannot overflow the stack.
    let mut stack = vec![(0usize, false)];
    while let Some((i, done)) = stack.pop() {
        if done {
            let lo = nodes[i]
                .children
                .first()
                .map_or(ranges[i].0, |&c| ranges[c].0);
            let hi = nodes[i]
                .children
                .last()
                .map_or(ranges[i].1, |&c| ranges[c].1);
            ranges[i] = (lo, hi);
            continue;
        }
        if nodes[i].children.is_empty() {
            let lo = order.len() as u32;
            order.extend_from_slice(&nodes[i].tris);
            ranges[i] = (lo, order.len() as u32);
        } else {
            stack.push((i, true));
            for &c in nodes[i].children.iter().rev() {
                stack.push((c, false));
            }
        }
    }
    (order, ranges)
}

fn build_from_soup(
    soup: &[Tri],
    mesh_hash: [u8; 32],
    params: &BuildParams,
    progress: Progress,
) -> SurrogateTree {
    let tmp = partition(soup, params);
    let (order, ranges) = dfs_order(&tmp);
    let reals: Vec<Tri> = order.iter().map(|&s| soup[s as usize]).collect();
    let reals64: Vec<[V; 3]> = reals.iter().map(tri64).collect();
    let internal: Vec<usize> = (0..tmp.len())
        .filter(|&i| !tmp[i].children.is_empty())
        .collect();
    let total: u64 = internal.iter().map(|&i| tmp[i].tris.len() as u64).sum();
    let eps_ref = REFERENCE_HALO * 2.0 * bounding_radius(&reals64);
    let done = AtomicU64::new(0);
    let fitted: Vec<(Tri, f32, f32)> = internal
        .par_iter()
        .map(|&i| {
            let (lo, hi) = ranges[i];
            let sub = &reals64[lo as usize..hi as usize];
            let s = refine_surrogate(sub, fit_surrogate(sub, params), params, eps_ref);
            let s64 = tri64(&s);
            let offset = max_vertex_distance(&s64, sub.iter().flatten().copied());
            let inner = inner_distance(&s64, sub, params.inner_samples);
            let d = done.fetch_add(sub.len() as u64, Ordering::Relaxed) + sub.len() as u64;
            progress(d, total);
            (s, round_up(offset), round_up(inner))
        })
        .collect();
    let n_real = reals.len() as u32;
    let mut surrogate_of = vec![NO_TRIANGLE; tmp.len()];
    for (k, &i) in internal.iter().enumerate() {
        surrogate_of[i] = n_real + k as u32;
    }
    let nodes = tmp
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if let Some(&c0) = t.children.first() {
                let (_, off, inn) = fitted[(surrogate_of[i] - n_real) as usize];
                Node {
                    tri: surrogate_of[i],
                    first: c0 as u32,
                    count: t.children.len() as u32,
                    level: t.level,
                    offset: off,
                    inner: inn,
                }
            } else {
                Node {
                    tri: NO_TRIANGLE,
                    first: ranges[i].0,
                    count: ranges[i].1 - ranges[i].0,
                    level: t.level,
                    offset: 0.0,
                    inner: 0.0,
                }
            }
        })
        .collect();
    let mut all = reals;
    all.extend(fitted.iter().map(|f| f.0));
    let mut source = order;
    source.extend(std::iter::repeat_n(NO_TRIANGLE, fitted.len()));
    SurrogateTree {
        nodes,
        soup: all,
        source,
        mesh_hash,
        params_hash: params.hash(),
    }
}

/// Largest distance of the triangles' vertices from their vertex mean \[m\].
fn bounding_radius(tris: &[[V; 3]]) -> f64 {
    let n = (3 * tris.len()).max(1) as f64;
    let c = scale(
        tris.iter().flatten().fold([0.0; 3], |a, v| add(a, *v)),
        1.0 / n,
    );
    tris.iter()
        .flatten()
        .map(|v| norm(sub(*v, c)))
        .fold(0.0, f64::max)
}

/// Real triangles of the subtree of every node as soup ranges `[lo, hi)` (depth-first leaf
/// order makes them contiguous). Used by statistics and the validator.
pub fn subtree_ranges(tree: &SurrogateTree) -> Vec<(u32, u32)> {
    let mut r = vec![(u32::MAX, 0u32); tree.nodes.len()];
    // Children have larger indices than their parent (BFS order), so a reverse sweep sees
    // every child before its parent.
    for i in (0..tree.nodes.len()).rev() {
        let n = tree.nodes[i];
        if n.is_leaf() {
            r[i] = (n.first, n.first + n.count);
        } else {
            let cs = n.first as usize..(n.first + n.count) as usize;
            let lo = cs
                .clone()
                .filter_map(|c| r.get(c))
                .map(|x| x.0)
                .min()
                .unwrap_or(0);
            let hi = cs.filter_map(|c| r.get(c)).map(|x| x.1).max().unwrap_or(0);
            r[i] = (lo, hi);
        }
    }
    r
}
