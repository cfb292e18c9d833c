//! Debug checks of the correctness statements of seed 004 §2.3/§7, evaluated on every
//! sweep when enabled ([`super::LocalTimeStepping::set_checks`]):
//!
//! * **Theorem 2.4** — no consolidation rolls a particle back before the global minimum
//!   time stamp, nor before its own previous snapshot (the interpolation would become an
//!   extrapolation): every active cluster's time stamp `t_C` satisfies
//!   `t_C ≥ min_p t_p` and `t_C ≥ t⁻_q` for each of its particles `q`.
//! * **Lemma 7.4** — the particle with the smallest time stamp is a member of an active
//!   cluster (so every sweep makes progress).

/// What one sweep's check reads: per cluster its time stamp, whether it is active, its
/// particles; per particle its two time stamps.
#[derive(Clone, Copy, Debug)]
pub struct SweepView<'a> {
    /// `(t⁻, t)` per particle before the sweep \[s\].
    pub stamps: &'a [(f64, f64)],
    /// Cluster of each particle.
    pub cluster_of: &'a [u32],
    /// Time stamp `t_C` per cluster \[s\].
    pub cluster_time: &'a [f64],
    /// Active flag per cluster (Def. 2.3).
    pub active: &'a [bool],
    /// End of the synchronisation interval \[s\].
    pub t_end: f64,
}

/// Checks Theorem 2.4 and Lemma 7.4 on one sweep; returns the violations found.
pub fn check_sweep(v: &SweepView) -> Vec<String> {
    let mut out = Vec::new();
    let (mut t_min, mut argmin) = (f64::INFINITY, usize::MAX);
    for (p, &(_, t)) in v.stamps.iter().enumerate() {
        if t < t_min {
            t_min = t;
            argmin = p;
        }
    }
    if argmin == usize::MAX || t_min >= v.t_end {
        return out;
    }
    for (p, &(prev, t)) in v.stamps.iter().enumerate() {
        let c = v.cluster_of[p] as usize;
        if !v.active[c] {
            continue;
        }
        let tc = v.cluster_time[c];
        if tc < t_min {
            out.push(format!(
                "Theorem 2.4: cluster {c} rolls back to t = {tc:e} s before the global minimum time stamp {t_min:e} s"
            ));
        }
        if tc < prev {
            out.push(format!(
                "Theorem 2.4: particle {p} rolled back to t = {tc:e} s before its previous snapshot t⁻ = {prev:e} s"
            ));
        }
        if tc > t {
            out.push(format!(
                "consolidation: cluster {c} starts at t = {tc:e} s after particle {p}'s time stamp {t:e} s"
            ));
        }
    }
    let c = v.cluster_of[argmin] as usize;
    if !v.active[c] {
        out.push(format!(
            "Lemma 7.4: particle {argmin} has the smallest time stamp {t_min:e} s but its cluster {c} is masked"
        ));
    }
    out
}

/// The smallest exact distance \[m\] between the *real* meshes of the particles of one
/// snapshot (`bodies`, all at one time stamp) and between them and the obstacles
/// `obstacles`, by brute force over every pair of real triangles with the exact kernel of
/// `msdem_geom` (pairs whose bounding spheres are apart are skipped), and the pair that
/// attains it (`(a, Particle(b))` cluster-local, or `(a, Obstacle(o))`); `None` without
/// any pair near enough. Used by the debug checks: a distance ≤ 0 means the real surfaces
/// intersect, which the halo model never allows.
pub fn closest_real_meshes(
    model: &crate::model::Model,
    bodies: &[crate::state::Body],
    obstacles: &[u32],
) -> Option<(f64, usize, crate::model::Other)> {
    use crate::model::Other;
    use msdem_geom::kernel::triangle_triangle_exact;
    use msdem_geom::math::Tri;
    let real = |tree: &msdem_tree::SurrogateTree, pose: &msdem_geom::math::Iso3| -> Vec<Tri> {
        tree.soup[..tree.real_count()]
            .iter()
            .map(|t| t.transformed(pose))
            .collect()
    };
    let posed: Vec<Option<Vec<Tri>>> = bodies
        .iter()
        .map(|b| {
            let shape = model.shapes.get(b.shape as usize)?;
            Some(real(shape.geometry.tree()?, &b.mesh_to_world(&shape.com)))
        })
        .collect();
    let min_pair = |x: &[Tri], y: &[Tri]| {
        let mut m = f64::INFINITY;
        for s in x {
            for t in y {
                m = m.min(triangle_triangle_exact(s, t).dist() as f64);
            }
        }
        m
    };
    let mut best: Option<(f64, usize, Other)> = None;
    let mut offer = |d: f64, a: usize, b: Other| {
        if best.is_none_or(|(m, _, _)| d < m) {
            best = Some((d, a, b));
        }
    };
    for (i, bi) in bodies.iter().enumerate() {
        let Some(ti) = &posed[i] else { continue };
        for (j, bj) in bodies.iter().enumerate().skip(i + 1) {
            let Some(tj) = &posed[j] else { continue };
            let reach = bi.radius
                + bi.epsilon
                + bj.radius
                + bj.epsilon
                + crate::detect::broad::surface_reach(model, bi)
                + crate::detect::broad::surface_reach(model, bj);
            if (bi.position - bj.position).norm() <= reach {
                offer(min_pair(ti, tj), i, Other::Particle(j as u32));
            }
        }
        for &o in obstacles {
            let Some(ob) = model.obstacles.get(o as usize) else {
                continue;
            };
            let Some(tree) = ob.geometry.tree() else {
                continue;
            };
            let near = crate::detect::broad::sphere_touches_aabb(
                &bi.position,
                crate::detect::broad::outer_radius(model, bi),
                &ob.aabb,
            );
            if near {
                offer(min_pair(ti, &real(tree, &ob.pose)), i, Other::Obstacle(o));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_finds_each_violation() {
        let stamps = [(0.0, 1.0), (0.5, 2.0)];
        let ok = SweepView {
            stamps: &stamps,
            cluster_of: &[0, 1],
            cluster_time: &[1.0, 2.0],
            active: &[true, false],
            t_end: 3.0,
        };
        assert!(check_sweep(&ok).is_empty());
        let masked = SweepView {
            active: &[false, true],
            ..ok
        };
        assert!(check_sweep(&masked)[0].starts_with("Lemma 7.4"));
        let rolled = SweepView {
            cluster_of: &[0, 0],
            cluster_time: &[0.4],
            active: &[true],
            ..ok
        };
        let v = check_sweep(&rolled);
        assert!(
            v.iter().any(|s| s.contains("before the global minimum")),
            "{v:?}"
        );
        assert!(
            v.iter().any(|s| s.contains("before its previous snapshot")),
            "{v:?}"
        );
    }
}
