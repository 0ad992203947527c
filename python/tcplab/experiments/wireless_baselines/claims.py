"""The comparative sentences of the literature this experiment checks, and how each is checked.

Sentences of seeds 000, 001 and 004 are quoted from their text (/work/shared/papers).  Balakrishnan et al.
1997 is not held here: its sentences are quoted from its published abstract (the IEEE/ACM ToN listing, e.g.
typeset.io's and Google Scholar's pages), and the ordering of its comparison from a public summary (docs/
validation/wireless_baselines.md gives both sources).  The orderings of the other papers not held here (Fall
& Floyd 1996, Fu & Liew 2003, Goff et al. 2000) are stated in brackets as their results are commonly
summarised, not quoted.
"""

from __future__ import annotations

from tcplab.experiments.base import Claim

CLAIMS: tuple[Claim, ...] = (
    Claim("An analysis of the performance of each of these techniques leads to the conclusion that TCP-aware link "
          "layer protocols provide a better throughput as compared to the other mechanisms and the current TCP "
          "implementations [1].", "seed 001 §II (after Balakrishnan et al. 1997)",
          "goodput, Snoop vs I-TCP, SACK, NewReno and Reno, paired, every FER > 0",
          finding="Snoop gives more goodput than the split connection"),
    Claim("Our results show that a reliable link-layer protocol that is TCP-aware provides very good performance. "
          "Furthermore, it is possible to achieve good performance without splitting the end-to-end connection at "
          "the base station.", "Balakrishnan et al. 1997, abstract (IEEE/ACM ToN 5(6))",
          "goodput, Snoop vs I-TCP and Snoop vs Reno, paired, every FER > 0 (ordering rule)",
          finding="TCP-aware link layer (Snoop) gives more goodput than a split connection"),
    Claim("We also demonstrate that selective acknowledgments and explicit loss notifications result in significant "
          "performance improvements.", "Balakrishnan et al. 1997, abstract",
          "goodput ordering Snoop > SACK > Reno (end-to-end SACK between the TCP-aware link layer and Reno, as the "
          "paper's comparison places E2E-SMART), paired, every FER > 0",
          finding="End-to-end TCP with selective acknowledgements lies between"),
    Claim("[Fall & Floyd 1996, CCR 26(3), not quoted] with several packets lost from one window, SACK TCP recovers "
          "better than NewReno and NewReno better than Reno", "Fall & Floyd 1996",
          "goodput ordering SACK > NewReno > Reno, paired, every FER > 0", finding="SACK recovers better than NewReno"),
    Claim("During the simulations, the Adaptive TCP outperformed other TCP variants in terms of BW utilization, for all "
          "combinations of wireline delay (latency D varies from 15 ms to 75 ms) and FER (varies from 0.1% to 10%).",
          "seed 004 §4.2.2", "goodput ordering Adaptive TCP > Westwood+ > NewReno (Fig. 8's), paired, every FER > 0",
          finding="Adaptive TCP > Westwood+ > NewReno"),
    Claim("[Fu & Liew 2003, IEEE JSAC 21(2), not quoted] Veno improves on Reno's throughput where losses are random "
          "rather than congestive", "Fu & Liew 2003", "goodput Veno > Reno, paired, every FER > 0",
          finding="Veno's goodput is above Reno's"),
    Claim("The M-TCP⁺ algorithm exhibits the lowest download response time in both cases for all disconnection periods.",
          "seed 000 §4, Table 3", "completion time, M-TCP+ vs M-TCP, NewReno and SACK, paired, every outage",
          finding="M-TCP+ has the lowest download time"),
    Claim("The M-TCP⁺ algorithm reduces download response time by 2%–15%.", "seed 000 §4, Table 3",
          "reduction over NewReno inside [2, 15] %, paired, every outage", finding="M-TCP+ reduces the download time"),
    Claim("Experimental results indicate a reasonable increase in throughput when the ACK holding scheme is used.",
          "seed 001 Abstract", "completion time, ACK holding vs Reno, paired, every outage",
          finding="ACK holding completes the download sooner"),
    Claim("[ACK holding] prevents any timeouts and hence, the reduction of the congestion window to 1.", "seed 001 §VI",
          "FH timeouts counted over every ACK-holding run with an outage", finding="ACK holding prevents any timeout"),
    Claim("[Goff et al. 2000, INFOCOM, not quoted] a receiver that advertises a zero window just before a disconnection "
          "keeps the sender from timing out and resumes it at its old rate", "Goff et al. 2000",
          "completion time, Freeze-TCP vs Reno, paired, every outage", finding="Freeze-TCP completes the download sooner"),
)
