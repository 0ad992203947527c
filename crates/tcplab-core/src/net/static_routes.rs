//! Static routes: a table computed once from the topology, never changed during the run.

use super::routing::{Decision, DropReason, Hop, Port, RoutingAgent, RoutingIo, RoutingStats};
use super::ADDR_BASE;
use crate::ids::PktId;
use crate::packet::{Addr, Packet};
use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct StaticRoutes {
    /// Next hop towards each node, indexed by node number (None: unreachable or self).
    table: Vec<Option<Hop>>,
    drops: u64,
}

impl StaticRoutes {
    pub fn new(table: Vec<Option<Hop>>) -> StaticRoutes {
        StaticRoutes { table, drops: 0 }
    }

    pub fn lookup(&self, dst: Addr) -> Option<Hop> {
        let i = dst.checked_sub(ADDR_BASE)? as usize;
        self.table.get(i).copied().flatten()
    }

    /// Packets this table had no entry for.
    pub fn drops(&self) -> u64 {
        self.drops
    }
}

impl RoutingAgent for StaticRoutes {
    fn route(
        &mut self,
        _now: SimTime,
        _id: PktId,
        pkt: &mut Packet,
        _from: Option<Addr>,
        _io: &mut RoutingIo,
    ) -> Decision {
        match self.lookup(pkt.ip.dst) {
            Some(h) => Decision::Forward(h),
            None => {
                self.drops += 1;
                Decision::Drop(DropReason::NoRoute)
            }
        }
    }

    fn on_control(&mut self, _: SimTime, _: Port, _: Addr, _: &Packet, _: &mut RoutingIo) {}

    /// A static table knows no alternative: the packet is lost with its link.
    fn on_link_failure(
        &mut self,
        _: SimTime,
        _: Hop,
        _: PktId,
        _: &Packet,
        _: &mut RoutingIo,
    ) -> Decision {
        Decision::Drop(DropReason::LinkBroken)
    }

    fn on_timeout(&mut self, _: SimTime, _: &mut RoutingIo) {}

    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }

    fn is_control(&self, _: &Packet) -> bool {
        false
    }

    fn stats(&self) -> RoutingStats {
        RoutingStats::default()
    }
}
