//! Seeded random triangle pairs covering the hard cases of a triangle–triangle kernel:
//! generic, near contact, parallel, coplanar, touching, intersecting, sliver/degenerate,
//! 1:1000 sizes and nearly parallel edges. Shared by the tests and the benchmarks.
#![allow(dead_code)]

use msdem_geom::math::{Tri, P32};
use rand::Rng;

/// Kinds of generated pairs.
pub const CATEGORIES: [&str; 9] = [
    "generic",
    "near-contact",
    "parallel",
    "coplanar",
    "touching",
    "intersecting",
    "sliver/degenerate",
    "size 1:1000",
    "near-parallel edges",
];

fn add(a: P32, b: P32) -> P32 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn sub(a: P32, b: P32) -> P32 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn mul(a: P32, s: f32) -> P32 {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn dot(a: P32, b: P32) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: P32, b: P32) -> P32 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn unit(a: P32) -> P32 {
    let l = dot(a, a).sqrt();
    if l > 0.0 {
        mul(a, 1.0 / l)
    } else {
        [0.0, 0.0, 1.0]
    }
}

/// Uniform random unit vector.
pub fn dir<R: Rng>(rng: &mut R) -> P32 {
    loop {
        let v = [
            rng.gen_range(-1.0f32..1.0),
            rng.gen_range(-1.0f32..1.0),
            rng.gen_range(-1.0f32..1.0),
        ];
        let l = dot(v, v);
        if l > 1e-4 && l <= 1.0 {
            return mul(v, 1.0 / l.sqrt());
        }
    }
}

/// A random triangle of size ~`s` around `c`.
pub fn tri_around<R: Rng>(rng: &mut R, c: P32, s: f32) -> Tri {
    Tri::new(
        add(c, mul(dir(rng), s * rng.gen_range(0.3f32..1.0))),
        add(c, mul(dir(rng), s * rng.gen_range(0.3f32..1.0))),
        add(c, mul(dir(rng), s * rng.gen_range(0.3f32..1.0))),
    )
}

/// A random point of triangle `t`.
pub fn point_on<R: Rng>(rng: &mut R, t: &Tri) -> P32 {
    let (mut u, mut v) = (rng.gen::<f32>(), rng.gen::<f32>());
    if u + v > 1.0 {
        u = 1.0 - u;
        v = 1.0 - v;
    }
    add(
        t.v[0],
        add(mul(sub(t.v[1], t.v[0]), u), mul(sub(t.v[2], t.v[0]), v)),
    )
}

/// Unit normal of `t` (any unit vector if degenerate).
pub fn normal(t: &Tri) -> P32 {
    unit(cross(sub(t.v[1], t.v[0]), sub(t.v[2], t.v[0])))
}

/// A triangle "above" point `x` along `n`: one vertex at `x`, the others further along `n`
/// (so its closest point to anything below is near `x`).
fn tri_above<R: Rng>(rng: &mut R, x: P32, n: P32, s: f32) -> Tri {
    let mut far = || {
        let d = dir(rng);
        let d = unit(add(d, mul(n, dot(d, n).abs() + rng.gen_range(0.0f32..0.5))));
        add(x, mul(d, s * rng.gen_range(0.3f32..1.0)))
    };
    let (b, c) = (far(), far());
    Tri::new(x, b, c)
}

