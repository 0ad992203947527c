//! Sockets and applications: TCP flows (bulk download, unlimited bulk), CBR sources, and the
//! per-flow time series.

use super::World;
use crate::app::conservation::StreamLedger;
use crate::app::{AppKind, CbrFlow, TcpFlow};
use crate::ids::{FlowId, NodeId, SockId};
use crate::packet::{Addr, Ecn, Ipv4Header, Packet, Transport, UdpHeader};
use crate::sim::Event;
use crate::tcp::config::OpenMode;
use crate::tcp::Socket;
use crate::trace::{SeriesKind, SeriesSet};

impl World {
    pub fn add_socket(&mut self, node: NodeId, sock: Socket, remote: Addr, flow: FlowId) -> SockId {
        let id = SockId(self.sockets.len() as u32);
        self.demux
            .insert((node, sock.local_port, remote, sock.remote_port), id);
        self.sockets.push(sock);
        self.ledgers.push(StreamLedger::default());
        self.sock_node.push(node);
        self.sock_remote.push(remote);
        self.sock_flow.push(flow);
        self.sock_wake.push((None, 0));
        id
    }

    /// Registers a TCP flow; its client connects at `flow.start`.
    pub fn add_flow(&mut self, flow: TcpFlow, series: SeriesSet) -> FlowId {
        let id = FlowId(self.flows.len() as u32);
        if flow.kind == AppKind::Bulk {
            self.stop_when_idle = false;
        }
        self.queue.schedule(flow.start, Event::App(id.0));
        self.flows.push(flow);
        self.tcp_stats.push(Default::default());
        self.series.push(series);
        self.active_flows += 1;
        self.track_path(id);
        id
    }

    pub fn add_cbr(&mut self, c: CbrFlow) {
        self.stop_when_idle = false;
        let idx = (1u32 << 31) | self.cbr.len() as u32;
        self.queue.schedule(c.start, Event::App(idx));
        self.cbr.push(c);
        self.cbr_stats.push(Default::default());
    }

    pub fn next_flow_id(&self) -> FlowId {
        FlowId(self.flows.len() as u32)
    }

    // ------------------------------------------------------------------ sockets and apps

    pub(super) fn on_sock_timer(&mut self, s: SockId, gen: u32) {
        let w = &mut self.sock_wake[s.idx()];
        if w.1 != gen {
            return; // superseded
        }
        w.0 = None;
        let now = self.now;
        self.sockets[s.idx()].handle_timeout(now, &mut self.out);
        self.after_socket(s);
    }

    /// Sends what a socket produced, runs the flow's application logic, re-arms its wake-up.
    pub(super) fn after_socket(&mut self, s: SockId) {
        let node = self.sock_node[s.idx()];
        let flow = self.sock_flow[s.idx()];
        self.flush_out(node, s);
        self.flow_step(flow);
        self.rearm(s);
        let other = {
            let f = &self.flows[flow.idx()];
            if f.client == s {
                f.server
            } else {
                f.client
            }
        };
        self.rearm(other);
        if !self.series[flow.idx()].is_empty() {
            self.sample_series(flow);
        }
    }

    fn flush_out(&mut self, node: NodeId, s: SockId) {
        if self.out.is_empty() {
            return;
        }
        let flow = self.sock_flow[s.idx()];
        let remote = {
            let f = &self.flows[flow.idx()];
            let other = if f.client == s {
                f.server_node
            } else {
                f.client_node
            };
            self.nodes[other.idx()].addr
        };
        let src = self.nodes[node.idx()].addr;
        let mut out = std::mem::take(&mut self.out);
        for seg in out.drain(..) {
            let pkt = Packet {
                ip: Ipv4Header {
                    src,
                    dst: remote,
                    ttl: 64,
                    ecn: if seg.ect { Ecn::Ect0 } else { Ecn::NotEct },
                    ident: 0,
                },
                l4: Transport::Tcp(seg.hdr),
                payload: seg.payload,
                flow: flow.0,
            };
            self.originate(node, pkt);
        }
        self.out = out;
    }

    fn rearm(&mut self, s: SockId) {
        if let Some(t) = self.sockets[s.idx()].poll_timeout() {
            let w = &mut self.sock_wake[s.idx()];
            if w.0.is_none_or(|cur| t < cur) {
                let superseded = w.0.is_some();
                w.1 = w.1.wrapping_add(1);
                w.0 = Some(t);
                self.queue
                    .schedule(t.max(self.now), Event::SockTimer(s, w.1));
                if superseded {
                    self.note_superseded();
                }
            }
        }
    }

