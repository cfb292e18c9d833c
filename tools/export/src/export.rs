//! The export stage as one call: validate the whole run folder first, then write every
//! output into a staging folder inside the output folder and swap the outputs in only when
//! all of them were written ([`crate::staging`]): a failed export leaves the previous one
//! as it was.
//!
//! A run without `stats.msdem` (killed before its end: the solver writes the statistics
//! last) is exported with a warning ([`ExportSummary::warnings`]) and without plots: the
//! frames it did write are what a user inspecting the killed run wants to see, and the
//! warning says why the plots are missing. Plots of an earlier export into the same
//! folder are removed (they would describe another run next to the new VTK files).

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::animation::{run_animation, AnimationOptions, ANIMATION_FILE};
use crate::atomic::write_atomic;
use crate::error::ExportError;
use crate::lts_charts::lts_charts;
use crate::particle_state::{particle_states, states_csv, states_polydata};
use crate::plots::{dashboard, render_chart, run_charts, PLOT_SIZE};
use crate::ply::ply_bytes;
use crate::png_out::png_bytes;
use crate::preview::{time_label, ParticleExtent, View};
use crate::pvd::{frame_time, pvd_bytes, PvdEntry};
use crate::raster::Image;
use crate::run_reader::RunFolder;
use crate::scene::{pose_obstacles, pose_particles};
use crate::staging::Staging;
use crate::steps_csv::steps_csv_lts;
use crate::vtk_series::{
    contacts_polydata, obstacles_polydata, particles_polydata, shape_polydata,
};
use crate::vtp::{PolyData, VtkFormat};

/// The ParaView script written as `vtk/open_in_paraview.py` (see docs/cli.md).
pub const PARAVIEW_SCRIPT: &str = include_str!("../assets/open_in_paraview.py");

/// Writes `pd` as a `.vtp` file in `format`.
fn write_vtp(path: &Path, pd: &PolyData, format: VtkFormat) -> Result<(), ExportError> {
    let bytes = pd.to_vtp(format).map_err(ExportError::io(path))?;
    write_atomic(path, &bytes)
}

/// Which frame the preview shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreviewFrame {
    /// The last frame of the run.
    Last,
    /// The frame with this index (`frame_NNNNNN.msdem`).
    Index(u32),
}

/// What to export and where.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportOptions {
    /// Run folder written by the solver.
    pub run: PathBuf,
    /// Output folder (default: the run folder).
    pub out: Option<PathBuf>,
    /// Write `vtk/*.vtp`, `vtk/*.pvd` and `vtk/open_in_paraview.py`.
    pub vtk: bool,
    /// Encoding of the `.vtp` files (default: zlib-compressed appended binary).
    pub vtk_format: VtkFormat,
    /// Write the posed particle meshes of every frame (`vtk/particles_NNNNNN.vtp`,
    /// `vtk/particles.pvd`); without them ParaView draws the particles from the particle
    /// states and the shape meshes (`open_in_paraview.py` does).
    pub vtk_meshes: bool,
    /// Write `csv/particles_NNNNNN.csv`: the particle states of every frame.
    pub particle_csv: bool,
    /// Write `ply/frame_NNNNNN.ply` and `ply/obstacles.ply`.
    pub ply: bool,
    /// Write `plots/*.png` and `plots/steps.csv` (needs `stats.msdem`; without it, a
    /// warning and no plots).
    pub plots: bool,
    /// Frame shown in `preview.png`.
    pub preview: PreviewFrame,
    /// Size of `preview.png` \[px\].
    pub preview_size: (u32, u32),
    /// Write the animated preview of the whole run (`preview_animation.png`,
    /// [`crate::animation`]) with these settings; `None`: do not.
    pub animation: Option<AnimationOptions>,
}

impl ExportOptions {
    /// Everything enabled, output into the run folder, preview of the last frame.
    pub fn new(run: impl Into<PathBuf>) -> Self {
        ExportOptions {
            run: run.into(),
            out: None,
            vtk: true,
            vtk_format: VtkFormat::Compressed,
            vtk_meshes: true,
            particle_csv: false,
            ply: true,
            plots: true,
            preview: PreviewFrame::Last,
            preview_size: (1024, 768),
            animation: Some(AnimationOptions::default()),
        }
    }
}

/// What an export wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportSummary {
    /// Output folder.
    pub out: PathBuf,
    /// Frames exported.
    pub frames: usize,
    /// Index of the frame shown in `preview.png`.
    pub preview_frame: u32,
    /// Frames of `preview_animation.png` (0 when not written).
    pub animation_frames: usize,
    /// Files written.
    pub files: usize,
    /// Things the user should know although the export succeeded (one line each, no
    /// trailing period): a missing statistics file.
    pub warnings: Vec<String>,
}

