//! The emulator's loop: epoll over the two TUN devices, one timerfd, a signalfd and stdin.
//!
//! The process sleeps in epoll_wait until a packet comes in or the next deadline of either
//! direction (an arrival at the far end, or the start of the next queued packet) is due; the
//! deadline is an absolute CLOCK_MONOTONIC timerfd and the timer slack is set to 1 ns, so wake-ups
//! land within tens of microseconds of the deadline without spinning. Time zero is the moment the
//! controller writes `start` on stdin (the outage schedule counts from there); EOF on stdin,
//! SIGINT or SIGTERM end the run, and the counters go to stdout as one JSON line.

use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use tcplab_core::trace::PcapWriter;
use tcplab_core::SimTime;

use crate::direction::{DirStats, Direction};
use crate::tun::Tun;

const TOKEN_TUN_A: u64 = 0;
const TOKEN_TUN_B: u64 = 1;
const TOKEN_TIMER: u64 = 2;
const TOKEN_SIGNAL: u64 = 3;
const TOKEN_STDIN: u64 = 4;

pub struct Emulator {
    pub tuns: [Tun; 2],
    pub dirs: [Direction; 2],
    pub pcap: Option<PcapWriter>,
    /// CLOCK_MONOTONIC at `start`; None before it.
    pub t0: Option<u64>,
    /// Packets that arrived before `start` (dropped: the link does not exist yet).
    pub before_start: u64,
    /// Writes into a TUN device that the kernel refused.
    pub write_errors: u64,
    pub timing: Timing,
    /// Whether the loop runs with a real-time priority (main.rs, `realtime_priority`).
    pub realtime: bool,
}

/// How late packets were handed over, against their exact arrival times: the emulator's own
/// timing error (wake-up latency plus the work of the loop).
#[derive(Default, serde::Serialize)]
pub struct Timing {
    pub delivered: u64,
    pub late_total_ns: u64,
    pub late_max_ns: u64,
    /// Packets handed over more than 100 µs / 500 µs after their arrival time.
    pub late_over_100us: u64,
    pub late_over_500us: u64,
}

impl Timing {
    fn record(&mut self, late: u64) {
        self.delivered += 1;
        self.late_total_ns += late;
        self.late_max_ns = self.late_max_ns.max(late);
        self.late_over_100us += u64::from(late > 100_000);
        self.late_over_500us += u64::from(late > 500_000);
    }
}

#[derive(serde::Serialize)]
struct Report<'a> {
    t0_ns: Option<u64>,
    before_start: u64,
    write_errors: u64,
    timing: &'a Timing,
    realtime: bool,
    directions: [&'a DirStats; 2],
}

pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn check(r: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if r < 0 {
        let e = io::Error::last_os_error();
        Err(io::Error::new(e.kind(), format!("{what}: {e}")))
    } else {
        Ok(r)
    }
}

fn owned(fd: libc::c_int) -> OwnedFd {
    // SAFETY: a fresh descriptor returned by the kernel, owned by nobody else.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

fn watch(ep: RawFd, fd: RawFd, token: u64) -> io::Result<()> {
    let mut ev = libc::epoll_event {
        events: libc::EPOLLIN as u32,
        u64: token,
    };
    // SAFETY: registers a descriptor we own with our epoll instance.
    check(
        unsafe { libc::epoll_ctl(ep, libc::EPOLL_CTL_ADD, fd, &mut ev) },
        "epoll_ctl",
    )
    .map(|_| ())
}

/// Blocks SIGINT and SIGTERM and returns a signalfd that reports them.
fn signal_fd() -> io::Result<OwnedFd> {
    // SAFETY: plain signal-set manipulation on a local set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        check(
            libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()),
            "sigprocmask",
        )?;
        let fd = check(
            libc::signalfd(-1, &set, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK),
            "signalfd",
        )?;
        Ok(owned(fd))
    }
}

fn arm(timer: RawFd, at_ns: Option<u64>) -> io::Result<()> {
    // A zero it_value disarms the timer; an absolute time in the past fires at once.
    let at = at_ns.map_or(0, |t| t.max(1));
    let spec = libc::itimerspec {
        it_interval: libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        },
        it_value: libc::timespec {
            tv_sec: (at / 1_000_000_000) as libc::time_t,
            tv_nsec: (at % 1_000_000_000) as libc::c_long,
        },
    };
    // SAFETY: sets our own timerfd from a local itimerspec.
    check(
        unsafe {
            libc::timerfd_settime(timer, libc::TFD_TIMER_ABSTIME, &spec, std::ptr::null_mut())
        },
        "timerfd_settime",
    )
    .map(|_| ())
}

impl Emulator {
    fn now(&self) -> Option<SimTime> {
        self.t0.map(|t0| SimTime(monotonic_ns().saturating_sub(t0)))
    }

