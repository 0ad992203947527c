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

use std::io;
use std::sync::Arc;

use ::parquet::basic::{Compression, LogicalType, Repetition, Type as Phys, ZstdLevel};
use ::parquet::data_type::{BoolType, DoubleType, Int64Type};
use ::parquet::file::metadata::KeyValue;
use ::parquet::file::properties::{EnabledStatistics, WriterProperties};
use ::parquet::file::writer::{SerializedFileWriter, SerializedRowGroupWriter};
use ::parquet::schema::types::{ColumnDescPtr, ColumnPath, Type};

use super::arrow_schema::{self, Col};
use super::events::{self as e, EventTrace, RowSink};
use super::owned_file::OwnedFile;
use super::parquet_chunk::{self, DictChunks};
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

/// Writes row groups of the event trace to a Parquet file, under a temporary name until
/// [`RowSink::finish`] publishes it ([`OwnedFile`]): a run that fails leaves no file.
pub struct ParquetSink {
    w: Option<SerializedFileWriter<OwnedFile>>,
    /// The columns' descriptors, in file order.
    descrs: Vec<ColumnDescPtr>,
    /// Each name table as a dictionary page's values, and its length, by [`Names`].
    dicts: [(Vec<u8>, usize); 7],
    /// The coded columns' own encoder (trace/parquet_chunk.rs).
    chunks: DictChunks,
    /// Scratch buffers, kept between row groups.
    def: Vec<i16>,
    i64s: Vec<i64>,
    f64s: Vec<f64>,
}

fn other(e: ::parquet::errors::ParquetError) -> io::Error {
    io::Error::other(e.to_string())
}

/// zstd level 1: as small as higher levels here at a fraction of their time.
const ZSTD_LEVEL: i32 = 1;

impl ParquetSink {
    /// Creates the temporary file of `path` (published by [`RowSink::finish`]) for a run whose
    /// nodes and flows (TCP, then CBR) have these names.
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
        let zstd = Compression::ZSTD(ZstdLevel::try_new(ZSTD_LEVEL).map_err(other)?);
        let mut props = WriterProperties::builder()
            .set_compression(zstd)
            // No min/max statistics: comparing every value cost a tenth of the writing, and the
            // trace is read whole or filtered by value, not skipped by range.
            .set_statistics_enabled(EnabledStatistics::None)
            .set_created_by(format!("tcplab {}", env!("CARGO_PKG_VERSION")))
            .set_key_value_metadata(Some(vec![KeyValue::new("ARROW:schema".into(), arrow)]));
        // The coded and the other integer columns are written with dictionaries, here
        // (trace/parquet_chunk.rs), as polars writes them (plain pages made the 600 s file 30 %
        // larger and moved the time saved into zstd); the crate's writer has the rest. Times and
        // uids are nearly all distinct: a dictionary would only be built and dropped.
        for c in ["t_s", "dur_s", "uid"] {
            props = props.set_column_dictionary_enabled(ColumnPath::from(c), false);
        }
        // Never an existing name (a symlink planted there is not followed), and published whole.
        let file = OwnedFile::create(path, 1 << 20)?;
        let w = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props.build()))
            .map_err(other)?;
        let descrs = w.schema_descr().columns().to_vec();
        let dict = |n: Names| {
            let names = lists(n);
            (parquet_chunk::plain_strings(names), names.len())
        };
        Ok(ParquetSink {
            w: Some(w),
            descrs,
            dicts: [
                dict(Names::Nodes),
                dict(Names::Hosts),
                dict(Names::Layers),
                dict(Names::Events),
                dict(Names::Kinds),
                dict(Names::Flows),
                dict(Names::Reasons),
            ],
            chunks: DictChunks::new(ZSTD_LEVEL, zstd).map_err(other)?,
            def: Vec::new(),
            i64s: Vec::new(),
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
            i64s: &mut self.i64s,
            f64s: &mut self.f64s,
        };
        let c = &mut Coded {
            chunks: &mut self.chunks,
            descrs: &self.descrs,
            dicts: &self.dicts,
        };
        let secs = |x: &SimTime| x.0 as f64 / 1e9;
        let tcp = |i: usize| t.kind[i] <= e::K_ACK;
        let code = |x: u32| (x != e::NONE).then_some(x);
        let nn = self.dicts[Names::Nodes as usize].1 as u32;
        let host = move |x: u32| match x {
            e::NONE => None,
            e::BROADCAST => Some(nn),
            x => Some(x),
        };
        let wide = |x: &u8| Some(u32::from(*x));
        s.f64(&mut rg, t.t.iter().map(secs))?;
        c.column(&mut rg, 1, Names::Nodes, t.node.iter().map(|&x| Some(x)))?;
        c.column(&mut rg, 2, Names::Layers, t.layer.iter().map(wide))?;
        c.column(&mut rg, 3, Names::Events, t.event.iter().map(wide))?;
        c.column(&mut rg, 4, Names::Kinds, t.kind.iter().map(wide))?;
        s.u64(&mut rg, t.uid.iter().map(|&x| Some(x)))?;
        c.column(&mut rg, 6, Names::Flows, t.flow.iter().map(|&x| code(x)))?;
        // Sequence and acknowledgement numbers of TCP segments only.
        c.ints(&mut rg, 7, (0..n).map(|i| tcp(i).then_some(t.seq[i])))?;
        c.ints(&mut rg, 8, (0..n).map(|i| tcp(i).then_some(t.ack[i])))?;
        c.ints(&mut rg, 9, t.bytes.iter().map(|&x| Some(x.into())))?;
        c.column(&mut rg, 10, Names::Hosts, t.src.iter().map(|&x| host(x)))?;
        c.column(&mut rg, 11, Names::Hosts, t.dst.iter().map(|&x| host(x)))?;
        c.ints(&mut rg, 12, t.sport.iter().map(|&x| Some(x.into())))?;
        c.ints(&mut rg, 13, t.dport.iter().map(|&x| Some(x.into())))?;
        c.ints(&mut rg, 14, t.ttl.iter().map(|&x| Some(x.into())))?;
        c.column(&mut rg, 15, Names::Hosts, t.peer.iter().map(|&x| host(x)))?;
        s.f64(&mut rg, t.dur.iter().map(secs))?;
        {
            let mut c = rg.next_column()?.expect("the schema's retry column");
            s.def.clear();
            s.def.resize(n, 1);
            c.typed::<BoolType>()
                .write_batch(&t.retry, Some(s.def), None)?;
            c.close()?;
        }
        let reason = |&x: &u8| (x != e::R_NONE).then_some(u32::from(x));
        c.column(&mut rg, 18, Names::Reasons, t.reason.iter().map(reason))?;
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

/// The coded columns' writer, their descriptors and name tables.
struct Coded<'a> {
    chunks: &'a mut DictChunks,
    descrs: &'a [ColumnDescPtr],
    dicts: &'a [(Vec<u8>, usize); 7],
}

