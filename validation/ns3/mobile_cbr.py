#!/usr/bin/env python3
"""The CBR check of the mobile network (docs/validation/routing.md) in ns-3 3.44: AODV, DSDV, DSR.

50 nodes moved by results/mobile_<seed>.ns_movements (mobile_movement.py writes it; tcplab reads
the same file), PHY/MAC as adhoc_common.py (tcplab's ns2_dsss preset), three UDP CBR flows
s_i -> r_i (nodes i -> 3 + i) of 512-B payloads every 0.135 s (32 kb/s of IP packets, as tcplab's
`rate = "32kbps"`, which counts the 540-B IP datagram) from 120 s to the end. --routing picks
ns-3's AODV (ns-2.35 constants, as adhoc_mobile.py), DSDV or DSR with ns-3's defaults.

Prints one RESULT line (appended to results/mobile_cbr.jsonl): packets sent and received per
flow, routing control packets sent per hop (IP transmissions of AODV/DSDV messages or DSR
control packets), MAC drops, and the broken-link episodes: for each (node, next hop), a run of
data frames dropped at the retry limit with no frame to that next hop acknowledged in between
is one episode; its length is the time from its first to its last drop (how long a broken link
kept being used), reported as count, mean and max, with the drops per episode.
"""
import argparse
import time

T_PROCESS0 = time.perf_counter()
import adhoc_common as c  # noqa: E402
from adhoc_common import ns  # noqa: E402

ns.cppyy.cppdef(
    r"""
#include "ns3/dsdv-module.h"
#include "ns3/dsr-module.h"
#include "ns3/mobility-module.h"
namespace cbrcheck
{
using namespace ns3;
uint32_t NodeOf(const std::string& ctx) { return std::stoul(ctx.substr(10, ctx.find('/', 10) - 10)); }

// Routing control packets handed to IP for one hop (originated or forwarded): AODV (UDP 654),
// DSDV (UDP 269), DSR control (IP protocol 48, ns-3's DSR fixed header message type 1).
static uint64_t g_ctl = 0, g_ctlBytes = 0;
void IpOut(std::string, const Ipv4Header& h, Ptr<const Packet> p, uint32_t)
{
    bool ctl = false;
    if (h.GetProtocol() == 17)
    {
        UdpHeader uh;
        p->PeekHeader(uh);
        ctl = uh.GetDestinationPort() == 654 || uh.GetDestinationPort() == 269;
    }
    else if (h.GetProtocol() == 48)
    {
        uint8_t b[2] = {0, 0};
        p->CopyData(b, 2);
        ctl = b[1] == 1;
    }
    if (ctl) { g_ctl++; g_ctlBytes += p->GetSize() + h.GetSerializedSize(); }
}

// Broken-link episodes (see the module docstring).
struct Episode { double first; double last; uint32_t drops; };
static std::map<std::pair<uint32_t, Mac48Address>, Episode> g_open;
static uint64_t g_episodes = 0, g_epDrops = 0;
static double g_epSum = 0, g_epMax = 0;
void Close(const std::pair<uint32_t, Mac48Address>& k)
{
    auto it = g_open.find(k);
    if (it == g_open.end()) { return; }
    double d = it->second.last - it->second.first;
    g_episodes++; g_epDrops += it->second.drops; g_epSum += d; g_epMax = std::max(g_epMax, d);
    g_open.erase(it);
}
void Dropped(std::string ctx, WifiMacDropReason r, Ptr<const WifiMpdu> m)
{
    if (r != WIFI_MAC_DROP_REACHED_RETRY_LIMIT || !m->GetHeader().IsData()) { return; }
    auto k = std::make_pair(NodeOf(ctx), m->GetHeader().GetAddr1());
    double now = Simulator::Now().GetSeconds();
    auto it = g_open.find(k);
    if (it == g_open.end()) { g_open[k] = Episode{now, now, 1}; }
    else { it->second.last = now; it->second.drops++; }
}
void Acked(std::string ctx, Ptr<const WifiMpdu> m)
{
    Close(std::make_pair(NodeOf(ctx), m->GetHeader().GetAddr1()));
}
void Hook()
{
    Config::Connect("/NodeList/*/$ns3::Ipv4L3Protocol/SendOutgoing", MakeCallback(&IpOut));
    Config::Connect("/NodeList/*/$ns3::Ipv4L3Protocol/UnicastForward", MakeCallback(&IpOut));
    const std::string dev = "/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/";
    Config::Connect(dev + "DroppedMpdu", MakeCallback(&Dropped));
    Config::Connect(dev + "AckedMpdu", MakeCallback(&Acked));
}
std::string Summary()
{
    while (!g_open.empty()) { Close(g_open.begin()->first); }
    std::ostringstream os;
    os << g_ctl << " " << g_ctlBytes << " " << g_episodes << " " << g_epDrops << " " << g_epSum
       << " " << g_epMax;
    return os.str();
}
} // namespace cbrcheck
"""
)
C = ns.cppyy.gbl.cbrcheck

