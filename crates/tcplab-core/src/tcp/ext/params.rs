//! Parameters of the ad hoc extensions, each a table of `[tcp]` named after its extension
//! (`atcp = { loss_retransmit = "lost_segment" }`). Defaults are the original schemes; the
//! switches of Sridhara & Subramanya §7 turn ATCP into the paper's modified ATCP.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::units::Duration;
use crate::tcp::config::dur;
use crate::time::SimTime;

/// What ATCP resends in its Loss state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LossRetransmit {
    /// Every unacknowledged segment (Liu & Singh's ATCP, as Sridhara & Subramanya §5 describe it).
    #[default]
    Window,
    /// Only the lost segment, the first unacknowledged one (Sridhara & Subramanya §7).
    LostSegment,
}

/// How the interval between ATCP's probes grows in the Disconnected state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProbeBackoff {
    /// RTO, 2·RTO, 4·RTO, … (TCP's persist timer, RFC 1122 §4.2.2.17).
    #[default]
    Exponential,
    /// RTO, 2·RTO, 3·RTO, … (Sridhara & Subramanya §7).
    Linear,
}

/// `atcp = { … }` (extension "atcp").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AtcpParams {
    /// window (original) | lost_segment (Sridhara & Subramanya §7): what the Loss state resends.
    pub loss_retransmit: LossRetransmit,
    /// Timeouts ATCP absorbs before it hands the next one to TCP (Sridhara & Subramanya §7); 0 = never
    /// (original ATCP). Allowed 0 to 100.
    pub timeout_threshold: u32,
    /// exponential (original) | linear (Sridhara & Subramanya §7): the probe interval in Disconnected.
    pub probe_backoff: ProbeBackoff,
    /// Take the local routing's route-failure notice as the ICMP host unreachable Sridhara & Subramanya §6 asks
    /// the routing protocol to send the TCP sender (default false: ICMP only).
    pub route_failure_disconnects: bool,
}

impl Default for AtcpParams {
    fn default() -> Self {
        AtcpParams {
            loss_retransmit: LossRetransmit::Window,
            timeout_threshold: 0,
            probe_backoff: ProbeBackoff::Exponential,
            route_failure_disconnects: false,
        }
    }
}

/// `elfn = { … }` (extension "elfn").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ElfnParams {
    /// Interval between stand-by probes (default 2 s; ALGORITHMS.md §5.3). Allowed 10 ms to 60 s.
    #[serde(with = "dur")]
    #[schemars(with = "Duration")]
    pub probe_interval: SimTime,
}

impl Default for ElfnParams {
    fn default() -> Self {
        ElfnParams {
            probe_interval: SimTime::from_secs(2),
        }
    }
}

/// `tcp_f = { … }` (extension "tcp_f").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TcpFParams {
    /// The route-failure timer: the routing protocol's worst-case route re-establishment time
    /// (default 10 s; docs/models/adhoc_tcp.md). Allowed 10 ms to 600 s.
    #[serde(with = "dur")]
    #[schemars(with = "Duration")]
    pub failure_timer: SimTime,
}

impl Default for TcpFParams {
    fn default() -> Self {
        TcpFParams {
            failure_timer: SimTime::from_secs(10),
        }
    }
}

/// `freeze = { … }` (extension "freeze").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct FreezeParams {
    /// Copies of the ACK sent on reconnection (default 3, the TR-ACKs). Allowed 1 to 10.
    pub reconnection_acks: u8,
}

impl Default for FreezeParams {
    fn default() -> Self {
        FreezeParams {
            reconnection_acks: 3,
        }
    }
}

impl AtcpParams {
    /// Range checks as (field, message) pairs.
    pub fn check(&self, errs: &mut Vec<(&'static str, String)>) {
        if self.timeout_threshold > 100 {
            errs.push((
                "atcp.timeout_threshold",
                format!(
                    "{} is out of range; allowed 0 (never hand back) to 100",
                    self.timeout_threshold
                ),
            ));
        }
    }
}

impl ElfnParams {
    pub fn check(&self, errs: &mut Vec<(&'static str, String)>) {
        if !(SimTime::from_millis(10)..=SimTime::from_secs(60)).contains(&self.probe_interval) {
            errs.push((
                "elfn.probe_interval",
                "out of range; allowed 10ms to 60s".into(),
            ));
        }
    }
}

impl TcpFParams {
    pub fn check(&self, errs: &mut Vec<(&'static str, String)>) {
        if !(SimTime::from_millis(10)..=SimTime::from_secs(600)).contains(&self.failure_timer) {
            errs.push((
                "tcp_f.failure_timer",
                "out of range; allowed 10ms to 600s".into(),
            ));
        }
    }
}

impl FreezeParams {
    pub fn check(&self, errs: &mut Vec<(&'static str, String)>) {
        if !(1..=10).contains(&self.reconnection_acks) {
            errs.push((
                "freeze.reconnection_acks",
                format!(
                    "{} is out of range; allowed 1 to 10",
                    self.reconnection_acks
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The errors `check` pushes.
    type Errs = Vec<(&'static str, String)>;

    /// Each range's bounds are allowed and one step past each is refused, naming the field.
    #[test]
    fn each_range_check_at_its_bounds() {
        let fields = |check: &dyn Fn(&mut Errs)| {
            let mut errs = vec![];
            check(&mut errs);
            errs.into_iter().map(|e| e.0).collect::<Vec<_>>()
        };
        let atcp = |t| {
            move |e: &mut Vec<_>| {
                AtcpParams {
                    timeout_threshold: t,
                    ..AtcpParams::default()
                }
                .check(e)
            }
        };
        assert!(fields(&atcp(100)).is_empty());
        assert_eq!(fields(&atcp(101)), ["atcp.timeout_threshold"]);
        let ms = SimTime::from_millis;
        type Check = Box<dyn Fn(&mut Errs)>;
        let elfn =
            |probe_interval| -> Check { Box::new(move |e| ElfnParams { probe_interval }.check(e)) };
        let tcp_f =
            |failure_timer| -> Check { Box::new(move |e| TcpFParams { failure_timer }.check(e)) };
        let freeze = |reconnection_acks| -> Check {
            Box::new(move |e| FreezeParams { reconnection_acks }.check(e))
        };
        // Below the lower bound, at each bound, above the upper one.
        let cases = [
            (
                "elfn.probe_interval",
                [
                    elfn(ms(9)),
                    elfn(ms(10)),
                    elfn(ms(60_000)),
                    elfn(ms(60_001)),
                ],
            ),
            (
                "tcp_f.failure_timer",
                [
                    tcp_f(ms(9)),
                    tcp_f(ms(10)),
                    tcp_f(ms(600_000)),
                    tcp_f(ms(600_001)),
                ],
            ),
            (
                "freeze.reconnection_acks",
                [freeze(0), freeze(1), freeze(10), freeze(11)],
            ),
        ];
        for (field, [below, low, high, above]) in cases {
            assert_eq!(fields(&*below), [field]);
            assert!(
                fields(&*low).is_empty() && fields(&*high).is_empty(),
                "{field}"
            );
            assert_eq!(fields(&*above), [field]);
        }
    }
}
