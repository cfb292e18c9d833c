//! Memory of the kept active sets per active element pair, on a small lattice of the seed
//! 000 §6.7 grid (`examples/support/grid_world.rs`: 1,280-triangle noisy spheres whose
//! neighbours' halos all overlap). The grid's peak memory had doubled (377 → 818 MiB)
//! unnoticed when every unfolded pair got a 16-byte span beside its 8-byte key
//! (`detect/active/span.rs`); this bound fails if a per-pair record grows, or is kept for
//! more pairs, without the figures of `docs/performance.md` "§6.7 grid" being revisited.

#[allow(dead_code)]
#[path = "../../examples/support/grid_world.rs"]
mod grid_world;

use grid_world::{build_grid, GridSpec};
use msdem_solver::detect::Detector;
use msdem_solver::integrator::explicit::ExplicitEuler;
use msdem_solver::params::KernelChoice;

/// Bytes of the kept sets (their heap buffers and per-pair states) per active element
/// pair after two explicit steps of a 3 × 3 × 2 lattice (33 particle pairs in contact).
fn bytes_per_active_pair() -> (f64, usize) {
    let spec = GridSpec {
        n: [3, 3, 2],
        radius: 0.5,
        subdivisions: 3,
        eta: 1.1,
        seed: 1,
        gap_fraction: 0.9,
        speed: 0.0,
        kernel: KernelChoice::Hybrid,
        dt: None,
    };
    let mut w = build_grid(&spec).expect("grid").world;
    let mut det = Detector::new(&w.params);
    let mut ex = ExplicitEuler::new(&w.params);
    for _ in 0..2 {
        ex.advance(&w.model, &mut w.state, &mut det, false)
            .expect("step");
    }
    let pairs = det.active_pairs();
    (det.active_bytes() as f64 / pairs as f64, pairs)
}

#[test]
fn kept_sets_stay_within_their_bytes_per_active_pair() {
    let (bytes, pairs) = bytes_per_active_pair();
    assert!(pairs > 10_000, "{pairs} active element pairs");
    // Measured (deterministic: capacities): 4.61 with spans for subtrees of ≥ 8 cut
    // entries (the §6.7 grid itself: 4.63); a span for every unfolded pair, main before
    // the tenth session, gives 8.87 (with 20-byte spans); 4 more bytes per stored leaf 4.91.
    assert!(
        bytes < 4.8,
        "{bytes:.2} bytes per active element pair ({pairs} pairs): more than the §6.7 grid's \
         memory figures were measured with (docs/performance.md)"
    );
}
