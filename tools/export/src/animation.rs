//! Animated preview of a whole run (`preview_animation.png`): an animated PNG (APNG,
//! written with the `png` crate; browsers play it, other viewers show its first frame)
//! of at most [`MAX_FRAMES`] frames evenly sampled from the run (first and last always
//! included), [`ANIMATION_SIZE`] pixels, one fixed camera fitted to the particles of every
//! sampled frame and the obstacles near them ([`crate::preview::View`]), and the simulated
//! time on every frame. Playback runs at simulated speed, stretched or compressed to last
//! between [`MIN_PLAYBACK`] and [`MAX_PLAYBACK`] seconds; the last frame is held for a
//! second before the loop starts again.
//!
//! Size is bounded: after the first frame, each frame stores only the rectangle that
//! changed since the previous one. Frames are rendered in parallel in chunks of
//! [`CHUNK`] and encoded in order, so the bytes do not depend on the thread count and
//! memory stays bounded by one chunk of pictures.

use std::path::Path;

use rayon::prelude::*;

use crate::error::ExportError;
use crate::preview::{time_label, ParticleExtent, View};
use crate::raster::Image;
use crate::run_reader::RunFolder;
use crate::scene::Soup;

/// File name of the animation in the output folder.
pub const ANIMATION_FILE: &str = "preview_animation.png";
/// Most frames an animation has.
pub const MAX_FRAMES: usize = 100;
/// Size of the animation \[px\].
pub const ANIMATION_SIZE: (u32, u32) = (640, 480);
/// Shortest playback of a whole run \[s\].
pub const MIN_PLAYBACK: f64 = 2.0;
/// Longest playback of a whole run \[s\].
pub const MAX_PLAYBACK: f64 = 10.0;
/// Shortest and longest delay between two frames \[ms\] (browsers slow shorter ones).
pub const DELAY_MS: (u16, u16) = (20, 1000);
/// How long the last frame stays before the animation starts again \[ms\].
pub const LAST_HOLD_MS: u16 = 1000;
/// Frames rendered in parallel before being encoded.
pub const CHUNK: usize = 16;

/// What the animation shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnimationOptions {
    /// Most frames (at least 1).
    pub max_frames: usize,
    /// Size \[px\].
    pub size: (u32, u32),
}

impl Default for AnimationOptions {
    fn default() -> Self {
        AnimationOptions {
            max_frames: MAX_FRAMES,
            size: ANIMATION_SIZE,
        }
    }
}

/// At most `max` of `frames`, evenly spaced, the first and the last included.
pub fn sample_frames(frames: &[u32], max: usize) -> Vec<u32> {
    let (n, max) = (frames.len(), max.max(1));
    if n <= max {
        return frames.to_vec();
    }
    if max == 1 {
        return frames.last().copied().into_iter().collect();
    }
    (0..max)
        .map(|k| frames[(k * (n - 1) + (max - 1) / 2) / (max - 1)])
        .collect()
}

/// Display time of each frame \[ms\] for frames at simulated `times` (see the module
/// documentation).
pub fn frame_delays_ms(times: &[f64]) -> Vec<u16> {
    let Some((first, last)) = times.first().zip(times.last()) else {
        return Vec::new();
    };
    let span = last - first;
    let speed = if span > 0.0 && span.is_finite() {
        span.clamp(MIN_PLAYBACK, MAX_PLAYBACK) / span
    } else {
        0.0
    };
    times
        .windows(2)
        .map(|w| {
            let ms = ((w[1] - w[0]) * speed * 1e3).round();
            let ms = if ms.is_finite() { ms } else { 0.0 };
            ms.clamp(f64::from(DELAY_MS.0), f64::from(DELAY_MS.1)) as u16
        })
        .chain(std::iter::once(LAST_HOLD_MS))
        .collect()
}

/// The smallest rectangle `(x, y, width, height)` holding every pixel that differs
/// between `a` and `b` (same size), `None` when they are equal.
pub fn changed_rect(a: &Image, b: &Image) -> Option<(u32, u32, u32, u32)> {
    let row = 3 * a.width as usize;
    if row == 0 || a.rgb.len() != b.rgb.len() {
        return None;
    }
    let (mut x0, mut x1, mut y0, mut y1) = (usize::MAX, 0, usize::MAX, 0);
    for (y, (ra, rb)) in a.rgb.chunks(row).zip(b.rgb.chunks(row)).enumerate() {
        if ra == rb {
            continue;
        }
        let first = ra.iter().zip(rb).position(|(p, q)| p != q).unwrap_or(0) / 3;
        let last = (row
            - 1
            - ra.iter()
                .rev()
                .zip(rb.iter().rev())
                .position(|(p, q)| p != q)
                .unwrap_or(0))
            / 3;
        (x0, x1, y0, y1) = (x0.min(first), x1.max(last), y0.min(y), y1.max(y));
    }
    (y0 != usize::MAX).then(|| {
        (
            x0 as u32,
            y0 as u32,
            (x1 - x0 + 1) as u32,
            (y1 - y0 + 1) as u32,
        )
    })
}

