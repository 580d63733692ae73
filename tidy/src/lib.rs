//! Tests over the repository's own shape, run with the others
//! (`cargo test -p tabula-tidy`):
//!
//! * [`imports`]: no module of any crate imports, through others, a module
//!   that imports it (the file-level graph has no cycle), but for the
//!   cycles older crates still have, listed in `src/tests.rs`
//!   (`ALLOWED_CYCLES`) until issue 48 removes them;
//! * [`layers`]: the workspace's crates depend on each other exactly as
//!   ARCHITECTURE.md's layer table says, every dependency pointing down.

pub mod imports;
pub mod layers;
mod lex;

#[cfg(test)]
mod tests;
