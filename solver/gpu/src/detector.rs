//! [`GpuEllipsoidDetector`]: seed 002's three levels on the device — bounding-sphere
//! binning (§4), ChM (§3) on the inflated ellipsoids of every bounding pair, OpM (§2) on
//! the survivors — with device buffers kept between calls.
//!
//! Per call: validate and pack on the host (11 doubles per body), one upload, then
//! `prep_bodies` → `bin_count` → scan of the bucket counts → `bin_scatter` →
//! `bin_pairs_chm` (a 16-byte read of the pair counters; the survivor list grows and the
//! stage reruns if it overflowed) → `opm_pairs` → scan of the per-body contact counts (a
//! 4-byte read of the total) → `contact_scatter` → `contact_sort` → `contact_gather`, and
//! one download of the contacts in `(i, j)` order.

use crate::body::{Detection, DetectionStats, EllipsoidBody, PairContact};
use crate::device::{DetectorOptions, Device};
use crate::error::{driver, GpuError};
use crate::kernels::BODY_DOUBLES;
use crate::pack::{validate, validate_and_pack, PACKED_STRIDE};
use crate::plan::{BinPlan, MAX_ENTRIES_PER_BODY};
use crate::scan::exclusive_scan;
use crate::timings::{GpuTimings, StageTimings};
use crate::workspace::{bytes_needed, grow, per_item, pinned, zero, Workspace, REC_F, REC_U};
use cudarc::driver::sys::{CUevent_flags, CU_MEMHOSTALLOC_WRITECOMBINED};
use cudarc::driver::{CudaEvent, PinnedHostSlice, PushKernelArg};
use rayon::prelude::*;
use std::time::Instant;

/// Ellipsoid contact detection on a CUDA device (see the module doc).
pub struct GpuEllipsoidDetector {
    dev: Device,
    ws: Workspace,
    /// Pinned upload buffer (write-combined), exactly the last set's packed length.
    host_packed: Option<PinnedHostSlice<f64>>,
    /// Pinned download buffers, grown as needed.
    host_f: Option<PinnedHostSlice<f64>>,
    host_u: Option<PinnedHostSlice<u32>>,
    /// Largest set seen: device memory is checked before growing past it.
    max_bodies: usize,
    timings: GpuTimings,
    events: [CudaEvent; 7],
}

impl GpuEllipsoidDetector {
    /// Opens CUDA device 0 and compiles the kernels. Without a usable GPU:
    /// [`GpuError::Unavailable`].
    pub fn new() -> Result<Self, GpuError> {
        Self::with_options(&DetectorOptions::default())
    }

    /// [`new`](Self::new) with explicit kernel options.
    pub fn with_options(options: &DetectorOptions) -> Result<Self, GpuError> {
        let dev = Device::open(0, options)?;
        let ws = Workspace::new(&dev)?;
        let timed = || {
            dev.ctx
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(driver("event"))
        };
        let events = [
            timed()?,
            timed()?,
            timed()?,
            timed()?,
            timed()?,
            timed()?,
            timed()?,
        ];
        Ok(GpuEllipsoidDetector {
            dev,
            ws,
            host_packed: None,
            host_f: None,
            host_u: None,
            max_bodies: 0,
            timings: GpuTimings::default(),
            events,
        })
    }

    /// The device the detector runs on.
    pub fn device(&self) -> &Device {
        &self.dev
    }

    /// Times of the last successful [`detect`](Self::detect).
    pub fn last_timings(&self) -> GpuTimings {
        self.timings
    }

    /// All contacts of `bodies` (the contract of [`crate::cpu::detect_cpu`]: pairs within
    /// the halo sum, sorted by `(i, j)`, with the same work counts), computed on the device.
    /// Invalid input: [`GpuError::BadBody`] with the lowest bad index, nothing launched.
    pub fn detect(&mut self, bodies: &[EllipsoidBody]) -> Result<Detection, GpuError> {
        let mut out = Detection::default();
        self.detect_into(bodies, &mut out)?;
        Ok(out)
    }

    /// [`detect`](Self::detect) into `out`, whose contact vector keeps its memory from
    /// call to call (no fresh pages to fault in, no serial clearing of a large list; the
    /// contacts are overwritten in parallel). On error `out` is cleared.
    pub fn detect_into(
        &mut self,
        bodies: &[EllipsoidBody],
        out: &mut Detection,
    ) -> Result<(), GpuError> {
        let result = self.run(bodies, out);
        if result.is_err() {
            out.contacts.clear();
            out.stats = DetectionStats::default();
        }
        result
    }

