//! Preview picture of one frame: orthographic camera from a fixed oblique direction,
//! auto-fitted to the scene bounds, flat Lambert shading, particles coloured by id and
//! obstacles grey, drawn with the z-buffer rasteriser of [`crate::raster`].

use nalgebra::Vector3;

use crate::raster::{Image, Raster};
use crate::scene::Soup;

/// Direction from the scene towards the camera (unit after normalisation): from the −y
/// side, above, slightly from +x.
pub const EYE_DIRECTION: [f64; 3] = [0.45, -1.0, 0.7];
/// Background colour.
pub const BACKGROUND: [u8; 3] = [255, 255, 255];
/// Base colour of obstacles.
pub const OBSTACLE_GREY: [u8; 3] = [165, 165, 165];
/// Free border around the fitted scene \[px\].
pub const MARGIN: f64 = 12.0;

/// Base colour of particle `id`: hues spread by the golden ratio, saturated and bright.
pub fn particle_color(id: u32) -> [u8; 3] {
    let h = (f64::from(id) * 0.618_033_988_749_895 + 0.05).fract() * 6.0;
    let (s, v) = (0.75, 0.95);
    let c = v * s;
    let x = c * (1.0 - (h % 2.0 - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    let q = |t: f64| ((t + m) * 255.0).round() as u8;
    [q(r), q(g), q(b)]
}

/// Orthographic camera: world → `(x, y, depth)` in pixels, pixels and metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    right: Vector3<f64>,
    up: Vector3<f64>,
    forward: Vector3<f64>,
    centre: [f64; 2],
    /// Pixels per metre.
    pub scale: f64,
    size: [f64; 2],
}

impl Camera {
    /// Fits the view of every point of `soups` into a `width × height` picture.
    pub fn fit(soups: &[&Soup], width: u32, height: u32) -> Camera {
        let eye = Vector3::from(EYE_DIRECTION).normalize();
        let forward = -eye;
        let right = forward.cross(&Vector3::z()).normalize();
        let up = right.cross(&forward);
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for p in soups.iter().flat_map(|s| &s.points) {
            let p = Vector3::from(*p);
            for (k, axis) in [right, up].iter().enumerate() {
                lo[k] = lo[k].min(p.dot(axis));
                hi[k] = hi[k].max(p.dot(axis));
            }
        }
        let size = [f64::from(width), f64::from(height)];
        let (centre, scale) = if lo[0] <= hi[0] {
            let ext = [hi[0] - lo[0], hi[1] - lo[1]];
            let fit = |k: usize| (size[k] - 2.0 * MARGIN).max(1.0) / ext[k].max(1e-300);
            (
                [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0],
                fit(0).min(fit(1)),
            )
        } else {
            ([0.0; 2], 1.0)
        };
        Camera {
            right,
            up,
            forward,
            centre,
            scale,
            size,
        }
    }

    /// Screen position `(x, y)` \[px\] (y downwards) and depth along the view \[m\].
    pub fn project(&self, p: [f64; 3]) -> [f64; 3] {
        let p = Vector3::from(p);
        [
            (p.dot(&self.right) - self.centre[0]) * self.scale + self.size[0] / 2.0,
            self.size[1] / 2.0 - (p.dot(&self.up) - self.centre[1]) * self.scale,
            p.dot(&self.forward),
        ]
    }
}

fn shade(base: [u8; 3], a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> [u8; 3] {
    let (a, b, c) = (Vector3::from(a), Vector3::from(b), Vector3::from(c));
    let n = (b - a).cross(&(c - a));
    let light = Vector3::new(0.3, -0.6, 1.0).normalize();
    let lambert = if n.norm() > 0.0 {
        n.normalize().dot(&light).abs()
    } else {
        0.0
    };
    let k = 0.35 + 0.65 * lambert;
    base.map(|ch| (f64::from(ch) * k).round() as u8)
}

fn draw(r: &mut Raster, cam: &Camera, soup: &Soup, color: impl Fn(u32) -> [u8; 3]) {
    for (t, &owner) in soup.triangles.iter().zip(&soup.triangle_owner) {
        let w = t.map(|i| soup.points[i as usize]);
        let c = shade(color(owner), w[0], w[1], w[2]);
        r.fill_triangle(w.map(|p| cam.project(p)), c);
    }
}

/// Renders particles (coloured by id) and obstacles (grey) into a `width × height` image;
/// returns the image and the camera used.
pub fn render_preview(
    particles: &Soup,
    obstacles: &Soup,
    width: u32,
    height: u32,
) -> (Image, Camera) {
    let cam = Camera::fit(&[particles, obstacles], width, height);
    let mut r = Raster::new(width, height, BACKGROUND);
    draw(&mut r, &cam, obstacles, |_| OBSTACLE_GREY);
    draw(&mut r, &cam, particles, particle_color);
    (r.into_image(), cam)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Axis-aligned cube of side `s` centred at `c`, owned by `owner`.
    pub(crate) fn cube(c: [f64; 3], s: f64, owner: u32) -> Soup {
        let h = s / 2.0;
        let points: Vec<[f64; 3]> = (0..8)
            .map(|i| {
                let sg = |b: u32| if i >> b & 1 == 1 { h } else { -h };
                [c[0] + sg(0), c[1] + sg(1), c[2] + sg(2)]
            })
            .collect();
        let quads = [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ];
        let triangles: Vec<[u32; 3]> = quads
            .iter()
            .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
            .collect();
        Soup {
            point_owner: vec![owner; 8],
            triangle_owner: vec![owner; triangles.len()],
            points,
            triangles,
        }
    }

    fn plane(z: f64, half: f64) -> Soup {
        Soup {
            points: vec![
                [-half, -half, z],
                [half, -half, z],
                [half, half, z],
                [-half, half, z],
            ],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
            point_owner: vec![0; 4],
            triangle_owner: vec![0; 2],
        }
    }

    fn argmax(c: [u8; 3]) -> usize {
        (0..3).max_by_key(|&k| c[k]).unwrap()
    }

    #[test]
    fn cube_silhouette_area_matches_the_projection_formula() {
        // The orthographic shadow of a unit cube along unit direction e has area
        // |e_x| + |e_y| + |e_z| (sum of its three visible faces' projections).
        let (w, h) = (400, 300);
        let (img, cam) = render_preview(&cube([0.3, -0.2, 1.0], 1.0, 0), &Soup::default(), w, h);
        let e = Vector3::from(EYE_DIRECTION).normalize();
        let expected = (e.x.abs() + e.y.abs() + e.z.abs()) * cam.scale * cam.scale;
        let covered = img.rgb.chunks(3).filter(|p| *p != BACKGROUND).count() as f64;
        let perimeter = 6.0 * cam.scale;
        assert!(
            (covered - expected).abs() < 0.02 * expected + perimeter,
            "covered {covered} px, expected {expected} px"
        );
        for (x, y) in [(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)] {
            assert_eq!(img.pixel(x, y), BACKGROUND);
        }
        let c = cam.project([0.3, -0.2, 1.0]);
        let px = img.pixel(c[0] as u32, c[1] as u32);
        assert_ne!(px, BACKGROUND);
        assert_eq!(argmax(px), argmax(particle_color(0)));
        for p in img.rgb.chunks(3).filter(|p| *p != BACKGROUND) {
            assert_eq!(argmax([p[0], p[1], p[2]]), argmax(particle_color(0)));
        }
    }

    #[test]
    fn obstacle_in_front_hides_particle_behind() {
        let (w, h) = (200, 200);
        for (z, visible) in [(1.0, true), (-1.0, false)] {
            let particle = cube([0.0, 0.0, z], 0.5, 3);
            let (img, cam) = render_preview(&particle, &plane(0.0, 5.0), w, h);
            let c = cam.project([0.0, 0.0, z]);
            let px = img.pixel(c[0] as u32, c[1] as u32);
            let grey = px[0] == px[1] && px[1] == px[2];
            assert_eq!(!grey, visible, "cube at z = {z}: pixel {px:?}");
            assert_ne!(px, BACKGROUND);
        }
    }

    #[test]
    fn particle_colours_differ_between_neighbouring_ids() {
        for id in 0..16 {
            assert_ne!(particle_color(id), particle_color(id + 1));
            assert_ne!(particle_color(id), OBSTACLE_GREY);
        }
    }
}
