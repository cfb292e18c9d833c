//! The breadth-first descent behind [`crate::find_contacts`] (seed 000 Alg. 5 with the
//! pair buffers of §5.4) and the flat loop (Alg. 2), both streaming their pending checks
//! through a [`PairBatch`] in chunks of [`CHUNK`] pairs. See `traverse.rs` for the
//! contract (margins, padding, fallback rules).

use crate::cull::{centre_mag, planes_apart, spheres_apart, Bound};
use crate::lanes::{Cull, Lanes};
use crate::node_box::{box_mag, boxes_apart, boxes_apart_mag, posed_by, Aabb, NodeBoxes};
use crate::node_obb::{obb_tri_apart, obbs_apart, Obb};
use crate::traverse::{LevelStats, Scratch, TriContact, Unfold, MAX_LEVELS};
use crate::tree::SurrogateTree;
use msdem_geom::kernel::{IterativeParams, KernelKind, KernelResult, PairOutcome};
use msdem_geom::math::{Iso3, Mat3, Tri};

/// Pending checks run per [`PairBatch`](msdem_geom::kernel::PairBatch) pass: large
/// enough to amortise the pass, small enough for the lane buffers (≈ 80 B per pair) to
/// stay in the L2 cache.
pub(crate) const CHUNK: usize = 2048;

/// What [`Ctx::push`] did with a pair; the halos `(h1, h2)` \[m\] of its two elements.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Check {
    /// Proven separated by the pre-screen: no kernel call.
    Separated,
    /// Surrogate pair not proven separated: unfold it (the iterative kernel would answer
    /// contact or not converged for most such pairs, both of which unfold).
    Unfold(f32, f32),
    /// Queued in the batch.
    Queued(f32, f32),
}

/// One side of a pending check: an internal node or a real triangle.
#[derive(Clone, Copy, Debug)]
pub(crate) struct El {
    /// Node index (surrogate) or soup index (real).
    pub idx: u32,
    level: u32,
    pub real: bool,
}

/// Inputs of one traversal.
pub(crate) struct Ctx<'a> {
    pub a: &'a SurrogateTree,
    pub eps_a: f32,
    pub b: &'a SurrogateTree,
    pub eps_b: f32,
    pub b_to_a: &'a Iso3,
    /// Rotation matrix of `b_to_a`.
    pub rot: Mat3,
    pub kernel: KernelKind,
    /// Node boxes of A and B (tree frames), when the caller has them.
    pub boxes: Option<(&'a NodeBoxes, &'a NodeBoxes)>,
    /// Whether both [`NodeBoxes`] carry their oriented boxes (`node_obb.rs`).
    pub oriented: bool,
    /// Pair-set query (`pairs.rs`): real–real pairs go to [`Scratch::fine`] for the
    /// decision kernel instead of the distance kernel's batch.
    pub decide: bool,
}

/// B's soup triangle `i` in A's frame (transformed once per call, with its bounding
/// sphere).
fn b_tri(s: &mut Scratch, b: &SurrogateTree, b_to_a: &Iso3, i: u32) -> Tri {
    let i = i as usize;
    if s.b_stamp[i] != s.stamp {
        s.b_stamp[i] = s.stamp;
        let t = b.soup[i].transformed(b_to_a);
        s.b_tris[i] = t;
        s.b_sph[i] = Bound::of(&t);
    }
    s.b_tris[i]
}

