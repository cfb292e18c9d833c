//! Host driver of the device exclusive scan (`scan.cu`): tiles of [`SCAN_TILE`] items are
//! scanned and their totals written one level up, each level scanned the same way until a
//! level is one tile, then the scanned totals are added back down.

use crate::device::Device;
use crate::error::{driver, GpuError};
use crate::kernels::SCAN_TILE;
use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

/// Lengths of the tile-total arrays of a scan of `n` items: `⌈n/T⌉`, `⌈⌈n/T⌉/T⌉`, … down
/// to 1 (one entry for `n ≤ T`).
pub fn level_sizes(n: usize) -> Vec<usize> {
    let mut sizes = vec![n.div_ceil(SCAN_TILE).max(1)];
    while let Some(&last) = sizes.last().filter(|&&s| s > 1) {
        sizes.push(last.div_ceil(SCAN_TILE));
    }
    sizes
}

fn tiles_config(tiles: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (tiles as u32, 1, 1),
        block_dim: ((SCAN_TILE / 4) as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Scans `data[0..n)` in place (exclusive); `levels` is grown as needed and reused.
pub(crate) fn exclusive_scan(
    dev: &Device,
    data: &mut CudaSlice<u32>,
    n: usize,
    levels: &mut Vec<CudaSlice<u32>>,
) -> Result<(), GpuError> {
    let sizes = level_sizes(n);
    for (k, &s) in sizes.iter().enumerate() {
        if levels.len() <= k {
            levels.push(
                dev.stream
                    .alloc_zeros(s)
                    .map_err(driver("scan allocation"))?,
            );
        } else if levels[k].len() < s {
            levels[k] = dev
                .stream
                .alloc_zeros(s)
                .map_err(driver("scan allocation"))?;
        }
    }
    let (st, sk) = (&dev.stream, &dev.k);
    let n32 = n as u32;
    let mut b = st.launch_builder(&sk.scan_tiles);
    b.arg(&mut *data).arg(&n32).arg(&mut levels[0]);
    // SAFETY: the kernel reads and writes data[0..n) and levels[0][0..⌈n/T⌉), both allocated.
    unsafe { b.launch(tiles_config(sizes[0])) }.map_err(driver("scan_tiles"))?;
    for k in 1..sizes.len() {
        let (lo, hi) = levels.split_at_mut(k);
        let m = sizes[k - 1] as u32;
        let mut b = st.launch_builder(&sk.scan_tiles);
        b.arg(&mut lo[k - 1]).arg(&m).arg(&mut hi[0]);
        // SAFETY: as above, one level up.
        unsafe { b.launch(tiles_config(sizes[k])) }.map_err(driver("scan_tiles"))?;
    }
    for k in (1..sizes.len().saturating_sub(1)).rev() {
        let (lo, hi) = levels.split_at_mut(k);
        let m = sizes[k - 1] as u32;
        let mut b = st.launch_builder(&sk.scan_add);
        b.arg(&mut lo[k - 1]).arg(&m).arg(&hi[0]);
        // SAFETY: reads hi[0][0..sizes[k]), writes lo[k-1][0..sizes[k-1]).
        unsafe { b.launch(tiles_config(sizes[k])) }.map_err(driver("scan_add"))?;
    }
    if sizes.len() > 1 {
        let mut b = st.launch_builder(&sk.scan_add);
        b.arg(&mut *data).arg(&n32).arg(&levels[0]);
        // SAFETY: reads levels[0][0..sizes[0]), writes data[0..n).
        unsafe { b.launch(tiles_config(sizes[0])) }.map_err(driver("scan_add"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_sizes_shrink_to_one_tile() {
        assert_eq!(level_sizes(0), vec![1]);
        assert_eq!(level_sizes(SCAN_TILE), vec![1]);
        assert_eq!(level_sizes(SCAN_TILE + 1), vec![2, 1]);
        assert_eq!(
            level_sizes(SCAN_TILE * SCAN_TILE + 5),
            vec![SCAN_TILE + 1, 2, 1]
        );
    }
}
