//! Smallest distance between the real meshes of two posed surrogate trees, by branch and
//! bound over the trees from the coarsest level down (seed 004 §5, Def. 5.3 with the node
//! offsets of docs/design.md §5): a pair of elements whose surrogate distance minus both
//! offsets is no less than the best distance so far (or the cut-off) is pruned with its
//! whole subtree pair; only real–real pairs give distances. Distances come from the exact
//! kernel of `msdem_geom`, in the frame of side `a` (f32 soups).
//!
//! **Witness** (issue 12, step 4: reuse what the previous search of the pair found): the
//! real triangle pair that gave the previous search's distance is evaluated first, and its
//! distance, where below the cut-off, starts the branch and bound as the best distance
//! found. It is the distance of a real pair, so the minimum is no larger and the search
//! still returns the minimum over all real pairs — the same value as without the witness
//! (`tests/lts/witness.rs` compares both) — but it prunes from the first element pair on,
//! where a search from the roots first has to descend to a real pair.
//!
//! **Enough** (a separation certificate the other way round): a caller that only asks
//! whether the distance is within some `enough` (Def. 2.2's "touching", the advancement's
//! "contact reached") gets the first real pair's distance found within it — the minimum is
//! no larger, so the answer to its question is the same — and the search stops there; a
//! resting contact whose witness is still within its margin costs one kernel call.

use msdem_geom::kernel::{screened_separated, triangle_triangle_exact};
use msdem_geom::math::{Iso3, Tri};
use msdem_tree::SurrogateTree;

/// One element of a tree cut: an internal node (its surrogate) or a real triangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    Node(u32),
    Real(u32),
}

/// Reusable stack of the branch and bound.
#[derive(Debug, Default)]
pub struct DistanceScratch {
    /// Pending pairs with their lower bound and distance.
    stack: Vec<(f64, Element, Element)>,
    /// Children of the pair being unfolded, before sorting.
    pending: Vec<(f64, Element, Element)>,
    roots_a: Vec<Element>,
    roots_b: Vec<Element>,
    kids: Vec<Element>,
}

/// A posed tree: the tree and its mesh-to-world transformation.
#[derive(Clone, Copy, Debug)]
pub struct Posed<'a> {
    /// Surrogate tree (mesh frame).
    pub tree: &'a SurrogateTree,
    /// Mesh frame → world.
    pub pose: Iso3,
}

fn roots(tree: &SurrogateTree, out: &mut Vec<Element>) {
    out.clear();
    if let Some(root) = tree.nodes.first() {
        if root.is_leaf() {
            out.extend((root.first..root.first + root.count).map(Element::Real));
        } else {
            out.push(Element::Node(0));
        }
    }
}

fn tri_offset(tree: &SurrogateTree, e: Element) -> (Tri, f64) {
    match e {
        Element::Node(n) => {
            let node = &tree.nodes[n as usize];
            (tree.soup[node.tri as usize], node.offset as f64)
        }
        Element::Real(i) => (tree.soup[i as usize], 0.0),
    }
}

fn children(tree: &SurrogateTree, n: u32, out: &mut Vec<Element>) {
    out.clear();
    out.extend(tree.unfolded(n).map(|(i, _, real)| {
        if real {
            Element::Real(i)
        } else {
            Element::Node(i)
        }
    }));
}

/// The real triangle pair (indices into the soups of side `a` and `b`) that gave a
/// search's distance: the next search of the same pair starts from it (module docs).
pub type Witness = Option<(u32, u32)>;

/// The smallest distance \[m\] between the real triangles of `a` and `b` if it is below
/// `cutoff`, else `None`; `checks` counts exact kernel calls (narrowing work; pairs the
/// separating-axis screen of `msdem_geom` proves beyond the current best are not counted).
/// `witness` seeds the search and is replaced by the pair of the distance found (kept
/// where none is below the cut-off); `&mut None` searches from the roots only. Once a real
/// pair within `enough` \[m\] is found the search stops with its distance (≤ `enough`, an
/// upper bound of the smallest); `f64::NEG_INFINITY` always gives the smallest distance.
pub fn min_distance(
    a: &Posed,
    b: &Posed,
    cutoff: f64,
    enough: f64,
    scratch: &mut DistanceScratch,
    checks: &mut u64,
    witness: &mut Witness,
) -> Option<f64> {
    let rel = a.pose.inverse() * b.pose;
    let DistanceScratch {
        stack,
        roots_a,
        roots_b,
        kids,
        pending,
    } = scratch;
    roots(a.tree, roots_a);
    roots(b.tree, roots_b);
    stack.clear();
    let mut best = cutoff;
    let mut found = false;
    // Lower bound of an element pair: +∞ where the conservative separating-axis screen
    // proves it beyond `best` (no kernel call), else from the exact kernel.
    let bound = |ea: Element, eb: Element, best: f64, checks: &mut u64| {
        let (ta, oa) = tri_offset(a.tree, ea);
        let (tb, ob) = tri_offset(b.tree, eb);
        let tb = tb.transformed(&rel);
        let reach = best + oa + ob;
        if reach.is_finite()
            && reach < f32::MAX as f64
            && screened_separated(&ta, &tb, reach as f32)
        {
            return f64::INFINITY;
        }
        *checks += 1;
        triangle_triangle_exact(&ta, &tb).dist() as f64 - oa - ob
    };
    let mut arg = None;
    if let Some((i, j)) = *witness {
        let n = (a.tree.soup.len(), b.tree.soup.len());
        if (i as usize) < n.0 && (j as usize) < n.1 {
            let d = bound(Element::Real(i), Element::Real(j), best, checks);
            if d < best {
                best = d;
                found = true;
                arg = Some((i, j));
                if best <= enough {
                    return Some(best);
                }
            }
        }
    }
    pending.clear();
    for &ea in roots_a.iter() {
        for &eb in roots_b.iter() {
            let lb = bound(ea, eb, best, checks);
            pending.push((lb, ea, eb));
        }
    }
    // Depth first, nearest child pair on top: a close real pair is found early and its
    // distance prunes the rest.
    pending.sort_by(|x, y| y.0.total_cmp(&x.0));
    stack.extend(pending.iter().copied());
    while let Some((lb, ea, eb)) = stack.pop() {
        if lb >= best {
            continue;
        }
        let unfold_a = match (ea, eb) {
            (Element::Real(i), Element::Real(j)) => {
                // lb is the exact distance of two real triangles.
                best = lb;
                found = true;
                arg = Some((i, j));
                if best <= enough {
                    break;
                }
                continue;
            }
            (Element::Node(na), Element::Node(nb)) => {
                a.tree.nodes[na as usize].offset >= b.tree.nodes[nb as usize].offset
            }
            (Element::Node(_), Element::Real(_)) => true,
            (Element::Real(_), Element::Node(_)) => false,
        };
        pending.clear();
        if unfold_a {
            let Element::Node(na) = ea else { continue };
            children(a.tree, na, kids);
            for &c in kids.iter() {
                let l = bound(c, eb, best, checks);
                if l < best {
                    pending.push((l, c, eb));
                }
            }
        } else {
            let Element::Node(nb) = eb else { continue };
            children(b.tree, nb, kids);
            for &c in kids.iter() {
                let l = bound(ea, c, best, checks);
                if l < best {
                    pending.push((l, ea, c));
                }
            }
        }
        pending.sort_by(|x, y| y.0.total_cmp(&x.0));
        stack.extend(pending.iter().copied());
    }
    if found {
        *witness = arg;
    }
    found.then_some(best)
}
