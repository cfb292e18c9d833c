//! Expansion of an element pair into its children in the simultaneous descent of the two
//! trees (seed 000 Alg. 5), and the root pairs an active set starts from.

use super::element::Element;
use super::geometry::PairGeometry;
use msdem_tree::SurrogateTree;

/// Elements replacing node `n` when it is unfolded: internal children and the real
/// triangles of leaf children (the same expansion as Alg. 5's traversal,
/// [`SurrogateTree::unfolded`]).
fn children(tree: &SurrogateTree, n: u32, out: &mut Vec<Element>) {
    out.extend(
        tree.unfolded(n)
            .map(|(index, level, real)| Element { index, level, real }),
    );
}

pub(super) fn roots(tree: &SurrogateTree, out: &mut Vec<Element>) {
    let r = &tree.nodes[0];
    if r.is_leaf() {
        out.extend((r.first..r.first + r.count).map(|t| Element {
            index: t,
            level: 0,
            real: true,
        }));
    } else {
        out.push(Element {
            index: 0,
            level: 0,
            real: false,
        });
    }
}

/// Children of the pair (`a`, `b`) in the descent: the side with the larger halo (or the
/// surrogate side of a surrogate–real pair) is unfolded, as in Alg. 5.
pub(super) fn expand(
    g: &PairGeometry,
    a: Element,
    b: Element,
    kids_a: &mut Vec<Element>,
    kids_b: &mut Vec<Element>,
) {
    let (h1, _) = g.halo(a, true);
    let (h2, _) = g.halo(b, false);
    let open_a = !a.real && (b.real || h1 >= h2);
    let open_b = !b.real && (a.real || h2 > h1);
    kids_a.clear();
    kids_b.clear();
    if open_a {
        children(g.a, a.index, kids_a);
    } else {
        kids_a.push(a);
    }
    if open_b {
        children(g.b, b.index, kids_b);
    } else {
        kids_b.push(b);
    }
}
