#!/usr/bin/env python3
"""50 mobile nodes in 1500 m x 300 m with AODV and 3 bulk TCP flows, in ns-3 3.44.

Same PHY/MAC/TCP/AODV set-up as adhoc_string.py (adhoc_common.py).  Mobility: ns-3's
SteadyStateRandomWaypointMobilityModel (random waypoint started in its stationary distribution,
so the mean speed does not decay during the run), speeds uniform in [--min-speed, --max-speed],
pauses uniform in [--min-pause, --max-pause].  Flows: --flows "src-dst,src-dst,..." (node
indices), all unlimited bulk transfers started at --start.  Prints one "RESULT {json}" line
and appends it to results/adhoc_mobile.jsonl; goodput is reported per flow and summed.
"""
import argparse
import time

T_PROCESS0 = time.perf_counter()
import adhoc_common as c  # noqa: E402
from adhoc_common import A, ns  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--seed", type=int, default=1)
p.add_argument("--duration", type=float, default=600.0)
p.add_argument("--aodv", choices=["ns3", "ns2"], default="ns3")
p.add_argument("--static-arp", action="store_true")
p.add_argument("--nodes", type=int, default=50)
p.add_argument("--width", type=float, default=1500.0)
p.add_argument("--height", type=float, default=300.0)
p.add_argument("--min-speed", type=float, default=1.0, help="m/s")
p.add_argument("--max-speed", type=float, default=20.0, help="m/s")
p.add_argument("--min-pause", type=float, default=0.0, help="s")
p.add_argument("--max-pause", type=float, default=0.0, help="s")
p.add_argument("--flows", default="0-49,1-48,2-47")
p.add_argument("--start", type=float, default=0.0)
args = p.parse_args()

ns.RngSeedManager.SetSeed(1)
ns.RngSeedManager.SetRun(args.seed)
MSS = 1000
INIT_CWND = min(4 * MSS, max(2 * MSS, 4380)) // MSS  # RFC 3390, as tcplab
c.tcp_defaults(MSS, 32 * 1024, INIT_CWND)

nodes = ns.NodeContainer()
nodes.Create(args.nodes)
devices = c.build_wifi(nodes)
mob = ns.MobilityHelper()
mob.SetMobilityModel(
    "ns3::SteadyStateRandomWaypointMobilityModel",
    "MinSpeed", ns.DoubleValue(args.min_speed), "MaxSpeed", ns.DoubleValue(args.max_speed),
    "MinPause", ns.DoubleValue(args.min_pause), "MaxPause", ns.DoubleValue(args.max_pause),
    "MinX", ns.DoubleValue(0.0), "MaxX", ns.DoubleValue(args.width),
    "MinY", ns.DoubleValue(0.0), "MaxY", ns.DoubleValue(args.height),
    "Z", ns.DoubleValue(0.0))
mob.Install(nodes)
ifaces = c.install_ip(nodes, devices, args.aodv, static_arp=args.static_arp)

pairs = [tuple(int(x) for x in f.split("-")) for f in args.flows.split(",")]
sinks = []
for i, (s, d) in enumerate(pairs):
    sink, sender = c.bulk_flow(nodes.Get(s), nodes.Get(d), ifaces.GetAddress(d), args.start,
                               5000 + i)
    A.HookSink(sink)  # one byte counter for all sinks
    A.ScheduleHookSender(sender, args.start + 1e-9)
    sinks.append(sink)
A.HookWifi()
A.HookIp()

wall, cpu, events = c.run_timed(args.duration)
span = args.duration - args.start
per_flow = [int(ns.DynamicCast[ns.PacketSink](s).GetTotalRx()) for s in sinks]
res = {
    "scenario": "adhoc_mobile",
    "params": {"seed": args.seed, "duration_s": args.duration, "aodv": args.aodv,
               "static_arp": args.static_arp, "nodes": args.nodes,
               "area_m": [args.width, args.height],
               "mobility": "SteadyStateRandomWaypoint speed U[%g,%g] m/s pause U[%g,%g] s" % (
                   args.min_speed, args.max_speed, args.min_pause, args.max_pause),
               "flows": args.flows, "start_s": args.start, "mss": MSS, "rcvbuf": 32 * 1024},
    "rx_bytes": int(A.RxBytes()),
    "rx_bytes_per_flow": per_flow,
    "goodput_Mbps": round(int(A.RxBytes()) * 8 / span / 1e6, 5),
    **c.counters(),
    "wall_run_s": round(wall, 3), "cpu_run_s": round(cpu, 3), "events": events,
}
ns.Simulator.Destroy()
c.emit(res, T_PROCESS0)
