//! ELFN (Holland & Vaidya, MobiCom 1999; seed 003 §4; ALGORITHMS.md §5.3). On an explicit
//! link-failure notice from routing the sender enters stand-by: no retransmission timer, cwnd
//! and RTO frozen. A probe (the first segment of the window) goes out every `probe_interval`.
//! An ACK (the probe answered) or a route re-establishment notice ends stand-by: the sender
//! continues with the old cwnd and RTO.

use super::{Ctx, ElfnParams, Extension, Notice, Resend, Response, SenderEvent};
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct Elfn {
    p: ElfnParams,
    /// The next probe, while in stand-by.
    probe_at: Option<SimTime>,
}

impl Elfn {
    pub fn new(p: ElfnParams) -> Elfn {
        Elfn { p, probe_at: None }
    }
}

impl Extension for Elfn {
    fn name(&self) -> &'static str {
        "elfn"
    }

    fn on_event(&mut self, ev: SenderEvent, cx: &Ctx) -> Response {
        let standby = self.probe_at.is_some();
        match ev {
            SenderEvent::Notice(Notice::RouteFailure) if !standby => {
                self.probe_at = Some(cx.now + self.p.probe_interval);
                Response::Freeze
            }
            SenderEvent::Timer if standby => {
                self.probe_at = Some(cx.now + self.p.probe_interval);
                Response::Resend(Resend::Head)
            }
            // The probe answered: timers restored, old cwnd and RTO.
            SenderEvent::Ack { .. } if standby => {
                self.probe_at = None;
                Response::Unfreeze
            }
            // The route is back: resend the head of the window at once.
            SenderEvent::Notice(Notice::RouteReestablished) if standby => {
                self.probe_at = None;
                Response::Resume
            }
            _ => Response::Ignore,
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.probe_at
    }

    fn state(&self) -> Option<&'static str> {
        Some(if self.probe_at.is_some() {
            "standby"
        } else {
            "normal"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::ext::run;

    /// Stand-by on a route failure (once), a probe of the window's head every interval, and
    /// out of it on an ACK (old cwnd and RTO: Unfreeze) or a re-establishment notice (Resume);
    /// outside stand-by none of these do anything.
    #[test]
    fn standby_probes_and_its_two_exits() {
        use SenderEvent::*;
        let mut e = Elfn::new(ElfnParams {
            probe_interval: SimTime::from_millis(500),
        });
        let failure = Notice(super::Notice::RouteFailure);
        let back = Notice(super::Notice::RouteReestablished);
        let probe = Response::Resend(Resend::Head);
        let normal = (Response::Ignore, "normal", None);
        run(
            &mut e,
            &[
                (0, Timer, normal),
                (0, Ack { advanced: true }, normal),
                (0, back, normal),
                (100, failure, (Response::Freeze, "standby", Some(600))),
                (200, failure, (Response::Ignore, "standby", Some(600))),
                (600, Timer, (probe, "standby", Some(1100))),
                (
                    700,
                    Ack { advanced: false },
                    (Response::Unfreeze, "normal", None),
                ),
                (800, failure, (Response::Freeze, "standby", Some(1300))),
                (900, back, (Response::Resume, "normal", None)),
            ],
        );
        assert_eq!(e.name(), "elfn");
    }
}
