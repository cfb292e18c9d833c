//! The certificate skin of the kept sets (`detect::CertificateSkin`) decides which
//! certified pairs are stored and when the sets are refreshed, never a contact (seed 000
//! Lemma 5.7; `detect/active/skin.rs`): explicit runs of a dense heap (four noisy spheres
//! dropped onto a plane and onto each other) at the implicit detection's skin, the
//! explicit step's, a wide base and a long refresh period give the same contacts (the same
//! triangle pairs, hence the same merged contacts and forces) and the same states in every
//! step, bit for bit, as the descent from the roots does — while the wide skin stores more
//! pairs.

use crate::common::world::*;
use msdem_geom::math::Iso3;
use msdem_mesh::generate::plane;
use msdem_solver::detect::{CertificateSkin, Search};
use msdem_solver::params::{DetectionMode, KernelChoice};
use msdem_solver::world::World;

fn heap() -> World {
    let mut w = empty_world(2e-4, [0.0, 0.0, -9.81]);
    w.params.kernel = KernelChoice::Hybrid;
    let ground = plane([4.0, 4.0], 2, [0.0, 0.0, 0.0]).expect("plane");
    add_obstacle(&mut w, &ground, Iso3::identity(), 0.01, 0.5, 0.4);
    let m = add_material(&mut w, 1000.0, 0.01, 20_000.0, 0.5, 0.4);
    for (k, p) in [
        [0.0, 0.0, 0.33],
        [0.61, 0.05, 0.34],
        [0.3, 0.53, 0.35],
        [0.25, 0.2, 0.9],
    ]
    .into_iter()
    .enumerate()
    {
        let mesh = noise_mesh(0.3, 2, 1.1, 7 + k as u32);
        let s = add_shape(&mut w, &mesh);
        add_particle(&mut w, s, m, p);
    }
    w
}

#[test]
fn the_skin_changes_no_contact_and_no_state() {
    let base = heap();
    let skins = [
        CertificateSkin::DEFAULT,
        CertificateSkin::EXPLICIT,
        CertificateSkin::new(16.0, 10.0).expect("skin"),
        CertificateSkin::new(0.25, 1000.0).expect("skin"),
    ];
    let mut runs: Vec<_> = skins
        .iter()
        .map(|&skin| {
            let w = base.clone();
            let (mut ex, det) = explicit(&w);
            ex.set_skin(skin);
            (w, ex, det)
        })
        .collect();
    let mut roots = base.clone();
    let (mut ex_roots, mut det_roots) = explicit(&roots);
    ex_roots.set_search(Search::Roots(DetectionMode::Hierarchy));
    let sum = |v: &[u64]| v[..v.len() - 1].iter().sum::<u64>();
    let (mut checks, mut bytes) = (vec![0u64; skins.len()], vec![0usize; skins.len()]);
    let mut contact_steps = 0;
    for s in 0..4000 {
        let truth = ex_roots
            .advance(&roots.model, &mut roots.state, &mut det_roots, true)
            .unwrap();
        contact_steps += usize::from(truth.stats.contacts > 0);
        for (k, (w, ex, det)) in runs.iter_mut().enumerate() {
            let out = ex.advance(&w.model, &mut w.state, det, true).unwrap();
            assert_eq!(
                out.contacts, truth.contacts,
                "step {s}, skin {:?}: contacts and forces",
                skins[k]
            );
            for (p, q) in w.state.bodies.iter().zip(&roots.state.bodies) {
                assert_eq!(p.position, q.position, "step {s}, skin {:?}", skins[k]);
                assert_eq!(p.orientation, q.orientation, "step {s}");
                assert_eq!(p.velocity, q.velocity, "step {s}");
                assert_eq!(p.angular_velocity, q.angular_velocity, "step {s}");
            }
            checks[k] += sum(&out.stats.checks_per_level);
            bytes[k] = bytes[k].max(det.active_bytes());
        }
    }
    assert!(contact_steps > 500, "{contact_steps} steps with contacts");
    // The skins did different work: the wide one stores more pairs (and certifies and
    // checks a different number).
    assert!(
        checks[2] != checks[0] && bytes[2] > bytes[0],
        "checks {checks:?}, set bytes {bytes:?}"
    );
}

/// The explicit integrator sets its skin on the detector it is handed.
#[test]
fn the_explicit_step_sets_its_skin() {
    let mut w = heap();
    let (mut ex, mut det) = explicit(&w);
    assert_eq!(det.skin(), CertificateSkin::DEFAULT);
    ex.advance(&w.model, &mut w.state, &mut det, false).unwrap();
    assert_eq!(det.skin(), CertificateSkin::EXPLICIT);
}
