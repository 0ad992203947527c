"""Every quantitative or comparative sentence of seed 001's text (Bhutani), and how it is checked.

Sections: Abstract, §VI (experimental results, Table I, Figs 3-8), §VII (discussion and conclusions).
"""

from __future__ import annotations

from tcplab.experiments.base import Claim

CLAIMS: tuple[Claim, ...] = (
    Claim("Experimental results indicate a reasonable increase in throughput when the ACK holding scheme is used.",
          "Abstract", "packets delivered, holding vs Reno, paired, both fade cases",
          finding="ACK holding delivers more than plain Reno"),
    Claim("[Table I, not a sentence] Single intervals of 10s: 7688 / 6361 / 120.9%; Two intervals of 10s each: 3981 / 503 / 791.5%", "§VI, Table I",
          "the gain (ratio − 100 %) as a magnitude per fade case", finding="ACK holding's gain is the paper's"),
    Claim("[ACK holding] prevents any timeouts and hence, the reduction of the congestion window to 1.", "§VI, Fig. 3",
          "FH timeouts counted in every ACK-holding run with an exact predictor", finding="never times out"),
    Claim("the reason the ACK holding scheme performs better than the current TCP implementations is that the TCP at the "
          "sender requires no time to recover after the disconnection period.", "§VI, Fig. 4",
          "the comparison (the cause is the timeouts finding's)", finding="ACK holding delivers more than plain Reno"),
    Claim("the ACK holding scheme, achieves throughput over 7.5 times that of the current TCP.", "§VI",
          "two-fade ratio above 750 %", finding="over 7.5 times"),
    Claim("The inter-ACK time initially increases for the first 5 ACKs. The inter-ACK time then decreases until it "
          "eventually stabilizes to a small constant value", "§VI, Fig. 5", "the closed-form schedule for T = 500 s, 20 ACKs",
          finding="The inter-ACK time rises for the first 5 ACKs"),
    Claim("the RTO value calculated at the source first increases and then stabilizes at a higher value before "
          "decreasing and stabilizing at a lower value.", "§VI, Fig. 6", "the closed-form schedule's RTO for T = 500 s",
          finding="The FH's RTO first rises"),
    Claim("this improves the throughput by almost 7.5 times as compared to the current TCP implementation.", "§VII",
          "the two-fade gain as a magnitude (Table I's 791.5 %)", finding="ACK holding's gain is the paper's"),
    Claim("the final values of RTO do not vary considerably even for large changes in values of T.", "§VII, Figs 6, 8",
          "final RTO at T = 500 s vs 250 s, equivalent within a factor 1.25", finding="The final RTO hardly varies with T"),
    Claim("we suggest that this scheme should be implemented with over-estimates of T rather than under-estimates.",
          "§VII", "predictor sweep: gain with x k minus gain with x 1/k, paired",
          finding="Over-estimating the outage costs less"),
)
