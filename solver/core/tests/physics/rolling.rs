//! Rolling down a slope (issue 14): a 1,280- or 5,120-triangle icosphere on a 20° plane
//! with μ = 0.5 rolls without slip at `a = g·sinθ/(1 + I/(m·L²))` and stays on the
//! surface; without friction it slides at exactly `g·sinθ` (`docs/validation.md`).
//!
//! The lever `L` is the one the model has: friction acts at the contact point, which lies
//! at mid-halo (half the mesh distance `d` above the plane), so `L = h − d/2` for the
//! centre's height `h` above the plane; with `h = r_c + d` (`r_c` the distance from the
//! centre to the mesh's lowest point) `L = r_c + d/2`. Both are measured along the run
//! and averaged. For `L = r` and a solid sphere, `a = 5/7·g·sinθ`.

use crate::common::world::*;
use msdem_geom::math::{Iso3, Vec3};
use msdem_mesh::generate::{icosphere, plane};
use msdem_solver::model::smooth::Surface;
use msdem_solver::model::{ContactLaw, ContactPoints, Elastic};

const R: f64 = 0.1;
const G: f64 = 9.81;
const SLOPE_DEG: f64 = 20.0;

/// Result of one run down the slope.
pub(crate) struct Run {
    /// Fitted acceleration (least squares over t ≥ 0.1 s) along the slope \[m/s²\].
    pub(crate) accel: f64,
    /// Truth for the measured lever (no slip), or `g·sinθ` without friction \[m/s²\].
    pub(crate) truth: f64,
    /// Longest run of consecutive steps without contact after the first touch.
    pub(crate) longest_flight: u32,
    /// Episodes of lost contact.
    pub(crate) flights: u32,
    /// Speed along the slope when the first flight began \[m/s\] (`None`: none).
    pub(crate) first_flight_speed: Option<f64>,
    /// Slip speed at the end `|v − ω×L|` relative to `v` [-].
    pub(crate) final_slip: f64,
}

/// Rolls an icosphere of `subdivisions` down the slope from rest until it reaches
/// `v_end` [m/s] along the slope.
fn roll(
    subdivisions: u32,
    mu: f64,
    points: ContactPoints,
    hertz: Option<f64>,
    ks: f64,
    dt: f64,
    v_end: f64,
) -> Run {
    roll_on(
        Surface::Facets,
        subdivisions,
        mu,
        points,
        hertz,
        ks,
        dt,
        v_end,
    )
}

