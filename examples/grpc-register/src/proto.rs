//! The service's messages, as a `.proto` file would declare them; prost's
//! derive encodes them, so no code generator runs.

/// A candidate asks for a vote in `term`; with `pre`, it asks only
/// whether the vote would be granted, and nothing changes on the voter.
#[derive(Clone, PartialEq, prost::Message)]
pub struct VoteRequest {
    #[prost(uint64, tag = "1")]
    pub term: u64,
    #[prost(uint32, tag = "2")]
    pub candidate: u32,
    #[prost(bool, tag = "3")]
    pub pre: bool,
}

/// A vote, with the voter's newest state: a new leader starts from the
/// newest state a majority holds.
#[derive(Clone, PartialEq, prost::Message)]
pub struct VoteReply {
    #[prost(bool, tag = "1")]
    pub granted: bool,
    #[prost(uint64, tag = "2")]
    pub term: u64,
    #[prost(message, optional, tag = "3")]
    pub state: Option<Stamped>,
}

/// The leader of `term` hands its state to a follower (and renews its
/// lease: an empty write is a heartbeat).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ReplicateRequest {
    #[prost(uint64, tag = "1")]
    pub term: u64,
    #[prost(uint32, tag = "2")]
    pub leader: u32,
    #[prost(message, optional, tag = "3")]
    pub state: Option<Stamped>,
}

/// Whether the follower took it; its term, if newer.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ReplicateReply {
    #[prost(bool, tag = "1")]
    pub ok: bool,
    #[prost(uint64, tag = "2")]
    pub term: u64,
}

/// The whole register state, stamped by the term and sequence number of
/// the write that made it: a later stamp is a later state.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct Stamped {
    #[prost(uint64, tag = "1")]
    pub wterm: u64,
    #[prost(uint64, tag = "2")]
    pub seq: u64,
    /// The key-value map, as JSON.
    #[prost(bytes = "vec", tag = "3")]
    pub map: Vec<u8>,
}

impl Stamped {
    pub fn stamp(&self) -> (u64, u64) {
        (self.wterm, self.seq)
    }
}
