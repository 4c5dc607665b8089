//! The write-fault hook of the tests (feature `fault-injection`, which the crate's own tests enable):
//! [`with_write_fault`] makes [`Sandbox::write`] fail for chosen paths. Absent from a production build.

use super::*;
use std::sync::atomic::AtomicBool;

// ---------------------------------------------------------------------------------------------
// Failure injection (tests)

pub(super) static FAULT_ARMED: AtomicBool = AtomicBool::new(false);
pub(super) static FAULT_SUFFIX: Mutex<Option<String>> = Mutex::new(None);

/// Test hook: while set, [`Sandbox::write`] fails with `FILE_WRITE_ERROR` for any target whose path
/// contains `pattern` (a string: `"<dir>/victim.txt"`, or `"<root>/journal/"` for everything below a
/// directory), after it has created its temp file (so that tests can check the cleanup). `None`
/// clears it. One process-wide setting: tests that use it should give a pattern that names their own
/// temp directory. Costs one atomic load when unset.
pub fn set_write_fault(pattern: Option<String>) {
    let mut slot = FAULT_SUFFIX.lock().unwrap_or_else(|e| e.into_inner());
    FAULT_ARMED.store(pattern.is_some(), Ordering::SeqCst);
    *slot = pattern;
}

pub(super) static FAULT_TURN: Mutex<()> = Mutex::new(());

/// Runs `f` with the write fault set to `pattern` ([`set_write_fault`]) and clears it after, even
/// if `f` panics. Holds a process-wide turn meanwhile, so tests that use the hook in parallel never
/// replace or clear each other's pattern.
pub fn with_write_fault<R>(pattern: impl Into<String>, f: impl FnOnce() -> R) -> R {
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            set_write_fault(None);
        }
    }
    let _turn = FAULT_TURN.lock().unwrap_or_else(|e| e.into_inner());
    set_write_fault(Some(pattern.into()));
    let _clear = Clear;
    f()
}

pub(super) fn fault_injected(path: &Path) -> bool {
    if !FAULT_ARMED.load(Ordering::Relaxed) {
        return false;
    }
    let slot = FAULT_SUFFIX.lock().unwrap_or_else(|e| e.into_inner());
    slot.as_deref()
        .is_some_and(|s| path.to_string_lossy().contains(s))
}
