fn main() {
    // `cfg(grammar)`: at least one tree-sitter grammar is compiled in (any `syntax-*` feature), so the
    // syntax gate's parsing code is built; without one it reports every file as an unknown language.
    println!("cargo::rustc-check-cfg=cfg(grammar)");
    if std::env::vars().any(|(k, _)| k.starts_with("CARGO_FEATURE_SYNTAX_")) {
        println!("cargo::rustc-cfg=grammar");
    }
    #[cfg(feature = "node")]
    napi_build::setup();
}
