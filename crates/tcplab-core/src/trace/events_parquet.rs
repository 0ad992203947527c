//! The event trace as a Parquet file, written by the core while the run goes (docs/trace.md):
//! each batch of rows the trace hands over ([`super::events::RowSink`]) becomes one row group,
//! so a run holds one batch in memory however long it lasts.
//!
//! The file has the columns and types the Python front wrote with polars before (and that
//! `result.events` has): the coded columns (node, layer, event, kind, flow, src, dst, peer,
//! reason) are strings, dictionary-encoded, read by polars as `Enum` columns of the name tables
//! because the file carries their Arrow schema (`ARROW:schema`, an Arrow IPC schema message,
//! base64, with each category list in polars' `_PL_ENUM_VALUES2` field metadata, as polars
//! writes it); "no node", "no flow", "no reason" and the sequence numbers of non-TCP packets are
//! nulls; times are seconds as f64.

use std::fs::File;
use std::io::{self, BufWriter};
use std::sync::Arc;

use ::parquet::basic::{Compression, LogicalType, Repetition, Type as Phys, ZstdLevel};
use ::parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use ::parquet::file::metadata::KeyValue;
use ::parquet::file::properties::{EnabledStatistics, WriterProperties};
use ::parquet::file::writer::{SerializedFileWriter, SerializedRowGroupWriter};
use ::parquet::schema::types::{ColumnPath, Type};
use bytes::Bytes;

use super::arrow_schema::{self, Col};
use super::events::{self as e, EventTrace, RowSink};
use crate::time::SimTime;

/// The columns in file order, with their Arrow types (as `events.py`'s `COLUMNS`).
const COLUMNS: [(&str, Col); 19] = [
    ("t_s", Col::F64),
    ("node", Col::Enum(Names::Nodes)),
    ("layer", Col::Enum(Names::Layers)),
    ("event", Col::Enum(Names::Events)),
    ("kind", Col::Enum(Names::Kinds)),
    ("uid", Col::UInt(64)),
    ("flow", Col::Enum(Names::Flows)),
    ("seq", Col::UInt(64)),
    ("ack", Col::UInt(64)),
    ("bytes", Col::UInt(32)),
    ("src", Col::Enum(Names::Hosts)),
    ("dst", Col::Enum(Names::Hosts)),
    ("sport", Col::UInt(16)),
    ("dport", Col::UInt(16)),
    ("ttl", Col::UInt(8)),
    ("peer", Col::Enum(Names::Hosts)),
    ("dur_s", Col::F64),
    ("retry", Col::Bool),
    ("reason", Col::Enum(Names::Reasons)),
];

/// The name table an `Enum` column's codes index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Names {
    Nodes,
    /// The nodes, then "broadcast" (`src`, `dst`, `peer`).
    Hosts,
    Layers,
    Events,
    Kinds,
    /// The flows' names; one empty name when the run has no flow (an Enum needs a category).
    Flows,
    Reasons,
}

/// Writes row groups of the event trace to a Parquet file.
pub struct ParquetSink {
    w: Option<SerializedFileWriter<BufWriter<File>>>,
    /// Each name table as Parquet values, by [`Names`].
    nodes: Vec<ByteArray>,
    hosts: Vec<ByteArray>,
    layers: Vec<ByteArray>,
    events: Vec<ByteArray>,
    kinds: Vec<ByteArray>,
    flows: Vec<ByteArray>,
    reasons: Vec<ByteArray>,
    /// Scratch buffers, kept between row groups.
    def: Vec<i16>,
    bytes: Vec<ByteArray>,
    i64s: Vec<i64>,
    i32s: Vec<i32>,
    f64s: Vec<f64>,
}

fn table(names: &[&str]) -> Vec<ByteArray> {
    names
        .iter()
        .map(|n| ByteArray::from(Bytes::copy_from_slice(n.as_bytes())))
        .collect()
}