impl Ctx<'_> {
    /// The kernel the batch runs: the exact one, or the hybrid one (iterative, exact
    /// fallback for real–real pairs only) for both iterative kinds (Cor. 5.3).
    fn batch_kind(&self) -> KernelKind {
        match self.kernel {
            KernelKind::Exact => KernelKind::Exact,
            _ => KernelKind::Hybrid,
        }
    }

    /// Culling bounds of soup triangle `i` of A or B (B's in A's frame), cached per
    /// soup index for the call.
    fn bound(&self, s: &mut Scratch, i: u32, of_a: bool) -> Bound {
        let iu = i as usize;
        if of_a {
            // Precomputed with the node boxes (A's frame is the tree's).
            if let Some(b) = self.boxes.and_then(|(nb, _)| nb.soup.get(iu)) {
                return *b;
            }
            if s.a_stamp[iu] != s.stamp {
                s.a_stamp[iu] = s.stamp;
                s.a_sph[iu] = Bound::of(&self.a.soup[iu]);
            }
            s.a_sph[iu]
        } else {
            b_tri(s, self.b, self.b_to_a, i);
            s.b_sph[iu]
        }
    }

    /// Bounding sphere of an element's halo (its triangle's sphere grown by
    /// `offset + ε`), B's in A's frame.
    fn sph(&self, s: &mut Scratch, e: El, of_a: bool) -> [f32; 4] {
        let tree = if of_a { self.a } else { self.b };
        let (i, h) = if e.real {
            (e.idx, 0.0)
        } else {
            let n = &tree.nodes[e.idx as usize];
            (n.tri, n.offset)
        };
        let mut sp = self.bound(s, i, of_a).sph;
        sp[3] += h + if of_a { self.eps_a } else { self.eps_b };
        sp
    }

    /// Box of an element's real geometry in A's frame (its triangle's box for a real
    /// triangle, the node box for a surrogate; B's posed, cached per call).
    fn el_box(&self, s: &mut Scratch, e: El, of_a: bool, nb: (&NodeBoxes, &NodeBoxes)) -> Aabb {
        if e.real {
            let b = self.bound(s, e.idx, of_a);
            return (b.bmin, b.bmax);
        }
        self.node_box(s, e.idx, of_a, nb)
    }

    /// [`Ctx::sph`] and [`Ctx::el_box`] of one element from one bounds lookup.
    fn sph_box(
        &self,
        s: &mut Scratch,
        e: El,
        of_a: bool,
        nb: (&NodeBoxes, &NodeBoxes),
    ) -> ([f32; 4], Aabb) {
        let eps = if of_a { self.eps_a } else { self.eps_b };
        if e.real {
            let b = self.bound(s, e.idx, of_a);
            let mut sp = b.sph;
            sp[3] += eps;
            return (sp, (b.bmin, b.bmax));
        }
        let tree = if of_a { self.a } else { self.b };
        let n = &tree.nodes[e.idx as usize];
        let mut sp = self.bound(s, n.tri, of_a).sph;
        sp[3] += n.offset + eps;
        (sp, self.node_box(s, e.idx, of_a, nb))
    }

    /// [`Ctx::sph_box`] of an element with its slack magnitudes, once per query.
    fn cull(&self, s: &mut Scratch, e: El, of_a: bool, nb: (&NodeBoxes, &NodeBoxes)) -> Cull {
        let tree = if of_a { self.a } else { self.b };
        let key = e.idx as usize + if e.real { tree.nodes.len() } else { 0 };
        let stamp = s.stamp;
        let hit = if of_a {
            s.cull_a.hit(key, stamp)
        } else {
            s.cull_b.hit(key, stamp)
        };
        if let Some(c) = hit {
            return c;
        }
        let (sph, bx) = self.sph_box(s, e, of_a, nb);
        let c = Cull {
            sph,
            smag: centre_mag(&sph),
            bx,
            bmag: box_mag(&bx),
        };
        if of_a {
            s.cull_a.set(key, stamp, c);
        } else {
            s.cull_b.set(key, stamp, c);
        }
        c
    }

    /// Box of node `n` of A or B in A's frame and its [`box_mag`] (B's box posed once per
    /// query; no sphere: a child node dropped by its box never needs one).
    #[inline]
    fn node_box_mag(
        &self,
        s: &mut Scratch,
        n: u32,
        of_a: bool,
        nb: (&NodeBoxes, &NodeBoxes),
    ) -> (Aabb, f32) {
        let bx = self.node_box(s, n, of_a, nb);
        (bx, box_mag(&bx))
    }

    /// Box of node `n` of A or B in A's frame.
    fn node_box(&self, s: &mut Scratch, n: u32, of_a: bool, nb: (&NodeBoxes, &NodeBoxes)) -> Aabb {
        let i = n as usize;
        if of_a {
            return nb.0.boxes[i];
        }
        if s.box_stamp[i] != s.stamp {
            s.box_stamp[i] = s.stamp;
            s.b_box[i] = posed_by(&nb.1.boxes[i], self.b_to_a, &self.rot);
        }
        s.b_box[i]
    }

    /// Oriented box of node `n` of A or B in A's frame (B's posed, cached per call).
    fn node_obb(&self, s: &mut Scratch, n: u32, of_a: bool, nb: (&NodeBoxes, &NodeBoxes)) -> Obb {
        let i = n as usize;
        if of_a {
            return nb.0.obbs[i];
        }
        if s.obb_stamp[i] != s.stamp {
            s.obb_stamp[i] = s.stamp;
            s.b_obb[i] = nb.1.obbs[i].posed_by(self.b_to_a, &self.rot);
        }
        s.b_obb[i]
    }

    /// The oriented bound of element `e` of A or B in A's frame: its node's oriented box,
    /// or a real triangle with its bounds.
    fn near(&self, s: &mut Scratch, e: El, of_a: bool, nb: (&NodeBoxes, &NodeBoxes)) -> Near {
        if !e.real {
            return Near::Box(self.node_obb(s, e.idx, of_a, nb));
        }
        let t = if of_a {
            self.a.soup[e.idx as usize]
        } else {
            b_tri(s, self.b, self.b_to_a, e.idx)
        };
        Near::Tri(t, self.bound(s, e.idx, of_a))
    }

    /// Whether the real triangle `t` of A (`of_a`) or B is more than `margin` \[m\] from the
    /// oriented box `o` of a node of the other tree (both in A's frame).
    fn tri_apart(&self, s: &mut Scratch, t: El, of_a: bool, o: &Obb, margin: f32) -> bool {
        let tri = if of_a {
            self.a.soup[t.idx as usize]
        } else {
            b_tri(s, self.b, self.b_to_a, t.idx)
        };
        let bt = self.bound(s, t.idx, of_a);
        obb_tri_apart(o, &tri, &bt, margin)
    }

    /// Whether the boxes of elements `x` (A) and `y` (B) prove them farther apart than
    /// `ε_a + ε_b` (false without node boxes).
    fn boxes_apart(&self, s: &mut Scratch, x: El, y: El) -> bool {
        let Some(nb) = self.boxes else {
            return false;
        };
        let (bx, by) = (self.el_box(s, x, true, nb), self.el_box(s, y, false, nb));
        boxes_apart(&bx, &by, self.eps_a + self.eps_b)
    }

    /// Triangle, halo and culling bounds of an element of A or B (B's in A's frame),
    /// from one node lookup.
    #[inline]
    fn side_bound(&self, s: &mut Scratch, e: El, of_a: bool) -> (Tri, f32, Bound) {
        let (tree, eps) = if of_a {
            (self.a, self.eps_a)
        } else {
            (self.b, self.eps_b)
        };
        let (i, off) = if e.real {
            (e.idx, 0.0)
        } else {
            let n = &tree.nodes[e.idx as usize];
            (n.tri, n.offset)
        };
        let t = if of_a {
            tree.soup[i as usize]
        } else {
            b_tri(s, self.b, self.b_to_a, i)
        };
        let b = if of_a {
            self.bound(s, i, true)
        } else {
            s.b_sph[i as usize]
        };
        (t, off + eps, b)
    }

    /// Checks pair `(ea, eb)`, counting it: pairs the conservative pre-screen proves
    /// separated are answered at once, iterative surrogate pairs that pass it are
    /// unfolded without a kernel call (see [`Check`]), the rest are queued under `tag`.
    fn push(&self, s: &mut Scratch, ea: El, eb: El, tag: u32, st: &mut LevelStats) -> Check {
        let level = ea.level.max(eb.level);
        st.checks[(level as usize).min(MAX_LEVELS - 1)] += 1;
        let (t1, h1, b1) = self.side_bound(s, ea, true);
        let (t2, h2, b2) = self.side_bound(s, eb, false);
        let fine = ea.real && eb.real;
        let margin = if fine {
            st.fine += 1;
            h1 + h2
        } else {
            let m = h1 + h2;
            m + 8.0 * f32::EPSILON * b1.mag.max(b2.mag) + 1e-6 * m
        };
        if planes_apart(&t1, &b1, &t2, &b2, margin) {
            return Check::Separated;
        }
        if !fine && self.kernel != KernelKind::Exact {
            // Surrogate pairs never reach the iterative kernel: the culling tests
            // (conservative for the padded margin) prune, anything else is unfolded.
            // Measured on the vs_parry bench, running the kernel first costs more than
            // the few extra unfolds it would save (most survivors come back contact or
            // not converged).
            return Check::Unfold(h1, h2);
        }
        if fine && self.decide {
            s.fine.push(&t1, &t2, margin, tag, true);
            s.fine_tags.push(tag);
        } else {
            s.batch.push(&t1, &t2, margin, tag, fine);
        }
        Check::Queued(h1, h2)
    }

    /// Runs the queued chunk; fallbacks are counted in `st`.
    fn run(&self, s: &mut Scratch, st: &mut LevelStats) {
        let bs = s.batch.run(
            self.batch_kind(),
            &IterativeParams::default(),
            &mut s.results,
        );
        st.fallbacks += bs.fallbacks;
    }
}