impl Coded<'_> {
    /// The coded column `col` (its index in COLUMNS): codes into the name table `names`.
    fn column(
        &mut self,
        rg: &mut Rg<'_>,
        col: usize,
        names: Names,
        codes: impl Iterator<Item = Option<u32>>,
    ) -> ::parquet::errors::Result<()> {
        debug_assert_eq!(COLUMNS[col].1, Col::Enum(names));
        let (dict, len) = &self.dicts[names as usize];
        self.chunks
            .write(rg, self.descrs[col].clone(), dict, *len, codes)
    }

    /// The unsigned integer column `col`, dictionary-encoded (None: null).
    fn ints(
        &mut self,
        rg: &mut Rg<'_>,
        col: usize,
        values: impl Iterator<Item = Option<u64>>,
    ) -> ::parquet::errors::Result<()> {
        let bytes = match COLUMNS[col].1 {
            Col::UInt(64) => 8,
            Col::UInt(_) => 4,
            other => unreachable!("{other:?} is no integer column"),
        };
        self.chunks
            .write_ints(rg, self.descrs[col].clone(), bytes, values)
    }
}

/// Scratch buffers and the column writers' calls, one per column type, in schema order.
struct Scratch<'a> {
    def: &'a mut Vec<i16>,
    i64s: &'a mut Vec<i64>,
    f64s: &'a mut Vec<f64>,
}

type Rg<'a> = SerializedRowGroupWriter<'a, OwnedFile>;

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
}

impl RowSink for ParquetSink {
    fn write(&mut self, rows: &EventTrace) -> io::Result<()> {
        self.group(rows).map_err(other)
    }

    /// Ends the file and renames it into place.
    fn finish(&mut self) -> io::Result<()> {
        match self.w.take() {
            Some(w) => w.into_inner().map_err(other)?.publish(),
            None => Ok(()),
        }
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
