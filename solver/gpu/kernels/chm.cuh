// ChM on the device: the characteristic-equation filter of seed 002 §3, eqs. (7)-(10), a
// line-by-line mirror of msdem-ellipsoid's chm.rs (closed-form monic quartic in the frame
// where A is the unit sphere, analytic roots of its derivative, the sign of g at every
// positive critical point through psi).

#define CHM_TOUCH_TOLERANCE 1e-10

// Real roots of z^3 + a2 z^2 + a1 z + a0, ascending, each polished by two Newton steps
// (mirror of cubic.rs). Returns the count.
__device__ int real_roots_monic_cubic(double a2, double a1, double a0, double* roots) {
    double shift = a2 / 3.0;
    double p = a1 - a2 * shift;
    double q = 2.0 * shift * shift * shift - a1 * shift + a0;
    int n;
    if (p == 0.0 && q == 0.0) {
        roots[0] = -shift;
        n = 1;
    } else {
        double h = (q / 2.0) * (q / 2.0) + (p / 3.0) * (p / 3.0) * (p / 3.0);
        if (h < 0.0) {
            double r = sqrt(-p / 3.0);
            double cos_arg = fmin(fmax(-q / (2.0 * r * r * r), -1.0), 1.0);
            double phi = acos(cos_arg);
            double two_pi_3 = 2.0 * 3.141592653589793 / 3.0;
            for (int k = 0; k < 3; ++k) {
                roots[k] = 2.0 * r * cos(phi / 3.0 - two_pi_3 * (double)k) - shift;
            }
            n = 3;
        } else {
            double s = sqrt(h);
            double u = cbrt(-q / 2.0 + s);
            double v = cbrt(-q / 2.0 - s);
            roots[0] = u + v - shift;
            n = 1;
        }
    }
    for (int k = 0; k < n; ++k) {
        for (int it = 0; it < 2; ++it) {
            double z = roots[k];
            double f = ((z + a2) * z + a1) * z + a0;
            double df = (3.0 * z + 2.0 * a2) * z + a1;
            if (df != 0.0 && isfinite(df)) {
                double next = z - f / df;
                if (isfinite(next)) {
                    roots[k] = next;
                }
            }
        }
    }
    // Ascending (at most three entries).
    for (int i = 1; i < n; ++i) {
        double x = roots[i];
        int j = i - 1;
        while (j >= 0 && roots[j] > x) {
            roots[j + 1] = roots[j];
            --j;
        }
        roots[j + 1] = x;
    }
    return n;
}

// psi(z) = 1 - z/(1+z) c^T S (zI + S)^-1 c through a Cholesky solve; 1 when zI + S is not
// positive definite (mirror of chm.rs `psi`).
__device__ double chm_psi(const double* s, V3 c, double zeta) {
    double a00 = s[0] + zeta, a10 = s[3], a11 = s[4] + zeta, a20 = s[6], a21 = s[7],
           a22 = s[8] + zeta;
    if (!(a00 > 0.0)) return 1.0;
    double l00 = sqrt(a00);
    double l10 = a10 / l00;
    double l20 = a20 / l00;
    double d11 = a11 - l10 * l10;
    if (!(d11 > 0.0)) return 1.0;
    double l11 = sqrt(d11);
    double l21 = (a21 - l20 * l10) / l11;
    double d22 = a22 - l20 * l20 - l21 * l21;
    if (!(d22 > 0.0)) return 1.0;
    double l22 = sqrt(d22);
    // L y = c, L^T w = y.
    double y0 = c.x / l00;
    double y1 = (c.y - l10 * y0) / l11;
    double y2 = (c.z - l20 * y0 - l21 * y1) / l22;
    double w2 = y2 / l22;
    double w1 = (y1 - l21 * w2) / l11;
    double w0 = (y0 - l10 * w1 - l20 * w2) / l00;
    V3 sc = mulv(s, c);
    return 1.0 - zeta / (1.0 + zeta) * dot(sc, v3(w0, w1, w2));
}

// ChM verdict "touching or overlapping" for A (semi-axes ra, rotation rot_a, centre ca) and
// B (semi-axes rb, rotation rot_b, centre cb).
__device__ bool chm_in_contact(const double* ra, const double* rot_a, V3 ca, const double* rb,
                               const double* rot_b, V3 cb) {
    // rel = rot_a^T rot_b
    double rel[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            rel[3 * i + j] = rot_a[i] * rot_b[j] + rot_a[3 + i] * rot_b[3 + j] +
                             rot_a[6 + i] * rot_b[6 + j];
    double inv_rb2[3] = {1.0 / (rb[0] * rb[0]), 1.0 / (rb[1] * rb[1]), 1.0 / (rb[2] * rb[2])};
    double n[9];
    rot_diag_rot_t(rel, inv_rb2, n);
    double s[9];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) s[3 * i + j] = ra[i] * n[3 * i + j] * ra[j];
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j) {
            double m = (s[3 * i + j] + s[3 * j + i]) * 0.5;
            s[3 * i + j] = m;
            s[3 * j + i] = m;
        }
    V3 delta = mulTv(rot_a, sub(cb, ca));
    V3 c = v3(delta.x / ra[0], delta.y / ra[1], delta.z / ra[2]);

    double t = s[0] + s[4] + s[8];
    double m = s[0] * s[4] - s[1] * s[3] + s[0] * s[8] - s[2] * s[6] + s[4] * s[8] - s[5] * s[7];
    double d = s[0] * (s[4] * s[8] - s[7] * s[5]) - s[1] * (s[3] * s[8] - s[6] * s[5]) +
               s[2] * (s[3] * s[7] - s[6] * s[4]);
    V3 sc = mulv(s, c);
    double k1 = dot(c, sc);
    double k2 = dot(sc, sc);
    double b1 = d + m - d * dot(c, c);
    double b2 = m + t - t * k1 + k2;
    double b3 = t + 1.0 - k1;

    double roots[3];
    int nr = real_roots_monic_cubic(0.75 * b3, 0.5 * b2, 0.25 * b1, roots);
    double psi_min = 1.0;
    for (int k = 0; k < nr; ++k) {
        double z = roots[k];
        if (z > 0.0 && isfinite(z)) {
            double value = chm_psi(s, c, z);
            if (value < psi_min) psi_min = value;
        }
    }
    return !(psi_min < -CHM_TOUCH_TOLERANCE);
}
