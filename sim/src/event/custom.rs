//! Events a model defines for itself. `sim` knows the vocabulary every
//! replicated system shares (roles, hard state, commits, applies, clocks,
//! leases, membership); anything else a model reports travels as a named
//! JSON object, so a user's model and its checkers add events without
//! touching `sim`.

use super::ModelEvent;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use std::hash::{Hash, Hasher};

/// The `model` tags that belong to the generic variants of [`ModelEvent`];
/// a model's own event may not reuse them.
pub const GENERIC_KINDS: &[&str] = &[
    "role",
    "hard-state",
    "commit",
    "apply",
    "sm-reset",
    "compact",
    "follower-read",
    "hlc",
    "hlc-refused",
    "lease-start",
    "lease-stop",
    "member",
];

/// A model's own event: a JSON object whose string field `model` names its
/// kind, with its data in the other fields. It appears in a trace exactly
/// like a generic model event: `{"kind": "model", "model": "store-write", ..}`.
///
/// The usual way to make one is a serde enum tagged by `model`:
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize)]
/// #[serde(tag = "model", rename_all = "kebab-case")]
/// enum ShopEvent {
///     Sold { item: u32, price: u64 },
/// }
/// let e = sim::CustomEvent::encode(&ShopEvent::Sold { item: 3, price: 10 });
/// assert_eq!(e.name(), "sold");
/// assert!(matches!(e.decode::<ShopEvent>(), Some(ShopEvent::Sold { item: 3, .. })));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct CustomEvent(Value);

impl CustomEvent {
    /// Encodes a model's event. `event` must serialize to a JSON object with
    /// a string `model` field that is not a generic kind; anything else is a
    /// defect of the model, so this panics (inside a run, a finding).
    pub fn encode<T: Serialize>(event: &T) -> CustomEvent {
        let value = serde_json::to_value(event).unwrap_or_else(|e| panic!("a model event does not serialize: {e}"));
        Self::from_value(value).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Checks that `value` is a well-formed custom event; the error is one line.
    pub fn from_value(value: Value) -> Result<CustomEvent, String> {
        let name = match value.get("model") {
            Some(Value::String(n)) => n,
            _ => {
                return Err(format!(
                    "a model event must be a JSON object with a string \"model\" field, not {value}"
                ))
            }
        };
        if name.is_empty() || GENERIC_KINDS.contains(&name.as_str()) {
            return Err(format!(
                "a model event named '{name}' has the wrong fields for that generic kind, or no name"
            ));
        }
        Ok(CustomEvent(value))
    }

    /// Its kind: the `model` field.
    pub fn name(&self) -> &str {
        self.0.get("model").and_then(Value::as_str).unwrap_or_default()
    }

    /// Every field, `model` included.
    pub fn fields(&self) -> &Map<String, Value> {
        self.0.as_object().expect("checked when made")
    }

    /// Reads it back as the model's own type; `None` if it is another kind.
    pub fn decode<T: DeserializeOwned>(&self) -> Option<T> {
        T::deserialize(&self.0).ok()
    }
}

/// Hashes the canonical JSON text, so a trace hash covers every field and
/// stays the same on every machine.
impl Hash for CustomEvent {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.to_string().hash(state);
    }
}

impl<'de> Deserialize<'de> for CustomEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        CustomEvent::from_value(Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

impl ModelEvent {
    /// A model's own event (see [`CustomEvent::encode`]).
    pub fn custom<T: Serialize>(event: &T) -> ModelEvent {
        ModelEvent::Custom(CustomEvent::encode(event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, EventKind, MemberState, Role};

    #[test]
    fn every_generic_variant_uses_a_reserved_tag() {
        let generic = [
            ModelEvent::Role {
                term: 1,
                role: Role::Leader,
                cause: "won".into(),
                from: None,
                ballot: None,
            },
            ModelEvent::HardState { term: 1, vote: None },
            ModelEvent::Commit { index: 1 },
            ModelEvent::Apply {
                index: 1,
                term: 1,
                digest: 0,
            },
            ModelEvent::SmReset { applied: 0, digest: 0 },
            ModelEvent::Compact { index: 1 },
            ModelEvent::FollowerRead {
                key: 0,
                served_index: 0,
                staleness_ms: 0,
            },
            ModelEvent::Hlc {
                wall_ns: 0,
                logical: 0,
                from: 0,
            },
            ModelEvent::HlcRefused {
                remote_wall_ns: 0,
                from: 0,
            },
            ModelEvent::LeaseStart {
                lease: 0,
                expires_at_ns: 0,
            },
            ModelEvent::LeaseStop {
                lease: 0,
                cause: "expired".into(),
            },
            ModelEvent::Member {
                peer: 0,
                state: MemberState::Alive,
                incarnation: 0,
            },
        ];
        let tags: Vec<String> = generic
            .iter()
            .map(|m| serde_json::to_value(m).unwrap()["model"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(tags, GENERIC_KINDS);
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(tag = "model", rename_all = "kebab-case")]
    enum Mine {
        Sold { item: u32 },
    }

    #[test]
    fn a_custom_event_round_trips_through_a_trace_line() {
        let e = Event {
            i: 3,
            t_ns: 9,
            node: Some(1),
            kind: EventKind::Model(ModelEvent::custom(&Mine::Sold { item: 7 })),
        };
        let text = serde_json::to_string(&e).unwrap();
        assert_eq!(
            text,
            r#"{"i":3,"t_ns":9,"node":1,"kind":"model","item":7,"model":"sold"}"#
        );
        let back: Event = serde_json::from_str(&text).unwrap();
        assert_eq!(back, e);
        let EventKind::Model(ModelEvent::Custom(c)) = &back.kind else {
            panic!()
        };
        assert_eq!(c.decode::<Mine>(), Some(Mine::Sold { item: 7 }));
    }

    #[test]
    fn a_generic_kind_with_the_wrong_fields_is_refused() {
        let bad = r#"{"i":0,"t_ns":0,"kind":"model","model":"role","term":"x"}"#;
        assert!(serde_json::from_str::<Event>(bad).is_err());
        let nameless = r#"{"i":0,"t_ns":0,"kind":"model","term":1}"#;
        assert!(serde_json::from_str::<Event>(nameless).is_err());
    }

    #[test]
    #[should_panic(expected = "wrong fields")]
    fn a_model_may_not_take_a_generic_name() {
        #[derive(Serialize)]
        #[serde(tag = "model", rename_all = "kebab-case")]
        enum Bad {
            Commit { index: String },
        }
        CustomEvent::encode(&Bad::Commit { index: "x".into() });
    }
}
