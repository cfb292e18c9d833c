// OpM on the device: seed 002 §2, eqs. (1)-(6), with the analytic gradient and Hessian of
// the Appendix (eqs. (A-13)-(A-21)); a mirror of msdem-ellipsoid's opm.rs and
// sensitivity.rs (safeguarded Newton on two angles in a frame re-centred on the iterate,
// Armijo backtracking, the same starts, tie rule and stopping rule), in double precision.

#define OPM_MAX_ITERATIONS 60
#define OPM_ANGLE_TOLERANCE 1e-10
#define OPM_MAX_STEP 0.5
#define OPM_EXTRA_STARTS 3

struct Pair {
    double ma[9];  // M_A = R_A diag(a^2) R_A^T [m^2]
    double mb[9];
    V3 ba;  // centre of A [m]
    V3 bb;
};

// G(c) = M c / sqrt(c^T M c) and its derivatives (sensitivity.rs `SupportMap`).
struct Support {
    const double* m;
    V3 mc;
    double s;
};

__device__ inline Support support(const double* m, V3 c) {
    Support r;
    r.m = m;
    r.mc = mulv(m, c);
    r.s = sqrt(dot(c, r.mc));
    return r;
}
__device__ inline V3 sup_value(const Support& g) { return divs(g.mc, g.s); }
// Eq. (A-17).
__device__ inline V3 sup_first(const Support& g, V3 v) {
    return divs(sub(mulv(g.m, v), scale(g.mc, dot(g.mc, v) / (g.s * g.s))), g.s);
}
// Eq. (A-21) without its last term.
__device__ inline V3 sup_second(const Support& g, V3 u, V3 v) {
    double s3 = g.s * g.s * g.s;
    double mu = dot(g.mc, u);
    double mv = dot(g.mc, v);
    V3 m_u = mulv(g.m, u);
    V3 m_v = mulv(g.m, v);
    V3 a = divs(sub(sub(neg(scale(m_u, mv)), scale(m_v, mu)), scale(g.mc, dot(u, m_v))), s3);
    return add(a, scale(g.mc, 3.0 * mu * mv / (s3 * g.s * g.s)));
}

__device__ inline V3 pair_d(const Pair& p, V3 c) {
    V3 ga = sup_value(support(p.ma, c));
    V3 gb = sup_value(support(p.mb, c));
    return add(add(sub(p.ba, p.bb), ga), gb);
}
__device__ inline double pair_f(const Pair& p, V3 c) {
    V3 d = pair_d(p, c);
    return dot(d, d);
}

struct Sens {
    double f;
    double g0, g1;
    double h00, h01, h11;
};

__device__ Sens sensitivities(const Pair& p, V3 c, const V3* ca, const V3 caa[2][2]) {
    Support ga = support(p.ma, c);
    Support gb = support(p.mb, c);
    V3 d = add(add(sub(p.ba, p.bb), sup_value(ga)), sup_value(gb));
    V3 dd[2];
    for (int i = 0; i < 2; ++i) dd[i] = add(sup_first(ga, ca[i]), sup_first(gb, ca[i]));
    double h[2][2];
    for (int i = 0; i < 2; ++i) {
        for (int j = i; j < 2; ++j) {
            V3 ddij = add(add(add(sup_second(ga, ca[i], ca[j]), sup_second(gb, ca[i], ca[j])),
                              sup_first(ga, caa[i][j])),
                          sup_first(gb, caa[i][j]));
            double v = 2.0 * (dot(dd[i], dd[j]) + dot(d, ddij));
            h[i][j] = v;
            h[j][i] = v;
        }
    }
    Sens s;
    s.f = dot(d, d);
    s.g0 = 2.0 * dot(d, dd[0]);
    s.g1 = 2.0 * dot(d, dd[1]);
    s.h00 = h[0][0];
    s.h01 = h[0][1];
    s.h11 = h[1][1];
    return s;
}

__device__ inline V3 comb(const V3* fr, double x, double y, double z) {
    return add(add(scale(fr[0], x), scale(fr[1], y)), scale(fr[2], z));
}

