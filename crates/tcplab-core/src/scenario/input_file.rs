//! Reading a file a scenario names (today `wlans[].mobility_file`).
//!
//! The name comes from the scenario, which may come from anyone, so the file is read only if it
//! is a regular file on disk of at most [`MAX_INPUT_BYTES`]: a device (`/dev/zero` never ends), a
//! FIFO (blocks forever), a folder or a pseudo-file of `/proc` or `/sys` (`/proc/self/environ`
//! holds secrets and reports size 0) is refused with its name. Errors quote the file's name, never
//! its content.

use std::fs::{self, File};
use std::io::Read;
use std::path::Path;

/// The largest input file read (256 MiB), so that a huge file is refused rather than read into
/// memory. setdest's files are mostly `$god_` lines, which grow with the square of the nodes: a
/// run of `setdest -v 1 -n 100 -p 0 -M 20 -t 900 -x 1000 -y 1000` stopped after 30 s had written
/// 2.1 MB, 99 % of it `$god_` lines.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// The text of the regular file `path`; `what` names it in errors ("movement file").
pub fn read_input_file(path: &Path, what: &str) -> Result<String, String> {
    let name = path.display();
    let meta = fs::metadata(path).map_err(|e| format!("cannot read the {what} '{name}': {e}"))?;
    if meta.is_dir() {
        return Err(format!("'{name}' is a folder; expected a {what}"));
    }
    if !meta.is_file() {
        return Err(format!(
            "'{name}' is not a regular file (a device, FIFO or socket); expected a {what}"
        ));
    }
    if let Ok(real) = fs::canonicalize(path) {
        if ["/proc", "/sys", "/dev"]
            .iter()
            .any(|p| real.starts_with(p))
        {
            return Err(format!(
                "'{name}' is a pseudo-file of the operating system; expected a {what}"
            ));
        }
    }
    too_large(meta.len(), what, &name.to_string())?;
    let file = File::open(path).map_err(|e| format!("cannot read the {what} '{name}': {e}"))?;
    let size = file
        .metadata()
        .map_err(|e| format!("cannot read the {what} '{name}': {e}"))?
        .len();
    let mut bytes = Vec::with_capacity(size.min(MAX_INPUT_BYTES) as usize);
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the {what} '{name}': {e}"))?;
    too_large(bytes.len() as u64, what, &name.to_string())?;
    if bytes.len() as u64 != size {
        return Err(format!(
            "'{name}' changed while it was read, or is not a file on disk (size {size} B, read {} B)",
            bytes.len()
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "'{name}' is not a text file (invalid UTF-8 at byte {}); expected a {what}",
            e.utf8_error().valid_up_to()
        )
    })
}

fn too_large(len: u64, what: &str, name: &str) -> Result<(), String> {
    if len > MAX_INPUT_BYTES {
        return Err(format!(
            "'{name}' is larger than {} MiB, the limit for a {what}",
            MAX_INPUT_BYTES >> 20
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read() {
        let dir = std::env::temp_dir().join(format!("tcplab-input-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let ok = dir.join("moves.txt");
        fs::write(&ok, "$node_(0) set X_ 1\n").unwrap();
        assert_eq!(
            read_input_file(&ok, "movement file").unwrap(),
            "$node_(0) set X_ 1\n"
        );
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let bin = dir.join("bin");
        fs::write(&bin, [0x66, 0xff, 0xfe]).unwrap();
        for (path, needle) in [
            (dir.as_path(), "is a folder"),
            (Path::new("/dev/zero"), "not a regular file"),
            (fifo.as_path(), "not a regular file"),
            (Path::new("/proc/self/environ"), "pseudo-file"),
            (Path::new("/proc/self/status"), "pseudo-file"),
            (bin.as_path(), "invalid UTF-8 at byte 1"),
            (
                Path::new("/no/such/file"),
                "cannot read the movement file '/no/such/file'",
            ),
        ] {
            let e = read_input_file(path, "movement file").unwrap_err();
            assert!(e.contains(needle), "{}: {e}", path.display());
        }
        let big = dir.join("big");
        let f = File::create(&big).unwrap();
        f.set_len(MAX_INPUT_BYTES + 1).unwrap(); // sparse: no disk used
        let e = read_input_file(&big, "movement file").unwrap_err();
        assert!(e.contains("larger than 256 MiB"), "{e}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
