//! `docs/reference.md` is generated from the key tables in code
//! (`msdem_scenario::reference`, `msdem_pipeline::reference`, `msdem_export::reference`)
//! and must equal what they generate. The tables themselves are checked against the
//! parsers: for every section, an unknown key inserted into `tests/reference/probe.yaml`
//! makes the parser name the keys it accepts, which must be the table's keys; enumerated
//! values likewise. The VTK array table is checked against the arrays of real `.vtp`
//! files of the tiny pipeline.
//!
//! Regenerate the page with
//! `MSDEM_WRITE_REFERENCE=1 cargo test --release -p msdem-e2e --test reference`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use msdem_e2e::{pipeline_binary, run_in, test_pipelines_dir, texts, workspace_root};
use msdem_export::reference::{vtk_table, VTK_ARRAYS};
use msdem_pipeline::reference::{output_table, PIPELINE_KEYS};
use msdem_scenario::reference::{markdown_tables, KeyDoc, SCENARIO_KEYS};
use serde_norway::Value;

/// The whole page.
fn reference_page() -> String {
    let mut page = String::new();
    page.push_str(
        "# Reference: pipeline and scenario keys, output files, VTK arrays\n\n\
         <!-- Generated from the key tables in solver/scenario/src/reference.rs,\n     \
         tools/pipeline/src/reference.rs and tools/export/src/reference.rs; do not edit.\n     \
         Regenerate: MSDEM_WRITE_REFERENCE=1 cargo test --release -p msdem-e2e --test reference -->\n\n\
         Units are SI (m, kg, s, N, J; angles in degrees where the key says `_deg` or the unit \
         column says degree). Every section refuses unknown keys, wrong types and values out of \
         range at their `FILE:LINE:COLUMN` (the tables are checked against the parsers by \
         `tests/reference.rs`). `required` keys have no default. How the parts fit together: \
         [pipelines/README.md](../pipelines/README.md); the binaries' flags: [cli.md](cli.md).\n\n\
         ## Pipeline file (`pipelines/*.yaml`, `version: 1`)\n\n\
         A mesh entry is either generated — `kind:` (sphere, ellipsoid, box, plane, slope, \
         hopper, staircase) and that generator's keys, the parameters of `meshgen KIND` — or \
         imported — `import:` and the transform keys, applied in the order listed.\n\n",
    );
    page.push_str(&markdown_tables(PIPELINE_KEYS, "Pipeline top level"));
    page.push_str(
        "## Scenario (scenario files, and the `scenario:` section of a pipeline)\n\n\
         A scenario file has every key below. In a pipeline's `scenario:` section, `version` \
         and `name` are left out (the pipeline's are used) and shapes and obstacles give \
         `tree: NAME` (a tree of the pipeline) instead of `mesh` and `tree` files.\n\n",
    );
    page.push_str(&markdown_tables(
        SCENARIO_KEYS,
        "Scenario top level (in a pipeline: under `scenario:`)",
    ));
    page.push_str("## Output folder `out/NAME/`\n\n");
    page.push_str(&output_table());
    page.push_str(
        "\n## VTK arrays (`run/vtk/`)\n\n\
         Series `NAME.pvd` list one `NAME_NNNNNN.vtp` per frame (times = step × dt); \
         `obstacles` and `shape_NNN` are written once. Encoding: `export.vtk_format`.\n\n",
    );
    page.push_str(&vtk_table());
    page.push_str(
        "\n## CSV columns\n\n`run/csv/particles_NNNNNN.csv` (`export.particle_csv: true`), \
         values as in `particles_state`, units in the names:\n\n```\n",
    );
    page.push_str(msdem_export::particle_state::CSV_HEADER);
    page.push_str(
        "\n```\n\n`run/plots/steps.csv`, one row per step (times in s, energies in J; \
         one `checks_level_L` column per tree level above the finest, here for three \
         levels):\n\n```\n",
    );
    page.push_str(msdem_export::steps_csv::steps_csv(&[], 3).trim_end());
    page.push_str(
        "\n```\n\nLocal time stepping runs (`lts.msdem`, seed 004) add columns per \
         synchronisation interval (counts; the smallest active step and the wall time per \
         phase in s), then one column per histogram bin: active clusters by size \
         (`lts_cluster_size_LO_HI`, base-2 bins), by time step size over the interval \
         (`lts_step_ratio_1e-A_1e-B`: Δt/dt in (1e-A, 1e-B]) and colliding clusters by \
         contact points (`lts_cluster_contacts_LO_HI`), as many bins as the run needs \
         (here 4, 3 and 3); other runs have none of them:\n\n```\n",
    );
    page.push_str(msdem_export::steps_csv::lts_header(4, 3, 3).trim_start_matches(','));
    page.push_str("\n```\n");
    page
}

