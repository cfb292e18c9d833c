#!/usr/bin/env python3
"""1-D model of one impact under the linearised implicit step at a given ωΔt (issue 19).

Units: m_eff = k = 1 (ω = 1), approach speed 1, overlap δ (> 0 in contact). The law is the
project's linear law (solver/core/src/contact/force.rs, `normal_force`):
F = max(0, k·δ + min(c·u, β·k·δ)), c = 2ζ, β = 1, u = dδ/dt. Schemes, solved exactly per
step (bisection of the monotone scalar equation in the end speed u₁):
  midpoint:  δ₁ = δ₀ + Δt·(u₀ + u₁)/2, spring = discrete gradient (U(δ₁) − U(δ₀))/(δ₁ − δ₀)
             with U = ½δ² for δ > 0 (linearised.rs, "Midpoint rule"), dashpot at the
             midpoint speed (as in the code) or at u₁ (`--dash-end`);
  euler:     δ₁ = δ₀ + Δt·u₁, spring and dashpot at the end state.
The impact begins at entry phase p ∈ [0, 1): δ₀ = −p·Δt at the start of the first step.
Rebound = −u once the bodies separate. Also: the linear trapezoidal 2×2 map (impact entering
at a step boundary, uncapped, last partial step interpolated linearly).

Also the candidates for a less dissipative scheme than implicit Euler that damps what the
midpoint rule's dashpot does not (issue 19, ninth session): the θ-method with the spring's
blend (2 − 2θ)·(discrete gradient) + (2θ − 1)·(end-of-step spring) and the dashpot at
v_θ = (1 − θ)·u₀ + θ·u₁ (`picard.scheme: theta`, solver/core/src/integrator/implicit/theta.rs);
the plain θ-method (spring at the θ-state); TR-BDF2 (γ = 2 − √2: a midpoint stage over γΔt,
then BDF2 with the end-state law). For each: rebound mean [min … max] over 20 entry
phases for e = 0.1, 0.4, 0.7, 0.9 at 1×, 5×, 10×, 20× the explicit step, and whether a
contact under gravity comes to rest (largest |u| over the last 50 of 400 steps at 10×).

The split scheme (`picard.scheme: split`, tenth session): midpoint motion, the spring's
discrete gradient, the dashpot at the end speed u₁ (backward Euler on the damping alone);
with the law's ζ and with a dashpot ζ' calibrated per ωΔt so that the mean rebound is e.

Figures of docs/performance.md ("Restitution at 10×", "θ-method", "Split scheme"):
  python3 tools/models/discrete_impact.py
"""
import math
import statistics

H10 = 10 * 2 * math.pi / 20  # ωΔt at ten times the explicit step (STEPS_PER_PERIOD = 20)


def impact_restitution(z, beta=1.0):
    """Closed form of the continuous capped law (contact/pair.rs, impact_restitution)."""
    if z <= 0:
        return 1.0
    s = math.sqrt(1 + beta)
    th = math.atan2(2 * z * s, beta)
    x1, v1 = math.sin(th) / s, math.cos(th)
    g0 = x1 + 2 * z * v1
    dg0 = v1 - 2 * z * g0
    big = dg0 + z * g0
    if z < 1:
        w = math.sqrt(1 - z * z)
        tau = math.atan2(g0 * w, -big) / w
        c, sn = math.cos(w * tau), math.sin(w * tau) / w
    elif z == 1:
        if big >= 0:
            return 0.0
        tau = -g0 / big
        c, sn = 1.0, tau
    else:
        q = math.sqrt(z * z - 1)
        r = -g0 * q / big
        if big >= 0 or r >= 1:
            return 0.0
        tau = math.atanh(r) / q
        c, sn = math.cosh(q * tau), math.sinh(q * tau) / q
    return math.exp(-z * tau) * (x1 * c + (v1 + z * x1) * sn) / (2 * z)


def zeta_for(e):
    """The law's damping ratio for restitution e (contact/pair.rs, damping_ratio_for)."""
    if e >= 1:
        return 0.0
    if impact_restitution(3.0) >= e:
        return 3.0
    lo, hi = 0.0, 3.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if impact_restitution(mid) > e else (lo, mid)
    return 0.5 * (lo + hi)


def potential(d):
    return 0.5 * d * d if d > 0 else 0.0


