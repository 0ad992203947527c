#!/usr/bin/env python3
"""The 7-hop ad hoc string of examples/adhoc_string.toml in ns-3 3.44, with AODV.

n0 - n1 - ... - n7, 200 m apart (each node reaches its neighbours only and senses two hops
away), 802.11 DSSS 2 Mb/s with RTS/CTS, two-ray ground with ns-2's 250 m / 550 m, AODV, one
unlimited TCP NewReno transfer n0 -> n7 (MSS 1000 B, no delayed ACK, 32 KiB receive buffer),
--duration seconds.  Prints one "RESULT {json}" line and appends it to
results/adhoc_string.jsonl.
"""
import argparse
import time

T_PROCESS0 = time.perf_counter()
import adhoc_common as c  # noqa: E402
from adhoc_common import A, ns  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--seed", type=int, default=1, help="RngSeedManager run number")
p.add_argument("--duration", type=float, default=600.0, help="simulated seconds")
p.add_argument("--aodv", choices=["ns3", "ns2", "static"], default="ns3",
               help="ns3: ns-3 3.44 AODV defaults; ns2: the ns-2.35 constants ns-3 exposes; "
                    "static: no AODV, static host routes along the string")
p.add_argument("--static-arp", action="store_true",
               help="fill every ARP cache before the run (tcplab models no ARP)")
p.add_argument("--nodes", type=int, default=8)
p.add_argument("--spacing", type=float, default=200.0, help="metres between neighbours")
p.add_argument("--start", type=float, default=0.0, help="BulkSend start, s")
args = p.parse_args()

ns.RngSeedManager.SetSeed(1)
ns.RngSeedManager.SetRun(args.seed)
MSS = 1000
# tcplab's initial window, RFC 3390: min(4·MSS, max(2·MSS, 4380 B)) = 4 segments at 1000 B.
INIT_CWND = min(4 * MSS, max(2 * MSS, 4380)) // MSS
c.tcp_defaults(MSS, 32 * 1024, INIT_CWND)

nodes = ns.NodeContainer()
nodes.Create(args.nodes)
devices = c.build_wifi(nodes)
c.place(nodes, [(i * args.spacing, 0.0) for i in range(args.nodes)])
ifaces = c.install_ip(nodes, devices, args.aodv, static_arp=args.static_arp)
if args.aodv == "static":
    c.string_routes(nodes, ifaces)

last = args.nodes - 1
sink, sender = c.bulk_flow(nodes.Get(0), nodes.Get(last), ifaces.GetAddress(last),
                           args.start, 5000)
A.HookSink(sink)
A.ScheduleHookSender(sender, args.start + 1e-9)
A.HookWifi()
A.HookIp()

wall, cpu, events = c.run_timed(args.duration)
rx = int(A.RxBytes())
span = args.duration - args.start
res = {
    "scenario": "adhoc_string",
    "params": {"seed": args.seed, "duration_s": args.duration, "aodv": args.aodv,
               "static_arp": args.static_arp, "nodes": args.nodes, "spacing_m": args.spacing,
               "start_s": args.start, "mss": MSS, "rcvbuf": 32 * 1024, "init_cwnd": INIT_CWND},
    "rx_bytes": rx,
    "goodput_Mbps": round(rx * 8 / span / 1e6, 5),
    **c.counters(),
    "wall_run_s": round(wall, 3), "cpu_run_s": round(cpu, 3), "events": events,
}
ns.Simulator.Destroy()
c.emit(res, T_PROCESS0)
