//! Times HGrid against linked cells on one packing (exponent −3), interleaved, for
//! profiling and quick ratio checks:
//! `hgrid_profile [N] [omega] [nu] [reps] [hgrid|linked|both|incremental]`.

use msdem_broadphase::workload::{random_packing, PackingSpec};
use msdem_broadphase::{BroadPhase, HGrid, HGridConfig, LinkedCells};
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let get = |i: usize, d: f64| a.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let n = get(0, 1e5) as usize;
    let spheres = random_packing(&PackingSpec {
        count: n,
        exponent: -3.0,
        size_ratio: get(1, 50.0),
        packing_fraction: get(2, 0.1),
        seed: 42,
        ..PackingSpec::default()
    });
    let reps = get(3, 20.0) as usize;
    let which = a.get(4).map_or("both", String::as_str);
    let mut kinds: Vec<(&str, Box<dyn BroadPhase>)> = Vec::new();
    if which != "linked" {
        kinds.push(("hgrid", Box::new(HGrid::new(HGridConfig::default())?)));
    }
    if which == "incremental" {
        kinds.clear();
        kinds.push((
            "incremental",
            Box::new(msdem_broadphase::IncrementalHGrid::new(
                HGridConfig::default(),
            )?),
        ));
    }
    if which != "hgrid" && which != "incremental" {
        kinds.push(("linked", Box::new(LinkedCells::new(None, 0.0)?)));
    }
    let mut out = Vec::new();
    let mut best = vec![f64::INFINITY; kinds.len()];
    for (_, bp) in kinds.iter_mut() {
        bp.find_pairs(&spheres, &mut out)?;
    }
    for _ in 0..reps {
        for (k, (_, bp)) in kinds.iter_mut().enumerate() {
            let t = Instant::now();
            bp.find_pairs(&spheres, &mut out)?;
            best[k] = best[k].min(t.elapsed().as_secs_f64());
        }
    }
    for (k, (name, bp)) in kinds.iter().enumerate() {
        let st = bp.stats();
        println!(
            "{name}: {} pairs, best {:.1} ns/sphere, {:.2} tests/sphere, {:.2} cells/sphere",
            out.len(),
            best[k] * 1e9 / n as f64,
            st.sphere_tests as f64 / n as f64,
            st.cell_visits as f64 / n as f64
        );
    }
    if best.len() == 2 {
        println!("LC/HG = {:.2}", best[1] / best[0]);
    }
    Ok(())
}
