//! PHY presets and exact frame timing.
//!
//! A preset fixes every timing constant of one PHY (slot, SIFS, DIFS, EIFS, contention window
//! bounds, PLCP preamble and header, response timeout) and the MAC framing overhead; a scenario may
//! override any of them. Frame durations are computed in integer nanoseconds with the rounding
//! rules of each PHY clause, so two stations always agree on when a frame ends.
//!
//! Sources: IEEE 802.11-2020 clause 15 (DSSS), clause 16 (HR/DSSS), clause 17 (OFDM), clause 18
//! (ERP), clause 10.3 (DCF timing relations); ns-2.35 `mac/mac-802_11.{h,cc}`, `tcl/lan/ns-mac.tcl`
//! for the ns-2 model (see ALGORITHMS.md §6.1).

use crate::time::SimTime;

/// How a PHY turns a PSDU length and a rate into air time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modulation {
    /// ns-2's Mac/802_11: PLCP at `plcp_rate`, payload bits / rate exactly (no rounding to
    /// whole microseconds) — `txtime()` in ns-2.35 `mac/mac-802_11.cc`.
    Ns2Dsss,
    /// 802.11 DSSS (clause 15) and HR/DSSS (clause 16): PLCP preamble + header, then the PSDU
    /// whose LENGTH field is the duration in microseconds rounded up (802.11-2020 16.2.3.5).
    Dsss,
    /// 802.11a OFDM (clause 17): 16 µs preamble + 4 µs SIGNAL + 4 µs symbols carrying
    /// SERVICE (16 bits) + PSDU + tail (6 bits), padded to whole symbols (17.4.3).
    Ofdm,
    /// 802.11g ERP-OFDM (clause 18): as OFDM, plus a 6 µs signal extension (18.4.4).
    ErpOfdm,
}

/// Timing and framing of one PHY, all overridable from a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct PhyParams {
    pub preset: &'static str,
    pub modulation: Modulation,
    pub slot: SimTime,
    pub sifs: SimTime,
    /// DIFS = SIFS + 2·slot (802.11-2020 10.3.2.3.5).
    pub difs: SimTime,
    /// EIFS = SIFS + DIFS + ACKTxTime at the lowest mandatory rate (10.3.2.3.7).
    pub eifs: SimTime,
    /// Contention window bounds (CW+1 is a power of two; backoff is uniform on [0, CW]).
    pub cw_min: u32,
    pub cw_max: u32,
    /// Long PLCP preamble + header (DSSS): 144 + 48 bits at 1 Mb/s = 192 µs.
    pub plcp_long: SimTime,
    /// Short PLCP (HR/DSSS): 72 bits at 1 Mb/s + 48 bits at 2 Mb/s = 96 µs.
    pub plcp_short: SimTime,
    pub short_preamble: bool,
    /// OFDM preamble + SIGNAL field (16 + 4 µs).
    pub ofdm_preamble: SimTime,
    pub ofdm_symbol: SimTime,
    /// ERP signal extension (6 µs) appended to every ERP-OFDM frame.
    pub signal_extension: SimTime,
    /// aRxPHYStartDelay: from the start of a frame to PHY-RXSTART (its preamble and header).
    pub rx_start_delay: SimTime,
    /// Time from the end of a frame to the latest start of its response's reception:
    /// ACKTimeout = SIFS + slot + aRxPHYStartDelay (802.11-2020 10.3.2.11).
    pub response_timeout: SimTime,
    /// Data rates the PHY supports (b/s).
    pub rates: Vec<u64>,
    /// BSS basic rate set; control responses (CTS, ACK) and RTS go at the highest basic rate not
    /// above the data rate (10.6.6.5.2), or the lowest basic rate.
    pub basic_rates: Vec<u64>,
    /// MAC header + FCS of a data frame (24 + 4 B; ns-2 uses 34 B).
    pub data_overhead: u32,
    /// LLC/SNAP encapsulation of an IP datagram (RFC 1042: 8 B; ns-2 has none).
    pub llc: u32,
    pub ack_len: u32,
    pub rts_len: u32,
    pub cts_len: u32,
    /// Constant propagation delay inside the WLAN (Bianchi's δ; at most 1.8 µs at 550 m).
    pub prop_delay: SimTime,
    /// aCCATime: how long the PHY needs to report a busy medium once a frame reaches it. A
    /// station whose slot boundary falls before a frame's arrival + this time cannot know of
    /// it and transmits in the same slot.
    pub cca_time: SimTime,
    /// Backoff drawn from [0, CW − 1] as ns-2 does, instead of the standard's [0, CW].
    pub ns2_backoff: bool,
    /// RTS and CTS always at this rate (ns-3 sends them at the lowest basic rate); None: at the
    /// control rate of the data rate, like the ACK (10.6.6.5.2).
    pub rts_cts_rate: Option<u64>,
}

