//! The thread-CPU clock of the benchmarks and measuring examples (`docs/performance.md`):
//! CPU time consumed by the calling thread, so that other processes on a shared machine
//! do not count (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`). A dev-dependency only: no
//! solver stage depends on it.

use std::io;

/// CPU time consumed by the calling thread \[ns\].
pub fn thread_cpu_ns() -> io::Result<u64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64)
}

/// CPU time consumed by the calling thread \[s\].
pub fn thread_cpu_s() -> io::Result<f64> {
    thread_cpu_ns().map(|ns| ns as f64 * 1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_counts_this_threads_work_and_not_its_sleep() {
        let t0 = thread_cpu_ns().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(50));
        let slept = thread_cpu_ns().unwrap() - t0;
        let t1 = thread_cpu_ns().unwrap();
        let mut x = 0u64;
        while thread_cpu_ns().unwrap() - t1 < 30_000_000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let worked = thread_cpu_ns().unwrap() - t1;
        assert!(slept < 20_000_000, "50 ms asleep counted {slept} ns");
        assert!(worked >= 30_000_000, "{worked} ns");
        let s = thread_cpu_s().unwrap();
        assert!(s >= worked as f64 * 1e-9, "{s} s");
    }
}
