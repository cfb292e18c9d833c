//! Exporter (pipeline stage 4, docs/design.md §2): reads a solver run folder and writes
//! * VTK XML PolyData per frame (`vtk/{particles,obstacles,contacts}_NNNNNN.vtp`) with
//!   ParaView collections (`vtk/*.pvd`) carrying the simulated time of every frame;
//! * binary PLY per frame (`ply/frame_NNNNNN.ply`) plus the static `ply/obstacles.ply`;
//! * statistics plots (`plots/*.png`), including the triangle checks per tree level over
//!   time of seed 000 §6 (Fig. 4), and the per-step statistics as `plots/steps.csv`;
//! * a software-rendered preview of one frame (`preview.png`).
//!
//! Every file is written atomically; the `.pvd` files are written last.
#![warn(missing_docs)]

pub mod atomic;
mod base64;
pub mod error;
pub mod export;
pub mod fonts;
pub mod implicit_charts;
pub mod mesh_io;
pub mod plots;
pub mod ply;
pub mod png_out;
pub mod preview;
pub mod pvd;
pub mod raster;
pub mod run_reader;
pub mod scene;
pub mod steps_csv;
pub mod vtk_series;
pub mod vtp;

pub use error::ExportError;
pub use run_reader::RunFolder;