/// One pair of category `cat` (index into [`CATEGORIES`]) for halo width `eps` [m]
/// (unit-sized triangles).
pub fn pair<R: Rng>(rng: &mut R, cat: usize, eps: f32) -> (Tri, Tri) {
    let c0 = [
        rng.gen_range(-3.0f32..3.0),
        rng.gen_range(-3.0f32..3.0),
        rng.gen_range(-3.0f32..3.0),
    ];
    let t1 = tri_around(rng, c0, 1.0);
    let gap = |rng: &mut R| rng.gen_range(0.0f32..5.0) * eps;
    match cat {
        0 => {
            let c = add(c0, mul(dir(rng), rng.gen_range(0.0f32..2.0)));
            (t1, tri_around(rng, c, 1.0))
        }
        1 => {
            let x = point_on(rng, &t1);
            let n = if rng.gen_bool(0.5) {
                let s = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
                mul(normal(&t1), s)
            } else {
                dir(rng)
            };
            let g = gap(rng);
            (t1, tri_above(rng, add(x, mul(n, g)), n, 1.0))
        }
        2 | 3 => {
            let n = normal(&t1);
            let g = if cat == 2 { gap(rng) } else { 0.0 };
            let shift = mul(dir(rng), rng.gen_range(0.0f32..1.0));
            let shift = sub(shift, mul(n, dot(shift, n)));
            let tilt = if cat == 2 && rng.gen_bool(0.5) {
                rng.gen_range(-1e-3f32..1e-3)
            } else {
                0.0
            };
            let mut t2 = t1;
            for (k, v) in t2.v.iter_mut().enumerate() {
                let lift = g + if k == 0 { tilt } else { 0.0 };
                *v = add(add(*v, shift), mul(n, lift));
            }
            if rng.gen_bool(0.5) {
                t2.v.swap(1, 2);
            }
            (t1, t2)
        }
        4 => {
            let n = mul(normal(&t1), if rng.gen_bool(0.5) { 1.0 } else { -1.0 });
            let x = match rng.gen_range(0..3) {
                0 => t1.v[rng.gen_range(0..3)],
                1 => {
                    let k = rng.gen_range(0..3);
                    let s = rng.gen::<f32>();
                    add(t1.v[k], mul(sub(t1.v[(k + 1) % 3], t1.v[k]), s))
                }
                _ => point_on(rng, &t1),
            };
            (t1, tri_above(rng, x, n, 1.0))
        }
        5 => {
            let x = point_on(rng, &t1);
            let n = normal(&t1);
            let a = add(x, mul(n, rng.gen_range(0.05f32..0.5)));
            let b = sub(
                add(x, mul(dir(rng), 0.3)),
                mul(n, rng.gen_range(0.05f32..0.5)),
            );
            let c = add(x, mul(dir(rng), rng.gen_range(0.1f32..0.8)));
            (t1, Tri::new(a, b, c))
        }
        6 => {
            let a = t1.v[0];
            let b = t1.v[1];
            let s = rng.gen_range(-0.5f32..1.5);
            let mut c = add(a, mul(sub(b, a), s));
            match rng.gen_range(0..4) {
                0 => {}
                1 => c = add(c, mul(dir(rng), 1e-6)),
                2 => c = a,
                _ => c = add(c, mul(dir(rng), 1e-3)),
            }
            let deg = Tri::new(a, b, c);
            let x = point_on(rng, &deg);
            let n = dir(rng);
            let g = gap(rng);
            let other = tri_above(rng, add(x, mul(n, g)), n, 1.0);
            if rng.gen_bool(0.5) {
                (deg, other)
            } else {
                (other, deg)
            }
        }
        7 => {
            let big = tri_around(rng, c0, 1000.0);
            let x = point_on(rng, &big);
            let n = mul(normal(&big), if rng.gen_bool(0.5) { 1.0 } else { -1.0 });
            let n = if rng.gen_bool(0.3) { dir(rng) } else { n };
            let g = gap(rng);
            let small = tri_above(rng, add(x, mul(n, g)), n, 1.0);
            if rng.gen_bool(0.5) {
                (big, small)
            } else {
                (small, big)
            }
        }
        _ => {
            // Two edges nearly parallel at distance ~gap, bodies on opposite sides.
            let e = dir(rng);
            let m = unit(cross(e, dir(rng)));
            let tilt = unit(add(e, mul(dir(rng), rng.gen_range(0.0f32..0.05))));
            let o = mul(dir(rng), 0.3);
            let a0 = sub(c0, mul(e, 0.5));
            let a1 = add(c0, mul(e, 0.5));
            let t1 = Tri::new(
                a0,
                a1,
                sub(c0, add(mul(m, 0.7), mul(e, rng.gen::<f32>() - 0.5))),
            );
            let g = gap(rng);
            let base = add(add(c0, mul(m, g)), mul(sub(o, mul(m, dot(o, m))), 0.5));
            let b0 = sub(base, mul(tilt, 0.5));
            let b1 = add(base, mul(tilt, 0.5));
            let t2 = Tri::new(
                b0,
                b1,
                add(base, add(mul(m, 0.7), mul(e, rng.gen::<f32>() - 0.5))),
            );
            (t1, t2)
        }
    }
}
