//! The refusal of a malformed argument, for the checks a declaration cannot state (a root that is
//! empty, a count out of range, two options that exclude each other). Reading arguments is
//! [`crate::contract::read`]'s: every operation's handler receives its declared argument type.

use crate::error::{Code, Failure};

pub use crate::contract::read::type_name;

/// `INVALID_INPUT` with `msg`.
pub fn bad(msg: impl Into<String>) -> Failure {
    Failure::new(Code::InvalidInput, msg)
}