pub const MBPS: u64 = 1_000_000;

/// The PLCP of one frame as the SINR error model sees it (see [`PhyParams::plcp_header`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlcpHeader {
    pub preamble: SimTime,
    pub header: SimTime,
    /// Rate of the PLCP header (b/s).
    pub rate: u64,
    pub trailer: SimTime,
}

impl PhyParams {
    /// ns-2.35 Mac/802_11 with the DSSS PHY ("802.11 at 2 Mb/s" of the ns-2 papers).
    /// Values: ALGORITHMS.md §6.1 (ns-2.35 `ns-mac.tcl`, `mac-802_11.{h,cc}`).
    pub fn ns2_dsss() -> PhyParams {
        let slot = SimTime::from_micros(20); // ns-2 SlotTime_
        let sifs = SimTime::from_micros(10); // ns-2 SIFS_
        let difs = sifs + slot.times(2); // ns-2 mac-802_11.h: DIFS = SIFS + 2·slot
        let plcp = SimTime::from_micros(192); // PreambleLength_ 144 + PLCPHeaderLength_ 48 bits at 1 Mb/s
                                              // ns-2 EIFS = SIFS + DIFS + ACK (14 B) at the PLCP data rate (1 Mb/s): 10 + 50 + 304 µs.
        let eifs = sifs + difs + plcp + SimTime::tx_time(14, MBPS);
        PhyParams {
            preset: "ns2_dsss",
            modulation: Modulation::Ns2Dsss,
            slot,
            sifs,
            difs,
            eifs,
            cw_min: 31,   // ns-2 CWMin_
            cw_max: 1023, // ns-2 CWMax_
            plcp_long: plcp,
            plcp_short: plcp, // ns-2 has no short preamble
            short_preamble: false,
            ofdm_preamble: SimTime::ZERO,
            ofdm_symbol: SimTime::ZERO,
            signal_extension: SimTime::ZERO,
            // ns-2 waits for the whole ACK: SIFS + ACK at basicRate_ + 2·DSSS_MaxPropagationDelay
            // (mac-802_11.cc, the ACK/CTS timeouts of transmit()).
            rx_start_delay: plcp,
            response_timeout: sifs + plcp + SimTime::tx_time(14, MBPS) + SimTime::from_micros(4),
            rates: vec![MBPS, 2 * MBPS, 5_500_000, 11 * MBPS],
            basic_rates: vec![MBPS], // ns-mac.tcl basicRate_ 1Mb
            data_overhead: 34,       // ns-2 hdr_mac802_11 (30 B) + FCS (4 B)
            llc: 0,
            ack_len: 14,
            rts_len: 20,
            cts_len: 14,
            prop_delay: SimTime::from_micros(1),
            cca_time: SimTime::from_micros(15), // ns-2 models no CCA delay; the DSSS aCCATime (cl. 15 PHY characteristics)
            ns2_backoff: true,                  // mac-802_11.h BackoffTimer: Random::random() % cw
            rts_cts_rate: None,                 // every control frame at basicRate_
        }
    }

    /// 802.11 DSSS (clause 15), 1 and 2 Mb/s, long preamble.
    pub fn dsss() -> PhyParams {
        let mut p = PhyParams::hr_dsss(false);
        p.preset = "dsss";
        p.rates = vec![MBPS, 2 * MBPS];
        p
    }

