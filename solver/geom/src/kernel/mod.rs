//! Triangle–triangle distance kernels (seed 000 §3, Alg. 4; DESIGN.md §4).
//!
//! Contract used by the tree traversal and the solver (filled in by the kernels work):
//!
//! * `closest_point_on_triangle(p, tri) -> (P32, f32 /*dist²*/)`
//! * `triangle_triangle_exact(t1, t2) -> ClosestPair` — exact closest points (distance 0
//!   and a common point when the triangles intersect);
//! * `contact(kind, t1, t2, margin) -> KernelResult` where `margin` is the sum of the two
//!   halo widths: contact iff distance ≤ margin.
//! * batched iterative/hybrid entry points for streaming pair buffers.
