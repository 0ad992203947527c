//! The meaning of a parsed scenario: names that refer to nodes, ranges, combinations, each
//! problem with its field path.

use std::collections::BTreeSet;

use super::build::wlan_phy_base;
use super::schema::{
    AgentKindName, AgentSpec, AppName, LossModelName, LossSpec, OutageSpec, PreambleDetectionName,
    PropagationModelName, QueueSpec, ReceptionModelName, Scenario, WlanMode, WlanSpec,
};
use super::tcp::validate_tcp;
use super::{err, link_name, FieldError};
use crate::time::SimTime;
use crate::wifi::{Modulation, PhyParams};

fn check_prob(v: Option<f64>, loc: String, errs: &mut Vec<FieldError>) {
    if let Some(p) = v {
        if !(0.0..=1.0).contains(&p) {
            errs.push(err(
                loc,
                format!("{p} is not a probability; allowed 0 to 1"),
            ));
        }
    }
}

/// Checks the meaning of a parsed scenario.
pub fn validate(s: &Scenario) -> Result<(), Vec<FieldError>> {
    let mut errs = Vec::new();
    let mut node_names = BTreeSet::new();
    for (i, n) in s.nodes.iter().enumerate() {
        if n.name.is_empty() {
            errs.push(err(format!("nodes[{i}].name"), "must not be empty"));
        }
        if !node_names.insert(n.name.as_str()) {
            errs.push(err(
                format!("nodes[{i}].name"),
                format!("duplicate node name '{}'", n.name),
            ));
        }
    }
    if s.nodes.is_empty() {
        errs.push(err("nodes", "a scenario needs at least one node"));
    }
    let known = |name: &str| node_names.contains(name);
    let list: Vec<&str> = node_names.iter().copied().collect();
    let list = if list.is_empty() {
        "none defined".to_string()
    } else {
        list.join(", ")
    };
    let unknown_node =
        |loc: String, name: &str| err(loc, format!("unknown node '{name}'; nodes: {list}"));

    let mut link_names = BTreeSet::new();
    for (i, l) in s.links.iter().enumerate() {
        let loc = format!("links[{i}]");
        for (f, v) in [("a", &l.a), ("b", &l.b)] {
            if !known(v) {
                errs.push(unknown_node(format!("{loc}.{f}"), v));
            }
        }
        if l.a == l.b {
            errs.push(err(format!("{loc}.b"), "a link needs two different nodes"));
        }
        let name = link_name(l);
        if !link_names.insert(name.clone()) {
            errs.push(err(
                format!("{loc}.name"),
                format!("duplicate link name '{name}'"),
            ));
        }
        if let Some(QueueSpec::Red {
            limit,
            min_th,
            max_th,
            max_p,
            w_q,
            ..
        }) = &l.queue
        {
            if *limit == 0 {
                errs.push(err(
                    format!("{loc}.queue.limit"),
                    "must be at least 1 packet",
                ));
            }
            validate_red(
                *min_th,
                *max_th,
                *max_p,
                *w_q,
                &format!("{loc}.queue"),
                &mut errs,
            );
        }
        if let Some(QueueSpec::Droptail {
            packets: Some(0), ..
        }) = &l.queue
        {
            errs.push(err(format!("{loc}.queue.packets"), "must be at least 1"));
        }
        if let Some(ls) = &l.loss {
            validate_loss(ls, &format!("{loc}.loss"), &mut errs);
        }
        if let Some(o) = &l.outage {
            validate_outage(o, &format!("{loc}.outage"), &mut errs);
        }
    }

    let mut wlan_names = BTreeSet::new();
    for (i, w) in s.wlans.iter().enumerate() {
        let loc = format!("wlans[{i}]");
        if let Some(r) = &w.red {
            validate_red(
                r.min_th,
                r.max_th,
                r.max_p,
                r.w_q,
                &format!("{loc}.red"),
                &mut errs,
            );
        }
        if !wlan_names.insert(w.name.clone()) || link_names.contains(&w.name) {
            errs.push(err(
                format!("{loc}.name"),
                format!("duplicate link or WLAN name '{}'", w.name),
            ));
        }
        validate_wlan(w, &loc, &known, &unknown_node, &mut errs);
    }
    for n in &wlan_names {
        link_names.insert(n.clone());
    }

    validate_tcp(&s.tcp, "tcp", &mut errs);
    super::routing::validate_ack_piggyback(s, &mut errs);
    let mut flow_names = BTreeSet::new();
    for (i, f) in s.flows.iter().enumerate() {
        let loc = format!("flows[{i}]");
        if !flow_names.insert(f.name.as_str()) {
            errs.push(err(
                format!("{loc}.name"),
                format!("duplicate flow name '{}'", f.name),
            ));
        }
        let need = |v: bool, field: &str, errs: &mut Vec<FieldError>| {
            if !v {
                errs.push(err(
                    format!("{loc}.{field}"),
                    format!("required for app = \"{}\"", app_str(f.app)),
                ));
            }
        };
        let forbid = |v: bool, field: &str, errs: &mut Vec<FieldError>| {
            if v {
                errs.push(err(
                    format!("{loc}.{field}"),
                    format!("not used by app = \"{}\"", app_str(f.app)),
                ));
            }
        };
        // Each named endpoint must be a node of the scenario.
        let check_nodes = |fields: &[(&str, &Option<String>)], errs: &mut Vec<FieldError>| {
            for (field, v) in fields {
                if let Some(n) = v {
                    if !known(n) {
                        errs.push(unknown_node(format!("{loc}.{field}"), n));
                    }
                }
            }
        };
        match f.app {
            AppName::BulkDownload | AppName::Bulk => {
                need(f.client.is_some(), "client", &mut errs);
                need(f.server.is_some(), "server", &mut errs);
                if f.app == AppName::BulkDownload {
                    need(f.size.is_some(), "size", &mut errs);
                } else {
                    forbid(f.size.is_some(), "size", &mut errs);
                }
                for (field, v) in [
                    ("src", f.src.is_some()),
                    ("dst", f.dst.is_some()),
                    ("rate", f.rate.is_some()),
                    ("packet_size", f.packet_size.is_some()),
                    ("stop", f.stop.is_some()),
                ] {
                    forbid(v, field, &mut errs);
                }
                check_nodes(&[("client", &f.client), ("server", &f.server)], &mut errs);
                if f.client.is_some() && f.client == f.server {
                    errs.push(err(
                        format!("{loc}.server"),
                        "client and server must be different nodes",
                    ));
                }
                if let (Some(c), Some(sv)) = (&f.client, &f.server) {
                    if known(c) && known(sv) && !connected(s, c, sv) {
                        errs.push(err(
                            format!("{loc}.server"),
                            format!("no path of links between '{c}' and '{sv}'"),
                        ));
                    }
                }
                if let Some(t) = &f.tcp {
                    validate_tcp(t, &format!("{loc}.tcp"), &mut errs);
                }
            }
            AppName::Cbr => {
                need(f.src.is_some(), "src", &mut errs);
                need(f.dst.is_some(), "dst", &mut errs);
                need(f.rate.is_some(), "rate", &mut errs);
                need(f.packet_size.is_some(), "packet_size", &mut errs);
                for (field, v) in [
                    ("client", f.client.is_some()),
                    ("server", f.server.is_some()),
                    ("size", f.size.is_some()),
                    ("request", f.request.is_some()),
                    ("tcp", f.tcp.is_some()),
                ] {
                    forbid(v, field, &mut errs);
                }
                check_nodes(&[("src", &f.src), ("dst", &f.dst)], &mut errs);
                if let Some(p) = f.packet_size {
                    if p.0 == 0 || p.0 > 65_507 {
                        errs.push(err(
                            format!("{loc}.packet_size"),
                            "allowed 1 to 65507 bytes",
                        ));
                    }
                }
            }
        }
    }
    match crate::trace::netseries::select(&s.trace.series) {
        Err(i) => errs.push(err(
            format!("trace.series[{i}]"),
            format!(
                "unknown series '{}'; allowed: {}",
                s.trace.series[i],
                crate::trace::netseries::allowed_names().join(", ")
            ),
        )),
        // Series beyond TCP are sampled once per interval: an interval of zero has no samples.
        Ok((_, net))
            if !net.is_empty() && s.trace.interval.is_some_and(|d| d.0 == SimTime::ZERO) =>
        {
            errs.push(err(
                "trace.interval",
                "must be above 0 when a queue, station or routing series is asked for (their \
                 sampling period; default 1s)",
            ))
        }
        Ok(_) => {}
    }
    if let Some(ev) = &s.trace.events {
        for (i, name) in ev.nodes.iter().enumerate() {
            if !s.nodes.iter().any(|n| &n.name == name) {
                let names: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
                errs.push(err(
                    format!("trace.events.nodes[{i}]"),
                    format!("unknown node '{name}'; nodes: {}", names.join(", ")),
                ));
            }
        }
        if ev.file.as_deref() == Some("") {
            errs.push(err("trace.events.file", "a file name, not an empty string"));
        }
    }
    unknown_names(&s.trace.pcap, "trace.pcap", &link_names, "link", &mut errs);
    unknown_names(
        &s.trace.pcap_80211,
        "trace.pcap_80211",
        &wlan_names,
        "WLAN",
        &mut errs,
    );
    if s.duration.is_some_and(|d| d.0 .0 == 0) {
        errs.push(err("duration", "must be positive"));
    }
    if s.max_events == Some(0) {
        errs.push(err("max_events", "must be positive"));
    }
    for (i, a) in s.agents.iter().enumerate() {
        validate_agent(s, a, &format!("agents[{i}]"), &node_names, &mut errs);
    }
    super::routing::validate_routing(s, &mut errs);
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}

