//! Quantities written with their units: durations ("20ms", "1.5s", "2min"), rates ("10Mbps",
//! "11 Mb/s", "64kbit/s"), sizes ("1460B", "100MB" = 10^8 bytes, "64KiB" = 65536 bytes),
//! distances ("250m") and speeds ("20m/s", "72km/h").
//!
//! SI prefixes are decimal; KiB/MiB/GiB are binary. A rate or a duration without a unit is an
//! error (a bare 10 could mean anything); a bare integer size is taken as bytes.

use std::fmt;

use schemars::gen::SchemaGenerator;
use schemars::schema::{
    InstanceType, Metadata, Schema, SchemaObject, StringValidation, SubschemaValidation,
};
use schemars::JsonSchema;
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::time::SimTime;

/// 2^63: sizes and durations stay below it, so that sums of two (a flow's start plus its length,
/// an ISN plus a transfer: unwrapped u64 sequence numbers, docs/ARCHITECTURE.md decision 4) cannot
/// overflow u64.
const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
/// 2^64: rates (bit/s) are u64.
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;

/// A written number that is not finite ("1e400", "inf", "nan") is refused with its own message,
/// not a misleading "must be positive".
fn finite(v: f64, s: &str, what: &str) -> Result<f64, String> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("{what} '{s}' is not a finite number"))
    }
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == '_'
                || (i == 0 && (c == '-' || c == '+'))
                || ((c == 'e' || c == 'E')
                    && i > 0
                    && s[i + 1..].starts_with(|d: char| d.is_ascii_digit() || d == '-')))
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let num: String = s[..end].chars().filter(|&c| c != '_').collect();
    let v: f64 = num.parse().ok()?;
    Some((v, s[end..].trim()))
}

/// Parses a duration string.
pub fn parse_duration(s: &str) -> Result<SimTime, String> {
    let (v, unit) = split_number(s).ok_or_else(|| {
        format!("'{s}' is not a duration; write a number and a unit, e.g. \"20ms\"")
    })?;
    let scale = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" | "sec" => 1.0,
        "min" => 60.0,
        "h" => 3600.0,
        "" => return Err(format!("'{s}' has no unit; durations take one of ns, us, ms, s, min, h (e.g. \"{s}ms\" or \"{s}s\")")),
        u => return Err(format!("unknown duration unit '{u}' in '{s}'; allowed: ns, us, ms, s, min, h")),
    };
    let ns = finite(v * scale * 1e9, s, "duration")?;
    if ns < 0.0 {
        return Err(format!("duration '{s}' must be zero or positive"));
    }
    if ns >= TWO_POW_63 {
        return Err(format!(
            "duration '{s}' is too long; the longest allowed is 9223372036s (2^63 ns, about 292 years)"
        ));
    }
    Ok(SimTime(ns.round() as u64))
}

/// Parses a rate string into bits per second.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("'{s}' is not a rate; write e.g. \"10Mbps\""))?;
    let u = unit.replace(' ', "");
    let (prefix, rest) = match u.chars().next() {
        Some('k') | Some('K') => (1e3, &u[1..]),
        Some('M') => (1e6, &u[1..]),
        Some('G') => (1e9, &u[1..]),
        _ => (1.0, &u[..]),
    };
    let per_bit = match rest {
        "bps" | "b/s" | "bit/s" | "bits/s" => 1.0,
        "Bps" | "B/s" => 8.0,
        "" => return Err(format!("'{s}' has no unit; rates take bps, kbps, Mbps, Gbps (or b/s, Mb/s, B/s …), e.g. \"{s}Mbps\"")),
        _ => return Err(format!("unknown rate unit '{unit}' in '{s}'; allowed: bps, kbps, Mbps, Gbps, b/s, kb/s, Mb/s, Gb/s, bit/s, B/s")),
    };
    let bps = finite(v * prefix * per_bit, s, "rate")?;
    if bps < 0.5 {
        return Err(format!("rate '{s}' must be positive (at least 1bps)"));
    }
    if bps >= TWO_POW_64 {
        return Err(format!(
            "rate '{s}' is too high; the highest allowed is 18446744073709551615bps (2^64 − 1 bit/s)"
        ));
    }
    Ok(bps.round() as u64)
}

