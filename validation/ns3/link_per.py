#!/usr/bin/env python3
"""Frame error rate vs SNR on a 2-node 802.11 link in ns-3 3.44, for tcplab's SINR reception
model (docs/validation/wifi.md, "Link level vs ns-3").

Per rate (802.11b 1/2/5.5/11 Mb/s, 802.11g ERP-OFDM 6..54 Mb/s) one simulation holds one
sender/receiver pair per SNR point, each pair on its own YansWifiChannel (no pair hears another)
whose FixedRssLossModel sets the received power to SNR + ns-3's noise floor
(1.3803e-23 · 290 K · channel width · noise figure 7 dB; 22 MHz for DSSS, 20 MHz for OFDM):
the SNR axis is the received power over the channel's thermal noise, as tcplab's (which ns-3
itself departs from for DSSS by 0.41 dB, see DSSS_NOISE_WIDTH_MHZ).
The error-rate model is NistErrorRateModel, selected explicitly (ns-3's default is
TableBasedErrorRateModel; for the DSSS rates both dispatch to DsssErrorRateModel, GSL integral
for CCK), the preamble detection model is disabled (its default drops frames below 4 dB SNR
before any error model runs), and RxSensitivity is lowered to -120 dBm so that every frame
reaches the error model.

Traffic: ad hoc MAC, a saturated PacketSocket source of 1500-B MSDUs (MPDU 1500 + 8 LLC/SNAP + 24
+ 4 = 1536 B, as tcplab's 1472-B UDP datagrams), constant rate, long preamble (11b). The first
`--frames` data frames each sender puts on the air (retransmissions included) are counted, and
those the receiver decodes (the PHY state's RxOk: header and payload survived): PER = 1 −
decoded / sent. The PER of ns-3's own error model for one frame (header chunk × payload chunk,
GetChunkSuccessRate) is printed beside each point.

Prints one "RESULT {json}" line and writes results/link_per.json.
Usage (from this folder): /work/ns3venv/bin/python link_per.py [--frames 2000]
"""
import argparse
import json
import math
import os
import time

T_PROCESS0 = time.perf_counter()
from ns import ns  # noqa: E402

ns.cppyy.cppdef(
    r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/mobility-module.h"
#include "ns3/applications-module.h"
#include "ns3/wifi-module.h"
namespace linkper
{
using namespace ns3;

// One sender/receiver pair: data frames counted on the air and decoded at the receiver.
struct Link
{
    uint64_t sent = 0;
    uint64_t decoded = 0;
    bool counting = false;  // the frame on the air is one of the first `g_frames`
};
static std::vector<Link> g_links;
static uint64_t g_frames = 0;
static uint32_t g_done = 0;

bool IsData(Ptr<const Packet> p)
{
    WifiMacHeader h;
    p->PeekHeader(h);
    return h.IsData();
}

void TxBegin(uint32_t i, Ptr<const Packet> p, double)
{
    if (!IsData(p)) { return; }
    Link& l = g_links[i];
    l.counting = l.sent < g_frames;
    if (!l.counting) { return; }
    if (++l.sent == g_frames && ++g_done == g_links.size())
    {
        // every pair has sent its frames: leave time for the last one (12.5 ms at 1 Mb/s)
        Simulator::Schedule(MilliSeconds(100), &Simulator::Stop);
    }
}

// A sender has one data frame on the air at a time, so a decoded data frame is the one its
// last PHY-TXSTART counted (or not). The PHY state's RxOk fires for frames whose header and
// payload both survived (PhyRxEnd fires for every frame whose header did).
void RxOk(uint32_t i, Ptr<const Packet> p, double, WifiMode, WifiPreamble)
{
    if (IsData(p) && g_links[i].counting) { g_links[i].decoded++; }
}

uint64_t Sent(uint32_t i) { return g_links[i].sent; }
uint64_t Decoded(uint32_t i) { return g_links[i].decoded; }

// One simulation: a pair per received power in `rssDbm`, all at `mode`.
void RunRate(WifiStandard standard, std::string mode, double mbps, std::vector<double> rssDbm,
             uint64_t frames, uint32_t payload)
{
    g_links.assign(rssDbm.size(), Link());
    g_frames = frames;
    g_done = 0;
    PacketSocketHelper sockets;
    for (uint32_t i = 0; i < rssDbm.size(); i++)
    {
        NodeContainer pair;
        pair.Create(2);
        WifiHelper wifi;
        wifi.SetStandard(standard);
        wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager", "DataMode",
                                     StringValue(mode), "ControlMode", StringValue(mode));
        YansWifiChannelHelper ch;
        ch.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
        ch.AddPropagationLoss("ns3::FixedRssLossModel", "Rss", DoubleValue(rssDbm[i]));
        YansWifiPhyHelper phy;
        phy.SetChannel(ch.Create());
        phy.SetErrorRateModel("ns3::NistErrorRateModel");
        phy.DisablePreambleDetectionModel();
        phy.Set("RxSensitivity", DoubleValue(-120.0));
        WifiMacHelper mac;
        mac.SetType("ns3::AdhocWifiMac");
        NetDeviceContainer devs = wifi.Install(phy, mac, pair);

        MobilityHelper mob;
        Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
        pos->Add(Vector(0.0, 0.0, 0.0));
        pos->Add(Vector(1.0, 0.0, 0.0));
        mob.SetPositionAllocator(pos);
        mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
        mob.Install(pair);

        sockets.Install(pair);
        PacketSocketAddress to;
        to.SetSingleDevice(devs.Get(0)->GetIfIndex());
        to.SetPhysicalAddress(devs.Get(1)->GetAddress());
        to.SetProtocol(1);
        OnOffHelper onoff("ns3::PacketSocketFactory", Address(to));
        onoff.SetConstantRate(DataRate(2e6 * mbps), payload);  // twice the PHY rate: saturated
        ApplicationContainer app = onoff.Install(pair.Get(0));
        app.Start(Seconds(0.5));

        Ptr<WifiPhy> tx = DynamicCast<WifiNetDevice>(devs.Get(0))->GetPhy();
        Ptr<WifiPhy> rx = DynamicCast<WifiNetDevice>(devs.Get(1))->GetPhy();
        tx->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&TxBegin, i));
        rx->GetState()->TraceConnectWithoutContext("RxOk", MakeBoundCallback(&RxOk, i));
    }
    Simulator::Stop(Seconds(100000.0));
    Simulator::Run();
    Simulator::Destroy();
}

