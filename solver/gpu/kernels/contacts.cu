// Seed 002 §4 stages 9-10 with OpM on the ChM survivors, then the contact list in pair
// order: a counting sort by the first index (scan of per-body counts) and a sort of each
// body's short run by the second index, so the output does not depend on the order in
// which atomics handed out slots.

#define REC_F 10  // signed distance, normal (3), point on A (3), point on B (3)
#define REC_U 4   // i, j, iterations, flags (bit 0 converged, bit 1 contact)

// One thread per survivor: OpM, the halo contact rule (signed distance <= halo_i + halo_j),
// and the count of contacts per first index.
// OPM_MIN_BLOCKS (set at compile time, see DetectorOptions) caps the registers so that
// this many blocks of 256 threads fit on one multiprocessor.
extern "C" __global__ void __launch_bounds__(256, OPM_MIN_BLOCKS) opm_pairs(const Body* bodies, const u64* survivors, u32 n_survivors,
                                     double* rec_f, u32* rec_u, u32* first_count) {
    u32 s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n_survivors) return;
    u64 key = survivors[s];
    u32 i = (u32)(key >> 32), j = (u32)(key & 0xffffffffull);
    Body a = bodies[i];
    Body b = bodies[j];
    OpmResult o = opm(a, b);
    double margin = a.halo + b.halo;
    bool contact = o.sd <= margin && isfinite(o.sd);
    double* f = rec_f + (size_t)REC_F * s;
    f[0] = o.sd;
    f[1] = o.normal.x;
    f[2] = o.normal.y;
    f[3] = o.normal.z;
    f[4] = o.pa.x;
    f[5] = o.pa.y;
    f[6] = o.pa.z;
    f[7] = o.pb.x;
    f[8] = o.pb.y;
    f[9] = o.pb.z;
    u32* u = rec_u + (size_t)REC_U * s;
    u[0] = i;
    u[1] = j;
    u[2] = o.iterations;
    u[3] = (o.converged ? 1u : 0u) | (contact ? 2u : 0u);
    if (contact) atomicAdd(&first_count[i], 1u);
}

extern "C" __global__ void contact_scatter(const u32* rec_u, u32 n_survivors,
                                           const u32* first_start, u32* cursor, u32* order) {
    u32 s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n_survivors) return;
    const u32* u = rec_u + (size_t)REC_U * s;
    if (!(u[3] & 2u)) return;
    u32 i = u[0];
    order[first_start[i] + atomicAdd(&cursor[i], 1u)] = s;
}

// One thread per body: its run of contacts sorted by j (insertion sort for short runs,
// heap sort beyond, so a body with many contacts stays O(k log k)).
extern "C" __global__ void contact_sort(const u32* rec_u, u32 n, const u32* first_start,
                                        u32* order) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    u32 lo = first_start[i], len = first_start[i + 1] - lo;
    u32* o = order + lo;
    if (len < 2) return;
    if (len <= 32) {
        for (u32 p = 1; p < len; ++p) {
            u32 v = o[p];
            u32 key = rec_u[(size_t)REC_U * v + 1];
            u32 q = p;
            while (q > 0 && rec_u[(size_t)REC_U * o[q - 1] + 1] > key) {
                o[q] = o[q - 1];
                --q;
            }
            o[q] = v;
        }
        return;
    }
    // Heap sort on the j keys.
    for (u32 start = len / 2; start-- > 0;) {
        u32 root = start;
        while (2 * root + 1 < len) {
            u32 child = 2 * root + 1;
            if (child + 1 < len &&
                rec_u[(size_t)REC_U * o[child] + 1] < rec_u[(size_t)REC_U * o[child + 1] + 1])
                ++child;
            if (rec_u[(size_t)REC_U * o[root] + 1] < rec_u[(size_t)REC_U * o[child] + 1]) {
                u32 t = o[root];
                o[root] = o[child];
                o[child] = t;
                root = child;
            } else {
                break;
            }
        }
    }
    for (u32 end = len - 1; end > 0; --end) {
        u32 t = o[0];
        o[0] = o[end];
        o[end] = t;
        u32 root = 0;
        while (2 * root + 1 < end) {
            u32 child = 2 * root + 1;
            if (child + 1 < end &&
                rec_u[(size_t)REC_U * o[child] + 1] < rec_u[(size_t)REC_U * o[child + 1] + 1])
                ++child;
            if (rec_u[(size_t)REC_U * o[root] + 1] < rec_u[(size_t)REC_U * o[child] + 1]) {
                u32 t2 = o[root];
                o[root] = o[child];
                o[child] = t2;
                root = child;
            } else {
                break;
            }
        }
    }
}

// Output position p takes survivor order[p]'s record.
extern "C" __global__ void contact_gather(const double* rec_f, const u32* rec_u,
                                          const u32* order, u32 n_contacts, double* out_f,
                                          u32* out_u) {
    u32 p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n_contacts) return;
    u32 s = order[p];
    for (int k = 0; k < REC_F; ++k) out_f[(size_t)REC_F * p + k] = rec_f[(size_t)REC_F * s + k];
    for (int k = 0; k < REC_U; ++k) out_u[(size_t)REC_U * p + k] = rec_u[(size_t)REC_U * s + k];
}
