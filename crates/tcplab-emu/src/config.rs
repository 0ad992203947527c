//! What the emulator is told to do: a JSON file written by the Python side
//! (python/tcplab/validate/emulator.py). The link itself is read from the scenario through the
//! core's own parser and `scenario::link_direction`, so the emulator and the simulator cannot read
//! a link's fields differently.

use serde::Deserialize;
use tcplab_core::rng::{Rng, StreamId};
use tcplab_core::scenario::{self, link_direction, link_name, Format};

use crate::direction::Direction;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmuConfig {
    /// Scenario text, its format ("toml" or "json") and the `--set` overrides, as the CLI got them.
    pub scenario: String,
    pub format: String,
    #[serde(default)]
    pub overrides: Vec<(String, String)>,
    pub seed: u64,
    /// The link's name in the scenario.
    pub link: String,
    /// Where each end's TUN device is made: [end a, end b].
    pub ends: [End; 2],
    /// A pcap of every packet each end hands to the link, timestamped from the start.
    #[serde(default)]
    pub pcap: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct End {
    /// The namespace file, e.g. /run/netns/NAME.
    pub netns: String,
    pub ifname: String,
}

impl EmuConfig {
    pub fn parse(text: &str) -> Result<EmuConfig, String> {
        serde_json::from_str(text).map_err(|e| format!("emulator config: {e}"))
    }

    /// The two directions of the link, [a→b, b→a], each with the random stream the simulator
    /// gives it for the same seed.
    pub fn directions(&self) -> Result<[Direction; 2], String> {
        let format = match self.format.as_str() {
            "toml" => Format::Toml,
            "json" => Format::Json,
            other => return Err(format!("format {other:?}: expected \"toml\" or \"json\"")),
        };
        let s = scenario::load(&self.scenario, format, &self.overrides).map_err(|errs| {
            let msgs: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
            format!("invalid scenario: {}", msgs.join("; "))
        })?;
        let (index, l) = s
            .links
            .iter()
            .enumerate()
            .find(|(_, l)| link_name(l) == self.link)
            .ok_or_else(|| format!("the scenario has no link named {:?}", self.link))?;
        let dir = |k: u8, from: &str, to: &str| {
            Direction::new(
                format!("{from}->{to}"),
                l.rate.0,
                l.delay.0,
                link_direction(l, k),
                Rng::derive(
                    self.seed,
                    StreamId::Link {
                        link: index as u32,
                        dir: k,
                        purpose: 0,
                    },
                ),
            )
        };
        Ok([dir(0, &l.a, &l.b), dir(1, &l.b, &l.a)])
    }
}
