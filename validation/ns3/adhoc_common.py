"""Shared parts of the ns-3 3.44 ad hoc reference scripts (PyPI wheel `ns3==3.44.post0`).

Importing this module imports ns-3 through cppyy (10-60 s of JIT start-up, not part of the
reported Simulator::Run() wall time) and defines the trace sinks in C++ (cppyy.cppdef), so that
no Python runs inside the event loop and the Run() wall time is ns-3's own.

What it sets up, matching tcplab's `ns2_dsss` preset and ns-2.35 (../../docs/validation/adhoc.md):
- 802.11b PHY/MAC in ad hoc mode, DSSS 2 Mb/s data, RTS at 1 Mb/s, RTS/CTS before every unicast
  frame, long preamble, two-ray ground with ns-2's Pt, frequency and thresholds (250 m / 550 m);
- the interface queue: no queue disc, the MAC queue holds 50 packets and never expires them;
- AODV with ns-3's defaults or the ns-2.35-like constants ns-3 exposes;
- TCP NewReno without SACK/timestamps/limited transmit, RFC 6582 recovery, no delayed ACK.
"""
import json
import math
import os
import resource
import sys
import time

T_IMPORT0 = time.perf_counter()
from ns import ns  # noqa: E402

T_IMPORT = time.perf_counter() - T_IMPORT0

