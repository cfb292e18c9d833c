//! The embedded plot font. No system fonts are assumed: DejaVu Sans (Bitstream Vera
//! licence, see `assets/DejaVuSans-LICENSE.txt`) is compiled in and registered with
//! plotters' `ab_glyph` backend under the family name [`FAMILY`].

use std::sync::OnceLock;

use plotters::style::FontStyle;

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

#[cfg(test)]
mod tests {
    #[test]
    fn embedded_font_registers() {
        assert!(super::text_available());
    }
}
