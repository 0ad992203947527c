//! Output files that appear whole or not at all, under a temporary name that says whose it is.
//!
//! A capture or an event trace (Parquet or ns-2's text) is written to
//! `.<name>.tcplab-<pid>-<start ticks>.tmp` beside its target and renamed over the target only
//! when it is complete ([`OwnedFile::publish`]).
//! Dropped unpublished (a run that fails, is refused or interrupted), the temporary file is
//! removed and the target is left as it was. The name is the one the Python side gives its own
//! temporary files (python/tcplab/_fs.py `temporary_name`): a file a SIGKILLed process left is
//! removed by the next tcplab writing into that folder once its owner is provably gone (no such
//! PID, or one started at another time: `_fs.remove_stale_staging`).

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// `<pid>-<start ticks>` of this process: the start time (clock ticks since boot,
/// `/proc/self/stat` field 22) tells the owner from a later process given the same PID; `0` where
/// there is no /proc. The same tag as python/tcplab/_fs.py `owner_tag`.
pub fn owner_tag() -> String {
    let ticks = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // The command name (field 2) is in parentheses and may hold spaces: count after it.
            let rest = s.rsplit_once(')')?.1.to_owned();
            rest.split_whitespace().nth(19).map(str::to_owned)
        })
        .unwrap_or_else(|| "0".into());
    format!("{}-{ticks}", std::process::id())
}

/// Where `target` is written before it is complete: `.<name>.tcplab-<owner tag>.tmp` beside it.
pub fn temporary_name(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.tcplab-{}.tmp", owner_tag()))
}

/// A file being written under its temporary name; [`publish`](OwnedFile::publish) renames it
/// over the target, dropping it unpublished removes it.
pub struct OwnedFile {
    out: BufWriter<File>,
    tmp: PathBuf,
    target: PathBuf,
    published: bool,
}

impl OwnedFile {
    /// Creates the temporary file of `target` (never an existing one: `create_new`, so a name
    /// planted there, a symlink included, is not followed); the target is not touched yet.
    pub fn create(target: &Path, buffer: usize) -> io::Result<OwnedFile> {
        if target.is_dir() {
            // The rename at the end would fail: say so before anything is written.
            return Err(io::Error::other("a folder has that name"));
        }
        let tmp = temporary_name(target);
        let f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        Ok(OwnedFile {
            out: BufWriter::with_capacity(buffer, f),
            tmp,
            target: target.to_path_buf(),
            published: false,
        })
    }

    /// The temporary name being written.
    pub fn temporary(&self) -> &Path {
        &self.tmp
    }

    /// Flushes the file and renames it over the target. On an error the temporary file is
    /// removed (when `self` drops) and the target is as it was.
    pub fn publish(mut self) -> io::Result<()> {
        self.out.flush()?;
        std::fs::rename(&self.tmp, &self.target)?;
        self.published = true;
        Ok(())
    }
}

impl Write for OwnedFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl Drop for OwnedFile {
    fn drop(&mut self) {
        if !self.published {
            // Unfinished: no partial file may be left under either name.
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("tcplab-owned-file-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn the_temporary_name_says_whose_it_is() {
        let t = temporary_name(Path::new("/x/run.tr"));
        let n = t.file_name().unwrap().to_string_lossy().into_owned();
        let tag = n
            .strip_prefix(".run.tr.tcplab-")
            .and_then(|r| r.strip_suffix(".tmp"))
            .unwrap();
        let (pid, ticks) = tag.split_once('-').unwrap();
        assert_eq!(pid, std::process::id().to_string());
        assert!(
            ticks.bytes().all(|b| b.is_ascii_digit()) && ticks != "0",
            "{tag}"
        );
        assert_eq!(t.parent(), Some(Path::new("/x")));
    }

    #[test]
    fn the_target_appears_only_when_published() {
        let d = scratch("publish");
        let target = d.join("a.pcap");
        let mut f = OwnedFile::create(&target, 16).unwrap();
        f.write_all(&[1u8; 100]).unwrap();
        assert!(!target.exists());
        assert!(f.temporary().exists());
        let tmp = f.temporary().to_path_buf();
        f.publish().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), vec![1u8; 100]);
        assert!(!tmp.exists());
        assert_eq!(names(&d), ["a.pcap"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_unpublished_file_leaves_nothing_and_the_old_target_stays() {
        let d = scratch("drop");
        let target = d.join("run.tr");
        std::fs::write(&target, "old").unwrap();
        {
            let mut f = OwnedFile::create(&target, 16).unwrap();
            f.write_all(b"half a trace").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(names(&d), ["run.tr"]);
        let mut f = OwnedFile::create(&target, 16).unwrap();
        f.write_all(b"new").unwrap();
        f.publish().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(names(&d), ["run.tr"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_name_already_at_the_temporary_path_is_not_followed() {
        let d = scratch("planted");
        let target = d.join("a.pcap");
        let victim = d.join("victim");
        std::fs::write(&victim, "keep").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&victim, temporary_name(&target)).unwrap();
        #[cfg(unix)]
        assert!(OwnedFile::create(&target, 16).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
