//! The mesh–mesh comparison with parry3d 0.31 behind `benches/vs_parry.rs` (and the quick
//! correctness test `tests/vs_parry_quick.rs`): a query is every triangle pair of two
//! bodies within the margin `2ε`; each pose's answer is checked against an exact `f64`
//! oracle before anything is timed.
//!
//! * ours: [`find_contacts`] from the roots (a cold query: no kept sets), hierarchy mode,
//!   hybrid and exact kernels, one reused [`Scratch`]; and [`find_contacts_boxed`], the
//!   same traversal also pruning by node boxes, axis-aligned and oriented
//!   ([`msdem_tree::NodeBoxes`], built once per
//!   shape like parry's BVH);
//! * ours, pair-set query: [`find_pairs_boxed`] (hybrid kernel, node boxes, the decision
//!   kernel first on every real–real pair): the question itself, the pairs within
//!   the margin without closest points;
//! * ours, pair-set query on a cell grid: [`find_pairs_grid`] (A's triangles in a
//!   [`msdem_tree::CellGrid`] built once per shape, only B's tree descended): the same
//!   pairs by another route;
//! * parry: `contact_manifolds` on prebuilt `TriMesh` shapes with a persistent workspace
//!   and manifold vector per pose (and, for reference, fresh ones per call).
//!
//! Timing: thread-CPU time, methods interleaved per pose and repetition (the starting method
//! rotates), each sample after one untimed call and long enough (≥ 100 µs) for the clock
//! to be exact, medians over the repetitions.

pub mod cases;
pub mod kernels;
pub mod oracle;
pub mod parry_side;
pub mod timing;

use cases::{Case, EPS};
use msdem_geom::kernel::KernelKind;
use msdem_tree::{
    find_contacts, find_contacts_boxed, find_pairs_boxed, find_pairs_grid, GridScratch, LevelStats,
    Mode, Scratch, TriContact, TriPair,
};
use std::path::PathBuf;

/// Oracle distances within this of the margin \[m\] are borderline: `f32` storage of the
/// posed triangles moves them by a few 10⁻⁸ m, so neither library is held to them.
pub const BAND_M: f64 = 1e-6;

/// Command-line options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Timed repetitions per method and pose (0: checks only).
    pub reps: usize,
    /// First approach axis only, no scanned mesh.
    pub quick: bool,
    /// The scanned mesh (`None`: spheres only).
    pub mesh: Option<PathBuf>,
}

impl Options {
    /// Parses `--reps N`, `--quick`, `--mesh PATH`, `--no-mesh` (and ignores the `--bench`
    /// flag `cargo bench` appends).
    pub fn parse(args: impl Iterator<Item = String>) -> Result<Options, String> {
        let mut o = Options {
            reps: 21,
            quick: false,
            mesh: Some(PathBuf::from("meshes/bunny.ply")),
        };
        let mut reps = None;
        let mut args = args.peekable();
        while let Some(a) = args.next() {
            match a.as_str() {
                "--bench" => {}
                "--quick" => o.quick = true,
                "--no-mesh" => o.mesh = None,
                "--reps" => {
                    let v = args.next().ok_or("--reps needs a number")?;
                    reps = Some(v.parse().map_err(|_| format!("--reps: not a count: {v}"))?);
                }
                "--mesh" => o.mesh = Some(PathBuf::from(args.next().ok_or("--mesh needs a path")?)),
                _ => {
                    return Err(format!(
                        "unknown argument {a} (use --reps N, --quick, --mesh PATH, --no-mesh)"
                    ))
                }
            }
        }
        if o.quick {
            o.mesh = None;
        }
        o.reps = reps.unwrap_or(if o.quick { 3 } else { 21 });
        if let Some(p) = &o.mesh {
            if !p.exists() {
                let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
                let r = root.join(p);
                if !r.exists() {
                    return Err(format!(
                        "{}: no such mesh (pass --mesh PATH, e.g. the Stanford bunny OBJ, or --no-mesh)",
                        p.display()
                    ));
                }
                o.mesh = Some(r);
            }
        }
        Ok(o)
    }
}

