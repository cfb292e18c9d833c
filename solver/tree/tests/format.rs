//! Tree file: round trip, refusal of wrong / truncated / corrupt / stale files.

use msdem_mesh::generate::{noise_sphere, NoiseSphere};
use msdem_tree::format::{FORMAT_VERSION, MAGIC};
use msdem_tree::{
    build_tree, encode_tree, load_tree, read_tree, write_tree, BuildParams, SurrogateTree,
    TreeError,
};
use std::path::Path;

fn tree() -> (SurrogateTree, BuildParams) {
    let m = noise_sphere(&NoiseSphere {
        subdivisions: 2,
        eta: 1.2,
        ..Default::default()
    })
    .unwrap();
    let p = BuildParams {
        seed: 5,
        ..Default::default()
    };
    (build_tree(&m, [9; 32], &p).unwrap(), p)
}

fn refused(bytes: &[u8], dir: &Path, needle: &str) {
    let path = dir.join("bad.tree");
    std::fs::write(&path, bytes).unwrap();
    let e = read_tree(&path).unwrap_err().to_string();
    assert!(e.contains("bad.tree") && e.contains(needle), "{e}");
}

#[test]
fn write_read_write_gives_identical_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (t, p) = tree();
    let path = dir.path().join("a.tree");
    write_tree(&path, &t, &p).unwrap();
    let (t2, p2) = read_tree(&path).unwrap();
    assert_eq!(t2, t);
    assert_eq!(p2, p);
    let path2 = dir.path().join("b.tree");
    write_tree(&path2, &t2, &p2).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&path2).unwrap()
    );
    // Nothing but the two files was left behind (no temporaries).
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    assert_eq!(load_tree(&path, Some([9; 32])).unwrap(), t);
    assert_eq!(load_tree(&path, None).unwrap(), t);
}

#[test]
fn wrong_magic_version_truncation_and_corruption_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (t, p) = tree();
    let good = encode_tree(&t, &p);
    assert_eq!(&good[..8], MAGIC);

    let mut b = good.clone();
    b[0] = b'X';
    refused(&b, dir.path(), "bad magic");
    refused(b"MSDEM", dir.path(), "bad magic");

    let mut b = good.clone();
    b[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    refused(&b, dir.path(), &format!("version {}", FORMAT_VERSION + 1));
    // A file of the previous format version is refused with a rebuild hint.
    let mut b = good.clone();
    b[8..12].copy_from_slice(&(FORMAT_VERSION - 1).to_le_bytes());
    refused(&b, dir.path(), "rebuild it with `treebuild`");

    refused(&good[..good.len() - 1], dir.path(), "truncated or corrupt");
    refused(&good[..good.len() / 2], dir.path(), "truncated or corrupt");
    refused(&good[..10], dir.path(), "truncated");

    for at in [20, 100, good.len() / 2, good.len() - 40, good.len() - 3] {
        let mut b = good.clone();
        b[at] ^= 0x10;
        refused(&b, dir.path(), "checksum mismatch");
    }
    let e = read_tree(&dir.path().join("missing.tree")).unwrap_err();
    assert!(matches!(e, TreeError::Io { .. }) && e.to_string().contains("missing.tree"));
}

#[test]
fn stale_tree_is_refused_with_a_rebuild_hint() {
    let dir = tempfile::tempdir().unwrap();
    let (t, p) = tree();
    let path = dir.path().join("s.tree");
    write_tree(&path, &t, &p).unwrap();
    let e = load_tree(&path, Some([1; 32])).unwrap_err().to_string();
    assert!(
        e.contains("s.tree") && e.contains("stale") && e.contains("treebuild"),
        "{e}"
    );
}

#[test]
fn failed_write_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (t, p) = tree();
    let path = dir.path().join("no/such/dir/x.tree");
    assert!(write_tree(&path, &t, &p).is_err());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
