//! OpM's normals and distances against an independent high-precision reference
//! (seed 002 §2: the minimiser `c` of eq. (2) is the maximiser of the support gap).
//!
//! Reference, sharing no code with OpM: the signed distance is
//! `σ = max_{|u|=1} ψ(u)`, `ψ(u) = q·u − h_A(u) − h_B(u)`, `q = b_B − b_A`,
//! `h(u) = √(uᵀ M u)`, `M = R diag(r²) Rᵀ` (built here from the pose and radii), and OpM's
//! normal (B → A) is `−u*`. `ψ` is sampled on 40,000 Fibonacci directions, the best 16
//! samples are refined by Riemannian Newton on the sphere (closed-form gradient and
//! Hessian of `ψ`, tangent-plane step, normalisation) until the step is below 1e-15 rad,
//! and the largest local maximum wins. Pairs whose two best distinct local maxima are
//! within 1e-9 m (a near tie: either answer is right) are counted and skipped.

mod common;

use common::{fibonacci_sphere, random_ellipsoid, random_pose, rng};
use msdem_ellipsoid::math::{Iso3, Mat3, Real, Vec3};
use msdem_ellipsoid::{opm, Ellipsoid};

const SAMPLES: usize = 40_000;
const REFINED: usize = 16;
/// Normal agreement asked of OpM \[rad\].
const NORMAL_TOL: Real = 1e-10;
/// Distance agreement, relative to the pair's scale.
const DISTANCE_TOL: Real = 1e-12;

fn shape_matrix(e: &Ellipsoid, pose: &Iso3) -> Mat3 {
    let r = pose.rotation.to_rotation_matrix().into_inner();
    let [a, b, c] = e.radii();
    r * Mat3::from_diagonal(&Vec3::new(a * a, b * b, c * c)) * r.transpose()
}

struct Gap {
    q: Vec3,
    m: [Mat3; 2],
}

impl Gap {
    fn psi(&self, u: &Vec3) -> Real {
        self.q.dot(u) - self.m.iter().map(|m| u.dot(&(m * u)).sqrt()).sum::<Real>()
    }

    /// Riemannian Newton for a local maximum from `u`; `None` if it does not settle on
    /// a maximum (negative definite Hessian) within 60 steps.
    fn refine(&self, start: &Vec3) -> Option<(Real, Vec3)> {
        let mut u = *start;
        for _ in 0..60 {
            let mut grad = self.q;
            let mut hess = Mat3::zeros();
            for m in &self.m {
                let mu = m * u;
                let h = u.dot(&mu).sqrt();
                grad -= mu / h;
                hess -= m / h - mu * mu.transpose() / (h * h * h);
            }
            let helper = if u.x.abs() < 0.6 {
                Vec3::x()
            } else {
                Vec3::y()
            };
            let e1 = u.cross(&helper).normalize();
            let e2 = u.cross(&e1);
            let radial = u.dot(&grad);
            let g = [e1.dot(&grad), e2.dot(&grad)];
            let h11 = e1.dot(&(hess * e1)) - radial;
            let h12 = e1.dot(&(hess * e2));
            let h22 = e2.dot(&(hess * e2)) - radial;
            let det = h11 * h22 - h12 * h12;
            if !(h11 < 0.0 && det > 0.0) {
                return None;
            }
            let s1 = -(h22 * g[0] - h12 * g[1]) / det;
            let s2 = -(h11 * g[1] - h12 * g[0]) / det;
            let step = (s1 * s1 + s2 * s2).sqrt();
            if step > 0.2 {
                return None;
            }
            u = (u + e1 * s1 + e2 * s2).normalize();
            if step < 1e-15 {
                return Some((self.psi(&u), u));
            }
        }
        Some((self.psi(&u), u))
    }
}

struct Outcome {
    checked: usize,
    ties: usize,
    worst_normal: Real,
    worst_distance: Real,
}

fn check(seed: u64, pairs: usize, half: Real, dirs: &[Vec3]) -> Outcome {
    let mut r = rng(seed);
    let mut out = Outcome {
        checked: 0,
        ties: 0,
        worst_normal: 0.0,
        worst_distance: 0.0,
    };
    for k in 0..pairs {
        let a = random_ellipsoid(&mut r, 0.2, 1.0);
        let b = random_ellipsoid(&mut r, 0.2, 1.0);
        let pa = random_pose(&mut r, half);
        let pb = random_pose(&mut r, half);
        let gap = Gap {
            q: pb.translation.vector - pa.translation.vector,
            m: [shape_matrix(&a, &pa), shape_matrix(&b, &pb)],
        };
        let mut samples: Vec<(Real, usize)> = dirs
            .iter()
            .enumerate()
            .map(|(i, u)| (gap.psi(u), i))
            .collect();
        samples.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        let mut maxima: Vec<(Real, Vec3)> = Vec::new();
        for &(_, i) in samples.iter().take(REFINED) {
            if let Some((v, u)) = gap.refine(&dirs[i]) {
                if maxima.iter().all(|m| (m.1 - u).norm() > 1e-6) {
                    maxima.push((v, u));
                }
            }
        }
        maxima.sort_by(|x, y| y.0.total_cmp(&x.0));
        let (sigma, u_star) = maxima[0];
        if maxima.len() > 1 && sigma - maxima[1].0 <= 1e-9 {
            out.ties += 1;
            continue;
        }
        let o = opm(&a, &pa, &b, &pb);
        assert!(
            o.converged(),
            "pair {k} (seed {seed:#x}): OpM not converged"
        );
        let scale = a.max_radius() + b.max_radius() + gap.q.norm();
        // The chord, not `angle` (an `acos`, good only to about 1.5e-8 near zero).
        let normal_err = (o.normal + u_star).norm();
        let distance_err = (o.signed_distance - sigma).abs() / scale;
        assert!(
            normal_err <= NORMAL_TOL && distance_err <= DISTANCE_TOL,
            "pair {k} (seed {seed:#x}, half {half}): normal off by {normal_err:e} rad, \
             distance by {distance_err:e} × scale (σ {sigma}, OpM {})",
            o.signed_distance
        );
        out.checked += 1;
        out.worst_normal = out.worst_normal.max(normal_err);
        out.worst_distance = out.worst_distance.max(distance_err);
    }
    out
}

#[test]
fn opm_normals_match_the_reference_to_1e_10() {
    let dirs = fibonacci_sphere(SAMPLES);
    for (seed, half) in [(0x13_0001, 0.6), (0x13_0002, 1.2), (0x13_0003, 3.0)] {
        let o = check(seed, 400, half, &dirs);
        println!(
            "half {half}: {} pairs checked, {} near ties skipped, worst normal {:e} rad, \
             worst distance {:e} × scale",
            o.checked, o.ties, o.worst_normal, o.worst_distance
        );
        assert!(o.ties * 20 <= 400, "too many near ties: {}", o.ties);
    }
}