    fn run(&mut self, bodies: &[EllipsoidBody], out: &mut Detection) -> Result<(), GpuError> {
        let start = Instant::now();
        let n = bodies.len();
        if n == 0 {
            validate(bodies)?;
            out.contacts.clear();
            out.stats = DetectionStats::default();
            self.timings = GpuTimings::default();
            return Ok(());
        }
        if n > crate::pack::MAX_BODIES {
            validate(bodies)?;
        }
        pinned(
            &self.dev,
            &mut self.host_packed,
            n * PACKED_STRIDE,
            true,
            CU_MEMHOSTALLOC_WRITECOMBINED,
        )?;
        let host_packed = self
            .host_packed
            .as_mut()
            .ok_or_else(|| GpuError::TooLarge("no upload buffer".into()))?
            .as_mut_slice()
            .map_err(driver("pinned buffer"))?;
        let summary = validate_and_pack(bodies, host_packed)?;
        let plan = BinPlan::from_summary(bodies, &summary)?;
        let nb = plan.buckets();
        if n > self.max_bodies {
            let (free, _) = self.dev.memory()?;
            let held = bytes_needed(self.max_bodies, 0, 0);
            if bytes_needed(n, nb, n) > free + held {
                return Err(GpuError::TooLarge(format!(
                    "{n} bodies need about {} MiB of device memory, {} MiB are free",
                    bytes_needed(n, nb, n) >> 20,
                    free >> 20
                )));
            }
            self.max_bodies = n;
        }
        let dev = &self.dev;
        let ws = &mut self.ws;
        grow(dev, &mut ws.packed, n * PACKED_STRIDE)?;
        grow(dev, &mut ws.bodies, n * BODY_DOUBLES)?;
        grow(dev, &mut ws.bucket_count, nb + 1)?;
        grow(dev, &mut ws.bucket_cursor, nb)?;
        grow(dev, &mut ws.entries, n * MAX_ENTRIES_PER_BODY)?;
        grow(dev, &mut ws.first_count, n + 1)?;
        grow(dev, &mut ws.first_cursor, n)?;
        grow(dev, &mut ws.survivors, n.max(1024))?;
        let st = &dev.stream;
        let k = &dev.k;
        let ev = &self.events;
        ev[0].record(st).map_err(driver("event"))?;
        st.memcpy_htod(
            &host_packed[..],
            &mut ws.packed.slice_mut(0..n * PACKED_STRIDE),
        )
        .map_err(driver("upload"))?;
        ev[1].record(st).map_err(driver("event"))?;

        let (n32, bits, nb32) = (n as u32, plan.bucket_bits, nb as u32);
        let mut b = st.launch_builder(&k.prep_bodies);
        b.arg(&ws.packed)
            .arg(&mut ws.bodies)
            .arg(&n32)
            .arg(&plan.inv_bin);
        // SAFETY: reads packed[0..11n), writes bodies[0..21n).
        unsafe { b.launch(per_item(n)) }.map_err(driver("prep_bodies"))?;
        zero(dev, &mut ws.bucket_count, nb + 1)?;
        zero(dev, &mut ws.bucket_cursor, nb)?;
        let mut b = st.launch_builder(&k.bin_count);
        b.arg(&ws.bodies)
            .arg(&n32)
            .arg(&bits)
            .arg(&mut ws.bucket_count);
        // SAFETY: buckets are < 2^bits = nb.
        unsafe { b.launch(per_item(n)) }.map_err(driver("bin_count"))?;
        exclusive_scan(dev, &mut ws.bucket_count, nb + 1, &mut ws.scan_levels)?;
        let mut b = st.launch_builder(&k.bin_scatter);
        b.arg(&ws.bodies)
            .arg(&n32)
            .arg(&bits)
            .arg(&ws.bucket_count)
            .arg(&mut ws.bucket_cursor)
            .arg(&mut ws.entries);
        // SAFETY: positions are < the scanned total ≤ 8n = the entries' length.
        unsafe { b.launch(per_item(n)) }.map_err(driver("bin_scatter"))?;
        ev[2].record(st).map_err(driver("event"))?;

        let capacity = (n * MAX_ENTRIES_PER_BODY) as u32;
        let mut counters = [0u64; 4];
        loop {
            zero(dev, &mut ws.counters, 4)?;
            let surv_cap = ws.survivors.len().min(u32::MAX as usize) as u32;
            let mut b = st.launch_builder(&k.bin_pairs_chm);
            b.arg(&ws.bodies)
                .arg(&ws.entries)
                .arg(&ws.bucket_count)
                .arg(&nb32)
                .arg(&bits)
                .arg(&capacity)
                .arg(&mut ws.counters)
                .arg(&mut ws.survivors)
                .arg(&surv_cap);
            // SAFETY: survivors are written only below surv_cap.
            unsafe { b.launch(per_item(capacity as usize)) }.map_err(driver("bin_pairs_chm"))?;
            st.memcpy_dtoh(&ws.counters, &mut counters)
                .map_err(driver("counter read"))?;
            if counters[1] <= u64::from(surv_cap) {
                break;
            }
            if counters[1] >= u64::from(u32::MAX) {
                return Err(GpuError::TooLarge(format!(
                    "{} ChM survivors exceed the 32-bit survivor index",
                    counters[1]
                )));
            }
            grow(dev, &mut ws.survivors, counters[1] as usize)?;
        }
        ev[3].record(st).map_err(driver("event"))?;
        let ns = counters[1] as usize;
        grow(dev, &mut ws.rec_f, ns * REC_F)?;
        grow(dev, &mut ws.rec_u, ns * REC_U)?;
        grow(dev, &mut ws.order, ns)?;
        zero(dev, &mut ws.first_count, n + 1)?;
        zero(dev, &mut ws.first_cursor, n)?;
        let ns32 = ns as u32;
        let mut b = st.launch_builder(&k.opm_pairs);
        b.arg(&ws.bodies)
            .arg(&ws.survivors)
            .arg(&ns32)
            .arg(&mut ws.rec_f)
            .arg(&mut ws.rec_u)
            .arg(&mut ws.first_count);
        // SAFETY: records 0..ns, counts per body index < n.
        unsafe { b.launch(per_item(ns)) }.map_err(driver("opm_pairs"))?;
        ev[4].record(st).map_err(driver("event"))?;
        exclusive_scan(dev, &mut ws.first_count, n + 1, &mut ws.scan_levels)?;
        let mut b = st.launch_builder(&k.contact_scatter);
        b.arg(&ws.rec_u)
            .arg(&ns32)
            .arg(&ws.first_count)
            .arg(&mut ws.first_cursor)
            .arg(&mut ws.order);
        // SAFETY: positions < total contacts ≤ ns.
        unsafe { b.launch(per_item(ns)) }.map_err(driver("contact_scatter"))?;
        let mut b = st.launch_builder(&k.contact_sort);
        b.arg(&ws.rec_u)
            .arg(&n32)
            .arg(&ws.first_count)
            .arg(&mut ws.order);
        // SAFETY: each thread permutes its own run of order.
        unsafe { b.launch(per_item(n)) }.map_err(driver("contact_sort"))?;
        let mut total = [0u32; 1];
        st.memcpy_dtoh(&ws.first_count.slice(n..n + 1), &mut total)
            .map_err(driver("count read"))?;
        let nc = total[0] as usize;
        grow(dev, &mut ws.out_f, nc * REC_F)?;
        grow(dev, &mut ws.out_u, nc * REC_U)?;
        let nc32 = nc as u32;
        let mut b = st.launch_builder(&k.contact_gather);
        b.arg(&ws.rec_f)
            .arg(&ws.rec_u)
            .arg(&ws.order)
            .arg(&nc32)
            .arg(&mut ws.out_f)
            .arg(&mut ws.out_u);
        // SAFETY: reads records order[p] < ns, writes outputs 0..nc.
        unsafe { b.launch(per_item(nc)) }.map_err(driver("contact_gather"))?;
        ev[5].record(st).map_err(driver("event"))?;
        pinned(dev, &mut self.host_f, nc * REC_F, false, 0)?;
        pinned(dev, &mut self.host_u, nc * REC_U, false, 0)?;
        let (Some(pf), Some(pu)) = (self.host_f.as_mut(), self.host_u.as_mut()) else {
            return Err(GpuError::TooLarge("no download buffer".into()));
        };
        let host_f = pf.as_mut_slice().map_err(driver("pinned buffer"))?;
        let host_u = pu.as_mut_slice().map_err(driver("pinned buffer"))?;
        if nc > 0 {
            st.memcpy_dtoh(&ws.out_f.slice(0..nc * REC_F), &mut host_f[..nc * REC_F])
                .map_err(driver("download"))?;
            st.memcpy_dtoh(&ws.out_u.slice(0..nc * REC_U), &mut host_u[..nc * REC_U])
                .map_err(driver("download"))?;
        }
        ev[6].record(st).map_err(driver("event"))?;
        st.synchronize().map_err(driver("synchronise"))?;
        let ms = |a: usize, b: usize| {
            ev[a]
                .elapsed_ms(&ev[b])
                .map(f64::from)
                .map_err(driver("event timing"))
        };
        let stages = StageTimings {
            binning_ms: ms(1, 2)?,
            pairs_chm_ms: ms(2, 3)?,
            opm_ms: ms(3, 4)?,
            ordering_ms: ms(4, 5)?,
        };
        let (upload_ms, kernels_ms, download_ms) = (ms(0, 1)?, ms(1, 5)?, ms(5, 6)?);
        // Only a grown tail is written serially; every element is overwritten below.
        if out.contacts.len() > nc {
            out.contacts.truncate(nc);
        } else {
            out.contacts.resize(nc, PairContact::default());
        }
        out.contacts
            .par_iter_mut()
            .zip(host_f[..nc * REC_F].par_chunks_exact(REC_F))
            .zip(host_u[..nc * REC_U].par_chunks_exact(REC_U))
            .for_each(|((c, f), u)| {
                *c = PairContact {
                    i: u[0],
                    j: u[1],
                    signed_distance_m: f[0],
                    normal: [f[1], f[2], f[3]],
                    point_a_m: [f[4], f[5], f[6]],
                    point_b_m: [f[7], f[8], f[9]],
                    converged: u[3] & 1 != 0,
                    iterations: u[2],
                }
            });
        out.stats = DetectionStats {
            bounding_pairs: counters[0],
            chm_survivors: counters[1],
            contacts: nc as u64,
        };
        self.timings = GpuTimings {
            upload_ms,
            kernels_ms,
            download_ms,
            wall_ms: start.elapsed().as_secs_f64() * 1e3,
            stages,
        };
        Ok(())
    }
}
