//! Stamps the build with a hash of the simulator's sources (`TCPLAB_SOURCE_HASH`), so that a
//! results store never serves a run simulated by different code under the same version string
//! (`api::VERSION` = package version + "+" + this hash).

use std::fs;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// FNV-1a, 64 bits: stable across toolchains, unlike the standard library's hasher.
fn fnv(h: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *h ^= b as u64;
        *h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    println!("cargo:rerun-if-changed=src");
    let mut all = Vec::new();
    files(&src, &mut all);
    all.sort();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for p in &all {
        let rel = p.strip_prefix(root).unwrap_or(p);
        fnv(&mut h, rel.to_string_lossy().as_bytes());
        fnv(&mut h, &fs::read(p).unwrap_or_default());
    }
    println!("cargo:rustc-env=TCPLAB_SOURCE_HASH={:012x}", h >> 16);
}
