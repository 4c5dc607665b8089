//! Which files the current call touched, for the per-file fallback ladder in [`crate::api`].
//! Thread-local: each call runs on one thread from start to end.

use std::cell::RefCell;

thread_local! {
    static TOUCHED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Records that the current call works on `real` (an absolute, resolved path).
pub fn touch(real: &std::path::Path) {
    TOUCHED.with(|t| t.borrow_mut().push(real.to_string_lossy().into_owned()));
}

/// The files recorded since the last call to `take`.
pub fn take() -> Vec<String> {
    TOUCHED.with(|t| std::mem::take(&mut *t.borrow_mut()))
}
