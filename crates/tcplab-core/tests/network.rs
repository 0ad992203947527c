//! The network layer on a wired path: a router that loses its routes answers with ICMP
//! destination unreachable, which travels back to the source and reaches its socket.

use tcplab_core::api::{self, Prepared, RunOutput};
use tcplab_core::ids::NodeId;
use tcplab_core::net::{AnyRouting, StaticRoutes};
use tcplab_core::scenario::Format;

const BOTTLENECK: &str = include_str!("../../../examples/wired_bottleneck.toml");

fn prepared(overrides: &[(&str, &str)]) -> Prepared {
    let ov: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    api::prepare(BOTTLENECK, Format::Toml, Some(1), &ov, None).expect("valid")
}

fn finish(mut p: Prepared) -> RunOutput {
    while !p.step(u64::MAX).expect("runs") {}
    p.finish().expect("finishes")
}

fn node_id(p: &Prepared, name: &str) -> NodeId {
    let i = p.world.nodes().iter().position(|n| n.name == name).unwrap();
    NodeId(i as u32)
}

#[test]
fn a_router_without_routes_sends_icmp_unreachable_to_the_source() {
    let mut p = prepared(&[("duration", "30s"), ("flows.download.size", "100KB")]);
    let (router, client) = (node_id(&p, "router"), node_id(&p, "client"));
    // The router keeps its route back to the client and loses the one to the server.
    let client_addr = p.world.nodes()[client.idx()].addr;
    let table = p.world.routing(router).as_static().expect("static routes");
    let back = table.lookup(client_addr).expect("a route to the client");
    let mut only_back = vec![None; p.world.nodes().len()];
    only_back[client.idx()] = Some(back);
    p.world
        .set_routing(router, AnyRouting::Static(StaticRoutes::new(only_back)));
    let out = finish(p);
    let f = &out.summary.flows[0];
    assert!(!f.completed, "no SYN can cross the router");
    let by = |n: &str| out.summary.nodes.iter().find(|s| s.node == n).cloned();
    let r = by("router").expect("the router reports its drops");
    let c = by("client").expect("the client reports the ICMP it got");
    eprintln!("router: {r:?}\nclient: {c:?}");
    // Every SYN (the first and its retries) is dropped for lack of a route and answered.
    assert!(r.drops_no_route >= 3);
    assert_eq!(r.icmp_sent, r.drops_no_route);
    // The ICMP messages cross the bottleneck link (which loses nothing) to the client's socket.
    assert_eq!(c.icmp_received, r.icmp_sent);
    assert!(by("server").is_none(), "nothing reached the server");
}

#[test]
fn a_normal_run_reports_no_network_layer_events() {
    let out = finish(prepared(&[("flows.download.size", "100KB")]));
    assert!(out.summary.flows[0].completed);
    assert!(out.summary.nodes.is_empty(), "{:?}", out.summary.nodes);
}
