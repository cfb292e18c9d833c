//! The cheapest test of a query (seed 000 Def. 4.3 applied to the two roots): every real
//! point below an internal node lies within the node's `offset` of its surrogate triangle
//! (the distance to a convex set is convex, so the bound at the real vertices holds on
//! the real triangles), hence within `r + offset` of the surrogate's centroid, `r` the
//! largest vertex distance from it. Two roots whose spheres, grown by the halos, are apart
//! hold no real pair within `ε_a + ε_b`: the query ends before any buffer is touched. This
//! is what a far pose costs (parry3d tests its two root boxes).

use crate::tree::SurrogateTree;
use msdem_geom::math::{Iso3, Point3};

/// Relative slack of the test, as the culling tests' (`cull.rs`): far above the `f32`
/// rounding of the soup and of B's transformed triangles.
const SLACK: f64 = 1e-5;

/// Centroid \[m\] (tree frame) and radius \[m\] of the sphere around the real geometry of
/// an internal root; `None` for an empty tree or a root that is a leaf.
fn root_sphere(t: &SurrogateTree) -> Option<(Point3, f64)> {
    let root = t.nodes.first()?;
    if root.is_leaf() {
        return None;
    }
    let v = t.soup.get(root.tri as usize)?.v;
    let p = v.map(|q| Point3::new(q[0].into(), q[1].into(), q[2].into()));
    let c = Point3::from((p[0].coords + p[1].coords + p[2].coords) / 3.0);
    let r2 = p
        .iter()
        .map(|q| (q - c).norm_squared())
        .fold(0.0f64, f64::max);
    Some((c, r2.sqrt() + f64::from(root.offset)))
}

/// Whether the real triangles of `a` (halo `eps_a` \[m\]) and `b` (halo `eps_b` \[m\]),
/// B posed by `b_to_a`, are certainly farther apart than `eps_a + eps_b` by their root
/// spheres (false when either root is a leaf).
pub(crate) fn roots_apart(
    a: &SurrogateTree,
    eps_a: f32,
    b: &SurrogateTree,
    eps_b: f32,
    b_to_a: &Iso3,
) -> bool {
    let (Some((ca, ra)), Some((cb, rb))) = (root_sphere(a), root_sphere(b)) else {
        return false;
    };
    let cb = b_to_a * cb;
    let reach = ra + rb + f64::from(eps_a) + f64::from(eps_b);
    let mag = ca.coords.amax().max(cb.coords.amax()) + reach;
    let d2 = (ca - cb).norm_squared();
    let need = reach + SLACK * mag;
    d2 > need * need
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build_tree, find_contacts, BuildParams, LevelStats, Mode, Scratch};
    use msdem_geom::kernel::KernelKind;
    use msdem_geom::math::Vec3;

    /// Against the flat search: wherever the screen says apart, no real pair is within
    /// the margin; and it does say apart once the spheres are clear of each other.
    #[test]
    fn root_screen_never_hides_a_contact() {
        let mesh = msdem_mesh::generate::icosphere(0.5, 2).expect("icosphere");
        let t = build_tree(&mesh, [0; 32], &BuildParams::default()).expect("tree");
        let eps = 0.01f32;
        let (mut s, mut out, mut st) = (Scratch::new(), Vec::new(), LevelStats::default());
        let mut apart_seen = 0;
        for k in 0..80 {
            let gap = -0.02 + 0.004 * k as f64;
            let dir = Vec3::new(1.0, 0.3 * (k % 7) as f64, -0.2).normalize();
            let iso = Iso3::new(dir * (1.0 + gap), Vec3::new(0.1, 0.2 * k as f64, 0.3));
            out.clear();
            find_contacts(
                &t,
                eps,
                &t,
                eps,
                &iso,
                Mode::Flat,
                KernelKind::Exact,
                &mut s,
                &mut out,
                &mut st,
            );
            if roots_apart(&t, eps, &t, eps, &iso) {
                apart_seen += 1;
                assert!(
                    out.is_empty(),
                    "pose {k}: {} contacts behind the screen",
                    out.len()
                );
            }
        }
        assert!(apart_seen > 10, "the screen never fired ({apart_seen})");
    }
}
