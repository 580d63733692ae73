//! The store reaches a PostgreSQL that accepts TLS connections only, as a
//! managed database does: `sslmode=require` encrypts, `verify-full` with
//! `sslrootcert` checks the server's certificate, and neither a plain
//! connection nor an untrusted certificate gets through. A real server
//! (`PgServer`, its own data directory) with a certificate signed
//! by a test CA made with `openssl` (Debian's `openssl` package).

use std::path::{Path, PathBuf};
use std::process::Command;

use tabula_room::GameKind;
use tabula_store::testing::PgServer;
use tabula_store::{Backend, Ratings, Store, StoreConfig};

/// Runs `openssl` with `args` in `dir`.
fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl (Debian's openssl package) runs");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A test CA and, signed by it, a certificate for 127.0.0.1 with its key,
/// in `dir`: (the CA's certificate, the server's, the server's key).
fn certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=tabula test CA",
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
        ],
    );
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
        ],
    );
    std::fs::write(
        dir.join("server.ext"),
        "basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "server.ext",
            "-out",
            "server.crt",
        ],
    );
    (
        dir.join("ca.crt"),
        dir.join("server.crt"),
        dir.join("server.key"),
    )
}

async fn connect(url: String) -> Result<Store, String> {
    Store::connect_with(&StoreConfig {
        url,
        max_connections: 2,
        acquire_timeout_ms: 5_000,
        ..StoreConfig::default()
    })
    .await
    .map_err(|e| e.to_string())
}

#[tokio::test]
async fn a_postgresql_that_requires_tls_is_reached_over_tls_only() {
    let server = PgServer::start().unwrap_or_else(|e| panic!("{e}"));
    server
        .create_database("tls")
        .unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = certificates(dir.path());
    server
        .enable_tls(&cert, &key)
        .unwrap_or_else(|e| panic!("{e}"));
    let base = format!("postgres://postgres@127.0.0.1:{}/tls", server.port());

    // Encrypted, the certificate not checked (sslmode=require).
    let store = connect(format!("{base}?sslmode=require"))
        .await
        .expect("sslmode=require connects");
    assert_eq!(store.backend(), Backend::Postgres);
    assert_eq!(
        store.rating("tg:1", GameKind::LongNardy).await.unwrap(),
        None
    );
    drop(store);

    // Encrypted and the certificate checked against the given root.
    let store = connect(format!(
        "{base}?sslmode=verify-full&sslrootcert={}",
        ca.display()
    ))
    .await
    .expect("verify-full with the server's root connects");
    assert_eq!(
        store.rating("tg:1", GameKind::LongNardy).await.unwrap(),
        None
    );
    drop(store);

    // The server takes no plain connection, and a certificate no trusted
    // root signed (the test CA is not one of the built-in roots) is refused.
    let plain = connect(format!("{base}?sslmode=disable")).await;
    assert!(plain.is_err(), "a plain connection got through");
    let untrusted = connect(format!("{base}?sslmode=verify-full")).await;
    assert!(untrusted.is_err(), "a self-signed certificate was trusted");
}
