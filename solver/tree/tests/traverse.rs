//! Hierarchy vs flat vs an independent brute-force loop (Lemma 5.1).

use msdem_geom::kernel::{triangle_triangle_exact, KernelKind};
use msdem_geom::math::{Iso3, Vec3};
use msdem_mesh::generate::{noise_sphere, plane, NoiseSphere};
use msdem_mesh::TriMesh;
use msdem_tree::{
    build_tree, find_contacts, find_contacts_with, validate, BuildParams, LevelStats, Mode,
    Scratch, SurrogateTree, TriContact, Unfold,
};
use rand::{Rng, SeedableRng};

fn sphere(subdivisions: u32, eta: f64, seed: u32) -> TriMesh {
    noise_sphere(&NoiseSphere {
        radius: 1.0,
        subdivisions,
        eta,
        seed,
        ..Default::default()
    })
    .unwrap()
}

fn tree(mesh: &TriMesh) -> SurrogateTree {
    let t = build_tree(mesh, [0; 32], &BuildParams::default()).unwrap();
    validate(&t).unwrap();
    t
}

/// Contacts as sorted `(source_a, source_b, p, q)`.
fn keyed(
    a: &SurrogateTree,
    b: &SurrogateTree,
    c: &[TriContact],
) -> Vec<(u32, u32, [f32; 3], [f32; 3])> {
    let mut v: Vec<_> = c
        .iter()
        .map(|c| {
            (
                a.source[c.tri_a as usize],
                b.source[c.tri_b as usize],
                c.p,
                c.q,
            )
        })
        .collect();
    v.sort_by_key(|x| (x.0, x.1));
    v
}

/// Plain loop over the meshes' triangles with the exact kernel, no tree involved.
fn brute(
    ma: &TriMesh,
    mb: &TriMesh,
    iso: &Iso3,
    margin: f32,
) -> Vec<(u32, u32, [f32; 3], [f32; 3])> {
    let sa = ma.soup();
    let sb: Vec<_> = mb.soup().iter().map(|t| t.transformed(iso)).collect();
    let mut v = Vec::new();
    for (i, ta) in sa.iter().enumerate() {
        for (j, tb) in sb.iter().enumerate() {
            let c = triangle_triangle_exact(ta, tb);
            if c.dist_sq <= margin * margin {
                v.push((i as u32, j as u32, c.p, c.q));
            }
        }
    }
    v
}

fn random_pose(rng: &mut impl Rng, dmin: f64, dmax: f64) -> Iso3 {
    let dir = loop {
        let d = Vec3::new(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
        );
        if d.norm() > 0.1 && d.norm() <= 1.0 {
            break d.normalize();
        }
    };
    let axis = Vec3::new(
        rng.gen_range(-3.2..3.2),
        rng.gen_range(-3.2..3.2),
        rng.gen_range(-3.2..3.2),
    );
    Iso3::new(dir * rng.gen_range(dmin..dmax), axis)
}

fn run(
    a: &SurrogateTree,
    b: &SurrogateTree,
    eps: f32,
    iso: &Iso3,
    mode: Mode,
    unfold: Unfold,
    st: &mut LevelStats,
) -> Vec<TriContact> {
    let mut out = Vec::new();
    let mut scratch = Scratch::new();
    find_contacts_with(
        a,
        eps,
        b,
        eps,
        iso,
        mode,
        KernelKind::Exact,
        unfold,
        &mut scratch,
        &mut out,
        st,
    );
    out
}

