//! Segment arrival (`socket/input.rs`) rule by rule: what each kind of segment does to the state
//! machine, the send window and the receiver, at the edges of each rule.

use super::*;

/// RFC 9293 §3.10.7: a RST aborts a synchronized connection (no timer is left, nothing is
/// sent); a listener and a closed socket ignore it (§3.10.7.1–.2).
#[test]
fn a_reset_aborts_a_connection_but_not_a_listener() {
    let rst = seg(
        TcpHeader {
            flags: TcpFlags::RST,
            ..S_TEMPL
        },
        0,
    );
    let (mut c, mut s) = established(cfg());
    write(&mut s, T0, 3 * M);
    assert!(s.poll_timeout().is_some());
    assert!(send(&mut s, T0 + ms(10), &rst).is_empty());
    assert!(s.aborted());
    assert_eq!(s.state(), State::Closed);
    assert_eq!(s.poll_timeout(), None);
    // The closed socket ignores everything after, data included (no ACK for it).
    assert!(send(&mut s, T0 + ms(20), &c_ack(S + M)).is_empty());
    let data = seg(C_TEMPL, M as u32);
    assert!(send(&mut s, T0 + ms(30), &data).is_empty());
    // A RST carrying ACK is still a RST.
    let rst_ack = TcpFlags(TcpFlags::RST.0 | TcpFlags::ACK.0);
    send(
        &mut c,
        T0 + ms(10),
        &seg(
            TcpHeader {
                flags: rst_ack,
                ..S_TEMPL
            },
            0,
        ),
    );
    assert!(c.aborted());

    let mut l = Socket::new(cfg(), SERVER_PORT, CLIENT_PORT, SERVER_ISS);
    l.listen();
    assert!(send(&mut l, ms(1), &rst).is_empty());
    assert!(!l.aborted());
    assert_eq!(l.state(), State::Listen);
    // The listener still accepts a SYN after it.
    assert_eq!(send(&mut l, ms(2), &seg(SYN_TEMPL, 0)).len(), 1);
    assert_eq!(l.state(), State::SynReceived);

    let mut closed = Socket::new(cfg(), SERVER_PORT, CLIENT_PORT, SERVER_ISS);
    send(&mut closed, ms(1), &rst);
    assert!(!closed.aborted());
    assert_eq!(closed.state(), State::Closed);
    // A closed socket answers nothing, not even an ACK of data it never sent (§3.10.7.1 would
    // send a RST, which the model does not).
    assert!(send(&mut closed, ms(2), &c_ack(S + M)).is_empty());
}
