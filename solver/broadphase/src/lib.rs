//! Broad phase over bounding spheres (radius includes the halo ε): all-pairs, linked cells
//! and the hierarchical grid of Ogarko & Luding (seed 001). Lengths in metres.
#![warn(missing_docs)]
