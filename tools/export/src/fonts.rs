//! The embedded plot font. No system fonts are assumed: DejaVu Sans (Bitstream Vera
//! licence, see `assets/DejaVuSans-LICENSE.txt`) is compiled in and registered with
//! plotters' `ab_glyph` backend under the family name [`FAMILY`].

use std::sync::OnceLock;

use plotters::style::FontStyle;

use crate::raster::Image;

/// Font family name the plots use.
pub const FAMILY: &str = "sans-serif";

static DEJAVU_SANS: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
static REGISTERED: OnceLock<bool> = OnceLock::new();

/// Registers the embedded font once; returns whether text can be drawn. When it cannot,
/// plots are drawn without text instead of failing.
pub fn text_available() -> bool {
    *REGISTERED.get_or_init(|| {
        plotters::style::register_font(FAMILY, FontStyle::Normal, DEJAVU_SANS).is_ok()
    })
}

/// Draws `text` in black at `size` pixels with its top-left corner at `(x, y)` into `img`
/// (blended with what is there; clipped to the image). Does nothing when the font is not
/// available or the image's buffer does not match its size.
pub fn draw_text(img: &mut Image, text: &str, x: i32, y: i32, size: u32) {
    use plotters::prelude::*;
    if !text_available() || img.rgb.len() != 3 * img.width as usize * img.height as usize {
        return;
    }
    let root =
        BitMapBackend::with_buffer(&mut img.rgb, (img.width, img.height)).into_drawing_area();
    let style = TextStyle::from((FAMILY, size).into_font()).color(&BLACK);
    // Failures only concern the (already checked) buffer: nothing to report.
    let _ = root.draw_text(text, &style, (x, y));
    let _ = root.present();
}

/// Width and height \[px\] `text` takes at `size` pixels (0 × 0 without the font).
pub fn text_size(text: &str, size: u32) -> (u32, u32) {
    use plotters::prelude::*;
    if !text_available() {
        return (0, 0);
    }
    let mut buf = [255u8; 3];
    let root = BitMapBackend::with_buffer(&mut buf, (1, 1)).into_drawing_area();
    let style = TextStyle::from((FAMILY, size).into_font());
    root.estimate_text_size(text, &style).unwrap_or((0, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_font_registers() {
        assert!(text_available());
    }

    #[test]
    fn text_is_drawn_in_grey_levels_where_asked_and_clipped() {
        let mut img = Image {
            width: 120,
            height: 40,
            rgb: vec![255; 3 * 120 * 40],
        };
        let (w, h) = text_size("t = 1.234 s", 20);
        assert!(w > 60 && w < 120 && h > 10 && h <= 30, "{w} × {h}");
        draw_text(&mut img, "t = 1.234 s", 4, 4, 20);
        let dark: Vec<(u32, u32)> = (0..40)
            .flat_map(|y| (0..120).map(move |x| (x, y)))
            .filter(|&(x, y)| img.pixel(x, y)[0] < 128)
            .collect();
        assert!(dark.len() > 50, "{} dark pixels", dark.len());
        let minx = dark.iter().map(|p| p.0).min().unwrap();
        let miny = dark.iter().map(|p| p.1).min().unwrap();
        let maxx = dark.iter().map(|p| p.0).max().unwrap();
        let maxy = dark.iter().map(|p| p.1).max().unwrap();
        // Within the measured box, give or take the font's ascent rounding (a quarter size).
        let ok = minx + 5 >= 4 && miny + 5 >= 4 && maxx < 4 + w + 5 && maxy < 4 + h + 5;
        assert!(ok, "ink spans ({minx}, {miny})–({maxx}, {maxy})");
        for p in img.rgb.chunks(3) {
            assert!(p[0] == p[1] && p[1] == p[2], "black on white stays grey");
        }
        // Off the image and on a mismatched buffer: no panic.
        draw_text(&mut img, "far away", 500, 500, 20);
        draw_text(&mut img, "far away", -500, -500, 20);
        let mut bad = Image {
            width: 10,
            height: 10,
            rgb: vec![0; 5],
        };
        draw_text(&mut bad, "x", 0, 0, 12);
    }
}
