//! Prints the per-level summary of trees over noisy spheres (development aid):
//! `tree_summary K ETA STRETCH ALPHA_AREA REFINE_ITERATIONS`.
use msdem_mesh::generate::{noise_sphere, NoiseSphere};
use msdem_tree::{build_tree, summary, BuildParams};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let k: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(3);
    let eta: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let stretch: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let alpha: f64 = args
        .get(4)
        .and_then(|s| s.parse().ok())
        .unwrap_or(BuildParams::default().alpha_area);
    let m = noise_sphere(&NoiseSphere {
        radius: 0.5,
        subdivisions: k,
        eta,
        stretch,
        ..Default::default()
    })
    .unwrap();
    let refine: u32 = args
        .get(5)
        .and_then(|s| s.parse().ok())
        .unwrap_or(BuildParams::default().refine_iterations);
    let p = BuildParams {
        alpha_area: alpha,
        refine_iterations: refine,
        ..Default::default()
    };
    let t0 = std::time::Instant::now();
    let t = build_tree(&m, [0; 32], &p).unwrap();
    println!("build {:?}", t0.elapsed());
    print!("{}", summary(&t).table());
    let r = &t.nodes[0];
    let s = t.soup[r.tri as usize];
    let d = (0..3)
        .map(|i| {
            let (a, b) = (s.v[i], s.v[(i + 1) % 3]);
            ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
        })
        .fold(0.0f32, f32::max);
    println!("root: diameter {d:.3} m, offset {:.3} m", r.offset);
}
