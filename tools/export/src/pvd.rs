//! ParaView collection files (`.pvd`): one `DataSet` per frame with its simulated time, so
//! ParaView plays a series of `.vtp` files as one animation.

/// One entry of a collection.
#[derive(Clone, Debug, PartialEq)]
pub struct PvdEntry {
    /// Simulated time \[s\].
    pub time: f64,
    /// Data file, relative to the `.pvd` file's folder.
    pub file: String,
}

/// The `.pvd` file for `entries` (in the given order). Times are written in Rust's
/// shortest round-trip decimal form, so they read back exactly.
pub fn pvd_bytes(entries: &[PvdEntry]) -> Vec<u8> {
    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\"?>\n");
    s.push_str("<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n");
    s.push_str("  <Collection>\n");
    for e in entries {
        let file = e
            .file
            .replace('&', "&amp;")
            .replace('"', "&quot;")
            .replace('<', "&lt;");
        s.push_str(&format!(
            "    <DataSet timestep=\"{:?}\" group=\"\" part=\"0\" file=\"{file}\"/>\n",
            e.time
        ));
    }
    s.push_str("  </Collection>\n</VTKFile>\n");
    s.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip_and_entries_keep_order() {
        let entries = [
            PvdEntry {
                time: 0.0,
                file: "p_000000.vtp".into(),
            },
            PvdEntry {
                time: 1e-7 * 3.0,
                file: "p_000001.vtp".into(),
            },
        ];
        let s = String::from_utf8(pvd_bytes(&entries)).unwrap();
        let times: Vec<f64> = s
            .split("timestep=\"")
            .skip(1)
            .map(|p| p[..p.find('"').unwrap()].parse().unwrap())
            .collect();
        assert_eq!(times, vec![0.0, 1e-7 * 3.0]);
        assert!(s.find("p_000000.vtp").unwrap() < s.find("p_000001.vtp").unwrap());
    }
}
