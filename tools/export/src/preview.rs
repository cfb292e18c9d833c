//! Preview pictures: orthographic camera from a fixed oblique direction, fitted to the
//! particles and to the obstacles near them, Lambert shading by face normal, particles
//! coloured by id and obstacles grey, drawn with the z-buffer rasteriser of
//! [`crate::raster`], with the simulated time written in the top left corner. Obstacles
//! are grey, a different grey for each ([`obstacle_color`]).
//!
//! Obstacles are clipped to a box around the particles ([`focus_box`]): a 14 m ground
//! under a heap of 5 cm grains would otherwise fill the picture and leave the grains a
//! few pixels each. The region shown is the particles' bounding box grown by a margin of
//! [`FOCUS_MARGIN`] of its largest extent plus [`FOCUS_PARTICLES`] of the largest
//! particle's size; without particles the whole obstacle geometry is shown. Particles
//! that would still be smaller than [`MIN_PARTICLE_PX`] on screen are drawn enlarged to
//! that size (an overview, not a measurement: the VTK and PLY files hold the true
//! geometry).

use nalgebra::Vector3;

use msdem_frames::Frame;

use crate::fonts::{draw_text, text_available};
use crate::raster::{Image, Raster};
use crate::run_reader::RunFolder;
use crate::scene::{for_each_posed_particle, Soup};

/// Direction from the scene towards the camera (unit after normalisation): from the −y
/// side, above, slightly from +x.
pub const EYE_DIRECTION: [f64; 3] = [0.45, -1.0, 0.7];
/// Direction towards the key light (unit after normalisation).
pub const LIGHT_DIRECTION: [f64; 3] = [0.3, -0.6, 1.0];
/// Background colour.
pub const BACKGROUND: [u8; 3] = [255, 255, 255];
/// Base colour of the first obstacle.
pub const OBSTACLE_GREY: [u8; 3] = [165, 165, 165];
/// Grey levels of obstacles, by index (cycled): neighbouring obstacles (a staircase and
/// the ground under it, both facing up) differ in brightness.
pub const OBSTACLE_GREYS: [u8; 4] = [165, 215, 135, 190];
/// Free border around the fitted scene \[px\].
pub const MARGIN: f64 = 12.0;
/// Margin around the particles' bounding box, as a fraction of its largest extent.
pub const FOCUS_MARGIN: f64 = 0.05;
/// Margin around the particles' bounding box, in sizes (bounding-box diagonals) of the
/// largest particle.
pub const FOCUS_PARTICLES: f64 = 1.0;
/// Particles whose bounding box is smaller on screen than this many pixels (largest
/// edge) are drawn enlarged about their centre to this size, so that every particle shows
/// as more than a dot in an overview of a large scene.
pub const MIN_PARTICLE_PX: f64 = 8.0;

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

/// Base colour of obstacle `index` (a grey, [`OBSTACLE_GREYS`]).
pub fn obstacle_color(index: u32) -> [u8; 3] {
    [OBSTACLE_GREYS[index as usize % OBSTACLE_GREYS.len()]; 3]
}

/// An axis-aligned box \[m\].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub lo: [f64; 3],
    /// Largest corner.
    pub hi: [f64; 3],
}

impl Aabb {
    /// The box around the finite points of `points` (`None` without any).
    pub fn of_points<'a>(points: impl IntoIterator<Item = &'a [f64; 3]>) -> Option<Aabb> {
        let mut b: Option<Aabb> = None;
        for p in points {
            if p.iter().all(|v| v.is_finite()) {
                b = Some(match b {
                    None => Aabb { lo: *p, hi: *p },
                    Some(b) => b.including(p),
                });
            }
        }
        b
    }

    fn including(self, p: &[f64; 3]) -> Aabb {
        Aabb {
            lo: [0, 1, 2].map(|k| self.lo[k].min(p[k])),
            hi: [0, 1, 2].map(|k| self.hi[k].max(p[k])),
        }
    }

    /// The smallest box holding both.
    pub fn union(self, other: Aabb) -> Aabb {
        self.including(&other.lo).including(&other.hi)
    }

    /// Largest edge length \[m\].
    pub fn extent(&self) -> f64 {
        (0..3).map(|k| self.hi[k] - self.lo[k]).fold(0.0, f64::max)
    }

    /// Length of the diagonal \[m\].
    pub fn diagonal(&self) -> f64 {
        (0..3)
            .map(|k| (self.hi[k] - self.lo[k]).powi(2))
            .sum::<f64>()
            .sqrt()
    }

    /// The box grown by `by` on every side.
    pub fn grown(&self, by: f64) -> Aabb {
        Aabb {
            lo: self.lo.map(|v| v - by),
            hi: self.hi.map(|v| v + by),
        }
    }

    /// The eight corners.
    pub fn corners(&self) -> [[f64; 3]; 8] {
        std::array::from_fn(|i| {
            [0, 1, 2].map(|k| {
                if i >> k & 1 == 1 {
                    self.hi[k]
                } else {
                    self.lo[k]
                }
            })
        })
    }
}

