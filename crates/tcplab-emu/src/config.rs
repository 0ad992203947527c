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

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::SimTime;

    fn config(link_fields: &str, link: &str) -> EmuConfig {
        let scenario = format!(
            "name = \"t\"\n[[nodes]]\nname = \"a\"\n[[nodes]]\nname = \"b\"\n\
             [[links]]\nname = \"ab\"\na = \"a\"\nb = \"b\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n{link_fields}\n\
             [[flows]]\nname = \"f\"\napp = \"bulk_download\"\nclient = \"b\"\nserver = \"a\"\nsize = \"1kB\"\n"
        );
        let json = serde_json::json!({
            "scenario": scenario, "format": "toml", "seed": 1, "link": link,
            "ends": [{"netns": "/run/netns/x", "ifname": "l0"}, {"netns": "/run/netns/y", "ifname": "l0"}],
        });
        EmuConfig::parse(&json.to_string()).expect("valid config")
    }

    #[test]
    fn the_link_is_read_from_the_scenario_per_direction() {
        let cfg = config(
            "loss = { model = \"bernoulli\", p = 1.0, direction = \"a_to_b\" }",
            "ab",
        );
        let [mut ab, mut ba] = cfg.directions().expect("link found");
        assert_eq!(ab.stats.direction, "a->b");
        assert_eq!(ba.stats.direction, "b->a");
        for d in [&mut ab, &mut ba] {
            d.offer(SimTime::ZERO, vec![0x45; 100]);
        }
        // The loss applies to a→b only.
        assert_eq!((ab.stats.drops_loss, ba.stats.drops_loss), (1, 0));
    }

    #[test]
    fn a_missing_link_or_a_bad_scenario_is_named() {
        let err = config("", "nope").directions().err().expect("refused");
        assert!(err.contains("no link named \"nope\""), "{err}");
        let err = config("rate2 = 1", "ab")
            .directions()
            .err()
            .expect("refused");
        assert!(err.starts_with("invalid scenario: links"), "{err}");
    }
}