#[test]
fn hierarchy_equals_flat_equals_brute_force_for_touching_noisy_spheres() {
    let (ma, mb) = (sphere(2, 1.3, 1), sphere(2, 1.2, 2));
    let (a, b) = (tree(&ma), tree(&mb));
    let eps = 0.02f32;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(42);
    let (mut hier, mut flat) = (LevelStats::default(), LevelStats::default());
    let mut touching = 0;
    for _ in 0..40 {
        let iso = random_pose(&mut rng, 2.0, 2.5);
        let h = run(&a, &b, eps, &iso, Mode::Hierarchy, Unfold::Both, &mut hier);
        let hl = run(
            &a,
            &b,
            eps,
            &iso,
            Mode::Hierarchy,
            Unfold::Larger,
            &mut LevelStats::default(),
        );
        let f = run(&a, &b, eps, &iso, Mode::Flat, Unfold::Both, &mut flat);
        let (kh, khl, kf) = (keyed(&a, &b, &h), keyed(&a, &b, &hl), keyed(&a, &b, &f));
        assert_eq!(kh, kf, "hierarchy and flat differ at pose {iso:?}");
        assert_eq!(khl, kf);
        let bf = brute(&ma, &mb, &iso, 2.0 * eps);
        assert_eq!(kf.len(), bf.len());
        for (x, y) in kf.iter().zip(&bf) {
            assert_eq!((x.0, x.1), (y.0, y.1));
            for k in 0..3 {
                assert!((x.2[k] - y.2[k]).abs() < 1e-5 && (x.3[k] - y.3[k]).abs() < 1e-5);
            }
        }
        touching += usize::from(!kf.is_empty());
    }
    assert!(
        touching >= 10,
        "only {touching} poses in contact: test too weak"
    );
    assert!(
        hier.total() * 5 < flat.total(),
        "hierarchy {} vs flat {} checks",
        hier.total(),
        flat.total()
    );
    assert_eq!(flat.fine, flat.total());
    assert_eq!(hier.fallbacks, 0);
}

#[test]
fn hierarchy_equals_flat_for_a_plane_against_a_sphere_both_ways() {
    let pm = plane([4.0, 4.0], 1, [0.0, 0.0, 0.0]).unwrap();
    let sm = sphere(3, 1.2, 5);
    let (p, s) = (tree(&pm), tree(&sm));
    let eps = 0.01f32;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
    let mut touching = 0;
    for _ in 0..20 {
        // Sphere centre above the plane at a height close to its radius range [1, 1.2].
        let h = rng.gen_range(0.98..1.22);
        let axis = Vec3::new(
            rng.gen_range(-3.0..3.0),
            rng.gen_range(-3.0..3.0),
            rng.gen_range(-3.0..3.0),
        );
        let iso = Iso3::new(
            Vec3::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), h),
            axis,
        );
        let mut st = LevelStats::default();
        let hp = run(&p, &s, eps, &iso, Mode::Hierarchy, Unfold::Both, &mut st);
        let fp = run(&p, &s, eps, &iso, Mode::Flat, Unfold::Both, &mut st);
        assert_eq!(keyed(&p, &s, &hp), keyed(&p, &s, &fp));
        let inv = iso.inverse();
        let hs = run(&s, &p, eps, &inv, Mode::Hierarchy, Unfold::Larger, &mut st);
        let fs = run(&s, &p, eps, &inv, Mode::Flat, Unfold::Both, &mut st);
        assert_eq!(keyed(&s, &p, &hs), keyed(&s, &p, &fs));
        assert_eq!(hs.len(), hp.len());
        touching += usize::from(!hp.is_empty());
    }
    assert!(touching >= 5, "only {touching} touching poses");
}

#[test]
fn scratch_reuse_across_calls_and_trees_gives_same_answers() {
    let (ma, mb) = (sphere(1, 1.3, 3), sphere(2, 1.1, 4));
    let (a, b) = (tree(&ma), tree(&mb));
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
    let mut scratch = Scratch::new();
    for _ in 0..10 {
        let iso = random_pose(&mut rng, 1.9, 2.4);
        for (x, y, i) in [(&a, &b, iso), (&b, &a, iso.inverse())] {
            let mut reuse = Vec::new();
            let mut st = LevelStats::default();
            find_contacts(
                x,
                0.03,
                y,
                0.03,
                &i,
                Mode::Hierarchy,
                KernelKind::Hybrid,
                &mut scratch,
                &mut reuse,
                &mut st,
            );
            // Same kernel in both modes: the hybrid kernel's iterative points differ from
            // the exact ones within its tolerance, so compare like with like.
            let mut fresh = Vec::new();
            find_contacts(
                x,
                0.03,
                y,
                0.03,
                &i,
                Mode::Flat,
                KernelKind::Hybrid,
                &mut Scratch::new(),
                &mut fresh,
                &mut LevelStats::default(),
            );
            assert_eq!(keyed(x, y, &reuse), keyed(x, y, &fresh));
        }
    }
}