/// Where the particles of a soup are: their bounding box and the largest particle's size
/// (bounding-box diagonal; a particle is a run of points with one owner).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParticleExtent {
    /// Box around every particle point.
    pub bounds: Aabb,
    /// Diagonal of the largest particle's box \[m\].
    pub largest: f64,
}

impl ParticleExtent {
    /// The extent of the particles in `soup` (`None` without a finite point).
    pub fn of(soup: &Soup) -> Option<ParticleExtent> {
        let bounds = Aabb::of_points(&soup.points)?;
        let mut largest = 0.0f64;
        let mut start = 0;
        for i in 1..=soup.points.len() {
            let end_of_run =
                i == soup.points.len() || soup.point_owner.get(i) != soup.point_owner.get(start);
            if end_of_run {
                if let Some(b) = Aabb::of_points(&soup.points[start..i]) {
                    largest = largest.max(b.diagonal());
                }
                start = i;
            }
        }
        Some(ParticleExtent { bounds, largest })
    }

    /// The extent of the particles of `frame` of `run` (as [`ParticleExtent::of`] of
    /// its posed soup, one particle at a time).
    pub fn of_frame(run: &RunFolder, frame: &Frame) -> Option<ParticleExtent> {
        let mut out: Option<ParticleExtent> = None;
        for_each_posed_particle(run, frame, |_, points, _| {
            if let Some(bounds) = Aabb::of_points(points) {
                let p = ParticleExtent {
                    bounds,
                    largest: bounds.diagonal(),
                };
                out = Some(out.map_or(p, |o| o.union(p)));
            }
        });
        out
    }

    /// The extent holding both.
    pub fn union(self, other: ParticleExtent) -> ParticleExtent {
        ParticleExtent {
            bounds: self.bounds.union(other.bounds),
            largest: self.largest.max(other.largest),
        }
    }
}

/// The region a preview shows around particles of extent `p` (see the module
/// documentation).
pub fn focus_box(p: &ParticleExtent) -> Aabb {
    let margin = FOCUS_MARGIN * p.bounds.extent() + FOCUS_PARTICLES * p.largest;
    // A single point (zero-size particles): still a region of positive size.
    let margin = if margin > 0.0 {
        margin
    } else {
        1e-3_f64.max(1e-6 * p.bounds.lo.iter().fold(0.0, |a: f64, v| a.max(v.abs())))
    };
    p.bounds.grown(margin)
}

/// Keeps the part of convex polygon `poly` on the side `sign · (p[axis] − at) ≥ 0`.
fn clip_plane(poly: &[[f64; 3]], axis: usize, at: f64, sign: f64) -> Vec<[f64; 3]> {
    let mut out = Vec::with_capacity(poly.len() + 1);
    for (i, &cur) in poly.iter().enumerate() {
        let prev = poly[(i + poly.len() - 1) % poly.len()];
        let (dc, dp) = (sign * (cur[axis] - at), sign * (prev[axis] - at));
        if (dc >= 0.0) != (dp >= 0.0) {
            let t = dp / (dp - dc);
            out.push([0, 1, 2].map(|k| prev[k] + (cur[k] - prev[k]) * t));
        }
        if dc >= 0.0 {
            out.push(cur);
        }
    }
    out
}

