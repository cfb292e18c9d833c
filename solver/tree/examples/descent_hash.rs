//! Hash of what the descent returns over 240 queries (development aid: a change to the
//! traversal that must not change its answers is checked by running this before and
//! after): contacts of `find_contacts_boxed` (hybrid) and `find_contacts` (hierarchy,
//! hybrid, no boxes), pairs of `find_pairs_boxed`, and every query's per-level check
//! counts, on 80 random poses of two noisy 1,280-triangle spheres from deep overlap to
//! just apart. Prints one FNV-1a hash per query kind, then the hashes of the answers
//! alone, in order and sorted (for a change that prunes more node pairs: the check counts
//! change, the answers must not).
use msdem_geom::kernel::KernelKind;
use msdem_geom::math::{Iso3, Vec3};
use msdem_mesh::generate::{noise_sphere, NoiseSphere};
use msdem_tree::{
    build_tree, find_contacts, find_contacts_boxed, find_pairs_boxed, BuildParams, LevelStats,
    Mode, NodeBoxes, Scratch,
};
use rand::{Rng, SeedableRng};

fn fnv(h: &mut u64, x: u64) {
    for b in x.to_le_bytes() {
        *h ^= u64::from(b);
        *h = h.wrapping_mul(0x100_0000_01b3);
    }
}

fn stats(h: &mut u64, st: &LevelStats) {
    st.checks.iter().for_each(|&c| fnv(h, c));
    fnv(h, st.fine);
    fnv(h, st.fallbacks);
}

fn main() {
    let m = |seed, eta| {
        noise_sphere(&NoiseSphere {
            radius: 0.5,
            subdivisions: 3,
            eta,
            seed,
            ..Default::default()
        })
        .expect("mesh")
    };
    let p = BuildParams::default();
    let (a, b) = (
        build_tree(&m(1, 1.2), [0; 32], &p).expect("tree"),
        build_tree(&m(2, 1.25), [0; 32], &p).expect("tree"),
    );
    let (ba, bb) = (NodeBoxes::of(&a), NodeBoxes::of(&b));
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
    let eps = 0.01f32;
    let mut h = [0xcbf2_9ce4_8422_2325u64; 3];
    // Answers only: in order, and sorted.
    let mut ho = [0xcbf2_9ce4_8422_2325u64; 3];
    let mut hs = [0xcbf2_9ce4_8422_2325u64; 3];
    let key = |c: &msdem_tree::TriContact| {
        let mut v = vec![c.tri_a, c.tri_b, c.dist.to_bits()];
        v.extend(c.p.iter().chain(&c.q).map(|x| x.to_bits()));
        v
    };
    let answers = |ho: &mut u64, hs: &mut u64, mut v: Vec<Vec<u32>>| {
        v.iter().flatten().for_each(|&x| fnv(ho, u64::from(x)));
        v.sort_unstable();
        v.iter().flatten().for_each(|&x| fnv(hs, u64::from(x)));
    };
    let mut s = Scratch::new();
    let (mut n_contacts, mut n_checks) = (0usize, 0u64);
    for _ in 0..80 {
        let dir = Vec3::new(
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
            rng.gen_range(-1.0..1.0),
        )
        .normalize();
        let rot = Vec3::new(
            rng.gen_range(-3.0..3.0),
            rng.gen_range(-3.0..3.0),
            rng.gen_range(-3.0..3.0),
        );
        let iso = Iso3::new(dir * rng.gen_range(0.9..1.3), rot);
        let mut out = Vec::new();
        let mut st = LevelStats::default();
        find_contacts_boxed(
            (&a, &ba),
            eps,
            (&b, &bb),
            eps,
            &iso,
            KernelKind::Hybrid,
            &mut s,
            &mut out,
            &mut st,
        );
        for c in &out {
            for x in [c.tri_a, c.tri_b, c.dist.to_bits()] {
                fnv(&mut h[0], u64::from(x));
            }
            for k in 0..3 {
                fnv(&mut h[0], u64::from(c.p[k].to_bits()));
                fnv(&mut h[0], u64::from(c.q[k].to_bits()));
            }
        }
        stats(&mut h[0], &st);
        answers(&mut ho[0], &mut hs[0], out.iter().map(key).collect());
        n_contacts += out.len();
        n_checks += st.total();
        out.clear();
        let mut st = LevelStats::default();
        find_contacts(
            &a,
            eps,
            &b,
            eps,
            &iso,
            Mode::Hierarchy,
            KernelKind::Hybrid,
            &mut s,
            &mut out,
            &mut st,
        );
        for c in &out {
            for x in [c.tri_a, c.tri_b, c.dist.to_bits()] {
                fnv(&mut h[1], u64::from(x));
            }
        }
        stats(&mut h[1], &st);
        answers(&mut ho[1], &mut hs[1], out.iter().map(key).collect());
        let mut pairs = Vec::new();
        let mut st = LevelStats::default();
        find_pairs_boxed(
            (&a, &ba),
            eps,
            (&b, &bb),
            eps,
            &iso,
            &mut s,
            &mut pairs,
            &mut st,
        );
        for q in &pairs {
            fnv(&mut h[2], u64::from(q.tri_a));
            fnv(&mut h[2], u64::from(q.tri_b));
        }
        stats(&mut h[2], &st);
        answers(
            &mut ho[2],
            &mut hs[2],
            pairs.iter().map(|q| vec![q.tri_a, q.tri_b]).collect(),
        );
    }
    println!("240 queries, {n_contacts} boxed contacts, {n_checks} boxed checks");
    println!(
        "contacts_boxed {:016x}\ncontacts {:016x}\npairs_boxed {:016x}",
        h[0], h[1], h[2]
    );
    println!(
        "answers in order: {:016x} {:016x} {:016x}\nanswers sorted: {:016x} {:016x} {:016x}",
        ho[0], ho[1], ho[2], hs[0], hs[1], hs[2]
    );
}
