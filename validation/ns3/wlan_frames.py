#!/usr/bin/env python3
"""Per-frame account of ns-3 3.44's wlan_download (the setup of ../shared/peers/ns3/wlan_download.py:
FH --100 Mb/s, 1 ms-- AP --802.11b 11 Mb/s, long preamble, ACK at 2 Mb/s-- station at 10 m;
TCP NewReno without SACK/timestamps, MSS 1460, receive buffer 8760 B), to explain the MAC
retries tcplab counts on the same download (docs/validation/wifi.md).

Every PHY-TXSTART is traced in C++ (no Python in the event loop). Per sender and frame type
(TCP data, TCP ACK, MAC ACK, management) it counts transmissions and retransmissions (Retry bit)
and collisions (two transmissions overlapping in time); for every first attempt of a data frame
it records the idle gap since the end of the last frame on the medium, as DIFS + k slots, and
whether the last frame was the sender's own MAC ACK (the TCP ACK was queued while that ACK was
pending).

Usage (from this folder): /work/ns3venv/bin/python wlan_frames.py --bytes 10000000 --delack 2
Prints one "RESULT {json}" line and appends it to results/wlan_frames.jsonl.
"""
import argparse
import json
import os
import time

from ns import ns

ns.cppyy.cppdef(
    r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/applications-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/mobility-module.h"
#include "ns3/wifi-module.h"
namespace wframes
{
using namespace ns3;

enum Kind { K_TCP_DATA = 0, K_TCP_ACK = 1, K_MAC_ACK = 2, K_OTHER = 3, N_KINDS = 4 };
static const int MAX_K = 64;
struct Sender
{
    uint64_t tx[N_KINDS] = {};
    uint64_t retries[N_KINDS] = {};
    uint64_t collided[N_KINDS] = {};
    // first attempts of data frames: idle gap before them in slots after DIFS (k), split by
    // whether the frame before was this sender's own MAC ACK
    uint64_t gapAfterOwnAck[MAX_K + 2] = {};
    uint64_t gapOther[MAX_K + 2] = {};
};
static Sender g_s[2];
static Time g_lastEnd;      // end of the last frame on the medium
static int g_lastSender = -1;
static Kind g_lastKind = K_OTHER;
static Time g_difs = MicroSeconds(50), g_slot = MicroSeconds(20);
// the frame on the air (for overlap detection)
static Time g_curEnd;
static int g_curSender = -1;
static Kind g_curKind = K_OTHER;
static bool g_curCollided = false;

Kind KindOf(Ptr<const WifiPsdu> psdu)
{
    const WifiMacHeader& h = psdu->GetHeader(0);
    if (h.IsAck()) { return K_MAC_ACK; }
    if (!h.IsData()) { return K_OTHER; }
    // MSDU: LLC/SNAP, IPv4, TCP; a segment with payload is TCP data
    Ptr<Packet> p = psdu->GetPayload(0)->Copy();
    LlcSnapHeader llc;
    p->RemoveHeader(llc);
    if (llc.GetType() != 0x0800) { return K_OTHER; }
    Ipv4Header ip;
    p->RemoveHeader(ip);
    if (ip.GetProtocol() != 6) { return K_OTHER; }
    TcpHeader th;
    p->RemoveHeader(th);
    return p->GetSize() > 0 ? K_TCP_DATA : K_TCP_ACK;
}

void TxBegin(int who, WifiConstPsduMap psdus, WifiTxVector txv, double)
{
    Ptr<const WifiPsdu> psdu = psdus.begin()->second;
    Kind k = KindOf(psdu);
    Time now = Simulator::Now();
    Time dur = WifiPhy::CalculateTxDuration(psdu->GetSize(), txv, WIFI_PHY_BAND_2_4GHZ);
    Sender& s = g_s[who];
    s.tx[k]++;
    bool retry = psdu->GetHeader(0).IsRetry();
    if (retry) { s.retries[k]++; }
    if (now < g_curEnd && g_curSender >= 0)
    {
        // overlaps the frame on the air: both collided
        s.collided[k]++;
        if (!g_curCollided) { g_s[g_curSender].collided[g_curKind]++; }
        g_curCollided = true;
        g_curEnd = Max(g_curEnd, now + dur);
        g_lastEnd = Max(g_lastEnd, now + dur);
        return;
    }
    if (!retry && (k == K_TCP_DATA || k == K_TCP_ACK))
    {
        Time gap = now - g_lastEnd;
        int64_t slots = (gap - g_difs).GetNanoSeconds();
        int idx = slots < 0 ? MAX_K + 1
                            : std::min<int64_t>((slots + g_slot.GetNanoSeconds() / 2) /
                                                    g_slot.GetNanoSeconds(),
                                                MAX_K);
        bool afterOwnAck = g_lastSender == who && g_lastKind == K_MAC_ACK;
        (afterOwnAck ? s.gapAfterOwnAck : s.gapOther)[idx]++;
    }
    g_curEnd = now + dur;
    g_curSender = who;
    g_curKind = k;
    g_curCollided = false;
    g_lastEnd = now + dur;
    g_lastSender = who;
    g_lastKind = k;
}

void Hook(Ptr<NetDevice> dev, int who)
{
    DynamicCast<WifiNetDevice>(dev)->GetPhy()->TraceConnectWithoutContext(
        "PhyTxPsduBegin", MakeBoundCallback(&TxBegin, who));
}

static uint64_t g_rx = 0, g_target = 0;
static double g_done = -1;
void SinkRx(Ptr<const Packet> p, const Address&)
{
    g_rx += p->GetSize();
    if (g_done < 0 && g_rx >= g_target)
    {
        g_done = Simulator::Now().GetSeconds();
        Simulator::Stop();
    }
}
void HookSink(Ptr<Application> app, uint64_t target)
{
    g_target = target;
    app->TraceConnectWithoutContext("Rx", MakeCallback(&SinkRx));
}
double Done() { return g_done; }
uint64_t Tx(int who, int k) { return g_s[who].tx[k]; }
uint64_t Retries(int who, int k) { return g_s[who].retries[k]; }
uint64_t Collided(int who, int k) { return g_s[who].collided[k]; }
uint64_t Gap(int who, bool afterOwnAck, int idx)
{
    return afterOwnAck ? g_s[who].gapAfterOwnAck[idx] : g_s[who].gapOther[idx];
}
}  // namespace wframes
"""
)
W = ns.cppyy.gbl.wframes
KINDS = ["tcp_data", "tcp_ack", "mac_ack", "other"]
MAX_K = 64


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bytes", type=int, default=10_000_000)
    p.add_argument("--delack", type=int, default=2, help="TcpSocket::DelAckCount (1 = off)")
    args = p.parse_args()
    # TCP as ../shared/peers/ns3/common.py tcp_defaults(1460, 8760, delack, 0.2, classic=True)
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1460))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(8760))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(args.delack))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.Seconds(0.2)))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(False))
    ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType",
                         ns.StringValue("ns3::TcpClassicRecovery"))

    nodes = ns.NodeContainer()
    nodes.Create(3)
    fh, ap, wh = nodes.Get(0), nodes.Get(1), nodes.Get(2)
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.StringValue("100Mbps"))
    p2p.SetChannelAttribute("Delay", ns.StringValue("1ms"))
    wired = p2p.Install(fh, ap)
    ns.Config.SetDefault("ns3::ConstantRateWifiManager::DataMode",
                         ns.StringValue("DsssRate11Mbps"))
    ns.Config.SetDefault("ns3::ConstantRateWifiManager::ControlMode",
                         ns.StringValue("DsssRate1Mbps"))
    wifi = ns.WifiHelper()
    wifi.SetStandard(ns.WIFI_STANDARD_80211b)
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager")
    chan = ns.YansWifiChannelHelper.Default()
    phy = ns.YansWifiPhyHelper()
    phy.SetChannel(chan.Create())
    ssid = ns.Ssid("anchor")
    mac = ns.WifiMacHelper()
    mac.SetType("ns3::StaWifiMac", "Ssid", ns.SsidValue(ssid),
                "ActiveProbing", ns.BooleanValue(False))
    sta_dev = wifi.Install(phy, mac, wh)
    mac.SetType("ns3::ApWifiMac", "Ssid", ns.SsidValue(ssid))
    ap_dev = wifi.Install(phy, mac, ap)
    mob = ns.MobilityHelper()
    pos = ns.ListPositionAllocator()
    for x in (-50.0, 0.0, 10.0):
        pos.Add(ns.Vector(x, 0.0, 0.0))
    mob.SetPositionAllocator(pos)
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel")
    mob.Install(nodes)
    ns.InternetStackHelper().Install(nodes)
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(wired)
    addr.SetBase(ns.Ipv4Address("10.1.2.0"), ns.Ipv4Mask("255.255.255.0"))
    wlan_if = addr.Assign(ns.NetDeviceContainer(ap_dev, sta_dev))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    sink = ns.PacketSinkHelper("ns3::TcpSocketFactory",
                               ns.InetSocketAddress(ns.Ipv4Address.GetAny(), 5000).ConvertTo())
    sink_apps = sink.Install(wh)
    bulk = ns.BulkSendHelper("ns3::TcpSocketFactory",
                             ns.InetSocketAddress(wlan_if.GetAddress(1), 5000).ConvertTo())
    bulk.SetAttribute("MaxBytes", ns.UintegerValue(args.bytes))
    bulk_apps = bulk.Install(fh)
    bulk_apps.Start(ns.Seconds(1.0))
    W.HookSink(sink_apps.Get(0), args.bytes)
    W.Hook(ap_dev.Get(0), 0)
    W.Hook(sta_dev.Get(0), 1)
    ns.Simulator.Stop(ns.Seconds(3600.0))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    res = {"scenario": "wlan_frames", "bytes": args.bytes, "delack_count": args.delack,
           "download_time_s": round(float(W.Done()) - 1.0, 6),
           "wall_run_s": round(time.perf_counter() - t0, 2)}
    for who, name in ((0, "ap"), (1, "sta")):
        res[name] = {
            "tx": {k: int(W.Tx(who, i)) for i, k in enumerate(KINDS)},
            "retries": {k: int(W.Retries(who, i)) for i, k in enumerate(KINDS)},
            "collided": {k: int(W.Collided(who, i)) for i, k in enumerate(KINDS)},
            # first attempts of data frames by the idle gap before them: DIFS + k slots
            "gap_slots_after_own_mac_ack": {str(k): int(W.Gap(who, True, k))
                                            for k in range(MAX_K + 1) if W.Gap(who, True, k)},
            "gap_slots_other": {str(k): int(W.Gap(who, False, k))
                                for k in range(MAX_K + 1) if W.Gap(who, False, k)},
            "gap_below_difs": int(W.Gap(who, True, MAX_K + 1)) + int(W.Gap(who, False, MAX_K + 1)),
        }
    line = json.dumps(res)
    print("RESULT " + line, flush=True)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "wlan_frames.jsonl"), "a") as f:
        f.write(line + "\n")
    os._exit(0)  # skip interpreter teardown (see adhoc_common.emit)


if __name__ == "__main__":
    main()