/// The triangles of `soup` clipped to box `b` (Sutherland–Hodgman against its six faces,
/// the remaining polygons split into fans), owners kept.
pub fn clip_soup(soup: &Soup, b: &Aabb) -> Soup {
    let mut out = Soup::default();
    for (t, &owner) in soup.triangles.iter().zip(&soup.triangle_owner) {
        let Some(tri) = t
            .iter()
            .map(|&i| soup.points.get(i as usize).copied())
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        let mut poly = tri;
        for axis in 0..3 {
            poly = clip_plane(&poly, axis, b.lo[axis], 1.0);
            poly = clip_plane(&poly, axis, b.hi[axis], -1.0);
            if poly.is_empty() {
                break;
            }
        }
        if poly.len() < 3 {
            continue;
        }
        let base = out.points.len() as u32;
        out.points.extend_from_slice(&poly);
        out.point_owner
            .extend(std::iter::repeat_n(owner, poly.len()));
        for k in 1..poly.len() as u32 - 1 {
            out.triangles.push([base, base + k, base + k + 1]);
            out.triangle_owner.push(owner);
        }
    }
    out
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
    screen: [f64; 2],
}

impl Camera {
    /// Fits the view of every point of `soups` into a `width × height` picture.
    pub fn fit(soups: &[&Soup], width: u32, height: u32) -> Camera {
        Camera::fit_points(soups.iter().flat_map(|s| &s.points), width, height, 0.0)
    }

    /// Fits the view of `points` into a `width × height` picture less a band of `top`
    /// pixels at the top (kept free for a label).
    pub fn fit_points<'a>(
        points: impl IntoIterator<Item = &'a [f64; 3]>,
        width: u32,
        height: u32,
        top: f64,
    ) -> Camera {
        let eye = Vector3::from(EYE_DIRECTION).normalize();
        let forward = -eye;
        let right = forward.cross(&Vector3::z()).normalize();
        let up = right.cross(&forward);
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for p in points {
            let p = Vector3::from(*p);
            if !p.iter().all(|v| v.is_finite()) {
                continue;
            }
            for (k, axis) in [right, up].iter().enumerate() {
                lo[k] = lo[k].min(p.dot(axis));
                hi[k] = hi[k].max(p.dot(axis));
            }
        }
        let top = top.clamp(0.0, f64::from(height) / 2.0);
        let size = [f64::from(width), f64::from(height) - top];
        let screen = [size[0] / 2.0, top + size[1] / 2.0];
        let (centre, scale) = if lo[0] <= hi[0] {
            let ext = [hi[0] - lo[0], hi[1] - lo[1]];
            let fit = |k: usize| (size[k] - 2.0 * MARGIN).max(1.0) / ext[k].max(1e-300);
            let scale = fit(0).min(fit(1));
            (
                [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0],
                if scale.is_finite() { scale } else { 1.0 },
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
            screen,
        }
    }

    /// Screen position `(x, y)` \[px\] (y downwards) and depth along the view \[m\].
    pub fn project(&self, p: [f64; 3]) -> [f64; 3] {
        let p = Vector3::from(p);
        [
            (p.dot(&self.right) - self.centre[0]) * self.scale + self.screen[0],
            self.screen[1] - (p.dot(&self.up) - self.centre[1]) * self.scale,
            p.dot(&self.forward),
        ]
    }
}

