//! Cost of smooth-surface contact geometry (issue 14, `docs/performance.md`): contact
//! detection and contact formation (`Detector::contacts`, searched from the roots) of the
//! seed 000 §6.7 grid of noisy 1,280-triangle spheres whose neighbours' halos overlap,
//! with the material's `surface` at `facets` and at `smooth`, interleaved in one process,
//! thread-CPU time, medians over the repetitions. Checked: both find contacts, and the
//! smooth pairs' total spring overlap is at least the facets' (the curved surfaces lie
//! outside the facets).
//!
//! `cargo run --release -p msdem-solver --example smooth_cost -- [reps] [patches|seed]`
//! (contact points: surface patches, the explicit integrator's default, or the seed's).

#[path = "support/grid_world.rs"]
#[allow(dead_code)] // the grid's set-up figures are `examples/grid.rs`'s
mod grid_world;

use anyhow::{ensure, Result};
use grid_world::{build_grid, GridSpec};
use msdem_solver::detect::{Detector, Search};
use msdem_solver::model::smooth::Surface;
use msdem_solver::params::{DetectionMode, KernelChoice};

fn main() -> Result<()> {
    let reps: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(21);
    let spec = GridSpec {
        n: [4, 4, 4],
        radius: 0.1,
        subdivisions: 3,
        eta: 1.1,
        seed: 7,
        gap_fraction: 0.5,
        speed: 0.0,
        kernel: KernelChoice::Exact,
        dt: Some(1e-5),
    };
    let points = match std::env::args().nth(2).as_deref() {
        None | Some("patches") => msdem_solver::model::ContactPoints::Patches,
        Some("seed") => msdem_solver::model::ContactPoints::Seed,
        Some(other) => anyhow::bail!("contact points `{other}`: expected patches or seed"),
    };
    let mut facets = build_grid(&spec)?.world;
    facets.model.contact_points = points;
    let mut smooth = facets.clone();
    smooth.model.materials[0].surface = Surface::Smooth;
    for shape in &mut smooth.model.shapes {
        if let msdem_solver::model::Geometry::Mesh(mesh) = &mut shape.geometry {
            *mesh = mesh.clone().with_smooth();
        }
    }
    // One rayon thread, measured on it: thread-CPU time covers all the work.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    pool.install(|| measure(&facets, &smooth, reps))
}

fn measure(
    facets: &msdem_solver::world::World,
    smooth: &msdem_solver::world::World,
    reps: usize,
) -> Result<()> {
    let search = Search::Roots(DetectionMode::Hierarchy);
    let mut det = Detector::new(&facets.params);
    let mut times = [Vec::new(), Vec::new()];
    let mut overlap = [0.0; 2];
    let mut count = [0; 2];
    for _ in 0..reps {
        for (k, w) in [facets, smooth].into_iter().enumerate() {
            let t0 = msdem_benchkit::thread_cpu_s()?;
            let (contacts, _) = det.contacts(&w.model, &w.state, search)?;
            times[k].push(msdem_benchkit::thread_cpu_s()? - t0);
            let margin = 2.0 * w.state.bodies[0].epsilon;
            overlap[k] = contacts.iter().map(|c| c.weight * (margin - c.dist)).sum();
            count[k] = contacts.len();
        }
    }
    ensure!(count[0] > 0 && count[1] > 0, "no contacts: {count:?}");
    ensure!(overlap[1] >= overlap[0], "smooth overlap {overlap:?}");
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (f, s) = (median(&mut times[0]), median(&mut times[1]));
    println!(
        "load average {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    println!(
        "grid 4x4x4 noisy 1,280-triangle spheres, {:?}, {reps} reps: facets {:.2} ms ({} contacts, overlap {:.3e} m), smooth {:.2} ms ({} contacts, overlap {:.3e} m): {:.2}x",
        facets.model.contact_points, 1e3 * f, count[0], overlap[0], 1e3 * s, count[1], overlap[1], s / f
    );
    Ok(())
}
