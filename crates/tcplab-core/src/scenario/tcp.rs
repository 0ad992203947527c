//! The TCP part of the schema: merging a flow's table over the scenario's, the socket
//! configuration, the resolved table and its checks.

use serde_json::Value;

use super::schema::{
    CaModeName, FullAckName, InitialWindowSpec, TcpSpec, VariantName, WindowUnitName,
};
use super::{err, units, FieldError};
use crate::tcp::{CaMode, FullAckCwnd, InitialWindow, TcpConfig, Variant, WindowUnit};

/// TCP parameters of a flow: the flow's table over the scenario's over the RFC defaults.
pub fn merged_tcp(global: &TcpSpec, local: Option<&TcpSpec>) -> TcpSpec {
    let mut g = serde_json::to_value(global).unwrap_or(Value::Null);
    if let (Some(Ok(Value::Object(lm))), Value::Object(gm)) =
        (local.map(serde_json::to_value), &mut g)
    {
        gm.extend(lm);
    }
    serde_json::from_value(g).unwrap_or_default()
}

/// Converts a (validated) TcpSpec into the socket configuration.
pub fn tcp_config(s: &TcpSpec) -> TcpConfig {
    let d = TcpConfig::default();
    TcpConfig {
        variant: match s.variant {
            Some(VariantName::Reno) => Variant::Reno,
            Some(VariantName::Sack) => Variant::Sack,
            Some(VariantName::Newreno) | None => Variant::NewReno,
        },
        mss: s.mss.map_or(d.mss, |m| m.0 as u32),
        initial_window: match &s.initial_window {
            Some(InitialWindowSpec::Segments(n)) => InitialWindow::Segments(*n),
            _ => InitialWindow::Rfc3390,
        },
        initial_ssthresh: s.initial_ssthresh.map(|x| x.0),
        window_unit: match s.window_unit {
            Some(WindowUnitName::Segments) => WindowUnit::Segments,
            _ => WindowUnit::Bytes,
        },
        ca_mode: match s.ca_mode {
            Some(CaModeName::PerAck) => CaMode::PerAck,
            _ => CaMode::ByteCounting,
        },
        abc_limit: s.abc_limit.unwrap_or(d.abc_limit),
        dupack_threshold: s.dupack_threshold.unwrap_or(d.dupack_threshold),
        limited_transmit: s.limited_transmit.unwrap_or(d.limited_transmit),
        full_ack: match s.full_ack {
            Some(FullAckName::Ssthresh) => FullAckCwnd::Ssthresh,
            _ => FullAckCwnd::FlightSize,
        },
        rto_initial: s.rto_initial.map_or(d.rto_initial, |x| x.0),
        rto_min: s.rto_min.map_or(d.rto_min, |x| x.0),
        rto_max: s.rto_max.map_or(d.rto_max, |x| x.0),
        rto_after_syn_timeout: s
            .rto_after_syn_timeout
            .map_or(d.rto_after_syn_timeout, |x| x.0),
        clock_granularity: s.clock_granularity.map_or(d.clock_granularity, |x| x.0),
        timer_tick: s.timer_tick.map_or(d.timer_tick, |x| x.0),
        max_retransmissions: s.max_retransmissions.unwrap_or(d.max_retransmissions),
        persist_min: s.persist_min.map_or(d.persist_min, |x| x.0),
        persist_max: s.persist_max.map_or(d.persist_max, |x| x.0),
        rcv_buf: s.rcv_buf.map_or(d.rcv_buf, |x| x.0),
        delayed_ack: s.delayed_ack.unwrap_or(d.delayed_ack),
        ack_delay: s.ack_delay.map_or(d.ack_delay, |x| x.0),
        ack_every: s.ack_every.unwrap_or(d.ack_every),
        sack: s.sack.unwrap_or(d.sack),
        timestamps: s.timestamps.unwrap_or(d.timestamps),
        window_scaling: s.window_scaling.unwrap_or(d.window_scaling),
        ecn: s.ecn.unwrap_or(d.ecn),
    }
}

