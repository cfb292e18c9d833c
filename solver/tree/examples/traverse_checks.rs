//! Kernel checks of hierarchy vs flat traversal over random touching poses (development
//! aid for tuning builder parameters):
//! `traverse_checks K ETA ALPHA_AREA LEAF BRANCHING REFINE_ITERATIONS FLAT(0/1)`.
use msdem_geom::kernel::KernelKind;
use msdem_geom::math::{Iso3, Vec3};
use msdem_mesh::generate::{noise_sphere, NoiseSphere};
use msdem_tree::{build_tree, find_contacts_with, BuildParams, LevelStats, Mode, Scratch, Unfold};
use rand::{Rng, SeedableRng};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: f64| a.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (k, eta) = (arg(1, 3.0) as u32, arg(2, 1.2));
    let d = BuildParams::default();
    let p = BuildParams {
        alpha_area: arg(3, d.alpha_area),
        leaf_size: arg(4, d.leaf_size as f64) as u32,
        branching: arg(5, d.branching as f64) as u32,
        refine_iterations: arg(6, d.refine_iterations as f64) as u32,
        ..d
    };
    let with_flat = arg(7, 1.0) != 0.0;
    let m1 = noise_sphere(&NoiseSphere {
        radius: 0.5,
        subdivisions: k,
        eta,
        seed: 1,
        ..Default::default()
    })
    .unwrap();
    let m2 = noise_sphere(&NoiseSphere {
        radius: 0.5,
        subdivisions: k,
        eta,
        seed: 2,
        ..Default::default()
    })
    .unwrap();
    let t0 = std::time::Instant::now();
    let (t1, t2) = (
        build_tree(&m1, [0; 32], &p).unwrap(),
        build_tree(&m2, [0; 32], &p).unwrap(),
    );
    println!("build 2 trees: {:?}", t0.elapsed());
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
    let eps = 0.01f32;
    let mut st = [LevelStats::default(); 3];
    let mut times = [0.0f64; 3];
    let mut contacts = 0;
    let mut scratch = Scratch::new();
    for _ in 0..30 {
        let dir = Vec3::new(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
        )
        .normalize();
        let axis = Vec3::new(
            rng.gen_range(-3.0..3.0),
            rng.gen_range(-3.0..3.0),
            rng.gen_range(-3.0..3.0),
        );
        let iso = Iso3::new(dir * rng.gen_range(1.0..1.0 * eta), axis);
        for (i, (mode, unfold)) in [
            (Mode::Hierarchy, Unfold::Both),
            (Mode::Hierarchy, Unfold::Larger),
            (Mode::Flat, Unfold::Both),
        ]
        .into_iter()
        .enumerate()
        {
            if mode == Mode::Flat && !with_flat {
                continue;
            }
            let mut out = Vec::new();
            let t = std::time::Instant::now();
            find_contacts_with(
                &t1,
                eps,
                &t2,
                eps,
                &iso,
                mode,
                KernelKind::Exact,
                unfold,
                &mut scratch,
                &mut out,
                &mut st[i],
            );
            times[i] += t.elapsed().as_secs_f64();
            if i == 0 {
                contacts += out.len();
            }
        }
    }
    println!("contacts {contacts}");
    for (name, (s, t)) in ["hier-both", "hier-larger", "flat"]
        .iter()
        .zip(st.iter().zip(times))
    {
        println!(
            "{name:12} checks {:>10} fine {:>9} time {:.4} s  per-level {:?}",
            s.total(),
            s.fine,
            t,
            &s.checks[..6]
        );
    }
}
