//! `tcplab._core`: the thin PyO3 layer over `tcplab-core`. It converts arguments, releases the
//! GIL while the simulation runs (checking for Ctrl-C between slices of events) and maps errors
//! onto the `TcplabError` hierarchy. No simulation logic lives here.

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyList, PyModule};
use serde_json::Value;
use tcplab_core::api::{self, Error};
use tcplab_core::scenario::Format;

/// Events simulated per GIL-free slice before checking for signals (~0.1 s of work).
const SLICE_EVENTS: u64 = 2_000_000;

static EXC: GILOnceCell<(PyObject, PyObject, PyObject)> = GILOnceCell::new();

const EXCEPTIONS: &str = r#"
class TcplabError(Exception):
    """Base class of every tcplab error."""


class ScenarioError(TcplabError, ValueError):
    """The scenario is invalid. `errors()` lists every problem as {"loc": path, "msg": text}."""

    def __init__(self, message, errors=()):
        super().__init__(message)
        self._errors = [dict(e) for e in errors]

    def errors(self):
        return [dict(e) for e in self._errors]


class SimulationError(TcplabError):
    """The simulation stopped with an error (for example its event limit was reached)."""
"#;

fn exceptions(py: Python<'_>) -> PyResult<&(PyObject, PyObject, PyObject)> {
    EXC.get_or_try_init(py, || {
        let m = PyModule::from_code(
            py,
            &std::ffi::CString::new(EXCEPTIONS).expect("no NUL"),
            c"tcplab/_exceptions.py",
            c"tcplab._exceptions",
        )?;
        Ok((
            m.getattr("TcplabError")?.unbind(),
            m.getattr("ScenarioError")?.unbind(),
            m.getattr("SimulationError")?.unbind(),
        ))
    })
}

fn to_pyerr(py: Python<'_>, e: Error) -> PyErr {
    let exc = match exceptions(py) {
        Ok(x) => x,
        Err(e) => return e,
    };
    match e {
        Error::Scenario(errs) => {
            let msg = Error::Scenario(errs.clone()).to_string();
            let list: Vec<Bound<'_, PyDict>> = errs
                .iter()
                .map(|fe| {
                    let d = PyDict::new(py);
                    let _ = d.set_item("loc", &fe.loc);
                    let _ = d.set_item("msg", &fe.msg);
                    d
                })
                .collect();
            match exc.1.bind(py).call1((msg.trim_end(), list)) {
                Ok(inst) => PyErr::from_value(inst),
                Err(e) => e,
            }
        }
        Error::Simulation(s) => match exc.2.bind(py).call1((s.to_string(),)) {
            Ok(inst) => PyErr::from_value(inst),
            Err(e) => e,
        },
    }
}

fn json_to_py(py: Python<'_>, v: &Value) -> PyResult<PyObject> {
    Ok(match v {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any().unbind()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any().unbind()
            } else {
                n.as_f64()
                    .unwrap_or(f64::NAN)
                    .into_pyobject(py)?
                    .into_any()
                    .unbind()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        Value::Array(a) => {
            let items: Vec<PyObject> = a
                .iter()
                .map(|x| json_to_py(py, x))
                .collect::<PyResult<_>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any().unbind()
        }
    })
}

fn format_of(s: &str) -> PyResult<Format> {
    Format::parse(s).ok_or_else(|| {
        PyValueError::new_err(format!("format must be \"toml\" or \"json\", not {s:?}"))
    })
}

/// The tcplab version (part of every result key).
#[pyfunction]
fn version() -> &'static str {
    api::VERSION
}

/// The JSON Schema of the scenario format.
#[pyfunction]
fn schema() -> String {
    api::json_schema()
}

/// Validates a scenario and returns it fully resolved (defaults filled in, overrides applied).
#[pyfunction]
#[pyo3(signature = (text, format="toml", overrides=Vec::new()))]
fn resolve(
    py: Python<'_>,
    text: &str,
    format: &str,
    overrides: Vec<(String, String)>,
) -> PyResult<PyObject> {
    let f = format_of(format)?;
    match api::resolve(text, f, &overrides) {
        Ok(v) => json_to_py(py, &v),
        Err(e) => Err(to_pyerr(py, e)),
    }
}