/// One pose of one case, prepared and checked.
pub struct PoseRun {
    /// Index into the cases.
    pub case: usize,
    /// Pose label.
    pub label: String,
    /// B's frame → A's frame.
    pub iso: msdem_geom::math::Iso3,
    /// parry's copy of `iso`.
    pub pos12: parry3d::math::Pose,
    /// Oracle pairs with distance ≤ margin − [`BAND_M`].
    pub sure: usize,
    /// Oracle pairs within [`BAND_M`] of the margin.
    pub band: usize,
    /// Our misses and extras (each of [`OURS`], then the pair-set query, then the grid
    /// query): must be zero.
    pub ours_wrong: [(usize, usize); 6],
    /// parry's misses and extras.
    pub parry_wrong: (usize, usize),
    /// Our kernel checks (hybrid, without and with node boxes).
    pub checks: [u64; 2],
    /// Median per-call thread-CPU time of each method \[ns\]: [`OURS`], parry
    /// persistent, parry fresh, then our pair-set query, then our grid query.
    pub median_ns: [f64; METHODS],
    parry: parry_side::Query,
}

/// Our four variants: (kernel, node boxes).
pub const OURS: [(KernelKind, bool); 4] = [
    (KernelKind::Hybrid, false),
    (KernelKind::Exact, false),
    (KernelKind::Hybrid, true),
    (KernelKind::Exact, true),
];

/// Timed methods: [`OURS`], parry persistent, parry fresh, our pair-set query, our grid
/// query.
pub const METHODS: usize = 8;

/// Our pair-set query on A's cell grid ([`find_pairs_grid`]); returns the candidates.
fn ours_grid(
    c: &Case,
    iso: &msdem_geom::math::Iso3,
    s: &mut GridScratch,
    out: &mut Vec<TriPair>,
) -> u64 {
    let mut st = LevelStats::default();
    let e = EPS as f32;
    out.clear();
    let (a, b) = ((&c.a.tree, &c.a.boxes, &c.a.grid), (&c.b.tree, &c.b.boxes));
    find_pairs_grid(a, e, b, e, iso, s, out, &mut st);
    st.fine
}

/// Our pair-set query ([`find_pairs_boxed`]); returns the checks.
fn ours_pairs(
    c: &Case,
    iso: &msdem_geom::math::Iso3,
    s: &mut Scratch,
    out: &mut Vec<TriPair>,
) -> u64 {
    let mut st = LevelStats::default();
    let e = EPS as f32;
    out.clear();
    let (a, b) = ((&c.a.tree, &c.a.boxes), (&c.b.tree, &c.b.boxes));
    find_pairs_boxed(a, e, b, e, iso, s, out, &mut st);
    st.total()
}

fn ours(
    c: &Case,
    iso: &msdem_geom::math::Iso3,
    (k, boxed): (KernelKind, bool),
    s: &mut Scratch,
    out: &mut Vec<TriContact>,
) -> u64 {
    let mut st = LevelStats::default();
    let e = EPS as f32;
    out.clear();
    if boxed {
        let (a, b) = ((&c.a.tree, &c.a.boxes), (&c.b.tree, &c.b.boxes));
        find_contacts_boxed(a, e, b, e, iso, k, s, out, &mut st);
    } else {
        let (a, b) = (&c.a.tree, &c.b.tree);
        find_contacts(a, e, b, e, iso, Mode::Hierarchy, k, s, out, &mut st);
    }
    st.total()
}

/// Misses (sure oracle pairs not found) and extras (found pairs farther than the margin
/// plus the band) of `found` (sorted mesh-index pairs) against the oracle `near` (sorted,
/// every pair within margin + band).
fn score(found: &[(u32, u32)], near: &[(u32, u32, f64)], margin: f64) -> (usize, usize) {
    let misses = near
        .iter()
        .filter(|p| p.2 <= margin - BAND_M && found.binary_search(&(p.0, p.1)).is_err())
        .count();
    let extras = found
        .iter()
        .filter(|f| near.binary_search_by_key(*f, |p| (p.0, p.1)).is_err())
        .count();
    (misses, extras)
}

