//! `tabula-server`: one Tabula node. Reads `config/` (see
//! `config/default.toml`), then `TABULA__SECTION__KEY` variables.

use std::path::PathBuf;

use anyhow::Context as _;
use tabula_server::Settings;
use tracing_subscriber::EnvFilter;

/// mimalloc rather than glibc malloc: under load glibc's malloc, free and
/// heap consolidation took ~15 % of the node's CPU; with mimalloc a node core
/// answers more actions and an idle match takes less memory (the A/B runs
/// are in loadtest/RESULTS.md, *Stress* and *Memory*).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let dir = std::env::var_os("TABULA_CONFIG_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("config"));
    let env = std::env::var("TABULA_ENV").ok();
    let settings = Settings::load(&dir, env.as_deref()).context("loading settings")?;
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(&settings.log.filter))
        .context("log.filter")?;
    if settings.log.format == "json" {
        tracing_subscriber::fmt()
            .json()
            .with_env_filter(filter)
            .init();
    } else {
        tracing_subscriber::fmt().with_env_filter(filter).init();
    }
    let addr = settings.listen_addr()?;
    let listener = std::net::TcpListener::bind(addr).with_context(|| format!("binding {addr}"))?;
    tracing::info!(%addr, "listening");
    actix_rt::System::new().block_on(async move {
        tabula_server::run(listener, settings, shutdown_signal())
            .await
            .context("server")
    })
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("shutdown signal");
}