/// Parses a size string into bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let (v, unit) = split_number(s).ok_or_else(|| {
        format!("'{s}' is not a size; write e.g. \"1460B\", \"100MB\" or \"64KiB\"")
    })?;
    let scale = match unit {
        "B" | "" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        u => return Err(format!("unknown size unit '{u}' in '{s}'; allowed: B, kB, MB, GB (powers of ten), KiB, MiB, GiB (powers of two)")),
    };
    let bytes = finite(v * scale, s, "size")?;
    if bytes < 0.0 {
        return Err(format!("size '{s}' must be zero or positive"));
    }
    if bytes >= TWO_POW_63 {
        return Err(format!(
            "size '{s}' is too large; the largest allowed is 9223372036854775807B (2^63 − 1 bytes)"
        ));
    }
    Ok(bytes.round() as u64)
}

/// Parses a distance string ("250m", "1.2km", "-30m") into micrometres (signed: positions may be
/// negative).
pub fn parse_distance(s: &str) -> Result<i64, String> {
    let (v, unit) = split_number(s).ok_or_else(|| {
        format!("'{s}' is not a distance; write a number and a unit, e.g. \"250m\"")
    })?;
    let scale = match unit {
        "m" => 1.0,
        "km" => 1e3,
        "cm" => 1e-2,
        "mm" => 1e-3,
        "" => {
            return Err(format!(
                "'{s}' has no unit; distances take m, km, cm or mm (e.g. \"{s}m\")"
            ))
        }
        u => {
            return Err(format!(
                "unknown distance unit '{u}' in '{s}'; allowed: m, km, cm, mm"
            ))
        }
    };
    let um = finite(v * scale * 1e6, s, "distance")?;
    if um.abs() > 1e15 {
        return Err(format!(
            "distance '{s}' is out of range; allowed: -1000000km to 1000000km"
        ));
    }
    Ok(um.round() as i64)
}

/// Parses a speed string ("20m/s", "72km/h") into micrometres per second.
pub fn parse_speed(s: &str) -> Result<u64, String> {
    let (v, unit) = split_number(s).ok_or_else(|| {
        format!("'{s}' is not a speed; write a number and a unit, e.g. \"20m/s\"")
    })?;
    let scale = match unit.replace(' ', "").as_str() {
        "m/s" | "mps" => 1.0,
        "km/h" | "kmh" => 1e3 / 3600.0,
        "" => {
            return Err(format!(
                "'{s}' has no unit; speeds take m/s or km/h (e.g. \"{s}m/s\")"
            ))
        }
        u => {
            return Err(format!(
                "unknown speed unit '{u}' in '{s}'; allowed: m/s, km/h"
            ))
        }
    };
    let ums = finite(v * scale * 1e6, s, "speed")?;
    if ums < 0.0 {
        return Err(format!("speed '{s}' must be zero or positive"));
    }
    if ums > 3e14 {
        return Err(format!(
            "speed '{s}' is out of range; the highest allowed is 300000000m/s"
        ));
    }
    Ok(ums.round() as u64)
}

fn fmt_speed(ums: u64) -> String {
    if ums.is_multiple_of(1_000_000) {
        format!("{}m/s", ums / 1_000_000)
    } else {
        format!("{}m/s", ums as f64 / 1e6)
    }
}

impl Speed {
    pub fn metres_per_second(self) -> f64 {
        self.0 as f64 / 1e6
    }
}

fn fmt_distance(um: i64) -> String {
    if um % 1_000_000 == 0 {
        format!("{}m", um / 1_000_000)
    } else {
        format!("{}m", um as f64 / 1e6)
    }
}

impl Distance {
    pub fn metres(self) -> f64 {
        self.0 as f64 / 1e6
    }
}

fn unit_schema(desc: &str, pattern: &str, allow_int: bool) -> Schema {
    let s = SchemaObject {
        instance_type: Some(InstanceType::String.into()),
        string: Some(Box::new(StringValidation {
            pattern: Some(pattern.to_string()),
            ..Default::default()
        })),
        ..Default::default()
    };
    let mut top = if allow_int {
        SchemaObject {
            subschemas: Some(Box::new(SubschemaValidation {
                any_of: Some(vec![
                    Schema::Object(s),
                    Schema::Object(SchemaObject {
                        instance_type: Some(InstanceType::Integer.into()),
                        ..Default::default()
                    }),
                ]),
                ..Default::default()
            })),
            ..Default::default()
        }
    } else {
        s
    };
    top.metadata = Some(Box::new(Metadata {
        description: Some(desc.to_string()),
        ..Default::default()
    }));
    Schema::Object(top)
}