/// [`roll`] with the sphere's material meeting the slope with `surface`; with
/// [`Surface::Smooth`] the sphere's surface is its Phong surface, which lies within 3 µm of
/// the sphere for 1,280 triangles (`smooth.rs`), so the lever's lowest point is the
/// sphere's, `r` below the centre.
#[allow(clippy::too_many_arguments)]
pub(crate) fn roll_on(
    surface: Surface,
    subdivisions: u32,
    mu: f64,
    points: ContactPoints,
    hertz: Option<f64>,
    ks: f64,
    dt: f64,
    v_end: f64,
) -> Run {
    let theta = SLOPE_DEG.to_radians();
    let mesh = icosphere(R, subdivisions).expect("icosphere");
    let mut w = empty_world(dt, [0.0, 0.0, -G]);
    w.model.contact_points = points;
    let s = add_shape(&mut w, &mesh);
    let m = add_material(&mut w, 1000.0, 0.01, ks, mu, 0.5);
    w.model.materials[m as usize].surface = surface;
    if let Some(e) = hertz {
        w.model.materials[m as usize].law = ContactLaw::HertzMindlin {
            elastic: Elastic {
                youngs_modulus: e,
                poisson_ratio: 0.3,
            },
            rolling_friction: 0.0,
        };
    }
    let pose = Iso3::rotation(Vec3::new(0.0, theta, 0.0));
    let ground = plane([4.0, 1.0], 8, [0.0; 3]).expect("plane");
    add_obstacle(&mut w, &ground, pose, 0.002, mu, 0.5);
    let normal = pose * Vec3::z();
    let down = pose * Vec3::x();
    assert!(down.z < 0.0);
    let p = add_particle(&mut w, s, m, [0.0; 3]) as usize;
    let margin = w.state.bodies[p].epsilon + 0.002;
    // Start 1.5 m up the slope at rest, its lowest vertex at the static sinkage `s`
    // (`m·g·cosθ = k·s` for the seed's spring, `= K_h·s^{3/2}` for Hertz).
    let (mass, inertia) = (w.state.bodies[p].mass, w.state.bodies[p].inertia[(1, 1)]);
    let load = mass * G * theta.cos();
    let sink = match hertz {
        Some(e) => (load / (4.0 / 3.0 * e / (1.0 - 0.09) * R.sqrt())).powf(2.0 / 3.0),
        None => load * margin / (ks * mass.sqrt()),
    };
    w.state.bodies[p].position = -1.5 * down + R * normal;
    let low = {
        let b = &w.state.bodies[p];
        let iso = b.mesh_to_world(&w.model.shapes[b.shape as usize].com);
        mesh.vertices
            .iter()
            .map(|v| {
                (iso * nalgebra::Point3::from(Vec3::from(*v)))
                    .coords
                    .dot(&normal)
            })
            .fold(f64::INFINITY, f64::min)
    };
    let low = match surface {
        Surface::Facets => low,
        Surface::Smooth => w.state.bodies[p].position.dot(&normal) - R,
    };
    w.state.bodies[p].position += (margin - sink - low) * normal;
    let (mut ex, mut det) = explicit(&w);
    let (mut ts, mut vs, mut levers) = (Vec::new(), Vec::new(), Vec::new());
    let (mut touched, mut flight, mut longest, mut flights) = (false, 0u32, 0u32, 0u32);
    let mut first_flight_speed = None;
    let mut step = 0u64;
    loop {
        step += 1;
        let out = ex
            .advance(&w.model, &mut w.state, &mut det, false)
            .expect("step");
        let b = &w.state.bodies[p];
        let v = b.velocity.dot(&down);
        let t = step as f64 * dt;
        if out.stats.contacts > 0 {
            touched = true;
            if flight > 0 {
                flights += 1;
                longest = longest.max(flight);
            }
            flight = 0;
        } else if touched {
            flight += 1;
            first_flight_speed.get_or_insert(v);
        }
        if t >= 0.1 {
            ts.push(t);
            vs.push(v);
            // Lever: centre height minus half the mesh distance (lowest vertex height).
            let iso = b.mesh_to_world(&w.model.shapes[b.shape as usize].com);
            let h = b.position.dot(&normal);
            let low = mesh
                .vertices
                .iter()
                .map(|v| {
                    (iso * nalgebra::Point3::from(Vec3::from(*v)))
                        .coords
                        .dot(&normal)
                })
                .fold(f64::INFINITY, f64::min);
            let low = match surface {
                Surface::Facets => low,
                Surface::Smooth => h - R,
            };
            levers.push(h - 0.5 * low);
        }
        if v >= v_end || t > 5.0 {
            break;
        }
    }
    let n = ts.len() as f64;
    let (mt, mv) = (ts.iter().sum::<f64>() / n, vs.iter().sum::<f64>() / n);
    let accel = ts
        .iter()
        .zip(&vs)
        .map(|(t, v)| (t - mt) * (v - mv))
        .sum::<f64>()
        / ts.iter().map(|t| (t - mt) * (t - mt)).sum::<f64>();
    let lever = levers.iter().sum::<f64>() / levers.len() as f64;
    let truth = if mu > 0.0 {
        G * theta.sin() / (1.0 + inertia / (mass * lever * lever))
    } else {
        G * theta.sin()
    };
    let b = &w.state.bodies[p];
    let spin = b.angular_velocity.cross(&(-lever * normal));
    let final_slip = (b.velocity + spin).dot(&down) / b.velocity.dot(&down);
    Run {
        accel,
        truth,
        longest_flight: longest,
        flights,
        first_flight_speed,
        final_slip,
    }
}

/// Hertz–Mindlin (E = 3 MPa: static sinkage ≈ 0.9 mm, several vertices in the halo)
/// with surface patches and with the seed's points, 1,280 triangles: within 3 % of the
/// no-slip rate and never off the surface; frictionless: `g·sinθ` within 0.1 %.
#[test]
fn a_sphere_rolls_down_a_slope_at_the_no_slip_rate_and_stays_on_it() {
    for points in [ContactPoints::Patches, ContactPoints::Seed] {
        for mu in [0.5, 0.0] {
            let r = roll(3, mu, points, Some(3e6), 1000.0, 5e-5, 2.0);
            let err = r.accel / r.truth - 1.0;
            println!(
                "hertz {points:?} mu {mu}: a = {:.4} m/s² (truth {:.4}, {:+.2} %), {} flights, longest {} steps",
                r.accel,
                r.truth,
                100.0 * err,
                r.flights,
                r.longest_flight
            );
            let tolerance = if mu > 0.0 { 0.03 } else { 1e-3 };
            assert!(err.abs() < tolerance, "{points:?}, mu {mu}: {err}");
            assert!(r.longest_flight <= 3, "{points:?}, mu {mu}: hops");
            if mu > 0.0 {
                assert!(r.final_slip.abs() < 0.01, "slips: {}", r.final_slip);
            }
        }
    }
}

