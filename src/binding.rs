//! The napi binding: JSON in, JSON out, on the libuv thread pool.