ns.cppyy.cppdef(
    r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/applications-module.h"
#include "ns3/wifi-module.h"
#include "ns3/aodv-module.h"
#include "ns3/traffic-control-module.h"
namespace adhoc
{
using namespace ns3;

// What an IP packet carries, from its first bytes: the loss counters are kept per kind so that
// TCP data, TCP ACKs and AODV control packets are told apart.
enum Kind { K_TCP_DATA = 0, K_TCP_ACK = 1, K_AODV = 2, K_ARP = 3, K_OTHER = 4, N_KINDS = 5 };
static const char* SUBNET_MASK = "255.255.0.0";  // install_ip's address plan
static const char* KIND_NAMES[N_KINDS] = {"tcp_data", "tcp_ack", "aodv", "arp", "other"};

// `p` starts with a TCP or UDP header of an IPv4 packet with protocol `proto`.
Kind KindOfL4(Ptr<const Packet> p, uint8_t proto)
{
    if (proto == 6)
    {
        TcpHeader th;
        Ptr<Packet> c = p->Copy();
        c->RemoveHeader(th);
        return c->GetSize() > 0 ? K_TCP_DATA : K_TCP_ACK;
    }
    if (proto == 17)
    {
        UdpHeader uh;
        Ptr<Packet> c = p->Copy();
        c->RemoveHeader(uh);
        return uh.GetDestinationPort() == 654 ? K_AODV : K_OTHER;  // RFC 3561 §10: UDP port 654
    }
    return K_OTHER;
}

// `p` starts with the LLC/SNAP header of an MSDU.
Kind KindOfMsdu(Ptr<const Packet> p)
{
    Ptr<Packet> c = p->Copy();
    LlcSnapHeader llc;
    c->RemoveHeader(llc);
    if (llc.GetType() == 0x0806) { return K_ARP; }
    if (llc.GetType() != 0x0800) { return K_OTHER; }
    Ipv4Header ip;
    c->RemoveHeader(ip);
    return KindOfL4(c, ip.GetProtocol());
}

// ---------------- the TCP sink ----------------
static uint64_t g_rxBytes = 0;
void SinkRx(Ptr<const Packet> p, const Address&) { g_rxBytes += p->GetSize(); }
void HookSink(Ptr<Application> app) { app->TraceConnectWithoutContext("Rx", MakeCallback(&SinkRx)); }
uint64_t RxBytes() { return g_rxBytes; }

// ---------------- the TCP sender ----------------
static uint64_t g_txSegs = 0, g_retx = 0, g_rto = 0, g_lossState = 0, g_fastRec = 0;
void OnTx(Ptr<const Packet> p, const TcpHeader&, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0) { g_txSegs++; }
}
void OnRetx(Ptr<const Packet>, const TcpHeader&, const Address&, const Address&,
            Ptr<const TcpSocketBase>) { g_retx++; }
void OnCongState(TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n)
{
    if (n == TcpSocketState::CA_LOSS && o != n) { g_lossState++; }
    if (n == TcpSocketState::CA_RECOVERY && o != n) { g_fastRec++; }
}
// ns-3 has no trace per timeout; TcpSocketBase::ReTxTimeout doubles m_rto (RFC 6298 5.5),
// capped at 60 s, and the RTT estimator never sets it to exactly twice its value.
void OnRto(Time o, Time n)
{
    if (n == o + o || (n == Seconds(60) && o >= Seconds(30) && o < n)) { g_rto++; }
}
void HookSender(Ptr<Application> app)
{
    Ptr<Socket> s = DynamicCast<BulkSendApplication>(app)->GetSocket();
    NS_ABORT_MSG_IF(!s, "BulkSend socket not yet created");
    s->TraceConnectWithoutContext("Tx", MakeCallback(&OnTx));
    s->TraceConnectWithoutContext("Retransmission", MakeCallback(&OnRetx));
    s->TraceConnectWithoutContext("CongState", MakeCallback(&OnCongState));
    s->TraceConnectWithoutContext("RTO", MakeCallback(&OnRto));
}
void ScheduleHookSender(Ptr<Application> app, double at)
{
    Simulator::Schedule(Seconds(at), &HookSender, app);
}
uint64_t TxSegs() { return g_txSegs; }
uint64_t Retx() { return g_retx; }
uint64_t Rto() { return g_rto; }
uint64_t LossStates() { return g_lossState; }
uint64_t FastRec() { return g_fastRec; }

// ---------------- MAC and PHY ----------------
static uint64_t g_macDrop[4][N_KINDS] = {};  // [reason: retry, enqueue, lifetime, other][kind]
static std::map<std::string, uint64_t> g_phyRxDrop;
static uint64_t g_phyTx = 0, g_rtsFinal = 0, g_dataFinal = 0;
void DroppedMpdu(std::string, WifiMacDropReason r, Ptr<const WifiMpdu> m)
{
    int ri = r == WIFI_MAC_DROP_REACHED_RETRY_LIMIT ? 0
           : r == WIFI_MAC_DROP_FAILED_ENQUEUE     ? 1
           : r == WIFI_MAC_DROP_EXPIRED_LIFETIME   ? 2
                                                   : 3;
    Kind k = m->GetHeader().IsData() ? KindOfMsdu(m->GetPacket()) : K_OTHER;
    g_macDrop[ri][k]++;
}
void PhyRxDrop(std::string, Ptr<const Packet>, WifiPhyRxfailureReason r)
{
    std::ostringstream os;
    os << r;
    g_phyRxDrop[os.str()]++;
}
void PhyTx(std::string, Ptr<const Packet>, double) { g_phyTx++; }
void FinalRts(std::string, Mac48Address) { g_rtsFinal++; }
void FinalData(std::string, Mac48Address) { g_dataFinal++; }
void HookWifi()
{
    const std::string dev = "/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/";
    Config::Connect(dev + "Mac/DroppedMpdu", MakeCallback(&DroppedMpdu));
    Config::Connect(dev + "Phy/PhyRxDrop", MakeCallback(&PhyRxDrop));
    Config::Connect(dev + "Phy/PhyTxBegin", MakeCallback(&PhyTx));
    Config::Connect(dev + "RemoteStationManager/MacTxFinalRtsFailed", MakeCallback(&FinalRts));
    Config::Connect(dev + "RemoteStationManager/MacTxFinalDataFailed", MakeCallback(&FinalData));
}
uint64_t MacDrop(int reason, int kind) { return g_macDrop[reason][kind]; }
uint64_t PhyTxCount() { return g_phyTx; }
uint64_t FinalRtsFailed() { return g_rtsFinal; }
uint64_t FinalDataFailed() { return g_dataFinal; }
std::string PhyRxDrops()
{
    std::ostringstream os;
    for (auto& kv : g_phyRxDrop) { os << kv.first << "=" << kv.second << ";"; }
    return os.str();
}

// ---------------- IP, AODV and ARP ----------------
// Ipv4L3Protocol::Drop per reason and kind, split by whether the dropping node originated the
// packet (a source without a route: AODV's request queue gave up or overflowed) or forwards it.
static uint64_t g_ipDrop[8][N_KINDS][2] = {};
static uint64_t g_aodvSent[5] = {};  // by AODV message type 1..4 (RFC 3561 §5); [0] = HELLO
static uint64_t g_arpDrop = 0, g_ipDelivered[N_KINDS] = {}, g_ipSent[N_KINDS] = {};
void IpDrop(std::string, const Ipv4Header& h, Ptr<const Packet> p, Ipv4L3Protocol::DropReason r,
            Ptr<Ipv4> ipv4, uint32_t)
{
    bool own = false;
    for (uint32_t i = 0; i < ipv4->GetNInterfaces(); i++)
    {
        for (uint32_t a = 0; a < ipv4->GetNAddresses(i); a++)
        {
            own = own || ipv4->GetAddress(i, a).GetLocal() == h.GetSource();
        }
    }
    g_ipDrop[static_cast<int>(r) < 8 ? static_cast<int>(r) : 7][KindOfL4(p, h.GetProtocol())][own ? 0 : 1]++;
}
void IpSend(std::string, const Ipv4Header& h, Ptr<const Packet> p, uint32_t)
{
    Kind k = KindOfL4(p, h.GetProtocol());
    g_ipSent[k]++;
    if (k != K_AODV) { return; }
    Ptr<Packet> c = p->Copy();
    UdpHeader uh;
    c->RemoveHeader(uh);
    uint8_t type = 0;
    c->CopyData(&type, 1);
    // ns-3 sends a HELLO as an RREP to its interface's broadcast address (RFC 3561 §6.9).
    Ipv4Address d = h.GetDestination();
    bool hello = type == 2 && (d.IsBroadcast() || d.IsSubnetDirectedBroadcast(Ipv4Mask(SUBNET_MASK)));
    if (hello) { g_aodvSent[0]++; }
    else if (type >= 1 && type <= 4) { g_aodvSent[type]++; }
}
void IpDeliver(std::string, const Ipv4Header& h, Ptr<const Packet> p, uint32_t)
{
    g_ipDelivered[KindOfL4(p, h.GetProtocol())]++;
}
void ArpDrop(std::string, Ptr<const Packet>) { g_arpDrop++; }
void HookIp()
{
    Config::Connect("/NodeList/*/$ns3::Ipv4L3Protocol/Drop", MakeCallback(&IpDrop));
    Config::Connect("/NodeList/*/$ns3::Ipv4L3Protocol/SendOutgoing", MakeCallback(&IpSend));
    Config::Connect("/NodeList/*/$ns3::Ipv4L3Protocol/UnicastForward", MakeCallback(&IpSend));
    Config::Connect("/NodeList/*/$ns3::Ipv4L3Protocol/LocalDeliver", MakeCallback(&IpDeliver));
    Config::Connect("/NodeList/*/$ns3::ArpL3Protocol/Drop", MakeCallback(&ArpDrop));
}
uint64_t IpDropCount(int reason, int kind, int forwarded) { return g_ipDrop[reason][kind][forwarded]; }
uint64_t AodvSent(int type) { return g_aodvSent[type]; }
uint64_t ArpDrops() { return g_arpDrop; }
uint64_t IpSent(int kind) { return g_ipSent[kind]; }
uint64_t IpDelivered(int kind) { return g_ipDelivered[kind]; }
const char* KindName(int k) { return KIND_NAMES[k]; }

// ---------------- the range check ----------------
// Per receiving node: frames received correctly, and time the PHY spent in CCA_BUSY.
static std::map<uint32_t, uint64_t> g_rxOk;
static std::map<uint32_t, double> g_busy;
void RxOk(std::string ctx, Ptr<const Packet>, double, WifiMode, WifiPreamble)
{
    uint32_t node = std::stoul(ctx.substr(10, ctx.find('/', 10) - 10));
    g_rxOk[node]++;
}
void PhyState(std::string ctx, Time, Time d, WifiPhyState s)
{
    uint32_t node = std::stoul(ctx.substr(10, ctx.find('/', 10) - 10));
    if (s == WifiPhyState::CCA_BUSY || s == WifiPhyState::RX) { g_busy[node] += d.GetSeconds(); }
}
void HookRange()
{
    Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/State/RxOk",
                    MakeCallback(&RxOk));
    Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/State/State",
                    MakeCallback(&PhyState));
}
uint64_t RangeRxOk(uint32_t node) { return g_rxOk[node]; }
double RangeBusy(uint32_t node) { return g_busy[node]; }
} // namespace adhoc
"""
)
A = ns.cppyy.gbl.adhoc

# ns-2.35 WirelessPhy defaults (ALGORITHMS.md §6.2): Pt 0.28183815 W at 914 MHz, 1.5 m antennas,
# RXThresh 3.652e-10 W (250 m) and CSThresh 1.559e-11 W (550 m) under two-ray ground.
NS2_PT_W = 0.28183815
NS2_FREQ_HZ = 914e6
NS2_ANTENNA_M = 1.5
NS2_RX_THRESH_W = 3.652e-10
NS2_CS_THRESH_W = 1.559e-11


def dbm(watts):
    return 10.0 * math.log10(watts * 1000.0)


# The AODV constants of ns-2.35 that ns-3 3.44 exposes as attributes (ALGORITHMS.md §6.4).
NS2_AODV = {
    "ActiveRouteTimeout": ns.TimeValue(ns.Seconds(10)),
    "MyRouteTimeout": ns.TimeValue(ns.Seconds(10)),
    "TtlStart": ns.UintegerValue(5),
    "RreqRetries": ns.UintegerValue(3),
    "EnableHello": ns.BooleanValue(False),
    "GratuitousReply": ns.BooleanValue(False),
}


def tcp_defaults(mss, rcvbuf, init_cwnd):
    """TCP as tcplab's `newreno` with the scenario's [tcp] table (docs/models/tcp.md)."""
    d = ns.Config.SetDefault
    d("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    # RFC 6582 recovery (tcplab `newreno`), not ns-3's default PRR.
    d("ns3::TcpL4Protocol::RecoveryType", ns.StringValue("ns3::TcpClassicRecovery"))
    d("ns3::TcpSocket::SegmentSize", ns.UintegerValue(mss))
    d("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(rcvbuf))
    d("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))  # delayed_ack = false
    d("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(init_cwnd))  # RFC 3390 for this MSS
    d("ns3::TcpSocket::DataRetries", ns.UintegerValue(15))  # tcplab max_retransmissions
    d("ns3::TcpSocketBase::Sack", ns.BooleanValue(False))
    d("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    d("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(False))  # rcv_buf < 64 KiB
    d("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(False))  # tcplab default off
    d("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(1)))  # RFC 6298 (2.4)


def build_wifi(nodes, rts_threshold=0, queue_packets=50):
    """Ad hoc 802.11b devices on a two-ray-ground channel with ns-2's ranges."""
    # The interface queue: ns-2 PriQueue / tcplab DropTail 50; packets never expire in it.
    ns.Config.SetDefault("ns3::WifiMacQueue::MaxSize", ns.StringValue("%dp" % queue_packets))
    ns.Config.SetDefault("ns3::WifiMacQueue::MaxDelay", ns.TimeValue(ns.Seconds(10000)))
    wifi = ns.WifiHelper()
    wifi.SetStandard(ns.WIFI_STANDARD_80211b)
    # ns-2 dataRate_ 2 Mb/s, basicRate_ 1 Mb/s; RTS/CTS for every unicast frame (RTSThreshold_ 0).
    wifi.SetRemoteStationManager(
        "ns3::ConstantRateWifiManager",
        "DataMode", ns.StringValue("DsssRate2Mbps"),
        "ControlMode", ns.StringValue("DsssRate1Mbps"),
        "RtsCtsThreshold", ns.UintegerValue(rts_threshold))
    chan = ns.YansWifiChannelHelper()
    chan.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel")
    chan.AddPropagationLoss(
        "ns3::TwoRayGroundPropagationLossModel",
        "Frequency", ns.DoubleValue(NS2_FREQ_HZ),
        "SystemLoss", ns.DoubleValue(1.0),
        "HeightAboveZ", ns.DoubleValue(NS2_ANTENNA_M))
    phy = ns.YansWifiPhyHelper()
    phy.SetChannel(chan.Create())
    pt = dbm(NS2_PT_W)
    phy.Set("TxPowerStart", ns.DoubleValue(pt))
    phy.Set("TxPowerEnd", ns.DoubleValue(pt))
    phy.Set("TxPowerLevels", ns.UintegerValue(1))
    # ns-3's YansWifiChannel discards every signal below RxSensitivity + 10·log10(width/20 MHz)
    # (22 MHz for DSSS) before the PHY sees it, for reception and carrier sense alike. So the
    # sensitivity is ns-2's CSThresh (550 m): signals above it reach the PHY and make the medium
    # busy (CCA thresholds); the preamble detector decodes only those above RXThresh (250 m).
    phy.Set("RxSensitivity", ns.DoubleValue(dbm(NS2_CS_THRESH_W) - 10 * math.log10(22 / 20)))
    phy.Set("CcaEdThreshold", ns.DoubleValue(dbm(NS2_CS_THRESH_W)))
    phy.Set("CcaSensitivity", ns.DoubleValue(dbm(NS2_CS_THRESH_W)))
    phy.SetPreambleDetectionModel("ns3::ThresholdPreambleDetectionModel",
                                  "MinimumRssi", ns.DoubleValue(dbm(NS2_RX_THRESH_W)))
    mac = ns.WifiMacHelper()
    mac.SetType("ns3::AdhocWifiMac")
    return wifi.Install(phy, mac, nodes)


