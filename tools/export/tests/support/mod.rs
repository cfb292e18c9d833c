//! Helpers shared by the export end-to-end tests: the files of an output folder, PNG
//! decoding, the Python interpreter of the reader scripts, byte-for-byte folder comparison.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Every file below `dir`, sorted by path.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Asserts that folders `a` and `b` hold the same file names with the same bytes;
/// `label` names the case in the failure message.
pub fn assert_same_files(a: &Path, b: &Path, label: &str) {
    let (fa, fb) = (files_under(a), files_under(b));
    assert_eq!(fa.len(), fb.len(), "{label}: file counts differ");
    for (x, y) in fa.iter().zip(&fb) {
        assert_eq!(x.strip_prefix(a).unwrap(), y.strip_prefix(b).unwrap());
        assert!(
            std::fs::read(x).unwrap() == std::fs::read(y).unwrap(),
            "{} ({label})",
            x.display()
        );
    }
}

/// Width, height and RGB bytes of the PNG at `path` (must be RGB, 8 bits).
pub fn decode_png(path: &Path) -> (u32, u32, Vec<u8>) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb, "{}", path.display());
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// `$MSDEM_PYTHON`, else `python3`; fails (never skips) when `module` is not importable.
pub fn python_with(module: &str) -> String {
    let py = std::env::var("MSDEM_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let ok = Command::new(&py)
        .args(["-c", &format!("import {module}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        ok,
        "`{py} -c 'import {module}'` failed: run `make pyenv` and set \
         MSDEM_PYTHON=.venv/bin/python (make test does both)"
    );
    py
}