// The seed's parametrisation in the frame fr, with its derivatives (sensitivity.rs).
__device__ void direction_in_frame(const V3* fr, double a1, double a2, V3* c, V3* ca,
                                   V3 caa[2][2]) {
    double s1, c1, s2, c2;
    sincos(a1, &s1, &c1);
    sincos(a2, &s2, &c2);
    *c = comb(fr, c1 * c2, s1 * c2, s2);
    if (ca) {
        ca[0] = comb(fr, -s1 * c2, c1 * c2, 0.0);
        ca[1] = comb(fr, -c1 * s2, -s1 * s2, c2);
        caa[0][0] = comb(fr, -c1 * c2, -s1 * c2, 0.0);
        caa[0][1] = comb(fr, s1 * s2, -c1 * s2, 0.0);
        caa[1][0] = caa[0][1];
        caa[1][1] = comb(fr, -c1 * c2, -s1 * c2, -s2);
    }
}

__device__ void frame_from(V3 c, V3* fr) {
    V3 axis;
    if (fabs(c.x) <= fabs(c.y) && fabs(c.x) <= fabs(c.z)) {
        axis = v3(1.0, 0.0, 0.0);
    } else if (fabs(c.y) <= fabs(c.z)) {
        axis = v3(0.0, 1.0, 0.0);
    } else {
        axis = v3(0.0, 0.0, 1.0);
    }
    V3 e1 = normalize(cross(c, axis));
    fr[0] = c;
    fr[1] = e1;
    fr[2] = cross(c, e1);
}

// Newton step with the Hessian shifted to be positive definite (opm.rs `newton_step`).
__device__ void newton_step(const Sens& s, double* x, double* y) {
    double h11 = s.h00, h12 = s.h01, h22 = s.h11;
    double nrm = fmax(fmax(fabs(h11), fabs(h22)), fabs(h12));
    if (!(nrm > 0.0) || !isfinite(nrm)) {
        *x = -s.g0;
        *y = -s.g1;
        return;
    }
    double half_gap = sqrt(0.25 * (h11 - h22) * (h11 - h22) + h12 * h12);
    double lambda_min = 0.5 * (h11 + h22) - half_gap;
    double floor_v = 1e-8 * nrm;
    double shift = lambda_min < floor_v ? floor_v - lambda_min : 0.0;
    double a = h11 + shift, b = h12, c = h22 + shift;
    double det = a * c - b * b;
    if (!(det > 0.0)) {
        *x = -s.g0 / nrm;
        *y = -s.g1 / nrm;
        return;
    }
    *x = -(c * s.g0 - b * s.g1) / det;
    *y = -(a * s.g1 - b * s.g0) / det;
}

struct Run {
    V3 c;
    double f;
    bool converged;
    u32 iterations;
};

__device__ Run newton(const Pair& p, V3 start) {
    Run r;
    r.c = start;
    r.f = pair_f(p, start);
    r.converged = false;
    r.iterations = 0;
    while (r.iterations < OPM_MAX_ITERATIONS) {
        r.iterations += 1;
        V3 fr[3];
        frame_from(r.c, fr);
        V3 c0, ca[2], caa[2][2];
        direction_in_frame(fr, 0.0, 0.0, &c0, ca, caa);
        Sens s = sensitivities(p, r.c, ca, caa);
        r.f = s.f;
        if (s.g0 == 0.0 && s.g1 == 0.0) {
            r.converged = true;
            return r;
        }
        double sx, sy;
        newton_step(s, &sx, &sy);
        double len = sqrt(sx * sx + sy * sy);
        if (!isfinite(len)) break;
        if (len > OPM_MAX_STEP) {
            sx *= OPM_MAX_STEP / len;
            sy *= OPM_MAX_STEP / len;
        }
        double slope = s.g0 * sx + s.g1 * sy;
        double t = 1.0;
        bool accepted = false;
        V3 trial;
        double f_trial = 0.0;
        for (int k = 0; k < 40; ++k) {
            V3 tc;
            direction_in_frame(fr, sx * t, sy * t, &tc, 0, 0);
            tc = normalize(tc);
            double ft = pair_f(p, tc);
            if (ft <= r.f + 1e-4 * t * slope) {
                accepted = true;
                trial = tc;
                f_trial = ft;
                break;
            }
            t *= 0.5;
        }
        double step_norm = sqrt(sx * sx + sy * sy);
        if (accepted) {
            r.c = trial;
            r.f = f_trial;
            if (t * step_norm <= OPM_ANGLE_TOLERANCE) {
                r.converged = true;
                return r;
            }
        } else {
            r.converged = step_norm <= 1e3 * fmax(OPM_ANGLE_TOLERANCE, 1e-10);
            return r;
        }
    }
    r.converged = false;
    return r;
}

