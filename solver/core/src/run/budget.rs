//! Limits up front (issue 16): before the solver allocates or writes anything, the run
//! length, the memory and the output size a scenario needs are estimated from the scenario
//! alone and compared with its `limits:` caps and with what the machine has
//! (`MemAvailable` of `/proc/meminfo`, the free space of the output folder's file system).
//! A scenario over a limit is refused with one line naming the estimate and the limit in
//! short scientific form ("needs 2.4e10 bytes of memory …, 1.6e10 available").
//!
//! The estimates count in `f64` (no overflow, whatever the counts) and are lower bounds of
//! the real need, so a refusal is never a false alarm of the estimate:
//! * memory: [`MEMORY_BYTES_PER_PARTICLE`] per particle plus [`SHAPE_MEMORY_FACTOR`] ×
//!   the bytes of every shape's and obstacle's mesh and tree files;
//! * disk: `(steps/output_every + 1)` frames of [`FRAME_BYTES_PER_PARTICLE`] per particle
//!   (state and load, contacts not counted) plus [`STATS_BYTES_PER_STEP`] of statistics
//!   and, with wall times, [`TIMINGS_BYTES_PER_STEP`] per step.

use std::path::Path;

use crate::error::SolverError;
use crate::scenario::{GeneratorSpec, Scenario, ShapeSource};

/// Memory per particle \[bytes\]: the body (≈ 300 B), its copies in the integrator and the
/// broad phase, and the frame being encoded. Measured: set-up of 10⁶ lattice particles
/// peaks at about 550 B per particle (`setup_scale` example), a one-step `solver` run of
/// the same lattice at 1,170 B per particle (peak RSS 1.14 GiB), so this stays below.
pub const MEMORY_BYTES_PER_PARTICLE: f64 = 1024.0;
/// Memory per byte of a shape's mesh and tree files (decoded meshes, trees and the
/// check meshes of set-up are larger than the files).
pub const SHAPE_MEMORY_FACTOR: f64 = 2.0;
/// Frame bytes per particle: position, orientation, velocities (13 × 8) and load (6 × 8 +
/// a count).
pub const FRAME_BYTES_PER_PARTICLE: f64 = 153.0;
/// Frame bytes besides the particles: header, step, time, lengths.
pub const FRAME_BYTES_FIXED: f64 = 80.0;
/// Statistics bytes per step (`stats.msdem`: times, energies, momenta, counters).
pub const STATS_BYTES_PER_STEP: f64 = 100.0;
/// Wall-time bytes per step (`timings.msdem`: four phase times).
pub const TIMINGS_BYTES_PER_STEP: f64 = 32.0;

/// What a scenario needs, estimated before anything runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Needs {
    /// Listed plus generated particles.
    pub particles: f64,
    /// `end/dt` \[steps\] (not rounded; may be infinite).
    pub steps: f64,
    /// Output frames, frame 0 included.
    pub frames: f64,
    /// Bytes of one frame.
    pub frame_bytes: f64,
    /// Memory \[bytes\].
    pub memory_bytes: f64,
    /// Output size \[bytes\].
    pub disk_bytes: f64,
}

/// What the machine has (`None`: unknown, only the scenario's caps apply).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Machine {
    /// `MemAvailable` \[bytes\].
    pub memory_bytes: Option<u64>,
    /// Free space of the output folder's file system for an unprivileged user \[bytes\].
    pub disk_bytes: Option<u64>,
}

fn file_bytes(path: &Path) -> f64 {
    std::fs::metadata(path).map_or(0.0, |m| m.len() as f64)
}

/// The needs of `scenario` (see the module documentation); `wall_times`: whether
/// `timings.msdem` is written.
pub fn estimate(scenario: &Scenario, wall_times: bool) -> Needs {
    let particles = scenario.particles.len() as f64
        + scenario
            .generators
            .iter()
            .map(|g| GeneratorSpec::total(g) as f64)
            .sum::<f64>();
    let shape_files: f64 = scenario
        .shapes
        .values()
        .filter_map(|s| match s {
            ShapeSource::Mesh(files) => Some(
                file_bytes(&scenario.resolve(&files.mesh))
                    + file_bytes(&scenario.resolve(&files.tree)),
            ),
            ShapeSource::Ellipsoid { .. } => None,
        })
        .sum::<f64>()
        + scenario
            .obstacles
            .iter()
            .map(|o| {
                file_bytes(&scenario.resolve(&o.geometry.mesh))
                    + file_bytes(&scenario.resolve(&o.geometry.tree))
            })
            .sum::<f64>();
    // The run's steps: intervals of a local time stepping run (`lts.interval_s`).
    let (dt, output_every) = crate::scenario::lts::run_step(
        scenario.integrator,
        &scenario.lts,
        scenario.time.dt,
        scenario.time.output_every,
    );
    let steps = scenario.time.end / dt;
    let frames = (steps / f64::from(output_every)).floor() + 1.0;
    let frame_bytes = FRAME_BYTES_FIXED + particles * FRAME_BYTES_PER_PARTICLE;
    let per_step = STATS_BYTES_PER_STEP
        + if wall_times {
            TIMINGS_BYTES_PER_STEP
        } else {
            0.0
        };
    Needs {
        particles,
        steps,
        frames,
        frame_bytes,
        memory_bytes: particles * MEMORY_BYTES_PER_PARTICLE + SHAPE_MEMORY_FACTOR * shape_files,
        disk_bytes: frames * frame_bytes + steps * per_step,
    }
}

