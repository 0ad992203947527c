//! DSR's constants and switches, with two presets: RFC 4728 §9 and ns-2.35 (`dsr/dsragent.cc`,
//! `dsr/dsragent.h`, `dsr/mobicache.cc`, `dsr/hdr_sr.h`). docs/models/dsr.md lists the sources.

use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DsrParams {
    /// Each discovery cycle starts with a non-propagating request (IP TTL 1) (RFC §8.2.1 MAY;
    /// ns-2 `dsragent_ring_zero_search`).
    pub nonprop_first: bool,
    /// Wait for a reply to a non-propagating request before the propagating one (RFC
    /// NonpropRequestTimeout 30 ms; ns-2 `arp_timeout` 30 ms).
    pub nonprop_timeout: SimTime,
    /// Wait after the first request cycle before the next (RFC RequestPeriod 500 ms; ns-2
    /// `BackOffTest`: `rt_rq_period`·4 = 2 s after the first).
    pub first_request_wait: SimTime,
    /// Each further wait is this many times the last (RFC 2, exponential backoff; ns-2 4).
    pub backoff_factor: u32,
    /// Longest wait between requests (RFC MaxRequestPeriod, ns-2 `rt_rq_max_period`: 10 s).
    pub max_request_period: SimTime,
    /// Retransmissions of a request before the discovery gives up (RFC MaxRequestRexmt 16;
    /// ns-2: None, packets only leave by the send-buffer timeout).
    pub max_request_rexmt: Option<u32>,
    /// Largest random delay before a rebroadcast request (RFC BroadcastJitter, ns-2
    /// RREQ_JITTER: 10 ms).
    pub jitter_max: SimTime,
    /// Send buffer (RFC SendBufferTimeout 30 s; ns-2 SEND_BUF_SIZE 64, SEND_TIMEOUT 30 s).
    pub buffer_capacity: usize,
    pub buffer_timeout: SimTime,
    /// Path cache tiers (ns-2 mobicache: 30 primary, 64 secondary; RFC: size left to the
    /// implementation, one tier of 64 here).
    pub cache_primary: usize,
    pub cache_secondary: usize,
    /// Paths unused this long leave the cache (RFC RouteCacheTimeout 300 s; ns-2: none).
    pub cache_timeout: Option<SimTime>,
    /// (Initiator, id) pairs remembered per initiator (RFC RequestTableIds 16).
    pub request_table_ids: usize,
    /// Salvage a packet whose next hop broke with another cached route (RFC §8.3.4; ns-2
    /// `dsragent_salvage_with_cache`), at most `max_salvage` times (MAX_SALVAGE_COUNT 15).
    pub salvage: bool,
    pub max_salvage: u8,
    /// Intermediate nodes answer requests from their cache (RFC §8.2.3; ns-2
    /// `dsragent_reply_from_cache_on_propagating`).
    pub reply_from_cache: bool,
    /// Forwarders cache the routes in the source routes they carry (RFC §8.1.4 "SHOULD";
    /// ns-2 `dsragent_snoop_source_routes`).
    pub snoop: bool,
    /// What snooping takes from a packet this node forwards or receives (ns-2
    /// `MobiCache::noticeRouteUsed` / `pre_noticeRouteUsed`, called from `handleForwarding`):
    /// only the rest of the packet's own source route, from this node on. Not the way back,
    /// not a Route Request's recorded route (ns-2 does not snoop requests), not the route a
    /// Route Reply carries (only its initiator takes that, `acceptRouteReply`); a node that
    /// answers from its cache keeps the way back to the initiator (`replyFromRouteCache`).
    /// Off (RFC §8.1.4, both directions of every route seen).
    pub snoop_forward_only: bool,
    /// How long a received Route Error may still ride on this node's requests (RFC §8.2.1:
    /// None, until a propagating request carried it; ns-2 `max_err_hold` 1 s).
    pub error_hold: Option<SimTime>,
    /// Longest route a request may record: ns-2 MAX_SR_LEN 16; RFC: what fits the option
    /// (Opt Data Len ≤ 255, so 62 addresses).
    pub max_route_len: usize,
    /// TCP-pgy S1: route requests and replies this node originates carry its TCP's latest ACK
    /// toward their other end (an option of type 31; docs/models/dsr.md). Off in both presets.
    pub ack_piggyback: bool,
    /// Tell the transport of every route failure on a route this node sources (a Route Error
    /// addressed to it, or its own link's failure), even when the cache holds another route:
    /// ELFN as Holland & Vaidya built it, on the route-failure message DSR returns to the
    /// sender. Off: only when no cached route remains. Off in both presets (neither has ELFN).
    pub notify_every_error: bool,
    /// Listen promiscuously (ns-2 `dsragent_use_tap`, on): unicast frames for others are shown
    /// to the agent, which cuts the links overheard Route Errors report, caches overheard
    /// routes (with `snoop`) and shortens routes (`grat_replies`). RFC: a node MAY overhear
    /// ("e.g., by operating its network interface in promiscuous receive mode", §3.4.3);
    /// the `rfc4728` preset does not assume it.
    pub tap: bool,
    /// Automatic route shortening (RFC §3.4.3 SHOULD, ns-2 `dsragent_send_grat_replies`): a
    /// node that overhears a data packet whose source route lists it after the next hop sends
    /// the packet's source a gratuitous Route Reply with the shortened route.
    pub grat_replies: bool,
    /// Gratuitous Route Reply Table (RFC §4.4): no second gratuitous reply for the same
    /// (source, transmitter) within `grat_hold` (RFC GratReplyHoldoff 1 s; ns-2
    /// `grat_hold_down_time` 1 s), at most `grat_table` entries (RFC: no size given, so
    /// unbounded; ns-2 RTREP_HOLDOFF_SIZE 10, the oldest replaced).
    pub grat_hold: SimTime,
    pub grat_table: usize,
    /// A Route Reply or Route Error the MAC could not deliver is handled as a data packet is
    /// (ns-2 `xmitFailed` makes no difference by packet type): its originator is sent a Route
    /// Error, nested after the errors the packet already carried (at most `MAX_ROUTE_ERRORS`
    /// 3), and the packet itself is salvaged (a reply that lists the broken link is dropped,
    /// `dsragent_dont_salvage_bad_replies`). Off (RFC §8.3.4: a node salvages data packets;
    /// a control packet it cannot forward is dropped).
    pub control_failures: bool,
    /// A forwarder that cannot salvage a packet keeps it in its send buffer and looks for a
    /// route with non-propagating requests only; each later request cycle drops its oldest
    /// such packet instead (ns-2 NEW_SALVAGE_LOGIC: `dsr_salvage_max_requests` 1,
    /// `dsr_salvage_allow_propagating` 0). Off: the packet is dropped (RFC §8.3.4).
    pub relay_discovery: bool,
    /// A destination's request backoff outlives the discovery: the cycles sent and when the
    /// last went are kept after the discovery ends without a Route Reply for that destination
    /// (the route came from snooping, or the packets left or were dropped), and the next
    /// discovery for it waits out that backoff and continues it. Only a reply whose route ends
    /// at the destination clears it (ns-2 `RequestTable` entry's `rt_reqs_outstanding` and
    /// `last_rt_req`, tested by `BackOffTest`, reset only in `acceptRouteReply`). Off: each
    /// discovery starts afresh (RFC §8.2.1 describes the backoff within one discovery).
    pub keep_request_backoff: bool,
}

