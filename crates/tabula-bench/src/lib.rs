//! Benchmarks for Tabula's rules engines live in `benches/`; this library is
//! intentionally empty. Run them with `cargo bench -p tabula-bench`.