// ns-3's own PER of one frame at `snr` (linear): header chunk at the header mode, payload chunk
// at the data mode, bits = duration · rate as InterferenceHelper counts them.
double ModelPer(WifiStandard standard, std::string mode, double snr, uint32_t mpduBytes)
{
    Ptr<NistErrorRateModel> m = CreateObject<NistErrorRateModel>();
    WifiTxVector v;
    v.SetMode(WifiMode(mode));
    v.SetPreambleType(WIFI_PREAMBLE_LONG);
    v.SetChannelWidth(standard == WIFI_STANDARD_80211b ? MHz_u{22} : MHz_u{20});
    WifiMode data = v.GetMode();
    WifiPhyBand band = WIFI_PHY_BAND_2_4GHZ;
    Time payload = WifiPhy::CalculateTxDuration(mpduBytes, v, band) -
                   WifiPhy::CalculatePhyPreambleAndHeaderDuration(v);
    WifiMode hdr;
    Time hdrTime;
    if (standard == WIFI_STANDARD_80211b)
    {
        hdr = DsssPhy::GetDsssRate1Mbps();
        hdrTime = MicroSeconds(48);  // long PLCP header at 1 Mb/s
    }
    else
    {
        hdr = ErpOfdmPhy::GetErpOfdmRate6Mbps();
        hdrTime = MicroSeconds(4);  // SIGNAL; ns-3 counts the payload's bits over the whole
                                    // PSDU duration, the 6 us ERP signal extension included
    }
    auto bits = [&](WifiMode md, Time t) {
        return static_cast<uint64_t>(t.GetSeconds() * md.GetDataRate(v));
    };
    double ok = m->GetChunkSuccessRate(hdr, v, snr, bits(hdr, hdrTime)) *
                m->GetChunkSuccessRate(data, v, snr, bits(data, payload));
    return 1.0 - ok;
}
}  // namespace linkper
"""
)
L = ns.cppyy.gbl.linkper

BOLTZMANN = 1.3803e-23  # ns-3's constant (interference-helper.cc)
NOISE_FIGURE_DB = 7.0   # YansWifiPhy's default RxNoiseFigure
PAYLOAD = 1500          # MSDU bytes
MPDU = PAYLOAD + 8 + 24 + 4

RATES = [  # (PHY, Mb/s, ns-3 mode, channel width MHz)
    ("11b", 1.0, "DsssRate1Mbps", 22), ("11b", 2.0, "DsssRate2Mbps", 22),
    ("11b", 5.5, "DsssRate5_5Mbps", 22), ("11b", 11.0, "DsssRate11Mbps", 22),
    ("11g", 6.0, "ErpOfdmRate6Mbps", 20), ("11g", 9.0, "ErpOfdmRate9Mbps", 20),
    ("11g", 12.0, "ErpOfdmRate12Mbps", 20), ("11g", 18.0, "ErpOfdmRate18Mbps", 20),
    ("11g", 24.0, "ErpOfdmRate24Mbps", 20), ("11g", 36.0, "ErpOfdmRate36Mbps", 20),
    ("11g", 48.0, "ErpOfdmRate48Mbps", 20), ("11g", 54.0, "ErpOfdmRate54Mbps", 20),
]
STEP_DB = 0.25


def noise_dbm(width_mhz):
    return 10 * math.log10(BOLTZMANN * 290 * width_mhz * 1e6 * 1e3) + NOISE_FIGURE_DB


# ns-3 3.44 measures a DSSS frame's SNR over 20 MHz, not over its 22 MHz channel:
# DsssPhy::GetRxChannelWidth returns 20 MHz whenever the PHY's channel is wider than 20 MHz (a
# workaround for HE PHYs, ns-3 issue #402), which an 802.11b channel (22 MHz) is. Its noise floor
# is then 10·log10(22/20) = 0.41 dB lower, and its error model sees that much more SNR than the
# received power over the 22-MHz floor gives.
DSSS_NOISE_WIDTH_MHZ = 20


def model_per(std, mode, snr_db):
    """ns-3's model PER at `snr_db` over the channel's nominal width, as its PHY sees it."""
    if std == ns.WIFI_STANDARD_80211b:
        snr_db += 10 * math.log10(22 / DSSS_NOISE_WIDTH_MHZ)
    return float(L.ModelPer(std, mode, 10 ** (snr_db / 10), MPDU))


def snr_at(std, mode, per):
    """SNR (dB) where ns-3's model PER falls to `per` (bisection, PER decreasing in SNR)."""
    lo, hi = -15.0, 40.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if model_per(std, mode, mid) > per else (lo, mid)
    return (lo + hi) / 2