/// First error in frame order (deterministic whatever the thread schedule).
fn first_error<T>(results: Vec<Result<T, ExportError>>) -> Result<Vec<T>, ExportError> {
    results.into_iter().collect()
}

fn write_png(path: &Path, img: &Image) -> Result<(), ExportError> {
    let bytes = png_bytes(img).map_err(|e| ExportError::Draw {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })?;
    write_atomic(path, &bytes)
}

/// Exports a run folder (see the crate documentation for the output layout).
///
/// Bad input (missing folder, missing/corrupt/wrong-version manifest, frame or statistics,
/// a frame whose checksum does not match, mesh hash mismatch, unknown preview frame) is
/// reported before anything is written; any later failure leaves the previous outputs in
/// the output folder untouched.
pub fn export_run(opts: &ExportOptions) -> Result<ExportSummary, ExportError> {
    let run = RunFolder::open(&opts.run)?;
    let out = opts.out.clone().unwrap_or_else(|| opts.run.clone());
    if out.exists() && !out.is_dir() {
        return Err(ExportError::OutNotAFolder { path: out });
    }
    let preview_frame = match opts.preview {
        PreviewFrame::Last => *run.frames.last().unwrap_or(&0),
        PreviewFrame::Index(i) if run.frames.binary_search(&i).is_ok() => i,
        PreviewFrame::Index(index) => {
            return Err(ExportError::NoSuchFrame {
                path: opts.run.join("frames"),
                index,
            })
        }
    };
    // Validation pass: every frame decodes and matches the manifest. Times are step × dt,
    // exact in decimal (not the solver's accumulated time).
    let dt = run.manifest.dt;
    let times = first_error(
        run.frames
            .par_iter()
            .map(|&i| run.read_frame(i).map(|f| frame_time(f.step, dt)))
            .collect(),
    )?;
    let mut warnings = Vec::new();
    let stats = if opts.plots {
        let (stats, cut) = match run.read_stats_complete()? {
            Some((stats, cut)) => (Some(stats), cut),
            None => (None, None),
        };
        warnings.extend(cut);
        if stats.is_none() {
            warnings.push(format!(
                "{}: not found (the run did not finish?): no plots written, VTK, PLY and \
                 preview show the {} frames present",
                msdem_frames::stats_path(&opts.run).display(),
                run.frames.len()
            ));
        }
        stats
    } else {
        None
    };
    let lts = match &stats {
        Some(_) => run.read_lts_if_present()?,
        None => None,
    };

    let staging = Staging::new(&out)?;
    let stage = staging.path();
    let obstacles = pose_obstacles(&run);
    let vtk_dir = stage.join("vtk");
    let ply_dir = stage.join("ply");
    let first = run.frames[0];
    let obstacles_vtp = format!("obstacles_{first:06}.vtp");
    let csv_dir = stage.join("csv");
    let format = opts.vtk_format;
    let mut files = 0;
    if opts.vtk {
        let path = vtk_dir.join(&obstacles_vtp);
        write_vtp(&path, &obstacles_polydata(&obstacles), format)?;
        for (index, (mesh, shape)) in run
            .shape_meshes
            .iter()
            .zip(&run.manifest.shapes)
            .enumerate()
        {
            let path = vtk_dir.join(format!("shape_{index:03}.vtp"));
            write_vtp(
                &path,
                &shape_polydata(index as u32, mesh, shape.com),
                format,
            )?;
        }
        let script = vtk_dir.join("open_in_paraview.py");
        write_atomic(&script, PARAVIEW_SCRIPT.as_bytes())?;
        files += 2 + run.shape_meshes.len();
    }
    if opts.ply {
        let path = ply_dir.join("obstacles.ply");
        let bytes = ply_bytes(&obstacles, "obstacle_id", "msdem obstacles (static)")
            .map_err(ExportError::io(&path))?;
        write_atomic(&path, &bytes)?;
        files += 1;
    }
    if opts.vtk || opts.ply || opts.particle_csv {
        let per_frame = first_error(
            run.frames
                .par_iter()
                .map(|&i| -> Result<usize, ExportError> {
                    let frame = run.read_frame(i)?;
                    let time = frame_time(frame.step, dt);
                    let needs_pose = (opts.vtk && opts.vtk_meshes) || opts.ply;
                    let posed = needs_pose.then(|| pose_particles(&run, &frame));
                    let states =
                        (opts.vtk || opts.particle_csv).then(|| particle_states(&run, &frame));
                    let mut n = 0;
                    if let (true, Some(states)) = (opts.vtk, &states) {
                        if let (true, Some(posed)) = (opts.vtk_meshes, &posed) {
                            let p = vtk_dir.join(format!("particles_{i:06}.vtp"));
                            write_vtp(&p, &particles_polydata(posed), format)?;
                            n += 1;
                        }
                        let s = vtk_dir.join(format!("particles_state_{i:06}.vtp"));
                        write_vtp(&s, &states_polydata(states), format)?;
                        let c = vtk_dir.join(format!("contacts_{i:06}.vtp"));
                        write_vtp(&c, &contacts_polydata(&frame), format)?;
                        n += 2;
                    }
                    if let (true, Some(states)) = (opts.particle_csv, &states) {
                        let path = csv_dir.join(format!("particles_{i:06}.csv"));
                        write_atomic(&path, states_csv(frame.step, time, states).as_bytes())?;
                        n += 1;
                    }
                    if let (true, Some(posed)) = (opts.ply, &posed) {
                        let path = ply_dir.join(format!("frame_{i:06}.ply"));
                        let comment =
                            format!("msdem frame {i} step {} time {time:?} s", frame.step);
                        let bytes = ply_bytes(&posed.soup, "particle_id", &comment)
                            .map_err(ExportError::io(&path))?;
                        write_atomic(&path, &bytes)?;
                        n += 1;
                    }
                    Ok(n)
                })
                .collect(),
        )?;
        files += per_frame.iter().sum::<usize>();
    }
    if let Some(stats) = &stats {
        let mut charts = run_charts(&run.manifest, stats);
        if let Some(lts) = &lts {
            let bin_steps = run.manifest.output_every.max(1) as usize;
            charts.extend(lts_charts(&stats.steps, lts, bin_steps));
        }
        let images = first_error(
            charts
                .par_iter()
                .map(|chart| {
                    let path = stage.join("plots").join(format!("{}.png", chart.stem));
                    let img =
                        render_chart(chart, PLOT_SIZE).map_err(|detail| ExportError::Draw {
                            path: path.clone(),
                            detail,
                        })?;
                    write_png(&path, &img)?;
                    Ok(img)
                })
                .collect(),
        )?;
        files += images.len();
        write_png(
            &stage.join("plots").join("dashboard.png"),
            &dashboard(&images),
        )?;
        files += 1;
        let csv = stage.join("plots").join("steps.csv");
        let levels = run.manifest.levels as usize;
        write_atomic(
            &csv,
            steps_csv_lts(&stats.steps, levels, lts.as_ref()).as_bytes(),
        )?;
        files += 1;
    }
    {
        let frame = run.read_frame(preview_frame)?;
        let (w, h) = opts.preview_size;
        let interval = run.manifest.dt * f64::from(run.manifest.output_every);
        let label = time_label(frame.time, interval);
        // One particle at a time: a large run's posed frame need not fit in memory.
        let view = View::fit(
            ParticleExtent::of_frame(&run, &frame),
            &obstacles,
            w,
            h,
            true,
        );
        let img = view.render_frame(&run, &frame, Some(&label));
        write_png(&stage.join("preview.png"), &img)?;
        files += 1;
    }
    let mut animation_frames = 0;
    if let Some(anim) = &opts.animation {
        let path = stage.join(ANIMATION_FILE);
        let (bytes, n) = run_animation(&run, &obstacles, anim, &path)?;
        write_atomic(&path, &bytes)?;
        animation_frames = n;
        files += 1;
    }
    if opts.vtk {
        let series = |prefix: &str| -> Vec<PvdEntry> {
            run.frames
                .iter()
                .zip(&times)
                .map(|(&i, &time)| PvdEntry {
                    time,
                    file: format!("{prefix}_{i:06}.vtp"),
                })
                .collect()
        };
        let static_obstacles: Vec<PvdEntry> = times
            .iter()
            .map(|&time| PvdEntry {
                time,
                file: obstacles_vtp.clone(),
            })
            .collect();
        if opts.vtk_meshes {
            write_atomic(
                &vtk_dir.join("particles.pvd"),
                &pvd_bytes(&series("particles")),
            )?;
            files += 1;
        }
        write_atomic(
            &vtk_dir.join("particles_state.pvd"),
            &pvd_bytes(&series("particles_state")),
        )?;
        write_atomic(
            &vtk_dir.join("contacts.pvd"),
            &pvd_bytes(&series("contacts")),
        )?;
        write_atomic(
            &vtk_dir.join("obstacles.pvd"),
            &pvd_bytes(&static_obstacles),
        )?;
        files += 3;
    }
    let outputs = [
        ("vtk", opts.vtk),
        ("csv", opts.particle_csv),
        ("ply", opts.ply),
        ("plots", opts.plots),
        ("preview.png", true),
        (ANIMATION_FILE, opts.animation.is_some()),
    ];
    let names: Vec<&str> = outputs.iter().filter(|o| o.1).map(|o| o.0).collect();
    staging.commit(&names)?;
    Ok(ExportSummary {
        out,
        frames: run.frames.len(),
        preview_frame,
        animation_frames,
        files,
        warnings,
    })
}