/// Elements replacing node `n` when it is unfolded ([`SurrogateTree::unfolded`]).
fn children(tree: &SurrogateTree, n: u32, out: &mut Vec<El>) {
    out.extend(
        tree.unfolded(n)
            .map(|(idx, level, real)| El { idx, level, real }),
    );
}

/// The root as elements (its real triangles if the root is a leaf), into `out`.
fn roots(tree: &SurrogateTree, out: &mut Vec<El>) {
    out.clear();
    let r = &tree.nodes[0];
    if r.is_leaf() {
        out.extend((r.first..r.first + r.count).map(|t| El {
            idx: t,
            level: 0,
            real: true,
        }));
    } else {
        out.push(El {
            idx: 0,
            level: 0,
            real: false,
        });
    }
}

fn contact_of(ta: u32, tb: u32, r: &KernelResult) -> Option<TriContact> {
    match r {
        KernelResult::Contact(c) => Some(TriContact {
            p: c.p,
            q: c.q,
            dist: c.dist(),
            tri_a: ta,
            tri_b: tb,
        }),
        _ => None,
    }
}

/// What the descent hands its caller per chunk: the scratch, the chunk's pairs and, after
/// the distance kernel ran, its outcomes (tags index the chunk). Called once with `None`
/// before the kernel runs (the pair-set query moves its undecided pairs into the batch
/// then) and once with the outcomes.
pub(crate) type Sink<'o> = dyn FnMut(&mut Scratch, &[(El, El)], Option<&[PairOutcome<u32>]>) + 'o;

