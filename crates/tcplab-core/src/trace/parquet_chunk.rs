//! Column chunks the event trace's Parquet writer encodes itself (trace/events_parquet.rs): a
//! coded column (node, layer, event, kind, flow, src, dst, peer, reason) already holds each row's
//! index into a known name table, so its chunk is that table as the dictionary page and the codes
//! as they are as the data page. The parquet crate's column writer would rebuild the dictionary
//! by looking every row's string up in a hash table — a third of a fully traced run's
//! instructions (issue 36) — to find the index the trace started from.
//!
//! Layout (the Parquet format's Encodings.md and parquet.thrift): one `DICTIONARY_PAGE` (the
//! names, `PLAIN`: each a 4-byte little-endian length and its bytes), then one v1 `DATA_PAGE`
//! holding the definition levels (a 4-byte length, then the RLE / bit-packing hybrid at bit
//! width 1: one RLE run when no row is null) and the indices of the non-null rows
//! (`RLE_DICTIONARY`: a byte giving the bit width, then the hybrid's bit-packed runs). Both
//! pages are zstd-compressed, as the crate's writer compresses its own; the page headers and
//! the chunk's metadata are the crate's (`SerializedPageWriter`, `append_column`).

use std::io::Write;

use ::parquet::basic::{Compression, Encoding, PageType};
use ::parquet::column::page::{CompressedPage, Page, PageWriter};
use ::parquet::column::writer::ColumnCloseResult;
use ::parquet::errors::{ParquetError, Result};
use ::parquet::file::metadata::{ColumnChunkMetaData, PageEncodingStats};
use ::parquet::file::writer::{SerializedPageWriter, SerializedRowGroupWriter, TrackedWrite};
use ::parquet::schema::types::ColumnDescPtr;
use bytes::Bytes;

/// A name table as a dictionary page's `PLAIN` values.
pub fn plain_strings(names: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    for n in names {
        out.extend_from_slice(&(n.len() as u32).to_le_bytes());
        out.extend_from_slice(n.as_bytes());
    }
    out
}

/// Bits needed for the indices of a table of `n` names (at least 1).
pub fn index_width(n: usize) -> u8 {
    let max = n.saturating_sub(1) as u64;
    (64 - max.leading_zeros()).max(1) as u8
}

/// Parquet's ULEB128 varint (run headers).
fn varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// One bit-packed run of the RLE / bit-packing hybrid: `values` (each below 2^`bits`) in groups
/// of 8, least significant bit first, the last group padded with zeros (Encodings.md, "Run
/// Length Encoding / Bit-Packing Hybrid": header `(groups << 1) | 1`).
pub fn bit_packed(out: &mut Vec<u8>, values: &[u32], bits: u8) {
    let groups = values.len().div_ceil(8);
    varint(out, ((groups as u64) << 1) | 1);
    out.reserve(groups * usize::from(bits));
    let mut whole = values.chunks_exact(8);
    for g in &mut whole {
        pack8(out, g.try_into().expect("8 values"), bits);
    }
    let rest = whole.remainder();
    if !rest.is_empty() {
        let mut g = [0; 8];
        g[..rest.len()].copy_from_slice(rest);
        pack8(out, &g, bits);
    }
}

/// Eight values of `bits` bits each as `bits` bytes.
#[inline]
fn pack8(out: &mut Vec<u8>, g: &[u32; 8], bits: u8) {
    let b = u32::from(bits);
    if b <= 8 {
        let mut acc: u64 = 0;
        for (k, &v) in g.iter().enumerate() {
            acc |= u64::from(v) << (k as u32 * b);
        }
        out.extend_from_slice(&acc.to_le_bytes()[..b as usize]);
    } else if b <= 16 {
        let mut acc: u128 = 0;
        for (k, &v) in g.iter().enumerate() {
            acc |= u128::from(v) << (k as u32 * b);
        }
        out.extend_from_slice(&acc.to_le_bytes()[..b as usize]);
    } else {
        // More than 65,536 names: a byte at a time.
        let (mut acc, mut have) = (0u64, 0u32);
        for &v in g {
            acc |= u64::from(v) << have;
            have += b;
            while have >= 8 {
                out.push(acc as u8);
                acc >>= 8;
                have -= 8;
            }
        }
    }
}

/// A hasher for integer keys (the integer columns' dictionaries): one multiply, its high bits
/// folded down. Keys are the trace's own values, not an adversary's.
#[derive(Default)]
struct IntHash(u64);

