//! L-BFGS (memory 6) with Armijo backtracking over the nine coordinates of a triangle,
//! shared by the eq. (6) fit (`fit.rs`) and the halo refinement (`refine.rs`). Stops early
//! when the gradient vanishes, when a line search finds no decrease in 40 halvings, or when
//! an accepted step lowers the objective by less than `rel_tol` relative (the builder's
//! `fit_tolerance`: most surrogates of small nodes settle within a few dozen iterations,
//! after which the budget bought nothing). Sequential `f64`: deterministic.

/// A triangle packed as `[x₁, y₁, z₁, x₂, …, z₃]`.
pub(crate) type X = [f64; 9];

fn dot9(a: &X, b: &X) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Minimises `f` (value, and gradient into the second argument when given) from `x` with
/// at most `iterations` L-BFGS steps, stopping when a step gains less than `rel_tol`
/// relative; returns the last accepted point. A non-finite value rejects a trial point.
pub(crate) fn minimise(
    obj: &dyn Fn(&X, Option<&mut X>) -> f64,
    mut x: X,
    iterations: u32,
    rel_tol: f64,
) -> X {
    const M: usize = 6;
    let mut g = [0.0; 9];
    let mut f = obj(&x, Some(&mut g));
    if !f.is_finite() {
        return x;
    }
    let mut hist: Vec<(X, X, f64)> = Vec::with_capacity(M);
    for _ in 0..iterations {
        let gn = dot9(&g, &g).sqrt();
        if gn <= 1e-14 {
            break;
        }
        // Two-loop recursion.
        let mut q = g;
        let mut alphas = [0.0; M];
        for (k, (s, y, rho)) in hist.iter().enumerate().rev() {
            let a = rho * dot9(s, &q);
            alphas[k] = a;
            for i in 0..9 {
                q[i] -= a * y[i];
            }
        }
        let gamma = hist
            .last()
            .map(|(s, y, _)| dot9(s, y) / dot9(y, y))
            .unwrap_or(0.1 / gn);
        for v in q.iter_mut() {
            *v *= gamma;
        }
        for (k, (s, y, rho)) in hist.iter().enumerate() {
            let b = rho * dot9(y, &q);
            for i in 0..9 {
                q[i] += s[i] * (alphas[k] - b);
            }
        }
        let mut dir = q.map(|v| -v);
        let mut slope = dot9(&g, &dir);
        if slope >= 0.0 || !slope.is_finite() {
            hist.clear();
            dir = g.map(|v| -v * 0.1 / gn);
            slope = dot9(&g, &dir);
        }
        let mut step = 1.0;
        let mut accepted = None;
        for _ in 0..40 {
            let xn: X = std::array::from_fn(|i| x[i] + step * dir[i]);
            let mut gn_new = [0.0; 9];
            let fnew = obj(&xn, Some(&mut gn_new));
            if fnew.is_finite() && fnew <= f + 1e-4 * step * slope {
                accepted = Some((xn, fnew, gn_new));
                break;
            }
            step *= 0.5;
        }
        let Some((xn, fnew, gnew)) = accepted else {
            break;
        };
        let s: X = std::array::from_fn(|i| xn[i] - x[i]);
        let y: X = std::array::from_fn(|i| gnew[i] - g[i]);
        let sy = dot9(&s, &y);
        if sy > 1e-300 {
            if hist.len() == M {
                hist.remove(0);
            }
            hist.push((s, y, 1.0 / sy));
        }
        let progress = f - fnew;
        x = xn;
        f = fnew;
        g = gnew;
        if progress <= rel_tol.max(1e-15) * f.abs() {
            break;
        }
    }
    x
}
