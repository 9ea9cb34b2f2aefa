//! `memspec fuzz` and `check --clients`: the deliberately broken key-value backends of
//! `tests/backends/kv/` found and shrunk, a correct one left alone.
