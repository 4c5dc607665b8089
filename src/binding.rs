//! The napi binding: one async entry point, JSON in and JSON out, run on the libuv thread pool so
//! file I/O never blocks Node's event loop. Everything else lives in the engine ([`crate::api`]).
//!
//! The first call installs the engine's panic hook, so a panic never prints its raw payload (which may
//! quote file content) to the Node process's stderr.
use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Task};
use napi_derive::napi;

pub struct Call {
    op: String,
    payload: String,
}

impl Task for Call {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        crate::api::install_panic_hook();
        // `api::call` catches panics itself and returns INTERNAL_ERROR.
        Ok(crate::api::call(
            &self.op,
            &std::mem::take(&mut self.payload),
        ))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        Ok(output)
    }
}

/// Runs engine operation `op` with `payload` (a JSON array of arguments) off the event loop and
/// resolves to the JSON result text.
#[napi(ts_return_type = "Promise<string>")]
pub fn call(op: String, payload: String) -> AsyncTask<Call> {
    AsyncTask::new(Call { op, payload })
}

/// Runs a read-only operation synchronously (used for pure parsers that touch no files).
#[napi]
pub fn call_sync(op: String, payload: String) -> String {
    crate::api::install_panic_hook();
    crate::api::call(&op, &payload)
}
