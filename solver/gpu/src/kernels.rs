//! The CUDA C source of the device stages, compiled by NVRTC at start-up
//! ([`crate::device::Device::open`]) as one program, in this order.

/// Source files in compile order: shared types, ChM (§3), OpM (§2), scan, binning (§4
/// stages 1–8), contacts (§4 stages 9–10).
pub const SOURCES: [(&str, &str); 6] = [
    ("common.cuh", include_str!("../kernels/common.cuh")),
    ("chm.cuh", include_str!("../kernels/chm.cuh")),
    ("opm.cuh", include_str!("../kernels/opm.cuh")),
    ("scan.cu", include_str!("../kernels/scan.cu")),
    ("binning.cu", include_str!("../kernels/binning.cu")),
    ("contacts.cu", include_str!("../kernels/contacts.cu")),
];

/// The kernels every detection launches (their `extern "C"` names).
pub const KERNEL_NAMES: [&str; 10] = [
    "prep_bodies",
    "bin_count",
    "bin_scatter",
    "bin_pairs_chm",
    "scan_tiles",
    "scan_add",
    "opm_pairs",
    "contact_scatter",
    "contact_sort",
    "contact_gather",
];

/// Doubles per prepared body (`struct Body` of `common.cuh`, 168 bytes).
pub const BODY_DOUBLES: usize = 21;

/// Items per scan tile (`SCAN_TILE` of `scan.cu`).
pub const SCAN_TILE: usize = 2048;

/// Threads per block of the per-item kernels.
pub const BLOCK: u32 = 256;

/// The whole program, each file preceded by a `#line` directive so NVRTC's messages name
/// the file and line.
pub fn program() -> String {
    let mut s = String::new();
    for (name, text) in SOURCES {
        s.push_str(&format!("#line 1 \"{name}\"\n"));
        s.push_str(text);
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_launched_kernel_is_defined_once_and_constants_match() {
        let p = program();
        for name in KERNEL_NAMES {
            let pattern = format!(" {name}(");
            let defs = p
                .lines()
                .filter(|l| l.contains("__global__") && l.contains(&pattern))
                .count();
            assert_eq!(defs, 1, "{name}");
        }
        assert!(p.contains("#define SCAN_ITEMS 4") && p.contains("#define SCAN_THREADS 512"));
        assert_eq!(SCAN_TILE, 512 * 4);
        assert!(p.contains(&format!(
            "#define PACKED_STRIDE {}",
            crate::pack::PACKED_STRIDE
        )));
        // struct Body: 3 + 9 + 3 + 1 + 1 doubles, 3 i64, 2 int = 21 × 8 bytes.
        assert_eq!(BODY_DOUBLES * 8, (3 + 9 + 3 + 1 + 1) * 8 + 3 * 8 + 2 * 4);
    }
}
