//! The CUDA device: driver and NVRTC loaded at run time, the context and stream, and the
//! kernels compiled for the device's architecture.

use crate::error::{driver, GpuError};
use crate::kernels::program;
use cudarc::driver::{CudaContext, CudaFunction, CudaStream};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileError, CompileOptions};
use std::sync::Arc;

/// Compile-time choices of the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DetectorOptions {
    /// Blocks of 256 threads of `opm_pairs` that must fit on one multiprocessor (the
    /// second argument of its `__launch_bounds__`): 1 lets the compiler use up to 255
    /// registers per thread, 2 caps them at 128, 3 at 80 (spilling the rest). Default 2:
    /// on an H100 it was 6–15 % faster than 1 (`gpu_ellipsoids --tune`,
    /// docs/performance.md).
    pub opm_min_blocks: u32,
}

impl Default for DetectorOptions {
    fn default() -> Self {
        DetectorOptions { opm_min_blocks: 2 }
    }
}

/// The compiled kernels (names as in [`crate::kernels::KERNEL_NAMES`]).
pub(crate) struct Kernels {
    pub prep_bodies: CudaFunction,
    pub bin_count: CudaFunction,
    pub bin_scatter: CudaFunction,
    pub bin_pairs_chm: CudaFunction,
    pub scan_tiles: CudaFunction,
    pub scan_add: CudaFunction,
    pub opm_pairs: CudaFunction,
    pub contact_scatter: CudaFunction,
    pub contact_sort: CudaFunction,
    pub contact_gather: CudaFunction,
}

/// An opened device with the compiled kernels.
pub struct Device {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) k: Kernels,
    name: String,
    arch: String,
}

impl Device {
    /// Opens device `ordinal` and compiles the kernels with NVRTC for its architecture
    /// (`compute_XY` PTX, `--fmad=false` so products and sums round as on the CPU).
    ///
    /// Without a driver, NVRTC or device: [`GpuError::Unavailable`], never a panic.
    pub fn open(ordinal: usize, options: &DetectorOptions) -> Result<Self, GpuError> {
        if !(1..=8).contains(&options.opm_min_blocks) {
            return Err(GpuError::Config(format!(
                "opm_min_blocks = {} is not in 1..=8",
                options.opm_min_blocks
            )));
        }
        // SAFETY: only tries to dlopen the libraries; nothing is called through them.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(GpuError::Unavailable(
                "libcuda (the NVIDIA driver) was not found".into(),
            ));
        }
        // SAFETY: as above.
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            return Err(GpuError::Unavailable(
                "libnvrtc was not found: put the CUDA toolkit's lib64 on LD_LIBRARY_PATH".into(),
            ));
        }
        let count = CudaContext::device_count()
            .map_err(|e| GpuError::Unavailable(format!("the CUDA driver did not start: {e}")))?;
        if ordinal as i64 >= i64::from(count) {
            return Err(GpuError::Unavailable(format!(
                "no CUDA device {ordinal} ({count} present)"
            )));
        }
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| GpuError::Unavailable(format!("no context on device {ordinal}: {e}")))?;
        // SAFETY: every buffer of this crate lives on the one stream below, so the
        // cross-stream event bookkeeping is not needed.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.default_stream();
        let (major, minor) = ctx
            .compute_capability()
            .map_err(driver("capability query"))?;
        let arch = format!("compute_{major}{minor}");
        let name = ctx.name().map_err(driver("device name"))?;
        let opts = CompileOptions {
            fmad: Some(false),
            options: vec![
                format!("--gpu-architecture={arch}"),
                "--std=c++17".into(),
                format!("-DOPM_MIN_BLOCKS={}", options.opm_min_blocks),
            ],
            ..Default::default()
        };
        let ptx = compile_ptx_with_opts(program(), opts).map_err(|e| GpuError::Compile {
            arch: arch.clone(),
            log: match e {
                CompileError::CompileError { log, .. } => log.to_string_lossy().into_owned(),
                other => other.to_string(),
            },
        })?;
        let module = ctx.load_module(ptx).map_err(driver("module load"))?;
        let f = |n: &str| module.load_function(n).map_err(driver("kernel lookup"));
        let k = Kernels {
            prep_bodies: f("prep_bodies")?,
            bin_count: f("bin_count")?,
            bin_scatter: f("bin_scatter")?,
            bin_pairs_chm: f("bin_pairs_chm")?,
            scan_tiles: f("scan_tiles")?,
            scan_add: f("scan_add")?,
            opm_pairs: f("opm_pairs")?,
            contact_scatter: f("contact_scatter")?,
            contact_sort: f("contact_sort")?,
            contact_gather: f("contact_gather")?,
        };
        Ok(Device {
            ctx,
            stream,
            k,
            name,
            arch,
        })
    }

    /// The device's name, e.g. "NVIDIA H100 80GB HBM3".
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The virtual architecture the kernels were compiled for, e.g. `compute_90`.
    pub fn arch(&self) -> &str {
        &self.arch
    }

    /// Registers per thread and local (spill/stack) bytes per thread of every kernel, as
    /// the driver's JIT compiled them: `(name, registers, local bytes)`.
    pub fn kernel_resources(&self) -> Result<Vec<(&'static str, i32, i32)>, GpuError> {
        let k = &self.k;
        let list = [
            ("prep_bodies", &k.prep_bodies),
            ("bin_count", &k.bin_count),
            ("bin_scatter", &k.bin_scatter),
            ("bin_pairs_chm", &k.bin_pairs_chm),
            ("scan_tiles", &k.scan_tiles),
            ("scan_add", &k.scan_add),
            ("opm_pairs", &k.opm_pairs),
            ("contact_scatter", &k.contact_scatter),
            ("contact_sort", &k.contact_sort),
            ("contact_gather", &k.contact_gather),
        ];
        list.iter()
            .map(|(name, f)| {
                let regs = f.num_regs().map_err(driver("kernel attribute"))?;
                let local = f.local_size_bytes().map_err(driver("kernel attribute"))?;
                Ok((*name, regs, local))
            })
            .collect()
    }

    /// Free and total device memory \[bytes\].
    pub fn memory(&self) -> Result<(usize, usize), GpuError> {
        self.ctx.mem_get_info().map_err(driver("memory query"))
    }
}

/// Whether a CUDA device can be opened here; the error says why not.
pub fn probe() -> Result<String, GpuError> {
    Device::open(0, &DetectorOptions::default()).map(|d| format!("{} ({})", d.name(), d.arch()))
}