/// Builds the cases and poses and checks every pose's answers against the oracle.
pub fn prepare(
    o: &Options,
    log: &mut dyn FnMut(String),
) -> Result<(Vec<Case>, Vec<PoseRun>), String> {
    let cases = cases::cases(o.mesh.as_deref(), log)?;
    let margin = 2.0 * EPS;
    let mut runs = Vec::new();
    let mut s = Scratch::new();
    let mut gs = GridScratch::new();
    let mut out = Vec::new();
    let mut pairs = Vec::new();
    for (ci, c) in cases.iter().enumerate() {
        for p in cases::poses(c, o.quick) {
            let b = cases::transformed(&c.b.tris, &p.iso);
            let near = oracle::near_pairs(&c.a.tris, &b, margin + BAND_M);
            let sure = near.iter().filter(|x| x.2 <= margin - BAND_M).count();
            let mut ours_wrong = [(0, 0); 6];
            let mut checks = [0; 2];
            for (m, w) in ours_wrong.iter_mut().enumerate() {
                let soup: Vec<(u32, u32)> = if m < OURS.len() {
                    let n = ours(c, &p.iso, OURS[m], &mut s, &mut out);
                    if m % 2 == 0 {
                        checks[m / 2] = n;
                    }
                    out.iter().map(|x| (x.tri_a, x.tri_b)).collect()
                } else {
                    if m == OURS.len() {
                        ours_pairs(c, &p.iso, &mut s, &mut pairs);
                    } else {
                        ours_grid(c, &p.iso, &mut gs, &mut pairs);
                    }
                    pairs.iter().map(|x| (x.tri_a, x.tri_b)).collect()
                };
                let mut found: Vec<(u32, u32)> = soup
                    .iter()
                    .map(|&(ta, tb)| (c.a.tree.source[ta as usize], c.b.tree.source[tb as usize]))
                    .collect();
                let n_found = found.len();
                found.sort_unstable();
                found.dedup();
                if found.len() != n_found {
                    log(format!("DUPLICATES in ours #{m}: {} {}", c.name, p.label));
                    w.1 += n_found - found.len();
                }
                found.sort_unstable();
                let sc = score(&found, &near, margin);
                *w = (w.0 + sc.0, w.1 + sc.1);
                for x in near
                    .iter()
                    .filter(|x| x.2 <= margin - BAND_M && found.binary_search(&(x.0, x.1)).is_err())
                {
                    log(format!(
                        "MISSED by ours #{m} {:?}: {} {}: A triangle {} B triangle {} at {:.9} m",
                        OURS.get(m),
                        c.name,
                        p.label,
                        x.0,
                        x.1,
                        x.2
                    ));
                }
            }
            let pos12 = parry_side::pose(&p.iso);
            let mut parry = parry_side::Query::default();
            parry.run(&pos12, &c.a.parry, &c.b.parry, margin as f32, false);
            let parry_wrong = score(&parry.pairs(margin as f32), &near, margin);
            log(format!(
                "{} {}: {sure} pairs (+{} borderline); ours {:?}, parry {parry_wrong:?} (misses, extras)",
                c.name,
                p.label,
                near.len() - sure,
                ours_wrong
            ));
            runs.push(PoseRun {
                case: ci,
                label: p.label,
                iso: p.iso,
                pos12,
                sure,
                band: near.len() - sure,
                ours_wrong,
                parry_wrong,
                checks,
                median_ns: [f64::NAN; METHODS],
                parry,
            });
        }
    }
    Ok((cases, runs))
}

/// Times every method on every pose, interleaved, `reps` times; fills `median_ns`.
pub fn time(cases: &[Case], runs: &mut [PoseRun], reps: usize) {
    if reps == 0 {
        return;
    }
    let margin = (2.0 * EPS) as f32;
    let mut s = Scratch::new();
    let mut gs = GridScratch::new();
    let mut out = Vec::new();
    let mut fresh = parry_side::Query::default();
    let mut pairs = Vec::new();
    let mut samples = vec![[const { Vec::new() }; METHODS]; runs.len()];
    let mut calls = vec![[1u32; METHODS]; runs.len()];
    for rep in 0..=reps {
        for (ri, r) in runs.iter_mut().enumerate() {
            let c = &cases[r.case];
            for m in 0..METHODS {
                let m = (m + rep) % METHODS;
                let mut f = |r: &mut PoseRun| match m {
                    0..4 => {
                        ours(c, &r.iso, OURS[m], &mut s, &mut out);
                    }
                    4 => r.parry.run(&r.pos12, &c.a.parry, &c.b.parry, margin, false),
                    5 => fresh.run(&r.pos12, &c.a.parry, &c.b.parry, margin, true),
                    6 => {
                        ours_pairs(c, &r.iso, &mut s, &mut pairs);
                    }
                    _ => {
                        ours_grid(c, &r.iso, &mut gs, &mut pairs);
                    }
                };
                // One untimed call first: caches hold this pose's data, not the previous
                // pose's, and the fresh workspace drops this pose's manifolds (not
                // another pose's) inside the timed calls.
                f(r);
                let t = timing::per_call_ns(calls[ri][m], &mut || f(r));
                if rep == 0 {
                    // Warm-up: size the samples.
                    calls[ri][m] = timing::calls_for(t, 100_000.0);
                } else {
                    samples[ri][m].push(t);
                }
            }
        }
    }
    for (r, s) in runs.iter_mut().zip(&samples) {
        r.median_ns = std::array::from_fn(|m| timing::median(&s[m]));
    }
}