p = argparse.ArgumentParser()
p.add_argument("--seed", type=int, default=1, help="movement file and ns-3 run number")
p.add_argument("--routing", choices=["aodv", "dsdv", "dsr"], required=True)
p.add_argument("--duration", type=float, default=600.0)
p.add_argument("--start", type=float, default=120.0)
p.add_argument("--static-arp", action="store_true",
               help="fill every ARP cache before the run (tcplab has no ARP)")
args = p.parse_args()

ns.RngSeedManager.SetSeed(1)
ns.RngSeedManager.SetRun(args.seed)
N = 50
nodes = ns.NodeContainer()
nodes.Create(N)
devices = c.build_wifi(nodes)
movement = "results/mobile_%d.ns_movements" % args.seed
ns.Ns2MobilityHelper(movement).Install()

stack = ns.InternetStackHelper()
if args.routing == "aodv":
    helper = ns.AodvHelper()
    for name, value in c.NS2_AODV.items():
        helper.Set(name, value)
    stack.SetRoutingHelper(helper)
elif args.routing == "dsdv":
    stack.SetRoutingHelper(ns.DsdvHelper())
stack.Install(nodes)
addr = ns.Ipv4AddressHelper()
addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.0.0"))
ifaces = addr.Assign(devices)
ns.TrafficControlHelper().Uninstall(devices)
if args.static_arp:
    ns.NeighborCacheHelper().PopulateNeighborCache()
if args.routing == "dsr":
    dsr = ns.DsrHelper()
    ns.DsrMainHelper().Install(dsr, nodes)

INTERVAL = 0.135  # 540-B IP datagrams at 32 kb/s
servers, clients = [], []
for i in range(3):
    port = 9000 + i
    srv = ns.UdpServerHelper(port).Install(nodes.Get(3 + i))
    srv.Start(ns.Seconds(0.0))
    cl = ns.UdpClientHelper(ifaces.GetAddress(3 + i).ConvertTo(), port)
    cl.SetAttribute("MaxPackets", ns.UintegerValue(0))
    cl.SetAttribute("Interval", ns.TimeValue(ns.Seconds(INTERVAL)))
    cl.SetAttribute("PacketSize", ns.UintegerValue(512))
    apps = cl.Install(nodes.Get(i))
    apps.Start(ns.Seconds(args.start))
    servers.append(srv.Get(0))
    clients.append(apps.Get(0))
C.Hook()
c.A.HookWifi()  # MAC drops by reason (adhoc_common's counters)

wall, cpu, events = c.run_timed(args.duration)
ctl, ctl_bytes, episodes, ep_drops, ep_sum, ep_max = str(C.Summary()).split()
received = [int(ns.DynamicCast[ns.UdpServer](s).GetReceived()) for s in servers]
sent = [int(ns.DynamicCast[ns.UdpClient](cl).GetTotalTx()) // 512 for cl in clients]
res = {
    "scenario": "mobile_cbr",
    "params": {"seed": args.seed, "routing": args.routing, "duration_s": args.duration,
               "start_s": args.start, "movement": movement, "static_arp": args.static_arp,
               "routing_constants": "ns-2.35 AODV constants" if args.routing == "aodv"
               else "ns-3 defaults"},
    "sent": sent, "received": received,
    "delivery": round(sum(received) / max(1, sum(sent)), 4),
    "control_packets": int(ctl), "control_bytes": int(ctl_bytes),
    "broken_link_episodes": int(episodes),
    "broken_link_drops": int(ep_drops),
    "broken_link_mean_s": round(float(ep_sum) / max(1, int(episodes)), 3),
    "broken_link_max_s": round(float(ep_max), 3),
    **c.counters(),
    "wall_run_s": round(wall, 3), "cpu_run_s": round(cpu, 3), "events": events,
}
ns.Simulator.Destroy()
c.emit(res, T_PROCESS0)