/// The scenario's warnings as [{"loc", "msg"}] (it is valid; they do not stop a run).
#[pyfunction]
#[pyo3(signature = (text, format="toml", overrides=Vec::new()))]
fn warnings(
    py: Python<'_>,
    text: &str,
    format: &str,
    overrides: Vec<(String, String)>,
) -> PyResult<PyObject> {
    let f = format_of(format)?;
    let list = api::warnings(text, f, &overrides).map_err(|e| to_pyerr(py, e))?;
    let v: Vec<Value> = list
        .into_iter()
        .map(|w| serde_json::json!({"loc": w.loc, "msg": w.msg}))
        .collect();
    json_to_py(py, &Value::Array(v))
}

/// What a reader of the run's captures must know, without running it: {"files": the capture
/// file names a run given a capture folder writes, "window_shifts": [{"flow", "shift", "open"}]
/// of the TCP flows whose windows are scaled with no option on the wire}.
#[pyfunction]
#[pyo3(signature = (text, format="toml", overrides=Vec::new()))]
fn captures(
    py: Python<'_>,
    text: &str,
    format: &str,
    overrides: Vec<(String, String)>,
) -> PyResult<PyObject> {
    let f = format_of(format)?;
    let c = api::captures(text, f, &overrides).map_err(|e| to_pyerr(py, e))?;
    let shifts: Vec<Value> = c
        .unsignalled_window_shifts
        .into_iter()
        .map(|(flow, shift, open)| serde_json::json!({"flow": flow, "shift": shift, "open": open}))
        .collect();
    json_to_py(
        py,
        &serde_json::json!({"files": c.files, "window_shifts": shifts}),
    )
}

/// Runs one simulation and returns its summary (a dict) with the time series in columns.
///
/// `events_file`: the event trace is written there as the run goes (`events_format` "parquet" or
/// "ns2"), in batches, and the result's `event_trace` names the file instead of holding the rows.
#[pyfunction]
#[pyo3(signature = (text, format="toml", seed=None, overrides=Vec::new(), pcap_dir=None, events_file=None, events_format="parquet"))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    text: &str,
    format: &str,
    seed: Option<u64>,
    overrides: Vec<(String, String)>,
    pcap_dir: Option<PathBuf>,
    events_file: Option<PathBuf>,
    events_format: &str,
) -> PyResult<PyObject> {
    let f = format_of(format)?;
    let ev_format = match events_format {
        "parquet" => api::EventFileFormat::Parquet,
        "ns2" => api::EventFileFormat::Ns2,
        other => {
            return Err(PyValueError::new_err(format!(
                "events_format: {other:?}; allowed: \"parquet\", \"ns2\""
            )))
        }
    };
    let mut prepared = api::prepare(text, f, seed, &overrides, pcap_dir.as_deref())
        .map_err(|e| to_pyerr(py, e))?;
    if let Some(path) = &events_file {
        prepared.stream_events(path, ev_format).map_err(|e| {
            pyo3::exceptions::PyOSError::new_err(format!("{}: {e}", path.display()))
        })?;
    }
    loop {
        let done = py
            .allow_threads(|| prepared.step(SLICE_EVENTS))
            .map_err(|e| to_pyerr(py, e))?;
        if done {
            break;
        }
        // Ctrl-C raises KeyboardInterrupt here, between slices.
        py.check_signals()?;
    }
    let out = prepared.finish().map_err(|e| to_pyerr(py, e))?;
    let mut summary =
        serde_json::to_value(&out.summary).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let series =
        serde_json::to_value(&out.series).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let frames =
        serde_json::to_value(&out.frames).map_err(|e| PyValueError::new_err(e.to_string()))?;
    if let Value::Object(m) = &mut summary {
        m.insert("series".into(), series);
        m.insert("frames".into(), frames);
    }
    let obj = json_to_py(py, &summary)?;
    if let Some(v) = &out.view {
        obj.bind(py).set_item("view", view_to_py(py, v)?)?;
    }
    if let Some(ev) = &out.events {
        let d = events_to_py(py, ev)?;
        if let Some(path) = &events_file {
            d.bind(py).set_item("file", path)?;
            d.bind(py).set_item("format", events_format)?;
        }
        obj.bind(py).set_item("event_trace", d)?;
    }
    Ok(obj)
}