fn validate_agent(
    s: &Scenario,
    a: &AgentSpec,
    loc: &str,
    nodes: &BTreeSet<&str>,
    errs: &mut Vec<FieldError>,
) {
    let list: Vec<&str> = nodes.iter().copied().collect();
    for (f, v) in [("node", &a.node), ("mobile", &a.mobile)] {
        if !nodes.contains(v.as_str()) {
            errs.push(err(
                format!("{loc}.{f}"),
                format!("unknown node '{v}'; nodes: {}", list.join(", ")),
            ));
        }
    }
    if a.node == a.mobile {
        errs.push(err(
            format!("{loc}.mobile"),
            "the agent's node and its mobile must differ",
        ));
    }
    // The mobile's station: where its outages and their predictions are configured.
    let station = s.wlans.iter().enumerate().find_map(|(wi, w)| {
        w.stations
            .iter()
            .find(|st| st.node == a.mobile)
            .map(|st| (wi, w, st))
    });
    match station {
        None if nodes.contains(a.mobile.as_str()) => errs.push(err(
            format!("{loc}.mobile"),
            format!(
                "'{}' is not a station of any WLAN; agents act on a wireless host's connections",
                a.mobile
            ),
        )),
        Some((wi, w, st)) => {
            let lead = w
                .signals
                .as_ref()
                .and_then(|g| g.lead)
                .map_or(SimTime::ZERO, |d| d.0);
            let feedback = matches!(a.kind, AgentKindName::Mtcp | AgentKindName::MtcpPlus);
            if st.outage.is_some() && lead.0 == 0 && feedback {
                errs.push(err(
                    format!("{loc}.kind"),
                    format!(
                        "{} needs outages predicted ahead: set {}.signals.lead > 0",
                        agent_str(a.kind),
                        super::named_loc::named_path(s, &format!("wlans[{wi}]"))
                    ),
                ));
            }
        }
        None => {}
    }
    let kind = agent_str(a.kind);
    let forbid = |v: bool, f: &str, errs: &mut Vec<FieldError>| {
        if v {
            errs.push(err(
                format!("{loc}.{f}"),
                format!("not used by kind = \"{kind}\""),
            ));
        }
    };
    let holder = a.kind == AgentKindName::AckHolder;
    let plus = a.kind == AgentKindName::MtcpPlus;
    forbid(!plus && a.buffer.is_some(), "buffer", errs);
    forbid(!plus && a.rto.is_some(), "rto", errs);
    forbid(!plus && a.max_rto.is_some(), "max_rto", errs);
    for (f, v) in [
        ("estimator", a.estimator.is_some()),
        ("fh_rto_min", a.fh_rto_min.is_some()),
        ("fh_rto_max", a.fh_rto_max.is_some()),
        ("fh_granularity", a.fh_granularity.is_some()),
        ("guard", a.guard.is_some()),
        ("max_dups", a.max_dups.is_some()),
        ("rewrite_tsecr", a.rewrite_tsecr.is_some()),
    ] {
        forbid(!holder && v, f, errs);
    }
    if let Some(g) = a.guard {
        if !(0.0..1.0).contains(&g) {
            errs.push(err(
                format!("{loc}.guard"),
                format!("{g} is out of range; allowed 0 ≤ guard < 1"),
            ));
        }
    }
    if let (Some(lo), Some(hi)) = (a.fh_rto_min, a.fh_rto_max) {
        if lo.0 > hi.0 {
            errs.push(err(
                format!("{loc}.fh_rto_min"),
                "must not exceed fh_rto_max",
            ));
        }
    }
    if a.buffer.is_some_and(|b| b.0 == 0) {
        errs.push(err(format!("{loc}.buffer"), "must be positive"));
    }
    forbid(
        a.kind != AgentKindName::Snoop && a.snoop.is_some(),
        "snoop",
        errs,
    );
    for (f, m) in a.snoop.map(|c| c.check()).unwrap_or_default() {
        errs.push(err(format!("{loc}.snoop.{f}"), m));
    }
    forbid(
        a.kind != AgentKindName::Itcp && a.itcp.is_some(),
        "itcp",
        errs,
    );
    for (f, m) in a.itcp.map(|c| c.check()).unwrap_or_default() {
        errs.push(err(format!("{loc}.itcp.{f}"), m));
    }
}

