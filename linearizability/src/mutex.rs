//! Knossos' mutex: one lock, free at first; `acquire` takes it and
//! `release` frees it. Acquiring a held lock or releasing a free one is
//! inconsistent whoever holds it: like Knossos' model, this one does not
//! track owners. A refused acquire is recorded as a failure, so every
//! completed op took effect.

use super::model::Model;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// An operation on the lock.
pub enum MutexOp {
    /// Takes the lock, which must be free.
    Acquire,
    /// Frees the lock, which must be held.
    Release,
}

#[derive(Clone, Copy, Debug, Default)]
/// The lock's model; its ops complete with `()`.
pub struct Mutex;

impl Model for Mutex {
    type Key = ();
    /// Held.
    type State = bool;
    type Input = MutexOp;
    /// A completed acquire or release says only that it took effect.
    type Output = ();

    fn init(&self) -> bool {
        false
    }

    fn key(&self, _input: &MutexOp) {}

    fn step(&self, held: &bool, input: &MutexOp, output: Option<&()>) -> Option<bool> {
        let applies = *held == (*input == MutexOp::Release);
        match (applies, output) {
            (true, _) => Some(!held),
            // An op of unknown outcome that cannot take effect here may
            // still have happened elsewhere, or never: it changes nothing.
            (false, None) => Some(*held),
            (false, Some(())) => None,
        }
    }

    fn describe_key(&self, _key: &()) -> String {
        "mutex".to_string()
    }

    fn describe_op(&self, input: &MutexOp, output: Option<&()>) -> String {
        let name = match input {
            MutexOp::Acquire => "acquire",
            MutexOp::Release => "release",
        };
        match output {
            Some(()) => name.to_string(),
            None => format!("{name} -> ?"),
        }
    }

    fn describe_state(&self, held: &bool) -> String {
        if *held { "held" } else { "free" }.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_cannot_be_acquired_nor_a_free_one_released() {
        let m = Mutex;
        assert_eq!(m.step(&false, &MutexOp::Acquire, Some(&())), Some(true));
        assert_eq!(m.step(&true, &MutexOp::Acquire, Some(&())), None);
        assert_eq!(m.step(&true, &MutexOp::Release, Some(&())), Some(false));
        assert_eq!(m.step(&false, &MutexOp::Release, Some(&())), None);
        assert_eq!(m.step(&true, &MutexOp::Acquire, None), Some(true));
        assert_eq!(m.step(&false, &MutexOp::Acquire, None), Some(true));
        assert_eq!(m.describe_op(&MutexOp::Release, None), "release -> ?");
        assert_eq!(m.describe_state(&true), "held");
    }
}