fn crop(img: &Image, x: u32, y: u32, w: u32, h: u32) -> Vec<u8> {
    let row = 3 * img.width as usize;
    let mut out = Vec::with_capacity(3 * w as usize * h as usize);
    for r in y..y + h {
        let at = r as usize * row + 3 * x as usize;
        out.extend_from_slice(&img.rgb[at..at + 3 * w as usize]);
    }
    out
}

/// Appends `img` to the animation: whole for the first frame, else the rectangle that
/// changed since `prev` (one unchanged pixel when nothing did), replacing what was there.
fn write_frame<W: std::io::Write>(
    writer: &mut png::Writer<W>,
    prev: Option<&Image>,
    img: &Image,
    delay_ms: u16,
) -> Result<(), png::EncodingError> {
    let (x, y, w, h) = match prev {
        None => (0, 0, img.width, img.height),
        Some(p) => changed_rect(p, img).unwrap_or((0, 0, 1, 1)),
    };
    writer.set_frame_delay(delay_ms, 1000)?;
    writer.reset_frame_position()?;
    writer.set_frame_dimension(w, h)?;
    writer.set_frame_position(x, y)?;
    writer.set_dispose_op(png::DisposeOp::None)?;
    writer.set_blend_op(png::BlendOp::Source)?;
    writer.write_image_data(&crop(img, x, y, w, h))
}

/// Encodes `frames` (all of the same size, at least one) with their delays as APNG bytes,
/// playing in a loop.
pub fn apng_bytes(frames: &[Image], delays_ms: &[u16]) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    let Some(first) = frames.first() else {
        return Ok(out);
    };
    {
        let mut writer = apng_writer(&mut out, first.width, first.height, frames.len())?;
        let mut prev = None;
        for (k, img) in frames.iter().enumerate() {
            let delay = delays_ms.get(k).copied().unwrap_or(LAST_HOLD_MS);
            write_frame(&mut writer, prev, img, delay)?;
            prev = Some(img);
        }
        writer.finish()?;
    }
    Ok(out)
}

fn apng_writer<W: std::io::Write>(
    out: W,
    width: u32,
    height: u32,
    frames: usize,
) -> Result<png::Writer<W>, png::EncodingError> {
    let mut enc = png::Encoder::new(out, width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Fast);
    enc.set_animated(u32::try_from(frames).unwrap_or(u32::MAX), 0)?;
    enc.write_header()
}

