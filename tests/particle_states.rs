//! Issue 17: the particle states a DEM user works with, end to end. The real binaries run
//! `tests/pipelines/state.yaml` (a spinning brick landing on a plane, a spinning ellipsoid
//! in flight); VTK's own reader (Python, `tests/python/dump_vtk.py`) reads
//! `vtk/particles_state.pvd` back, and every array is checked against values computed
//! here independently: masses and inertia tensors from the textbook formulas for a box
//! and an ellipsoid, the kinetic energy `½m|v|² + ½ωᵀRIRᵀω` with R written out from the
//! quaternion, summed over the particles against the solver's own statistics; positions,
//! velocities, orientations and contact loads against the frames; times against `0.01·k`.
//! The `--particle-csv` files hold the same values.

use std::f64::consts::PI;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use msdem_e2e::{binary, pipeline_binary, python_with_vtk, run_in, test_pipelines_dir, texts};
use msdem_frames::{
    frame_path, manifest_path, read_record, stats_path, Frame, RunManifest, StatsFile, FRAME_MAGIC,
    MANIFEST_MAGIC,
};
use serde::Deserialize;

#[derive(Deserialize)]
struct Dump {
    datasets: Vec<Dataset>,
}

#[derive(Deserialize)]
struct Dataset {
    time: f64,
    file: String,
    verts: usize,
    points: Vec<Vec<f64>>,
    point_data: std::collections::BTreeMap<String, Array>,
}

#[derive(Deserialize)]
struct Array {
    #[serde(rename = "type")]
    kind: String,
    components: usize,
    values: Vec<Vec<f64>>,
}

/// Semi-axes of the ellipsoid and edges of the brick [m], densities [kg/m³].
const EGG: [f64; 3] = [0.05, 0.04, 0.03];
const BRICK: [f64; 3] = [0.1, 0.2, 0.3];
const ROCK: f64 = 2000.0;
const WOOD: f64 = 700.0;

/// Mass [kg] and principal moments of inertia [kg·m²] (body axes) of particle `id`.
fn mass_properties(id: usize) -> (f64, [f64; 3]) {
    let sq = |v: [f64; 3]| v.map(|x| x * x);
    if id == 0 {
        let m = ROCK * BRICK[0] * BRICK[1] * BRICK[2];
        let [a, b, c] = sq(BRICK);
        (
            m,
            [m / 12.0 * (b + c), m / 12.0 * (a + c), m / 12.0 * (a + b)],
        )
    } else {
        let m = WOOD * 4.0 / 3.0 * PI * EGG[0] * EGG[1] * EGG[2];
        let [a, b, c] = sq(EGG);
        (m, [m / 5.0 * (b + c), m / 5.0 * (a + c), m / 5.0 * (a + b)])
    }
}

/// The rotation matrix of a unit quaternion `[w, x, y, z]`, written out.
fn matrix(q: [f64; 4]) -> [[f64; 3]; 3] {
    let n = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    let [w, x, y, z] = q.map(|v| v / n);
    [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - w * z),
            2.0 * (x * z + w * y),
        ],
        [
            2.0 * (x * y + w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - w * x),
        ],
        [
            2.0 * (x * z - w * y),
            2.0 * (y * z + w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ]
}

/// `½m|v|² + ½ωᵀRIRᵀω` with the principal moments `i` in body axes.
fn kinetic_energy(m: f64, i: [f64; 3], q: [f64; 4], v: [f64; 3], w: [f64; 3]) -> f64 {
    let r = matrix(q);
    let body: [f64; 3] = std::array::from_fn(|c| (0..3).map(|k| r[k][c] * w[k]).sum());
    let rot: f64 = (0..3).map(|k| i[k] * body[k] * body[k]).sum();
    0.5 * m * v.iter().map(|x| x * x).sum::<f64>() + 0.5 * rot
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-300)
}

fn run_pipeline(dir: &Path) -> PathBuf {
    fs::copy(
        test_pipelines_dir().join("state.yaml"),
        dir.join("state.yaml"),
    )
    .unwrap();
    let o = run_in(&pipeline_binary(), ["state.yaml"], dir);
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "pipeline failed\n{stdout}\n{stderr}");
    dir.join("out/state/run")
}

fn dump(pvd: &Path) -> Dump {
    let script = msdem_e2e::workspace_root().join("tests/python/dump_vtk.py");
    let o = Command::new(python_with_vtk())
        .arg(script)
        .arg(pvd)
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "dump_vtk.py failed: {stderr}");
    serde_norway::from_str(&stdout).unwrap_or_else(|e| panic!("dump_vtk.py output: {e}"))
}

fn one(a: &Array) -> Vec<f64> {
    a.values.iter().map(|v| v[0]).collect()
}

