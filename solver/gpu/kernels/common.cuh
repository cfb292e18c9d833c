// Shared types and small vector helpers of the msdem-gpu kernels (compiled by NVRTC with
// --fmad=false so that every product and sum rounds as the CPU path's does).

#ifndef OPM_MIN_BLOCKS
#define OPM_MIN_BLOCKS 1
#endif

typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

// One prepared body: 21 doubles (168 bytes), written by prep_bodies.
struct Body {
    double c[3];     // centre [m]
    double rot[9];   // rotation body -> world, row-major
    double axes[3];  // semi-axes [m]
    double halo;     // contact halo [m]
    double bound;    // bounding-sphere radius: largest semi-axis + halo [m]
    i64 lo[3];       // lowest bin of the bounding box per axis
    int span;        // bit a set: the box also covers bin lo[a] + 1 on axis a
    int pad;
};

struct V3 {
    double x, y, z;
};

__device__ inline V3 v3(double x, double y, double z) {
    V3 r;
    r.x = x;
    r.y = y;
    r.z = z;
    return r;
}
__device__ inline V3 add(V3 a, V3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
__device__ inline V3 sub(V3 a, V3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
__device__ inline V3 scale(V3 a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
__device__ inline V3 divs(V3 a, double s) { return v3(a.x / s, a.y / s, a.z / s); }
__device__ inline V3 neg(V3 a) { return v3(-a.x, -a.y, -a.z); }
__device__ inline double dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
__device__ inline double norm(V3 a) { return sqrt(dot(a, a)); }
__device__ inline V3 normalize(V3 a) { return divs(a, norm(a)); }
__device__ inline V3 cross(V3 a, V3 b) {
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
// Row-major 3x3 matrix times vector.
__device__ inline V3 mulv(const double* m, V3 v) {
    return v3(m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
              m[6] * v.x + m[7] * v.y + m[8] * v.z);
}
// Transpose times vector.
__device__ inline V3 mulTv(const double* m, V3 v) {
    return v3(m[0] * v.x + m[3] * v.y + m[6] * v.z, m[1] * v.x + m[4] * v.y + m[7] * v.z,
              m[2] * v.x + m[5] * v.y + m[8] * v.z);
}
__device__ inline V3 column(const double* m, int k) { return v3(m[k], m[3 + k], m[6 + k]); }
__device__ inline V3 load3(const double* p) { return v3(p[0], p[1], p[2]); }

// M = R diag(d) R^T (seed 002 eq. (A-11) with d = squared semi-axes), row-major.
__device__ inline void rot_diag_rot_t(const double* r, const double* d, double* m) {
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            double acc = 0.0;
            for (int k = 0; k < 3; ++k) {
                acc += (r[3 * i + k] * d[k]) * r[3 * j + k];
            }
            m[3 * i + j] = acc;
        }
    }
}