macro_rules! unit_type {
    ($name:ident, $inner:ty, $parse:ident, $expect:literal, $desc:literal, $pattern:literal, $allow_int:expr, $fmt:ident) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expect)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        $parse(s).map($name).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        if $allow_int && v >= 0 {
                            return $parse(&v.to_string()).map($name).map_err(E::custom);
                        }
                        $parse(&v.to_string()).map($name).map_err(E::custom)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        $parse(&v.to_string()).map($name).map_err(E::custom)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        $parse(&v.to_string()).map($name).map_err(E::custom)
                    }
                }
                d.deserialize_any(V)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&$fmt(self.0))
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> String {
                stringify!($name).to_string()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                unit_schema($desc, $pattern, $allow_int)
            }
        }
    };
}

fn fmt_duration(t: SimTime) -> String {
    let ns = t.0;
    for (unit, k) in [
        ("h", 3_600_000_000_000u64),
        ("min", 60_000_000_000),
        ("s", 1_000_000_000),
        ("ms", 1_000_000),
        ("us", 1_000),
    ] {
        if ns >= k && ns.is_multiple_of(k) {
            return format!("{}{unit}", ns / k);
        }
    }
    if ns == 0 {
        "0s".into()
    } else {
        format!("{ns}ns")
    }
}

fn fmt_rate(bps: u64) -> String {
    for (unit, k) in [
        ("Gbps", 1_000_000_000u64),
        ("Mbps", 1_000_000),
        ("kbps", 1_000),
    ] {
        if bps.is_multiple_of(k) {
            return format!("{}{unit}", bps / k);
        }
    }
    format!("{bps}bps")
}

fn fmt_size(b: u64) -> String {
    for (unit, k) in [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
        if b >= k && b.is_multiple_of(k) && !b.is_multiple_of(1000) {
            return format!("{}{unit}", b / k);
        }
    }
    for (unit, k) in [("GB", 1_000_000_000u64), ("MB", 1_000_000), ("kB", 1_000)] {
        if b >= k && b.is_multiple_of(k) {
            return format!("{}{unit}", b / k);
        }
    }
    format!("{b}B")
}

unit_type!(
    Duration,
    SimTime,
    parse_duration,
    "a duration with a unit, e.g. \"20ms\"",
    "A duration with its unit: ns, us, ms, s, min, h (e.g. \"20ms\", \"1.5s\")",
    r"^\s*[0-9][0-9_.eE+-]*\s*(ns|us|µs|ms|s|sec|min|h)\s*$",
    false,
    fmt_duration
);
unit_type!(
    Rate,
    u64,
    parse_rate,
    "a rate with a unit, e.g. \"10Mbps\"",
    "A bit rate with its unit: bps, kbps, Mbps, Gbps, b/s, kb/s, Mb/s, Gb/s, B/s (e.g. \"10Mbps\")",
    r"^\s*[0-9][0-9_.eE+-]*\s*[kKMG]?\s*(bps|Bps|b/s|B/s|bit/s|bits/s)\s*$",
    false,
    fmt_rate
);
unit_type!(
    Size,
    u64,
    parse_size,
    "a size in bytes, e.g. \"1460B\", \"100MB\" or \"64KiB\"",
    "A size: B, kB, MB, GB (powers of ten), KiB, MiB, GiB (powers of two); a bare integer is bytes",
    r"^\s*[0-9][0-9_.eE+-]*\s*(B|kB|KB|MB|GB|KiB|MiB|GiB)?\s*$",
    true,
    fmt_size
);

unit_type!(
    Distance,
    i64,
    parse_distance,
    "a distance with a unit, e.g. \"250m\"",
    "A distance with its unit: m, km, cm, mm (e.g. \"250m\", \"-30m\")",
    r"^\s*[+-]?[0-9][0-9_.eE+-]*\s*(m|km|cm|mm)\s*$",
    false,
    fmt_distance
);