/// The event trace: names of the codes, the number of rows, and each column as little-endian
/// bytes (`t_s`, `dur_s` f64; `uid`, `seq`, `ack` u64; `node`, `flow`, `bytes`, `src`, `dst`,
/// `peer` u32; `sport`, `dport` u16; `layer`, `event`, `kind`, `ttl`, `retry`, `reason` u8) —
/// no columns when the rows went to a file as the run went.
fn events_to_py(py: Python<'_>, ev: &api::EventOutput) -> PyResult<PyObject> {
    use pyo3::types::PyBytes;
    use tcplab_core::trace::events as e;
    let t = &ev.trace;
    let cols = PyDict::new(py);
    // Each column straight into its bytes object (a 600 s trace's columns are ~100 MB).
    let put = |k: &str, b: Bound<'_, PyBytes>| cols.set_item(k, b);
    fn le<'py, T: Copy, const N: usize>(
        py: Python<'py>,
        xs: &[T],
        f: impl Fn(T) -> [u8; N],
    ) -> PyResult<Bound<'py, PyBytes>> {
        PyBytes::new_with(py, xs.len() * N, |buf| {
            for (out, &x) in buf.chunks_exact_mut(N).zip(xs) {
                out.copy_from_slice(&f(x));
            }
            Ok(())
        })
    }
    let secs = |x: tcplab_core::time::SimTime| (x.0 as f64 / 1e9).to_le_bytes();
    put("t_s", le(py, &t.t, secs)?)?;
    put("dur_s", le(py, &t.dur, secs)?)?;
    put("uid", le(py, &t.uid, u64::to_le_bytes)?)?;
    put("seq", le(py, &t.seq, u64::to_le_bytes)?)?;
    put("ack", le(py, &t.ack, u64::to_le_bytes)?)?;
    for (k, c) in [
        ("node", &t.node),
        ("flow", &t.flow),
        ("bytes", &t.bytes),
        ("src", &t.src),
        ("dst", &t.dst),
        ("peer", &t.peer),
    ] {
        put(k, le(py, c, u32::to_le_bytes)?)?;
    }
    put("sport", le(py, &t.sport, u16::to_le_bytes)?)?;
    put("dport", le(py, &t.dport, u16::to_le_bytes)?)?;
    for (k, c) in [
        ("layer", &t.layer),
        ("event", &t.event),
        ("kind", &t.kind),
        ("ttl", &t.ttl),
        ("reason", &t.reason),
    ] {
        put(k, PyBytes::new(py, c))?;
    }
    put("retry", le(py, &t.retry, |r| [r as u8])?)?;
    let names = serde_json::json!({
        "nodes": ev.nodes,
        "flows": ev.flows,
        "layers": e::LAYER_NAMES,
        "events": e::EVENT_NAMES,
        "kinds": e::KIND_NAMES,
        "reasons": e::REASON_NAMES,
        "none": e::NONE,
        "broadcast": e::BROADCAST,
    });
    let d = PyDict::new(py);
    d.set_item("names", json_to_py(py, &names)?)?;
    d.set_item("rows", t.rows())?;
    if !t.streams() {
        d.set_item("columns", cols)?;
    }
    Ok(d.into_any().unbind())
}

