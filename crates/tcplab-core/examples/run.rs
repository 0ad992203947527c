//! `cargo run --release --example run -- FILE [seed] [path=value ...]`: runs a scenario and
//! prints the summary as JSON (the Python CLI is the main front end; this one needs no Python).
use tcplab_core::api;
use tcplab_core::scenario::Format;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: run FILE [seed] [path=value ...]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let seed = args.get(1).and_then(|s| s.parse().ok());
    let overrides: Vec<(String, String)> = args
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
    let result = api::prepare(&text, Format::Toml, seed, &overrides, None).and_then(|mut p| {
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
