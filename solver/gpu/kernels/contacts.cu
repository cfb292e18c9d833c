// Seed 002 §4 stages 9-10 with OpM on the ChM survivors, then the contact list in pair
// order: a counting sort by the first index (scan of per-body counts) and a sort of each
// body's short run by the second index, so the output does not depend on the order in
// which atomics handed out slots.

#define REC_F 10  // signed distance, normal (3), point on A (3), point on B (3)
#define REC_U 4   // i, j, iterations, flags (bit 0 converged, bit 1 contact)

__device__ inline void write_record(u32 s, u32 i, u32 j, const OpmResult& o, double margin,
                                    double* rec_f, u32* rec_u, u32* first_count) {
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

static_assert(OPM_EXTRA_STARTS == 3, "opm_pairs4 runs one start per lane: 1 + 3 lanes");

// OPM_MIN_BLOCKS (set at compile time, see DetectorOptions) caps the registers so that
// this many blocks of 256 threads fit on one multiprocessor.

// One thread per survivor: OpM, the halo contact rule (signed distance <= halo_i + halo_j),
// and the count of contacts per first index.
extern "C" __global__ void __launch_bounds__(256, OPM_MIN_BLOCKS)
    opm_pairs(const Body* bodies, const u64* survivors, u32 n_survivors, double* rec_f,
              u32* rec_u, u32* first_count) {
    u32 s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n_survivors) return;
    u64 key = survivors[s];
    u32 i = (u32)(key >> 32), j = (u32)(key & 0xffffffffull);
    Body a = bodies[i];
    Body b = bodies[j];
    OpmResult o = opm(a, b);
    write_record(s, i, j, o, a.halo + b.halo, rec_f, rec_u, first_count);
}

// Four threads per survivor, one Newton run each (lane 0 the centre direction, lanes 1-3
// the ranked axis starts), combined by lane 0 in the serial order of opm(): the same runs
// and the same choice, so the same bits, with a warp's time set by its longest single run
// rather than by its longest sum of runs.
extern "C" __global__ void __launch_bounds__(256, OPM_MIN_BLOCKS)
    opm_pairs4(const Body* bodies, const u64* survivors, u32 n_survivors, double* rec_f,
               u32* rec_u, u32* first_count) {
    u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    u32 s = t >> 2, r = t & 3u;
    bool active = s < n_survivors;
    Run run;
    run.c = v3(1.0, 0.0, 0.0);
    run.f = 0.0;
    run.converged = false;
    run.iterations = 0;
    bool has_run = false;
    Body a, b;
    Pair p;
    double scale_m = 0.0;
    u32 i = 0, j = 0;
    if (active) {
        u64 key = survivors[s];
        i = (u32)(key >> 32);
        j = (u32)(key & 0xffffffffull);
        a = bodies[i];
        b = bodies[j];
        V3 q;
        double qn;
        opm_setup(a, b, &p, &q, &qn, &scale_m);
        if (r == 0) {
            if (qn > 1e-12 * scale_m) {
                run = newton(p, divs(q, qn));
                has_run = true;
            }
        } else {
            run = newton(p, opm_ranked_start(a, b, p, (int)r - 1));
            has_run = true;
        }
    }
    // Every lane of the warp takes part in the shuffles (inactive ones with dummies).
    u32 lane = threadIdx.x & 31u;
    u32 base = lane & ~3u;
    Run runs[4];
    bool has[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        u32 src = base + (u32)k;
        runs[k].c.x = __shfl_sync(0xffffffffu, run.c.x, src);
        runs[k].c.y = __shfl_sync(0xffffffffu, run.c.y, src);
        runs[k].c.z = __shfl_sync(0xffffffffu, run.c.z, src);
        runs[k].f = __shfl_sync(0xffffffffu, run.f, src);
        runs[k].converged = __shfl_sync(0xffffffffu, (int)run.converged, src) != 0;
        runs[k].iterations = __shfl_sync(0xffffffffu, run.iterations, src);
        has[k] = __shfl_sync(0xffffffffu, (int)has_run, src) != 0;
    }
    if (!active || r != 0) return;
    u32 iterations = 0;
    bool have = false;
    Run best;
    if (has[0]) {
        iterations += runs[0].iterations;
        if (runs[0].converged && opm_separated(p, runs[0].c)) {
            write_record(s, i, j, opm_finish(p, runs[0], iterations), a.halo + b.halo, rec_f,
                         rec_u, first_count);
            return;
        }
        opm_consider(&have, &best, runs[0], scale_m);
    }
#pragma unroll
    for (int k = 1; k < 4; ++k) {
        iterations += runs[k].iterations;
        opm_consider(&have, &best, runs[k], scale_m);
    }
    write_record(s, i, j, opm_finish(p, best, iterations), a.halo + b.halo, rec_f, rec_u,
                 first_count);
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
