//! `tabula-node`: the server's `main` for the system tests. Cargo tells a
//! test the path of its own package's binaries only, so `tabula-tests`
//! carries this one; it is `tabula-server`'s `main.rs` line for line — the
//! allocator and [`tabula_server::serve::main`] — so the tests run the node
//! as deployed, identical by construction. (Not named `tabula-server`: two
//! binaries of one name in a workspace would overwrite each other's file.)

/// As `tabula-server`'s: mimalloc rather than glibc malloc (see its
/// `main.rs` and loadtest/RESULTS.md, *Stress* and *Memory*).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    tabula_server::serve::main()?;
    Ok(())
}