#[test]
fn docs_reference_md_is_generated_from_the_key_tables() {
    let path = workspace_root().join("docs").join("reference.md");
    let page = reference_page();
    if std::env::var_os("MSDEM_WRITE_REFERENCE").is_some() {
        fs::write(&path, &page).unwrap();
    }
    let written = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == page,
        "docs/reference.md differs from the key tables; regenerate it with\n  \
         MSDEM_WRITE_REFERENCE=1 cargo test --release -p msdem-e2e --test reference"
    );
}

/// The probe document and its path (its import is resolved relative to it).
fn probe() -> (Value, PathBuf) {
    let path = workspace_root().join("tests/reference/probe.yaml");
    let text = fs::read_to_string(&path).unwrap();
    msdem_pipeline::parse_pipeline(&text, &path).expect("the probe document is valid");
    (serde_norway::from_str(&text).unwrap(), path)
}

fn at<'a>(doc: &'a mut Value, path: &[&str]) -> &'a mut Value {
    path.iter().fold(doc, |v, seg| match seg.parse::<usize>() {
        Ok(i) => &mut v[i],
        Err(_) => &mut v[*seg],
    })
}

/// The error message of the probe document edited by `edit`.
fn message(edit: impl FnOnce(&mut Value)) -> String {
    let (mut doc, path) = probe();
    edit(&mut doc);
    let text = serde_norway::to_string(&doc).unwrap();
    match msdem_pipeline::parse_pipeline(&text, &path) {
        Ok(_) => panic!("the edited probe parsed:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// The backticked names after `expected` in a serde message.
fn expected_names(message: &str) -> BTreeSet<String> {
    let message = message.split(" (or use").next().unwrap_or(message);
    let (_, list) = message
        .rsplit_once("expected ")
        .unwrap_or_else(|| panic!("no list of names in: {message}"));
    if list.contains('`') {
        list.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect()
    } else {
        // `expected mm, cm or m`
        list.replace(" or ", ", ")
            .split(", ")
            .map(|v| v.trim().to_owned())
            .collect()
    }
}

fn table_keys(keys: &[KeyDoc], section: &str) -> BTreeSet<String> {
    keys.iter()
        .filter(|k| k.section == section)
        .map(|k| k.key.to_owned())
        .collect()
}

#[test]
fn every_section_of_the_tables_lists_exactly_the_keys_its_parser_accepts() {
    // (table, section, where in the probe document the section is)
    let sections: &[(&[KeyDoc], &str, &[&str])] = &[
        (PIPELINE_KEYS, "", &[]),
        (
            PIPELINE_KEYS,
            "meshes.<name> (kind: sphere)",
            &["meshes", "grain"],
        ),
        (
            PIPELINE_KEYS,
            "meshes.<name> (kind: ellipsoid)",
            &["meshes", "egg"],
        ),
        (
            PIPELINE_KEYS,
            "meshes.<name> (kind: box)",
            &["meshes", "brick"],
        ),
        (
            PIPELINE_KEYS,
            "meshes.<name> (kind: plane)",
            &["meshes", "floor"],
        ),
        (
            PIPELINE_KEYS,
            "meshes.<name> (kind: slope)",
            &["meshes", "ramp"],
        ),
        (
            PIPELINE_KEYS,
            "meshes.<name> (kind: hopper)",
            &["meshes", "funnel"],
        ),
        (
            PIPELINE_KEYS,
            "meshes.<name> (kind: staircase)",
            &["meshes", "stairs"],
        ),
        (PIPELINE_KEYS, "meshes.<name> (import)", &["meshes", "scan"]),
        (PIPELINE_KEYS, "trees.<name>", &["trees", "grain"]),
        (PIPELINE_KEYS, "export", &["export"]),
        (PIPELINE_KEYS, "report", &["report"]),
        (
            PIPELINE_KEYS,
            "report.packing_box",
            &["report", "packing_box"],
        ),
        (SCENARIO_KEYS, "", &["scenario"]),
        (SCENARIO_KEYS, "time", &["scenario", "time"]),
        (SCENARIO_KEYS, "picard", &["scenario", "picard"]),
        (SCENARIO_KEYS, "detection", &["scenario", "detection"]),
        (SCENARIO_KEYS, "broadphase", &["scenario", "broadphase"]),
        (
            SCENARIO_KEYS,
            "materials.<name>",
            &["scenario", "materials", "rock"],
        ),
        (
            SCENARIO_KEYS,
            "materials.<name>.halo",
            &["scenario", "materials", "rock", "halo"],
        ),
        (
            SCENARIO_KEYS,
            "material_pairs[]",
            &["scenario", "material_pairs", "0"],
        ),
        (
            SCENARIO_KEYS,
            "shapes.<name>",
            &["scenario", "shapes", "grain"],
        ),
        (
            SCENARIO_KEYS,
            "shapes.<name>.ellipsoid",
            &["scenario", "shapes", "egg", "ellipsoid"],
        ),
        (
            SCENARIO_KEYS,
            "obstacles[]",
            &["scenario", "obstacles", "0"],
        ),
        (
            SCENARIO_KEYS,
            "obstacles[].halo",
            &["scenario", "obstacles", "0", "halo"],
        ),
        (
            SCENARIO_KEYS,
            "particles[]",
            &["scenario", "particles", "0"],
        ),
        (
            SCENARIO_KEYS,
            "generators[].lattice",
            &["scenario", "generators", "0", "lattice"],
        ),
        (
            SCENARIO_KEYS,
            "generators[].random_box",
            &["scenario", "generators", "1", "random_box"],
        ),
        (
            SCENARIO_KEYS,
            "generators[].drop",
            &["scenario", "generators", "2", "drop"],
        ),
        (
            SCENARIO_KEYS,
            "generators[].pairs",
            &["scenario", "generators", "3", "pairs"],
        ),
        (
            SCENARIO_KEYS,
            "generators[].stack",
            &["scenario", "generators", "4", "stack"],
        ),
        (
            SCENARIO_KEYS,
            "generators[].ring",
            &["scenario", "generators", "5", "ring"],
        ),
        (SCENARIO_KEYS, "limits", &["scenario", "limits"]),
        (SCENARIO_KEYS, "checkpoint", &["scenario", "checkpoint"]),
        (SCENARIO_KEYS, "distributed", &["scenario", "distributed"]),
    ];
    let mut wrong = Vec::new();
    for &(keys, section, path) in sections {
        let m = message(|doc| {
            at(doc, path)
                .as_mapping_mut()
                .unwrap()
                .insert(Value::from("zz_probe"), Value::from(0));
        });
        let parsed = expected_names(&m);
        let table = table_keys(keys, section);
        if parsed != table {
            wrong.push(format!("{section}: parser {parsed:?}, table {table:?}"));
        }
    }
    // `lts:` is refused beside the other integrators and `picard:` beside these: probe it
    // in a local time stepping scenario.
    for (section, path) in [
        ("lts", &["scenario", "lts"][..]),
        ("lts.impulse", &["scenario", "lts", "impulse"][..]),
    ] {
        let m = message(|doc| {
            let scenario = at(doc, &["scenario"]).as_mapping_mut().unwrap();
            scenario.remove("picard");
            scenario.insert(
                Value::from("integrator"),
                Value::from("local_time_stepping"),
            );
            scenario.insert(
                Value::from("lts"),
                serde_norway::from_str("{ impulse: {} }").unwrap(),
            );
            at(doc, path)
                .as_mapping_mut()
                .unwrap()
                .insert(Value::from("zz_probe"), Value::from(0));
        });
        let parsed = expected_names(&m);
        let table = table_keys(SCENARIO_KEYS, section);
        if parsed != table {
            wrong.push(format!("{section}: parser {parsed:?}, table {table:?}"));
        }
    }
    // The generator kinds are the keys of a `generators[]` item.
    let m = message(|doc| {
        *at(doc, &["scenario", "generators", "0"]) =
            serde_norway::from_str("{ zz_probe: {} }").unwrap();
    });
    let parsed = expected_names(&m);
    if parsed != table_keys(SCENARIO_KEYS, "generators[]") {
        wrong.push(format!("generators[]: parser {parsed:?}"));
    }
    // Every documented section was probed.
    let probed: BTreeSet<(usize, &str)> = sections
        .iter()
        .map(|(keys, s, _)| (keys.as_ptr() as usize, *s))
        .chain([
            (SCENARIO_KEYS.as_ptr() as usize, "generators[]"),
            (SCENARIO_KEYS.as_ptr() as usize, "lts"),
            (SCENARIO_KEYS.as_ptr() as usize, "lts.impulse"),
        ])
        .collect();
    for keys in [PIPELINE_KEYS, SCENARIO_KEYS] {
        for k in keys {
            if !probed.contains(&(keys.as_ptr() as usize, k.section)) {
                wrong.push(format!("section `{}` is not probed", k.section));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn enumerated_values_in_the_tables_are_those_the_parser_accepts() {
    // (table, section, key, where the value is in the probe document)
    let values: &[(&[KeyDoc], &str, &str, &[&str])] = &[
        (SCENARIO_KEYS, "", "integrator", &["scenario", "integrator"]),
        (
            SCENARIO_KEYS,
            "detection",
            "mode",
            &["scenario", "detection", "mode"],
        ),
        (
            SCENARIO_KEYS,
            "detection",
            "kernel",
            &["scenario", "detection", "kernel"],
        ),
        (
            SCENARIO_KEYS,
            "detection",
            "contact_points",
            &["scenario", "detection", "contact_points"],
        ),
        (
            SCENARIO_KEYS,
            "broadphase",
            "kind",
            &["scenario", "broadphase", "kind"],
        ),
        (
            PIPELINE_KEYS,
            "meshes.<name> (kind: hopper)",
            "outlet",
            &["meshes", "funnel", "outlet"],
        ),
        (
            PIPELINE_KEYS,
            "meshes.<name> (import)",
            "units",
            &["meshes", "scan", "units"],
        ),
        (
            PIPELINE_KEYS,
            "export",
            "vtk_format",
            &["export", "vtk_format"],
        ),
    ];
    let mut wrong = Vec::new();
    for &(keys, section, key, path) in values {
        let m = message(|doc| *at(doc, path) = Value::from("zz_probe"));
        let parsed = expected_names(&m);
        let doc = keys
            .iter()
            .find(|k| k.section == section && k.key == key)
            .unwrap_or_else(|| panic!("{section}.{key} not in the table"));
        let table: BTreeSet<String> = doc
            .range
            .split(',')
            .map(|v| v.split_whitespace().next().unwrap_or("").to_owned())
            .collect();
        if parsed != table {
            wrong.push(format!(
                "{section}.{key}: parser {parsed:?}, table {table:?} ({m})"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `(series, name, location, type)` of every array in the `.vtp` files under `dir`.
fn vtp_arrays(dir: &Path) -> BTreeSet<(String, String, String, String)> {
    let mut found = BTreeSet::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".vtp") else {
            continue;
        };
        let series = match stem.rsplit_once('_') {
            Some((s, n)) if n.len() == 6 && n.bytes().all(|b| b.is_ascii_digit()) => s.to_owned(),
            _ if stem.starts_with("shape_") => "shape_NNN".to_owned(),
            _ => panic!("unexpected file {name}"),
        };
        let bytes = fs::read(&path).unwrap();
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(8192)]).into_owned();
        let head = head.split("<AppendedData").next().unwrap_or(&head);
        let mut location = "";
        for line in head.lines().map(str::trim) {
            for (tag, loc) in [
                ("<PointData", "point"),
                ("<CellData", "cell"),
                ("<Points", "geometry"),
                ("<Verts", ""),
                ("<Polys", ""),
            ] {
                if line.starts_with(tag) {
                    location = loc;
                }
            }
            if !line.starts_with("<DataArray") || location.is_empty() {
                continue;
            }
            let attr = |a: &str| {
                line.split(&format!(" {a}=\""))
                    .nth(1)
                    .and_then(|r| r.split('"').next())
                    .map(str::to_owned)
            };
            let ty = match attr("NumberOfComponents").as_deref() {
                None | Some("1") => attr("type").unwrap(),
                Some(n) => format!("{} × {n}", attr("type").unwrap()),
            };
            found.insert((
                series.clone(),
                attr("Name").unwrap(),
                location.to_owned(),
                ty,
            ));
        }
    }
    found
}

#[test]
fn the_vtk_table_lists_exactly_the_arrays_of_the_exported_files() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = dir.path().join("tiny.yaml");
    fs::copy(test_pipelines_dir().join("tiny.yaml"), &pipeline).unwrap();
    let output = run_in(&pipeline_binary(), ["tiny.yaml"], dir.path());
    let (stdout, stderr) = texts(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let files = vtp_arrays(&dir.path().join("out/tiny/run/vtk"));
    let table: BTreeSet<(String, String, String, String)> = VTK_ARRAYS
        .iter()
        .map(|a| {
            (
                a.series.to_owned(),
                a.name.to_owned(),
                a.location.to_owned(),
                a.ty.to_owned(),
            )
        })
        .collect();
    let missing: Vec<_> = files.difference(&table).collect();
    let extra: Vec<_> = table.difference(&files).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "arrays in the files but not in the table: {missing:?}\nin the table but not in the files: {extra:?}"
    );
    // Every output file of the table that a default export writes exists.
    let out = dir.path().join("out/tiny");
    for f in msdem_pipeline::reference::OUTPUT_FILES {
        let first = f.path.split([',', ' ']).next().unwrap();
        if f.stage.contains("particle_csv") || first.contains('*') || first.contains("NAME") {
            continue;
        }
        let probe = first.replace("NNNNNN", "000000");
        assert!(out.join(&probe).exists(), "{probe} listed but not written");
    }
}
