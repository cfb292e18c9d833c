//! Thread-CPU time and medians: other processes on a busy machine do not count, and the
//! median of many interleaved samples resists their cache and frequency noise.

/// CPU time consumed by the calling thread \[ns\] ([`msdem_benchkit::thread_cpu_ns`]).
pub fn thread_cpu_ns() -> u64 {
    msdem_benchkit::thread_cpu_ns().expect("thread CPU clock")
}

/// Thread-CPU time of `calls` calls of `f`, per call \[ns\].
pub fn per_call_ns(calls: u32, f: &mut dyn FnMut()) -> f64 {
    let t = thread_cpu_ns();
    for _ in 0..calls {
        f();
    }
    (thread_cpu_ns() - t) as f64 / calls as f64
}

/// Calls per sample so that one sample lasts about `target_ns` (at least one call).
pub fn calls_for(single_ns: f64, target_ns: f64) -> u32 {
    (target_ns / single_ns.max(1.0))
        .ceil()
        .clamp(1.0, 100_000.0) as u32
}

/// Median of `v` (mean of the two middle values for an even count; NaN when empty).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => 0.5 * (s[n / 2 - 1] + s[n / 2]),
    }
}