/// The seed's spring meets the rolling bound when the static sinkage exceeds the
/// facet bumps: a sphere whose contact is stiffer than its facets rolls like a polyhedron,
/// lifted over every vertex by `r·(1 − cos(α/2)) ≈ r·α²/8` (`α` the angle between
/// neighbouring vertices seen from the centre) and launched by the vertex impacts (at
/// `K_s` = 1000 and 1,280 triangles: sinkage 75 µm against 0.34 mm bumps, 36–38 flights
/// from 0.6 m/s, 6.3–6.7 % slow; `rolling_figures`). With `K_s` = 250 (sinkage 0.30 mm)
/// and 5,120 triangles (bumps 0.06 mm) both contact-point models roll within 3 % of the
/// no-slip rate without leaving the surface; frictionless: `g·sinθ` within 0.1 %.
#[test]
fn the_seed_spring_rolls_at_the_no_slip_rate_when_its_sinkage_exceeds_the_facet_bumps() {
    let (ks, sub) = (250.0, 4);
    // Sinkage against the bumps, from the mesh: the largest angle between neighbouring
    // vertices seen from the centre.
    let mesh = icosphere(R, sub).expect("icosphere");
    let vertex = |i: u32| Vec3::from(mesh.vertices[i as usize]).normalize();
    let alpha = mesh
        .triangles
        .iter()
        .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
        .map(|(i, j)| vertex(i).dot(&vertex(j)).clamp(-1.0, 1.0).acos())
        .fold(0.0, f64::max);
    let bump = R * (1.0 - (0.5 * alpha).cos());
    let mass = 1000.0 * 4.0 / 3.0 * std::f64::consts::PI * R.powi(3);
    let margin = 0.01 * 2.0 * R + 0.002;
    let sink = mass * G * SLOPE_DEG.to_radians().cos() * margin / (ks * mass.sqrt());
    assert!(sink > 2.0 * bump, "sinkage {sink} vs bumps {bump}");
    for points in [ContactPoints::Patches, ContactPoints::Seed] {
        for mu in [0.5, 0.0] {
            let r = roll(sub, mu, points, None, ks, 5e-5, 2.0);
            let err = r.accel / r.truth - 1.0;
            println!(
                "seed spring K_s {ks}, {points:?} mu {mu}: a = {:.4} m/s² (truth {:.4}, {:+.2} %), {} flights, longest {} steps (sinkage {sink:.2e} m, bumps {bump:.2e} m)",
                r.accel,
                r.truth,
                100.0 * err,
                r.flights,
                r.longest_flight
            );
            let tolerance = if mu > 0.0 { 0.03 } else { 1e-3 };
            assert!(err.abs() < tolerance, "{points:?}, mu {mu}: {err}");
            assert_eq!(r.flights, 0, "{points:?}, mu {mu}: hops");
            if mu > 0.0 {
                assert!(r.final_slip.abs() < 0.01, "slips: {}", r.final_slip);
            }
        }
    }
}

/// The figures of `docs/validation.md` (both laws, both contact-point models, 1,280 and
/// 5,120 triangles): `cargo test --release -p msdem-solver --test physics
/// rolling_figures -- --ignored --nocapture`.
#[test]
#[ignore]
fn rolling_figures() {
    for (name, points, hertz, ks) in [
        ("patches+hertz", ContactPoints::Patches, Some(3e6), 1000.0),
        ("seed+hertz", ContactPoints::Seed, Some(3e6), 1000.0),
        ("patches", ContactPoints::Patches, None, 1000.0),
        ("seed", ContactPoints::Seed, None, 1000.0),
        ("patches K_s 250", ContactPoints::Patches, None, 250.0),
        ("seed K_s 250", ContactPoints::Seed, None, 250.0),
    ] {
        for sub in [3, 4] {
            for mu in [0.5, 0.0] {
                let r = roll(sub, mu, points, hertz, ks, 5e-5, 2.0);
                eprintln!(
                    "{name} sub {sub} mu {mu}: a {:.4} truth {:.4} ({:+.2} %), flights {} longest {} steps, first at {:?} m/s, slip {:.3}",
                    r.accel,
                    r.truth,
                    100.0 * (r.accel / r.truth - 1.0),
                    r.flights,
                    r.longest_flight,
                    r.first_flight_speed,
                    r.final_slip
                );
            }
        }
    }
}