/// An error at `field[i]` for each name of `list` that is neither "*" nor one of `known`, the
/// names of the scenario's `what`s (links, WLANs).
fn unknown_names(
    list: &[String],
    field: &str,
    known: &BTreeSet<String>,
    what: &str,
    errs: &mut Vec<FieldError>,
) {
    for (i, name) in list.iter().enumerate() {
        if name != "*" && !known.contains(name) {
            let names: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
            let names = if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            };
            errs.push(err(
                format!("{field}[{i}]"),
                format!("unknown {what} '{name}'; {what}s: {names} (or \"*\")"),
            ));
        }
    }
}

fn agent_str(k: AgentKindName) -> &'static str {
    match k {
        AgentKindName::Mtcp => "mtcp",
        AgentKindName::MtcpPlus => "mtcp_plus",
        AgentKindName::AckHolder => "ack_holder",
        AgentKindName::Snoop => "snoop",
        AgentKindName::Itcp => "itcp",
    }
}

fn validate_loss(l: &LossSpec, loc: &str, errs: &mut Vec<FieldError>) {
    check_prob(l.p, format!("{loc}.p"), errs);
    check_prob(l.p_gb, format!("{loc}.p_gb"), errs);
    check_prob(l.p_bg, format!("{loc}.p_bg"), errs);
    check_prob(l.loss_good, format!("{loc}.loss_good"), errs);
    check_prob(l.loss_bad, format!("{loc}.loss_bad"), errs);
    check_prob(l.mean, format!("{loc}.mean"), errs);
    match l.model {
        LossModelName::Bernoulli => {
            if l.p.is_none() {
                errs.push(err(
                    format!("{loc}.p"),
                    "required for model = \"bernoulli\"",
                ));
            }
            for (f, v) in [
                ("p_gb", l.p_gb),
                ("p_bg", l.p_bg),
                ("loss_good", l.loss_good),
                ("loss_bad", l.loss_bad),
                ("mean", l.mean),
                ("burst", l.burst),
            ] {
                if v.is_some() {
                    errs.push(err(
                        format!("{loc}.{f}"),
                        "not used by model = \"bernoulli\" (it takes p)",
                    ));
                }
            }
        }
        LossModelName::GilbertElliott => {
            let explicit = l.p_gb.is_some() || l.p_bg.is_some();
            let by_mean = l.mean.is_some() || l.burst.is_some();
            if l.p.is_some() {
                errs.push(err(format!("{loc}.p"), "not used by model = \"gilbert_elliott\"; give p_gb and p_bg, or mean and burst"));
            }
            if explicit == by_mean {
                errs.push(err(
                    loc.to_string(),
                    "gilbert_elliott takes either p_gb and p_bg, or mean and burst",
                ));
            } else if explicit && (l.p_gb.is_none() || l.p_bg.is_none()) {
                errs.push(err(loc.to_string(), "give both p_gb and p_bg"));
            } else if by_mean && (l.mean.is_none() || l.burst.is_none()) {
                errs.push(err(loc.to_string(), "give both mean and burst"));
            }
            if let Some(b) = l.burst {
                if b < 1.0 {
                    errs.push(err(
                        format!("{loc}.burst"),
                        "mean burst length is at least 1 packet",
                    ));
                }
            }
            if l.mean == Some(1.0) {
                errs.push(err(format!("{loc}.mean"), "must be below 1"));
            }
        }
    }
}

