//! Structural check of an [`ActiveSet`] (remark 6 consistency, complete cut).

use super::{ActiveSet, Element, PairGeometry};
use msdem_tree::SurrogateTree;

impl ActiveSet {
    /// Checks the structural invariants: every internal pair's children are exactly its
    /// descent children (so siblings are complete and no pair is active together with an
    /// ancestor, remark 6), and the active pairs cover every real–real pair exactly once.
    /// Returns a description of the first violation.
    pub fn validate(&mut self, g: &PairGeometry) -> Result<(), String> {
        if self.nodes.is_empty() {
            return Err("not initialised".into());
        }
        let nodes = self.nodes.clone();
        let mut covered: u64 = 0;
        let mut seen = vec![false; nodes.len()];
        let mut stack = vec![0usize];
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                return Err(format!("pair {i} reached twice"));
            }
            let n = nodes[i];
            if n.count == 0 {
                if i != 0 {
                    covered += self.real_pairs(g, n.a, n.b);
                }
                continue;
            }
            let kids = &nodes[n.first as usize..(n.first + n.count) as usize];
            if i != 0 {
                self.expand(g, n.a, n.b);
                let want: Vec<(Element, Element)> = self
                    .kids_a
                    .iter()
                    .flat_map(|&x| self.kids_b.iter().map(move |&y| (x, y)))
                    .collect();
                let got: Vec<(Element, Element)> = kids.iter().map(|k| (k.a, k.b)).collect();
                if want != got {
                    return Err(format!("pair {i}: children are not its descent children"));
                }
            }
            stack.extend(n.first as usize..(n.first + n.count) as usize);
        }
        if let Some(i) = seen.iter().position(|s| !s) {
            return Err(format!("pair {i} is unreachable"));
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
        if covered != want {
            return Err(format!(
                "active pairs cover {covered} real pairs, want {want}"
            ));
        }
        Ok(())
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

    fn real_pairs(&self, g: &PairGeometry, a: Element, b: Element) -> u64 {
        Self::real_count(g.a, a) * Self::real_count(g.b, b)
    }
}