    /// 802.11b HR/DSSS (clause 16), 1/2/5.5/11 Mb/s, long or short preamble.
    pub fn hr_dsss(short_preamble: bool) -> PhyParams {
        let slot = SimTime::from_micros(20); // 802.11-2020 Table 16-4 aSlotTime
        let sifs = SimTime::from_micros(10); // Table 16-4 aSIFSTime
        let difs = sifs + slot.times(2); // 10.3.2.3.5
        let plcp_long = SimTime::from_micros(192); // 16.2.2.2: 144-bit preamble + 48-bit header at 1 Mb/s
        let plcp_short = SimTime::from_micros(96); // 16.2.2.3: 72 bits at 1 Mb/s + 48 bits at 2 Mb/s
                                                   // 10.3.2.3.7: ACKTxTime at the lowest mandatory rate (1 Mb/s, long preamble) = 304 µs.
        let eifs = sifs + difs + plcp_long + SimTime::tx_time(14, MBPS);
        let rx_start = if short_preamble {
            plcp_short
        } else {
            plcp_long
        }; // Table 16-4 aRxPHYStartDelay
        PhyParams {
            preset: if short_preamble {
                "hr_dsss_short"
            } else {
                "hr_dsss"
            },
            modulation: Modulation::Dsss,
            slot,
            sifs,
            difs,
            eifs,
            cw_min: 31,   // Table 16-4 aCWmin
            cw_max: 1023, // Table 16-4 aCWmax
            plcp_long,
            plcp_short,
            short_preamble,
            ofdm_preamble: SimTime::ZERO,
            ofdm_symbol: SimTime::ZERO,
            signal_extension: SimTime::ZERO,
            rx_start_delay: rx_start,
            response_timeout: sifs + slot + rx_start, // 10.3.2.11 ACKTimeout
            rates: vec![MBPS, 2 * MBPS, 5_500_000, 11 * MBPS],
            basic_rates: vec![MBPS, 2 * MBPS], // the usual BSSBasicRateSet of an 11b BSS
            data_overhead: 28,                 // 9.3.2.1: 24-B header (3 addresses) + 4-B FCS
            llc: 8,                            // RFC 1042 LLC/SNAP
            ack_len: 14,                       // 9.3.1.3
            rts_len: 20,                       // 9.3.1.2
            cts_len: 14,                       // 9.3.1.3
            prop_delay: SimTime::from_micros(1),
            cca_time: SimTime::from_micros(15), // Table 16-4 aCCATime ≤ 15 µs
            ns2_backoff: false,
            rts_cts_rate: None,
        }
    }

    /// 802.11a OFDM (clause 17), 20 MHz channels.
    pub fn ofdm() -> PhyParams {
        let slot = SimTime::from_micros(9); // Table 17-21 aSlotTime
        let sifs = SimTime::from_micros(16); // Table 17-21 aSIFSTime
        let difs = sifs + slot.times(2);
        let mut p = PhyParams {
            preset: "ofdm",
            modulation: Modulation::Ofdm,
            slot,
            sifs,
            difs,
            eifs: SimTime::ZERO,
            cw_min: 15,   // Table 17-21 aCWmin
            cw_max: 1023, // Table 17-21 aCWmax
            plcp_long: SimTime::ZERO,
            plcp_short: SimTime::ZERO,
            short_preamble: false,
            ofdm_preamble: SimTime::from_micros(20), // 17.3.2.4: 16 µs preamble + 4 µs SIGNAL
            ofdm_symbol: SimTime::from_micros(4),    // 17.3.2.4: T_SYM
            signal_extension: SimTime::ZERO,
            rx_start_delay: SimTime::from_micros(25), // Table 17-21 aRxPHYStartDelay
            response_timeout: sifs + slot + SimTime::from_micros(25),
            rates: [6, 9, 12, 18, 24, 36, 48, 54].map(|r| r * MBPS).to_vec(),
            basic_rates: [6, 12, 24].map(|r| r * MBPS).to_vec(), // the mandatory rates (17.3.5.6)
            data_overhead: 28,
            llc: 8,
            ack_len: 14,
            rts_len: 20,
            cts_len: 14,
            prop_delay: SimTime::from_micros(1),
            cca_time: SimTime::from_micros(4), // Table 17-21 aCCATime < 4 µs
            ns2_backoff: false,
            rts_cts_rate: None,
        };
        // EIFS with the ACK at the lowest mandatory rate, 6 Mb/s.
        p.eifs = p.sifs + p.difs + p.duration(14, 6 * MBPS);
        p
    }