impl DsrParams {
    pub fn rfc4728() -> DsrParams {
        DsrParams {
            nonprop_first: true,
            nonprop_timeout: SimTime::from_millis(30),
            first_request_wait: SimTime::from_millis(500),
            backoff_factor: 2,
            max_request_period: SimTime::from_secs(10),
            max_request_rexmt: Some(16),
            jitter_max: SimTime::from_millis(10),
            buffer_capacity: 64,
            buffer_timeout: SimTime::from_secs(30),
            cache_primary: 64,
            cache_secondary: 0,
            cache_timeout: Some(SimTime::from_secs(300)),
            request_table_ids: 16,
            salvage: true,
            max_salvage: 15,
            reply_from_cache: true,
            snoop: true,
            snoop_forward_only: false,
            error_hold: None,
            max_route_len: 62,
            ack_piggyback: false,
            notify_every_error: false,
            tap: false,
            grat_replies: true,
            grat_hold: SimTime::from_secs(1),
            grat_table: usize::MAX,
            control_failures: false,
            relay_discovery: false,
            keep_request_backoff: false,
        }
    }

    pub fn ns2() -> DsrParams {
        DsrParams {
            first_request_wait: SimTime::from_secs(2),
            backoff_factor: 4,
            max_request_rexmt: None,
            cache_primary: 30,
            cache_secondary: 64,
            cache_timeout: None,
            error_hold: Some(SimTime::from_secs(1)),
            max_route_len: 16,
            tap: true,
            snoop_forward_only: true,
            grat_table: 10,
            control_failures: true,
            relay_discovery: true,
            keep_request_backoff: true,
            ..DsrParams::rfc4728()
        }
    }

    /// The wait after the `k`-th request cycle (k ≥ 1).
    pub fn request_wait(&self, k: u32) -> SimTime {
        let mut w = self.first_request_wait;
        for _ in 1..k {
            w = w.times(self.backoff_factor as u64);
            if w >= self.max_request_period {
                break;
            }
        }
        w.min(self.max_request_period)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_follows_each_preset() {
        let s = |p: &DsrParams, k| p.request_wait(k).as_millis();
        let r = DsrParams::rfc4728();
        assert_eq!(
            (1..=7).map(|k| s(&r, k)).collect::<Vec<_>>(),
            [500, 1000, 2000, 4000, 8000, 10_000, 10_000]
        );
        let n = DsrParams::ns2();
        assert_eq!(
            (1..=4).map(|k| s(&n, k)).collect::<Vec<_>>(),
            [2000, 8000, 10_000, 10_000]
        );
    }
}
