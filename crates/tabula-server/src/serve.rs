//! What a node's binary does, as a library function: load the settings
//! from `TABULA_CONFIG_DIR` (default `config/`) and `TABULA_ENV`, start
//! tracing as `log.filter` / `log.format` (or `RUST_LOG`) say, bind
//! `server.listen`, and serve until SIGTERM or ctrl-c, then drain.
//!
//! Two binaries call [`main`] and nothing else: `tabula-server` (the one
//! deployed) and the system tests' `tabula-node` (`tests/`), which exists
//! only because cargo gives a test the path of its own package's binaries
//! alone. Both are this function, so the tests run the node as shipped.

use std::net::SocketAddr;
use std::path::PathBuf;

use tracing_subscriber::EnvFilter;

use crate::settings::SettingsError;
use crate::{RunError, Settings};

/// Why [`main`] stopped. Each variant's message names the step, its
/// source says why (a binary's `anyhow` report prints both, as
/// `Caused by:`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// `config/` or the `TABULA__…` variables could not be read, or hold
    /// an invalid value.
    #[error("loading settings")]
    Settings(#[from] SettingsError),
    /// Neither `RUST_LOG` nor `log.filter` is a valid tracing filter.
    #[error("log.filter")]
    LogFilter(#[from] tracing_subscriber::filter::ParseError),
    /// `server.listen` is not an address.
    #[error(transparent)]
    Listen(SettingsError),
    /// The listen address could not be bound.
    #[error("binding {addr}")]
    Bind {
        /// `server.listen`.
        addr: SocketAddr,
        /// The socket error.
        source: std::io::Error,
    },
    /// The node stopped abnormally.
    #[error("server")]
    Run(#[from] RunError),
}

/// Runs one node as its binary does (see the module's documentation);
/// returns once it has drained after SIGTERM or ctrl-c.
pub fn main() -> Result<(), ServeError> {
    let dir = std::env::var_os("TABULA_CONFIG_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("config"));
    let env = std::env::var("TABULA_ENV").ok();
    let settings = Settings::load(&dir, env.as_deref())?;
    let filter = match EnvFilter::try_from_default_env() {
        Ok(f) => f,
        Err(_) => EnvFilter::try_new(&settings.log.filter)?,
    };
    if settings.log.format == "json" {
        tracing_subscriber::fmt()
            .json()
            .with_env_filter(filter)
            .init();
    } else {
        tracing_subscriber::fmt().with_env_filter(filter).init();
    }
    let addr = settings.listen_addr().map_err(ServeError::Listen)?;
    let listener =
        std::net::TcpListener::bind(addr).map_err(|source| ServeError::Bind { addr, source })?;
    tracing::info!(%addr, "listening");
    actix_rt::System::new().block_on(async move {
        crate::run(listener, settings, shutdown_signal()).await?;
        Ok(())
    })
}

/// SIGTERM (a pod stopped) or ctrl-c.
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
