//! The crate's error type.

use cudarc::driver::DriverError;
use msdem_broadphase::BroadPhaseError;

/// Everything that can go wrong in GPU (or reference CPU) detection.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No CUDA driver, no NVRTC library or no device: the GPU path cannot run here.
    #[error("GpuUnavailable: {0}")]
    Unavailable(String),
    /// A CUDA driver call failed (allocation, copy, launch).
    #[error("CUDA driver error during {what}: {source}")]
    Driver {
        /// The operation that failed.
        what: &'static str,
        /// The driver's error.
        source: DriverError,
    },
    /// NVRTC rejected the kernel source (a defect of this crate, not of the input).
    #[error("NVRTC could not compile the ellipsoid kernels for {arch}: {log}")]
    Compile {
        /// The virtual architecture compiled for, e.g. `compute_90`.
        arch: String,
        /// The compiler's log.
        log: String,
    },
    /// An input body is invalid; `index` is its position in the input slice.
    #[error("body {index}: {message}")]
    BadBody {
        /// Index of the offending body.
        index: usize,
        /// What is wrong, with the value.
        message: String,
    },
    /// The set is too large for the device's index widths or memory.
    #[error("{0}")]
    TooLarge(String),
    /// A detector option is out of range.
    #[error("detector option: {0}")]
    Config(String),
    /// The CPU reference broad phase refused the set.
    #[error("CPU broad phase: {0}")]
    BroadPhase(#[from] BroadPhaseError),
}

/// Attaches the operation name to a driver error.
pub(crate) fn driver(what: &'static str) -> impl FnOnce(DriverError) -> GpuError {
    move |source| GpuError::Driver { what, source }
}
