//! Records the git commit the runner is built from (`MSDEM_GIT_COMMIT`, `unknown` without
//! git) for the run log.

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_owned())
}

fn main() {
    println!("cargo:rerun-if-env-changed=MSDEM_GIT_COMMIT");
    let commit = std::env::var("MSDEM_GIT_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=MSDEM_GIT_COMMIT={commit}");
    // Rebuild when HEAD moves: HEAD itself (branch switch) and the branch's ref.
    let mut watched = vec![git(&["rev-parse", "--git-path", "HEAD"])];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(git(&["rev-parse", "--git-path", &branch]));
        watched.push(git(&["rev-parse", "--git-path", "packed-refs"]));
    }
    for path in watched.into_iter().flatten().map(PathBuf::from) {
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}
