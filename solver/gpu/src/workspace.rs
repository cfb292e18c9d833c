//! The detector's persistent device workspace and the helpers that size it: device
//! buffers grown (never shrunk) across calls, pinned host buffers, launch shapes, and the
//! device-memory estimate checked before a larger set is accepted.

use crate::device::Device;
use crate::error::{driver, GpuError};
use crate::kernels::{BLOCK, BODY_DOUBLES};
use crate::pack::PACKED_STRIDE;
use crate::plan::MAX_ENTRIES_PER_BODY;
use cudarc::driver::{CudaSlice, DeviceRepr, LaunchConfig, PinnedHostSlice, ValidAsZeroBits};

/// Doubles and words per contact record (`REC_F`, `REC_U` of `contacts.cu`).
pub(crate) const REC_F: usize = 10;
pub(crate) const REC_U: usize = 4;

/// Device buffers reused across calls (grown, never shrunk).
pub(crate) struct Workspace {
    pub(crate) packed: CudaSlice<f64>,
    pub(crate) bodies: CudaSlice<f64>,
    pub(crate) bucket_count: CudaSlice<u32>,
    pub(crate) bucket_cursor: CudaSlice<u32>,
    pub(crate) entries: CudaSlice<u32>,
    pub(crate) counters: CudaSlice<u64>,
    pub(crate) survivors: CudaSlice<u64>,
    pub(crate) rec_f: CudaSlice<f64>,
    pub(crate) rec_u: CudaSlice<u32>,
    pub(crate) first_count: CudaSlice<u32>,
    pub(crate) first_cursor: CudaSlice<u32>,
    pub(crate) order: CudaSlice<u32>,
    pub(crate) out_f: CudaSlice<f64>,
    pub(crate) out_u: CudaSlice<u32>,
    pub(crate) scan_levels: Vec<CudaSlice<u32>>,
}

impl Workspace {
    /// One-element buffers, grown by the first detection.
    pub(crate) fn new(dev: &Device) -> Result<Self, GpuError> {
        let z64 = || {
            dev.stream
                .alloc_zeros::<f64>(1)
                .map_err(driver("allocation"))
        };
        let z32 = || {
            dev.stream
                .alloc_zeros::<u32>(1)
                .map_err(driver("allocation"))
        };
        let zu64 = |n| {
            dev.stream
                .alloc_zeros::<u64>(n)
                .map_err(driver("allocation"))
        };
        Ok(Workspace {
            packed: z64()?,
            bodies: z64()?,
            bucket_count: z32()?,
            bucket_cursor: z32()?,
            entries: z32()?,
            counters: zu64(4)?,
            survivors: zu64(1)?,
            rec_f: z64()?,
            rec_u: z32()?,
            first_count: z32()?,
            first_cursor: z32()?,
            order: z32()?,
            out_f: z64()?,
            out_u: z32()?,
            scan_levels: Vec::new(),
        })
    }
}

/// Page-locked host memory of `len` elements, reused while long enough (`exact`: only
/// when exactly that long, as a host → device copy takes the whole slice).
pub(crate) fn pinned<T: DeviceRepr + ValidAsZeroBits>(
    dev: &Device,
    slot: &mut Option<PinnedHostSlice<T>>,
    len: usize,
    exact: bool,
    flags: u32,
) -> Result<(), GpuError> {
    let fits = slot.as_ref().is_some_and(|p| {
        if exact {
            p.len() == len
        } else {
            p.len() >= len
        }
    });
    if !fits {
        *slot = None;
        let want = if exact {
            len
        } else {
            len.saturating_add(len / 4)
        }
        .max(1);
        // SAFETY: the memory is written (packing, or a device copy) before it is read.
        let p = unsafe { dev.ctx.alloc_pinned_with_flags::<T>(want, flags) }
            .map_err(driver("pinned host allocation"))?;
        *slot = Some(p);
    }
    Ok(())
}

pub(crate) fn grow<T: DeviceRepr + ValidAsZeroBits>(
    dev: &Device,
    buf: &mut CudaSlice<T>,
    len: usize,
) -> Result<(), GpuError> {
    if buf.len() < len {
        let want = len.saturating_add(len / 4).max(1);
        // Drop the old buffer first so the peak is not old + new.
        *buf = dev.stream.alloc_zeros(1).map_err(driver("allocation"))?;
        *buf = dev.stream.alloc_zeros(want).map_err(driver("allocation"))?;
    }
    Ok(())
}

pub(crate) fn zero<T: DeviceRepr + ValidAsZeroBits>(
    dev: &Device,
    buf: &mut CudaSlice<T>,
    len: usize,
) -> Result<(), GpuError> {
    dev.stream
        .memset_zeros(&mut buf.slice_mut(0..len))
        .map_err(driver("memset"))
}

pub(crate) fn per_item(n: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((n as u32).div_ceil(BLOCK).max(1), 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Device bytes one detection of `n` bodies with `survivors` ChM survivors needs.
pub(crate) fn bytes_needed(n: usize, buckets: usize, survivors: usize) -> usize {
    let per_body = 8 * (PACKED_STRIDE + BODY_DOUBLES) + 4 * (MAX_ENTRIES_PER_BODY + 2);
    let per_survivor = 8 + 8 * REC_F + 4 * REC_U + 4 + 8 * REC_F + 4 * REC_U;
    n * per_body + buckets * 8 + survivors * per_survivor
}
