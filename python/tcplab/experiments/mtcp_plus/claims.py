"""Every quantitative or comparative sentence of seed 000's text (Omueti & Trajković), and how it is checked.

Sections: Abstract, §1 (introduction), §4.1–§4.3 (results: no disconnection, disconnections,
disconnections and congestion), figure captions, §5 (conclusions).  A claim is decided by the finding
whose text contains ``finding``; those that no run of ours can decide say why.
"""

from __future__ import annotations

from tcplab.experiments.base import Claim

_T4 = "rests on Table 4, which the model does not reproduce (see the table's reason)"
_T6 = "rests on Table 6, which the model does not reproduce (see the table's reason)"
_FIG = "read off the goodput curves of Figs {}; the paper prints no number for it and defines no time at which it is read"

CLAIMS: tuple[Claim, ...] = (
    Claim("The M-TCP⁺ algorithm performs best when the TCP delayed ACK option is enabled.", "Abstract",
          "response time with delayed ACK on vs off, per variant and case", finding="Delayed ACK on is faster than off"),
    Claim("In scenarios without disconnections, the M-TCP⁺ algorithm does not introduce significant processing delay.",
          "Abstract", "Table 2: M-TCP+ vs NewReno by TOST", finding="the four variants have similar response times"),
    Claim("in scenarios with disconnections, the M-TCP⁺ algorithm shows 2%–15% performance improvement.", "Abstract",
          "cut in response time vs NewReno per disconnection case, inside [2, 15] %",
          finding="cuts the response time by 2–15 %"),
    Claim("In cases with disconnections, the proposed M-TCP⁺ algorithm shows improved performance compared to M-TCP, "
          "TCP NewReno, and TCP SACK.", "§1", "paired response times in every disconnection case",
          finding="has the lowest download response time in every disconnection case"),
    Claim("The four TCP variants exhibit similar performance in all cases.", "§4.1", "Table 2 by TOST (±1 %)",
          finding="the four variants have similar response times"),
    Claim("The download response times for the case with delayed ACKs (enabled) are lower than for the case with "
          "delayed ACKs (disabled).", "§4.1", "paired response times, on vs off",
          finding="Delayed ACK on is faster than off"),
    Claim("the case with delayed ACKs (enabled) shows higher goodput than the case without delayed ACKs (disabled)",
          "§4.1, Fig. 4", "a fixed 100 MB file: higher goodput is a shorter download",
          finding="Delayed ACK on is faster than off"),
    Claim("All four TCP variants reach steady-state beyond 300 s of simulation time.", "§4.1",
          "not checked", reason=_FIG.format("4") + " (a steady state, not a value)"),
    Claim("No segment losses occurred in the scenarios without disconnection ... there are no retransmissions.",
          "§4.1", "retransmission ratio 0 in every run without disconnections",
          finding="Without disconnections no segment is retransmitted"),
    Claim("The four TCP variants have similar goodput performance.", "Fig. 4 caption", "Table 2 by TOST (±1 %)",
          finding="the four variants have similar response times"),
    Claim("The M-TCP⁺ algorithm exhibits the lowest download response time in both cases for all disconnection periods.",
          "§4.2", "paired response times; vs M-TCP without delayed ACK a TOST tie counts (the paper's own 30 s tie)",
          finding="has the lowest download response time in every disconnection case"),
    Claim("In the case of a lengthy (180 s) disconnection with delayed ACKs, the M-TCP⁺ algorithm is the only variant "
          "that completes the file download.", "§4.2", "completion in every replication",
          finding="only M-TCP+ completes the download"),
    Claim("The M-TCP⁺ algorithm reduces download response time by 2%–15%.", "§4.2",
          "cut vs NewReno per case inside [2, 15] % (both ends as printed)", finding="cuts the response time by 2–15 %"),
    Claim("The download response time with delayed ACKs remains lower than without delayed ACKs.", "§4.2",
          "paired response times, on vs off", finding="Delayed ACK on is faster than off"),
    Claim("With delayed ACK option enabled, the M-TCP⁺ algorithm outperforms the other three TCP variants", "§4.2, Fig. 6",
          "paired response times (10 s with the others)", finding="has the lowest download response time in every"),
    Claim("[M-TCP⁺] improves goodput by ~12%.", "§4.2, Fig. 6", "not checked",
          reason=_FIG.format("5, 6") + "; its own Table 3 gives 6.6 % for this case (322.5 vs 302.4 s)"),
    Claim("When the delayed ACK option is disabled, the M-TCP⁺ and M-TCP algorithms exhibit similar goodput performance",
          "§4.2, Fig. 5", "Table 3 without delayed ACK by TOST (±1 %)",
          finding="M-TCP and M-TCP+ have similar response times"),
    Claim("[M-TCP⁺ and M-TCP] improve goodput by ~10%.", "§4.2, Fig. 5", "not checked",
          reason=_FIG.format("5, 6") + "; its own Table 3 gives 17 % for this case (384.4 vs 327.9 s)"),
    Claim("TCP NewReno and TCP SACK have similar goodput in cases with and without delayed ACK option enabled.", "§4.2",
          "response times by TOST (±1 %) wherever a fast recovery could separate them",
          finding="NewReno and SACK have the same response time"),
    Claim("Other frequent disconnection periods that we considered show a similar pattern.", "§4.2", "not checked",
          reason="the other periods are not named and have no numbers"),
    Claim("In the case of a lengthy (180 s) disconnection, TCP NewReno and TCP SACK did not complete the file transfer "
          "for either case", "§4.2", "abortion in every replication, with and without delayed ACK",
          finding="NewReno and SACK abort, with and without"),
    Claim("The M-TCP⁺ and M-TCP algorithms exhibit higher goodput than TCP NewReno and TCP SACK.", "Fig. 5 caption",
          "paired response times at 10 s without delayed ACK",
          finding="M-TCP+ and M-TCP are faster than NewReno and SACK (Fig. 5)"),
    Claim("The M-TCP⁺ algorithm exhibits the best goodput.", "Fig. 6 caption", "paired response times at 10 s",
          finding="has the lowest download response time in every"),
    Claim("The M-TCP⁺ algorithm shows the lowest retransmission ratio in all cases", "§4.2, Table 4",
          "paired retransmission ratios", finding="lower retransmission ratio than NewReno and SACK"),
    Claim("In the case of a lengthy (180 s) disconnection, TCP NewReno and TCP SACK have higher retransmission ratios "
          "even though fewer segments were transmitted by the FH.", "§4.2", "not checked",
          reason=_T4 + "; the sentence does not say higher than what"),
    Claim("When the delayed ACK option is disabled, the M-TCP⁺ and M-TCP algorithms show similar retransmission ratios, "
          "which are 2%–8% lower than TCP NewReno and TCP SACK.", "§4.2, Table 4",
          "paired differences inside [2, 8] percentage points", finding="retransmit 2–8 points less"),
    Claim("In the case with delayed ACKs, the M-TCP⁺ algorithm outperforms the M-TCP algorithm, TCP NewReno, and TCP SACK.",
          "§4.3, Table 5", "paired response times with congestion", finding="M-TCP+ is faster than M-TCP, NewReno and SACK"),
    Claim("the download response times in both cases, with and without delayed ACKs, are higher [than] for the same "
          "disconnection period (10 s) without congestion.", "§4.3", "paired response times, Table 5 vs Table 3 at 10 s",
          finding="Congestion lengthens every variant's download"),
    Claim("The TCP variants reach steady-state beyond 500 s of the simulation time.", "§4.3", "not checked",
          reason=_FIG.format("7, 8") + " (a steady state, not a value)"),
    Claim("The M-TCP⁺ algorithm shows higher goodput (with or without the delayed ACK option enabled) than the other "
          "three TCP variants.", "§4.3, Figs 7, 8", "paired response times with congestion, both delayed-ACK settings",
          finding="faster than the other three with and without delayed ACK"),
    Claim("It improves goodput by ~8% and ~12% with and without delayed ACKs, respectively.", "§4.3", "not checked",
          reason=_FIG.format("7, 8") + "; its own Table 5 gives 4.7 % and 4.2 % vs NewReno"),
    Claim("For the four TCP variants, goodput is lower in the scenarios with both disconnections and congestion than in "
          "the scenarios with disconnections only.", "§4.3", "paired response times, Table 5 vs Table 3 at 10 s",
          finding="Congestion lengthens every variant's download"),
    Claim("The M-TCP⁺ algorithm shows lower retransmission ratio than the other three TCP variants in the case with the "
          "delayed ACK option enabled. ... both outperform TCP NewReno and TCP SACK when the delayed ACK option is "
          "disabled.", "§4.3, Table 6", "paired retransmission ratios with congestion",
          finding="With congestion M-TCP+ retransmits less"),
    Claim("The M-TCP⁺ and M-TCP algorithms have similar reduction of ~7% in terms of retransmission ratios", "§4.3",
          "not checked", reason=_T6),
    Claim("as expected the retransmission ratio is higher for the four TCP variants in the congestion scenarios than in "
          "scenarios without congestion.", "§4.3", "paired retransmission ratios, Table 6 vs Table 4 at 10 s",
          finding="Congestion raises every variant's retransmission ratio"),
    Claim("The M-TCP⁺ algorithm reduces the file download response time, increases the goodput, and reduces the "
          "retransmission ratio compared to TCP NewReno and TCP SACK.", "§5",
          "the response-time part (the goodput follows it; the ratio rests on Table 4)",
          finding="has the lowest download response time in every"),
    Claim("When the delayed ACK option is enabled, the performance of the original M-TCP algorithm degrades", "§5",
          "M-TCP's lag behind M-TCP+, with minus without delayed ACK", finding="M-TCP falls further behind"),
    Claim("when the delayed ACK option is disabled, the M-TCP⁺ and M-TCP algorithms had similar performance.", "§5",
          "TOST (±1 %)", finding="M-TCP and M-TCP+ have similar response times"),
    Claim("In the case of congestion, simulation results also indicated that the M-TCP⁺ algorithm outperformed M-TCP, "
          "TCP NewReno, and TCP SACK.", "§5", "paired response times with congestion (delayed ACK on, as Table 5's text)",
          finding="M-TCP+ is faster than M-TCP, NewReno and SACK"),
    Claim("In all cases, the delayed ACK option enabled outperforms the cases with the delayed ACK option disabled.", "§5",
          "paired response times, on vs off", finding="Delayed ACK on is faster than off"),
)
