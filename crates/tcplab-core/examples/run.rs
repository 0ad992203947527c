//! `cargo run --release --example run -- FILE [seed] [path=value ...] [--events OUT [--ns2]]`:
//! runs a scenario and prints the summary as JSON (the Python CLI is the main front end; this one
//! needs no Python). `--events OUT` writes the event trace (all layers and nodes unless the
//! scenario or an override chooses) to `OUT` as the run goes, as Parquet, or as ns-2's text with
//! `--ns2` — the core's side of `tcplab run --trace-events`, for profiling it alone.
use tcplab_core::api;
use tcplab_core::scenario::Format;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let ns2 = args.iter().any(|a| a == "--ns2");
    args.retain(|a| a != "--ns2");
    let events = args.iter().position(|a| a == "--events").map(|i| {
        let out = args.get(i + 1).cloned().unwrap_or_else(|| {
            eprintln!("--events: give the file to write");
            std::process::exit(2)
        });
        args.drain(i..i + 2);
        std::path::PathBuf::from(out)
    });
    let Some(path) = args.first() else {
        eprintln!("usage: run FILE [seed] [path=value ...] [--events OUT [--ns2]]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let seed = args.get(1).and_then(|s| s.parse().ok());
    let mut overrides: Vec<(String, String)> = args
        .iter()
        .skip(2)
        .filter_map(|a| {
            a.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect();
    // TCPLAB_MEMORY_CENSUS=1: the sizes of the containers that could grow with the run, at the
    // end, on stderr (issue 35's memory work).
    let census = std::env::var_os("TCPLAB_MEMORY_CENSUS").is_some();
    if events.is_some() && !overrides.iter().any(|(k, _)| k.starts_with("trace.events")) {
        overrides.push(("trace.events".into(), "{}".into()));
    }
    let result = api::prepare(&text, Format::Toml, seed, &overrides, None).and_then(|mut p| {
        if let Some(out) = &events {
            let format = if ns2 {
                api::EventFileFormat::Ns2
            } else {
                api::EventFileFormat::Parquet
            };
            if let Err(e) = p.stream_events(out, format) {
                eprintln!("{}: {e}", out.display());
                std::process::exit(2);
            }
        }
        while !p.step(u64::MAX)? {}
        if census {
            eprintln!("{:?}", p.memory_census());
        }
        p.finish()
    });
    match result {
        Ok(out) => println!(
            "{}",
            serde_json::to_string_pretty(&out.summary).unwrap_or_default()
        ),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
