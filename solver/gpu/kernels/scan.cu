// Exclusive prefix sum of u32 counts (seed 002 §4 stages 2, 6 and 9 use Thrust's scan):
// reduce-then-scan over tiles of SCAN_TILE items, the tile totals scanned recursively by the
// host driver (scan.rs), then added back.

#define SCAN_THREADS 512
#define SCAN_ITEMS 4
#define SCAN_TILE (SCAN_THREADS * SCAN_ITEMS)

// In place: data[0..n) becomes its exclusive scan within each tile; tile_sums[tile] = total.
extern "C" __global__ void scan_tiles(u32* data, u32 n, u32* tile_sums) {
    __shared__ u32 warp_sums[SCAN_THREADS / 32];
    u32 base = blockIdx.x * SCAN_TILE + threadIdx.x * SCAN_ITEMS;
    u32 v[SCAN_ITEMS];
    u32 sum = 0;
#pragma unroll
    for (int k = 0; k < SCAN_ITEMS; ++k) {
        v[k] = (base + k < n) ? data[base + k] : 0u;
        sum += v[k];
    }
    u32 lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    u32 x = sum;
#pragma unroll
    for (u32 o = 1; o < 32; o <<= 1) {
        u32 y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) warp_sums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        u32 w = lane < SCAN_THREADS / 32 ? warp_sums[lane] : 0u;
#pragma unroll
        for (u32 o = 1; o < 32; o <<= 1) {
            u32 y = __shfl_up_sync(0xffffffffu, w, o);
            if (lane >= o) w += y;
        }
        if (lane < SCAN_THREADS / 32) warp_sums[lane] = w;
    }
    __syncthreads();
    u32 prefix = x - sum + (warp > 0 ? warp_sums[warp - 1] : 0u);
#pragma unroll
    for (int k = 0; k < SCAN_ITEMS; ++k) {
        if (base + k < n) data[base + k] = prefix;
        prefix += v[k];
    }
    if (threadIdx.x == SCAN_THREADS - 1) tile_sums[blockIdx.x] = prefix;
}

// Adds the scanned tile totals back: data[i] += offsets[i / SCAN_TILE].
extern "C" __global__ void scan_add(u32* data, u32 n, const u32* offsets) {
    u32 base = blockIdx.x * SCAN_TILE + threadIdx.x * SCAN_ITEMS;
    u32 add_v = offsets[blockIdx.x];
#pragma unroll
    for (int k = 0; k < SCAN_ITEMS; ++k) {
        if (base + k < n) data[base + k] += add_v;
    }
}