/// `MemAvailable` of `/proc/meminfo` \[bytes\] (`None` where there is none).
pub fn memory_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Free space for an unprivileged user of the file system that holds `path`, or its
/// nearest existing ancestor (the output folder may not exist yet) \[bytes\].
#[cfg(unix)]
pub fn disk_free(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let absolute = std::path::absolute(path).ok()?;
    let existing = absolute.ancestors().find(|p| p.exists())?;
    let c = std::ffi::CString::new(existing.as_os_str().as_bytes()).ok()?;
    let mut s = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c` is a NUL-terminated path and `s` a buffer of the right type, which
    // statvfs fills when it returns 0.
    let rc = unsafe { libc::statvfs(c.as_ptr(), s.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: statvfs returned 0, so it initialised `s`.
    let s = unsafe { s.assume_init() };
    // The field types differ between platforms (u32 on some), hence the casts.
    #[allow(clippy::unnecessary_cast)]
    let (blocks, size) = (s.f_bavail as u64, s.f_frsize as u64);
    blocks.checked_mul(size)
}

/// Free space of the output folder's file system: unknown off Unix.
#[cfg(not(unix))]
pub fn disk_free(_path: &Path) -> Option<u64> {
    None
}

/// What this machine has for a run into `out`.
pub fn machine(out: &Path) -> Machine {
    Machine {
        memory_bytes: memory_available(),
        disk_bytes: disk_free(out),
    }
}

/// `x` in short scientific form: `2.4e10`.
fn short(x: f64) -> String {
    crate::scenario::limits::short(x)
}

/// Refuses `scenario` when `needs` pass a limit: the step cap (`max_steps`, the
/// command line's `--max-steps` or else `limits.max_steps`), then memory, then disk, each
/// against the scenario's cap and what `machine` has. `out` names the output folder.
pub fn check(
    scenario: &Scenario,
    needs: &Needs,
    machine: &Machine,
    max_steps: u64,
    out: &Path,
) -> Result<(), SolverError> {
    let refuse = |context: &str, message: String| {
        Err(SolverError::Setup {
            file: scenario.file.clone(),
            context: context.to_owned(),
            message,
        })
    };
    if needs.steps.is_nan() || needs.steps > max_steps as f64 {
        let steps = match needs.steps.is_finite() {
            true => format!("= {} steps", short(needs.steps.ceil())),
            false => "overflows (over 1.8e308 steps)".to_owned(),
        };
        return refuse(
            "time",
            format!(
                "end / dt {steps}, more than the cap of {} (raise `limits: {{ max_steps: N }}` \
                 or pass --max-steps N)",
                short(max_steps as f64)
            ),
        );
    }
    let particles = short(needs.particles);
    let memory = format!(
        "needs {} bytes of memory for {particles} particles",
        short(needs.memory_bytes)
    );
    let over = |needed: f64, cap: Option<u64>, what: &dyn Fn(String) -> String| match cap {
        Some(cap) if needed > cap as f64 => refuse("limits", what(short(cap as f64))),
        _ => Ok(()),
    };
    over(needs.memory_bytes, scenario.limits.memory_bytes, &|cap| {
        format!("{memory}, more than limits.memory_bytes = {cap}")
    })?;
    over(needs.memory_bytes, machine.memory_bytes, &|cap| {
        format!("{memory}, {cap} available")
    })?;
    let disk = format!(
        "needs {} bytes of disk for {} frames of {} bytes and {} steps of statistics",
        short(needs.disk_bytes),
        short(needs.frames),
        short(needs.frame_bytes),
        short(needs.steps.ceil())
    );
    over(needs.disk_bytes, scenario.limits.disk_bytes, &|cap| {
        format!("{disk}, more than limits.disk_bytes = {cap}")
    })?;
    over(needs.disk_bytes, machine.disk_bytes, &|cap| {
        format!("{disk}, {cap} free in {}", out.display())
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1,000 analytic ellipsoids (no files), 200 steps, a frame every 10.
    fn scenario(dir: &Path, limits: &str) -> Scenario {
        let text = format!(
            "version: 1\nname: budget\ntime: {{ dt: 1.0e-4, end: 0.02, output_every: 10 }}\n\
             {limits}materials:\n  rock: {{ density: 2500.0 }}\n\
             shapes:\n  pebble: {{ ellipsoid: {{ radii: [0.01, 0.01, 0.01] }} }}\n\
             generators:\n  - lattice: {{ shape: pebble, material: rock, origin: [0, 0, 1], \
             spacing: [0.1, 0.1, 0.1], count: [10, 10, 10] }}\n"
        );
        let path = dir.join("s.yaml");
        std::fs::write(&path, text).unwrap();
        crate::scenario::load_scenario(&path).unwrap()
    }

    fn refusal(s: &Scenario, machine: &Machine, max_steps: u64) -> String {
        let needs = estimate(s, true);
        let e = check(s, &needs, machine, max_steps, Path::new("OUT")).unwrap_err();
        e.to_string()
            .replace(&s.file.display().to_string(), "{file}")
    }

    #[test]
    fn estimates_follow_the_counts() {
        let dir = tempfile::tempdir().unwrap();
        let s = scenario(dir.path(), "");
        let n = estimate(&s, true);
        assert_eq!(n.particles, 1000.0);
        assert!((n.steps - 200.0).abs() < 1e-9);
        assert_eq!(n.frames, 21.0);
        assert_eq!(
            n.frame_bytes,
            FRAME_BYTES_FIXED + 1000.0 * FRAME_BYTES_PER_PARTICLE
        );
        assert_eq!(n.memory_bytes, 1000.0 * MEMORY_BYTES_PER_PARTICLE);
        let per_step = STATS_BYTES_PER_STEP + TIMINGS_BYTES_PER_STEP;
        assert!((n.disk_bytes - (21.0 * n.frame_bytes + n.steps * per_step)).abs() < 1e-6);
        let without = estimate(&s, false);
        assert!(without.disk_bytes < n.disk_bytes);
        // Within every limit: accepted.
        assert!(check(&s, &n, &Machine::default(), 200, Path::new("OUT")).is_ok());
    }

    #[test]
    fn each_limit_is_refused_with_the_estimate_and_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let s = scenario(dir.path(), "");
        assert_eq!(
            refusal(&s, &Machine::default(), 199),
            "{file}: time: end / dt = 2.0e2 steps, more than the cap of 2.0e2 (raise \
             `limits: { max_steps: N }` or pass --max-steps N)"
        );
        let low_memory = Machine {
            memory_bytes: Some(500_000),
            disk_bytes: None,
        };
        assert_eq!(
            refusal(&s, &low_memory, 1000),
            "{file}: limits: needs 1.0e6 bytes of memory for 1.0e3 particles, 5.0e5 available"
        );
        let low_disk = Machine {
            memory_bytes: Some(1 << 40),
            disk_bytes: Some(1000),
        };
        assert_eq!(
            refusal(&s, &low_disk, 1000),
            "{file}: limits: needs 3.2e6 bytes of disk for 2.1e1 frames of 1.5e5 bytes and \
             2.0e2 steps of statistics, 1.0e3 free in OUT"
        );
        let capped = scenario(dir.path(), "limits: { disk_bytes: 1.0e6 }\n");
        assert_eq!(
            refusal(&capped, &Machine::default(), 1000),
            "{file}: limits: needs 3.2e6 bytes of disk for 2.1e1 frames of 1.5e5 bytes and \
             2.0e2 steps of statistics, more than limits.disk_bytes = 1.0e6"
        );
    }

    /// A local time stepping run steps by its interval (`lts.interval_s`): 20 intervals of
    /// 1 ms where `time.dt` would give 200 steps, the same 21 frames.
    #[test]
    fn local_time_stepping_runs_count_their_intervals() {
        let dir = tempfile::tempdir().unwrap();
        let s = scenario(
            dir.path(),
            "integrator: local_time_stepping\nlts: { interval_s: 1.0e-3 }\n",
        );
        let n = estimate(&s, true);
        assert!((n.steps - 20.0).abs() < 1e-9, "{}", n.steps);
        assert_eq!(n.frames, 21.0);
        assert!(check(&s, &n, &Machine::default(), 20, Path::new("OUT")).is_ok());
        assert_eq!(
            refusal(&s, &Machine::default(), 19),
            "{file}: time: end / dt = 2.0e1 steps, more than the cap of 1.9e1 (raise \
             `limits: { max_steps: N }` or pass --max-steps N)"
        );
    }

    #[test]
    fn this_machine_reports_memory_and_free_space() {
        let dir = tempfile::tempdir().unwrap();
        // The output folder need not exist: its nearest existing ancestor counts.
        let m = machine(&dir.path().join("not/yet"));
        if cfg!(target_os = "linux") {
            assert!(m.memory_bytes.is_some_and(|b| b > 0), "{m:?}");
            assert!(m.disk_bytes.is_some(), "{m:?}");
        }
    }
}
