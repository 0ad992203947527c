//! TCP-F (Chandran et al., IEEE Pers. Commun. 2001; seed 003 §3; ALGORITHMS.md §5.4). A route
//! failure notification (RFN) puts the source in Snooze: no new data, no retransmissions, every
//! timer invalidated, cwnd frozen, and a route-failure timer of the routing protocol's
//! worst-case re-establishment time. A route re-establishment notification (RRN), or that
//! timer, returns it to Active: every unacknowledged segment of the window is flushed at the old
//! cwnd.

use super::{Ctx, Extension, Notice, Response, SenderEvent, TcpFParams};
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct TcpF {
    p: TcpFParams,
    /// The route-failure timer, while snoozing.
    failure_at: Option<SimTime>,
}

impl TcpF {
    pub fn new(p: TcpFParams) -> TcpF {
        TcpF {
            p,
            failure_at: None,
        }
    }
}

impl Extension for TcpF {
    fn name(&self) -> &'static str {
        "tcp_f"
    }

    fn on_event(&mut self, ev: SenderEvent, cx: &Ctx) -> Response {
        let snoozing = self.failure_at.is_some();
        match ev {
            SenderEvent::Notice(Notice::RouteFailure) if !snoozing => {
                self.failure_at = Some(cx.now + self.p.failure_timer);
                Response::Freeze
            }
            SenderEvent::Notice(Notice::RouteReestablished) | SenderEvent::Timer if snoozing => {
                self.failure_at = None;
                Response::Flush
            }
            _ => Response::Ignore,
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.failure_at
    }

    fn state(&self) -> Option<&'static str> {
        Some(if self.failure_at.is_some() {
            "snooze"
        } else {
            "active"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::ext::run;

    /// A route failure notice snoozes (once) with the route-failure timer; a re-establishment
    /// notice or the timer flushes the window; when active neither does anything.
    #[test]
    fn snooze_until_a_reestablishment_or_the_timer() {
        use SenderEvent::*;
        let mut f = TcpF::new(TcpFParams {
            failure_timer: SimTime::from_secs(3),
        });
        let failure = Notice(super::Notice::RouteFailure);
        let back = Notice(super::Notice::RouteReestablished);
        let active = (Response::Ignore, "active", None);
        run(
            &mut f,
            &[
                (0, Timer, active),
                (0, back, active),
                (100, failure, (Response::Freeze, "snooze", Some(3100))),
                (200, failure, (Response::Ignore, "snooze", Some(3100))),
                (300, back, (Response::Flush, "active", None)),
                (400, failure, (Response::Freeze, "snooze", Some(3400))),
                (3400, Timer, (Response::Flush, "active", None)),
            ],
        );
        assert_eq!(f.name(), "tcp_f");
    }
}
