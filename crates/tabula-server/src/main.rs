//! `tabula-server`: one Tabula node. Reads `config/` (see
//! `config/default.toml`), then `TABULA__SECTION__KEY` variables; all of
//! it is [`tabula_server::serve::main`].

/// mimalloc rather than glibc malloc: under load glibc's malloc, free and
/// heap consolidation took ~15 % of the node's CPU; with mimalloc a node core
/// answers more actions and an idle match takes less memory (the A/B runs
/// are in loadtest/RESULTS.md, *Stress* and *Memory*).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    tabula_server::serve::main()?;
    Ok(())
}
