//! The pair-set query on a cell grid (`find_pairs_grid`) against the tree query
//! (`find_pairs_boxed`) on 240 random poses near touching (noisy spheres and icospheres),
//! and against brute force with the exact kernel on small meshes: the same set, no pair
//! twice, deterministic, whatever the cell size.

use msdem_geom::kernel::triangle_triangle_exact;
use msdem_geom::math::{Iso3, Vec3};
use msdem_mesh::generate::{icosphere, noise_sphere, NoiseSphere};
use msdem_tree::grid::{MAX_CELLS_PER_TRIANGLE, MAX_ENTRIES_PER_TRIANGLE};
use msdem_tree::{
    build_tree, find_pairs_boxed, find_pairs_grid, BuildParams, CellGrid, GridScratch, LevelStats,
    NodeBoxes, Scratch, SurrogateTree, TriPair,
};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const EPS: f32 = 0.01;
const BAND: f64 = 1e-6;

fn noisy(subdivisions: u32, seed: u32, eta: f64) -> SurrogateTree {
    let m = noise_sphere(&NoiseSphere {
        radius: 0.5,
        subdivisions,
        eta,
        seed,
        ..Default::default()
    })
    .expect("noise sphere");
    build_tree(&m, [0; 32], &BuildParams::default()).expect("tree")
}

fn ico(subdivisions: u32) -> SurrogateTree {
    let m = icosphere(0.5, subdivisions).expect("icosphere");
    build_tree(&m, [0; 32], &BuildParams::default()).expect("tree")
}

fn sorted(v: &[TriPair]) -> Vec<(u32, u32)> {
    let mut s: Vec<_> = v.iter().map(|p| (p.tri_a, p.tri_b)).collect();
    s.sort_unstable();
    s
}

/// A random pose of B at centre distance in `dist` along a random direction, randomly
/// rotated.
fn pose(rng: &mut Xoshiro256PlusPlus, dist: std::ops::Range<f64>) -> Iso3 {
    let d = loop {
        let d = Vec3::new(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
        );
        if d.norm() > 0.2 && d.norm() <= 1.0 {
            break d.normalize();
        }
    };
    let rot = Vec3::new(
        rng.gen_range(-3.0..3.0),
        rng.gen_range(-3.0..3.0),
        rng.gen_range(-3.0..3.0),
    );
    Iso3::new(d * rng.gen_range(dist), rot)
}

/// Grid and tree queries on `n` random poses: equal sorted sets, no duplicates, the grid
/// query deterministic. Returns (poses with pairs, poses without).
fn same_as_tree_query(
    (a, b): (&SurrogateTree, &SurrogateTree),
    dist: std::ops::Range<f64>,
    n: usize,
    seed: u64,
) -> (usize, usize) {
    let (ba, bb) = (NodeBoxes::of(a), NodeBoxes::of(b));
    let grid = CellGrid::of(a, 1.0).expect("grid");
    let (mut s, mut gs) = (Scratch::new(), GridScratch::new());
    let (mut tree, mut got, mut again) = (Vec::new(), Vec::new(), Vec::new());
    let mut st = LevelStats::default();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut with, mut without) = (0, 0);
    for i in 0..n {
        let iso = pose(&mut rng, dist.clone());
        tree.clear();
        got.clear();
        again.clear();
        find_pairs_boxed(
            (a, &ba),
            EPS,
            (b, &bb),
            EPS,
            &iso,
            &mut s,
            &mut tree,
            &mut st,
        );
        find_pairs_grid(
            (a, &ba, &grid),
            EPS,
            (b, &bb),
            EPS,
            &iso,
            &mut gs,
            &mut got,
            &mut st,
        );
        find_pairs_grid(
            (a, &ba, &grid),
            EPS,
            (b, &bb),
            EPS,
            &iso,
            &mut gs,
            &mut again,
            &mut st,
        );
        assert_eq!(got, again, "pose {i}: not deterministic");
        let g = sorted(&got);
        let mut d = g.clone();
        d.dedup();
        assert_eq!(d.len(), g.len(), "pose {i}: pairs twice");
        assert_eq!(
            g,
            sorted(&tree),
            "pose {i} ({iso:?}): grid and tree sets differ"
        );
        if g.is_empty() {
            without += 1;
        } else {
            with += 1;
        }
    }
    (with, without)
}