__device__ inline bool opm_separated(const Pair& p, V3 c) { return -dot(pair_d(p, c), c) > 0.0; }

__device__ inline void opm_consider(bool* has, Run* best, const Run& run, double scale_m) {
    bool better;
    if (!*has) {
        better = true;
    } else {
        better = (run.converged && !best->converged) ||
                 (run.converged == best->converged &&
                  run.f < best->f * (1.0 - 1e-9) - 1e-15 * scale_m * scale_m);
    }
    if (better) {
        *best = run;
        *has = true;
    }
}

// Result of OpM: signed distance, normal B->A, witness points, status.
struct OpmResult {
    double sd;
    V3 normal;
    V3 pa;
    V3 pb;
    bool converged;
    u32 iterations;
};

__device__ OpmResult opm_finish(const Pair& p, const Run& run, u32 iterations) {
    OpmResult o;
    o.pa = add(p.ba, sup_value(support(p.ma, run.c)));
    o.pb = sub(p.bb, sup_value(support(p.mb, run.c)));
    V3 d = sub(o.pa, o.pb);
    o.sd = -dot(d, run.c);
    o.normal = neg(run.c);
    o.converged = run.converged;
    o.iterations = iterations;
    return o;
}

// Start k of the axis starts: +-(column k/2 of A's rotation, then of B's), minus for odd k.
__device__ inline V3 opm_start(const Body& a, const Body& b, int k) {
    int axis = k >> 1;
    V3 v = axis < 3 ? column(a.rot, axis) : column(b.rot, axis - 3);
    return (k & 1) ? neg(v) : v;
}

__device__ OpmResult opm(const Body& a, const Body& b) {
    Pair p;
    double a2[3] = {a.axes[0] * a.axes[0], a.axes[1] * a.axes[1], a.axes[2] * a.axes[2]};
    double b2[3] = {b.axes[0] * b.axes[0], b.axes[1] * b.axes[1], b.axes[2] * b.axes[2]};
    rot_diag_rot_t(a.rot, a2, p.ma);
    rot_diag_rot_t(b.rot, b2, p.mb);
    p.ba = load3(a.c);
    p.bb = load3(b.c);
    V3 q = sub(p.bb, p.ba);
    double qn = norm(q);
    double max_a = fmax(fmax(a.axes[0], a.axes[1]), a.axes[2]);
    double max_b = fmax(fmax(b.axes[0], b.axes[1]), b.axes[2]);
    double scale_m = max_a + max_b + qn;
    u32 iterations = 0;
    bool has = false;
    Run best;
    if (qn > 1e-12 * scale_m) {
        Run run = newton(p, divs(q, qn));
        iterations += run.iterations;
        if (run.converged && opm_separated(p, run.c)) return opm_finish(p, run, iterations);
        opm_consider(&has, &best, run, scale_m);
    }
    // The twelve +-principal-axis starts, the best OPM_EXTRA_STARTS by f taken in a
    // stable order (ties keep the lower index, NaN last: opm.rs sorts with total_cmp).
    double fs[12];
#pragma unroll
    for (int k = 0; k < 12; ++k) fs[k] = pair_f(p, opm_start(a, b, k));
    u32 used = 0;
    for (int s = 0; s < OPM_EXTRA_STARTS; ++s) {
        int pick = -1;
        double fp = 0.0;
#pragma unroll
        for (int k = 0; k < 12; ++k) {
            if (used & (1u << k)) continue;
            double fk = fs[k];
            bool less = pick < 0 || fk < fp || (isnan(fp) && !isnan(fk));
            if (less) {
                pick = k;
                fp = fk;
            }
        }
        used |= 1u << pick;
        Run run = newton(p, opm_start(a, b, pick));
        iterations += run.iterations;
        opm_consider(&has, &best, run, scale_m);
    }
    return opm_finish(p, best, iterations);
}