unit_type!(
    Speed,
    u64,
    parse_speed,
    "a speed with a unit, e.g. \"20m/s\"",
    "A speed with its unit: m/s or km/h (e.g. \"20m/s\", \"72km/h\")",
    r"^\s*[+]?[0-9][0-9_.eE+-]*\s*(m/s|mps|km/h|kmh)\s*$",
    false,
    fmt_speed
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(parse_distance("250m").unwrap(), 250_000_000);
        assert_eq!(parse_distance("-1.5km").unwrap(), -1_500_000_000);
        assert!(parse_distance("250").unwrap_err().contains("no unit"));
        assert_eq!(fmt_distance(200_000_000), "200m");
    }

    #[test]
    fn speeds() {
        assert_eq!(parse_speed("20m/s").unwrap(), 20_000_000);
        assert_eq!(parse_speed("36 km/h").unwrap(), 10_000_000);
        assert!(parse_speed("20").unwrap_err().contains("no unit"));
        assert!(parse_speed("20 knots")
            .unwrap_err()
            .contains("allowed: m/s, km/h"));
        assert!(parse_speed("-1m/s")
            .unwrap_err()
            .contains("zero or positive"));
        assert!(parse_speed("1e400m/s").unwrap_err().contains("finite"));
        assert_eq!(fmt_speed(1_500_000), "1.5m/s");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("20ms").unwrap(), SimTime::from_millis(20));
        assert_eq!(parse_duration("1.5 s").unwrap(), SimTime::from_millis(1500));
        assert_eq!(parse_duration("2min").unwrap(), SimTime::from_secs(120));
        assert!(parse_duration("20").unwrap_err().contains("no unit"));
        assert!(parse_duration("20 parsecs")
            .unwrap_err()
            .contains("unknown duration unit"));
        assert!(parse_duration("-1s").is_err());
        assert_eq!(fmt_duration(SimTime::from_millis(1500)), "1500ms");
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("10Mbps").unwrap(), 10_000_000);
        assert_eq!(parse_rate("11 Mb/s").unwrap(), 11_000_000);
        assert_eq!(parse_rate("5.5Mbps").unwrap(), 5_500_000);
        assert_eq!(parse_rate("1MB/s").unwrap(), 8_000_000);
        assert!(parse_rate("-5Mbps").unwrap_err().contains("positive"));
        assert!(parse_rate("10").unwrap_err().contains("no unit"));
        assert_eq!(fmt_rate(5_500_000), "5500kbps");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("100MB").unwrap(), 100_000_000);
        assert_eq!(parse_size("64KiB").unwrap(), 65_536);
        assert_eq!(parse_size("1460").unwrap(), 1460);
        assert_eq!(parse_size("1460B").unwrap(), 1460);
        assert!(parse_size("3 furlongs").is_err());
        assert_eq!(fmt_size(65_536), "64KiB");
        assert_eq!(fmt_size(100_000_000), "100MB");
    }

    /// Values at or beyond the representable range, and non-finite ones, are refused with the
    /// largest allowed value instead of saturating silently (a 2e19 B download once ran with 0
    /// bytes delivered).
    #[test]
    fn overflowing_and_non_finite_values_are_refused() {
        for s in ["2e19B", "1e30MB", "9223372036854775808B", "8589934592GiB"] {
            let e = parse_size(s).unwrap_err();
            assert!(e.contains("9223372036854775807B"), "{s}: {e}");
        }
        assert_eq!(
            parse_size("9223372036854774784B").unwrap(),
            9_223_372_036_854_774_784
        );
        assert!(parse_rate("2e19bps")
            .unwrap_err()
            .contains("18446744073709551615bps"));
        assert!(parse_rate("0.1bps").unwrap_err().contains("positive"));
        assert!(parse_duration("1e400s").unwrap_err().contains("finite"));
        assert!(parse_duration("1e10s").unwrap_err().contains("9223372036s"));
        assert_eq!(
            parse_duration("9e9s").unwrap(),
            SimTime::from_secs(9_000_000_000)
        );
        assert!(parse_distance("1e400m").unwrap_err().contains("finite"));
        assert!(parse_distance("2e9m").unwrap_err().contains("1000000km"));
        for f in [parse_size, parse_rate] {
            for s in ["1e400B", "1e400bps", "-1e400B"] {
                assert!(f(s).is_err(), "{s}");
            }
        }
    }
}