/// A table of `'static` names: their values are cloned per row for free (no reference count).
fn static_table(names: &[&'static str]) -> Vec<ByteArray> {
    names
        .iter()
        .map(|n| ByteArray::from(Bytes::from_static(n.as_bytes())))
        .collect()
}

fn other(e: ::parquet::errors::ParquetError) -> io::Error {
    io::Error::other(e.to_string())
}

impl ParquetSink {
    /// Creates `path` for a run whose nodes and flows (TCP, then CBR) have these names.
    pub fn create(path: &std::path::Path, nodes: &[String], flows: &[String]) -> io::Result<Self> {
        let node_names: Vec<&str> = nodes.iter().map(String::as_str).collect();
        let mut host_names = node_names.clone();
        host_names.push("broadcast");
        let mut flow_names: Vec<&str> = flows.iter().map(String::as_str).collect();
        if flow_names.is_empty() {
            flow_names.push("");
        }
        let lists = |n: Names| -> &[&str] {
            match n {
                Names::Nodes => &node_names,
                Names::Hosts => &host_names,
                Names::Layers => &e::LAYER_NAMES,
                Names::Events => &e::EVENT_NAMES,
                Names::Kinds => &e::KIND_NAMES,
                Names::Flows => &flow_names,
                Names::Reasons => &e::REASON_NAMES,
            }
        };
        let fields: Vec<Arc<Type>> = COLUMNS
            .iter()
            .map(|&(name, col)| {
                let (phys, logical) = match col {
                    Col::F64 => (Phys::DOUBLE, None),
                    Col::Bool => (Phys::BOOLEAN, None),
                    Col::UInt(64) => (Phys::INT64, Some(uint(64))),
                    Col::UInt(bits) => (Phys::INT32, Some(uint(bits))),
                    Col::Enum(_) => (Phys::BYTE_ARRAY, Some(LogicalType::String)),
                };
                Type::primitive_type_builder(name, phys)
                    .with_repetition(Repetition::OPTIONAL)
                    .with_logical_type(logical)
                    .build()
                    .map(Arc::new)
            })
            .collect::<Result<_, _>>()
            .map_err(other)?;
        let schema = Type::group_type_builder("root")
            .with_fields(fields)
            .build()
            .map_err(other)?;
        let arrow = arrow_schema::encoded(
            &COLUMNS
                .iter()
                .map(|&(name, col)| (name, col, col.names().map(lists)))
                .collect::<Vec<_>>(),
        );
        let mut props = WriterProperties::builder()
            // zstd level 1: as small as higher levels here at a fraction of their time.
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).map_err(other)?))
            // No min/max statistics: comparing every string value cost a tenth of the writing,
            // and the trace is read whole or filtered by value, not skipped by range.
            .set_statistics_enabled(EnabledStatistics::None)
            .set_created_by(format!("tcplab {}", env!("CARGO_PKG_VERSION")))
            .set_key_value_metadata(Some(vec![KeyValue::new("ARROW:schema".into(), arrow)]));
        // Dictionary pages for the coded and integer columns (as polars writes them; plain pages
        // made the 600 s file 30 % larger and moved the time saved into zstd). Times and uids
        // are nearly all distinct: a dictionary would only be built and dropped.
        for c in ["t_s", "dur_s", "uid"] {
            props = props.set_column_dictionary_enabled(ColumnPath::from(c), false);
        }
        // Never an existing name (a symlink planted there is not followed): the caller writes a
        // fresh temporary name and renames it into place (python/tcplab/events.py run_traced).
        let f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)?;
        let file = BufWriter::with_capacity(1 << 20, f);
        let w = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props.build()))
            .map_err(other)?;
        Ok(ParquetSink {
            w: Some(w),
            nodes: table(&node_names),
            hosts: table(&host_names),
            layers: static_table(&e::LAYER_NAMES),
            events: static_table(&e::EVENT_NAMES),
            kinds: static_table(&e::KIND_NAMES),
            flows: table(&flow_names),
            reasons: static_table(&e::REASON_NAMES),
            def: Vec::new(),
            bytes: Vec::new(),
            i64s: Vec::new(),
            i32s: Vec::new(),
            f64s: Vec::new(),
        })
    }

    fn group(&mut self, t: &EventTrace) -> ::parquet::errors::Result<()> {
        let n = t.len();
        let Some(w) = self.w.as_mut() else {
            return Ok(());
        };
        let mut rg = w.next_row_group()?;
        let s = &mut Scratch {
            def: &mut self.def,
            bytes: &mut self.bytes,
            i64s: &mut self.i64s,
            i32s: &mut self.i32s,
            f64s: &mut self.f64s,
        };
        let secs = |x: &SimTime| x.0 as f64 / 1e9;
        let tcp = |i: usize| t.kind[i] <= e::K_ACK;
        let code = |x: u32| (x != e::NONE).then_some(x);
        let host = |x: u32, nodes: usize| match x {
            e::NONE => None,
            e::BROADCAST => Some(nodes as u32),
            x => Some(x),
        };
        let nn = self.nodes.len();
        s.f64(&mut rg, t.t.iter().map(secs))?;
        s.strings(&mut rg, &self.nodes, t.node.iter().map(|&x| Some(x)))?;
        s.strings(
            &mut rg,
            &self.layers,
            t.layer.iter().map(|&x| Some(x.into())),
        )?;
        s.strings(
            &mut rg,
            &self.events,
            t.event.iter().map(|&x| Some(x.into())),
        )?;
        s.strings(&mut rg, &self.kinds, t.kind.iter().map(|&x| Some(x.into())))?;
        s.u64(&mut rg, t.uid.iter().map(|&x| Some(x)))?;
        s.strings(&mut rg, &self.flows, t.flow.iter().map(|&x| code(x)))?;
        // Sequence and acknowledgement numbers of TCP segments only.
        s.u64(&mut rg, (0..n).map(|i| tcp(i).then_some(t.seq[i])))?;
        s.u64(&mut rg, (0..n).map(|i| tcp(i).then_some(t.ack[i])))?;
        s.u32(&mut rg, t.bytes.iter().map(|&x| x as i32))?;
        s.strings(&mut rg, &self.hosts, t.src.iter().map(|&x| host(x, nn)))?;
        s.strings(&mut rg, &self.hosts, t.dst.iter().map(|&x| host(x, nn)))?;
        s.u32(&mut rg, t.sport.iter().map(|&x| x.into()))?;
        s.u32(&mut rg, t.dport.iter().map(|&x| x.into()))?;
        s.u32(&mut rg, t.ttl.iter().map(|&x| x.into()))?;
        s.strings(&mut rg, &self.hosts, t.peer.iter().map(|&x| host(x, nn)))?;
        s.f64(&mut rg, t.dur.iter().map(secs))?;
        {
            let mut c = rg.next_column()?.expect("the schema's retry column");
            s.def.clear();
            s.def.resize(n, 1);
            c.typed::<BoolType>()
                .write_batch(&t.retry, Some(s.def), None)?;
            c.close()?;
        }
        let reason = |x: u8| (x != e::R_NONE).then_some(u32::from(x));
        s.strings(&mut rg, &self.reasons, t.reason.iter().map(|&x| reason(x)))?;
        rg.close()?;
        Ok(())
    }
}

