//! A TCP forwarder for the failover tests: what a managed Redis's primary
//! endpoint (a DNS name or a virtual address moved at failover) is to a
//! node, and a replication link that can be cut without either side
//! noticing at once (a network fault, not a closed socket).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Forwards every connection made to `port` to 127.0.0.1:`target`.
/// Stops (and closes what it forwards) on drop.
#[derive(Debug)]
pub struct Proxy {
    /// The port clients connect to.
    pub port: u16,
    target: Arc<AtomicU16>,
    /// While set, bytes read in either direction are dropped, not
    /// forwarded (the sockets stay open).
    hole: Arc<AtomicBool>,
    conns: Arc<Mutex<Vec<TcpStream>>>,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    /// A proxy on a free port to `target`.
    pub fn start(target: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let p = Proxy {
            port,
            target: Arc::new(AtomicU16::new(target)),
            hole: Arc::new(AtomicBool::new(false)),
            conns: Arc::new(Mutex::new(Vec::new())),
            stop: Arc::new(AtomicBool::new(false)),
        };
        let (target, hole, conns, stop) = (
            p.target.clone(),
            p.hole.clone(),
            p.conns.clone(),
            p.stop.clone(),
        );
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                let client = match listener.accept() {
                    Ok((c, _)) => c,
                    Err(_) => {
                        std::thread::sleep(Duration::from_millis(2));
                        continue;
                    }
                };
                let _ = client.set_nonblocking(false);
                let _ = client.set_nodelay(true);
                let Ok(server) = TcpStream::connect(("127.0.0.1", target.load(Ordering::SeqCst)))
                else {
                    continue; // dropped: the client sees its connection refused
                };
                let _ = server.set_nodelay(true);
                let (Ok(c2), Ok(s2)) = (client.try_clone(), server.try_clone()) else {
                    continue;
                };
                {
                    let mut held = conns.lock().unwrap();
                    if let (Ok(a), Ok(b)) = (client.try_clone(), server.try_clone()) {
                        held.push(a);
                        held.push(b);
                    }
                }
                pump(client, s2, hole.clone());
                pump(server, c2, hole.clone());
            }
        });
        p
    }

    /// Sends new connections to `target` and closes every open one (their
    /// clients reconnect, as to a moved endpoint).
    pub fn switch(&self, target: u16) {
        self.target.store(target, Ordering::SeqCst);
        self.close_all();
    }

    /// Drops (`true`) or forwards (`false`) what passes from now on.
    pub fn hole(&self, on: bool) {
        self.hole.store(on, Ordering::SeqCst);
    }

    fn close_all(&self) {
        for c in self.conns.lock().unwrap().drain(..) {
            let _ = c.shutdown(Shutdown::Both);
        }
    }
}

/// Copies `from` to `to` on a thread of its own until either side ends.
fn pump(mut from: TcpStream, mut to: TcpStream, hole: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if hole.load(Ordering::SeqCst) {
                continue;
            }
            if to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    });
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.close_all();
    }
}
