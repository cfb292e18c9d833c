// Seed 002 §4, stages 1-8 on the device: bounding-sphere bins of the bodies (stage 1), a
// counting sort of the (bin, body) entries by hashed bin (stages 2-6: the bucket index is
// the single radix digit), and the per-bin exhaustive search (stage 8) with the
// lower-corner rule, each bounding-sphere pair passed straight to ChM on the inflated
// ellipsoids (stage "post 7": the ChM survivors are the OpM work list).

#define PACKED_STRIDE 11

// Stage 0: unpack centre, unit quaternion (w, x, y, z), semi-axes, halo; rotation matrix
// as nalgebra's UnitQuaternion::to_rotation_matrix; bounding radius and bin box.
extern "C" __global__ void prep_bodies(const double* packed, Body* bodies, u32 n,
                                       double inv_bin) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double* p = packed + (size_t)PACKED_STRIDE * i;
    Body b;
    for (int a = 0; a < 3; ++a) b.c[a] = p[a];
    double w = p[3], x = p[4], y = p[5], z = p[6];
    double ww = w * w, ii = x * x, jj = y * y, kk = z * z;
    double ij = x * y * 2.0, wk = w * z * 2.0, wj = w * y * 2.0, ik = x * z * 2.0,
           jk = y * z * 2.0, wi = w * x * 2.0;
    b.rot[0] = ww + ii - jj - kk;
    b.rot[1] = ij - wk;
    b.rot[2] = wj + ik;
    b.rot[3] = wk + ij;
    b.rot[4] = ww - ii + jj - kk;
    b.rot[5] = jk - wi;
    b.rot[6] = ik - wj;
    b.rot[7] = wi + jk;
    b.rot[8] = ww - ii - jj + kk;
    for (int a = 0; a < 3; ++a) b.axes[a] = p[7 + a];
    b.halo = p[10];
    b.bound = fmax(fmax(b.axes[0], b.axes[1]), b.axes[2]) + b.halo;
    b.span = 0;
    b.pad = 0;
    for (int a = 0; a < 3; ++a) {
        double m = 1e-12 * (fabs(b.c[a]) + b.bound);
        i64 lo = (i64)floor((b.c[a] - b.bound - m) * inv_bin);
        i64 hi = (i64)floor((b.c[a] + b.bound + m) * inv_bin);
        b.lo[a] = lo;
        if (hi > lo) b.span |= 1 << a;
    }
    bodies[i] = b;
}

__device__ inline u32 bucket_of(i64 x, i64 y, i64 z, u32 bits) {
    u64 h = (u64)x * 0x9E3779B97F4A7C15ull ^ (u64)y * 0xC2B2AE3D27D4EB4Full ^
            (u64)z * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return (u32)(h >> (64 - bits));
}

// Corner k (bit a: +1 on axis a) of a body's box exists when its bits are within span.
__device__ inline bool has_corner(int span, u32 k) { return (k & ~(u32)span) == 0; }

__device__ inline u32 entry_bucket(const Body& b, u32 k, u32 bits, i64* bin) {
    bin[0] = b.lo[0] + (i64)(k & 1u);
    bin[1] = b.lo[1] + (i64)((k >> 1) & 1u);
    bin[2] = b.lo[2] + (i64)((k >> 2) & 1u);
    return bucket_of(bin[0], bin[1], bin[2], bits);
}

// Stages 1-3 folded: every (bin, body) entry counted in its bucket.
extern "C" __global__ void bin_count(const Body* bodies, u32 n, u32 bits, u32* bucket_count) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Body b = bodies[i];
    for (u32 k = 0; k < 8; ++k) {
        if (!has_corner(b.span, k)) continue;
        i64 bin[3];
        atomicAdd(&bucket_count[entry_bucket(b, k, bits, bin)], 1u);
    }
}

// Stage 4 (counting sort): entries body << 3 | k placed in their bucket's run.
extern "C" __global__ void bin_scatter(const Body* bodies, u32 n, u32 bits,
                                       const u32* bucket_start, u32* cursor, u32* entries) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Body b = bodies[i];
    for (u32 k = 0; k < 8; ++k) {
        if (!has_corner(b.span, k)) continue;
        i64 bin[3];
        u32 bucket = entry_bucket(b, k, bits, bin);
        u32 pos = bucket_start[bucket] + atomicAdd(&cursor[bucket], 1u);
        entries[pos] = (i << 3) | k;
    }
}

// Stage 8 with ChM: one thread per entry, against the later entries of its bucket. A pair
// is tested only in the bin that holds the lower corner of the intersection of the two
// boxes, and only by entries of that very bin (hash collisions share a bucket), so it is
// seen once. counters[0] += bounding-sphere pairs, counters[1] += ChM survivors.
extern "C" __global__ void bin_pairs_chm(const Body* bodies, const u32* entries,
                                         const u32* bucket_start, u32 n_buckets, u32 bits,
                                         u32 capacity, u64* counters, u64* survivors,
                                         u32 survivor_capacity) {
    u32 e = blockIdx.x * blockDim.x + threadIdx.x;
    u32 total = bucket_start[n_buckets];
    if (e >= capacity || e >= total) return;
    u32 ea = entries[e];
    u32 ia = ea >> 3;
    Body a = bodies[ia];
    i64 bin_a[3];
    u32 bucket = entry_bucket(a, ea & 7u, bits, bin_a);
    u32 end = bucket_start[bucket + 1];
    u64 pairs = 0;
    for (u32 f = e + 1; f < end; ++f) {
        u32 eb = entries[f];
        u32 ib = eb >> 3;
        if (ib == ia) continue;
        const Body& b = bodies[ib];
        i64 bin_b[3];
        bin_b[0] = b.lo[0] + (i64)(eb & 1u);
        bin_b[1] = b.lo[1] + (i64)((eb >> 1) & 1u);
        bin_b[2] = b.lo[2] + (i64)((eb >> 2) & 1u);
        if (bin_b[0] != bin_a[0] || bin_b[1] != bin_a[1] || bin_b[2] != bin_a[2]) continue;
        bool corner = true;
        for (int ax = 0; ax < 3; ++ax) corner = corner && (max(a.lo[ax], b.lo[ax]) == bin_a[ax]);
        if (!corner) continue;
        double dx = a.c[0] - b.c[0], dy = a.c[1] - b.c[1], dz = a.c[2] - b.c[2];
        double rs = a.bound + b.bound;
        if (!(dx * dx + dy * dy + dz * dz <= rs * rs)) continue;
        pairs += 1;
        // A = the lower index, inflated to cover the halos (solver/core detect rule).
        u32 i = ia < ib ? ia : ib;
        u32 j = ia < ib ? ib : ia;
        const Body& lo_b = ia < ib ? a : b;
        const Body& hi_b = ia < ib ? b : a;
        double margin = lo_b.halo + hi_b.halo;
        double rmin = fmin(fmin(lo_b.axes[0], lo_b.axes[1]), lo_b.axes[2]);
        double sc = 1.0 + margin / rmin;
        double big[3] = {lo_b.axes[0] * sc, lo_b.axes[1] * sc, lo_b.axes[2] * sc};
        if (chm_in_contact(big, lo_b.rot, load3(lo_b.c), hi_b.axes, hi_b.rot, load3(hi_b.c))) {
            u64 slot = atomicAdd(&counters[1], 1ull);
            if (slot < survivor_capacity) survivors[slot] = ((u64)i << 32) | (u64)j;
        }
    }
    if (pairs) atomicAdd(&counters[0], pairs);
}