impl std::hash::Hasher for IntHash {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        let h = (x ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type IntDict = std::collections::HashMap<u64, u32, std::hash::BuildHasherDefault<IntHash>>;

/// Encodes dictionary-coded columns; keeps its compressor and buffers between row groups.
pub struct DictChunks {
    zstd: zstd::bulk::Compressor<'static>,
    compression: Compression,
    /// Definition levels (1: a value) and the indices of the non-null rows, and the page.
    defs: Vec<u32>,
    idx: Vec<u32>,
    page: Vec<u8>,
    /// An integer column's dictionary: value → index + 1 for values below [`SMALL`] (sizes,
    /// ports, TTLs: a look-up), value → index for the others, and its `PLAIN` values.
    small: Vec<u32>,
    small_used: Vec<u32>,
    ints: IntDict,
    dict: Vec<u8>,
}

/// Integer values below this are looked up in a table, not hashed.
const SMALL: u64 = 1 << 16;

fn io(e: std::io::Error) -> ParquetError {
    ParquetError::External(Box::new(e))
}

impl DictChunks {
    /// Pages compressed with zstd at `level` (`compression` names it in the metadata).
    pub fn new(level: i32, compression: Compression) -> Result<Self> {
        Ok(DictChunks {
            zstd: zstd::bulk::Compressor::new(level).map_err(io)?,
            compression,
            defs: Vec::new(),
            idx: Vec::new(),
            page: Vec::new(),
            small: vec![0; SMALL as usize],
            small_used: Vec::new(),
            ints: IntDict::default(),
            dict: Vec::new(),
        })
    }

    /// Appends the next column of `rg` (described by `descr`): `codes` (None: null) index the
    /// `dict_len` names whose `PLAIN` values are `dict`.
    pub fn write<W: Write + Send>(
        &mut self,
        rg: &mut SerializedRowGroupWriter<'_, W>,
        descr: ColumnDescPtr,
        dict: &[u8],
        dict_len: usize,
        codes: impl Iterator<Item = Option<u32>>,
    ) -> Result<()> {
        self.defs.clear();
        self.idx.clear();
        for c in codes {
            self.defs.push(u32::from(c.is_some()));
            if let Some(c) = c {
                debug_assert!((c as usize) < dict_len, "code {c} of {dict_len} names");
                self.idx.push(c);
            }
        }
        self.write_coded(rg, descr, dict, dict_len)
    }

    /// Appends the next column of `rg`, an integer column (`INT32` when `bytes` is 4, `INT64`
    /// when 8; None: null), dictionary-encoded: its distinct values in the order they first
    /// appear, as the parquet crate's writer orders them.
    pub fn write_ints<W: Write + Send>(
        &mut self,
        rg: &mut SerializedRowGroupWriter<'_, W>,
        descr: ColumnDescPtr,
        bytes: usize,
        values: impl Iterator<Item = Option<u64>>,
    ) -> Result<()> {
        self.defs.clear();
        self.idx.clear();
        self.ints.clear();
        let mut dict = std::mem::take(&mut self.dict);
        dict.clear();
        let mut len = 0u32;
        for v in values {
            self.defs.push(u32::from(v.is_some()));
            let Some(v) = v else { continue };
            let i = if v < SMALL {
                let slot = &mut self.small[v as usize];
                if *slot == 0 {
                    dict.extend_from_slice(&v.to_le_bytes()[..bytes]);
                    self.small_used.push(v as u32);
                    len += 1;
                    *slot = len;
                }
                *slot - 1
            } else {
                *self.ints.entry(v).or_insert_with(|| {
                    dict.extend_from_slice(&v.to_le_bytes()[..bytes]);
                    len += 1;
                    len - 1
                })
            };
            self.idx.push(i);
        }
        for v in self.small_used.drain(..) {
            self.small[v as usize] = 0;
        }
        let r = self.write_coded(rg, descr, &dict, len as usize);
        self.dict = dict;
        r
    }

    /// [`DictChunks::write`] of the codes in `self.idx` and definition levels in `self.defs`.
    fn write_coded<W: Write + Send>(
        &mut self,
        rg: &mut SerializedRowGroupWriter<'_, W>,
        descr: ColumnDescPtr,
        dict: &[u8],
        dict_len: usize,
    ) -> Result<()> {
        let rows = self.defs.len();
        let p = &mut self.page;
        p.clear();
        // Definition levels, prefixed by their length (data page v1).
        p.extend_from_slice(&[0; 4]);
        if self.idx.len() == rows {
            // No null: one RLE run of `rows` ones (header `rows << 1`, the value in one byte).
            varint(p, (rows as u64) << 1);
            p.push(1);
        } else {
            bit_packed(p, &self.defs, 1);
        }
        let levels = (p.len() - 4) as u32;
        p[..4].copy_from_slice(&levels.to_le_bytes());
        let bits = index_width(dict_len);
        p.push(bits);
        if !self.idx.is_empty() {
            bit_packed(p, &self.idx, bits);
        }

        let mut out = TrackedWrite::new(Vec::new());
        let (dict_spec, data_spec) = {
            let mut pages = SerializedPageWriter::new(&mut out);
            let z = self.zstd.compress(dict).map_err(io)?;
            let dict_spec = pages.write_page(CompressedPage::new(
                Page::DictionaryPage {
                    buf: Bytes::from(z),
                    num_values: dict_len as u32,
                    encoding: Encoding::PLAIN,
                    is_sorted: false,
                },
                dict.len(),
            ))?;
            let z = self.zstd.compress(p).map_err(io)?;
            let data_spec = pages.write_page(CompressedPage::new(
                Page::DataPage {
                    buf: Bytes::from(z),
                    num_values: rows as u32,
                    encoding: Encoding::RLE_DICTIONARY,
                    def_level_encoding: Encoding::RLE,
                    rep_level_encoding: Encoding::RLE,
                    statistics: None,
                },
                p.len(),
            ))?;
            (dict_spec, data_spec)
        };
        let chunk = Bytes::from(out.into_inner()?);
        let stats = |page_type, encoding| PageEncodingStats {
            page_type,
            encoding,
            count: 1,
        };
        let metadata = ColumnChunkMetaData::builder(descr)
            .set_compression(self.compression)
            .set_encodings(vec![
                Encoding::PLAIN,
                Encoding::RLE,
                Encoding::RLE_DICTIONARY,
            ])
            .set_page_encoding_stats(vec![
                stats(PageType::DICTIONARY_PAGE, Encoding::PLAIN),
                stats(PageType::DATA_PAGE, Encoding::RLE_DICTIONARY),
            ])
            .set_total_compressed_size(
                (dict_spec.compressed_size + data_spec.compressed_size) as i64,
            )
            .set_total_uncompressed_size(
                (dict_spec.uncompressed_size + data_spec.uncompressed_size) as i64,
            )
            .set_num_values(rows as i64)
            .set_dictionary_page_offset(Some(dict_spec.offset as i64))
            .set_data_page_offset(data_spec.offset as i64)
            .build()?;
        debug_assert_eq!(metadata.compressed_size() as usize, chunk.len());
        rg.append_column(
            &chunk,
            ColumnCloseResult {
                bytes_written: chunk.len() as u64,
                rows_written: rows as u64,
                metadata,
                bloom_filter: None,
                column_index: None,
                offset_index: None,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_and_bit_packing_follow_the_format() {
        assert_eq!(
            [1, 2, 3, 4, 255, 256, 257].map(index_width),
            [1, 1, 2, 2, 8, 8, 9]
        );
        // Encodings.md's example: 0..7 at width 3 is one group, bytes 10001000 11000110 11111010.
        let mut out = Vec::new();
        bit_packed(&mut out, &[0, 1, 2, 3, 4, 5, 6, 7], 3);
        assert_eq!(out, [0b11, 0b1000_1000, 0b1100_0110, 0b1111_1010]);
        // Nine values: two groups, the second padded with zeros.
        let mut out = Vec::new();
        bit_packed(&mut out, &[1; 9], 1);
        assert_eq!(out, [0b101, 0xff, 0x01]);
        // Wide codes: 9 bits (a table of 257..512 names) and 17 bits (the byte-wise path).
        for bits in [9u8, 17] {
            let values: Vec<u32> = (0..8).map(|k| (1 << bits) - 1 - k).collect();
            let mut out = Vec::new();
            bit_packed(&mut out, &values, bits);
            assert_eq!(out.len(), 1 + bits as usize);
            // Value k is bits k·bits .. (k+1)·bits of the bytes, least significant first.
            let bit = |i: usize| u32::from(out[1 + i / 8] >> (i % 8)) & 1;
            for (k, &v) in values.iter().enumerate() {
                let b = bits as usize;
                let got = (0..b).fold(0, |a, j| a | bit(k * b + j) << j);
                assert_eq!(got, v, "{bits} bits, value {k}");
            }
        }
        let mut out = Vec::new();
        varint(&mut out, 300);
        assert_eq!(out, [0xac, 0x02]);
    }
}
