//! A minimal software rasteriser: filled triangles with a depth buffer, RGB8 pixels.

/// An RGB8 image, rows top to bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Width \[px\].
    pub width: u32,
    /// Height \[px\].
    pub height: u32,
    /// `3 · width · height` bytes, row-major, RGB.
    pub rgb: Vec<u8>,
}

impl Image {
    /// Colour of pixel `(x, y)` (`y = 0` is the top row).
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let i = 3 * (y as usize * self.width as usize + x as usize);
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }
}

/// Colour and depth buffers.
#[derive(Clone, Debug)]
pub struct Raster {
    width: u32,
    height: u32,
    color: Vec<[u8; 3]>,
    depth: Vec<f64>,
}

/// `x.floor()` without the library call for screen-sized values (the same result).
#[inline]
fn floor(x: f64) -> f64 {
    if x.abs() < 4.5e15 {
        let t = x as i64 as f64;
        if t > x {
            t - 1.0
        } else {
            t.copysign(x)
        }
    } else {
        x.floor()
    }
}

/// `x.ceil()` without the library call for screen-sized values (the same result).
#[inline]
fn ceil(x: f64) -> f64 {
    -floor(-x)
}

fn edge(a: [f64; 2], b: [f64; 2], p: [f64; 2]) -> f64 {
    (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
}

impl Raster {
    /// A `width × height` raster cleared to `background`, depth at infinity.
    pub fn new(width: u32, height: u32, background: [u8; 3]) -> Self {
        let n = width as usize * height as usize;
        Raster {
            width,
            height,
            color: vec![background; n],
            depth: vec![f64::INFINITY; n],
        }
    }

    /// Whether the bounding box of the triangle with screen vertices `v` holds the centre
    /// of a pixel of the raster (if not, [`Raster::fill_triangle`] draws nothing).
    pub fn may_cover(&self, v: [[f64; 3]; 3]) -> bool {
        let lo = |k: usize| v.iter().map(|q| q[k]).fold(f64::INFINITY, f64::min);
        let hi = |k: usize| v.iter().map(|q| q[k]).fold(f64::NEG_INFINITY, f64::max);
        let x0 = ceil(lo(0) - 0.5).max(0.0);
        let y0 = ceil(lo(1) - 0.5).max(0.0);
        let x1 = floor(hi(0) - 0.5).min(f64::from(self.width) - 1.0);
        let y1 = floor(hi(1) - 0.5).min(f64::from(self.height) - 1.0);
        x0 <= x1 && y0 <= y1
    }

    /// Fills the triangle with screen vertices `(x, y, depth)` (x, y in pixels, y down); a
    /// pixel is covered when its centre lies inside (either winding) and is drawn when its
    /// interpolated depth is smaller than the stored one.
    pub fn fill_triangle(&mut self, v: [[f64; 3]; 3], color: [u8; 3]) {
        let p = |k: usize| [v[k][0], v[k][1]];
        let area = edge(p(0), p(1), p(2));
        if area == 0.0 || !area.is_finite() {
            return;
        }
        let lo = |k: usize| v.iter().map(|q| q[k]).fold(f64::INFINITY, f64::min);
        let hi = |k: usize| v.iter().map(|q| q[k]).fold(f64::NEG_INFINITY, f64::max);
        let x0 = ceil(lo(0) - 0.5).max(0.0) as u32;
        let y0 = ceil(lo(1) - 0.5).max(0.0) as u32;
        let x1 = (floor(hi(0) - 0.5).min(f64::from(self.width) - 1.0)).max(-1.0);
        let y1 = (floor(hi(1) - 0.5).min(f64::from(self.height) - 1.0)).max(-1.0);
        if x1 < 0.0 || y1 < 0.0 {
            return;
        }
        let (x1, y1) = (x1 as u32, y1 as u32);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let c = [f64::from(x) + 0.5, f64::from(y) + 0.5];
                let w0 = edge(p(1), p(2), c) / area;
                let w1 = edge(p(2), p(0), c) / area;
                let w2 = edge(p(0), p(1), c) / area;
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let z = w0 * v[0][2] + w1 * v[1][2] + w2 * v[2][2];
                let i = y as usize * self.width as usize + x as usize;
                if z < self.depth[i] {
                    self.depth[i] = z;
                    self.color[i] = color;
                }
            }
        }
    }

    /// The colour buffer as an image.
    pub fn into_image(self) -> Image {
        Image {
            width: self.width,
            height: self.height,
            rgb: self.color.into_iter().flatten().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BG: [u8; 3] = [255, 255, 255];
    const RED: [u8; 3] = [200, 0, 0];
    const BLUE: [u8; 3] = [0, 0, 200];

    fn count(img: &Image, c: [u8; 3]) -> usize {
        img.rgb.chunks(3).filter(|p| *p == c).count()
    }

    #[test]
    fn covered_pixels_match_the_triangle_area() {
        let mut r = Raster::new(200, 200, BG);
        // Right triangle with legs 150 px: area 11 250 px²; either winding.
        r.fill_triangle(
            [[20.0, 20.0, 0.0], [170.0, 20.0, 0.0], [20.0, 170.0, 0.0]],
            RED,
        );
        let img = r.into_image();
        let n = count(&img, RED) as f64;
        assert!((n - 11_250.0).abs() < 160.0, "{n}");
        assert_eq!(img.pixel(30, 30), RED);
        assert_eq!(img.pixel(160, 160), BG);
        let mut r = Raster::new(200, 200, BG);
        r.fill_triangle(
            [[20.0, 20.0, 0.0], [20.0, 170.0, 0.0], [170.0, 20.0, 0.0]],
            RED,
        );
        assert_eq!(count(&r.into_image(), RED) as f64, n);
    }

    #[test]
    fn nearer_triangle_wins_regardless_of_draw_order() {
        for near_first in [true, false] {
            let mut r = Raster::new(50, 50, BG);
            let tri = |z: f64| [[0.0, 0.0, z], [50.0, 0.0, z], [0.0, 50.0, z]];
            if near_first {
                r.fill_triangle(tri(1.0), RED);
                r.fill_triangle(tri(2.0), BLUE);
            } else {
                r.fill_triangle(tri(2.0), BLUE);
                r.fill_triangle(tri(1.0), RED);
            }
            assert_eq!(r.into_image().pixel(10, 10), RED);
        }
    }

    #[test]
    fn fast_floor_and_ceil_agree_with_the_library() {
        for x in [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.999,
            -2.999,
            1e15,
            -1e15,
            4.4e15,
            5e15,
            -7e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e-300,
            -1e-300,
        ] {
            assert_eq!(floor(x).to_bits(), x.floor().to_bits(), "floor {x}");
            assert_eq!(ceil(x).to_bits(), x.ceil().to_bits(), "ceil {x}");
        }
        assert!(floor(f64::NAN).is_nan() && ceil(f64::NAN).is_nan());
    }

    #[test]
    fn offscreen_and_degenerate_triangles_draw_nothing() {
        let mut r = Raster::new(20, 20, BG);
        r.fill_triangle(
            [
                [-50.0, -50.0, 0.0],
                [-10.0, -50.0, 0.0],
                [-50.0, -10.0, 0.0],
            ],
            RED,
        );
        r.fill_triangle([[0.0, 0.0, 0.0], [10.0, 10.0, 0.0], [20.0, 20.0, 0.0]], RED);
        assert_eq!(count(&r.into_image(), RED), 0);
    }
}