    /// 802.11g ERP-OFDM (clause 18) in an ERP-only BSS: short slot (9 µs) unless `long_slot`.
    pub fn erp_ofdm(long_slot: bool) -> PhyParams {
        let slot = SimTime::from_micros(if long_slot { 20 } else { 9 }); // 18.4.5 aSlotTime
        let sifs = SimTime::from_micros(10); // 18.4.5 aSIFSTime (the 6 µs extension is on the frame)
        let difs = sifs + slot.times(2);
        let mut p = PhyParams {
            preset: if long_slot {
                "erp_ofdm_long_slot"
            } else {
                "erp_ofdm"
            },
            modulation: Modulation::ErpOfdm,
            slot,
            sifs,
            difs,
            eifs: SimTime::ZERO,
            cw_min: 15, // 18.4.5: aCWmin 15 for an ERP-only BSS
            cw_max: 1023,
            plcp_long: SimTime::from_micros(192),
            plcp_short: SimTime::from_micros(96),
            short_preamble: false,
            ofdm_preamble: SimTime::from_micros(20),
            ofdm_symbol: SimTime::from_micros(4),
            signal_extension: SimTime::from_micros(6), // 18.4.4 signal extension
            rx_start_delay: SimTime::from_micros(25),  // 18.4.5 aRxPHYStartDelay (as OFDM)
            response_timeout: sifs + slot + SimTime::from_micros(25),
            rates: [6, 9, 12, 18, 24, 36, 48, 54].map(|r| r * MBPS).to_vec(),
            basic_rates: [6, 12, 24].map(|r| r * MBPS).to_vec(),
            data_overhead: 28,
            llc: 8,
            ack_len: 14,
            rts_len: 20,
            cts_len: 14,
            prop_delay: SimTime::from_micros(1),
            // 18.4.5: aCCATime < 4 µs with the short slot, ≤ 15 µs with the long one.
            cca_time: SimTime::from_micros(if long_slot { 15 } else { 4 }),
            ns2_backoff: false,
            rts_cts_rate: None,
        };
        // 10.3.2.3.7: the lowest mandatory ERP rate is 1 Mb/s DSSS (long preamble ACK, 304 µs).
        p.eifs = p.sifs + p.difs + p.plcp_long + SimTime::tx_time(14, MBPS);
        p
    }

    pub fn by_name(name: &str) -> Option<PhyParams> {
        Some(match name {
            "ns2_dsss" => PhyParams::ns2_dsss(),
            "dsss" => PhyParams::dsss(),
            "hr_dsss" => PhyParams::hr_dsss(false),
            "hr_dsss_short" => PhyParams::hr_dsss(true),
            "ofdm" => PhyParams::ofdm(),
            "erp_ofdm" => PhyParams::erp_ofdm(false),
            "erp_ofdm_long_slot" => PhyParams::erp_ofdm(true),
            _ => return None,
        })
    }