/// Simultaneous descent (Alg. 5), one breadth-first level of pending checks at a time,
/// each level streamed through the batch in chunks; real–real contacts into `out`.
pub(crate) fn hierarchy(
    cx: &Ctx,
    unfold: Unfold,
    s: &mut Scratch,
    out: &mut Vec<TriContact>,
    st: &mut LevelStats,
) {
    hierarchy_with(cx, unfold, s, st, &mut |_, chunk, results| {
        for o in results.unwrap_or(&[]) {
            let (ea, eb) = chunk[o.tag as usize];
            if ea.real && eb.real {
                out.extend(contact_of(ea.idx, eb.idx, &o.result));
            }
        }
    });
}

/// The descent of [`hierarchy`], handing each chunk's real–real outcomes to `sink`.
pub(crate) fn hierarchy_with(
    cx: &Ctx,
    unfold: Unfold,
    s: &mut Scratch,
    st: &mut LevelStats,
    sink: &mut Sink,
) {
    // Every buffer lives in the scratch: a query allocates nothing once it is warm (a
    // far pose costs a root test, see the `vs_parry` bench).
    let mut cur = std::mem::take(&mut s.cur);
    let mut next = std::mem::take(&mut s.next);
    let mut kids = std::mem::take(&mut s.kids);
    let mut halos = std::mem::take(&mut s.halos);
    s.cull_a.size(cx.a.nodes.len() + cx.a.soup.len());
    s.cull_b.size(cx.b.nodes.len() + cx.b.soup.len());
    roots(cx.a, &mut kids.a);
    roots(cx.b, &mut kids.b);
    for &x in &kids.a {
        for &y in &kids.b {
            if !cx.boxes_apart(s, x, y) {
                cur.push((x, y));
            }
        }
    }
    while !cur.is_empty() {
        for chunk in cur.chunks(CHUNK) {
            s.batch.clear();
            s.fine.clear();
            s.fine_tags.clear();
            halos.clear();
            for (i, &(ea, eb)) in chunk.iter().enumerate() {
                let c = cx.push(s, ea, eb, i as u32, st);
                if let Check::Unfold(h1, h2) = c {
                    kids.expand(cx, s, unfold, (ea, eb), (h1, h2), &mut next);
                }
                halos.push(c);
            }
            sink(s, chunk, None);
            cx.run(s, st);
            let results = std::mem::take(&mut s.results);
            sink(s, chunk, Some(&results));
            for o in &results {
                let (ea, eb) = chunk[o.tag as usize];
                if (ea.real && eb.real) || o.result == KernelResult::Separated {
                    continue;
                }
                if let Check::Queued(h1, h2) = halos[o.tag as usize] {
                    kids.expand(cx, s, unfold, (ea, eb), (h1, h2), &mut next);
                }
            }
            s.results = results;
        }
        std::mem::swap(&mut cur, &mut next);
        next.clear();
    }
    s.cur = cur;
    s.next = next;
    s.kids = kids;
    s.halos = halos;
}

