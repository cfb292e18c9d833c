//! `halo:` of materials and obstacles: both units, their limits, the refusals and their
//! positions, the old key `epsilon`, and the scenario file written back by `Serialize`.

use std::path::Path;

use msdem_scenario::{
    parse_scenario, HaloSpec, Scenario, ScenarioError, DEFAULT_RELATIVE_HALO, MAX_RELATIVE_HALO,
};

/// A scenario file with `material` as the body of material `rock` and `obstacle` as the
/// extra keys of obstacle `floor` (lines 6 and 12).
fn text(material: &str, obstacle: &str) -> String {
    format!(
        "version: 1
name: halo
time: {{ dt: 1.0e-4, end: 0.01, output_every: 10 }}
materials:
  rock:
    {material}
shapes: {{ grain: {{ mesh: g.ply, tree: g.tree }} }}
obstacles:
  - name: floor
    mesh: f.ply
    tree: f.tree
    {obstacle}
particles: [ {{ shape: grain, material: rock, position: [0, 0, 1] }} ]
"
    )
}

fn parse(material: &str, obstacle: &str) -> Result<Scenario, String> {
    parse_scenario(&text(material, obstacle), Path::new("s.yaml")).map_err(|e| e.to_string())
}

fn halos(material: &str, obstacle: &str) -> (HaloSpec, f64) {
    let s = parse(material, obstacle).unwrap_or_else(|e| panic!("{e}"));
    (s.materials["rock"].halo, s.obstacles[0].halo_m)
}

const FLOOR: &str = "halo: { absolute_m: 0.002 }";

#[test]
fn both_units_are_read_and_the_default_is_relative() {
    assert_eq!(
        halos("density: 1000", FLOOR),
        (HaloSpec::Relative(DEFAULT_RELATIVE_HALO), 0.002)
    );
    assert_eq!(HaloSpec::default(), HaloSpec::Relative(0.01));
    assert_eq!(
        halos("{ density: 1000, halo: { relative: 0.03 } }", FLOOR).0,
        HaloSpec::Relative(0.03)
    );
    assert_eq!(
        halos("{ density: 1000, halo: { absolute_m: 5.0e-3 } }", FLOOR).0,
        HaloSpec::AbsoluteM(0.005)
    );
    // Integers are numbers; the largest relative halo is accepted.
    assert_eq!(
        halos(
            "{ density: 1000, halo: { absolute_m: 1 } }",
            "halo: { absolute_m: 2 }"
        ),
        (HaloSpec::AbsoluteM(1.0), 2.0)
    );
    assert_eq!(
        halos("{ density: 1000, halo: { relative: 0.5 } }", FLOOR).0,
        HaloSpec::Relative(MAX_RELATIVE_HALO)
    );
    // Block style as well as flow style.
    assert_eq!(
        halos(
            "density: 1000\n    halo:\n      relative: 0.02",
            "halo:\n      absolute_m: 0.001"
        ),
        (HaloSpec::Relative(0.02), 0.001)
    );
}

#[test]
fn the_width_in_metres_is_the_product_the_solver_always_formed() {
    for (x, r) in [
        (0.01, 0.05),
        (0.03, 0.123_456_789),
        (0.5, 1.0e-3),
        (0.07, 3.3),
    ] {
        let old = x * 2.0 * r;
        assert_eq!(HaloSpec::Relative(x).width_m(r).to_bits(), old.to_bits());
        assert_eq!(HaloSpec::AbsoluteM(x).width_m(r), x);
    }
}

fn error(material: &str, obstacle: &str) -> String {
    parse(material, obstacle).expect_err("refused")
}

#[test]
fn the_old_key_is_refused_at_its_value_with_the_line_that_replaces_it() {
    assert_eq!(
        error("{ density: 1000, epsilon: 0.03 }", FLOOR),
        "s.yaml:6:31: materials.rock.epsilon: `epsilon` was renamed: write \
         `halo: { relative: 0.03 }` (a fraction of the bounding diameter)"
    );
    assert_eq!(
        error("density: 1000", "epsilon: 0.002"),
        "s.yaml:12:14: obstacles[0].epsilon: `epsilon` was renamed: write \
         `halo: { absolute_m: 0.002 }` (metres)"
    );
    // The refusal comes first, also before a missing required key, and whatever the value.
    assert_eq!(
        error("{ epsilon: 1 }", FLOOR),
        "s.yaml:6:16: materials.rock.epsilon: `epsilon` was renamed: write \
         `halo: { relative: 1 }` (a fraction of the bounding diameter)"
    );
    assert_eq!(
        error("density: 1000", "epsilon: [1, 2]"),
        "s.yaml:12:14: obstacles[0].epsilon: `epsilon` was renamed: write \
         `halo: { absolute_m: METRES }` (metres)"
    );
    assert_eq!(
        error("{ density: 1000, epsilon: big }", FLOOR),
        "s.yaml:6:31: materials.rock.epsilon: `epsilon` was renamed: write \
         `halo: { relative: FRACTION }` (a fraction of the bounding diameter)"
    );
    // `epsilon` is not offered as a key any more.
    let e = error("{ density: 1000, epsilom: 0.03 }", FLOOR);
    assert!(e.contains("unknown field `epsilom`"), "{e}");
    assert!(!e.contains("`epsilon`"), "{e}");
}