def rebound(z, h, phase, scheme="midpoint", dash_end=False, beta=1.0):
    d, u = -phase * h, 1.0
    for _ in range(10000):
        d0, u0 = d, u

        def force(u1):
            if scheme == "midpoint":
                d1 = d0 + h * (u0 + u1) / 2
                if abs(d1 - d0) > 1e-14:
                    spring = (potential(d1) - potential(d0)) / (d1 - d0)
                else:
                    spring = max(d0, 0.0)
                speed = u1 if dash_end else (u0 + u1) / 2
            else:
                spring = max(d0 + h * u1, 0.0)
                speed = u1
            if spring <= 0:
                return 0.0
            return max(0.0, spring + min(2 * z * speed, beta * spring))

        lo, hi = u0 - 1e4, u0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if mid - u0 + h * force(mid) > 0 else (mid, hi)
        u = 0.5 * (lo + hi)
        d = d0 + h * ((u0 + u) / 2 if scheme == "midpoint" else u)
        if d < 0 and u < 0:
            return -u
    return float("nan")


def law(spring, speed, z, beta=1.0):
    if spring <= 0:
        return 0.0
    return max(0.0, spring + min(2 * z * speed, beta * spring))


def discrete_gradient(d0, d1):
    if abs(d1 - d0) > 1e-14:
        return (potential(d1) - potential(d0)) / (d1 - d0)
    return max(d0, 0.0)


def solve(res, u0):
    """Root of the increasing residual res(u₁) by bisection."""
    lo, hi = u0 - 1e4, u0 + 1e4
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if res(mid) > 0 else (mid, hi)
    return 0.5 * (lo + hi)


def step(scheme, d0, u0, h, z, g=0.0, th=0.5):
    """One step of `scheme` from overlap d0, speed u0; g pushes into the contact."""
    if scheme in ("theta", "theta_plain"):
        def force(u1):
            ut = (1 - th) * u0 + th * u1
            if scheme == "theta_plain":
                return law(max(d0 + th * h * ut, 0.0), ut, z)
            d1 = d0 + h * ut
            s = (2 - 2 * th) * discrete_gradient(d0, d1) + (2 * th - 1) * max(d1, 0.0)
            return law(s, ut, z)
        u1 = solve(lambda u1: u1 - u0 - h * g + h * force(u1), u0)
        return d0 + h * ((1 - th) * u0 + th * u1), u1
    if scheme == "midpoint":
        return step("theta", d0, u0, h, z, g, 0.5)
    if scheme == "split":
        # Midpoint motion and discrete-gradient spring, dashpot at the end speed u₁
        # (`picard.scheme: split`, solver/core/src/integrator/implicit/split.rs).
        def force(u1):
            d1 = d0 + h * (u0 + u1) / 2
            return law(discrete_gradient(d0, d1), u1, z)
        u1 = solve(lambda u1: u1 - u0 - h * g + h * force(u1), u0)
        return d0 + h * (u0 + u1) / 2, u1
    if scheme == "euler":
        return step("theta_plain", d0, u0, h, z, g, 1.0)
    if scheme == "trbdf2":
        gm = 2 - math.sqrt(2)
        dg, ug = step("midpoint", d0, u0, gm * h, z, g)
        a, b, c = 1 / (gm * (2 - gm)), (1 - gm) ** 2 / (gm * (2 - gm)), (1 - gm) / (2 - gm)
        u1 = solve(lambda u1: u1 - (a * ug - b * u0)
                   - c * h * (g - law(max(a * dg - b * d0 + c * h * u1, 0.0), u1, z)), u0)
        return a * dg - b * d0 + c * h * u1, u1
    raise ValueError(scheme)


def rebound_of(scheme, z, h, phase, th=0.5):
    d, u = -phase * h, 1.0
    for _ in range(10000):
        d, u = step(scheme, d, u, h, z, 0.0, th)
        if d < 0 and u < 0:
            return -u
    return float("nan")


def comes_to_rest(scheme, z, h, th=0.5, g=0.05):
    d, u, us = -0.01, 0.0, []
    for _ in range(400):
        d, u = step(scheme, d, u, h, z, g, th)
        us.append(abs(u))
    return max(us[-50:])