/// Buffers for unfolding one pair (kept in [`Scratch`]).
#[derive(Debug, Default)]
pub(crate) struct Kids {
    a: Vec<El>,
    b: Vec<El>,
    sph_a: Vec<[f32; 4]>,
    sph_b: Vec<[f32; 4]>,
    /// Culling data of the unfolded elements (node boxes in use).
    lanes_a: Lanes,
    lanes_b: Lanes,
    /// Which child pairs survive the culling tests, per lane.
    keep: Vec<bool>,
}

/// Oriented bound of the single element on the unopened side of an unfolding.
#[derive(Clone, Copy, Debug)]
enum Near {
    /// A node's oriented box.
    Box(Obb),
    /// A real triangle and its bounds.
    Tri(Tri, Bound),
}

/// The other side's element of an unfolded pair (the single element on an unopened side,
/// or the parent node of the other opened side): its box with [`box_mag`] and its
/// oriented bound (when the oriented boxes are in use).
type Other = ((Aabb, f32), Option<Near>);

/// The elements replacing node `n` of A (`of_a`) or B, leaving out child nodes whose box
/// or oriented box is more than `margin` from `other` (the other side's element of the
/// pair: no real triangle below it, hence none of its children, comes within `margin`).
#[allow(clippy::too_many_arguments)]
fn gated_children(
    cx: &Ctx,
    s: &mut Scratch,
    of_a: bool,
    n: u32,
    other: Other,
    margin: f32,
    nb: (&NodeBoxes, &NodeBoxes),
    out: &mut Vec<El>,
) {
    let tree = if of_a { cx.a } else { cx.b };
    let node = tree.nodes[n as usize];
    let ((o, om), near) = &other;
    for c in node.first..node.first + node.count {
        // The tests are symmetric in their two boxes.
        let (bc, bm) = cx.node_box_mag(s, c, of_a, nb);
        if boxes_apart_mag(&bc, bm, o, *om, margin) {
            continue;
        }
        if let Some(near) = near {
            let oc = cx.node_obb(s, c, of_a, nb);
            let apart = match near {
                Near::Box(ob) => obbs_apart(&oc, ob, margin),
                Near::Tri(t, bt) => obb_tri_apart(&oc, t, bt, margin),
            };
            if apart {
                continue;
            }
        }
        let ch = &tree.nodes[c as usize];
        if ch.is_leaf() {
            out.extend((ch.first..ch.first + ch.count).map(|idx| El {
                idx,
                level: ch.level,
                real: true,
            }));
        } else {
            out.push(El {
                idx: c,
                level: ch.level,
                real: false,
            });
        }
    }
}

