"""Every quantitative or comparative sentence of seed 004's text (Dalal et al.), and how it is checked.

Sections: §3 (the mechanism, Figs 4-7), §4.2.1-§4.2.4 (Figs 8-11), Fairness (Fig. 12), §5 (conclusions).
"""

from __future__ import annotations

from tcplab.experiments.base import Claim

_T8 = "Fig. 8: bandwidth utilisation vs FER"
_TRACE = "a detail of the paper's one traced run (its own random draws); our Figs 4-7 show the same quantities"

CLAIMS: tuple[Claim, ...] = (
    Claim("When estimated value of RTT prior to the loss detection is identical to RTTmax, the computed value for α is 0.",
          "§4.1, Fig. 4", "not checked", reason="a property of eq. (1) itself (α = 0 when RTT = RTTmax), not a result "
                                               "of the runs"),
    Claim("the Adaptive TCP sender detected a non-congestion packet loss ... at 164.23 sec and resumed transmission at "
          "164.46 sec using a larger size of Loss Window (10 MSS) ... ssthresh(adv) is computed as 12.79", "§4.1, Fig. 5",
          "not checked", reason=_TRACE),
    Claim("saved almost 2 RTTs in comparison with traditional congestion-avoidance process", "§4.1, Fig. 5",
          "not checked", reason=_TRACE),
    Claim("a much higher estimate for ssthresh is observed using the Adaptive TCP [than TCPW]", "§4.1, Fig. 7",
          "time-weighted mean ssthresh over 100-200 s, Adaptive TCP − Westwood+",
          finding="higher ssthresh than Westwood+"),
    Claim("the BW utilization by Adaptive TCP matches to that attained by other TCP variants, when error rate is 0%.",
          "§4.2.1, Fig. 8", "TOST within ±5 % of NewReno", finding="At 0 % FER the three senders use the same"),
    Claim("all TCP schemes showed degradation for aggregate BW utilization with increase in FER.", "§4.2.1, Fig. 8",
          "utilisation at 0 % minus at the highest FER, per sender", finding="Every sender's utilisation falls as FER rises"),
    Claim("the Adaptive TCP demonstrated much higher BW utilization relative to that acquired by other TCP schemes for an "
          "identical value of FER.", "§4.2.1, Fig. 8", "paired utilisation at every FER > 0",
          finding="Adaptive TCP > Westwood+ > NewReno"),
    Claim("the Adaptive TCP showed about 100% of throughput improvement over TCP NewReno and TCPW for the error rates of "
          "0.5% and 1%.", "§4.2.1, Fig. 8", "the gains as magnitudes, 'about' = ±20 points",
          finding="about 100 % over NewReno and Westwood+"),
    Claim("the maximum BW utilization is observed as 5.99 Mbps with 0% FER", "§4.2.1",
          "the published cells of Fig. 8 at 0 %", cells=((_T8, "FER 0 %", "NewReno"), (_T8, "FER 0 %", "Westwood+"),
                                                         (_T8, "FER 0 %", "Adaptive TCP"))),
    Claim("BW utilized by TCP NewReno, TCPW and Adaptive TCP is recorded as 2.92 Mbps, 3.81 Mbps and 4.78 Mbps "
          "respectively with 0.1% of FER.", "§4.2.1", "the published cells of Fig. 8 at FER 0.1 %",
          cells=((_T8, "FER 0.1 %", "NewReno"), (_T8, "FER 0.1 %", "Westwood+"), (_T8, "FER 0.1 %", "Adaptive TCP"))),
    Claim("This turned out as 66% and 47% of improvement for residual BW by Adaptive TCP over TCP NewReno and TCPW "
          "respectively.", "§4.2.1", "the residual reductions at FER 0.1 % as magnitudes",
          finding="cuts the residual bandwidth by 66 %"),
    Claim("the improvement for BW utilization diminishes with increase in FER", "§4.2.1, Fig. 8",
          "reduction of NewReno's residual at the lowest minus the highest FER > 0", finding="shrinks as FER rises"),
    Claim("the Adaptive TCP outperformed other TCP variants in terms of BW utilization, for all combinations of wireline "
          "delay (latency D varies from 15 ms to 75 ms) and FER", "§4.2.2, Fig. 9", "paired utilisation at every D (FER 1 %)",
          finding="outperforms NewReno and Westwood+ at every wired delay"),
    Claim("BW utilization by all TCP variants diminish with increase in the wireline delay", "§4.2.2, Fig. 9",
          "utilisation at the shortest minus the longest D, per sender", finding="falls as the wired delay grows"),
    Claim("BW utilization by TCP NewReno is inferior ... Even so, Adaptive TCP and TCPW showed much better performance.",
          "§4.2.2", "the ordering at every FER > 0 (Fig. 8)", finding="Adaptive TCP > Westwood+ > NewReno"),
    Claim("a single AP with 11 Mbps of link can deliver maximum of 6.6 Mbps of TCP traffic over the backbone", "§4.2.3",
          "not checked", reason="a number cited from the paper's ref. [38]; our PHY's one-flow bound is 6.04 Mb/s (notes)"),
    Claim("A superior BW utilization by the Adaptive TCP is observed in presence of non-zero value of FER", "§4.2.3, Fig. 10",
          "paired utilisation on the 5 Mb/s backbone at every FER > 0",
          finding="On the 5 Mb/s backbone Adaptive TCP outperforms both"),
    Claim("[Adaptive TCP] also protected performance of the native TCP scheme in absence of link errors.", "§4.2.3, Fig. 10",
          "TOST within ±5 % of NewReno on the 5 Mb/s backbone at 0 %", finding="at 0 % FER Adaptive TCP matches NewReno"),
    Claim("the BW utilization by TCPW is inferior to that achieved with TCP NewReno, when wired datarate is 5 Mbps and "
          "link transmission errors are reasonably low (0.1% FER).", "§4.2.3, Fig. 10", "paired NewReno − Westwood+",
          finding="Westwood+ uses less bandwidth than NewReno"),
    Claim("With 0.1% FER, about 30% of additional TCP retransmissions for TCPW are observed in comparison to those seen "
          "with Adaptive TCP.", "§4.2.3", "the excess as a magnitude, 'about' = 20-40 %",
          finding="Westwood+ retransmits about 30 % more"),
    Claim("for a specific FER, improvement for residual BW using Adaptive TCP is seen larger with 5 Mbps compared to that "
          "observed with 100 Mbps", "§4.2.3, Fig. 10", "reduction over NewReno at 5 Mb/s minus at 100 Mb/s, same FER",
          finding="larger on the 5 Mb/s backbone than on 100 Mb/s"),
    Claim("with the increase in number of active APs, a much higher utilization of backbone capacity is observed.",
          "§4.2.4", "4 APs with one flow each vs Fig. 8's one AP, same FER", finding="More APs use more of the backbone"),
    Claim("as seen from Figure 11, the overall network BW utilization also degraded with increase in FER.", "§4.2.4, Fig. 11",
          "4-AP utilisation at 0 % minus at 1 %", finding="With 4 APs the aggregate utilisation falls as FER rises"),
    Claim("the improvement in BW utilization by Adaptive TCP is lowered with increase in FER", "§4.2.4, Fig. 11",
          "not checked", reason="needs several non-zero FERs with 4 APs; we run 0 and 1 % only (runtime)"),
    Claim("In all cases, Adaptive TCP outperformed TCP NewReno and TCPW.", "§4.2.4, Fig. 11",
          "paired aggregate utilisation, every flow count and FER", finding="With 4 APs and several flows Adaptive TCP"),
    Claim("This caused less reduction in residual BW with increase in the number of TCP flows in the network for the "
          "identical FER.", "§4.2.4 b)", "not checked",
          reason="Fig. 11's residual reductions are drawn, not printed, and our 4-AP points use the PHY bound of one "
                 "station as the maximum, which is not the maximum of 4 APs"),
    Claim("the Adaptive TCP doesn't compromise with fairness for the chosen range of FER and competing TCP flows.",
          "Fairness, Fig. 12", "Jain's index, Adaptive TCP − NewReno, TOST within ±0.05",
          finding="Jain's fairness index unchanged"),
    Claim("Adaptive TCP demonstrated more than 100% of improvement over TCP NewReno in a non-congested network scenario "
          "with transmission losses.", "§5 c)", "the largest gain over NewReno at FER > 0 above 100 %",
          finding="gains more than 100 % over NewReno"),
    Claim("In terms of reduction in residual bandwidth, the achievement is above 60%.", "§5 c)",
          "the largest reduction of NewReno's residual above 60 %", finding="residual bandwidth by more than 60 %"),
    Claim("The proposed scheme maintains the Fairness Index of native TCP scheme.", "§5 e)",
          "Jain's index by TOST within ±0.05", finding="Jain's fairness index unchanged"),
    # Issue 39, session 16: sentences of the abstract and §3-§4 the table had left out.
    Claim("it is demonstrated that the Adaptive TCP outperforms other well-established TCP variants, and yields more "
          "than 100% of the throughput performance", "Abstract",
          "the largest gain over NewReno above 100 % (as §5 c)", finding="gains more than 100 % over NewReno"),
    Claim("and more than 60% of improvement for bandwidth utilization, compared to TCP NewReno.", "Abstract",
          "the largest reduction of NewReno's residual above 60 % (as §5 c)",
          finding="residual bandwidth by more than 60 %"),
    Claim("In a network condition other than extreme congestion, the Adaptive TCP sender acquires higher value for WLA "
          "and hence requires less number of RTTs to attain usable network capacity after loss recovery.", "§3.1",
          "not checked", reason="a property of the mechanism's equations (the loss window grows with α), argued, not "
                                "measured in the paper; the point-of-action and functional tables show its effect"),
    Claim("It should be noted that, the proposed scheme also facilitates for higher size of Loss Window after Timeout.",
          "§3.1", "not checked", reason="a property of the mechanism's rule after a timeout, argued, not measured in "
                                        "the paper"),
    Claim("At the same time, the Adaptive TCP sender has computed the minimum size for ssthresh as 12 MSS (point E).",
          "§4.1, Fig. 5", "not checked", reason=_TRACE),
    Claim("During simulations in a dedicated WLAN, large number of link retransmissions is observed with increase in FER "
          "and as a consequence higher RTT estimate at sender is witnessed.", "§4.2.1", "not checked",
          reason="Fig. 8's errors act above the MAC (no link retransmission, as the paper's figures need, notes); "
                 "with errors on 802.11 frames the MAC retries but no RTT estimate is tabulated"),
    Claim("the additional improvement for BW utilization using Adaptive TCP is lowered with increase in FER.",
          "§4.2.4 a)", "Adaptive TCP's gain over NewReno at the lowest minus the highest FER > 0",
          finding="shrinks as FER rises"),
    Claim("With the increase in the total number of TCP flows under the same AP, the effect of transmission errors on "
          "overall BW utilization is decreased", "§4.2.4 b)", "not checked",
          reason="needs several non-zero FERs with 4 APs at each flow count; we run 0 and 1 % only (runtime)"),
    Claim("It means that the throughput gain is realized by using the spare bandwidth effectively and not by starving "
          "the same from other TCP flows.", "Fairness, Fig. 12", "Jain's index by TOST within ±0.05",
          finding="Jain's fairness index unchanged"),
)
