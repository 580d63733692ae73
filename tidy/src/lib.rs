//! Tests over the repository's own shape, run with the others
//! (`cargo test -p tabula-tidy`):
//!
//! * [`imports`]: no module of any crate imports, through others, a module
//!   that imports it: the file-level graph of every crate has no cycle;
//! * [`layers`]: the workspace's crates depend on each other exactly as
//!   ARCHITECTURE.md's layer table says, every dependency pointing down.

pub mod imports;
pub mod layers;
mod lex;

#[cfg(test)]
mod tests;
