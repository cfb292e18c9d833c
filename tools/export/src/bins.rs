//! Binning of per-step series for the plots: consecutive steps are grouped into bins (one
//! output interval each, or more when that would give more bins than the plot has pixel
//! columns), and each bin is summarised by its minimum, maximum and mean. The plots draw
//! the mean as a line and the minimum–maximum range as a shaded band, so that a spike of
//! a single step among 80,000 stays visible without drawing 80,000 strokes.

/// Summary of the finite values of one bin of consecutive steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bin {
    /// x of the bin's first finite point.
    pub x_lo: f64,
    /// x of the bin's last finite point.
    pub x_hi: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
}

impl Bin {
    /// Centre of the bin on the x axis.
    pub fn x(&self) -> f64 {
        0.5 * (self.x_lo + self.x_hi)
    }
}

/// Steps per bin for `n` steps: `per_output` (the output interval of the run, at least 1)
/// or, when that would give more than `max_bins` bins, the smallest size that gives at most
/// `max_bins` (at least one bin).
pub fn bin_size(n: usize, per_output: usize, max_bins: usize) -> usize {
    let per_output = per_output.max(1);
    let fit = n.div_ceil(max_bins.max(1)).max(1);
    per_output.max(fit)
}

/// The bins of `points` (in drawing order) in groups of `size` consecutive points; a bin
/// without a finite point is `None` (a gap in the drawing).
pub fn bin_points(points: &[(f64, f64)], size: usize) -> Vec<Option<Bin>> {
    points
        .chunks(size.max(1))
        .map(|chunk| {
            let mut bin: Option<Bin> = None;
            let mut sum = 0.0;
            let mut count = 0usize;
            for &(x, y) in chunk {
                if !(x.is_finite() && y.is_finite()) {
                    continue;
                }
                sum += y;
                count += 1;
                bin = Some(match bin {
                    None => Bin {
                        x_lo: x,
                        x_hi: x,
                        min: y,
                        max: y,
                        mean: 0.0,
                    },
                    Some(b) => Bin {
                        x_lo: b.x_lo.min(x),
                        x_hi: b.x_hi.max(x),
                        min: b.min.min(y),
                        max: b.max.max(y),
                        mean: 0.0,
                    },
                });
            }
            bin.map(|b| {
                // The mean of finite values can overflow to ±inf only for values near
                // f64::MAX; clamp it into the range it must lie in.
                let mean = (sum / count as f64).clamp(b.min, b.max);
                Bin { mean, ..b }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bin_size_follows_the_output_interval_and_the_pixel_bound() {
        assert_eq!(bin_size(80_000, 400, 800), 400);
        assert_eq!(bin_size(80_000, 1, 800), 100);
        assert_eq!(bin_size(80_001, 1, 800), 101);
        assert_eq!(bin_size(0, 0, 0), 1);
        assert_eq!(bin_size(5, 0, 800), 1);
    }

    #[test]
    fn bins_keep_extremes_means_and_gaps() {
        let mut pts: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, 2.0)).collect();
        pts[3].1 = 50.0;
        pts[4].1 = -1.0;
        pts[6].1 = f64::NAN;
        pts[7].1 = f64::NAN;
        let bins = bin_points(&pts, 2);
        assert_eq!(bins.len(), 5);
        let b1 = bins[1].unwrap();
        assert_eq!((b1.min, b1.max, b1.mean), (2.0, 50.0, 26.0));
        assert_eq!((b1.x_lo, b1.x_hi, b1.x()), (2.0, 3.0, 2.5));
        assert_eq!(bins[2].unwrap().min, -1.0);
        assert_eq!(bins[3], None, "both values NaN: a gap");
        assert!(bin_points(&[], 3).is_empty());
        let huge = bin_points(&[(0.0, f64::MAX), (1.0, f64::MAX)], 2)[0].unwrap();
        assert_eq!(huge.mean, f64::MAX);
    }
}
