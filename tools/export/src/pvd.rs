//! ParaView collection files (`.pvd`): one `DataSet` per frame with its simulated time, so
//! ParaView plays a series of `.vtp` files as one animation.

/// Simulated time \[s\] of step `step` with time step `dt` \[s\], computed from the step
/// index (not accumulated step by step): the exact decimal product `step × dt'`, where
/// `dt'` is the shortest decimal that reads back as `dt` (e.g. `5e-5`), rounded once to
/// the nearest `f64`. So a series every 0.02 s gets the times 0.02·k as written in
/// decimal (`0.06`, not `0.060000000000000005`). Where that product cannot be formed
/// exactly in 64-bit integers (more than 15 significant digits in all, or an exponent
/// beyond ±22), it is `step as f64 × dt`, one rounding from the exact product.
pub fn frame_time(step: u64, dt: f64) -> f64 {
    exact_decimal_product(step, dt).unwrap_or(step as f64 * dt)
}

/// `step × dt` via the decimal digits of `dt` (see [`frame_time`]); `None` when not exact.
fn exact_decimal_product(step: u64, dt: f64) -> Option<f64> {
    if !dt.is_finite() || dt < 0.0 {
        return None;
    }
    // Shortest round-trip form, e.g. "5e-5", "0.0001", "2.5e-5", "1.0", "12000.0".
    let text = format!("{dt:e}");
    let (mantissa, exp) = text.split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: u64 = format!("{int}{frac}").parse().ok()?;
    // dt = digits × 10^(exp − len(frac)).
    let scale = exp - frac.len() as i32;
    let n = digits.checked_mul(step)?;
    // Integers below 2^53 and powers of ten up to 10^22 are exact in f64, so the one
    // multiplication or division below is the only rounding.
    if n >= 1 << 53 || scale.abs() > 22 {
        return None;
    }
    let p = 10f64.powi(scale.abs());
    Some(if scale < 0 {
        n as f64 / p
    } else {
        n as f64 * p
    })
}

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

    /// `0.02·k` spelled out in decimal from integers (hundredths), as Rust prints an f64.
    fn hundredths(c: u64) -> String {
        match c % 100 {
            0 => format!("{}.0", c / 100),
            f => format!("{}.{:02}", c / 100, f)
                .trim_end_matches('0')
                .to_string(),
        }
    }

    /// Issue 17: times of a series every 0.02 s are exactly 0.02·k in shortest round-trip
    /// form (the pvd attribute text), for the steps of the staircase (dt = 5e-5 s, a frame
    /// every 400 steps) and of dt = 1e-4 s every 200 steps; accumulating dt would not be.
    #[test]
    fn a_series_every_two_hundredths_gets_exact_decimal_times() {
        for (dt, every) in [(5e-5, 400u64), (1e-4, 200), (2e-2, 1)] {
            let entries: Vec<PvdEntry> = (0..=1000u64)
                .map(|k| PvdEntry {
                    time: frame_time(k * every, dt),
                    file: format!("p_{k:06}.vtp"),
                })
                .collect();
            let text = String::from_utf8(pvd_bytes(&entries)).unwrap();
            let written: Vec<&str> = text
                .split("timestep=\"")
                .skip(1)
                .map(|p| &p[..p.find('"').unwrap()])
                .collect();
            assert_eq!(written.len(), 1001);
            for (k, w) in written.iter().enumerate() {
                assert_eq!(*w, hundredths(2 * k as u64), "dt {dt}, frame {k}");
            }
        }
        // What the solver's accumulated time gives instead.
        let mut t = 0.0;
        for _ in 0..3 * 400 {
            t += 5e-5;
        }
        assert_ne!(format!("{t:?}"), "0.06");
        assert_eq!(format!("{:?}", frame_time(1200, 5e-5)), "0.06");
    }

    #[test]
    fn times_fall_back_to_one_rounding_when_not_exact() {
        // 17 significant digits in dt: the plain product.
        let dt = 0.1 + 0.2;
        assert_eq!(frame_time(7, dt), 7.0 * dt);
        assert_eq!(frame_time(0, 1e-300), 0.0);
        assert_eq!(frame_time(3, 1e-300), 3.0 * 1e-300);
        assert_eq!(frame_time(u64::MAX, 1e-4), u64::MAX as f64 * 1e-4);
        assert_eq!(frame_time(12, 2.5e-5), 3e-4);
        assert_eq!(frame_time(3, 1500.0), 4500.0);
    }

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