fn uint(bits: u8) -> LogicalType {
    LogicalType::integer(bits as i8, false)
}

impl Col {
    fn names(self) -> Option<Names> {
        match self {
            Col::Enum(n) => Some(n),
            _ => None,
        }
    }
}

/// Scratch buffers and the column writers' calls, one per column type, in schema order.
struct Scratch<'a> {
    def: &'a mut Vec<i16>,
    bytes: &'a mut Vec<ByteArray>,
    i64s: &'a mut Vec<i64>,
    i32s: &'a mut Vec<i32>,
    f64s: &'a mut Vec<f64>,
}

type Rg<'a> = SerializedRowGroupWriter<'a, BufWriter<File>>;

impl Scratch<'_> {
    fn f64(
        &mut self,
        rg: &mut Rg<'_>,
        xs: impl Iterator<Item = f64>,
    ) -> ::parquet::errors::Result<()> {
        self.f64s.clear();
        self.f64s.extend(xs);
        self.def.clear();
        self.def.resize(self.f64s.len(), 1);
        let mut c = rg.next_column()?.expect("a schema column");
        c.typed::<DoubleType>()
            .write_batch(self.f64s, Some(self.def), None)?;
        c.close()
    }

    /// Unsigned 8/16/32-bit values in INT32 (u32 bit for bit, as Parquet stores UINT_32).
    fn u32(
        &mut self,
        rg: &mut Rg<'_>,
        xs: impl Iterator<Item = i32>,
    ) -> ::parquet::errors::Result<()> {
        self.i32s.clear();
        self.i32s.extend(xs);
        self.def.clear();
        self.def.resize(self.i32s.len(), 1);
        let mut c = rg.next_column()?.expect("a schema column");
        c.typed::<Int32Type>()
            .write_batch(self.i32s, Some(self.def), None)?;
        c.close()
    }

    fn u64(
        &mut self,
        rg: &mut Rg<'_>,
        xs: impl Iterator<Item = Option<u64>>,
    ) -> ::parquet::errors::Result<()> {
        self.i64s.clear();
        self.def.clear();
        for x in xs {
            self.def.push(i16::from(x.is_some()));
            if let Some(x) = x {
                self.i64s.push(x as i64);
            }
        }
        let mut c = rg.next_column()?.expect("a schema column");
        c.typed::<Int64Type>()
            .write_batch(self.i64s, Some(self.def), None)?;
        c.close()
    }

    /// Codes into `table` as its strings (None: null).
    fn strings(
        &mut self,
        rg: &mut Rg<'_>,
        table: &[ByteArray],
        codes: impl Iterator<Item = Option<u32>>,
    ) -> ::parquet::errors::Result<()> {
        self.bytes.clear();
        self.def.clear();
        for x in codes {
            self.def.push(i16::from(x.is_some()));
            if let Some(x) = x {
                self.bytes.push(table[x as usize].clone());
            }
        }
        let mut c = rg.next_column()?.expect("a schema column");
        c.typed::<ByteArrayType>()
            .write_batch(self.bytes, Some(self.def), None)?;
        self.bytes.clear();
        c.close()
    }
}

