//! Well-formedness check of a surrogate tree (run after every build, by `treebuild`, and on
//! load in tests).
//!
//! Structure: nodes exist; real triangles occupy the front of the soup and surrogates the
//! rest; every child index is larger than its parent's (so there are no cycles), every
//! non-root node has exactly one parent, levels grow by one per edge; every internal node
//! owns a distinct surrogate; every real triangle lies in exactly one leaf; `source` is a
//! permutation of the mesh triangles. Values: finite soup, finite non-negative offsets
//! and inner distances, zero on leaves.
//!
//! Conservativeness (Def. 4.3, see `bounds.rs`): every real vertex below an internal
//! node lies within its `offset` of its surrogate triangle, checked with the exact `f64`
//! point–triangle distance and a tolerance of `2·2⁻²⁴·(m_s + m_v)`, `m_s`, `m_v` the
//! largest absolute coordinates of the surrogate and the vertex. Justification: soup
//! coordinates are `f32`, so an `f32` distance evaluation such as the traversal's carries
//! rounding errors of that order anyway (the traversal pads its margins by more); the
//! builder's own offsets pass with zero tolerance because they are the same `f64`
//! distances rounded up.

use crate::dist::{point_triangle_dist, tri64, widen};
use crate::error::TreeError;
use crate::tree::{SurrogateTree, NO_TRIANGLE};

fn bad(node: usize, what: String) -> Result<(), TreeError> {
    Err(TreeError::Invalid { node, what })
}

/// Checks every invariant listed in the module docs.
pub fn validate(tree: &SurrogateTree) -> Result<(), TreeError> {
    let nn = tree.nodes.len();
    let ns = tree.soup.len();
    if nn == 0 {
        return bad(0, "tree has no nodes".into());
    }
    if tree.source.len() != ns {
        return bad(
            0,
            format!(
                "{} source entries for {} soup triangles",
                tree.source.len(),
                ns
            ),
        );
    }
    let n_real = tree
        .source
        .iter()
        .take_while(|&&s| s != NO_TRIANGLE)
        .count();
    if let Some(k) = tree.source[n_real..].iter().position(|&s| s != NO_TRIANGLE) {
        return bad(
            0,
            format!(
                "soup entry {} is a real triangle after the surrogates",
                n_real + k
            ),
        );
    }
    let mut seen_src = vec![false; n_real];
    for (k, &s) in tree.source[..n_real].iter().enumerate() {
        match seen_src.get_mut(s as usize) {
            Some(seen) if !*seen => *seen = true,
            _ => {
                return bad(
                    0,
                    format!("soup entry {k}: source index {s} repeated or ≥ {n_real}"),
                )
            }
        }
    }
    for (k, t) in tree.soup.iter().enumerate() {
        if let Some(c) = t.v.iter().flatten().find(|c| !c.is_finite()) {
            return bad(
                0,
                format!("soup triangle {k} has non-finite coordinate {c}"),
            );
        }
    }
    structure(tree, n_real)?;
    conservative(tree)
}

fn structure(tree: &SurrogateTree, n_real: usize) -> Result<(), TreeError> {
    let nn = tree.nodes.len();
    let ns = tree.soup.len();
    let mut parents = vec![0u32; nn];
    let mut surrogate_used = vec![false; ns];
    let mut in_leaf = vec![false; n_real];
    if tree.nodes[0].level != 0 {
        return bad(0, format!("root level is {}", tree.nodes[0].level));
    }
    for (i, n) in tree.nodes.iter().enumerate() {
        if n.count == 0 {
            return bad(i, "node has no children / triangles".into());
        }
        if !(n.offset.is_finite() && n.offset >= 0.0 && n.inner.is_finite() && n.inner >= 0.0) {
            return bad(
                i,
                format!("offset {} / inner {} not finite and ≥ 0", n.offset, n.inner),
            );
        }
        let end = n.first as u64 + n.count as u64;
        if n.is_leaf() {
            if n.offset != 0.0 || n.inner != 0.0 {
                return bad(
                    i,
                    format!("leaf with offset {} / inner {}", n.offset, n.inner),
                );
            }
            if end > n_real as u64 {
                return bad(
                    i,
                    format!(
                        "leaf triangles {}..{end} beyond the {n_real} real ones",
                        n.first
                    ),
                );
            }
            for (t, seen) in in_leaf
                .iter_mut()
                .enumerate()
                .take(end as usize)
                .skip(n.first as usize)
            {
                if std::mem::replace(seen, true) {
                    return bad(i, format!("real triangle {t} in more than one leaf"));
                }
            }
        } else {
            let t = n.tri as usize;
            if t < n_real || t >= ns {
                return bad(i, format!("surrogate index {t} outside {n_real}..{ns}"));
            }
            if std::mem::replace(&mut surrogate_used[t], true) {
                return bad(i, format!("surrogate {t} shared with another node"));
            }
            if (n.first as usize) <= i || end > nn as u64 {
                return bad(
                    i,
                    format!(
                        "children {}..{end} not after the node and within {nn}",
                        n.first
                    ),
                );
            }
            for (c, p) in parents
                .iter_mut()
                .enumerate()
                .take(end as usize)
                .skip(n.first as usize)
            {
                *p += 1;
                if tree.nodes[c].level != n.level + 1 {
                    return bad(
                        c,
                        format!(
                            "level {} under a parent of level {}",
                            tree.nodes[c].level, n.level
                        ),
                    );
                }
            }
        }
    }
    if parents[0] != 0 {
        return bad(0, "root has a parent".into());
    }
    if let Some(i) = (1..nn).find(|&i| parents[i] != 1) {
        return bad(i, format!("node has {} parents", parents[i]));
    }
    if let Some(t) = in_leaf.iter().position(|&x| !x) {
        return bad(0, format!("real triangle {t} is in no leaf"));
    }
    if let Some(t) = (n_real..ns).find(|&t| !surrogate_used[t]) {
        return bad(0, format!("surrogate triangle {t} belongs to no node"));
    }
    Ok(())
}

fn conservative(tree: &SurrogateTree) -> Result<(), TreeError> {
    let max_abs = |p: &[f32; 3]| p.iter().fold(0.0f64, |m, c| m.max(c.abs() as f64));
    for (i, n) in tree.nodes.iter().enumerate() {
        if n.is_leaf() {
            continue;
        }
        let s = &tree.soup[n.tri as usize];
        let s64 = tri64(s);
        let ms = s.v.iter().map(max_abs).fold(0.0, f64::max);
        let mut stack = vec![i];
        while let Some(j) = stack.pop() {
            let m = tree.nodes[j];
            if !m.is_leaf() {
                stack.extend(m.first as usize..(m.first + m.count) as usize);
                continue;
            }
            for t in m.first..m.first + m.count {
                for p in &tree.soup[t as usize].v {
                    let d = point_triangle_dist(widen(*p), &s64);
                    let tol = 2.0 * (f32::EPSILON as f64 / 2.0) * (ms + max_abs(p));
                    if d > n.offset as f64 + tol {
                        return bad(
                            i,
                            format!(
                                "real triangle {t} vertex {p:?} is {d} from the surrogate, beyond offset {}",
                                n.offset
                            ),
                        );
                    }
                }
            }
        }
    }
    Ok(())
}
