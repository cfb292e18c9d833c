//! The expiry scan of the event-driven pair-set query (`events.rs`, issue 15): which
//! stored pairs' certificates the accumulated motion spent, in leaf order.
//!
//! A pair `e` is *live* while `e.at > now` (its isotropic expiry lies ahead) or `e.k > s`
//! (its directional room `K − S` is positive, `direction.rs`); NaN in either compares as
//! spent. The scan returns the indices of the pairs that are not live and counts the pairs
//! held by the directional certificate alone (`e.at ≤ now < …`, `e.k > s`).
//!
//! On `x86_64` the comparisons run eight `f32` at a time where the CPU has AVX2 (runtime
//! detection), four otherwise (SSE2, part of the `x86_64` baseline): an `Expiry` is two
//! `f32` (`#[repr(C)]`), so one 32-byte load holds four pairs and one ordered `>` against
//! `[now, s, now, s, …]` gives both tests of each (ordered: NaN gives false, exactly as
//! the scalar `>`); a chunk of 32 pairs becomes one 64-bit mask (even bits: isotropic,
//! odd bits: directional), from which the count and the spent pairs' indices follow by
//! bit operations. Elsewhere, and for the last partial chunk, the same tests in scalar
//! code. All give the same answer (tests below, against a plain loop).

use super::direction::Expiry;

/// Pairs per chunk (one 64-bit mask of two bits per pair).
const LANES: usize = 32;

/// Appends to `out` the indices of the pairs of `expiry` that are not live at `now` and
/// `s` (module docs), in order; returns the number held by the directional certificate
/// alone.
pub(super) fn expired(expiry: &[Expiry], now: f32, s: f32, out: &mut Vec<u32>) -> u64 {
    let chunks = expiry.chunks_exact(LANES);
    let rest = chunks.remainder();
    let done = expiry.len() - rest.len();
    let mut held = 0;
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt")
    {
        // SAFETY: the CPU supports AVX2 and POPCNT (checked just above).
        held += unsafe { chunks_avx2(chunks, now, s, out) };
    } else {
        for (c, chunk) in chunks.enumerate() {
            let m = mask_sse2(chunk, now, s);
            held += from_mask(m, c * LANES, out);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for (c, chunk) in chunks.enumerate() {
        held += scalar(chunk, c * LANES, now, s, out);
    }
    held + scalar(rest, done, now, s, out)
}

/// Appends to `out` the indices (from `base`) of the spent pairs of one chunk's mask `m`
/// (bit `2i`: pair `i`'s isotropic test, bit `2i + 1`: its directional test); returns the
/// number held by the directional test alone.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn from_mask(m: u64, base: usize, out: &mut Vec<u32>) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let iso = m & EVEN;
    let dir = (m >> 1) & EVEN;
    let mut dead = !(iso | dir) & EVEN;
    while dead != 0 {
        out.push((base + (dead.trailing_zeros() / 2) as usize) as u32);
        dead &= dead - 1;
    }
    u64::from((dir & !iso).count_ones())
}

/// The scan of whole chunks (indices from 0) with AVX2: eight `f32` (four pairs) per
/// comparison.
///
/// # Safety
/// The CPU must support AVX2 and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn chunks_avx2(
    chunks: std::slice::ChunksExact<'_, Expiry>,
    now: f32,
    s: f32,
    out: &mut Vec<u32>,
) -> u64 {
    use std::arch::x86_64::_CMP_GT_OQ;
    use std::arch::x86_64::{_mm256_cmp_ps, _mm256_loadu_ps, _mm256_movemask_ps, _mm256_setr_ps};
    let thr = _mm256_setr_ps(now, s, now, s, now, s, now, s);
    let mut held = 0;
    for (c, chunk) in chunks.enumerate() {
        let p = chunk.as_ptr().cast::<f32>();
        let mut m = 0u64;
        for j in 0..LANES / 4 {
            // SAFETY: as in `mask_sse2`: 64 consecutive `f32`, eight loads of eight.
            let v = unsafe { _mm256_loadu_ps(p.add(8 * j)) };
            let bits = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(v, thr)) as u64;
            m |= bits << (8 * j);
        }
        held += from_mask(m, c * LANES, out);
    }
    held
}