fn validate_outage(o: &OutageSpec, loc: &str, errs: &mut Vec<FieldError>) {
    match (o.every, o.down) {
        (Some(p), Some(d)) => {
            if d.0 >= p.0 || p.0 .0 == 0 {
                errs.push(err(format!("{loc}.down"), "must be shorter than 'every'"));
            }
        }
        (None, None) => {
            if o.start.is_some() {
                errs.push(err(
                    format!("{loc}.start"),
                    "only used with 'every' and 'down'",
                ));
            }
        }
        _ => errs.push(err(loc.to_string(), "'every' and 'down' go together")),
    }
    for (i, (s, e)) in o.intervals.iter().enumerate() {
        if e.0 <= s.0 {
            errs.push(err(
                format!("{loc}.intervals[{i}]"),
                "end must be after start",
            ));
        }
    }
}

fn validate_wlan(
    w: &WlanSpec,
    loc: &str,
    known: &dyn Fn(&str) -> bool,
    unknown_node: &dyn Fn(String, &str) -> FieldError,
    errs: &mut Vec<FieldError>,
) {
    let phy = match wlan_phy_base(w) {
        Some(p) => Some(p),
        None => {
            errs.push(err(
                format!("{loc}.phy"),
                format!(
                    "unknown PHY preset '{}'; allowed: {}",
                    w.phy.as_deref().unwrap_or(""),
                    PhyParams::PRESETS.join(", ")
                ),
            ));
            None
        }
    };
    if let Some(p) = &phy {
        let rates: Vec<String> = p
            .rates
            .iter()
            .map(|r| format!("{}", *r as f64 / 1e6))
            .collect();
        let check_rate = |r: u64, at: String, errs: &mut Vec<FieldError>| {
            if !p.rates.contains(&r) {
                errs.push(err(
                    at,
                    format!(
                        "{} Mb/s is not a rate of PHY '{}'; allowed (Mb/s): {}",
                        r as f64 / 1e6,
                        p.preset,
                        rates.join(", ")
                    ),
                ));
            }
        };
        if let Some(r) = w.rate {
            check_rate(r.0, format!("{loc}.rate"), errs);
        }
        if let Some(r) = w.basic_rate {
            check_rate(r.0, format!("{loc}.basic_rate"), errs);
        }
        if let Some(r) = w.rts_cts_rate {
            check_rate(r.0, format!("{loc}.rts_cts_rate"), errs);
        }
        for (k, st) in w.rate_steps.iter().enumerate() {
            check_rate(st.rate.0, format!("{loc}.rate_steps[{k}].rate"), errs);
            if k > 0 && st.max_distance <= w.rate_steps[k - 1].max_distance {
                errs.push(err(
                    format!("{loc}.rate_steps[{k}].max_distance"),
                    "steps must be in increasing distance",
                ));
            }
        }
        if w.short_preamble.is_some()
            && !matches!(p.modulation, Modulation::Dsss | Modulation::ErpOfdm)
        {
            errs.push(err(
                format!("{loc}.short_preamble"),
                format!("PHY '{}' has no short preamble", p.preset),
            ));
        }
    }
    if w.rate.is_some() && !w.rate_steps.is_empty() {
        errs.push(err(
            format!("{loc}.rate_steps"),
            "give either a fixed rate or rate_steps, not both",
        ));
    }
    for (f, v) in [("cw_min", w.cw_min), ("cw_max", w.cw_max)] {
        if let Some(c) = v {
            if !(c + 1).is_power_of_two() || c == 0 {
                errs.push(err(
                    format!("{loc}.{f}"),
                    format!(
                        "{c} is not allowed; CW + 1 must be a power of two (e.g. 15, 31, 1023)"
                    ),
                ));
            }
        }
    }
    if let Some(p) = &phy {
        let (lo, hi) = (w.cw_min.unwrap_or(p.cw_min), w.cw_max.unwrap_or(p.cw_max));
        if lo > hi {
            errs.push(err(format!("{loc}.cw_min"), "must not exceed cw_max"));
        }
    }
    for (f, v) in [
        ("short_retry_limit", w.short_retry_limit),
        ("long_retry_limit", w.long_retry_limit),
        ("queue", w.queue),
    ] {
        if v == Some(0) {
            errs.push(err(format!("{loc}.{f}"), "must be at least 1"));
        }
    }
    if w.slot.is_some_and(|d| d.0 .0 == 0) {
        errs.push(err(format!("{loc}.slot"), "must be positive"));
    }
    validate_reception(w, loc, phy.as_ref(), errs);
    if w.prop_delay.is_some() && w.prop_delay_from_distance == Some(true) {
        errs.push(err(
            format!("{loc}.prop_delay"),
            "give either prop_delay or prop_delay_from_distance = true, not both",
        ));
    }
    if let Some(pr) = &w.propagation {
        let pl = format!("{loc}.propagation");
        let disk = pr.model == PropagationModelName::UnitDisk;
        for (f, set) in [
            ("rx_range", pr.rx_range.is_some()),
            ("cs_range", pr.cs_range.is_some()),
        ] {
            if set && !disk {
                errs.push(err(
                    format!("{pl}.{f}"),
                    "only used by model = \"unit_disk\"",
                ));
            }
        }
        for (f, v) in [
            ("tx_power_w", pr.tx_power_w),
            ("frequency_hz", pr.frequency_hz),
            ("rx_thresh_w", pr.rx_thresh_w),
            ("cs_thresh_w", pr.cs_thresh_w),
            ("capture_ratio", pr.capture_ratio),
        ] {
            if let Some(x) = v {
                if disk {
                    errs.push(err(
                        format!("{pl}.{f}"),
                        "not used by model = \"unit_disk\" (it takes rx_range and cs_range)",
                    ));
                } else if !(x > 0.0 && x.is_finite()) {
                    errs.push(err(format!("{pl}.{f}"), "must be a positive number"));
                }
            }
        }
        if disk {
            let rx = pr.rx_range.map_or(250.0, |d| d.metres());
            let cs = pr.cs_range.map_or(550.0, |d| d.metres());
            if rx <= 0.0 {
                errs.push(err(format!("{pl}.rx_range"), "must be positive"));
            }
            if cs < rx {
                errs.push(err(format!("{pl}.cs_range"), "must be at least rx_range"));
            }
        }
    }
    if let Some(sg) = &w.signals {
        if sg
            .duration_factor
            .is_some_and(|f| !(f >= 0.0 && f.is_finite()))
        {
            errs.push(err(
                format!("{loc}.signals.duration_factor"),
                "must be zero or positive",
            ));
        }
        if sg
            .miss_probability
            .is_some_and(|p| !(0.0..=1.0).contains(&p))
        {
            errs.push(err(
                format!("{loc}.signals.miss_probability"),
                "is a probability: allowed 0 to 1",
            ));
        }
        if sg.sample_interval.is_some_and(|d| d.0 .0 == 0) {
            errs.push(err(
                format!("{loc}.signals.sample_interval"),
                "must be positive",
            ));
        }
    }
    super::mobility::validate_mobility(w, loc, errs);
    let mut seen = BTreeSet::new();
    for (k, st) in w.stations.iter().enumerate() {
        let sl = format!("{loc}.stations[{k}]");
        if !known(&st.node) {
            errs.push(unknown_node(format!("{sl}.node"), &st.node));
        }
        if !seen.insert(st.node.as_str()) {
            errs.push(err(
                format!("{sl}.node"),
                format!("node '{}' is already a station of this WLAN", st.node),
            ));
        }
        if let Some(l) = &st.loss {
            validate_loss(l, &format!("{sl}.loss"), errs);
        }
        if let Some(o) = &st.outage {
            validate_outage(o, &format!("{sl}.outage"), errs);
        }
    }
    if w.stations.len() < 2 {
        errs.push(err(
            format!("{loc}.stations"),
            "a WLAN needs at least two stations",
        ));
    }
    match (w.mode, &w.ap) {
        (WlanMode::Infrastructure, None) => errs.push(err(
            format!("{loc}.ap"),
            "required for mode = \"infrastructure\" (the node of the access point)",
        )),
        (WlanMode::Infrastructure, Some(ap)) => {
            if !w.stations.iter().any(|s| &s.node == ap) {
                errs.push(err(
                    format!("{loc}.ap"),
                    format!("'{ap}' must also be listed in stations (with its position)"),
                ));
            }
        }
        (WlanMode::Adhoc, Some(_)) => {
            errs.push(err(format!("{loc}.ap"), "not used by mode = \"adhoc\""))
        }
        (WlanMode::Adhoc, None) => {}
    }
}
fn app_str(a: AppName) -> &'static str {
    match a {
        AppName::BulkDownload => "bulk_download",
        AppName::Bulk => "bulk",
        AppName::Cbr => "cbr",
    }
}

