//! The FH–BS–MH network the base-station schemes' integration tests share (seed 001's network:
//! FH –10 Mb/s, 50 ms– BS –ns-2 802.11 DSSS 2 Mb/s– MH at 50 m, a download from the FH to the
//! MH, ns-2-like Reno with 1000-byte segments). Each test states only what it changes.

/// A scenario text builder. `[tcp]` keys are replaced or removed by name; the other tables take
/// extra lines.
pub struct FhBsMh {
    name: String,
    duration: String,
    flow_name: String,
    tcp: Vec<(String, String)>,
    wired: Vec<String>,
    cell: Vec<String>,
    mobile: Vec<String>,
    flow: Vec<String>,
    tail: String,
}

impl FhBsMh {
    /// ns-2's Agent/TCP as the tests run it: Reno, 1000-byte segments counted in whole
    /// segments, +1 per ACK in slow start, initial window 2, a 20-segment receive window, an
    /// ACK per segment, RTO 3 s at first with a 200 ms floor, a 10 ms clock, and no limit on
    /// retransmissions.
    pub fn new(name: &str, duration: &str, flow: &str, size: &str) -> FhBsMh {
        let tcp = [
            ("variant", "\"reno\""),
            ("mss", "1000"),
            ("window_unit", "\"segments\""),
            ("ca_mode", "\"per_ack\""),
            ("initial_window", "2"),
            ("rcv_buf", "\"20000B\""),
            ("delayed_ack", "false"),
            ("rto_initial", "\"3s\""),
            ("rto_min", "\"200ms\""),
            ("clock_granularity", "\"10ms\""),
            ("max_retransmissions", "1000"),
        ];
        FhBsMh {
            name: name.into(),
            duration: duration.into(),
            flow_name: flow.into(),
            tcp: tcp
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            wired: Vec::new(),
            cell: Vec::new(),
            mobile: Vec::new(),
            flow: vec![format!("size = \"{size}\"")],
            tail: String::new(),
        }
    }

    /// The rest of seed 001's TCP: no window scaling or SACK, timestamps, RTO ceiling 60 s,
    /// 10 ms timer tick.
    pub fn ns2_options(self) -> FhBsMh {
        self.tcp("window_scaling", "false")
            .tcp("sack", "false")
            .tcp("timestamps", "true")
            .tcp("rto_max", "\"60s\"")
            .tcp("timer_tick", "\"10ms\"")
    }

    /// Sets `[tcp] key = value` (a TOML value), replacing the key if present.
    pub fn tcp(mut self, key: &str, value: &str) -> FhBsMh {
        match self.tcp.iter_mut().find(|(k, _)| k == key) {
            Some(kv) => kv.1 = value.into(),
            None => self.tcp.push((key.into(), value.into())),
        }
        self
    }

    /// Removes `[tcp] key`.
    pub fn without_tcp(mut self, key: &str) -> FhBsMh {
        self.tcp.retain(|(k, _)| k != key);
        self
    }

    /// A line of the FH–BS link's table.
    pub fn wired(mut self, line: &str) -> FhBsMh {
        self.wired.push(line.into());
        self
    }

    /// A line of the WLAN's table.
    pub fn cell(mut self, line: &str) -> FhBsMh {
        self.cell.push(line.into());
        self
    }

    /// A line of the mobile's station table.
    pub fn mobile(mut self, line: &str) -> FhBsMh {
        self.mobile.push(line.into());
        self
    }

    /// A line of the download's flow table.
    pub fn flow(mut self, line: &str) -> FhBsMh {
        self.flow.push(line.into());
        self
    }

    /// An agent at the BS for the mobile (`[[agents]] kind = …`).
    pub fn agent(self, kind: &str) -> FhBsMh {
        self.tables(&format!(
            "[[agents]]\nkind = \"{kind}\"\nnode = \"bs\"\nmobile = \"mh\"\n"
        ))
    }

    /// Tables appended at the end (e.g. `[trace]`).
    pub fn tables(mut self, text: &str) -> FhBsMh {
        self.tail.push_str(text);
        self
    }

    pub fn build(&self) -> String {
        let lines = |v: &[String]| v.iter().map(|l| format!("{l}\n")).collect::<String>();
        let tcp: String = self
            .tcp
            .iter()
            .map(|(k, v)| format!("{k} = {v}\n"))
            .collect();
        format!(
            r#"name = "{name}"
duration = "{duration}"
[tcp]
{tcp}[[nodes]]
name = "fh"
[[nodes]]
name = "bs"
[[nodes]]
name = "mh"
[[links]]
name = "wired"
a = "fh"
b = "bs"
rate = "10Mbps"
delay = "50ms"
{wired}[[wlans]]
name = "cell"
mode = "infrastructure"
phy = "ns2_dsss"
rate = "2Mbps"
ap = "bs"
{cell}[[wlans.stations]]
node = "bs"
position = ["0m", "0m"]
[[wlans.stations]]
node = "mh"
position = ["50m", "0m"]
{mobile}[[flows]]
name = "{flow_name}"
app = "bulk_download"
client = "mh"
server = "fh"
{flow}{tail}"#,
            name = self.name,
            duration = self.duration,
            wired = lines(&self.wired),
            cell = lines(&self.cell),
            mobile = lines(&self.mobile),
            flow_name = self.flow_name,
            flow = lines(&self.flow),
            tail = self.tail,
        )
    }
}
