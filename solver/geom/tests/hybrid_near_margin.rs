//! Regression (issue 15): the hybrid kernel missed contacts just inside the margin. A
//! converged iterate with `lower ≤ margin < upper` was answered "separated", so pairs up to
//! `C·ε` inside the margin were lost (1–2 per touching pose of the Stanford bunny). Now
//! such a pair is "not converged" and the exact fallback decides.

use msdem_geom::kernel::{
    triangle_triangle_exact, IterativeParams, KernelKind, KernelResult, PairBatch,
};
use msdem_geom::math::Tri;
use rand::{Rng, SeedableRng};

#[test]
fn hybrid_never_misses_a_pair_just_inside_the_margin() {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1515);
    let c = IterativeParams::default().c;
    let mut batch = PairBatch::<u32>::new();
    let mut expect = Vec::new();
    for i in 0..50_000u32 {
        let shift = rng.gen_range(0.9..1.3f32);
        let mut v = |s: f32| -> [f32; 3] {
            std::array::from_fn(|k| rng.gen_range(-0.5..0.5f32) + if k == 0 { s } else { 0.0 })
        };
        let a = Tri::new(v(0.0), v(0.0), v(0.0));
        let b = Tri::new(v(shift), v(shift), v(shift));
        let f = rng.gen_range(0.05..0.95f32);
        let d = triangle_triangle_exact(&a, &b).dist();
        if d.is_nan() || d <= 1e-3 {
            continue;
        }
        // Margin m with d in [m − C·ε, m), ε = m/2: inside the margin, within the
        // certificate's tolerance of it.
        let margin = d / (1.0 - f * 0.5 * c);
        batch.push(&a, &b, margin, i, true);
        expect.push((i, d, margin));
    }
    let mut out = Vec::new();
    batch.run(KernelKind::Hybrid, &IterativeParams::default(), &mut out);
    let missed: Vec<_> = out
        .iter()
        .zip(&expect)
        .filter(|(o, _)| !matches!(o.result, KernelResult::Contact(_)))
        .map(|(_, e)| *e)
        .collect();
    assert!(expect.len() > 40_000);
    assert!(
        missed.is_empty(),
        "{} of {} missed, e.g. {:?}",
        missed.len(),
        expect.len(),
        missed.first()
    );
}
