//! Seed 002 Table 2 (§5.2): random spheres at number density 1.25e-7 m⁻³, radii
//! U[0, 101] m, treated as equal-radii ellipsoids with random orientations. The
//! ellipsoid path (inflated bounding spheres, then ChM + OpM, and OpM alone) must give
//! exactly the contact count of the exact sphere-overlap test on the same realisation.
//! The sizes of the table that run in seconds; all of them up to 2²⁰ with
//! `cargo run --release -p msdem-ellipsoid --example table2`.

use msdem_ellipsoid::table2::count_contacts;
use msdem_ellipsoid::workload::table2;

#[test]
fn equal_radii_ellipsoids_count_the_sphere_contacts() {
    for (n, opm_only) in [
        (128, true),
        (1024, true),
        (8192, true),
        (32_768, true),
        (131_072, false),
    ] {
        let (bodies, _) = table2(n, 0x7ab1e2 + n as u64).unwrap();
        let c = count_contacts(&bodies, opm_only).unwrap();
        // The inflated broad phase hands over separated pairs that ChM must reject.
        assert!(c.candidates > c.spheres * 2, "{n}: {c:?}");
        // About 0.3–0.45 contacts per body at this density (seed Table 2: 37 of 128 up to
        // 487,246 of 1,048,576; boundary losses shrink with N).
        let per_body = c.spheres as f64 / n as f64;
        assert!((0.2..0.5).contains(&per_body), "{n}: {c:?}");
        assert_eq!(c.chm_opm, c.spheres, "{n}: ChM + OpM vs spheres: {c:?}");
        if let Some(opm) = c.opm_only {
            assert_eq!(opm, c.spheres, "{n}: OpM alone vs spheres: {c:?}");
        }
    }
}