impl RowSink for ParquetSink {
    fn write(&mut self, rows: &EventTrace) -> io::Result<()> {
        self.group(rows).map_err(other)
    }

    fn finish(&mut self) -> io::Result<()> {
        if let Some(w) = self.w.take() {
            let mut inner = w.into_inner().map_err(other)?;
            io::Write::flush(&mut inner)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{prepare, EventFileFormat};
    use crate::scenario::Format;
    use ::parquet::file::reader::{FileReader, SerializedFileReader};
    use ::parquet::record::RowAccessor;

    const STRING: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/adhoc_string.toml"
    );

    /// A short 7-hop run written as Parquet in batches of 5000 rows: one row group per batch,
    /// and every row read back (with the parquet crate's own reader) is the row the run keeps in
    /// memory without a file — times, names, nulls where the old writer had them.
    #[test]
    fn the_file_holds_every_row_in_row_groups_of_one_batch() {
        let text = std::fs::read_to_string(STRING).unwrap();
        let set = [
            ("duration".to_string(), "\"4s\"".to_string()),
            ("trace.events".to_string(), "{}".to_string()),
        ];
        let run = |file: Option<&std::path::Path>| {
            let mut p = prepare(&text, Format::Toml, Some(1), &set, None).unwrap();
            if let Some(f) = file {
                p.stream_events(f, EventFileFormat::Parquet).unwrap();
                p.world.event_trace_mut().unwrap().set_batch_rows(5000);
            }
            while !p.step(u64::MAX).unwrap() {}
            p.finish().unwrap().events.unwrap()
        };
        let mem = run(None);
        let t = &mem.trace;
        let dir = std::env::temp_dir().join(format!("tcplab-pq-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("ev.parquet");
        let streamed = run(Some(&path));
        assert_eq!(streamed.trace.rows(), t.len() as u64);
        let r = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        let md = r.metadata();
        assert_eq!(md.file_metadata().num_rows(), t.len() as i64);
        assert_eq!(md.num_row_groups(), t.len().div_ceil(5000));
        assert!(md.num_row_groups() > 2, "{} rows", t.len());
        let kv = md.file_metadata().key_value_metadata().unwrap();
        assert!(kv.iter().any(|k| k.key == "ARROW:schema"));
        let name = |x: u32| match x {
            e::BROADCAST => "broadcast".to_string(),
            x => mem.nodes[x as usize].clone(),
        };
        let mut seen = 0;
        for (i, row) in r.get_row_iter(None).unwrap().enumerate() {
            let row = row.unwrap();
            assert_eq!(row.get_double(0).unwrap(), t.t[i].0 as f64 / 1e9, "row {i}");
            assert_eq!(row.get_string(1).unwrap(), &mem.nodes[t.node[i] as usize]);
            assert_eq!(
                row.get_string(2).unwrap(),
                e::LAYER_NAMES[t.layer[i] as usize]
            );
            assert_eq!(
                row.get_string(3).unwrap(),
                e::EVENT_NAMES[t.event[i] as usize]
            );
            assert_eq!(
                row.get_string(4).unwrap(),
                e::KIND_NAMES[t.kind[i] as usize]
            );
            assert_eq!(row.get_ulong(5).unwrap(), t.uid[i]);
            // seq/ack only for TCP, src/dst/peer/flow null for "none", reason for drops.
            assert_eq!(
                row.get_ulong(7).ok(),
                (t.kind[i] <= e::K_ACK).then_some(t.seq[i])
            );
            assert_eq!(row.get_uint(9).unwrap(), t.bytes[i]);
            let host = |x: u32| (x != e::NONE).then(|| name(x));
            assert_eq!(row.get_string(10).ok().cloned(), host(t.src[i]));
            assert_eq!(row.get_string(15).ok().cloned(), host(t.peer[i]));
            assert_eq!(row.get_ushort(12).unwrap(), t.sport[i]);
            assert_eq!(row.get_ubyte(14).unwrap(), t.ttl[i]);
            assert_eq!(row.get_double(16).unwrap(), t.dur[i].0 as f64 / 1e9);
            assert_eq!(row.get_bool(17).unwrap(), t.retry[i]);
            let reason = (t.reason[i] != e::R_NONE).then(|| e::REASON_NAMES[t.reason[i] as usize]);
            assert_eq!(row.get_string(18).ok().map(String::as_str), reason);
            seen += 1;
        }
        assert_eq!(seen, t.len());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