def candidates():
    phases = [p / 20 for p in range(20)]
    explicit = 2 * math.pi / 20
    for scheme, th in [("midpoint", 0.5), ("euler", 1.0), ("trbdf2", 0.0),
                       ("theta_plain", 0.55), ("theta", 0.55), ("theta", 0.6), ("split", 0.5)]:
        print(f"{scheme}" + (f", θ = {th}" if scheme.startswith("theta") else "")
              + ": rebound mean [min … max] over the entry phase")
        for e in [0.1, 0.4, 0.7, 0.9]:
            z = zeta_for(e)
            cells = []
            for f in [1, 5, 10, 20]:
                r = [rebound_of(scheme, z, explicit * f, p, th) for p in phases]
                cells.append(f"{f}×: {statistics.mean(r):.3f} [{min(r):.2f} … {max(r):.2f}]")
            print(f"  e = {e}: " + "  ".join(cells))
        rest = [comes_to_rest(scheme, zeta_for(e), H10, th) for e in [0.1, 0.4, 0.9]]
        print("  at rest under gravity at 10× (max |u|, e = 0.1, 0.4, 0.9): "
              + ", ".join(f"{r:.1e}" for r in rest))


def mean_rebound(scheme, z, h, th=0.5, phases=20):
    return statistics.mean(rebound_of(scheme, z, h, p / phases, th) for p in range(phases))


def calibrated_zeta(e, h, scheme="split"):
    """The dashpot ζ' whose mean rebound over the entry phase is e at ωΔt = h (bisection:
    the split scheme's mean rebound falls monotonically with ζ')."""
    lo, hi = 0.0, 30.0
    if mean_rebound(scheme, hi, h) > e:
        return hi
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if mean_rebound(scheme, mid, h) > e else (lo, mid)
    return 0.5 * (lo + hi)


def calibration():
    """The split scheme with the law's ζ and with a calibrated ζ' (issue 19, tenth session)."""
    phases = [p / 20 for p in range(20)]
    explicit = 2 * math.pi / 20
    print("split, calibrated dashpot ζ'(e, ωΔt): ζ'/ζ, rebound mean [min … max] over the entry phase")
    for e in [0.1, 0.2, 0.4, 0.5, 0.8, 0.95]:
        z = zeta_for(e)
        cells = []
        for f in [1, 5, 10, 20]:
            h = explicit * f
            zc = calibrated_zeta(e, h)
            r = [rebound_of("split", zc, h, p) for p in phases]
            cells.append(f"{f}×: {zc / z:.2f}, {statistics.mean(r):.3f} [{min(r):.2f} … {max(r):.2f}]")
        print(f"  e = {e}: " + "  ".join(cells))


def trapezoid_2x2(z, h):
    a = h / 2
    det = 1 + 2 * z * a + a * a
    inv = [[(1 + 2 * z * a) / det, a / det], [-a / det, 1 / det]]
    rhs = [[1, a], [-a, 1 - 2 * z * a]]
    m = [[sum(inv[i][k] * rhs[k][j] for k in range(2)) for j in range(2)] for i in range(2)]
    s = [0.0, 1.0]
    for _ in range(1000):
        n = [m[0][0] * s[0] + m[0][1] * s[1], m[1][0] * s[0] + m[1][1] * s[1]]
        if n[0] <= 0:
            t = s[0] / (s[0] - n[0])
            return -(s[1] + t * (n[1] - s[1]))
        s = n
    return float("nan")


def spread(values):
    return f"mean {statistics.mean(values):.3f}, {min(values):.3f} … {max(values):.3f}"


def main():
    phases = [p / 20 for p in range(20)]
    print(f"ωΔt = {H10:.4f} (10×)")
    print("dashpot alone, midpoint rule: speed factor (1 − ζωΔt)/(1 + ζωΔt)")
    for e in [0.7, 0.4, 0.1]:
        z = zeta_for(e)
        print(f"  e = {e}: ζ = {z:.3f}, factor {(1 - z * H10) / (1 + z * H10):+.3f}")
    print("midpoint, dashpot at the midpoint speed (the code), rebound over the entry phase:")
    for z in [0.135, 0.509, 1.0, 3.0, 10.0]:
        print(f"  ζ = {z}: {spread([rebound(z, H10, p) for p in phases])}")
    print("midpoint, dashpot at the end speed:")
    for z in [0.111, 0.509, 0.654]:
        print(f"  ζ = {z}: {spread([rebound(z, H10, p, dash_end=True) for p in phases])}")
    print("implicit Euler, undamped:", spread([rebound(0.0, H10, p, "euler") for p in phases]))
    print("linear trapezoidal 2×2 map, undamped:", f"{trapezoid_2x2(0.0, H10):.3f}")
    print("at the explicit step (ωΔt = 0.314), ζ(0.4), midpoint:",
          spread([rebound(zeta_for(0.4), H10 / 10, p) for p in phases]))
    print()
    candidates()
    print()
    calibration()


if __name__ == "__main__":
    main()
