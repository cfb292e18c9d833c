//! Ellipsoid contact detection of seed 002 (Pazouki, Mazhar & Negrut, *Parallel collision
//! detection of ellipsoids*) on an NVIDIA GPU, and the CPU path it is checked against.
//!
//! * [`GpuEllipsoidDetector`] ([`detector`]): the three levels of the seed on the device —
//!   bounding-sphere binning (§4, stages 1–8: [`plan`], `kernels/binning.cu`), ChM (§3,
//!   `kernels/chm.cuh`) on the halo-inflated ellipsoids of every bounding pair, OpM (§2,
//!   `kernels/opm.cuh`, Newton with the analytic gradient and Hessian in `f64`) on the
//!   survivors, and the contact list sorted by pair (stages 9–10, `kernels/contacts.cu`).
//!   Device buffers persist across calls.
//! * [`cpu::detect_cpu`]: the same contract on the CPU with rayon (`msdem-broadphase`'s
//!   bins, `msdem-ellipsoid`'s ChM and OpM, the solver core's halo rule), the reference.
//! * [`compare::compare`]: agreement of two detections within stated tolerances.
//! * [`workload`]: seeded sets, among them seed 002 Table 2's spheres.
//!
//! The CUDA driver and NVRTC are loaded at run time (`cudarc`'s dynamic loading): the
//! crate builds and its host-side parts run anywhere; [`GpuEllipsoidDetector::new`] returns
//! [`GpuError::Unavailable`] where there is no driver, NVRTC or device. Kernels are CUDA C
//! (`kernels/*.cu*`, embedded with `include_str!`), compiled at start-up for the device's
//! architecture without fused multiply-add, so each product and sum rounds as on the CPU.
#![warn(missing_docs)]

pub mod body;
pub mod compare;
pub mod cpu;
pub mod detector;
pub mod device;
pub mod error;
pub mod kernels;
pub mod pack;
pub mod plan;
pub mod scan;
pub mod timings;
pub mod workload;
mod workspace;

pub use body::{Detection, DetectionStats, EllipsoidBody, PairContact};
pub use detector::GpuEllipsoidDetector;
pub use device::DetectorOptions;
pub use error::GpuError;
pub use timings::{GpuTimings, StageTimings};
