//! `meshgen` — pipeline stage 1: generate, convert and check meshes (docs/cli.md).
//!
//! Thin binary: parses arguments, calls one `msdem_mesh` function, reports one line.

use anyhow::Result;
mod args;

use args::{Cli, Command};
use clap::Parser;
use msdem_mesh::check::{check_mesh, Role};
use msdem_mesh::info::mesh_info;
use msdem_mesh::{hash, read_mesh_source, write_validated, ConvertOptions, MeshError, TriMesh};
use std::path::Path;

/// Writes a generated mesh after checking it for its role and prints a summary line.
fn emit(mesh: Result<TriMesh, MeshError>, role: Role, output: &Path) -> Result<()> {
    let mesh = mesh?;
    write_validated(output, &mesh, role)?;
    let digest = hash::hex(&msdem_mesh::file_hash(output)?);
    println!(
        "wrote {}: {} vertices, {} triangles, sha256 {}",
        output.display(),
        mesh.vertices.len(),
        mesh.triangles.len(),
        &digest[..16]
    );
    Ok(())
}

fn run(cli: Cli) -> Result<()> {
    use Command::*;
    match cli.command {
        Generate(generator) => {
            let (generator, output) = generator.into_parts();
            emit(generator.generate(), generator.role(), &output)
        }
        Convert {
            input,
            output,
            transform,
            fill_holes,
            particle,
            obstacle,
        } => {
            let role = match (particle, obstacle) {
                (true, _) => Some(Role::Particle),
                (_, true) => Some(Role::Obstacle),
                _ => None,
            };
            let options = ConvertOptions {
                transform: transform.transform(),
                role,
                fill_holes,
            };
            let report = msdem_mesh::convert_with(&input, &output, &options)?;
            let mut flags = options.transform.meshgen_args();
            if let Some(f) = &report.filled {
                flags.insert(
                    0,
                    format!(
                        "--fill-holes: {} holes of {} boundary edges closed with {} triangles",
                        f.holes, f.boundary_edges, f.added_triangles
                    ),
                );
            }
            let applied = if flags.is_empty() {
                String::new()
            } else {
                format!(" ({})", flags.join(" "))
            };
            println!(
                "wrote {}: {} vertices, {} triangles{applied}",
                output.display(),
                report.vertex_count,
                report.triangle_count
            );
            Ok(())
        }
        Info {
            input,
            transform,
            density_kg_m3,
        } => {
            let (mesh, map, digest) = read_mesh_source(&input)?;
            let transform = transform.transform();
            let mesh = transform.apply(&mesh, &input, &map)?;
            let flags = transform.meshgen_args();
            println!("{}: sha256 {}", input.display(), &hash::hex(&digest)[..16]);
            if !flags.is_empty() {
                println!("transformed: {}", flags.join(" "));
            }
            println!("{}", mesh_info(&mesh, &map).render(density_kg_m3));
            Ok(())
        }
        Check { input, particle } => {
            let role = if particle {
                Role::Particle
            } else {
                Role::Obstacle
            };
            let (mesh, map, digest) = read_mesh_source(&input)?;
            let report = check_mesh(&mesh, role);
            println!("{}: sha256 {}", input.display(), hash::hex(&digest));
            println!("{}", report.display_in(&map));
            match report.problems_in(&map).into_iter().next() {
                Some(problem) => Err(MeshError::Invalid {
                    path: input,
                    problem,
                }
                .into()),
                None => Ok(()),
            }
        }
    }
}

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            // One line: clap's message (up to the blank line before its usage block).
            let text = e.to_string();
            let message: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let message = message.join(" ");
            let message = message.trim_start_matches("error: ");
            eprintln!("meshgen: {message} (see meshgen --help)");
            std::process::exit(2);
        }
    };
    if let Err(e) = run(cli) {
        eprintln!("meshgen: {e}");
        std::process::exit(1);
    }
}