    pub const PRESETS: &'static [&'static str] = &[
        "ns2_dsss",
        "dsss",
        "hr_dsss",
        "hr_dsss_short",
        "ofdm",
        "erp_ofdm",
        "erp_ofdm_long_slot",
    ];

    /// Air time of a PSDU (MPDU) of `bytes` at `rate_bps`, PLCP included.
    pub fn duration(&self, bytes: u32, rate_bps: u64) -> SimTime {
        match self.modulation {
            Modulation::Ns2Dsss => self.plcp_long + SimTime::tx_time(bytes as u64, rate_bps),
            Modulation::Dsss => {
                // 16.2.2.3: a short preamble is not used at 1 Mb/s.
                let plcp = if self.short_preamble && rate_bps > MBPS {
                    self.plcp_short
                } else {
                    self.plcp_long
                };
                // 16.2.3.5: LENGTH = ceil(8·bytes / rate) in whole microseconds.
                let us = (bytes as u64 * 8 * MBPS).div_ceil(rate_bps.max(1));
                plcp + SimTime::from_micros(us)
            }
            Modulation::Ofdm | Modulation::ErpOfdm => {
                if self.modulation == Modulation::ErpOfdm && !self.rates_is_ofdm(rate_bps) {
                    // ERP stations also send DSSS/CCK frames (1, 2, 5.5, 11 Mb/s), long preamble.
                    let us = (bytes as u64 * 8 * MBPS).div_ceil(rate_bps.max(1));
                    return self.plcp_long + SimTime::from_micros(us);
                }
                // 17.3.5.4: N_SYM = ceil((16 + 8·LENGTH + 6) / N_DBPS), N_DBPS = rate·4 µs.
                let ndbps = rate_bps * 4 / MBPS;
                let nsym = (16 + 8 * bytes as u64 + 6).div_ceil(ndbps.max(1));
                self.ofdm_preamble + self.ofdm_symbol.times(nsym) + self.signal_extension
            }
        }
    }

    /// How the PLCP of a frame at `rate` divides: the preamble (no data bits), the PLCP header
    /// and its rate, and the trailing signal extension (no data bits). For the SINR error model.
    pub fn plcp_header(&self, rate_bps: u64) -> PlcpHeader {
        // 16.2.2.2 / 16.2.2.3: a 48-bit PLCP header at 1 Mb/s (long) or 2 Mb/s (short).
        let dsss = |short: bool| {
            let (plcp, hrate) = if short {
                (self.plcp_short, 2 * MBPS)
            } else {
                (self.plcp_long, MBPS)
            };
            let header = SimTime::tx_time(6, hrate);
            PlcpHeader {
                preamble: plcp.saturating_sub(header),
                header,
                rate: hrate,
                trailer: SimTime::ZERO,
            }
        };
        match self.modulation {
            Modulation::Ns2Dsss => dsss(false),
            Modulation::Dsss => dsss(self.short_preamble && rate_bps > MBPS),
            Modulation::ErpOfdm if !self.rates_is_ofdm(rate_bps) => dsss(false),
            // 17.3.4: the SIGNAL field is one OFDM symbol at 6 Mb/s (BPSK, rate 1/2) after the
            // 16 µs training preamble; 18.4.4: the ERP signal extension carries nothing.
            Modulation::Ofdm | Modulation::ErpOfdm => PlcpHeader {
                preamble: self.ofdm_preamble.saturating_sub(self.ofdm_symbol),
                header: self.ofdm_symbol,
                rate: 6 * MBPS,
                trailer: self.signal_extension,
            },
        }
    }

    fn rates_is_ofdm(&self, rate: u64) -> bool {
        rate.is_multiple_of(3 * MBPS) // 6, 9, 12, 18, 24, 36, 48, 54 are multiples of 3 Mb/s
    }

    /// Rate of control frames (RTS, CTS, ACK) that accompany data at `data_rate`.
    pub fn control_rate(&self, data_rate: u64) -> u64 {
        // One pass over the set: the highest basic rate not above `data_rate`, else the lowest.
        let (mut lowest, mut best) = (u64::MAX, None::<u64>);
        for &r in &self.basic_rates {
            lowest = lowest.min(r);
            if r <= data_rate && best.is_none_or(|b| r > b) {
                best = Some(r);
            }
        }
        best.unwrap_or(if self.basic_rates.is_empty() {
            MBPS
        } else {
            lowest
        })
    }

    /// MPDU length of a data frame carrying an IP datagram of `ip_len` bytes.
    pub fn data_mpdu(&self, ip_len: u32) -> u32 {
        ip_len + self.llc + self.data_overhead
    }

    pub fn ack_duration(&self, data_rate: u64) -> SimTime {
        self.duration(self.ack_len, self.control_rate(data_rate))
    }
    /// Rate of the RTS (and so of its CTS) protecting data at `data_rate`.
    pub fn rts_rate(&self, data_rate: u64) -> u64 {
        self.rts_cts_rate
            .unwrap_or_else(|| self.control_rate(data_rate))
    }
    pub fn cts_duration(&self, data_rate: u64) -> SimTime {
        self.duration(self.cts_len, self.rts_rate(data_rate))
    }
    pub fn rts_duration(&self, data_rate: u64) -> SimTime {
        self.duration(self.rts_len, self.rts_rate(data_rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> SimTime {
        SimTime::from_micros(x)
    }

    #[test]
    fn ns2_dsss_timings() {
        let p = PhyParams::ns2_dsss();
        assert_eq!(p.difs, us(50));
        assert_eq!(p.eifs, us(364)); // ALGORITHMS.md §6.1: 10 + 50 + 304
                                     // 1040-B IP packet + 34 B MAC at 2 Mb/s: 192 + 1074·8/2 = 192 + 4296 µs.
        assert_eq!(p.duration(p.data_mpdu(1040), 2 * MBPS), us(4488));
        // ACK, RTS, CTS at basic rate 1 Mb/s.
        assert_eq!(p.ack_duration(2 * MBPS), us(304));
        assert_eq!(p.rts_duration(2 * MBPS), us(352));
        assert_eq!(p.cts_duration(2 * MBPS), us(304));
        // No rounding to whole µs: 1074 B at 11 Mb/s = 781.0909… µs, rounded up to the ns.
        assert_eq!(p.duration(1074, 11 * MBPS).0, 192_000 + 781_091);
    }

    #[test]
    fn hr_dsss_timings() {
        let p = PhyParams::hr_dsss(false);
        // 1500-B IP + 8 LLC + 28 MAC = 1536 B at 11 Mb/s: ceil(12288/11) = 1118 µs + 192.
        assert_eq!(p.data_mpdu(1500), 1536);
        assert_eq!(p.duration(1536, 11 * MBPS), us(1310));
        // 5.5 Mb/s: ceil(12288/5.5) = ceil(2234.18) = 2235 µs.
        assert_eq!(p.duration(1536, 5_500_000), us(192 + 2235));
        // ACK for 11 Mb/s data goes at 2 Mb/s (highest basic rate ≤ 11): 192 + 56.
        assert_eq!(p.ack_duration(11 * MBPS), us(248));
        // ACK for 1 Mb/s data at 1 Mb/s.
        assert_eq!(p.ack_duration(MBPS), us(304));
        assert_eq!(p.eifs, us(364));
        assert_eq!(p.response_timeout, us(10 + 20 + 192));
        let s = PhyParams::hr_dsss(true);
        assert_eq!(s.duration(1536, 11 * MBPS), us(96 + 1118));
        assert_eq!(s.ack_duration(11 * MBPS), us(96 + 56));
        // Short preamble is never used at 1 Mb/s.
        assert_eq!(s.duration(14, MBPS), us(304));
    }

    #[test]
    fn ofdm_and_erp_timings() {
        let a = PhyParams::ofdm();
        assert_eq!(a.difs, us(34));
        // 1536 B at 54 Mb/s: N_DBPS 216, (16 + 12288 + 6)/216 = 56.99 → 57 symbols → 20 + 228.
        assert_eq!(a.duration(1536, 54 * MBPS), us(248));
        // ACK at 24 Mb/s (for 54 data): (16+112+6)/96 → 2 symbols → 28 µs.
        assert_eq!(a.ack_duration(54 * MBPS), us(28));
        // ACK at 6 Mb/s: 134/24 → 6 symbols → 44 µs; EIFS = 16 + 34 + 44.
        assert_eq!(a.eifs, us(94));
        let g = PhyParams::erp_ofdm(false);
        assert_eq!(g.slot, us(9));
        assert_eq!(g.difs, us(28));
        assert_eq!(g.duration(1536, 54 * MBPS), us(248 + 6));
        assert_eq!(g.ack_duration(54 * MBPS), us(34));
        // CCK frames of an ERP station use the DSSS formula.
        assert_eq!(g.duration(1536, 11 * MBPS), us(1310));
        let gl = PhyParams::erp_ofdm(true);
        assert_eq!(gl.difs, us(50));
    }

    #[test]
    fn presets_by_name() {
        for n in PhyParams::PRESETS {
            assert_eq!(PhyParams::by_name(n).map(|p| p.preset), Some(*n));
        }
        assert!(PhyParams::by_name("802.11ax").is_none());
    }

    #[test]
    fn response_timeouts_eifs_and_rate_sets_of_every_preset() {
        // ns-2: SIFS + the whole ACK at basicRate_ (192 + 112 µs) + 2 × 2 µs propagation.
        let ns2 = PhyParams::ns2_dsss();
        assert_eq!(ns2.response_timeout, us(10 + 192 + 112 + 4));
        // 10.3.2.11 ACKTimeout = SIFS + slot + aRxPHYStartDelay (25 µs for OFDM and ERP).
        let a = PhyParams::ofdm();
        assert_eq!(a.response_timeout, us(16 + 9 + 25));
        let g = PhyParams::erp_ofdm(false);
        assert_eq!(g.response_timeout, us(10 + 9 + 25));
        let gl = PhyParams::erp_ofdm(true);
        assert_eq!(gl.response_timeout, us(10 + 20 + 25));
        assert_eq!(PhyParams::hr_dsss(true).response_timeout, us(10 + 20 + 96));
        // 10.3.2.3.7: an ERP BSS's EIFS uses the 1 Mb/s DSSS ACK (long preamble, 304 µs).
        assert_eq!(g.eifs, us(10 + 28 + 304));
        assert_eq!(gl.eifs, us(10 + 50 + 304));
        // 17.3.5.6 / 18.4: the eight OFDM rates, of which 6, 12 and 24 Mb/s are basic.
        let ofdm_rates: Vec<u64> = [6, 9, 12, 18, 24, 36, 48, 54].map(|r| r * MBPS).to_vec();
        for p in [&a, &g, &gl] {
            assert_eq!(p.rates, ofdm_rates, "{}", p.preset);
            assert_eq!(
                p.basic_rates,
                vec![6 * MBPS, 12 * MBPS, 24 * MBPS],
                "{}",
                p.preset
            );
        }
        assert_eq!(PhyParams::dsss().rates, vec![MBPS, 2 * MBPS]);
    }

    #[test]
    fn plcp_header_of_each_modulation() {
        let hdr = |p: &PhyParams, rate| {
            let h = p.plcp_header(rate);
            (h.preamble, h.header, h.rate, h.trailer)
        };
        // 16.2.2.2: the long PLCP, 144 µs of SYNC/SFD then 48 header bits at 1 Mb/s.
        let long = (us(144), us(48), MBPS, SimTime::ZERO);
        assert_eq!(hdr(&PhyParams::ns2_dsss(), 2 * MBPS), long);
        // 16.2.2.3: the short PLCP (72 µs, then 48 bits at 2 Mb/s), but never at 1 Mb/s.
        let short = PhyParams::hr_dsss(true);
        assert_eq!(hdr(&short, MBPS), long);
        assert_eq!(
            hdr(&short, 2 * MBPS),
            (us(72), us(24), 2 * MBPS, SimTime::ZERO)
        );
        // An ERP station's DSSS/CCK frame has the long DSSS PLCP and no signal extension.
        assert_eq!(hdr(&PhyParams::erp_ofdm(false), 11 * MBPS), long);
        // 17.3.4: 16 µs of training, the SIGNAL symbol at 6 Mb/s; 802.11a has no extension.
        assert_eq!(
            hdr(&PhyParams::ofdm(), 6 * MBPS),
            (us(16), us(4), 6 * MBPS, SimTime::ZERO)
        );
    }

    #[test]
    fn rts_and_cts_go_at_a_fixed_rate_when_configured() {
        // ns-3 sends RTS/CTS at the lowest basic rate; the ACK still follows the data rate.
        let mut p = PhyParams::hr_dsss(false);
        p.rts_cts_rate = Some(MBPS);
        assert_eq!(p.rts_rate(11 * MBPS), MBPS);
        assert_eq!(p.cts_duration(11 * MBPS), us(304));
        assert_eq!(p.rts_duration(11 * MBPS), us(192 + 160));
        assert_eq!(p.ack_duration(11 * MBPS), us(248));
        // Data below every basic rate: control frames at the lowest basic rate.
        let g = PhyParams::erp_ofdm(false);
        assert_eq!(g.control_rate(MBPS), 6 * MBPS);
    }

    #[test]
    fn control_frames_take_the_highest_basic_rate_not_above_the_data_rate() {
        // 10.6.6.5.2: the highest rate of the BSSBasicRateSet not above the data rate, in any
        // order of the set; below all of them, the lowest; no set at all, 1 Mb/s.
        let mut p = PhyParams::erp_ofdm(false);
        p.basic_rates = vec![24 * MBPS, 6 * MBPS, 12 * MBPS];
        assert_eq!(p.control_rate(54 * MBPS), 24 * MBPS);
        assert_eq!(p.control_rate(18 * MBPS), 12 * MBPS);
        assert_eq!(p.control_rate(12 * MBPS), 12 * MBPS);
        assert_eq!(p.control_rate(9 * MBPS), 6 * MBPS);
        assert_eq!(p.control_rate(2 * MBPS), 6 * MBPS);
        p.basic_rates.clear();
        assert_eq!(p.control_rate(11 * MBPS), MBPS);
    }

    #[test]
    fn the_service_and_tail_bits_can_add_an_ofdm_symbol() {
        // 17.3.5.4: 100 B at 6 Mb/s (N_DBPS 24) is 16 + 800 + 6 = 822 bits, 34.25 symbols → 35;
        // without the 6 tail bits it would fit in 34.
        let a = PhyParams::ofdm();
        assert_eq!(a.duration(100, 6 * MBPS), us(20 + 35 * 4));
    }
}
