//! What crosses dst's network for a socket of dst's tokio.

use crate::links::LinkMode;
use serde::Serialize;

/// What crosses the network for a socket. Connection ids are the
/// sending and receiving nodes' own.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "segment", rename_all = "kebab-case")]
pub(crate) enum Segment {
    /// A connect from connection `src`, bound to `src_port`, to `dst_port`.
    Syn { src: u64, src_port: u16, dst_port: u16 },
    /// The connect of `dst` was accepted as connection `src`.
    SynAck { dst: u64, src: u64 },
    /// Bytes for connection `dst`, from connection `src`.
    Data {
        dst: u64,
        src: u64,
        #[serde(serialize_with = "byte_count")]
        bytes: Vec<u8>,
    },
    /// The sender of `src` will write no more to `dst`.
    Fin { dst: u64, src: u64 },
    /// Connection `dst` (or the connect that opened it) is refused or reset.
    Rst { dst: u64 },
    /// A datagram from `src_port` to `dst_port`.
    Udp {
        src_port: u16,
        dst_port: u16,
        #[serde(serialize_with = "byte_count")]
        bytes: Vec<u8>,
    },
}

/// A trace shows how many bytes a segment carried, not the bytes.
fn byte_count<S: serde::Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(bytes.len() as u64)
}

impl Segment {
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Segment::Syn { .. } => "tcp-syn",
            Segment::SynAck { .. } => "tcp-syn-ack",
            Segment::Data { .. } => "tcp-data",
            Segment::Fin { .. } => "tcp-fin",
            Segment::Rst { .. } => "tcp-rst",
            Segment::Udp { .. } => "udp",
        }
    }

    pub(crate) fn link(&self) -> LinkMode {
        match self {
            Segment::Udp { .. } => LinkMode::Datagram,
            _ => LinkMode::Stream,
        }
    }
}
