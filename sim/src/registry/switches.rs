//! A model's bug switches: one `bool` per catalogued bug, all off for the
//! correct model, set from the ids a run was given.

/// Declares a model's bug switches: a struct of one `pub bool` field per
/// bug (`Default` is the correct model), `from_ids` to set them from a
/// run's bug ids, and `IDS`, every id in declaration order.
///
/// ```
/// sim::bug_switches! {
///     /// The store's catalogued bugs.
///     pub struct StoreBugs for "store" {
///         /// Acknowledges a write before its fsync.
///         ack_before_sync: "ack-before-sync",
///         lost_tombstone: "lost-tombstone",
///     }
/// }
/// let b = StoreBugs::from_ids(&["lost-tombstone".to_string()]).unwrap();
/// assert!(b.lost_tombstone && !b.ack_before_sync);
/// assert_eq!(StoreBugs::IDS, ["ack-before-sync", "lost-tombstone"]);
/// assert_eq!(StoreBugs::from_ids(&["lost_tombstone".to_string()]).unwrap_err(), "unknown store bug id: lost_tombstone");
/// ```
#[macro_export]
macro_rules! bug_switches {
    ($(#[$meta:meta])* $vis:vis struct $name:ident for $model:literal {
        $($(#[$fmeta:meta])* $field:ident : $id:literal),* $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        $vis struct $name {
            $($(#[$fmeta])* pub $field: bool,)*
        }

        impl $name {
            /// Every bug id, in the order declared.
            pub const IDS: &'static [&'static str] = &[$($id),*];

            /// The switches of `ids` on, the rest off; an id of no switch
            /// is an error naming it.
            pub fn from_ids(ids: &[String]) -> Result<Self, String> {
                let mut b = Self::default();
                for id in ids {
                    let switch = match id.as_str() {
                        $($id => &mut b.$field,)*
                        other => return Err(format!("unknown {} bug id: {other}", $model)),
                    };
                    *switch = true;
                }
                Ok(b)
            }
        }
    };
}

/// Checks a model's catalogue against its switches (`IDS`): every
/// catalogued bug has a switch and every switch a catalogue entry. (The
/// macro gives each id its own field: a field or id declared twice does
/// not compile, or is an unreachable pattern.) For a model's tests.
pub fn catalogue_matches(catalogue: &[super::Bug], ids: &[&str]) -> Result<(), String> {
    if let Some(b) = catalogue.iter().find(|b| !ids.contains(&b.id)) {
        return Err(format!("the catalogued bug {} has no switch", b.id));
    }
    if let Some(id) = ids.iter().find(|id| !catalogue.iter().any(|b| b.id == **id)) {
        return Err(format!("the switch {id} is not in the catalogue"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::catalogue_matches;
    use crate::registry::Bug;

    fn bug(id: &'static str) -> Bug {
        Bug {
            id,
            kind: "safety",
            invariants: &["linearizable"],
            scenario: "s",
            summary: "",
        }
    }

    #[test]
    fn a_catalogue_and_switches_that_differ_are_named() {
        assert_eq!(catalogue_matches(&[bug("a"), bug("b")], &["b", "a"]), Ok(()));
        assert_eq!(
            catalogue_matches(&[bug("a"), bug("b")], &["a"]).unwrap_err(),
            "the catalogued bug b has no switch"
        );
        assert_eq!(
            catalogue_matches(&[bug("a")], &["a", "c"]).unwrap_err(),
            "the switch c is not in the catalogue"
        );
    }
}
