//! `tcplab-emu CONFIG.json`: one emulated point-to-point link between two network namespaces,
//! for `tcplab validate linux` (docs/validation/linux.md). It creates a TUN device in each end's
//! namespace, prints `ready`, starts the clock on `start` (stdin), and moves packets between the
//! two devices through a drop-tail or RED queue, serialisation at the link rate, propagation
//! delay, the loss model and the outage schedule of the scenario's link, per direction.

mod config;
mod direction;
mod event_loop;
mod tun;

use std::process::ExitCode;

use config::EmuConfig;
use event_loop::Emulator;
use tcplab_core::trace::PcapWriter;
use tun::Tun;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("tcplab-emu: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let path = match std::env::args().nth(1) {
        Some(p) if p != "-h" && p != "--help" => p,
        _ => {
            return Err("usage: tcplab-emu CONFIG.json (written by `tcplab validate linux`)".into())
        }
    };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let cfg = EmuConfig::parse(&text)?;
    let dirs = cfg.directions()?;
    // SAFETY: prctl with integer arguments only. The emulator dies with its controller, so a
    // killed `tcplab validate` leaves no emulator (and hence no TUN device) behind; 1 ns of timer
    // slack lets the timerfd wake us at the deadline instead of up to 50 µs after it.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
        libc::prctl(libc::PR_SET_TIMERSLACK, 1);
    }
    let realtime = realtime_priority();
    let tuns = [
        Tun::create_in(&cfg.ends[0].netns, &cfg.ends[0].ifname).map_err(|e| e.to_string())?,
        Tun::create_in(&cfg.ends[1].netns, &cfg.ends[1].ifname).map_err(|e| e.to_string())?,
    ];
    let pcap = match &cfg.pcap {
        Some(p) => Some(
            PcapWriter::create(std::path::Path::new(p), 65_535).map_err(|e| format!("{p}: {e}"))?,
        ),
        None => None,
    };
    Emulator {
        tuns,
        dirs,
        pcap,
        t0: None,
        before_start: 0,
        write_errors: 0,
        timing: Default::default(),
        realtime,
    }
    .run()
    .map_err(|e| e.to_string())
}

/// Asks for SCHED_FIFO (sched(7)): on a busy machine an ordinary process waits behind others for
/// milliseconds after its timer fires; a real-time one runs at once. The loop sleeps in
/// epoll_wait between packets, so it takes no more CPU than before (and the kernel's real-time
/// throttling bounds it if it ever spun). Without the privilege it runs as an ordinary process,
/// and its report says so.
fn realtime_priority() -> bool {
    let param = libc::sched_param { sched_priority: 10 };
    // SAFETY: sets this process's own scheduling policy from a local sched_param.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}
