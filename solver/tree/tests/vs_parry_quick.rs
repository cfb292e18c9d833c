//! The quick mode of the `vs_parry` bench as a test: on every quick pose our pair sets
//! (hybrid and exact kernels) equal the exact `f64` oracle's, and the oracle agrees with an
//! independent kernel.

#[allow(dead_code)]
#[path = "../benches/vs_parry/mod.rs"]
mod vs_parry;

use msdem_geom::kernel::triangle_triangle_exact;
use msdem_geom::math::Tri;
use rand::{Rng, SeedableRng};

#[test]
fn quick_poses_give_the_oracle_pair_sets() {
    let o = vs_parry::Options::parse(["--quick".to_string()].into_iter()).unwrap();
    let (cases, runs) = vs_parry::prepare(&o, &mut |_| {}).unwrap();
    assert_eq!(runs.len(), 12, "two sphere cases × six poses");
    for r in &runs {
        let name = format!("{} {}", cases[r.case].name, r.label);
        assert_eq!(r.ours_wrong, [(0, 0); 6], "{name}: misses/extras");
        let touching =
            r.label.contains("gap ε") || r.label.contains("overlap") || r.label.contains("deep");
        assert_eq!(touching, r.sure > 0, "{name}: {} pairs", r.sure);
    }
}

#[test]
fn oracle_distance_agrees_with_the_exact_kernel() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(15);
    for i in 0..20_000 {
        let shift = (i % 5) as f32 * 0.4;
        let mut r = |s: f32| -> [f32; 3] {
            std::array::from_fn(|k| rng.gen_range(-1.0..1.0f32) + if k == 0 { s } else { 0.0 })
        };
        let (a, b) = (
            Tri::new(r(0.0), r(0.0), r(0.0)),
            Tri::new(r(shift), r(shift), r(shift)),
        );
        let w = |t: &Tri| t.v.map(|p| p.map(|x| x as f64));
        let d = vs_parry::oracle::tri_tri_dist(&w(&a), &w(&b));
        let k = triangle_triangle_exact(&a, &b).dist() as f64;
        assert!(
            (d - k).abs() <= 1e-5 * (1.0 + d),
            "pair {i}: oracle {d} kernel {k}"
        );
    }
}

#[test]
fn oracle_gives_zero_for_crossing_triangles_and_the_gap_for_parallel_ones() {
    let a = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let b = [[0.2, 0.2, -1.0], [0.3, 0.2, 1.0], [0.2, 0.3, 1.0]];
    assert_eq!(vs_parry::oracle::tri_tri_dist(&a, &b), 0.0);
    let c = a.map(|v| [v[0], v[1], 0.25]);
    assert!((vs_parry::oracle::tri_tri_dist(&a, &c) - 0.25).abs() < 1e-15);
}
