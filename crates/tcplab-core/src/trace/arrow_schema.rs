//! The Arrow schema a Parquet file carries in its `ARROW:schema` metadata: an Arrow IPC
//! schema message (Arrow's format/Schema.fbs and Message.fbs, a flatbuffer after the IPC
//! continuation marker and length), base64-encoded. Readers that find it (polars, pyarrow)
//! take each column's Arrow type from it instead of from the Parquet types alone: here the
//! coded columns become dictionaries of strings with polars' `Enum` categories
//! (`_PL_ENUM_VALUES2`: each category as `<byte length>;<bytes>`), as polars records them when
//! it writes an `Enum` column, so polars reads them back as that `Enum`.

use flatbuffers::{FlatBufferBuilder, WIPOffset};

/// An Arrow column type, as the event trace uses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Col {
    F64,
    Bool,
    /// Unsigned integer of this many bits.
    UInt(u8),
    /// A polars `Enum`: a dictionary of large strings with ordered categories.
    Enum(super::events_parquet::Names),
}

/// Schema.fbs's `Type` union tags used here.
const TYPE_INT: u8 = 2;
const TYPE_FLOATING_POINT: u8 = 3;
const TYPE_BOOL: u8 = 6;
const TYPE_LARGE_UTF8: u8 = 20;
/// Message.fbs: `MessageHeader.Schema`, and `MetadataVersion.V5`.
const HEADER_SCHEMA: u8 = 1;
const METADATA_V5: i16 = 4;
/// Schema.fbs: `Precision.DOUBLE`.
const DOUBLE: i16 = 2;

/// A table field's slot in the vtable (flatbuffers: 4 + 2 × field index).
const fn slot(i: u16) -> u16 {
    4 + 2 * i
}

/// Polars' category list: each name as its byte length, `;`, its bytes.
pub fn enum_values(names: &[&str]) -> String {
    names.iter().map(|n| format!("{};{n}", n.len())).collect()
}

/// Polars' index width for an `Enum` of `n` categories.
fn index_bits(n: usize) -> i32 {
    match n {
        0..=255 => 8,
        256..=65_535 => 16,
        _ => 32,
    }
}

fn int_type<'a>(
    b: &mut FlatBufferBuilder<'a>,
    bits: i32,
    signed: bool,
) -> WIPOffset<flatbuffers::TableFinishedWIPOffset> {
    let t = b.start_table();
    b.push_slot::<i32>(slot(0), bits, 0);
    b.push_slot::<bool>(slot(1), signed, false);
    b.end_table(t)
}

/// The `ARROW:schema` value for columns (name, type, an `Enum`'s categories).
pub fn encoded(cols: &[(&str, Col, Option<&[&str]>)]) -> String {
    let mut b = FlatBufferBuilder::with_capacity(4096);
    let mut fields = Vec::with_capacity(cols.len());
    let mut dict_id = 0i64;
    for &(name, col, cats) in cols {
        let name = b.create_string(name);
        let (tag, ty) = match col {
            Col::F64 => {
                let t = b.start_table();
                b.push_slot::<i16>(slot(0), DOUBLE, 0);
                (TYPE_FLOATING_POINT, b.end_table(t))
            }
            Col::Bool => {
                let t = b.start_table();
                (TYPE_BOOL, b.end_table(t))
            }
            Col::UInt(bits) => (TYPE_INT, int_type(&mut b, bits.into(), false)),
            Col::Enum(_) => {
                let t = b.start_table();
                (TYPE_LARGE_UTF8, b.end_table(t))
            }
        };
        let (dict, meta) = match cats {
            Some(cats) => {
                let index = int_type(&mut b, index_bits(cats.len()), false);
                let d = b.start_table();
                b.push_slot::<i64>(slot(0), dict_id, 0); // id
                b.push_slot_always(slot(1), index); // indexType
                b.push_slot::<bool>(slot(2), true, false); // isOrdered
                let d = b.end_table(d);
                dict_id += 1;
                let k = b.create_string("_PL_ENUM_VALUES2");
                let v = b.create_string(&enum_values(cats));
                let kv = b.start_table();
                b.push_slot_always(slot(0), k);
                b.push_slot_always(slot(1), v);
                let kv = b.end_table(kv);
                (Some(d), Some(b.create_vector(&[kv])))
            }
            None => (None, None),
        };
        let children = b.create_vector::<WIPOffset<flatbuffers::TableFinishedWIPOffset>>(&[]);
        let f = b.start_table();
        b.push_slot_always(slot(0), name);
        b.push_slot::<bool>(slot(1), true, false); // nullable
        b.push_slot::<u8>(slot(2), tag, 0); // type_type
        b.push_slot_always(slot(3), ty); // type
        if let Some(d) = dict {
            b.push_slot_always(slot(4), d);
        }
        b.push_slot_always(slot(5), children);
        if let Some(m) = meta {
            b.push_slot_always(slot(6), m);
        }
        fields.push(b.end_table(f));
    }
    let fields = b.create_vector(&fields);
    let schema = b.start_table();
    b.push_slot::<i16>(slot(0), 0, 0); // endianness: Little
    b.push_slot_always(slot(1), fields);
    let schema = b.end_table(schema);
    let msg = b.start_table();
    b.push_slot::<i16>(slot(0), METADATA_V5, 0); // version
    b.push_slot::<u8>(slot(1), HEADER_SCHEMA, 0); // header_type
    b.push_slot_always(slot(2), schema); // header
    b.push_slot::<i64>(slot(3), 0, 0); // bodyLength
    let msg = b.end_table(msg);
    b.finish(msg, None);
    let fb = b.finished_data();
    // The IPC encapsulation: continuation marker, metadata length (padded to 8 bytes), message.
    let padded = fb.len().div_ceil(8) * 8;
    let mut out = Vec::with_capacity(8 + padded);
    out.extend_from_slice(&0xFFFF_FFFFu32.to_le_bytes());
    out.extend_from_slice(&(padded as i32).to_le_bytes());
    out.extend_from_slice(fb);
    out.resize(8 + padded, 0);
    base64(&out)
}

/// Standard base64 with padding (RFC 4648 §4).
fn base64(data: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * k)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648s_test_vectors() {
        // RFC 4648 §10.
        for (plain, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), enc);
        }
    }

    #[test]
    fn enum_values_are_polars_length_prefixed_list() {
        // As polars 2.1 wrote the event trace's `layer` column.
        assert_eq!(
            enum_values(&["agt", "rtr", "ifq", "mac", "link"]),
            "3;agt3;rtr3;ifq3;mac4;link"
        );
        assert_eq!(
            (index_bits(255), index_bits(256), index_bits(65_536)),
            (8, 16, 32)
        );
    }
}