/// The report: one markdown row per pose, then each method's worst pose and, last,
/// `min_ratio_vs_parry = X`: parry persistent over ours, the smallest over the poses, for
/// the one method of ours whose worst case is best — the pair-set query
/// ([`find_pairs_boxed`]: the pairs within the margin, what the issue asks for), the
/// pair-set query on a cell grid ([`find_pairs_grid`]: the same pairs) or the
/// contact-producing query with the hybrid kernel and node boxes (the same pairs plus
/// their closest points). All are checked against the oracle on every pose; one method
/// is chosen for all poses, never the faster per pose.
pub fn report(cases: &[Case], runs: &[PoseRun]) -> Vec<String> {
    let mut v = vec![
        "| shapes | pose | pairs (+borderline) | checks plain / boxes | ours hybrid µs | ours exact µs | ours hybrid + boxes µs | ours exact + boxes µs | ours pair set µs | ours grid µs | parry persistent µs | parry fresh µs | parry / ours pair set | parry / ours grid | parry / ours hybrid + boxes | parry / ours exact + boxes | parry misses / extras | our misses / extras |".to_string(),
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|".to_string(),
    ];
    // Worst (ratio, pose) of: pair set, grid, contact query (hybrid + boxes).
    let mut worst: [Option<(f64, String)>; 3] = [None, None, None];
    for r in runs {
        let [h, e, hb, eb, pp, pf, ps, pg] = r.median_ns.map(|x| x / 1e3);
        let name = format!("{} {}", cases[r.case].name, r.label);
        for (w, ratio) in worst.iter_mut().zip([pp / ps, pp / pg, pp / hb]) {
            if w.as_ref().is_none_or(|w| ratio < w.0) {
                *w = Some((ratio, name.clone()));
            }
        }
        v.push(format!(
            "| {} | {} | {} (+{}) | {} / {} | {h:.1} | {e:.1} | {hb:.1} | {eb:.1} | {ps:.1} | {pg:.1} | {pp:.1} | {pf:.1} | {:.2} | {:.2} | {:.2} | {:.2} | {} / {} | {} / {} |",
            cases[r.case].name, r.label, r.sure, r.band, r.checks[0], r.checks[1], pp / ps, pp / pg, pp / hb, pp / eb, r.parry_wrong.0, r.parry_wrong.1,
            r.ours_wrong.iter().map(|w| w.0).sum::<usize>(),
            r.ours_wrong.iter().map(|w| w.1).sum::<usize>()
        ));
    }
    let names = [
        "pair-set query",
        "pair-set query on a cell grid",
        "contact-producing query (hybrid + boxes)",
    ];
    let mut best: Option<(f64, &str)> = None;
    for (w, method) in worst.iter().zip(names) {
        if let Some((x, pose)) = w {
            v.push(format!("{method}, worst parry / ours: {x:.2} ({pose})"));
            if best.is_none_or(|b| *x > b.0) {
                best = Some((*x, method));
            }
        }
    }
    if let Some((x, method)) = best {
        v.push(format!("reported method (better worst case): {method}"));
        v.push(format!("min_ratio_vs_parry = {x:.2}"));
    }
    v
}

/// The per-pair kernel table (see `kernels.rs`) over the touching poses (gap ε, overlap
/// 2ε) of the sphere cases.
pub fn kernel_report(cases: &[Case], runs: &[PoseRun], reps: usize) -> Vec<String> {
    let poses: Vec<_> = runs
        .iter()
        .filter(|r| {
            (r.label.ends_with("gap ε") || r.label.contains("overlap"))
                && cases[r.case].name.contains("spheres")
        })
        .map(|r| (r.case, r.iso))
        .collect();
    let pairs = kernels::stream(cases, &poses);
    let ([ex, hy, exs, hys, pa], fb) = kernels::per_pair_ns(&pairs, reps);
    vec![
        format!("kernel stream: {} pairs from {} touching sphere poses, hybrid fallbacks {fb}", pairs.len(), poses.len()),
        "| kernel | ns/pair alone | ns/pair behind the pre-screen |".into(),
        "|---|---|---|".into(),
        format!("| ours exact | {ex:.1} | {exs:.1} |"),
        format!("| ours hybrid | {hy:.1} | {hys:.1} |"),
        format!("| parry3d GJK distance (Triangle–Triangle) | {pa:.1} | |"),
        format!("hybrid speed-up over exact: {:.2}× alone, {:.2}× behind the pre-screen; parry distance / our exact: {:.2}×", ex / hy, exs / hys, pa / ex),
    ]
}
