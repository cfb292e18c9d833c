//! Clipped drawing of plot data into an RGB8 buffer: bands between two polylines and thick
//! polylines, rasterised column by column, and rectangles; everything alpha-blended and
//! confined to a clip rectangle (the axes box of a plot), whatever the coordinates given.
//!
//! A polyline is drawn by covering, in every pixel column, the vertical range its segments
//! span across that column: the drawing is connected, covers every vertex exactly (a spike
//! of one sample reaches its value) and needs no anti-aliasing state, so the output is the
//! same bytes on every machine.

/// A pixel rectangle, `x0 ≤ x < x1`, `y0 ≤ y < y1` (y downwards).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    /// First column.
    pub x0: i32,
    /// First row.
    pub y0: i32,
    /// One past the last column.
    pub x1: i32,
    /// One past the last row.
    pub y1: i32,
}

impl Rect {
    /// Whether pixel `(x, y)` lies inside.
    pub fn contains(&self, x: i32, y: i32) -> bool {
        (self.x0..self.x1).contains(&x) && (self.y0..self.y1).contains(&y)
    }

    /// Width \[px\] (0 when empty).
    pub fn width(&self) -> i32 {
        (self.x1 - self.x0).max(0)
    }

    /// Height \[px\] (0 when empty).
    pub fn height(&self) -> i32 {
        (self.y1 - self.y0).max(0)
    }
}

/// One vertex of a band: screen x and the rows of its upper and lower edge \[px\].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    /// Column coordinate \[px\].
    pub x: f64,
    /// Row coordinate of the upper edge (the smaller y).
    pub top: f64,
    /// Row coordinate of the lower edge (the larger y).
    pub bottom: f64,
}

/// An RGB8 buffer with a clip rectangle.
pub struct Canvas<'a> {
    rgb: &'a mut [u8],
    width: usize,
    clip: Rect,
}

/// Coordinates beyond this many pixels outside the clip rectangle are clamped (keeps the
/// arithmetic finite and cheap for absurd values).
const FAR: f64 = 1e6;

impl<'a> Canvas<'a> {
    /// A canvas over `rgb` (`3 · width · height` bytes) drawing only inside `clip`
    /// (intersected with the buffer).
    pub fn new(rgb: &'a mut [u8], width: u32, height: u32, clip: Rect) -> Self {
        let (w, h) = (width as i32, height as i32);
        let clip = Rect {
            x0: clip.x0.clamp(0, w),
            y0: clip.y0.clamp(0, h),
            x1: clip.x1.clamp(0, w),
            y1: clip.y1.clamp(0, h),
        };
        let width = if rgb.len() >= 3 * width as usize * height as usize {
            width as usize
        } else {
            0
        };
        Canvas { rgb, width, clip }
    }

    /// The clip rectangle.
    pub fn clip(&self) -> Rect {
        self.clip
    }

    /// Blends `color` with opacity `alpha` (0–255) over pixel `(x, y)` if inside the clip.
    pub fn blend(&mut self, x: i32, y: i32, color: [u8; 3], alpha: u8) {
        if self.width == 0 || !self.clip.contains(x, y) {
            return;
        }
        let i = 3 * (y as usize * self.width + x as usize);
        let a = u32::from(alpha);
        for (k, &c) in color.iter().enumerate() {
            let p = u32::from(self.rgb[i + k]);
            self.rgb[i + k] = ((u32::from(c) * a + p * (255 - a) + 127) / 255) as u8;
        }
    }

    /// Fills the pixels of columns `x0..x1`, rows `y0..y1` (clipped).
    pub fn fill_rect(&mut self, r: Rect, color: [u8; 3], alpha: u8) {
        let c = self.clip;
        for y in r.y0.max(c.y0)..r.y1.min(c.y1) {
            for x in r.x0.max(c.x0)..r.x1.min(c.x1) {
                self.blend(x, y, color, alpha);
            }
        }
    }

