//! What the runner prints: progress lines, sizes of what a stage made, where results are.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::plan::{RUN_DIR, SCENARIO_FILE};
use crate::run_log::RUN_LOG_FILE;

/// Writes one progress line; a closed log must not stop the pipeline.
pub fn say(log: &mut dyn Write, line: std::fmt::Arguments<'_>) {
    let _ = writeln!(log, "{line}");
    let _ = log.flush();
}

/// `meshes/grain.ply (12.5 KiB)` or `run/ply (41 files, 1.2 MiB)`.
pub fn describe(out_dir: &Path, rel: &Path) -> String {
    let path = out_dir.join(rel);
    let (files, bytes) = tally(&path);
    let size = human_bytes(bytes);
    if path.is_dir() {
        format!("{} ({files} files, {size})", rel.display())
    } else {
        format!("{} ({size})", rel.display())
    }
}

fn tally(path: &Path) -> (u64, u64) {
    if let Ok(entries) = std::fs::read_dir(path) {
        entries.flatten().fold((0, 0), |(f, b), e| {
            let (f2, b2) = tally(&e.path());
            (f + f2, b + b2)
        })
    } else {
        (1, std::fs::metadata(path).map(|m| m.len()).unwrap_or(0))
    }
}

fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Prints where the results are, for those that exist.
pub fn report_products(out_dir: &Path, log: &mut dyn Write) {
    let run = Path::new(RUN_DIR);
    let products = [
        ("scenario", PathBuf::from(SCENARIO_FILE)),
        ("frames", run.join("frames")),
        ("paraview", run.join("vtk").join("particles.pvd")),
        ("states", run.join("vtk").join("particles_state.pvd")),
        ("obstacles", run.join("vtk").join("obstacles.pvd")),
        ("contacts", run.join("vtk").join("contacts.pvd")),
        ("script", run.join("vtk").join("open_in_paraview.py")),
        ("csv", run.join("csv")),
        ("ply", run.join("ply")),
        ("plots", run.join("plots")),
        ("dashboard", run.join("plots").join("dashboard.png")),
        ("preview", run.join("preview.png")),
        ("animation", run.join("preview_animation.png")),
        ("log", PathBuf::from(RUN_LOG_FILE)),
    ];
    for (what, rel) in products {
        let path = out_dir.join(&rel);
        if path.exists() {
            say(log, format_args!("      {what:<10}{}", path.display()));
        }
    }
}
