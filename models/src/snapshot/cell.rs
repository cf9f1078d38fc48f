//! One key's buffer cell in a partition owner. The cell is monotone: it
//! never goes below the offset it holds, and recovery seeds it with the
//! offset the store holds, so replayed records at or below a stored snapshot
//! (the replay window) cannot regress it.

use super::events::SnapValue;

/// What the owner believes the store holds for the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// No row: a first write must insert.
    Absent,
    /// A row whose offset expired (TTL) while older cells keep it visible.
    GuardExpired,
    /// A row (live or tombstone) at this offset.
    At(u64),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The offset of the newest record (or snapshot) the state reflects.
    pub offset: u64,
    /// `None`: deleted (or never written).
    pub value: Option<SnapValue>,
    /// The first record folded since the store last matched the cell: what
    /// this key holds back of the partition's commit. `None`: clean.
    pub hold: Option<u64>,
    /// The first record folded while a write was in flight, which becomes
    /// the hold once that write lands.
    pub hold_next: Option<u64>,
    /// Write the recovered state back once even though nothing was folded.
    pub rewrite: bool,
    /// Bumped by every change, so a landed write knows whether it is current.
    pub version: u64,
    pub stored: Stored,
    /// A write of this key is in flight: flushes are serialized per key.
    pub busy: bool,
}

impl Cell {
    pub fn empty(stored: Stored) -> Cell {
        Cell {
            offset: 0,
            value: None,
            hold: None,
            hold_next: None,
            rewrite: false,
            version: 0,
            stored,
            busy: false,
        }
    }

    /// A cell seeded from the store's snapshot at `offset`: the floor.
    pub fn recovered(offset: u64, value: Option<SnapValue>) -> Cell {
        Cell {
            offset,
            value,
            ..Cell::empty(Stored::At(offset))
        }
    }

    pub fn dirty(&self) -> bool {
        self.hold.is_some() || self.rewrite
    }

    /// Folds the record at `offset` in; with `monotone`, only a record above
    /// what the cell holds. Returns whether the cell changed.
    pub fn fold(&mut self, offset: u64, update: Option<u64>, monotone: bool) -> bool {
        if monotone && offset <= self.offset {
            return false;
        }
        let value = SnapValue::fold(self.value, offset, update);
        self.set(offset, value);
        true
    }

    /// Sets the state outright (recovery of journal rows, or a fold).
    pub fn set(&mut self, offset: u64, value: Option<SnapValue>) {
        self.offset = offset;
        self.value = value;
        self.version += 1;
        if self.busy {
            self.hold_next.get_or_insert(offset);
        }
        self.hold = Some(self.hold.map_or(offset, |h| h.min(offset)));
    }

    /// A write of the state at `version` landed.
    pub fn landed(&mut self, version: u64, stored: Stored) {
        self.busy = false;
        self.stored = stored;
        self.rewrite = false;
        self.hold = if version == self.version { None } else { self.hold_next };
        self.hold_next = None;
    }

    /// Marks the cell clean without a write (a delete that needs none).
    pub fn settle(&mut self) {
        self.hold = None;
        self.hold_next = None;
        self.rewrite = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replayed_records_at_or_below_the_recovered_offset_change_nothing() {
        let v = SnapValue::fold(None, 7, Some(1));
        let mut c = Cell::recovered(7, v);
        assert!(!c.fold(5, Some(2), true));
        assert!(!c.fold(7, Some(2), true));
        assert_eq!((c.offset, c.value, c.dirty()), (7, v, false));
        assert!(c.fold(9, Some(3), true));
        assert_eq!((c.offset, c.hold), (9, Some(9)));
    }

    #[test]
    fn a_recovered_tombstone_is_a_floor_too() {
        let mut c = Cell::recovered(12, None);
        assert!(
            !c.fold(10, Some(4), true),
            "a pre-delete record must not revive the key"
        );
        assert_eq!(c.value, None);
    }

    #[test]
    fn without_monotonicity_the_buffer_regresses_below_its_floor() {
        let mut c = Cell::recovered(12, None);
        assert!(c.fold(10, Some(4), false));
        assert_eq!(c.offset, 10);
        assert!(c.value.is_some());
    }

    #[test]
    fn a_write_that_lands_after_a_newer_fold_leaves_the_newer_state_held() {
        let mut c = Cell::empty(Stored::Absent);
        c.fold(3, Some(1), true);
        c.busy = true;
        let version = c.version;
        c.fold(4, Some(2), true);
        c.landed(version, Stored::At(3));
        assert_eq!(c.hold, Some(4));
        assert!(c.dirty());
        c.busy = true;
        let version = c.version;
        c.landed(version, Stored::At(4));
        assert!(!c.dirty());
    }
}