#[test]
fn particle_states_match_textbook_mass_properties_and_the_frames() {
    let tmp = tempfile::tempdir().unwrap();
    let run = run_pipeline(tmp.path());
    let manifest: RunManifest = read_record(&manifest_path(&run), &MANIFEST_MAGIC).unwrap();
    let stats: StatsFile = StatsFile::read(&stats_path(&run)).unwrap();
    let states = dump(&run.join("vtk/particles_state.pvd"));
    assert_eq!(states.datasets.len(), 5);

    let mut touched = false;
    for (k, d) in states.datasets.iter().enumerate() {
        let frame: Frame = read_record(&frame_path(&run, k as u32), &FRAME_MAGIC).unwrap();
        // Times: step × dt, exactly 0.01·k.
        assert_eq!(frame.step, 100 * k as u64);
        assert_eq!(d.time, k as f64 / 100.0, "frame {k}");
        assert_eq!(d.file, format!("particles_state_{k:06}.vtp"));
        assert_eq!(d.verts, 2, "one vertex cell per particle");
        for a in d.point_data.values() {
            assert!(a.kind == "Float64" || a.kind == "int", "{}", a.kind);
        }
        let arr = |name: &str, comps: usize| -> &Array {
            let a = &d.point_data[name];
            assert_eq!(a.components, comps, "{name}");
            assert_eq!(a.values.len(), 2, "{name}");
            a
        };
        assert_eq!(one(arr("id", 1)), [0.0, 1.0]);
        // Shapes and materials by name in alphabetical order: brick, egg; rock, wood.
        assert_eq!(one(arr("shape", 1)), [0.0, 1.0]);
        assert_eq!(one(arr("material", 1)), [0.0, 1.0]);
        let half_diagonal = BRICK.iter().map(|e| e * e / 4.0).sum::<f64>().sqrt();
        let radii = one(arr("bounding_radius", 1));
        assert!(close(radii[0], half_diagonal, 1e-12), "{radii:?}");
        assert_eq!(radii[1], 0.05);

        let mut energy = 0.0;
        for id in 0..2 {
            let (m, i) = mass_properties(id);
            let mass = one(arr("mass", 1))[id];
            assert!(
                close(mass, m, 1e-12),
                "particle {id}: {mass} kg, expected {m}"
            );
            assert_eq!(manifest.particles[id].mass, mass);
            let b = &frame.bodies[id];
            let load = &frame.loads[id];
            assert_eq!(d.points[id], b.position);
            assert_eq!(arr("velocity", 3).values[id], b.velocity);
            assert_eq!(arr("angular_velocity", 3).values[id], b.angular_velocity);
            assert_eq!(arr("orientation", 4).values[id], b.orientation);
            assert_eq!(arr("force", 3).values[id], load.force);
            assert_eq!(arr("torque", 3).values[id], load.torque);
            assert_eq!(one(arr("contact_count", 1))[id], f64::from(load.contacts));
            let ke = kinetic_energy(m, i, b.orientation, b.velocity, b.angular_velocity);
            let got = one(arr("kinetic_energy", 1))[id];
            assert!(
                close(got, ke, 1e-9),
                "frame {k} particle {id}: {got} J vs {ke} J"
            );
            assert!(ke > 0.0);
            energy += got;
            if load.contacts > 0 {
                touched = true;
                assert!(load.force[2] > 0.0, "the floor pushes up: {load:?}");
            }
        }
        assert_eq!(frame.loads[1].contacts, 0, "the ellipsoid flies");
        if k > 0 {
            // The solver's own total at the end of the frame's step.
            let total = stats.steps[frame.step as usize - 1].kinetic_energy;
            assert!(
                close(energy, total, 1e-12),
                "frame {k}: {energy} J vs {total} J"
            );
        }
    }
    assert!(touched, "the brick never touched the floor");

    // The same states as CSV.
    let csv_out = tmp.path().join("csv_export");
    let o = Command::new(binary("export"))
        .arg(&run)
        .args(["--no-vtk", "--no-ply", "--no-plots", "--particle-csv", "-o"])
        .arg(&csv_out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", texts(&o).1);
    for (k, d) in states.datasets.iter().enumerate() {
        let text = fs::read_to_string(csv_out.join(format!("csv/particles_{k:06}.csv"))).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
        for (id, line) in lines.enumerate() {
            let row: Vec<f64> = line.split(',').map(|v| v.parse().unwrap()).collect();
            assert_eq!(row[col("time_s")], d.time);
            assert_eq!(row[col("mass_kg")], one(&d.point_data["mass"])[id]);
            assert_eq!(
                [row[col("x_m")], row[col("y_m")], row[col("z_m")]].to_vec(),
                d.points[id]
            );
            let q = ["qw", "qx", "qy", "qz"].map(|c| row[col(c)]);
            assert_eq!(q.to_vec(), d.point_data["orientation"].values[id]);
            assert_eq!(
                row[col("fz_n")],
                d.point_data["force"].values[id][2],
                "frame {k}"
            );
            assert_eq!(
                row[col("kinetic_energy_j")],
                one(&d.point_data["kinetic_energy"])[id]
            );
        }
    }
}