    /// Reads every packet waiting on end `k` and offers it to the direction leaving `k`.
    fn ingest(&mut self, k: usize, buf: &mut [u8]) -> io::Result<()> {
        while let Some(n) = self.tuns[k].read(buf)? {
            let Some(now) = self.now() else {
                self.before_start += 1;
                continue;
            };
            if let Some(p) = self.pcap.as_mut() {
                p.record_bytes(now, &buf[..n]);
            }
            self.dirs[k].offer(now, buf[..n].to_vec());
        }
        Ok(())
    }

    /// Delivers what has arrived; returns the next deadline as CLOCK_MONOTONIC.
    fn deliver(&mut self, out: &mut Vec<(SimTime, Vec<u8>)>) -> Option<u64> {
        let (t0, now) = (self.t0?, self.now()?);
        for k in 0..2 {
            self.dirs[k].poll(now, out);
            for (due, pkt) in out.drain(..) {
                self.timing
                    .record(monotonic_ns().saturating_sub(t0 + due.0));
                if self.tuns[1 - k].write(&pkt).is_err() {
                    self.write_errors += 1;
                }
            }
        }
        let next = self.dirs.iter().filter_map(|d| d.next_deadline()).min()?;
        Some(t0 + next.0)
    }

    /// Runs until stdin closes or a signal arrives, then prints the counters.
    pub fn run(mut self) -> io::Result<()> {
        // SAFETY: creating kernel objects; each descriptor is wrapped in an OwnedFd at once.
        let ep = owned(check(
            unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) },
            "epoll_create1",
        )?);
        let timer = owned(check(
            unsafe {
                libc::timerfd_create(
                    libc::CLOCK_MONOTONIC,
                    libc::TFD_CLOEXEC | libc::TFD_NONBLOCK,
                )
            },
            "timerfd_create",
        )?);
        let sig = signal_fd()?;
        watch(ep.as_raw_fd(), self.tuns[0].raw(), TOKEN_TUN_A)?;
        watch(ep.as_raw_fd(), self.tuns[1].raw(), TOKEN_TUN_B)?;
        watch(ep.as_raw_fd(), timer.as_raw_fd(), TOKEN_TIMER)?;
        watch(ep.as_raw_fd(), sig.as_raw_fd(), TOKEN_SIGNAL)?;
        watch(ep.as_raw_fd(), libc::STDIN_FILENO, TOKEN_STDIN)?;
        say("ready")?;

        let mut buf = vec![0u8; 65_536];
        let mut out = Vec::new();
        let mut events = [libc::epoll_event { events: 0, u64: 0 }; 8];
        let mut line = Vec::new();
        'run: loop {
            let next = self.deliver(&mut out);
            arm(timer.as_raw_fd(), next)?;
            // SAFETY: epoll_wait fills at most events.len() entries of our array.
            let n = unsafe {
                libc::epoll_wait(
                    ep.as_raw_fd(),
                    events.as_mut_ptr(),
                    events.len() as libc::c_int,
                    -1,
                )
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            for ev in &events[..n as usize] {
                match ev.u64 {
                    TOKEN_TUN_A => self.ingest(0, &mut buf)?,
                    TOKEN_TUN_B => self.ingest(1, &mut buf)?,
                    TOKEN_TIMER => drain_fd(timer.as_raw_fd(), &mut buf),
                    TOKEN_SIGNAL => break 'run,
                    _ => {
                        // SAFETY: reads into our buffer from stdin.
                        let r = unsafe {
                            libc::read(libc::STDIN_FILENO, buf.as_mut_ptr().cast(), 4096)
                        };
                        if r <= 0 {
                            break 'run;
                        }
                        line.extend_from_slice(&buf[..r as usize]);
                        while let Some(end) = line.iter().position(|&b| b == b'\n') {
                            let cmd: Vec<u8> = line.drain(..=end).collect();
                            if cmd.trim_ascii() == b"start" && self.t0.is_none() {
                                let t0 = monotonic_ns();
                                self.t0 = Some(t0);
                                say(&format!("started {t0}"))?;
                            }
                        }
                    }
                }
            }
        }
        if let Some(p) = self.pcap.take() {
            p.finish()?;
        }
        let report = Report {
            t0_ns: self.t0,
            before_start: self.before_start,
            write_errors: self.write_errors,
            timing: &self.timing,
            realtime: self.realtime,
            directions: [&self.dirs[0].stats, &self.dirs[1].stats],
        };
        say(&serde_json::to_string(&report).map_err(io::Error::other)?)
    }
}

fn drain_fd(fd: RawFd, buf: &mut [u8]) {
    // SAFETY: reads the timerfd's 8-byte expiry count into our buffer.
    unsafe { libc::read(fd, buf.as_mut_ptr().cast(), 8) };
}

fn say(line: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()
}