    /// Fills the band between the upper and lower edges through `spans` (ascending x),
    /// grown by `grow` pixels up and down (a line: top = bottom, grow = half its width).
    /// A single span is drawn as a short vertical bar three columns wide.
    pub fn band(&mut self, spans: &[Span], color: [u8; 3], alpha: u8, grow: f64) {
        let c = self.clip;
        if c.width() == 0 || c.height() == 0 || spans.is_empty() {
            return;
        }
        let clampx = |x: f64| x.clamp(f64::from(c.x0) - FAR, f64::from(c.x1) + FAR);
        let clampy = |y: f64| y.clamp(f64::from(c.y0) - FAR, f64::from(c.y1) + FAR);
        let s: Vec<Span> = spans
            .iter()
            .filter(|s| s.x.is_finite() && s.top.is_finite() && s.bottom.is_finite())
            .map(|s| Span {
                x: clampx(s.x),
                top: clampy(s.top.min(s.bottom)),
                bottom: clampy(s.top.max(s.bottom)),
            })
            .collect();
        let n = c.width() as usize;
        let mut col = vec![(f64::INFINITY, f64::NEG_INFINITY); n];
        let mut cover = |cx: i64, top: f64, bottom: f64| {
            let k = cx - i64::from(c.x0);
            if (0..n as i64).contains(&k) {
                let e = &mut col[k as usize];
                *e = (e.0.min(top), e.1.max(bottom));
            }
        };
        if s.len() == 1 {
            let cx = s[0].x.floor() as i64;
            for dx in -1..=1 {
                cover(cx + dx, s[0].top, s[0].bottom);
            }
        }
        for w in s.windows(2) {
            let (a, b) = if w[0].x <= w[1].x {
                (w[0], w[1])
            } else {
                (w[1], w[0])
            };
            let first = (a.x.floor() as i64).max(i64::from(c.x0));
            let last = (b.x.floor() as i64).min(i64::from(c.x1) - 1);
            let dx = b.x - a.x;
            let at = |x: f64| -> (f64, f64) {
                if dx > 0.0 {
                    let t = ((x - a.x) / dx).clamp(0.0, 1.0);
                    (
                        a.top + (b.top - a.top) * t,
                        a.bottom + (b.bottom - a.bottom) * t,
                    )
                } else {
                    (a.top.min(b.top), a.bottom.max(b.bottom))
                }
            };
            for cx in first..=last {
                let lo = (cx as f64).max(a.x);
                let hi = ((cx + 1) as f64).min(b.x);
                if lo > hi {
                    continue;
                }
                let (t0, b0) = at(lo);
                let (t1, b1) = at(hi);
                // A vertical segment: both ends in this column.
                let (t, bt) = if dx > 0.0 {
                    (t0.min(t1), b0.max(b1))
                } else {
                    (a.top.min(b.top), a.bottom.max(b.bottom))
                };
                cover(cx, t, bt);
            }
        }
        for (k, &(top, bottom)) in col.iter().enumerate() {
            if top > bottom {
                continue;
            }
            let x = c.x0 + k as i32;
            let y0 = ((top - grow).floor() as i64).max(i64::from(c.y0)) as i32;
            let y1 = ((bottom + grow).floor() as i64).min(i64::from(c.y1) - 1) as i32;
            for y in y0..=y1 {
                self.blend(x, y, color, alpha);
            }
        }
    }

    /// A polyline of width ≈ `2 · half_width` pixels through `points` (ascending x).
    pub fn polyline(&mut self, points: &[(f64, f64)], color: [u8; 3], half_width: f64) {
        let spans: Vec<Span> = points
            .iter()
            .map(|&(x, y)| Span {
                x,
                top: y,
                bottom: y,
            })
            .collect();
        self.band(&spans, color, 255, half_width);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: u32 = 40;
    const H: u32 = 30;
    const RED: [u8; 3] = [200, 0, 0];

    fn buf() -> Vec<u8> {
        vec![255; 3 * (W * H) as usize]
    }

    fn red_at(rgb: &[u8], x: u32, y: u32) -> bool {
        let i = 3 * (y * W + x) as usize;
        rgb[i..i + 3] == RED
    }

    fn clip() -> Rect {
        Rect {
            x0: 5,
            y0: 5,
            x1: 35,
            y1: 25,
        }
    }

    #[test]
    fn nothing_is_drawn_outside_the_clip_rectangle_whatever_the_coordinates() {
        let mut rgb = buf();
        let mut c = Canvas::new(&mut rgb, W, H, clip());
        let wild = [
            (-1e300, 1e300),
            (-10.0, -50.0),
            (20.0, 100.0),
            (20.5, f64::INFINITY),
            (21.0, f64::NAN),
            (50.0, 12.0),
            (1e308, -1e308),
        ];
        c.polyline(&wild, RED, 3.0);
        c.fill_rect(
            Rect {
                x0: -100,
                y0: -100,
                x1: 4,
                y1: 100,
            },
            RED,
            255,
        );
        for y in 0..H {
            for x in 0..W {
                if red_at(&rgb, x, y) {
                    assert!(clip().contains(x as i32, y as i32), "({x}, {y})");
                }
            }
        }
        assert!(
            (0..H).any(|y| (0..W).any(|x| red_at(&rgb, x, y))),
            "drew nothing"
        );
    }

    #[test]
    fn a_one_sample_spike_reaches_its_value_and_the_line_is_connected() {
        let mut rgb = buf();
        let mut c = Canvas::new(&mut rgb, W, H, clip());
        // A narrow spike between two flat parts: the peak lies between pixel centres.
        c.polyline(
            &[
                (5.0, 20.0),
                (17.3, 20.0),
                (17.6, 7.2),
                (17.9, 20.0),
                (35.0, 20.0),
            ],
            RED,
            0.5,
        );
        assert!(red_at(&rgb, 17, 7), "peak row covered");
        for x in 5..35 {
            assert!(
                (19..=20).any(|y| red_at(&rgb, x, y)) || x == 17,
                "column {x}"
            );
        }
    }

    #[test]
    fn band_covers_from_its_upper_to_its_lower_edge_and_blends() {
        let mut rgb = buf();
        let mut c = Canvas::new(&mut rgb, W, H, clip());
        let s = |x: f64, top: f64, bottom: f64| Span { x, top, bottom };
        c.band(
            &[s(10.0, 8.0, 20.0), s(30.0, 8.0, 20.0)],
            [0, 0, 0],
            128,
            0.0,
        );
        let px = |x: u32, y: u32| rgb[3 * (y * W + x) as usize];
        assert_eq!(px(20, 8), 127);
        assert_eq!(px(20, 20), 127);
        assert_eq!(px(20, 7), 255);
        assert_eq!(px(20, 21), 255);
        assert_eq!(px(9, 12), 255);
    }
}