#[test]
fn a_halo_has_exactly_one_known_key_with_a_number_in_range() {
    let cases = [
        (
            "{ density: 1000, halo: { relative: 0.01, absolute_m: 0.001 } }",
            "6:46: materials.rock.halo: `relative` and `absolute_m` both given: a halo is \
             either `relative` (a fraction of the bounding diameter) or `absolute_m` \
             (metres), not both",
        ),
        (
            "{ density: 1000, halo: { absolute: 0.001 } }",
            "6:30: materials.rock.halo: unknown field `absolute`, expected `relative` or \
             `absolute_m`",
        ),
        (
            "{ density: 1000, halo: { absolute_m: 0 } }",
            "6:42: materials.rock.halo.absolute_m: invalid value 0, expected a finite \
             number > 0",
        ),
        (
            "{ density: 1000, halo: { absolute_m: -.inf } }",
            "6:42: materials.rock.halo.absolute_m: invalid value -.inf, expected a finite \
             number > 0",
        ),
        (
            "{ density: 1000, halo: { relative: -0.01 } }",
            "6:40: materials.rock.halo.relative: invalid value -0.01, expected a fraction \
             of the bounding diameter in (0, 0.5]",
        ),
        (
            "{ density: 1000, halo: { relative: 0.5000001 } }",
            "6:40: materials.rock.halo.relative: invalid value 0.5000001, expected a \
             fraction of the bounding diameter in (0, 0.5]",
        ),
        (
            "{ density: 1000, halo: {} }",
            "6:28: materials.rock.halo: a halo needs its width: `halo: { relative: \
             FRACTION }` (of the bounding diameter) or `halo: { absolute_m: METRES }`",
        ),
        (
            "{ density: 1000, halo: 0.01 }",
            "6:28: materials.rock.halo: invalid type: floating point `0.01`, expected a \
             halo mapping, `{ relative: FRACTION }` or `{ absolute_m: METRES }`",
        ),
        (
            "{ density: 1000, halo: { relative: 0.01, relative: 0.02 } }",
            "6:46: materials.rock.halo: duplicate key `relative`",
        ),
    ];
    for (material, want) in cases {
        assert_eq!(error(material, FLOOR), format!("s.yaml:{want}"));
    }
}

#[test]
fn an_obstacle_takes_only_metres() {
    let cases = [
        (
            "halo: { relative: 0.01 }",
            "12:23: obstacles[0].halo.relative: an obstacle has no bounding diameter for a \
             `relative` halo: give its width in metres, `halo: { absolute_m: METRES }`",
        ),
        (
            "halo: { absolute_m: 0.002, relative: 0.01 }",
            "12:32: obstacles[0].halo: `absolute_m` and `relative` both given: a halo is \
             either `relative` (a fraction of the bounding diameter) or `absolute_m` \
             (metres), not both",
        ),
        (
            "halo: { metres: 0.002 }",
            "12:13: obstacles[0].halo: unknown field `metres`, expected `absolute_m`",
        ),
        (
            "halo: { absolute_m: .nan }",
            "12:25: obstacles[0].halo.absolute_m: invalid value .nan, expected a finite \
             number > 0",
        ),
        (
            "halo: {}",
            "12:11: obstacles[0].halo: an obstacle's halo needs its width in metres: \
             `halo: { absolute_m: METRES }`",
        ),
        ("friction: 0.5", "9:5: obstacles[0]: missing field `halo`"),
    ];
    for (obstacle, want) in cases {
        assert_eq!(error("density: 1000", obstacle), format!("s.yaml:{want}"));
    }
}

#[test]
fn a_scenario_written_back_has_halo_keys_and_reads_back_the_same() {
    for material in [
        "{ density: 1000, halo: { relative: 0.03 } }",
        "{ density: 1000, halo: { absolute_m: 0.004 } }",
        "density: 1000",
    ] {
        let s = parse(material, FLOOR).unwrap();
        let written = serde_norway::to_string(&s).unwrap();
        assert!(!written.contains("epsilon"), "{written}");
        assert!(written.contains("absolute_m: 0.002"), "{written}");
        let back = parse_scenario(&written, Path::new("s.yaml"))
            .unwrap_or_else(|e| panic!("{e}\n{written}"));
        assert_eq!(back, s, "{written}");
    }
}

#[test]
fn errors_are_located() {
    let e = parse_scenario(
        &text("{ density: 1000, epsilon: 0.03 }", FLOOR),
        Path::new("s.yaml"),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            ScenarioError::Located {
                line: 6,
                column: 31,
                ..
            }
        ),
        "{e:?}"
    );
}
