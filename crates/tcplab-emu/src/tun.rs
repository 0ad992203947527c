//! TUN devices created inside named network namespaces.
//!
//! The emulator joins each end's namespace (setns(2)) before it creates that end's device, so the
//! device is born there and no later move is needed; the device lives as long as this process
//! holds its descriptor, so a dead emulator leaves no link behind. No IFF_VNET_HDR and no
//! TUNSETOFFLOAD: the device then offers the kernel no TSO/GSO, so the kernel segments before the
//! device and every packet read here is one IP datagram of at most the MTU.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// _IOW('T', 202, int) from <linux/if_tun.h>.
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// `struct ifreq` as TUNSETIFF reads it: the name, then the flags in the union (40 bytes).
#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

pub struct Tun {
    fd: OwnedFd,
}

impl Tun {
    /// Creates the TUN device `ifname` in the namespace at `netns` (e.g. /run/netns/NAME).
    pub fn create_in(netns: &str, ifname: &str) -> io::Result<Tun> {
        let ns = File::open(netns)
            .map_err(|e| io::Error::new(e.kind(), format!("namespace {netns}: {e}")))?;
        // SAFETY: setns on a descriptor we own; it changes only this thread's namespace.
        if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(context(format!("setns({netns})")));
        }
        if ifname.is_empty() || ifname.len() >= libc::IFNAMSIZ {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("interface name {ifname:?}: 1 to 15 bytes"),
            ));
        }
        // SAFETY: a plain open(2) of a device node with a NUL-terminated path.
        let raw = unsafe {
            libc::open(
                c"/dev/net/tun".as_ptr(),
                libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        };
        if raw < 0 {
            return Err(context("open /dev/net/tun".into()));
        }
        // SAFETY: `raw` is a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut req = IfReq {
            name: [0; libc::IFNAMSIZ],
            flags: IFF_TUN | IFF_NO_PI,
            _pad: [0; 22],
        };
        req.name[..ifname.len()].copy_from_slice(ifname.as_bytes());
        // SAFETY: TUNSETIFF reads an ifreq, which `req` is laid out as.
        if unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF, &mut req) } != 0 {
            return Err(context(format!("TUNSETIFF {ifname} in {netns}")));
        }
        Ok(Tun { fd })
    }

    pub fn raw(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// One packet, or None when none is waiting.
    pub fn read(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: reads at most buf.len() bytes into buf.
        let n = unsafe { libc::read(self.raw(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::WouldBlock {
            Ok(None)
        } else {
            Err(e)
        }
    }

    /// Hands one packet to the kernel of this device's namespace.
    pub fn write(&self, pkt: &[u8]) -> io::Result<()> {
        // SAFETY: writes pkt.len() bytes from pkt.
        let n = unsafe { libc::write(self.raw(), pkt.as_ptr().cast(), pkt.len()) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }
}

fn context(what: String) -> io::Error {
    let e = io::Error::last_os_error();
    io::Error::new(e.kind(), format!("{what}: {e}"))
}