/// Whether b is reachable from a over links and WLANs (a WLAN counts as connecting all its
/// stations; whether an ad hoc WLAN's radio ranges connect them is known only when it is built).
fn connected(s: &Scenario, a: &str, b: &str) -> bool {
    let mut seen = BTreeSet::from([a]);
    let mut frontier = vec![a];
    // A WLAN's stations are all reached the first time one of them is: it is not gone over again
    // (that made the search quadratic in a WLAN's size: 4.6 M set insertions for 1000 stations).
    let mut wlan_reached = vec![false; s.wlans.len()];
    while let Some(u) = frontier.pop() {
        for l in &s.links {
            for (x, y) in [(&l.a, &l.b), (&l.b, &l.a)] {
                if x == u && seen.insert(y.as_str()) {
                    frontier.push(y.as_str());
                }
            }
        }
        for (w, reached) in s.wlans.iter().zip(&mut wlan_reached) {
            if !*reached && w.stations.iter().any(|st| st.node == u) {
                *reached = true;
                for st in &w.stations {
                    if seen.insert(st.node.as_str()) {
                        frontier.push(st.node.as_str());
                    }
                }
            }
        }
    }
    seen.contains(b)
}

/// The reception model's and the log-distance model's fields of one WLAN.
fn validate_reception(
    w: &WlanSpec,
    loc: &str,
    phy: Option<&PhyParams>,
    errs: &mut Vec<FieldError>,
) {
    if let Some(pr) = &w.propagation {
        let pl = format!("{loc}.propagation");
        let logd = pr.model == PropagationModelName::LogDistance;
        for (f, v, ok) in [
            (
                "exponent",
                pr.exponent,
                pr.exponent.is_none_or(|x| x > 0.0 && x.is_finite()),
            ),
            (
                "reference_loss_db",
                pr.reference_loss_db,
                pr.reference_loss_db.is_none_or(f64::is_finite),
            ),
            (
                "shadowing_db",
                pr.shadowing_db,
                pr.shadowing_db.is_none_or(|x| x >= 0.0 && x.is_finite()),
            ),
        ] {
            if v.is_some() && !logd {
                errs.push(err(
                    format!("{pl}.{f}"),
                    "only used by model = \"log_distance\"",
                ));
            } else if !ok {
                errs.push(err(
                    format!("{pl}.{f}"),
                    "must be a finite number (exponent > 0, shadowing_db ≥ 0)",
                ));
            }
        }
        if pr.reference_distance.is_some() && !logd {
            errs.push(err(
                format!("{pl}.reference_distance"),
                "only used by model = \"log_distance\"",
            ));
        }
    }
    let Some(r) = &w.reception else { return };
    let rl = format!("{loc}.reception");
    if r.model != ReceptionModelName::Sinr {
        let sinr_only = [
            ("noise_figure_db", r.noise_figure_db.is_some()),
            ("preamble_detection", r.preamble_detection.is_some()),
            ("preamble_threshold_db", r.preamble_threshold_db.is_some()),
        ];
        for (f, set) in sinr_only {
            if set {
                errs.push(err(format!("{rl}.{f}"), "only used by model = \"sinr\""));
            }
        }
        return;
    }
    if r.preamble_threshold_db.is_some()
        && r.preamble_detection != Some(PreambleDetectionName::Threshold)
    {
        errs.push(err(
            format!("{rl}.preamble_threshold_db"),
            "only used by preamble_detection = \"threshold\"",
        ));
    }
    if r.preamble_threshold_db.is_some_and(|x| !x.is_finite()) {
        errs.push(err(
            format!("{rl}.preamble_threshold_db"),
            "must be a finite number of dB",
        ));
    }
    if r.noise_figure_db.is_some_and(|x| !x.is_finite()) {
        errs.push(err(
            format!("{rl}.noise_figure_db"),
            "must be a finite number of dB",
        ));
    }
    if w.propagation
        .as_ref()
        .is_some_and(|p| p.model == PropagationModelName::UnitDisk)
    {
        errs.push(err(
            format!("{rl}.model"),
            "\"sinr\" needs received powers: use propagation model two_ray_ground, free_space or log_distance",
        ));
    }
    if let Some(p) = phy {
        let allowed = crate::wifi::reception::SINR_RATES;
        let names = "1, 2, 5.5, 11 (802.11b DSSS/CCK); 6, 9, 12, 18, 24, 36, 48, 54 (OFDM)";
        let mut rates: Vec<(String, u64)> = Vec::new();
        if let Some(x) = w.rate {
            rates.push((format!("{loc}.rate"), x.0));
        } else if w.rate_steps.is_empty() {
            let d = if p.preset == "ns2_dsss" {
                2_000_000
            } else {
                p.rates.iter().copied().max().unwrap_or(0)
            };
            rates.push((format!("{loc}.phy"), d));
        }
        for (k, st) in w.rate_steps.iter().enumerate() {
            rates.push((format!("{loc}.rate_steps[{k}].rate"), st.rate.0));
        }
        for b in w.basic_rate.map_or(p.basic_rates.clone(), |b| vec![b.0]) {
            rates.push((format!("{loc}.basic_rate"), b));
        }
        for (at, x) in rates {
            if !allowed.contains(&x) {
                errs.push(err(
                    at,
                    format!(
                        "{} Mb/s has no error model for reception = \"sinr\"; allowed (Mb/s): {names}",
                        x as f64 / 1e6
                    ),
                ));
            }
        }
    }
}

