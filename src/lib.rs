pub fn hello() -> u32 { 1 }
#[cfg(test)]
mod t { #[test] fn a() { assert_eq!(super::hello(), 1); } }
#[cfg(feature = "node")]
mod binding {
    use napi_derive::napi;
    #[napi]
    pub fn ping() -> u32 { 2 }
}
