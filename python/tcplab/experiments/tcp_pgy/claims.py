"""Every quantitative or comparative sentence of seed 002's text (Kim & Yoo), and how it is checked.

Sections: Abstract, §III-A (ACK loss, Fig. 1), §IV-B (strings, Figs 6-8), §IV-C.1 (grid, Figs 10-11),
§IV-C.2 (random mobile topologies, Fig. 12), §V (conclusions).
"""

from __future__ import annotations

from tcplab.experiments.base import Claim

CLAIMS: tuple[Claim, ...] = (
    Claim("we prove that our proposed schemes contribute to TCP performance improvements.", "Abstract",
          "string throughput, TCP-pgy vs NewReno, paired, every hop count", finding="improves string throughput"),
    Claim("we should note that ACK loss occurs as much as DATA loss, regardless of hop distance.", "§III-A, Fig. 1(a)",
          "ln(ACK lost / DATA lost) by TOST within a factor of 2, every hop count", finding="comparable to DATA loss"),
    Claim("for cases of more than 10 hops, ACK loss is more significant than DATA loss.", "§III-A, Fig. 1(a)",
          "ACK − DATA lost, paired, every hop count above 10", finding="Beyond 10 hops more ACK than DATA"),
    Claim("both DATA and ACK losses are similar and they grow as the number of TCP flows increases.", "§III-A, Fig. 1(b)",
          "losses with the most flows minus with one flow (7 hops)", finding="grow with the number of flows"),
    Claim("as the hop-distance increases, the throughput decreases", "§IV-B, Fig. 6",
          "throughput at the shortest minus the longest string, per sender", finding="Throughput falls as the hop count grows"),
    Claim("Our schemes, however, improved the throughput performance regardless of hop-distance.", "§IV-B, Fig. 6",
          "paired throughput at every hop count", finding="improves string throughput"),
    Claim("TCP-pgy achieved throughput improvement by reducing the number of spurious retransmissions, as shown in Fig. 7.",
          "§IV-B, Fig. 7", "paired spurious retransmissions at every hop count",
          finding="fewer spurious retransmissions in strings"),
    Claim("better throughput can be obtained by reducing the number of spurious retransmissions for long hop-distance "
          "connections, rather than reducing them for short hop-distance ones.", "§IV-B",
          "not checked", reason="the paper's reasoning for its design, with no measured comparison of its own; what it "
                                "implies (larger gains on longer strings) is readable from the Fig. 6 table's gain "
                                "per hop count, which no rule judges"),
    Claim("TCP-pgy improved throughput performance up to 21.6% at a 14-hop distance.", "§IV-B",
          "the 14-hop gain as a magnitude", finding="up to 21.6 %"),
    Claim("As the number of cross TCP flows grows in the network, AATs of both TCP-pgy and standard TCP increase",
          "§IV-C.1, Fig. 10", "AAT with the most minus the fewest grid flows, per sender",
          finding="The grid's AAT grows with the number of flows"),
    Claim("compared to standard TCP, TCP-pgy achieves higher AAT", "§IV-C.1, Fig. 10", "paired AAT at every flow count",
          finding="higher average aggregate throughput in the grid"),
    Claim("TCP-pgy achieved as high as 58.4% performance improvement in the six-flow case.", "§IV-C.1",
          "the six-flow gain as a magnitude", finding="58.4 %"),
    Claim("in standard TCP, when the number of TCP flows increases, TCP senders experience a larger number of timeouts.",
          "§IV-C.1, Fig. 11", "NewReno timeouts, most minus fewest grid flows", finding="NewReno takes more timeouts"),
    Claim("TCP-pgy yields a lower number of spurious retransmissions for all cross traffic scenarios.", "§IV-C.1, Fig. 11",
          "paired spurious retransmissions at every flow count", finding="fewer spurious retransmissions in the grid"),
    Claim("As the number of TCP flows is increased from 2 to 10, the number of spurious retransmissions increases by 232.8% "
          "and 87.3% for standard TCP and TCP-pgy, respectively.", "§IV-C.1", "the growths as magnitudes",
          finding="spurious retransmissions grow by 232.8 %"),
    Claim("TCP-pgy reduces the number of spurious retransmissions by 70.8% in the ten-flow case", "§IV-C.1",
          "the ten-flow cut as a magnitude", finding="70.8 %"),
    Claim("as mobility increases in both cross traffic scenarios, each AAT of both TCPs decreases.", "§IV-C.2, Fig. 12(a)",
          "AAT at the lowest minus the highest speed, per sender and flow count", finding="The AAT falls as node speed grows"),
    Claim("TCP-pgy shows better performance than standard TCP regardless of node mobility.", "§IV-C.2, Fig. 12",
          "paired AAT at every speed and flow count", finding="random mobile topologies"),
    Claim("Similar to static networks, such ACK loss occurs frequently in dynamic networks, which is caused by link "
          "failure.", "§IV-C.2", "not checked",
          reason="the random topologies' runs do not tabulate DATA and ACK losses (Fig. 1's loss counts are run on the "
                 "strings only), and 'frequently' gives no level to check"),
    Claim("as node mobility increases, the frequency of spurious retransmissions decreases.", "§IV-C.2, Fig. 12(a)",
          "spurious retransmissions at the lowest minus the highest speed", finding="Spurious retransmissions fall as node speed"),
    Claim("as the number of cross TCP flows is increased, TCP-pgy achieves significant performance improvements ..., when "
          "compared to the three-flow case.", "§IV-C.2, Fig. 12(b)", "gain with five flows minus with three, per speed",
          finding="gain is larger with more flows"),
    Claim("TCP-pgy achieved as high as 71.5% throughput performance improvement at the mobility of 5 m/s.", "§IV-C.2",
          "the five-flow, 5 m/s gain as a magnitude", finding="71.5 %"),
    Claim("we observed significant throughput performance improvements in static networks and dynamic networks.", "§V",
          "paired AAT in the random mobile topologies (the static ones: the string and grid findings)",
          finding="random mobile topologies"),
)