/// RED's thresholds and weights (wired queues and WLAN interface queues).
fn validate_red(
    min_th: f64,
    max_th: f64,
    max_p: f64,
    w_q: f64,
    loc: &str,
    errs: &mut Vec<FieldError>,
) {
    if !(0.0 <= min_th && min_th < max_th) {
        errs.push(err(format!("{loc}.min_th"), "need 0 ≤ min_th < max_th"));
    }
    if !(max_p > 0.0 && max_p <= 1.0) {
        errs.push(err(format!("{loc}.max_p"), "allowed: 0 < max_p ≤ 1"));
    }
    if !(w_q > 0.0 && w_q <= 1.0) {
        errs.push(err(format!("{loc}.w_q"), "allowed: 0 < w_q ≤ 1"));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{load, Format};

    #[test]
    fn connected_follows_links_and_whole_wlans() {
        // a, b share one WLAN, b and c a link, c and d another WLAN; e is alone.
        let mut text = String::new();
        for n in ["a", "b", "c", "d", "e"] {
            text += &format!("[[nodes]]\nname = \"{n}\"\n");
        }
        text +=
            "[[links]]\nname = \"l\"\na = \"b\"\nb = \"c\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n";
        for (w, members) in [("w1", ["a", "b"]), ("w2", ["d", "c"])] {
            text += &format!("[[wlans]]\nname = \"{w}\"\nmode = \"adhoc\"\n");
            for (i, m) in members.iter().enumerate() {
                text += &format!(
                    "[[wlans.stations]]\nnode = \"{m}\"\nposition = [\"{i}0m\", \"0m\"]\n"
                );
            }
        }
        let s = load(&text, Format::Toml, &[]).unwrap_or_else(|e| panic!("{e:?}"));
        for (x, y, want) in [
            ("a", "d", true),
            ("d", "a", true),
            ("c", "b", true),
            ("a", "e", false),
            ("e", "c", false),
        ] {
            assert_eq!(super::connected(&s, x, y), want, "{x} -> {y}");
        }
    }

    #[test]
    fn unknown_capture_interfaces_are_named_with_the_known_ones() {
        let text = r#"
            [[nodes]]
            name = "a"
            [[nodes]]
            name = "b"
            [[links]]
            name = "wired"
            a = "a"
            b = "b"
            rate = "1Mbps"
            delay = "1ms"
            [trace]
            pcap = ["wired", "nope", "*"]
            pcap_80211 = ["cell"]
        "#;
        let errs = load(text, Format::Toml, &[]).unwrap_err();
        let at = |loc: &str| {
            errs.iter()
                .filter(|e| e.loc == loc)
                .map(|e| e.msg.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            at("trace.pcap[1]"),
            ["unknown link 'nope'; links: wired (or \"*\")"]
        );
        assert_eq!(
            at("trace.pcap_80211[0]"),
            ["unknown WLAN 'cell'; WLANs: none (or \"*\")"]
        );
        assert_eq!(
            errs.iter().filter(|e| e.loc.starts_with("trace.")).count(),
            2,
            "{errs:?}"
        );
    }
}