/// The two tests of the 32 pairs of `chunk` as one mask (see [`from_mask`]).
#[cfg(target_arch = "x86_64")]
fn mask_sse2(chunk: &[Expiry], now: f32, s: f32) -> u64 {
    use std::arch::x86_64::{_mm_cmpgt_ps, _mm_loadu_ps, _mm_movemask_ps, _mm_setr_ps};
    debug_assert_eq!(chunk.len(), LANES);
    let p = chunk.as_ptr().cast::<f32>();
    let mut m = 0u64;
    // SAFETY: SSE2 is enabled on every `x86_64` target; `Expiry` is `#[repr(C)]` of two
    // `f32` (8 bytes, no padding), so the 32 pairs are 64 consecutive `f32` and the 16
    // unaligned loads of four stay inside `chunk` (`LANES` = 32, asserted by the caller's
    // `chunks_exact`).
    unsafe {
        let thr = _mm_setr_ps(now, s, now, s);
        for j in 0..LANES / 2 {
            let v = _mm_loadu_ps(p.add(4 * j));
            let bits = _mm_movemask_ps(_mm_cmpgt_ps(v, thr)) as u64;
            m |= bits << (4 * j);
        }
    }
    m
}

/// The scan of `chunk` (indices from `base`) in scalar code.
fn scalar(chunk: &[Expiry], base: usize, now: f32, s: f32, out: &mut Vec<u32>) -> u64 {
    let mut held = 0;
    for (k, e) in chunk.iter().enumerate() {
        let (iso, dir) = (e.at > now, e.k > s);
        if !(iso | dir) {
            out.push((base + k) as u32);
        }
        held += u64::from(dir & !iso);
    }
    held
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunked (SIMD) scan gives the indices and count of a plain loop, for lengths
    /// around the chunk size and values at, above and below the thresholds, NaN and
    /// infinities included.
    #[test]
    fn scan_matches_a_plain_loop() {
        let vals = [
            f32::NAN,
            f32::NEG_INFINITY,
            -1.0,
            -0.0,
            0.0,
            0.5,
            1.0,
            1.0 + f32::EPSILON,
            2.0,
            f32::INFINITY,
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for len in [0, 1, 31, 32, 33, 64, 95, 200] {
            for (now, s) in [(1.0, 1.0), (0.0, 2.0), (-0.0, 0.5), (f32::NAN, 1.0)] {
                let e: Vec<Expiry> = (0..len)
                    .map(|_| Expiry {
                        at: vals[(next() % vals.len() as u64) as usize],
                        k: vals[(next() % vals.len() as u64) as usize],
                    })
                    .collect();
                let mut want = Vec::new();
                let mut want_held = 0;
                for (i, x) in e.iter().enumerate() {
                    let iso = x.at > now;
                    let dir = x.k > s;
                    if !iso && !dir {
                        want.push(i as u32);
                    }
                    if dir && !iso {
                        want_held += 1;
                    }
                }
                let mut got = vec![7];
                let held = expired(&e, now, s, &mut got);
                assert_eq!(got[0], 7, "appends");
                assert_eq!(&got[1..], &want[..], "len {len}, now {now}, s {s}");
                assert_eq!(held, want_held, "len {len}, now {now}, s {s}");
                // The SSE2 path too (the one above is AVX2 where the CPU has it).
                #[cfg(target_arch = "x86_64")]
                {
                    let mut got = Vec::new();
                    let mut held = 0;
                    for (c, chunk) in e.chunks_exact(LANES).enumerate() {
                        held += from_mask(mask_sse2(chunk, now, s), c * LANES, &mut got);
                    }
                    let done = e.len() - e.len() % LANES;
                    held += scalar(&e[done..], done, now, s, &mut got);
                    assert_eq!((&got[..], held), (&want[..], want_held), "SSE2, len {len}");
                }
            }
        }
    }
}
