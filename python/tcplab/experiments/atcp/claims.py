"""Every quantitative or comparative sentence of seed 003's text (Sridhara & Subramanya), and how it is checked.

Sections: §6 (the proposed modifications), §8 (setup), §9 (results, Table 2 and the plots), §10.
"""

from __future__ import annotations

from tcplab.experiments.base import Claim

_PLOT = "read from the paper's cwnd / sequence plots, which print no numbers; our plots show the same curves"

CLAIMS: tuple[Claim, ...] = (
    Claim("Transmitting the whole queue will unnecessarily overload the network which might actually lead to congestion. "
          "... it will reduce the good put of the TCP.", "§6",
          "4 lossy flows through one relay: retransmissions and goodput, original vs modified ATCP",
          finding="whole-window retransmissions in Loss congest a shared relay"),
    Claim("we could achieve a maximum congestion window size of 45 at 1448 bytes per packet", "§8", "not checked",
          reason="a property of the testbed's cards and kernel; our RED max_th is set to 45 from it (model notes)"),
    Claim("[Table 2, not a sentence] Base / Modified TCP transfer times (1.69/1.47, 21.3/17, 60/54.7, 153/92.1, 30.8/15.4, 198/151 s)",
          "§9, Table 2", "modified faster than base in every row, paired", finding="faster than base TCP in every trial"),
    Claim("[Table 2, not a sentence] the per-row improvements its times give (13.0, 20.2, 8.8, 39.8, 50.0, 23.7 %)", "§9, Table 2",
          "each row's reduction as a magnitude", finding="Each trial's reduction is the paper's"),
    Claim("It can be seen that there is an improvement of 25 – 50%.", "§9",
          "every trial's reduction inside [25, 50] % (both ends as printed; also read over mobility and disconnection only)",
          finding="shortens every trial of Table 2 by 25–50 %"),
    Claim("CWND reaches its maximum value of 45 and stays there in case of our modified TCP. But in case of Base TCP, "
          "CWND fluctuates and does not stabilize even though there is no congestion.", "§9", "not checked",
          reason=_PLOT + "; our static channel loses nothing (the static rows of the retransmissions table), so base TCP's window "
                         "does not fluctuate; the static-loss switch measures what losses change (deviation causes)"),
    Claim("The performance improvement is very obvious in the case when a node is mobile and in the case when a node gets "
          "disconnected from the other.", "§9", "each mobile / disconnected row's reduction minus each static row's",
          finding="The gain is larger under mobility and disconnection than static"),
    Claim("the receiver initiates flow control by shrinking the advertised window, which increases the transfer time.",
          "§9", "not checked", reason="a cause read from the testbed's traces; no number, and our receiver's buffer is "
                                      "not the testbed's"),
    Claim("in the modified TCP, congestion window stabilizes to the maximum value. There are a lot of retransmissions due "
          "to timeouts and duplicate acknowledgements.", "§9 (two hops)", "not checked",
          reason=_PLOT + "; our retransmissions per run are in the 'Table 2 cases: retransmitted segments' table"),
    Claim("In case of Base TCP, when the nodes get disconnected for about a minute, the RTO goes to a very high value ... "
          "there is no data transfer for few seconds even after the nodes get connected.", "§9", "not checked",
          reason=_PLOT + " (the lull's length is not printed)"),
    Claim("The data transfer starts much earlier in comparison to base TCP once the nodes are back in each other's range.",
          "§9", "not checked", reason=_PLOT + " (the restart times are not printed)"),
    # Issue 39, session 16: two sentences the table had left out.
    Claim("In static ad hoc networks, if the flows create enough channel contention to cause frequent route error "
          "messages, the freezing the network state could lead to reduced throughput.", "§4", "not checked",
          reason="reported from related work (ELFN, [ELFN-L]), not measured in this paper; our static trials "
                 "tabulate the transfer times, not route errors"),
    Claim("Some enhancements in the routing protocol will result in better performance in case of data transfers "
          "involving multiple hops.", "§10", "not checked",
          reason="a proposal for future work: no routing enhancement is specified or measured"),
)