/// Lambert shading of a face: ambient, a key light and a weaker head light (both
/// two-sided), so that faces of different orientation (treads, risers and sides of a
/// staircase) get clearly different brightness.
fn shade(base: [u8; 3], a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> [u8; 3] {
    static LIGHTS: std::sync::LazyLock<[Vector3<f64>; 2]> = std::sync::LazyLock::new(|| {
        [
            Vector3::from(LIGHT_DIRECTION).normalize(),
            Vector3::from(EYE_DIRECTION).normalize(),
        ]
    });
    let [key, head] = *LIGHTS;
    let (a, b, c) = (Vector3::from(a), Vector3::from(b), Vector3::from(c));
    let n = (b - a).cross(&(c - a));
    let k = if n.norm() > 0.0 && n.norm().is_finite() {
        let n = n.normalize();
        0.28 + 0.52 * n.dot(&key).abs() + 0.2 * n.dot(&head).abs()
    } else {
        0.28
    };
    base.map(|ch| (f64::from(ch) * k.min(1.0)).round() as u8)
}

/// Draws `triangles` (indices into `points`, world coordinates), triangle `k` in the
/// shaded colour `color(k)`; `screen` is scratch space. Triangles with an index out of
/// range are skipped.
fn draw_triangles(
    r: &mut Raster,
    cam: &Camera,
    points: &[[f64; 3]],
    triangles: &[[u32; 3]],
    color: impl Fn(usize) -> [u8; 3],
    screen: &mut Vec<[f64; 3]>,
) {
    screen.clear();
    screen.extend(points.iter().map(|&p| cam.project(p)));
    for (k, t) in triangles.iter().enumerate() {
        let [a, b, c] = t.map(|i| i as usize);
        let (Some(pa), Some(pb), Some(pc)) = (points.get(a), points.get(b), points.get(c)) else {
            continue;
        };
        let v = [screen[a], screen[b], screen[c]];
        // Most triangles of a large scene cover no pixel centre: skip their shading.
        if !r.may_cover(v) {
            continue;
        }
        let col = shade(color(k), *pa, *pb, *pc);
        r.fill_triangle(v, col);
    }
}

fn draw(r: &mut Raster, cam: &Camera, soup: &Soup, color: impl Fn(u32) -> [u8; 3]) {
    let owner = |k: usize| color(soup.triangle_owner.get(k).copied().unwrap_or(0));
    draw_triangles(
        r,
        cam,
        &soup.points,
        &soup.triangles,
        owner,
        &mut Vec::new(),
    );
}

/// `points` of one particle scaled about their box centre so that the box's largest
/// edge is `min_size` when it is smaller (and not zero).
fn enlarge_particle(points: &mut [[f64; 3]], min_size: f64) {
    if !(min_size > 0.0 && min_size.is_finite()) {
        return;
    }
    let Some(b) = Aabb::of_points(points.iter()) else {
        return;
    };
    let size = b.extent();
    if size >= min_size || size <= 0.0 {
        return;
    }
    let f = min_size / size;
    let c: [f64; 3] = std::array::from_fn(|k| 0.5 * (b.lo[k] + b.hi[k]));
    for p in points {
        *p = std::array::from_fn(|k| c[k] + (p[k] - c[k]) * f);
    }
}

/// `soup` with every particle (run of points with one owner) whose bounding box's
/// largest edge is below `min_size` scaled about its box centre to that size; `None`
/// when no particle needs it.
fn enlarged(soup: &Soup, min_size: f64) -> Option<Soup> {
    if !(min_size > 0.0 && min_size.is_finite()) {
        return None;
    }
    let mut out: Option<Soup> = None;
    let mut start = 0;
    for i in 1..=soup.points.len() {
        let end_of_run =
            i == soup.points.len() || soup.point_owner.get(i) != soup.point_owner.get(start);
        if !end_of_run {
            continue;
        }
        let run = start..i;
        start = i;
        let mut points = soup.points[run.clone()].to_vec();
        enlarge_particle(&mut points, min_size);
        if points != soup.points[run.clone()] {
            out.get_or_insert_with(|| soup.clone()).points[run].copy_from_slice(&points);
        }
    }
    out
}

/// Font size \[px\] of the time label in a picture `height` pixels high.
pub fn label_size(height: u32) -> u32 {
    (height / 24).clamp(10, 32)
}

/// The time label of a frame at `time` \[s\] in a run writing a frame every `interval`
/// seconds: "t = 1.234 s", with as many decimals as the interval needs (3 to 9).
pub fn time_label(time: f64, interval: f64) -> String {
    let digits = if interval > 0.0 && interval.is_finite() {
        (-interval.log10()).ceil().clamp(3.0, 9.0) as usize
    } else {
        3
    };
    format!("t = {time:.digits$} s")
}

/// A fixed view of a scene: the camera, fitted to the particles and the obstacles near
/// them, and the obstacles drawn once.
#[derive(Clone, Debug)]
pub struct View {
    /// The camera.
    pub camera: Camera,
    /// The obstacles inside the focus box, drawn (colour and depth).
    background: Raster,
    label_size: u32,
}

impl View {
    /// A `width × height` view of particles of extent `particles` (every frame the view
    /// is used for; `None`: no particles) and of `obstacles` clipped to the
    /// [`focus_box`], with a band at the top for a label when `label` is set.
    pub fn fit(
        particles: Option<ParticleExtent>,
        obstacles: &Soup,
        width: u32,
        height: u32,
        label: bool,
    ) -> View {
        let label_size = if label && text_available() {
            label_size(height)
        } else {
            0
        };
        let top = if label_size > 0 {
            f64::from(label_size) * 1.3 + 2.0
        } else {
            0.0
        };
        let (camera, near) = match particles {
            Some(p) => {
                let focus = focus_box(&p);
                let near = clip_soup(obstacles, &focus);
                let corners = p.bounds.corners();
                let cam =
                    Camera::fit_points(corners.iter().chain(&near.points), width, height, top);
                (cam, near)
            }
            None => (
                Camera::fit_points(&obstacles.points, width, height, top),
                obstacles.clone(),
            ),
        };
        let mut background = Raster::new(width, height, BACKGROUND);
        draw(&mut background, &camera, &near, obstacle_color);
        View {
            camera,
            background,
            label_size,
        }
    }

    /// The picture of `particles` (coloured by id; those smaller than
    /// [`MIN_PARTICLE_PX`] enlarged) in this view, with `label` (if any) in the top left
    /// corner.
    pub fn render(&self, particles: &Soup, label: Option<&str>) -> Image {
        let mut r = self.background.clone();
        let min_size = MIN_PARTICLE_PX / self.camera.scale;
        match enlarged(particles, min_size) {
            Some(big) => draw(&mut r, &self.camera, &big, particle_color),
            None => draw(&mut r, &self.camera, particles, particle_color),
        }
        self.finish(r, label)
    }

    /// The picture of the particles of `frame` of `run` in this view, as
    /// [`View::render`] of [`crate::scene::pose_particles`]'s soup (the same bytes), but
    /// posing and drawing one particle at a time.
    pub fn render_frame(&self, run: &RunFolder, frame: &Frame, label: Option<&str>) -> Image {
        let mut r = self.background.clone();
        let min_size = MIN_PARTICLE_PX / self.camera.scale;
        let (mut points, mut screen) = (Vec::new(), Vec::new());
        for_each_posed_particle(run, frame, |id, posed, triangles| {
            points.clear();
            points.extend_from_slice(posed);
            enlarge_particle(&mut points, min_size);
            let color = particle_color(id);
            draw_triangles(
                &mut r,
                &self.camera,
                &points,
                triangles,
                |_| color,
                &mut screen,
            );
        });
        self.finish(r, label)
    }

    fn finish(&self, r: Raster, label: Option<&str>) -> Image {
        let mut img = r.into_image();
        if let (Some(text), true) = (label, self.label_size > 0) {
            // The font's ink starts about a sixth of its size below the requested top.
            let (x, y) = (
                MARGIN as i32 / 2,
                (MARGIN as i32 + self.label_size as i32) / 4,
            );
            draw_text(&mut img, text, x, y, self.label_size);
        }
        img
    }
}

/// Renders particles (coloured by id) and the obstacles near them (grey) into a
/// `width × height` image, with `label` (the time) in the top left corner; returns the
/// image and the camera used.
pub fn render_preview_labelled(
    particles: &Soup,
    obstacles: &Soup,
    width: u32,
    height: u32,
    label: Option<&str>,
) -> (Image, Camera) {
    let view = View::fit(
        ParticleExtent::of(particles),
        obstacles,
        width,
        height,
        label.is_some(),
    );
    (view.render(particles, label), view.camera)
}

/// [`render_preview_labelled`] without a label.
pub fn render_preview(
    particles: &Soup,
    obstacles: &Soup,
    width: u32,
    height: u32,
) -> (Image, Camera) {
    render_preview_labelled(particles, obstacles, width, height, None)
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

    fn merge(soups: &[Soup]) -> Soup {
        let mut out = Soup::default();
        for s in soups {
            let base = out.points.len() as u32;
            out.points.extend(&s.points);
            out.point_owner.extend(&s.point_owner);
            out.triangles
                .extend(s.triangles.iter().map(|t| t.map(|i| i + base)));
            out.triangle_owner.extend(&s.triangle_owner);
        }
        out
    }

    fn argmax(c: [u8; 3]) -> usize {
        (0..3).max_by_key(|&k| c[k]).unwrap()
    }

    fn grey(p: &[u8]) -> bool {
        p[0] == p[1] && p[1] == p[2]
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
        for (z, visible) in [(0.3, true), (-0.3, false)] {
            let particle = cube([0.0, 0.0, z], 0.5, 3);
            let (img, cam) = render_preview(&particle, &plane(0.0, 5.0), w, h);
            let c = cam.project([0.0, 0.0, z]);
            let px = img.pixel(c[0] as u32, c[1] as u32);
            assert_eq!(!grey(&px), visible, "cube at z = {z}: pixel {px:?}");
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

    /// Issue 17: a 14 m ground filled the picture and the particles were dots.
    #[test]
    fn small_particles_on_a_huge_ground_fill_a_substantial_part_of_the_picture() {
        let (w, h) = (1024, 768);
        let grains: Vec<Soup> = (0..9)
            .map(|i| {
                let (x, y) = ((i % 3) as f64 * 0.2, (i / 3) as f64 * 0.2);
                cube([x - 0.2, y - 0.2, 0.025], 0.05, i)
            })
            .collect();
        let particles = merge(&grains);
        let ground = plane(0.0, 500.0);
        let (img, cam) = render_preview_labelled(&particles, &ground, w, h, Some("t = 1.234 s"));
        let (mut lo, mut hi) = ([u32::MAX; 2], [0u32; 2]);
        let mut coloured = 0;
        for y in 0..h {
            for x in 0..w {
                if !grey(&img.pixel(x, y)) {
                    coloured += 1;
                    lo = [lo[0].min(x), lo[1].min(y)];
                    hi = [hi[0].max(x), hi[1].max(y)];
                }
            }
        }
        let bbox = f64::from(hi[0] - lo[0] + 1) * f64::from(hi[1] - lo[1] + 1);
        let fraction = bbox / f64::from(w * h);
        assert!(
            fraction >= 0.25,
            "particles' box covers {fraction:.3} of the image"
        );
        // Every grain is big: 5 cm at ≥ 1,000 px/m.
        assert!(cam.scale * 0.05 > 50.0, "{} px per grain", cam.scale * 0.05);
        assert!(coloured > 9 * 2_000, "{coloured} particle pixels");
        // The ground is shown around them, but not to the horizon: background remains.
        let bg = img.rgb.chunks(3).filter(|p| *p == BACKGROUND).count();
        let ground_px = img
            .rgb
            .chunks(3)
            .filter(|p| grey(p) && *p != BACKGROUND)
            .count();
        assert!(
            bg > 10_000 && ground_px > 50_000,
            "{bg} background, {ground_px} ground"
        );
    }

    #[test]
    fn the_time_label_sits_in_a_band_the_scene_leaves_free() {
        let (w, h) = (640, 480);
        let particles = cube([0.0, 0.0, 0.5], 1.0, 2);
        let (img, _) =
            render_preview_labelled(&particles, &plane(0.0, 3.0), w, h, Some("t = 1.234 s"));
        let band = (f64::from(label_size(h)) * 1.3) as u32;
        let (tw, _) = crate::fonts::text_size("t = 1.234 s", label_size(h));
        let mut dark = 0;
        for y in 0..band {
            for x in 0..w {
                let p = img.pixel(x, y);
                assert!(grey(&p), "scene in the label band at ({x}, {y})");
                if p[0] < 100 {
                    dark += 1;
                    assert!(x < tw + MARGIN as u32, "text at ({x}, {y})");
                }
            }
        }
        assert!(dark > 100, "{dark} dark label pixels");
        let (plain, _) = render_preview(&particles, &plane(0.0, 3.0), w, h);
        assert_ne!(plain, img);
    }

    #[test]
    fn treads_risers_and_sides_are_shaded_apart() {
        let base = OBSTACLE_GREY;
        let tread = shade(base, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        let riser = shade(base, [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
        let side = shade(base, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]);
        let l = |c: [u8; 3]| i32::from(c[0]);
        assert!(l(tread) - l(side) >= 15, "{tread:?} {side:?}");
        assert!(l(side) - l(riser) >= 15, "{side:?} {riser:?}");
        // Orientation of the triangle does not matter (two-sided).
        let flipped = shade(base, [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]);
        assert_eq!(tread, flipped);
    }

    #[test]
    fn clipping_keeps_exactly_the_part_inside_the_box() {
        let big = plane(0.0, 100.0);
        let b = Aabb {
            lo: [-1.0, -2.0, -0.5],
            hi: [3.0, 0.5, 0.5],
        };
        let c = clip_soup(&big, &b);
        let area: f64 = c
            .triangles
            .iter()
            .map(|t| {
                let p = t.map(|i| Vector3::from(c.points[i as usize]));
                0.5 * (p[1] - p[0]).cross(&(p[2] - p[0])).norm()
            })
            .sum();
        assert!((area - 4.0 * 2.5).abs() < 1e-9, "{area}");
        for p in &c.points {
            for k in 0..3 {
                assert!(p[k] >= b.lo[k] - 1e-12 && p[k] <= b.hi[k] + 1e-12, "{p:?}");
            }
        }
        assert_eq!(c.triangles.len(), c.triangle_owner.len());
        // Entirely outside: nothing.
        let far = Aabb {
            lo: [0.0, 0.0, 1.0],
            hi: [1.0, 1.0, 2.0],
        };
        assert!(clip_soup(&big, &far).triangles.is_empty());
    }

    #[test]
    fn degenerate_scenes_render_without_failing() {
        let empty = Soup::default();
        let (img, _) = render_preview_labelled(&empty, &empty, 64, 48, Some("t = 0.000 s"));
        assert_eq!(img.rgb.len(), 3 * 64 * 48);
        // No particles: the obstacles are shown whole.
        let (img, _) = render_preview(&empty, &plane(0.0, 10.0), 64, 48);
        assert!(img.rgb.chunks(3).any(|p| p != BACKGROUND));
        // A particle of one point, and a 1 × 1 picture.
        let dot = Soup {
            points: vec![[1.0, 2.0, 3.0]; 3],
            triangles: vec![[0, 1, 2]],
            point_owner: vec![0; 3],
            triangle_owner: vec![0],
        };
        render_preview_labelled(&dot, &plane(0.0, 10.0), 1, 1, Some("t"));
        // Bad indices are skipped, not a panic.
        let bad = Soup {
            triangles: vec![[0, 1, 99]],
            triangle_owner: vec![0],
            ..dot.clone()
        };
        render_preview(&bad, &bad, 32, 32);
        clip_soup(
            &bad,
            &Aabb {
                lo: [0.0; 3],
                hi: [5.0; 3],
            },
        );
    }

    #[test]
    fn time_labels_have_the_decimals_the_frame_interval_needs() {
        assert_eq!(time_label(1.234_49, 0.02), "t = 1.234 s");
        assert_eq!(time_label(4.0, 0.02), "t = 4.000 s");
        assert_eq!(time_label(0.000_15, 5e-5), "t = 0.00015 s");
        assert_eq!(time_label(2.5, 0.0), "t = 2.500 s");
        assert_eq!(time_label(2.5, f64::NAN), "t = 2.500 s");
    }

    #[test]
    fn tiny_particles_are_drawn_at_least_the_minimum_size_and_big_ones_as_they_are() {
        // A 1 mm grain next to a 1 m boulder: the grain would be a pixel.
        let particles = merge(&[
            cube([0.0, 0.0, 0.5], 1.0, 0),
            cube([3.0, 0.0, 0.0005], 0.001, 1),
        ]);
        let (w, h) = (400, 300);
        let (img, cam) = render_preview(&particles, &Soup::default(), w, h);
        assert!(cam.scale * 0.001 < 1.0);
        let grain = particle_color(1);
        let n = img
            .rgb
            .chunks(3)
            .filter(|p| argmax([p[0], p[1], p[2]]) == argmax(grain) && *p != BACKGROUND)
            .count() as f64;
        // The enlarged cube's silhouette: (|e_x| + |e_y| + |e_z|) · MIN_PARTICLE_PX².
        let e = Vector3::from(EYE_DIRECTION).normalize();
        let expected = (e.x.abs() + e.y.abs() + e.z.abs()) * MIN_PARTICLE_PX * MIN_PARTICLE_PX;
        assert!(
            n > 0.5 * expected && n < 2.0 * expected,
            "{n} px, expected ≈ {expected}"
        );
        let big = enlarged(&particles, MIN_PARTICLE_PX / cam.scale).unwrap();
        assert_eq!(
            big.points[..8],
            particles.points[..8],
            "the boulder unchanged"
        );
        assert!(enlarged(&cube([0.0; 3], 1.0, 0), 0.5).is_none());
    }

    /// A run of `n` particles of two shapes (a sphere and a 2 mm grain) over a plane.
    fn small_run(n: usize) -> (RunFolder, Frame) {
        use msdem_frames::*;
        let sphere = msdem_mesh::generate::icosphere(0.05, 2).unwrap();
        let grain = msdem_mesh::generate::icosphere(0.001, 1).unwrap();
        let shape = |name: &str, mesh: &msdem_mesh::TriMesh| ShapeRecord {
            name: name.into(),
            mesh: String::new(),
            mesh_hash: [0; 32],
            com: [0.0, 0.0, 0.001],
            triangles: mesh.triangles.len() as u32,
            ellipsoid: None,
        };
        let manifest = RunManifest {
            name: "small".into(),
            dt: 1e-4,
            output_every: 10,
            shapes: vec![shape("sphere", &sphere), shape("grain", &grain)],
            obstacles: vec![],
            particles: (0..n)
                .map(|i| ParticleRecord {
                    shape: (i % 2) as u32,
                    mass: 1.0,
                    radius: 0.05,
                    epsilon: 1e-3,
                    material: 0,
                    inertia: [[1e-3, 0.0, 0.0], [0.0, 1e-3, 0.0], [0.0, 0.0, 1e-3]],
                })
                .collect(),
            levels: 3,
        };
        let bodies = (0..n)
            .map(|i| {
                let a = 0.3 * i as f64;
                BodyState {
                    position: [0.12 * (i % 5) as f64, 0.12 * (i / 5) as f64, 0.05],
                    orientation: [a.cos(), 0.0, a.sin(), 0.0],
                    velocity: [0.0; 3],
                    angular_velocity: [0.0; 3],
                }
            })
            .collect();
        let run = RunFolder {
            root: ".".into(),
            manifest,
            shape_meshes: vec![sphere, grain],
            obstacle_meshes: vec![],
            frames: vec![0],
        };
        let frame = Frame {
            step: 0,
            time: 0.0,
            loads: vec![BodyLoad::default(); n],
            bodies,
            contacts: Vec::new(),
        };
        (run, frame)
    }

    #[test]
    fn particle_by_particle_rendering_equals_rendering_the_posed_soup() {
        let (run, frame) = small_run(20);
        let posed = crate::scene::pose_particles(&run, &frame).soup;
        let extent = ParticleExtent::of(&posed);
        assert_eq!(ParticleExtent::of_frame(&run, &frame), extent);
        let view = View::fit(extent, &plane(0.0, 50.0), 320, 240, true);
        let a = view.render(&posed, Some("t = 0.000 s"));
        let b = view.render_frame(&run, &frame, Some("t = 0.000 s"));
        assert!(a == b, "different pixels");
        // The 2 mm grains were enlarged (else they would be a pixel or two).
        let grain = particle_color(1);
        let n = a
            .rgb
            .chunks(3)
            .filter(|p| argmax([p[0], p[1], p[2]]) == argmax(grain) && !grey(p))
            .count();
        assert!(n > 10, "{n}");
        let none = small_run(0);
        assert_eq!(ParticleExtent::of_frame(&none.0, &none.1), None);
    }
}
