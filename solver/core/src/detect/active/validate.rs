//! Structural check of an [`ActiveSet`] (remark 6 consistency, complete cut) and of its
//! certificates.

use super::element::{key, Element, Leaf};
use super::expand::{expand, roots};
use super::geometry::{PairGeometry, Scratch};
use super::kernel::pair_tris;
use super::set::ActiveSet;
use super::span::{min_cut, Span};
use msdem_geom::kernel::triangle_triangle_exact;
use msdem_tree::SurrogateTree;

struct Check<'s> {
    cut: &'s [u64],
    pos: usize,
    near: &'s [Leaf],
    np: usize,
    covered: u64,
    leaves: u32,
    /// Active pairs with their clearance (`None`: not stored, beyond the skin) and
    /// in-margin slack.
    active: Vec<(Element, Element, Option<f32>, f32)>,
    /// Subtree extents of the cut entries with a span, recomputed.
    spans: Vec<Span>,
    /// Fewest cut entries of a subtree with a span ([`min_cut`]).
    span_min: u32,
}

impl ActiveSet {
    /// Checks the structural invariants: the stored unfolded pairs and active pairs are
    /// exactly the internal nodes and (a subset of the) leaves of one cut through the
    /// descent, whose children are always all descent children of their parent (so
    /// siblings are complete and no pair is active together with an ancestor, remark 6),
    /// and the active pairs cover every real–real pair exactly once. Checks the
    /// certificates too: at the reference pose, every active pair is farther apart (exact
    /// kernel) than its check margin plus its clearance, or plus the skin if it is not
    /// stored; every real pair held by an in-margin slack is closer than its margin minus
    /// the slack; and the recorded subtree extents of the incremental walks (`span.rs`).
    /// Returns a description of the first violation.
    pub fn validate(&mut self, g: &PairGeometry) -> Result<(), String> {
        if !self.initialised {
            return Err("not initialised".into());
        }
        let mut c = Check {
            cut: &self.cut,
            pos: 0,
            near: &self.near,
            np: 0,
            covered: 0,
            leaves: 0,
            active: Vec::new(),
            spans: Vec::new(),
            span_min: min_cut(self.keep_all),
        };
        if !(g.a.nodes.is_empty() || g.b.nodes.is_empty()) {
            let none = Element {
                index: 0,
                level: 0,
                real: false,
            };
            walk(g, &mut c, none, none, true);
        }
        if c.pos != self.cut.len() {
            return Err(format!(
                "stored unfolded pair {:#x} (preorder position {}) is not in the descent",
                self.cut[c.pos], c.pos
            ));
        }
        if c.np != self.near.len() {
            return Err(format!(
                "stored active pair {:#x} is not a leaf of the cut",
                self.near[c.np].key()
            ));
        }
        // A set without spans (read back from a checkpoint) walks in full next time.
        if !self.spans.is_empty() {
            if let Some(i) = (0..self.spans.len()).find(|&i| self.spans.get(i) != c.spans.get(i)) {
                return Err(format!(
                    "span {i} (of an inner unfolded pair) is {:?}, want {:?}",
                    self.spans.get(i),
                    c.spans.get(i)
                ));
            }
            if self.spans.len() != c.spans.len() {
                return Err(format!(
                    "{} spans for {} inner unfolded pairs",
                    self.spans.len(),
                    c.spans.len()
                ));
            }
        }
        if c.leaves != self.leaves {
            return Err(format!(
                "{} active pairs, counted {}",
                c.leaves, self.leaves
            ));
        }
        let total = |t: &SurrogateTree| {
            t.nodes
                .iter()
                .filter(|n| n.is_leaf())
                .map(|n| u64::from(n.count))
                .sum::<u64>()
        };
        let want = if g.a.nodes.is_empty() || g.b.nodes.is_empty() {
            0
        } else {
            total(g.a) * total(g.b)
        };
        if c.covered != want {
            return Err(format!(
                "active pairs cover {} real pairs, want {want}",
                c.covered
            ));
        }
        let sorted = |v: &[u64]| v.windows(2).all(|w| w[0] < w[1]);
        if !sorted(&self.memory) || !sorted(&self.vetoes) {
            return Err("memory set or vetoes not sorted".into());
        }
        // Stored clearances refer to the base pose; an unstored pair was certified beyond
        // `skin + shift` at the base of its time, at most `shift` away from the reference,
        // hence is beyond `skin − shift` at the current base.
        let at_reference = PairGeometry {
            b_to_a: self.base,
            a_to_b: self.base.inverse(),
            coord_bound: f32::INFINITY,
            ..*g
        };
        let mut s = Scratch::default();
        s.begin(g.b.soup.len());
        for &(x, y, clear, slack) in &c.active {
            let (t1, t2, margin) = pair_tris(&at_reference, &mut s, x, y);
            if slack > 0.0 {
                let d = triangle_triangle_exact(&t1, &t2).dist();
                if d > (margin - slack) * (1.0 + 1e-5) {
                    return Err(format!(
                        "pair ({x:?}, {y:?}) at distance {d} is certified within {}",
                        margin - slack
                    ));
                }
            }
            let need = margin + clear.unwrap_or(self.skin - self.shift);
            if need <= margin {
                continue;
            }
            let d = triangle_triangle_exact(&t1, &t2).dist();
            if d < need * (1.0 - 1e-5) {
                return Err(format!(
                    "pair ({x:?}, {y:?}) at distance {d} is certified beyond {need}"
                ));
            }
        }
        // Held narrowing vetoes (`held.rs`): the parent is within its margin less its
        // slack at the base pose (up to the padding of the margin, which scales with the
        // coordinates: 10⁻⁴ of the margin).
        if !self.held.windows(2).all(|w| w[0].0 < w[1].0) {
            return Err("held vetoes not sorted".into());
        }
        for &(k, slack) in &self.held {
            let x = Element::unpack((k >> 32) as u32, 0);
            let y = Element::unpack(k as u32, 0);
            let (t1, t2, margin) = pair_tris(&at_reference, &mut s, x, y);
            let d = triangle_triangle_exact(&t1, &t2).dist();
            if d > (margin - slack) * (1.0 + 1e-5) + 1e-4 * margin {
                return Err(format!(
                    "held veto ({x:?}, {y:?}) at distance {d} is certified within {}",
                    margin - slack
                ));
            }
        }
        Ok(())
    }
}

