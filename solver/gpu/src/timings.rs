//! Timings of a GPU detection.

/// Times of the last [`crate::GpuEllipsoidDetector::detect`] \[ms\]: device intervals from CUDA
/// events, `wall_ms` from the host clock around the whole call.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GpuTimings {
    /// Host → device copy of the packed bodies.
    pub upload_ms: f64,
    /// All kernels, from the end of the upload to the start of the download (includes the
    /// two small counter reads the host needs to size launches).
    pub kernels_ms: f64,
    /// Device → host copy of the contacts.
    pub download_ms: f64,
    /// The whole call on the host clock: validation, packing, transfers, kernels, unpacking.
    pub wall_ms: f64,
    /// The kernels split by stage (CUDA events), summing to `kernels_ms`.
    pub stages: StageTimings,
}

/// Device time per stage of seed 002 §4 \[ms\].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimings {
    /// Stages 1–6: body preparation, bin counts, their scan, the bin-sorted entries.
    pub binning_ms: f64,
    /// Stage 8 with ChM: bounding pairs per bin and the ChM filter (and the counter read).
    pub pairs_chm_ms: f64,
    /// OpM on the ChM survivors.
    pub opm_ms: f64,
    /// Stages 9–10: the contacts counted, scanned, sorted by pair and gathered.
    pub ordering_ms: f64,
}