/// Renders and encodes the animation of `run` with the static `obstacles`; returns the
/// APNG bytes and the number of frames. Errors name the frame file read or, for
/// encoding failures, `path` (where the animation goes).
pub fn run_animation(
    run: &RunFolder,
    obstacles: &Soup,
    opts: &AnimationOptions,
    path: &Path,
) -> Result<(Vec<u8>, usize), ExportError> {
    let draw_error = |e: png::EncodingError| ExportError::Draw {
        path: path.to_path_buf(),
        detail: e.to_string(),
    };
    let sampled = sample_frames(&run.frames, opts.max_frames);
    // Pass 1: where the particles go over the whole run (fixes the camera) and when.
    let seen = sampled
        .par_iter()
        .map(|&i| {
            let frame = run.read_frame(i)?;
            Ok((frame.time, ParticleExtent::of_frame(run, &frame)))
        })
        .collect::<Result<Vec<_>, ExportError>>()?;
    let times: Vec<f64> = seen.iter().map(|s| s.0).collect();
    let extent = seen
        .iter()
        .filter_map(|s| s.1)
        .reduce(ParticleExtent::union);
    let (w, h) = opts.size;
    let view = View::fit(extent, obstacles, w.max(1), h.max(1), true);
    let interval = run.manifest.dt * f64::from(run.manifest.output_every);
    let delays = frame_delays_ms(&times);
    let mut out = Vec::new();
    {
        let mut writer =
            apng_writer(&mut out, w.max(1), h.max(1), sampled.len()).map_err(draw_error)?;
        let mut prev: Option<Image> = None;
        let mut k = 0;
        // Pass 2: render a chunk in parallel, encode it in order.
        for chunk in sampled.chunks(CHUNK) {
            let images = chunk
                .par_iter()
                .map(|&i| {
                    let frame = run.read_frame(i)?;
                    let label = time_label(frame.time, interval);
                    Ok(view.render_frame(run, &frame, Some(&label)))
                })
                .collect::<Result<Vec<_>, ExportError>>()?;
            for img in images {
                write_frame(&mut writer, prev.as_ref(), &img, delays[k]).map_err(draw_error)?;
                prev = Some(img);
                k += 1;
            }
        }
        writer.finish().map_err(draw_error)?;
    }
    Ok((out, sampled.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_is_even_bounded_and_keeps_both_ends() {
        let frames: Vec<u32> = (0..201).collect();
        let s = sample_frames(&frames, 100);
        assert_eq!(s.len(), 100);
        assert_eq!((s[0], s[99]), (0, 200));
        assert!(s.windows(2).all(|w| w[1] > w[0] && w[1] - w[0] <= 3));
        assert_eq!(sample_frames(&frames[..7], 100), frames[..7].to_vec());
        assert_eq!(sample_frames(&frames, 1), vec![200]);
        assert_eq!(sample_frames(&frames, 0), vec![200]);
        assert!(sample_frames(&[], 10).is_empty());
        assert_eq!(sample_frames(&[4, 9, 12], 2), vec![4, 12]);
    }

    #[test]
    fn delays_follow_simulated_time_within_bounds() {
        // 4 s in 100 frames: real time, 40 ms a frame, then the hold.
        let times: Vec<f64> = (0..100).map(|k| 4.0 * k as f64 / 99.0).collect();
        let d = frame_delays_ms(&times);
        assert_eq!(d.len(), 100);
        assert!(d[..99].iter().all(|&ms| ms == 40), "{d:?}");
        assert_eq!(d[99], LAST_HOLD_MS);
        // 30 ms of simulation stretched to 2 s; 1,000 s compressed to 10 s.
        assert_eq!(
            frame_delays_ms(&[0.0, 0.015, 0.03]),
            vec![1000, 1000, LAST_HOLD_MS]
        );
        let long: Vec<f64> = (0..=100).map(|k| 10.0 * k as f64).collect();
        assert!(frame_delays_ms(&long)[..100].iter().all(|&ms| ms == 100));
        assert_eq!(frame_delays_ms(&[1.0]), vec![LAST_HOLD_MS]);
        assert_eq!(frame_delays_ms(&[1.0, 1.0]), vec![DELAY_MS.0, LAST_HOLD_MS]);
        assert!(frame_delays_ms(&[]).is_empty());
    }

    fn image(w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 3]) -> Image {
        Image {
            width: w,
            height: h,
            rgb: (0..h)
                .flat_map(|y| (0..w).map(move |x| (x, y)))
                .flat_map(|(x, y)| f(x, y))
                .collect(),
        }
    }

    #[test]
    fn changed_rectangle_is_the_tightest_box() {
        let a = image(20, 10, |_, _| [9, 9, 9]);
        let b = image(20, 10, |x, y| {
            if (3..7).contains(&x) && (2..5).contains(&y) {
                [9, 8, 9]
            } else {
                [9, 9, 9]
            }
        });
        assert_eq!(changed_rect(&a, &b), Some((3, 2, 4, 3)));
        assert_eq!(changed_rect(&a, &a), None);
    }

    /// Decodes every frame with the `png` crate and composes them as a viewer does
    /// (dispose none, blend source): the pictures shown.
    fn shown(bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut r = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .unwrap();
        let (w, h) = (r.info().width as usize, r.info().height as usize);
        let n = r.info().animation_control().unwrap().num_frames;
        let mut canvas = vec![0u8; 3 * w * h];
        let mut out = Vec::new();
        let mut buf = vec![0; r.output_buffer_size()];
        for _ in 0..n {
            let info = r.next_frame(&mut buf).unwrap();
            let fc = r.info().frame_control().copied().unwrap();
            let (fw, fh) = (info.width as usize, info.height as usize);
            for y in 0..fh {
                let src = &buf[3 * y * fw..3 * (y + 1) * fw];
                let at = 3 * ((fc.y_offset as usize + y) * w + fc.x_offset as usize);
                canvas[at..at + 3 * fw].copy_from_slice(src);
            }
            out.push(canvas.clone());
        }
        out
    }

    #[test]
    fn apng_round_trips_frames_stored_as_changed_rectangles() {
        let frames: Vec<Image> = (0..5)
            .map(|k| {
                image(32, 24, move |x, y| {
                    if x / 4 == k && y > 10 {
                        [200, 30, 30]
                    } else {
                        [255, 255, 255]
                    }
                })
            })
            .collect();
        let mut same = frames.clone();
        same.push(frames[4].clone());
        let bytes = apng_bytes(&same, &[40, 40, 40, 40, 40, 1000]).unwrap();
        let shown = shown(&bytes);
        assert_eq!(shown.len(), 6);
        for (s, f) in shown.iter().zip(&same) {
            assert_eq!(s, &f.rgb);
        }
        // Much smaller than six whole frames stored raw.
        assert!(bytes.len() < 6 * 32 * 24 * 3 / 4, "{} bytes", bytes.len());
        assert!(apng_bytes(&[], &[]).unwrap().is_empty());
    }
}
