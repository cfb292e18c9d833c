//! Exporter (pipeline stage 4, docs/design.md §2): reads a solver run folder and writes
//! * VTK XML PolyData per frame (`vtk/{particles,particles_state,obstacles,contacts}_NNNNNN.vtp`,
//!   zlib-compressed by default, [`vtp`]) with ParaView collections (`vtk/*.pvd`) carrying
//!   the simulated time of every frame, the shape meshes (`vtk/shape_NNN.vtp`) and the
//!   ParaView script `vtk/open_in_paraview.py` (arrays and units: docs/cli.md);
//! * on request, the particle states per frame as CSV (`csv/particles_NNNNNN.csv`);
//! * binary PLY per frame (`ply/frame_NNNNNN.ply`) plus the static `ply/obstacles.ply`;
//! * statistics plots (`plots/*.png`, binned with min–max bands, all of them together in
//!   `plots/dashboard.png`), including the triangle checks per tree level over time of
//!   seed 000 §6 (Fig. 4), and the per-step statistics as `plots/steps.csv` — for local
//!   time stepping runs (`lts.msdem`) with the clusters, histograms, rollbacks and phase
//!   times of seed 004 §8 ([`lts_charts`], [`lts_run`]);
//! * a software-rendered preview of one frame (`preview.png`) and an animated one of the
//!   whole run (`preview_animation.png`, [`animation`]).
//!
//! Every output is written into a staging folder inside the output folder and swapped in
//! only when all of them were written ([`staging`]): a failed export changes nothing. A
//! frame edited or damaged after the solver wrote it fails its checksum and is refused by
//! name; a run without `stats.msdem` (killed) is exported without plots and with a warning.
#![warn(missing_docs)]

pub mod animation;
pub mod atomic;
mod base64;
pub mod bins;
pub mod canvas;
pub mod error;
pub mod export;
pub mod fonts;
pub mod implicit_charts;
pub mod lts_charts;
pub mod lts_run;
pub mod mesh_io;
pub mod particle_state;
pub mod plots;
pub mod ply;
pub mod png_out;
pub mod preview;
pub mod pvd;
pub mod raster;
pub mod reference;
pub mod run_reader;
pub mod scene;
pub mod staging;
pub mod steps_csv;
pub mod vtk_series;
pub mod vtp;

pub use error::ExportError;
pub use run_reader::RunFolder;