/// The TcpSpec with every field filled in (for the resolved scenario and result keys).
pub fn resolved_tcp(s: &TcpSpec) -> TcpSpec {
    let c = tcp_config(s);
    TcpSpec {
        variant: Some(match c.variant {
            Variant::Reno => VariantName::Reno,
            Variant::NewReno => VariantName::Newreno,
            Variant::Sack => VariantName::Sack,
        }),
        mss: Some(units::Size(c.mss as u64)),
        initial_window: Some(match c.initial_window {
            InitialWindow::Rfc3390 => InitialWindowSpec::Named("rfc3390".into()),
            InitialWindow::Segments(n) => InitialWindowSpec::Segments(n),
        }),
        initial_ssthresh: c.initial_ssthresh.map(units::Size),
        window_unit: Some(match c.window_unit {
            WindowUnit::Bytes => WindowUnitName::Bytes,
            WindowUnit::Segments => WindowUnitName::Segments,
        }),
        ca_mode: Some(match c.ca_mode {
            CaMode::ByteCounting => CaModeName::ByteCounting,
            CaMode::PerAck => CaModeName::PerAck,
        }),
        abc_limit: Some(c.abc_limit),
        dupack_threshold: Some(c.dupack_threshold),
        limited_transmit: Some(c.limited_transmit),
        full_ack: Some(match c.full_ack {
            FullAckCwnd::FlightSize => FullAckName::Flightsize,
            FullAckCwnd::Ssthresh => FullAckName::Ssthresh,
        }),
        rto_initial: Some(units::Duration(c.rto_initial)),
        rto_min: Some(units::Duration(c.rto_min)),
        rto_max: Some(units::Duration(c.rto_max)),
        rto_after_syn_timeout: Some(units::Duration(c.rto_after_syn_timeout)),
        clock_granularity: Some(units::Duration(c.clock_granularity)),
        timer_tick: Some(units::Duration(c.timer_tick)),
        max_retransmissions: Some(c.max_retransmissions),
        persist_min: Some(units::Duration(c.persist_min)),
        persist_max: Some(units::Duration(c.persist_max)),
        rcv_buf: Some(units::Size(c.rcv_buf)),
        delayed_ack: Some(c.delayed_ack),
        ack_delay: Some(units::Duration(c.ack_delay)),
        ack_every: Some(c.ack_every),
        sack: Some(c.sack),
        timestamps: Some(c.timestamps),
        window_scaling: Some(c.window_scaling),
        ecn: Some(c.ecn),
    }
}

pub(super) fn validate_tcp(t: &TcpSpec, loc: &str, errs: &mut Vec<FieldError>) {
    if let Some(InitialWindowSpec::Named(n)) = &t.initial_window {
        if n != "rfc3390" {
            errs.push(err(
                format!("{loc}.initial_window"),
                format!("'{n}' is not allowed; use \"rfc3390\" or a number of segments"),
            ));
        }
    }
    if let Some(InitialWindowSpec::Segments(0)) = &t.initial_window {
        errs.push(err(
            format!("{loc}.initial_window"),
            "must be at least 1 segment",
        ));
    }
    if let Some(m) = t.mss {
        if m.0 == 0 || m.0 > 65_495 {
            errs.push(err(
                format!("{loc}.mss"),
                format!("{} B is out of range; allowed 1 to 65495 bytes", m.0),
            ));
        }
    }
    if let Some(b) = t.rcv_buf {
        if b.0 == 0 || b.0 > (1u64 << 30) {
            errs.push(err(
                format!("{loc}.rcv_buf"),
                "out of range; allowed 1 B to 1 GiB",
            ));
        }
    }
    let pos = |v: Option<u32>, name: &str, errs: &mut Vec<FieldError>| {
        if v == Some(0) {
            errs.push(err(format!("{loc}.{name}"), "must be at least 1"));
        }
    };
    pos(t.abc_limit, "abc_limit", errs);
    pos(t.dupack_threshold, "dupack_threshold", errs);
    pos(t.ack_every, "ack_every", errs);
    let c = tcp_config(t);
    if c.rto_min > c.rto_max {
        errs.push(err(format!("{loc}.rto_min"), "must not exceed rto_max"));
    }
    if c.rto_initial.0 == 0 {
        errs.push(err(format!("{loc}.rto_initial"), "must be positive"));
    }
    if c.persist_min > c.persist_max {
        errs.push(err(
            format!("{loc}.persist_min"),
            "must not exceed persist_max",
        ));
    }
}
