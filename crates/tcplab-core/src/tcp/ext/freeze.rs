//! Freeze-TCP (Goff, Moronski, Phatak, Gupta, INFOCOM 2000; ALGORITHMS.md §5.5), receiver side
//! only. A warning period before a predicted disconnection (the `LinkDown` notice, published
//! the WLAN's `signals.lead` before each scheduled outage of the receiver's station) the
//! receiver advertises a zero window at once, which puts the sender in persist with cwnd and RTO
//! frozen. On reconnection (`LinkUp`) it sends `reconnection_acks` copies of the ACK of its last
//! received segment with the window open again (the TR-ACKs).

use super::{Ctx, Extension, FreezeParams, Notice, Response, SenderEvent};

#[derive(Clone, Debug)]
pub struct Freeze {
    p: FreezeParams,
    /// Advertising a zero window.
    zero: bool,
}

impl Freeze {
    pub fn new(p: FreezeParams) -> Freeze {
        Freeze { p, zero: false }
    }
}

impl Extension for Freeze {
    fn name(&self) -> &'static str {
        "freeze"
    }

    fn window(&self, rcv_wnd: u64) -> u64 {
        if self.zero {
            0
        } else {
            rcv_wnd
        }
    }

    fn on_event(&mut self, ev: SenderEvent, _cx: &Ctx) -> Response {
        match ev {
            // The zero-window advertisement goes out now, not with the next data.
            SenderEvent::Notice(Notice::LinkDown) if !self.zero => {
                self.zero = true;
                Response::SendAcks(1)
            }
            SenderEvent::Notice(Notice::LinkUp) if self.zero => {
                self.zero = false;
                Response::SendAcks(self.p.reconnection_acks)
            }
            _ => Response::Ignore,
        }
    }

    fn state(&self) -> Option<&'static str> {
        Some(if self.zero { "frozen" } else { "open" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::ext::ctx;

    /// The warning closes the window at once (one ACK advertising zero), once; the
    /// reconnection reopens it with the configured number of ACKs, once.
    #[test]
    fn zero_window_on_the_warning_and_tr_acks_on_reconnection() {
        use SenderEvent::Notice as N;
        let mut f = Freeze::new(FreezeParams {
            reconnection_acks: 4,
        });
        let cx = ctx(0, 1000);
        assert_eq!(f.on_event(N(Notice::LinkUp), &cx), Response::Ignore);
        assert_eq!((f.window(8192), f.state()), (8192, Some("open")));
        assert_eq!(f.on_event(N(Notice::LinkDown), &cx), Response::SendAcks(1));
        assert_eq!((f.window(8192), f.state()), (0, Some("frozen")));
        assert_eq!(f.on_event(N(Notice::LinkDown), &cx), Response::Ignore);
        assert_eq!(f.on_event(N(Notice::LinkUp), &cx), Response::SendAcks(4));
        assert_eq!((f.window(8192), f.state()), (8192, Some("open")));
        assert_eq!(f.on_event(N(Notice::LinkUp), &cx), Response::Ignore);
        assert_eq!(f.name(), "freeze");
    }
}