#[test]
fn grid_query_equals_the_tree_query_on_noisy_spheres_near_touching() {
    let (a, b) = (noisy(3, 5, 1.2), noisy(3, 6, 1.25));
    // Centre distances from deep overlap to apart (noise moves the radius ≈ ±0.1).
    let (with, without) = same_as_tree_query((&a, &b), 0.9..1.3, 120, 15);
    assert!(
        with > 60 && without > 5,
        "poses with / without pairs: {with} / {without}"
    );
}

#[test]
fn grid_query_equals_the_tree_query_on_icospheres_near_touching() {
    let (a, b) = (ico(3), ico(3));
    // Centre distances from deep overlap to just apart (radius 0.5 each).
    let (with, without) = same_as_tree_query((&a, &b), 0.9..1.08, 120, 16);
    assert!(
        with > 60 && without > 5,
        "poses with / without pairs: {with} / {without}"
    );
}

/// Against every real pair's exact distance, for cell sizes from a quarter of the mean
/// edge to one cell for the whole body, with and without the node boxes (without B's,
/// every B triangle is listed).
#[test]
fn grid_query_equals_brute_force_on_small_meshes_at_any_cell_size() {
    let (a, b) = (noisy(1, 7, 1.2), ico(1));
    let (ra, rb) = (a.real_count(), b.real_count());
    let (ba, bb, none) = (NodeBoxes::of(&a), NodeBoxes::of(&b), NodeBoxes::default());
    let margin = f64::from(2.0 * EPS);
    let mut gs = GridScratch::new();
    let mut got = Vec::new();
    let mut st = LevelStats::default();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(17);
    let grids: Vec<CellGrid> = [0.25f32, 1.0, 4.0, 1e6]
        .iter()
        .map(|&c| CellGrid::of(&a, c).expect("grid"))
        .collect();
    let mut touching = 0;
    for i in 0..60 {
        let iso = pose(&mut rng, 0.85..1.1);
        let tb: Vec<_> = b.soup[..rb].iter().map(|t| t.transformed(&iso)).collect();
        let mut near = Vec::new();
        for (ia, ta) in a.soup[..ra].iter().enumerate() {
            for (ib, t) in tb.iter().enumerate() {
                let d = f64::from(triangle_triangle_exact(ta, t).dist_sq).sqrt();
                if d <= margin + BAND {
                    near.push((ia as u32, ib as u32, d));
                }
            }
        }
        touching += usize::from(!near.is_empty());
        for (g, grid) in grids.iter().enumerate() {
            for (boxes_a, boxes) in [(&ba, &bb), (&none, &none), (&ba, &none)] {
                got.clear();
                find_pairs_grid(
                    (&a, boxes_a, grid),
                    EPS,
                    (&b, boxes),
                    EPS,
                    &iso,
                    &mut gs,
                    &mut got,
                    &mut st,
                );
                let found = sorted(&got);
                for &(ia, ib, d) in &near {
                    assert!(
                        d > margin - BAND || found.binary_search(&(ia, ib)).is_ok(),
                        "pose {i} grid {g}: pair ({ia}, {ib}) at {d} m missed"
                    );
                }
                for p in &found {
                    assert!(
                        near.iter().any(|x| (x.0, x.1) == *p),
                        "pose {i} grid {g}: pair {p:?} beyond the margin"
                    );
                }
                let mut d = found.clone();
                d.dedup();
                assert_eq!(d.len(), found.len(), "pose {i}: pairs twice");
            }
        }
    }
    assert!(touching > 20, "only {touching} touching poses");
}

/// The grid's size stays within its bound whatever cell size is asked, and bad factors
/// are refused with a message, not a panic.
#[test]
fn grid_size_is_bounded_and_bad_cell_sizes_are_refused() {
    let t = noisy(3, 5, 1.2);
    let n = t.real_count() as u64;
    for c in [1e-6f32, 0.01, 0.5, 1.0, 3.0, 1e9] {
        let g = CellGrid::of(&t, c).expect("grid");
        let cells: u64 = g.cells().iter().map(|&x| u64::from(x)).product();
        assert!(
            cells <= MAX_CELLS_PER_TRIANGLE * n + 64,
            "factor {c}: {cells} cells"
        );
        assert!(
            g.entries() as u64 <= MAX_ENTRIES_PER_TRIANGLE * n + 64,
            "factor {c}: {} entries",
            g.entries()
        );
        assert!(g.entries() as u64 >= n, "factor {c}: a triangle not listed");
    }
    for c in [0.0f32, -1.0, f32::NAN, f32::INFINITY] {
        let e = CellGrid::of(&t, c).expect_err("bad factor accepted");
        assert!(e.to_string().contains("cell_edges"), "{e}");
    }
}