impl Kids {
    /// Unfolds the surrogate pair `(ea, eb)` with halos `(h1, h2)` under policy `unfold`,
    /// appending the child pairs whose bounding spheres meet to `next`.
    fn expand(
        &mut self,
        cx: &Ctx,
        s: &mut Scratch,
        unfold: Unfold,
        (ea, eb): (El, El),
        (h1, h2): (f32, f32),
        next: &mut Vec<(El, El)>,
    ) {
        let open_a = !ea.real && (eb.real || unfold == Unfold::Both || h1 >= h2);
        let open_b = !eb.real && (ea.real || unfold == Unfold::Both || h2 > h1);
        self.a.clear();
        self.b.clear();
        let Some(nb) = cx.boxes else {
            if open_a {
                children(cx.a, ea.idx, &mut self.a);
            } else {
                self.a.push(ea);
            }
            if open_b {
                children(cx.b, eb.idx, &mut self.b);
            } else {
                self.b.push(eb);
            }
            self.sph_a.clear();
            self.sph_a
                .extend(self.a.iter().map(|&x| cx.sph(s, x, true)));
            self.sph_b.clear();
            self.sph_b
                .extend(self.b.iter().map(|&y| cx.sph(s, y, false)));
            for (&x, px) in self.a.iter().zip(&self.sph_a) {
                for (&y, py) in self.b.iter().zip(&self.sph_b) {
                    if !spheres_apart(px, py) {
                        next.push((x, y));
                    }
                }
            }
            return;
        };
        let margin = cx.eps_a + cx.eps_b;
        // Child nodes (leaves included, before their triangles are listed) whose boxes
        // are apart from the other side's element of the pair — the single element when
        // that side stays, its parent node when both are opened (every child pair then
        // lies within it) — are dropped whole.
        let other = |s: &mut Scratch, e: El, of_a: bool| -> Other {
            let c = cx.cull(s, e, of_a, nb);
            ((c.bx, c.bmag), cx.oriented.then(|| cx.near(s, e, of_a, nb)))
        };
        if open_a {
            let ob = other(s, eb, false);
            gated_children(cx, s, true, ea.idx, ob, margin, nb, &mut self.a);
        } else {
            self.a.push(ea);
        }
        if open_b {
            let oa = other(s, ea, true);
            gated_children(cx, s, false, eb.idx, oa, margin, nb, &mut self.b);
        } else {
            self.b.push(eb);
        }
        // The tests are symmetric: the longer side forms the lanes, the pairs are listed
        // in the same order either way (A's elements outer, B's inner).
        if let [y] = self.b[..] {
            let yc = cx.cull(s, y, false, nb);
            fill_lanes(cx, s, &self.a, true, nb, &mut self.lanes_a);
            self.lanes_a.survivors(&yc, margin, &mut self.keep);
            // A real triangle against a node: the node's oriented box too.
            let y_obb = (cx.oriented && !y.real).then(|| cx.node_obb(s, y.idx, false, nb));
            for (&x, &k) in self.a.iter().zip(&self.keep) {
                if k && !y_obb.is_some_and(|o| x.real && cx.tri_apart(s, x, true, &o, margin)) {
                    next.push((x, y));
                }
            }
        } else {
            fill_lanes(cx, s, &self.b, false, nb, &mut self.lanes_b);
            for &x in &self.a {
                let xc = cx.cull(s, x, true, nb);
                self.lanes_b.survivors(&xc, margin, &mut self.keep);
                let x_obb = (cx.oriented && !x.real).then(|| cx.node_obb(s, x.idx, true, nb));
                for (&y, &k) in self.b.iter().zip(&self.keep) {
                    if !k {
                        continue;
                    }
                    // Both sides opened: the oriented boxes of a pair with a node (the
                    // gate tested each child against the other side's parent only).
                    let apart = cx.oriented
                        && match (x_obb, y.real) {
                            (Some(o), true) => cx.tri_apart(s, y, false, &o, margin),
                            (Some(o), false) => {
                                obbs_apart(&o, &cx.node_obb(s, y.idx, false, nb), margin)
                            }
                            (None, false) => {
                                let o = cx.node_obb(s, y.idx, false, nb);
                                cx.tri_apart(s, x, true, &o, margin)
                            }
                            (None, true) => false,
                        };
                    if !apart {
                        next.push((x, y));
                    }
                }
            }
        }
    }
}