    pub(super) fn flow_start(&mut self, f: FlowId) {
        let now = self.now;
        let c = self.flows[f.idx()].client;
        let srv = self.flows[f.idx()].server;
        match self.sockets[c.idx()].config().open {
            OpenMode::Handshake => {
                self.sockets[srv.idx()].listen();
                self.sockets[c.idx()].connect(now, &mut self.out);
                self.after_socket(c);
            }
            // ns-2's one-way TCP (syn_ true): the data sender opens; the request is empty
            // (scenario/build.rs), so the data follows the SYN's answer.
            OpenMode::SenderSyn => {
                let (cp, sp) = (
                    self.sockets[c.idx()].one_way_peer(),
                    self.sockets[srv.idx()].one_way_peer(),
                );
                // The bare SYNs negotiate nothing: each end learns the other's window scale here.
                self.sockets[c.idx()].expect_one_way_peer(sp);
                self.sockets[srv.idx()].expect_one_way_peer(cp);
                self.sockets[c.idx()].listen();
                self.sockets[srv.idx()].connect(now, &mut self.out);
                self.after_socket(srv);
            }
            // ns-2 with syn_ false: no SYNs, the server's first data leaves now.
            OpenMode::None => {
                let (cp, sp) = (
                    self.sockets[c.idx()].one_way_peer(),
                    self.sockets[srv.idx()].one_way_peer(),
                );
                self.sockets[c.idx()].open_one_way(now, sp);
                self.sockets[srv.idx()].open_one_way(now, cp);
                // The oracle's ledgers start where a SYN would have put them.
                self.ledgers[c.idx()].open_without_syn(sp.iss + 1);
                self.ledgers[srv.idx()].open_without_syn(cp.iss + 1);
                self.after_socket(srv);
            }
        }
    }

    /// Application logic of a TCP flow, run after any of its sockets changed.
    fn flow_step(&mut self, f: FlowId) {
        let now = self.now;
        let fl = &mut self.flows[f.idx()];
        if fl.finished {
            return;
        }
        let (ci, si) = (fl.client.idx(), fl.server.idx());
        // Client: send the request once connected.
        if !fl.request_sent && self.sockets[ci].is_established() {
            fl.request_sent = true;
            let req = fl.request;
            self.sockets[ci].write(now, req, &mut self.out);
            let node = fl.client_node;
            let c = fl.client;
            self.flush_out(node, c);
        }
        let fl = &mut self.flows[f.idx()];
        // Server: answer once the whole request is in.
        if !fl.response_started && self.sockets[si].delivered() >= fl.request {
            fl.response_started = true;
            match fl.kind {
                AppKind::BulkDownload { size } => {
                    self.sockets[si].write(now, size, &mut self.out);
                    self.sockets[si].shutdown(now, &mut self.out);
                }
                AppKind::Bulk => self.sockets[si].write_unlimited(now, &mut self.out),
            }
            let (node, s) = (fl.server_node, fl.server);
            self.flush_out(node, s);
        }
        let fl = &mut self.flows[f.idx()];
        if let AppKind::BulkDownload { size } = fl.kind {
            if fl.completed_at.is_none() && self.sockets[ci].delivered() >= size {
                fl.completed_at = Some(now);
            }
        }
        // Client closes its half when the server has closed.
        if !fl.client_closed && self.sockets[ci].peer_closed() {
            fl.client_closed = true;
            self.sockets[ci].shutdown(now, &mut self.out);
            let (node, c) = (fl.client_node, fl.client);
            self.flush_out(node, c);
        }
        let fl = &mut self.flows[f.idx()];
        let aborted = self.sockets[ci].aborted() || self.sockets[si].aborted();
        let done = match fl.kind {
            AppKind::BulkDownload { .. } => {
                fl.completed_at.is_some() && self.sockets[ci].is_closed()
            }
            AppKind::Bulk => false,
        };
        if aborted || done {
            fl.finished = true;
            self.active_flows -= 1;
        }
    }

    pub(super) fn cbr_send(&mut self, k: usize) {
        let now = self.now;
        let c = &mut self.cbr[k];
        if now >= c.stop {
            return;
        }
        c.sent += 1;
        let (src, dst, port, size, next) = (c.src, c.dst, c.port, c.packet_size, now + c.interval);
        let pkt = Packet {
            ip: Ipv4Header {
                src: self.nodes[src.idx()].addr,
                dst: crate::net::node_addr(dst),
                ttl: 64,
                ecn: Ecn::NotEct,
                ident: 0,
            },
            l4: Transport::Udp(UdpHeader {
                sport: port,
                dport: port,
            }),
            payload: size,
            flow: super::flowstats::CBR_FLOW | k as u32,
        };
        self.originate(src, pkt);
        if next < self.cbr[k].stop {
            self.queue.schedule(next, Event::App((1 << 31) | k as u32));
        }
    }

    fn sample_series(&mut self, f: FlowId) {
        let now = self.now;
        let fl = &self.flows[f.idx()];
        let snd = &self.sockets[fl.server.idx()];
        let rcv = &self.sockets[fl.client.idx()];
        self.series[f.idx()].sample(now, |k| match k {
            SeriesKind::Cwnd => snd.cwnd() as f64,
            SeriesKind::Ssthresh => snd.ssthresh().min(1 << 40) as f64,
            SeriesKind::Srtt => snd.srtt().map_or(f64::NAN, |t| t.as_secs_f64()),
            SeriesKind::Rto => snd.rto().as_secs_f64(),
            SeriesKind::Rwnd => snd.snd_wnd() as f64,
            SeriesKind::SndUna => snd.snd_una_rel() as f64,
            SeriesKind::SndNxt => snd.snd_nxt_rel() as f64,
            SeriesKind::RcvNxt => rcv.rcv_nxt_rel() as f64,
        });
    }
}
