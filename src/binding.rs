//! The napi binding: one async entry point, JSON in and JSON out. Everything else lives in the engine
//! ([`crate::api`]).
//!
//! **Threads of its own.** Each [`call`] runs on a thread of the addon's own (named
//! `surepatch-call`), never on libuv's thread pool: a call may wait up to `lock_timeout_ms` (default
//! 10 s) for a file lock another program holds, and on the pool (4 threads by default) four such waits
//! stalled every `fs` call, DNS lookup and zlib job of the host process. A call takes an idle thread
//! of the addon's, or starts one when none is idle, so as many calls run at once as are made; a thread
//! idle for [`IDLE_FOR`] ends (reusing threads keeps a call as cheap as a hop to libuv's pool). The
//! promise is settled through a threadsafe function (napi's `JsDeferred`), which keeps the event loop
//! alive only while the call runs; an idle thread holds nothing of Node's, so an idle process exits as
//! before. The thread is secured before the promise is made, so a call either runs with a promise to
//! settle or fails synchronously (no thread could be started: the JS door answers `INTERNAL_ERROR`)
//! without running. Threads have 8 MiB stacks, as libuv's pool threads.
//!
//! **Panics.** `api::call` catches the engine's panics and answers `INTERNAL_ERROR`; whatever else
//! could panic on the call's thread is caught here too, so the promise is always settled and a panic
//! never reaches Node. The first call installs the engine's panic hook, so a panic never prints its
//! raw payload (which may quote file content) to the Node process's stderr.
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Mutex, PoisonError};
use std::time::Duration;

use napi::{bindgen_prelude::Object, Env, JsDeferred};
use napi_derive::napi;

/// The stack of a call's thread: libuv's pool threads have 8 MiB, which the engine was run with.
const STACK_BYTES: usize = 8 << 20;
/// How long an idle thread waits for another call before it ends.
const IDLE_FOR: Duration = Duration::from_secs(3);

/// What settles a call's promise, on the JS thread.
type Settle = Box<dyn FnOnce(Env) -> napi::Result<String> + Send>;

/// One call, handed to a thread.
struct Job {
    op: String,
    payload: String,
    deferred: JsDeferred<String, Settle>,
}

/// A thread waiting for a call: its id, and where to send the call.
struct Worker {
    id: u64,
    tx: mpsc::Sender<Job>,
}

/// The idle threads, the most recently idle last (taken first: its stack and caches are warm).
static IDLE: Mutex<Vec<Worker>> = Mutex::new(Vec::new());
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

fn idle() -> std::sync::MutexGuard<'static, Vec<Worker>> {
    IDLE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An idle thread, or a new one.
fn take_worker() -> std::io::Result<Worker> {
    if let Some(w) = idle().pop() {
        return Ok(w);
    }
    let (tx, rx) = mpsc::channel();
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let me = tx.clone();
    std::thread::Builder::new()
        .name("surepatch-call".into())
        .stack_size(STACK_BYTES)
        .spawn(move || work(id, me, rx))?;
    Ok(Worker { id, tx })
}

/// A thread's life: run the calls it is sent; after [`IDLE_FOR`] without one, leave the idle list
/// and end, unless a caller took it from the list meanwhile (its call is then on the way).
fn work(id: u64, me: mpsc::Sender<Job>, rx: mpsc::Receiver<Job>) {
    loop {
        let job = match rx.recv_timeout(IDLE_FOR) {
            Ok(job) => job,
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let mut list = idle();
                if let Some(at) = list.iter().position(|w| w.id == id) {
                    list.remove(at);
                    return;
                }
                drop(list);
                match rx.recv() {
                    Ok(job) => job,
                    Err(_) => return,
                }
            }
        };
        let out = run(&job.op, job.payload);
        job.deferred.resolve(Box::new(move |_| Ok(out)));
        idle().push(Worker { id, tx: me.clone() });
    }
}

/// Runs engine operation `op` with `payload` (a JSON array of arguments) on a thread of the addon's
/// own, never on libuv's pool, and resolves to the JSON result text.
#[napi(ts_return_type = "Promise<string>")]
pub fn call(env: &Env, op: String, payload: String) -> napi::Result<Object<'_>> {
    let worker = take_worker().map_err(|e| {
        napi::Error::from_reason(format!("cannot start a thread for the call: {e}"))
    })?;
    let (deferred, promise) = match env.create_deferred::<String, Settle>() {
        Ok(made) => made,
        Err(e) => {
            idle().push(worker);
            return Err(e);
        }
    };
    let job = Job {
        op,
        payload,
        deferred,
    };
    if let Err(mpsc::SendError(job)) = worker.tx.send(job) {
        // Its thread is gone (it cannot end while listed, nor while taken): settle anyway.
        job.deferred.reject(napi::Error::from_reason(
            "the call's thread ended before it ran",
        ));
    }
    Ok(promise)
}

/// The engine's answer to one call; a panic outside the engine's own guard becomes `INTERNAL_ERROR`.
fn run(op: &str, payload: String) -> String {
    catch_unwind(AssertUnwindSafe(|| {
        crate::api::install_panic_hook();
        crate::api::call(op, &payload)
    }))
    .unwrap_or_else(|_| {
        serde_json::json!({
            "ok": false,
            "code": "INTERNAL_ERROR",
            "message": "internal error in surepatch (a panic outside an operation); nothing was written. Please report this at https://github.com/surepatch/surepatch/issues.",
        })
        .to_string()
    })
}

/// Runs a read-only operation synchronously (used for pure parsers that touch no files).
#[napi]
pub fn call_sync(op: String, payload: String) -> String {
    crate::api::install_panic_hook();
    crate::api::call(&op, &payload)
}
