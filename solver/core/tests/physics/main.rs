//! Physics of explicit steps on worlds built in memory ([`common::world`]): contact
//! dynamics, hierarchy against flat detection, hybrid against exact kernel, single-body
//! motion, kept active sets against the descent from the roots.

#[path = "../common/mod.rs"]
mod common;

mod contact;
mod detection;
mod ellipsoid;
mod explicit_kept;
mod hertz;
mod kept_memory;
mod kernels;
mod large_steps;
mod motion;
mod pair_set;
mod patches;
mod rolling;
mod skin;
mod smooth;
mod smooth_closest;
mod smooth_continuity;
mod smooth_mass;
mod smooth_reach;
mod smooth_unique;
mod sphere_patches;