def crossing(snrs, pers, level):
    """First SNR where the measured PER falls to `level` (linear between grid points)."""
    for (s0, p0), (s1, p1) in zip(zip(snrs, pers), zip(snrs[1:], pers[1:])):
        if p0 >= level > p1:
            return round(s0 + (p0 - level) / (p0 - p1) * (s1 - s0), 3)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=2000, help="data frames counted per SNR")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    ns.RngSeedManager.SetSeed(args.seed)
    rows = []
    t0 = time.perf_counter()
    for phy, mbps, mode, width in RATES:
        std = ns.WIFI_STANDARD_80211b if phy == "11b" else ns.WIFI_STANDARD_80211g
        # the grid: from 0.5 dB below the model's 99.5 % PER to 0.5 dB above its 0.5 %
        lo = math.floor((snr_at(std, mode, 0.995) - 0.5) / STEP_DB) * STEP_DB
        hi = math.ceil((snr_at(std, mode, 0.005) + 0.5) / STEP_DB) * STEP_DB
        snrs = [round(lo + k * STEP_DB, 2) for k in range(int(round((hi - lo) / STEP_DB)) + 1)]
        n0 = noise_dbm(width)
        L.RunRate(std, mode, mbps, [s + n0 for s in snrs], args.frames, PAYLOAD)
        pers = [1.0 - int(L.Decoded(i)) / int(L.Sent(i)) for i in range(len(snrs))]
        row = {"phy": phy, "rate_mbps": mbps, "noise_dbm": round(n0, 3),
               "points": [{"snr_db": s, "sent": int(L.Sent(i)), "decoded": int(L.Decoded(i)),
                           "per": round(p, 4), "model_per": round(model_per(std, mode, s), 4)}
                          for i, (s, p) in enumerate(zip(snrs, pers))],
               "snr_at_per_90": crossing(snrs, pers, 0.9),
               "snr_at_per_10": crossing(snrs, pers, 0.1),
               "model_snr_at_per_90": round(snr_at(std, mode, 0.9), 3),
               "model_snr_at_per_10": round(snr_at(std, mode, 0.1), 3)}
        print("%s %5.1f Mb/s: PER 90 %% at %s dB, 10 %% at %s dB (model %.3f / %.3f)" % (
            phy, mbps, row["snr_at_per_90"], row["snr_at_per_10"],
            row["model_snr_at_per_90"], row["model_snr_at_per_10"]), flush=True)
        rows.append(row)
    res = {"scenario": "link_per", "frames_per_point": args.frames, "seed": args.seed,
           "mpdu_bytes": MPDU, "noise_figure_db": NOISE_FIGURE_DB,
           "error_rate_model": "ns3::NistErrorRateModel", "preamble_detection": "disabled",
           "rows": rows, "wall_s": round(time.perf_counter() - t0, 1),
           "wall_process_s": round(time.perf_counter() - T_PROCESS0, 1),
           "ns3_version": "3.44 (PyPI ns3 3.44.post0)"}
    line = json.dumps(res)
    print("RESULT " + line)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "link_per.json"), "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    # Skip interpreter teardown (cppyy and destroyed ns-3 objects, as adhoc_common.emit).
    os._exit(0)


if __name__ == "__main__":
    main()
