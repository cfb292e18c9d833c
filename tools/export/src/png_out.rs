//! PNG encoding of RGB8 images (written to disk atomically by the caller).

use crate::raster::Image;

/// Encodes an RGB8 image as PNG bytes.
pub fn png_bytes(img: &Image) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, img.width, img.height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header()?;
        w.write_image_data(&img.rgb)?;
        w.finish()?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_back_to_the_same_pixels() {
        let img = Image {
            width: 3,
            height: 2,
            rgb: (0..18).map(|i| (i * 13) as u8).collect(),
        };
        let bytes = png_bytes(&img).unwrap();
        let dec = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = dec.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (3, 2));
        assert_eq!(&buf[..info.buffer_size()], &img.rgb[..]);
    }
}