def place(nodes, positions):
    mob = ns.MobilityHelper()
    alloc = ns.ListPositionAllocator()
    for x, y in positions:
        alloc.Add(ns.Vector(x, y, 0.0))
    mob.SetPositionAllocator(alloc)
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel")
    mob.Install(nodes)


def install_ip(nodes, devices, aodv_preset, static_arp=False):
    """IPv4 + AODV on every node, no queue disc (the MAC queue is the interface queue)."""
    stack = ns.InternetStackHelper()
    if aodv_preset != "static":
        aodv = ns.AodvHelper()
        if aodv_preset == "ns2":
            for name, value in NS2_AODV.items():
                aodv.Set(name, value)
        stack.SetRoutingHelper(aodv)
    stack.Install(nodes)
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.0.0"))  # SUBNET_MASK above
    ifaces = addr.Assign(devices)
    ns.TrafficControlHelper().Uninstall(devices)
    if static_arp:
        ns.NeighborCacheHelper().PopulateNeighborCache()
    return ifaces


def string_routes(nodes, ifaces):
    """Static host routes along a string n0 - n1 - ... (tcplab's `protocol = "static"`): every
    node reaches each other node through its neighbour on that side."""
    helper = ns.Ipv4StaticRoutingHelper()
    n = nodes.GetN()
    for i in range(n):
        table = helper.GetStaticRouting(nodes.Get(i).GetObject[ns.Ipv4]())
        for j in range(n):
            if abs(i - j) > 1:
                hop = i + 1 if j > i else i - 1
                table.AddHostRouteTo(ifaces.GetAddress(j), ifaces.GetAddress(hop), 1)


