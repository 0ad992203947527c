//! What an undo restores (docs/models/tcp.md, "Undo"): Linux's prior ssthresh is
//! tcp_current_ssthresh(), max(ssthresh, ¾·cwnd) outside a cwnd reduction, not ssthresh alone.

use super::*;

/// In congestion avoidance (cwnd 10 segments above ssthresh 6), a reordered segment starts a
/// spurious fast recovery whose DSACK undoes it: ssthresh comes back as max(6, ¾·10) = 7.5
/// segments, cwnd as 10.
#[test]
fn an_undo_in_avoidance_restores_three_quarters_of_cwnd_as_ssthresh() {
    let (mut s, out) = sending(TcpConfig {
        dsack: true,
        undo: true,
        initial_ssthresh: Some(6 * M),
        ..sack_cfg()
    });
    assert_eq!(out.len(), 10);
    for k in 2..5 {
        send(&mut s, T0 + ms(100), &c_sack(S, &[(S + M, S + k * M)]));
    }
    assert!(s.in_recovery() && s.ssthresh() < 6 * M);
    send(&mut s, T0 + ms(101), &c_ack(S + 4 * M));
    send(&mut s, T0 + ms(102), &c_ack(S + 10 * M));
    let cwnd = s.cwnd();
    send(&mut s, T0 + ms(150), &c_sack(S + 10 * M, &[(S, S + M)]));
    assert_eq!(s.stats.undos, 1);
    assert_eq!(s.ssthresh(), 7_500);
    assert_eq!(s.cwnd(), cwnd.max(10 * M));
}
