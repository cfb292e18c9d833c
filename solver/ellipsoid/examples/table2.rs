//! Seed 002 Table 2 for every size up to 2²⁰ bodies: contacts of the sphere path and of
//! the ellipsoid path (ChM + OpM; OpM alone up to `--opm-only-max`, default 131072) on
//! the same realisation, with the seed's own counts (another realisation) for scale.
//! Stops with an error when a count differs.
//!
//! `cargo run --release -p msdem-ellipsoid --example table2 -- [--opm-only-max N]`

use anyhow::{ensure, Context};
use msdem_ellipsoid::table2::count_contacts;
use msdem_ellipsoid::workload::table2;
use std::time::Instant;

/// Bodies and the seed's contact counts (seed 002 Table 2).
const TABLE: [(usize, usize); 8] = [
    (128, 37),
    (1024, 335),
    (8192, 2969),
    (32_768, 11_670),
    (131_072, 49_000),
    (262_144, 105_920),
    (524_288, 190_747),
    (1_048_576, 487_246),
];

fn main() -> anyhow::Result<()> {
    let mut opm_only_max = 131_072;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--opm-only-max" => opm_only_max = args.next().context("missing value")?.parse()?,
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    println!(
        "{:>9} | {:>8} | {:>9} {:>10} {:>9} {:>9} | {:>7}",
        "bodies", "seed", "spheres", "candidates", "ChM+OpM", "OpM only", "wall"
    );
    for (n, seed_count) in TABLE {
        let t = Instant::now();
        let (bodies, _) = table2(n, 0x7ab1e2 + n as u64)?;
        let c = count_contacts(&bodies, n <= opm_only_max)?;
        println!(
            "{:>9} | {:>8} | {:>9} {:>10} {:>9} {:>9} | {:>6.1}s",
            n,
            seed_count,
            c.spheres,
            c.candidates,
            c.chm_opm,
            c.opm_only.map_or("-".into(), |k| k.to_string()),
            t.elapsed().as_secs_f64()
        );
        ensure!(c.chm_opm == c.spheres, "ChM + OpM count differs at {n}");
        ensure!(
            c.opm_only.is_none_or(|k| k == c.spheres),
            "OpM-only count differs at {n}"
        );
    }
    Ok(())
}
