//! `export` — pipeline stage 4: a solver run folder to VTK (.vtp/.pvd), PLY, plots and a
//! preview picture (see `docs/cli.md`).

use msdem_cli::clap_one_line;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use msdem_export::export::{export_run, ExportOptions, PreviewFrame};
use msdem_export::vtp::VtkFormat;

/// Export a solver run folder for ParaView: OUTDIR/vtk/{particles,particles_state,
/// obstacles,contacts}.pvd with one .vtp per frame, the shape meshes and
/// OUTDIR/vtk/open_in_paraview.py, OUTDIR/ply/frame_NNNNNN.ply (+ obstacles.ply),
/// OUTDIR/plots/*.png (with plots/dashboard.png), OUTDIR/preview.png and the animated
/// OUTDIR/preview_animation.png.
#[derive(Parser, Debug)]
#[command(name = "export", version)]
struct Args {
    /// Run folder written by `solver` (holds run.msdem, frames/, stats.msdem).
    rundir: PathBuf,
    /// Output folder [default: RUNDIR].
    #[arg(short = 'o', long = "out", value_name = "OUTDIR")]
    out: Option<PathBuf>,
    /// Do not write the VTK files (vtk/*.vtp, vtk/*.pvd, vtk/open_in_paraview.py).
    #[arg(long)]
    no_vtk: bool,
    /// Encoding of the .vtp files: `compressed` (zlib, appended binary), `raw` (appended
    /// binary), `base64` (inline, uncompressed) or `ascii` (inline decimal, for reading
    /// by eye).
    #[arg(long, value_name = "FORMAT", default_value = "compressed", value_parser = parse_format)]
    vtk_format: VtkFormat,
    /// Do not write the posed particle meshes of every frame (vtk/particles_NNNNNN.vtp,
    /// vtk/particles.pvd); ParaView draws the particles from vtk/particles_state.pvd and
    /// the shape meshes vtk/shape_NNN.vtp (open_in_paraview.py does).
    #[arg(long)]
    no_vtk_meshes: bool,
    /// Also write the particle states of every frame as csv/particles_NNNNNN.csv.
    #[arg(long)]
    particle_csv: bool,
    /// Do not write the PLY files (ply/*.ply).
    #[arg(long)]
    no_ply: bool,
    /// Do not write the statistics plots (plots/*.png).
    #[arg(long)]
    no_plots: bool,
    /// Do not write the animated preview of the whole run (preview_animation.png).
    #[arg(long)]
    no_animation: bool,
    /// Frame shown in preview.png: a frame index (as in frame_NNNNNN) or `last`.
    #[arg(long, value_name = "FRAME|last", default_value = "last", value_parser = parse_preview)]
    preview: PreviewFrame,
}

fn parse_preview(s: &str) -> Result<PreviewFrame, String> {
    if s == "last" {
        return Ok(PreviewFrame::Last);
    }
    s.parse::<u32>()
        .map(PreviewFrame::Index)
        .map_err(|_| format!("expected a frame index or `last`, got {s:?}"))
}

fn parse_format(s: &str) -> Result<VtkFormat, String> {
    VtkFormat::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = VtkFormat::ALL.iter().map(|(n, _)| *n).collect();
        format!("expected one of {}, got {s:?}", names.join(", "))
    })
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            eprintln!("export: error: {} (see export --help)", clap_one_line(&e));
            return ExitCode::from(2);
        }
    };
    let opts = ExportOptions {
        out: args.out,
        vtk: !args.no_vtk,
        vtk_format: args.vtk_format,
        vtk_meshes: !args.no_vtk_meshes,
        particle_csv: args.particle_csv,
        ply: !args.no_ply,
        plots: !args.no_plots,
        preview: args.preview,
        ..ExportOptions::new(args.rundir)
    };
    let opts = ExportOptions {
        animation: opts.animation.filter(|_| !args.no_animation),
        ..opts
    };
    match export_run(&opts) {
        Ok(s) => {
            for w in &s.warnings {
                eprintln!("export: warning: {w}");
            }
            println!(
                "export: {} frames -> {} ({} files, preview of frame {}{})",
                s.frames,
                s.out.display(),
                s.files,
                s.preview_frame,
                match s.animation_frames {
                    0 => String::new(),
                    n => format!(", animation of {n} frames"),
                }
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("export: error: {e}");
            ExitCode::FAILURE
        }
    }
}
