//! Process statistics for measurement examples, read from Linux `/proc/self` (no-ops
//! elsewhere): resident memory, its high-water mark and CPU time of all threads.

/// A `kB` field of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`, ...).
pub fn status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line
        .trim_start_matches(field)
        .trim_start_matches(':')
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// Current resident set \[bytes\].
pub fn rss() -> Option<u64> {
    status_bytes("VmRSS")
}

/// Peak resident set since start or since the last [`reset_peak`] \[bytes\].
pub fn peak() -> Option<u64> {
    status_bytes("VmHWM")
}

/// Resets `VmHWM` to the current resident set (Linux ≥ 4.0: `5` into `clear_refs`);
/// false where that is refused.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// CPU time of every live thread of the process \[s\]: the sum over
/// `/proc/self/task/*/schedstat` of the time spent on a CPU (ns).
pub fn cpu_seconds() -> Option<f64> {
    let mut ns: u64 = 0;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let path = task.ok()?.path().join("schedstat");
        let text = std::fs::read_to_string(path).ok()?;
        ns += text.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(ns as f64 * 1e-9)
}

/// Bytes as MiB text, or `?` when unknown.
pub fn mib(bytes: Option<u64>) -> String {
    bytes.map_or("?".into(), |b| format!("{:.1} MiB", b as f64 / 1048576.0))
}