/// The viewer's data besides the event trace: `meta` (the network's shape) as plain data and
/// the station tracks as lists.
fn view_to_py(py: Python<'_>, v: &api::ViewOutput) -> PyResult<PyObject> {
    let t = &v.trace;
    let tracks = serde_json::json!({
        "node": t.tracks.iter().map(|p| p.node).collect::<Vec<_>>(),
        "t_s": t.tracks.iter().map(|p| p.t.0 as f64 / 1e9).collect::<Vec<_>>(),
        "x": t.tracks.iter().map(|p| p.pos.0).collect::<Vec<_>>(),
        "y": t.tracks.iter().map(|p| p.pos.1).collect::<Vec<_>>(),
        "vx": t.tracks.iter().map(|p| p.vel.0).collect::<Vec<_>>(),
        "vy": t.tracks.iter().map(|p| p.vel.1).collect::<Vec<_>>(),
    });
    let d = PyDict::new(py);
    d.set_item("meta", json_to_py(py, &v.meta)?)?;
    d.set_item("tracks", json_to_py(py, &tracks)?)?;
    Ok(d.into_any().unbind())
}

/// Bhutani's ACK-release schedule: RTO_N(n) for every n (eq. 11), the paper's literal choice of
/// n, the feasible optimum, and that schedule's gaps with the FH's RTO after each ACK.
/// `estimator` is None for eqs. (1)–(4) as written, or (min, max, granularity) in seconds for a
/// clamped RFC 6298 estimator.
#[pyfunction]
#[pyo3(signature = (t, n_acks, mu0, sigma0, estimator=None, guard=0.0))]
fn ack_schedule(
    py: Python<'_>,
    t: f64,
    n_acks: usize,
    mu0: f64,
    sigma0: f64,
    estimator: Option<(f64, f64, f64)>,
    guard: f64,
) -> PyResult<PyObject> {
    use tcplab_core::agents::ack_schedule as s;
    if !(t > 0.0 && n_acks > 0 && mu0 >= 0.0 && sigma0 >= 0.0 && (0.0..1.0).contains(&guard)) {
        return Err(PyValueError::new_err(
            "need t > 0, n_acks > 0, mu0 >= 0, sigma0 >= 0, 0 <= guard < 1",
        ));
    }
    let p = s::Params {
        t,
        n_acks,
        mu0,
        sigma0,
    };
    let est = match estimator {
        None => s::Estimator::Pure,
        Some((min, max, granularity)) => s::Estimator::Clamped {
            min,
            max,
            granularity,
        },
    };
    let per_n: Vec<Value> = (0..n_acks)
        .map(|n| {
            let x = s::gaps_guarded(&p, n, est, guard);
            let feasible = x.as_ref().is_some_and(|x| s::feasible(&p, x, est));
            let closed = s::rto_final(&p, n);
            let replayed = x.as_ref().map(|x| s::replay(&p, x, est).last().map(|st| st.2).unwrap_or(f64::NAN));
            serde_json::json!({"n": n, "rto_final_closed": closed, "rto_final": replayed, "feasible": feasible})
        })
        .collect();
    let best = s::best_feasible_guarded(&p, est, guard);
    let (gaps, rto) = match &best {
        Some(b) => (
            b.gaps.clone(),
            s::replay(&p, &b.gaps, est)
                .iter()
                .map(|st| st.2)
                .collect::<Vec<f64>>(),
        ),
        None => (vec![], vec![]),
    };
    let v = serde_json::json!({
        "per_n": per_n,
        "n_paper": s::paper_search(&p),
        "n_feasible": best.as_ref().map(|b| b.n),
        "final_rto": best.as_ref().map(|b| b.final_rto),
        "gaps": gaps,
        "rto": rto,
    });
    json_to_py(py, &v)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let (base, scen, sim) = exceptions(py)?;
    m.add("TcplabError", base.bind(py))?;
    m.add("ScenarioError", scen.bind(py))?;
    m.add("SimulationError", sim.bind(py))?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(warnings, m)?)?;
    m.add_function(wrap_pyfunction!(captures, m)?)?;
    m.add_function(wrap_pyfunction!(ack_schedule, m)?)?;
    m.add("__version__", api::VERSION)?;
    Ok(())
}
