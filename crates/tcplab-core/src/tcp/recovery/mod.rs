//! Loss recovery: which ACKs count as duplicates, when an episode starts, how cwnd moves inside
//! it, and when it ends (ns-3's TcpRecoveryOps, Linux's CA_Recovery state). The socket keeps the
//! sequence space and performs every transmission; a scheme answers with decisions. A new scheme
//! is one file here plus one arm of [`AnyRecovery`].

mod newreno;
mod prr;
mod rack;
mod reno;
mod sack;

pub use newreno::NewReno;
pub use prr::Prr;
pub use rack::Rack;
pub use reno::Reno;
pub use sack::Sack;

use super::cc::Window;
use super::config::{RecoverBoundary, TcpConfig, Variant};
use super::scoreboard::{NextSeg, Scoreboard};

/// The sender's sequence space as a scheme sees it (RFC 6675 §2 names in comments).
#[derive(Clone, Copy, Debug)]
pub struct Seq {
    /// HighACK + 1.
    pub snd_una: u64,
    /// HighData + 1.
    pub snd_max: u64,
    pub mss: u64,
    pub dupthresh: u32,
}

impl Seq {
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }
}

#[cfg(test)]
impl Seq {
    /// [snd_una, snd_max) with a 1000-byte MSS and DupThresh 3: the schemes' unit tests.
    pub(crate) fn test(snd_una: u64, snd_max: u64) -> Seq {
        Seq {
            snd_una,
            snd_max,
            mss: 1000,
            dupthresh: 3,
        }
    }
}

/// The first retransmission of an episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstRetransmit {
    /// The first unacknowledged segment (RFC 5681 §3.2 step 2).
    Head,
    /// [seq, seq + len): the first lost run (RFC 6675 §5 (4.3)).
    Range { seq: u64, len: u64 },
}

/// What an ACK of new data inside an episode does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckOutcome {
    /// The episode is over; cwnd has been set for the time after it.
    Exit,
    /// Still recovering: retransmit the head (NewReno partial ACK) and/or restart the timer.
    Stay {
        retransmit_head: bool,
        restart_timer: bool,
    },
}

pub trait LossRecovery {
    fn name(&self) -> &'static str;

    fn in_recovery(&self) -> bool;

    /// RFC 6675 §2: an ACK carrying new SACK information is a duplicate acknowledgment "even if
    /// it ... moves the cumulative acknowledgment point". RFC 5681 §2's definition otherwise.
    fn sack_dupacks(&self) -> bool {
        false
    }

    /// Whether the `dupacks`-th duplicate ACK starts an episode: the threshold (or RFC 6675's
    /// IsLost) and the guard against a second reduction for one window of losses.
    fn should_enter(&self, dupacks: u32, s: &Seq, sb: &Scoreboard) -> bool;

    /// Starts an episode. The socket has already set ssthresh; the scheme sets cwnd and says
    /// what to retransmit first.
    fn enter(&mut self, s: &Seq, sb: &Scoreboard, w: &mut Window) -> FirstRetransmit;

    /// A duplicate ACK during the episode.
    fn on_dupack(&mut self, w: &mut Window);

    /// An ACK of `acked` new bytes during the episode (`s.snd_una` is already the new ACK).
    fn on_ack(&mut self, s: &Seq, acked: u64, w: &mut Window) -> AckOutcome;

    /// The retransmission timer expired: any episode ends, and `recover` = HighData (RFC 6582 §3.2
    /// step 4, RFC 6675 §5.1) so that the go-back-N duplicates do not start another.
    fn on_timeout(&mut self, s: &Seq);

    /// The episode was spurious and its reduction undone (RFC 3708 with DSACK, RFC 3522 with
    /// timestamps): it ends here, leaving cwnd as the socket restored it.
    fn abandon(&mut self);
}

/// RFC 6582 §3.2 step 2 / RFC 6675 §5: may a new episode start, given `recover`?
pub(crate) fn beyond_recover(boundary: RecoverBoundary, snd_una: u64, recover: u64) -> bool {
    match boundary {
        RecoverBoundary::Inclusive => snd_una > recover,
        RecoverBoundary::Strict => snd_una - 1 > recover,
    }
}

/// The built-in schemes, dispatched by `match`.
#[derive(Clone, Debug)]
pub enum AnyRecovery {
    Reno(Reno),
    NewReno(NewReno),
    Sack(Sack),
    Rack(Rack),
}

impl AnyRecovery {
    /// `iss`: the initial send sequence number, where `recover` starts (RFC 6582 §3.2).
    pub fn new(cfg: &TcpConfig, iss: u64) -> AnyRecovery {
        match cfg.recovery_kind() {
            Variant::Reno => AnyRecovery::Reno(Reno::default()),
            Variant::NewReno => AnyRecovery::NewReno(NewReno::new(cfg, iss)),
            Variant::Sack => AnyRecovery::Sack(Sack::new(cfg, iss)),
            Variant::Rack => AnyRecovery::Rack(Rack::new(cfg, iss)),
        }
    }

    pub fn get(&self) -> &dyn LossRecovery {
        match self {
            AnyRecovery::Reno(r) => r,
            AnyRecovery::NewReno(r) => r,
            AnyRecovery::Sack(r) => r,
            AnyRecovery::Rack(r) => r,
        }
    }

    pub fn get_mut(&mut self) -> &mut dyn LossRecovery {
        match self {
            AnyRecovery::Reno(r) => r,
            AnyRecovery::NewReno(r) => r,
            AnyRecovery::Sack(r) => r,
            AnyRecovery::Rack(r) => r,
        }
    }

    /// Whether an episode drives transmission by pipe (RFC 6675 §5 step (C)) now.
    pub fn pipe_driven(&self) -> bool {
        match self {
            AnyRecovery::Sack(s) => s.in_recovery(),
            AnyRecovery::Rack(r) => r.in_recovery(),
            _ => false,
        }
    }

    /// Octets in flight as the pipe-driven schemes count them (RFC 6675 SetPipe, RACK's marks);
    /// FlightSize for the others.
    pub fn pipe(&self, s: &Seq, sb: &Scoreboard) -> u64 {
        match self {
            AnyRecovery::Sack(r) => r.pipe(s, sb),
            AnyRecovery::Rack(r) => r.pipe(s),
            _ => s.flight_size(),
        }
    }

    /// NextSeg() of the pipe-driven schemes.
    pub fn next_seg(&self, s: &Seq, sb: &Scoreboard, can_send_new: bool) -> NextSeg {
        match self {
            AnyRecovery::Sack(r) => r.next_seg(s, sb, can_send_new),
            AnyRecovery::Rack(r) => r.next_seg(can_send_new),
            _ => NextSeg::Nothing,
        }
    }

    /// Records a retransmission NextSeg chose (RACK learns of it through `on_sent`).
    pub fn on_retransmitted(&mut self, seq: u64, len: u64, rescue: bool) {
        if let AnyRecovery::Sack(r) = self {
            r.on_retransmitted(seq, len, rescue);
        }
    }

    /// RFC 6937 state of a scheme that uses it.
    pub fn prr_mut(&mut self) -> Option<&mut Prr> {
        match self {
            AnyRecovery::Sack(r) => r.prr_mut(),
            AnyRecovery::Rack(r) => r.prr_mut(),
            _ => None,
        }
    }

    pub fn rack_mut(&mut self) -> Option<&mut Rack> {
        match self {
            AnyRecovery::Rack(r) => Some(r),
            _ => None,
        }
    }
}
