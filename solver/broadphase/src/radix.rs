//! LSD radix sort of packed pair keys: the output of every query is sorted, and for 10⁶
//! spheres a comparison sort of the ~10⁶ pairs cost as much as the whole grid build.

/// Bits per radix digit (16 Ki counters, fits in L2).
const DIGIT_BITS: u32 = 14;

/// Below this length a comparison sort is faster.
const SMALL: usize = 4096;

/// Sorts `keys` ascending, knowing that every key is below `2^bits`. `scratch` is reused
/// between calls.
pub(crate) fn sort_keys(keys: &mut Vec<u64>, bits: u32, scratch: &mut Vec<u64>) {
    if keys.len() < SMALL {
        keys.sort_unstable();
        return;
    }
    let passes = bits.div_ceil(DIGIT_BITS).max(1);
    let width = bits.div_ceil(passes).max(1);
    let mask = (1u64 << width) - 1;
    let mut counts = vec![0usize; 1 << width];
    scratch.clear();
    scratch.resize(keys.len(), 0);
    for pass in 0..passes {
        let shift = pass * width;
        counts.iter_mut().for_each(|c| *c = 0);
        for &k in keys.iter() {
            counts[((k >> shift) & mask) as usize] += 1;
        }
        if counts.contains(&keys.len()) {
            continue; // every key has the same digit: the pass would not move anything
        }
        let mut sum = 0;
        for c in counts.iter_mut() {
            let here = *c;
            *c = sum;
            sum += here;
        }
        for &k in keys.iter() {
            let d = ((k >> shift) & mask) as usize;
            scratch[counts[d]] = k;
            counts[d] += 1;
        }
        std::mem::swap(keys, scratch);
    }
}

/// Sorts pair keys `(i << shift) | j` (see [`sort_keys`]) and writes them to `out` as
/// `(i, j)` pairs, ascending; `out` is cleared first.
pub(crate) fn sort_unpack(
    packed: &mut Vec<u64>,
    shift: u32,
    scratch: &mut Vec<u64>,
    out: &mut Vec<(u32, u32)>,
) {
    sort_keys(packed, 2 * shift, scratch);
    let low = (1u64 << shift) - 1;
    out.clear();
    out.extend(
        packed
            .iter()
            .map(|&k| ((k >> shift) as u32, (k & low) as u32)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn radix_sort_matches_comparison_sort() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        for (len, bits) in [
            (10usize, 8u32),
            (5000, 20),
            (20000, 40),
            (30000, 64),
            (9000, 1),
        ] {
            let mut keys: Vec<u64> = (0..len).map(|_| rng.gen::<u64>() >> (64 - bits)).collect();
            let mut want = keys.clone();
            want.sort_unstable();
            sort_keys(&mut keys, bits, &mut Vec::new());
            assert_eq!(keys, want, "len {len} bits {bits}");
        }
    }
}