/// The [`Cull`] data of elements `els` of A (`of_a`) or B into `out` (cached per query).
fn fill_lanes(
    cx: &Ctx,
    s: &mut Scratch,
    els: &[El],
    of_a: bool,
    nb: (&NodeBoxes, &NodeBoxes),
    out: &mut Lanes,
) {
    out.resize(els.len());
    for (i, &e) in els.iter().enumerate() {
        let c = cx.cull(s, e, of_a, nb);
        out.put(i, &c);
    }
}

/// Every real triangle of A against every real triangle of B (Alg. 2), streamed through
/// the batch.
pub(crate) fn flat(cx: &Ctx, s: &mut Scratch, out: &mut Vec<TriContact>, st: &mut LevelStats) {
    let reals = |t: &SurrogateTree| -> Vec<El> {
        t.nodes
            .iter()
            .filter(|n| n.is_leaf())
            .flat_map(|n| {
                (n.first..n.first + n.count).map(move |i| El {
                    idx: i,
                    level: n.level,
                    real: true,
                })
            })
            .collect()
    };
    let (ea, eb) = (reals(cx.a), reals(cx.b));
    let mut chunk: Vec<(El, El)> = Vec::with_capacity(CHUNK);
    let mut flush = |chunk: &mut Vec<(El, El)>, s: &mut Scratch, st: &mut LevelStats| {
        s.batch.clear();
        for (i, &(x, y)) in chunk.iter().enumerate() {
            cx.push(s, x, y, i as u32, st);
        }
        cx.run(s, st);
        for o in &s.results {
            let (x, y) = chunk[o.tag as usize];
            out.extend(contact_of(x.idx, y.idx, &o.result));
        }
        chunk.clear();
    };
    for &x in &ea {
        for &y in &eb {
            chunk.push((x, y));
            if chunk.len() == CHUNK {
                flush(&mut chunk, s, st);
            }
        }
    }
    if !chunk.is_empty() {
        flush(&mut chunk, s, st);
    }
}
