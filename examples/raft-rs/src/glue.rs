//! Conversions between a crate version's protobuf types and the adapter's
//! own, identical in source for both versions (protobuf 2 generates the same
//! accessors) but typed by each. The macros expand in a version's module,
//! where `Message`, `Entry`, `HardState`, `Snapshot`, `StateRole`, `Error`,
//! `StorageError`, `SnapshotStatus`, `Config` and that version's
//! `entry_type(i32)`, `conf_state(&[u64])` and `limit_size(&mut Vec<Entry>,
//! Option<u64>)` are in scope.

macro_rules! crate_glue {
    () => {
        impl $crate::node::CrateMsg for Message {
            fn type_number(&self) -> i32 {
                self.get_msg_type() as i32
            }
            fn to(&self) -> u64 {
                self.get_to()
            }
            fn summary(&self) -> $crate::node::MsgSummary {
                let snap = self.get_snapshot().get_metadata().get_index();
                $crate::node::MsgSummary {
                    kind: $crate::node::kind_name(self.type_number()),
                    from: self.get_from(),
                    to: self.get_to(),
                    term: self.get_term(),
                    log_term: self.get_log_term(),
                    index: self.get_index(),
                    commit: self.get_commit(),
                    entries: self.get_entries().len(),
                    reject: self.get_reject(),
                    snapshot: (snap != 0).then_some(snap),
                }
            }
        }

        fn entry_in(e: &Entry) -> $crate::store::LogEntry {
            $crate::store::LogEntry {
                index: e.get_index(),
                term: e.get_term(),
                kind: e.get_entry_type() as i32,
                data: e.get_data().to_vec(),
                context: e.get_context().to_vec(),
            }
        }

        fn entries_in(es: &[Entry]) -> Vec<$crate::store::LogEntry> {
            es.iter().map(entry_in).collect()
        }

        fn entry_out(e: &$crate::store::LogEntry) -> Entry {
            let mut out = Entry::default();
            out.set_index(e.index);
            out.set_term(e.term);
            out.set_entry_type(entry_type(e.kind));
            out.set_data(e.data.clone().into());
            out.set_context(e.context.clone().into());
            out
        }

        /// Entries `[low, high)` of the store, at most `max_size` bytes
        /// (at least one entry), as the crate's `Storage::entries` returns them.
        fn entries_out(
            store: &$crate::store::LogStore,
            low: u64,
            high: u64,
            max_size: Option<u64>,
        ) -> Result<Vec<Entry>> {
            let mut es: Vec<Entry> = store
                .entries(low, high)
                .map_err(missing)?
                .iter()
                .map(entry_out)
                .collect();
            limit_size(&mut es, max_size);
            Ok(es)
        }

        /// The crate's `Storage` over the adapter's store.
        pub struct Store($crate::store::LogStore);

        fn hard_state_in(h: &HardState) -> $crate::store::HardState {
            $crate::store::HardState {
                term: h.get_term(),
                vote: h.get_vote(),
                commit: h.get_commit(),
            }
        }

        fn hard_state_out(h: &$crate::store::HardState) -> HardState {
            let mut out = HardState::default();
            out.set_term(h.term);
            out.set_vote(h.vote);
            out.set_commit(h.commit);
            out
        }

        /// A non-empty snapshot, as the store keeps it.
        fn snapshot_in(s: &Snapshot) -> Option<$crate::store::SnapshotImage> {
            let meta = s.get_metadata();
            (meta.get_index() != 0).then(|| $crate::store::SnapshotImage {
                index: meta.get_index(),
                term: meta.get_term(),
                data: s.get_data().to_vec(),
            })
        }

        fn snapshot_out(s: &$crate::store::SnapshotImage, voters: &[u64]) -> Snapshot {
            let mut out = Snapshot::default();
            out.set_data(s.data.clone().into());
            let meta = out.mut_metadata();
            meta.set_index(s.index);
            meta.set_term(s.term);
            meta.set_conf_state(conf_state(voters));
            out
        }

        fn missing(m: $crate::store::Missing) -> Error {
            Error::Store(match m {
                $crate::store::Missing::Compacted => StorageError::Compacted,
                $crate::store::Missing::Unavailable => StorageError::Unavailable,
            })
        }

        fn role(r: StateRole) -> sim::Role {
            match r {
                StateRole::Follower => sim::Role::Follower,
                StateRole::PreCandidate => sim::Role::PreCandidate,
                StateRole::Candidate => sim::Role::Candidate,
                StateRole::Leader => sim::Role::Leader,
            }
        }
    };
}

/// The `Storage` methods whose signatures both versions share, over the
/// wrapped [`crate::store::LogStore`]; expanded inside `impl Storage`.
macro_rules! storage_common {
    () => {
        fn initial_state(&self) -> Result<RaftState> {
            Ok(RaftState {
                hard_state: hard_state_out(&self.0.hard_state),
                conf_state: conf_state(&self.0.voters),
            })
        }
        fn term(&self, idx: u64) -> Result<u64> {
            self.0.term(idx).map_err(missing)
        }
        fn first_index(&self) -> Result<u64> {
            Ok(self.0.first_index())
        }
        fn last_index(&self) -> Result<u64> {
            Ok(self.0.last_index())
        }
    };
}

/// The crate's `Config` from the adapter's, with a version's own extra
/// fields: `raft_config!(cfg, id, applied, field: value, ..)`.
macro_rules! raft_config {
    ($cfg:expr, $id:expr, $applied:expr $(, $field:ident: $value:expr)*) => {
        Config {
            id: $id,
            election_tick: $cfg.election_tick,
            heartbeat_tick: $cfg.heartbeat_tick,
            min_election_tick: $cfg.min_election_tick,
            max_election_tick: $cfg.max_election_tick,
            applied: $applied,
            max_size_per_msg: $cfg.max_size_per_msg,
            max_inflight_msgs: $cfg.max_inflight_msgs,
            check_quorum: $cfg.check_quorum,
            pre_vote: $cfg.pre_vote,
            $($field: $value,)*
            ..Config::default()
        }
    };
}

/// The [`crate::node::Version`] methods that are the same `RawNode` call in
/// both versions; expanded inside `impl Version`, given the name of the
/// version's getter of the randomized election timeout.
macro_rules! raw_calls {
    ($timeout:ident) => {
        fn store(raw: &mut Self::Raw) -> &mut $crate::store::LogStore {
            &mut raw.mut_store().0
        }

        fn status(raw: &Self::Raw) -> $crate::node::Status {
            $crate::node::Status {
                term: raw.raft.term,
                role: role(raw.raft.state),
                leader: raw.raft.leader_id,
                timeout: raw.raft.$timeout(),
            }
        }

        fn set_election_timeout(raw: &mut Self::Raw, ticks: usize) {
            raw.raft.set_randomized_election_timeout(ticks);
        }

        fn tick(raw: &mut Self::Raw) {
            raw.tick();
        }

        fn step(raw: &mut Self::Raw, m: Message) {
            let _ = raw.step(m);
        }

        fn propose(raw: &mut Self::Raw, data: Vec<u8>) -> bool {
            raw.propose(vec![], data).is_ok()
        }

        fn read_index(raw: &mut Self::Raw, ctx: Vec<u8>) {
            raw.read_index(ctx);
        }

        fn report_snapshot_sent(raw: &mut Self::Raw, to: u64) {
            raw.report_snapshot(to, SnapshotStatus::Finish);
        }
    };
}

pub(crate) use crate_glue;
pub(crate) use raft_config;
pub(crate) use raw_calls;
pub(crate) use storage_common;