def bulk_flow(src, dst, dst_addr, start, port):
    sink = ns.PacketSinkHelper(
        "ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sink_apps = sink.Install(dst)
    sink_apps.Start(ns.Seconds(0.0))
    bulk = ns.BulkSendHelper("ns3::TcpSocketFactory",
                             ns.InetSocketAddress(dst_addr, port).ConvertTo())
    bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
    apps = bulk.Install(src)
    apps.Start(ns.Seconds(start))
    return sink_apps.Get(0), apps.Get(0)


def run_timed(stop_s):
    """Simulator::Run() alone: (wall s, CPU s, events executed)."""
    ns.Simulator.Stop(ns.Seconds(stop_s))
    t0, c0 = time.perf_counter(), time.process_time()
    ns.Simulator.Run()
    return time.perf_counter() - t0, time.process_time() - c0, int(ns.Simulator.GetEventCount())


IP_DROP_REASONS = {1: "ttl_expired", 2: "no_route", 3: "bad_checksum", 4: "interface_down",
                   5: "route_error", 6: "fragment_timeout", 7: "duplicate"}
MAC_DROP_REASONS = ["retry_limit", "queue_full", "lifetime", "other"]
KINDS = ["tcp_data", "tcp_ack", "aodv", "arp", "other"]


def nonzero(d):
    return {k: v for k, v in d.items() if v}


def counters():
    """Every counter the C++ sinks kept, as plain JSON."""
    mac = {r: nonzero({k: int(A.MacDrop(ri, ki)) for ki, k in enumerate(KINDS)})
           for ri, r in enumerate(MAC_DROP_REASONS)}
    ip = {}
    for code, reason in IP_DROP_REASONS.items():
        for fw, where in ((0, "at_source"), (1, "forwarded")):
            per_kind = nonzero({k: int(A.IpDropCount(code, ki, fw)) for ki, k in enumerate(KINDS)})
            if per_kind:
                ip["%s_%s" % (reason, where)] = per_kind
    phy = dict(kv.split("=") for kv in str(A.PhyRxDrops()).split(";") if kv)
    return {
        "tcp_data_segs_tx": int(A.TxSegs()), "tcp_retx": int(A.Retx()), "tcp_rto": int(A.Rto()),
        "tcp_loss_state_entries": int(A.LossStates()), "tcp_fast_recovery": int(A.FastRec()),
        "mac_drops": nonzero(mac),
        "mac_final_rts_failed": int(A.FinalRtsFailed()),
        "mac_final_data_failed": int(A.FinalDataFailed()),
        "ip_drops": ip, "arp_drops": int(A.ArpDrops()),
        "phy_rx_drops": {k: int(v) for k, v in phy.items()},
        "phy_tx_frames": int(A.PhyTxCount()),
        "aodv_sent": {"hello": int(A.AodvSent(0)), "rreq": int(A.AodvSent(1)),
                      "rrep": int(A.AodvSent(2)), "rerr": int(A.AodvSent(3)),
                      "rrep_ack": int(A.AodvSent(4))},
        "ip_sent": nonzero({k: int(A.IpSent(ki)) for ki, k in enumerate(KINDS)}),
        "ip_delivered": nonzero({k: int(A.IpDelivered(ki)) for ki, k in enumerate(KINDS)}),
    }


def emit(result, t_process0):
    """Print one RESULT line, append it to results/<scenario>.jsonl and exit at once."""
    result["import_s"] = round(T_IMPORT, 2)
    result["wall_process_s"] = round(time.perf_counter() - t_process0, 2)
    result["max_rss_MB"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    result["ns3_version"] = "3.44 (PyPI ns3 3.44.post0)"
    result["loadavg_1m_at_end"] = round(os.getloadavg()[0], 2)
    line = json.dumps(result)
    print("RESULT " + line)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, result["scenario"] + ".jsonl"), "a") as f:
        f.write(line + "\n")
    sys.stdout.flush()
    # Skip interpreter teardown: cppyy's destruction of Python-owned ns-3 objects after
    # Simulator::Destroy() can corrupt the heap at exit; the result is already written.
    os._exit(0)
