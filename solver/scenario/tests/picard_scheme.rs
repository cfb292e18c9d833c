//! `picard.scheme`: the θ-method (`theta`) is accepted beside `euler` and `midpoint`, and
//! an unknown value is refused in one line located at the value (file:line:column) with
//! the values it may take; `picard.theta` likewise for a θ outside `(0.5, 1]`, and with a
//! scheme other than `theta`. `split` is a scheme too.

use std::path::Path;

use msdem_scenario::{parse_scenario, PicardScheme, THETA};

fn scenario(scheme: &str) -> String {
    format!(
        "\
version: 1
name: theta
time: {{ dt: 1.0e-4, end: 0.01, output_every: 10 }}
integrator: implicit_multiscale
picard: {{ scheme: {scheme}, acceleration: linearised }}
materials: {{ rock: {{ density: 2500 }} }}
shapes: {{ grain: {{ mesh: g.ply, tree: g.tree }} }}
particles: [ {{ shape: grain, material: rock, position: [0, 0, 1] }} ]
"
    )
}

#[test]
fn theta_is_a_scheme_and_a_misspelt_one_is_refused_where_it_stands() {
    for (name, want, theta) in [
        ("euler", PicardScheme::Euler, 1.0),
        ("midpoint", PicardScheme::Midpoint, 0.5),
        ("theta", PicardScheme::Theta, THETA),
        ("split", PicardScheme::Split, 0.5),
    ] {
        let s = parse_scenario(&scenario(name), Path::new("s.yaml")).unwrap();
        assert_eq!(s.picard.scheme, want);
        assert_eq!(want.theta(), theta);
    }
    const { assert!(THETA > 0.5 && THETA < 1.0) };
    let e = parse_scenario(&scenario("thetta"), Path::new("s.yaml"))
        .unwrap_err()
        .to_string();
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.starts_with("s.yaml:5:19"), "{e}");
    assert!(
        e.contains("unknown variant `thetta`") && e.contains("`theta`"),
        "{e}"
    );
}

#[test]
fn theta_takes_its_value_and_refuses_one_outside_the_open_half_to_one() {
    let text = |theta: &str| scenario(&format!("theta, theta: {theta}"));
    let s = parse_scenario(&text("0.6"), Path::new("s.yaml")).unwrap();
    assert_eq!(s.picard.theta, 0.6);
    assert_eq!(s.picard.implicitness(), 0.6);
    let s = parse_scenario(&scenario("theta"), Path::new("s.yaml")).unwrap();
    assert_eq!(s.picard.implicitness(), THETA);
    for bad in ["0.5", "1.2", ".nan"] {
        let e = parse_scenario(&text(bad), Path::new("s.yaml"))
            .unwrap_err()
            .to_string();
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.starts_with("s.yaml:5:33"), "{e}");
        assert!(e.contains("(0.5, 1]"), "{e}");
    }
}

/// `picard.theta` belongs to `scheme: theta`: with any other scheme (written or the
/// default) it is refused in one located line instead of being silently ignored.
#[test]
fn theta_with_another_scheme_is_refused_where_the_section_stands() {
    for scheme in ["euler", "midpoint", "split"] {
        let text = scenario(&format!("{scheme}, theta: 0.6"));
        let e = parse_scenario(&text, Path::new("s.yaml"))
            .unwrap_err()
            .to_string();
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.starts_with("s.yaml:5:"), "{e}");
        assert!(
            e.contains("`theta`") && e.contains(&format!("`scheme: {scheme}` does not use it")),
            "{e}"
        );
    }
    let text = scenario("euler").replace("scheme: euler", "theta: 0.6");
    let e = parse_scenario(&text, Path::new("s.yaml"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("`scheme: euler` does not use it"), "{e}");
}