fn walk(g: &PairGeometry, c: &mut Check, a: Element, b: Element, root: bool) {
    let (mut ka, mut kb) = (Vec::new(), Vec::new());
    if root {
        roots(g.a, &mut ka);
        roots(g.b, &mut kb);
    } else {
        expand(g, a, b, &mut ka, &mut kb);
    }
    for &x in &ka {
        for &y in &kb {
            let k = key(x, y);
            if c.cut.get(c.pos) == Some(&k) {
                c.pos += 1;
                let (at, before) = (c.spans.len(), c.leaves);
                c.spans.push(Span {
                    at: (c.pos - 1) as u32,
                    near_start: c.np as u32,
                    ..Span::default()
                });
                walk(g, c, x, y, false);
                if (c.pos as u32) - c.spans[at].at < c.span_min {
                    // A small subtree: no span (`span.rs`).
                    c.spans.truncate(at);
                    continue;
                }
                c.spans[at] = Span {
                    cut_end: c.pos as u32,
                    near_end: c.np as u32,
                    leaves: c.leaves - before,
                    ..c.spans[at]
                };
                continue;
            }
            let (clear, slack) = if c.near.get(c.np).map(|l| l.key()) == Some(k) {
                c.np += 1;
                let l = &c.near[c.np - 1];
                (Some(l.clear), l.slack)
            } else {
                (None, f32::NEG_INFINITY)
            };
            c.leaves += 1;
            c.covered += real_count(g.a, x) * real_count(g.b, y);
            c.active.push((x, y, clear, slack));
        }
    }
}

fn real_count(tree: &SurrogateTree, e: Element) -> u64 {
    if e.real {
        return 1;
    }
    let mut n = 0;
    let mut stack = vec![e.index];
    while let Some(i) = stack.pop() {
        let node = &tree.nodes[i as usize];
        if node.is_leaf() {
            n += u64::from(node.count);
        } else {
            stack.extend(node.first..node.first + node.count);
        }
    }
    n
}
