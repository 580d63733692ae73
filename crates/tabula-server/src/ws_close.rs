//! A socket the node closes lets go of its connection within
//! [`CLOSE_GRACE`] of its close frame, whatever the client does.
//!
//! actix-ws ends the response body right after the close frame, and
//! actix-http then waits for the peer before it drops the connection: a
//! client that never answers the close (and never reads) kept its TCP
//! connection and descriptor for good (issue 45: 256 such sockets held
//! 431 descriptors 75 s later). So the body is wrapped ([`guard`]): after
//! the close frame it ends only once the session says how the closing
//! handshake went ([`Verdict`]): answered (or the peer gone) — the body
//! ends and actix closes as before, at once; not answered within the
//! grace — the body fails, and actix drops the connection there and then,
//! as browsers and proxies do.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::HttpResponse;
use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::web::Bytes;
use tokio::sync::oneshot;

/// How long a closed socket waits for the client's close frame.
pub const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// How long actix waits for the peer's FIN once a response that closes
/// its connection is done (`client_disconnect_timeout`). A WebSocket
/// client, as RFC 6455 asks, waits for the server to close the TCP
/// connection after the closing handshake; actix's default of one second
/// made every close (the 1012 of a drain included) reach the client ~1 s
/// late.
pub const LINGER: Duration = Duration::from_millis(50);

/// When the connection of a closed socket is woken after its body ends
/// ([`nudge`]).
const NUDGES: [Duration; 3] = [
    Duration::from_millis(60),
    Duration::from_millis(250),
    Duration::from_millis(1000),
];

/// Wakes the connection's task after its linger is over.
///
/// actix-http (3.19) arms the linger timer from its date service's clock,
/// which is refreshed every 500 ms: an arming up to 500 ms stale (or later
/// still on a loaded node) sets a deadline already past, and the timer,
/// ready at its first poll, never registers a wake-up. Nothing else wakes
/// the connection (its client is waiting for the server to close), so it
/// stayed open until the client gave up or the server stopped: under load
/// a drain's 1012 reached its client a second late. A past deadline is
/// seen at the next poll, so a few wakes after the linger end it.
fn nudge(waker: std::task::Waker) {
    actix_rt::spawn(async move {
        let start = tokio::time::Instant::now();
        for at in NUDGES {
            tokio::time::sleep_until(start + at).await;
            waker.wake_by_ref();
        }
    });
}

/// How the closing handshake went, from the session to the body.
#[derive(Debug)]
pub struct Verdict(oneshot::Sender<bool>);

impl Verdict {
    /// The client answered the close, or its connection is gone: end the
    /// response normally.
    pub fn answered(self) {
        let _ = self.0.send(true);
    }

    /// No answer within the grace: drop the connection.
    pub fn unanswered(self) {
        let _ = self.0.send(false);
    }
}

/// The socket's response with its body guarded, and the verdict its
/// session gives when it closes.
pub fn guard(resp: HttpResponse) -> (HttpResponse, Verdict) {
    let (tx, rx) = oneshot::channel();
    let resp = resp
        .map_body(|_, inner| Closing {
            inner,
            verdict: Some(rx),
        })
        .map_into_boxed_body();
    (resp, Verdict(tx))
}

/// The body: the socket's frames, then the verdict.
struct Closing {
    inner: BoxBody,
    verdict: Option<oneshot::Receiver<bool>>,
}

/// The body's refusal to end cleanly: actix drops the connection.
#[derive(Debug)]
struct Unanswered;

impl std::fmt::Display for Unanswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the client did not answer the close frame")
    }
}

impl std::error::Error for Unanswered {}

impl MessageBody for Closing {
    type Error = Box<dyn std::error::Error>;

    fn size(&self) -> BodySize {
        self.inner.size()
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_next(cx) {
            Poll::Ready(None) => {}
            other => return other,
        }
        let Some(rx) = this.verdict.as_mut() else {
            return Poll::Ready(None);
        };
        match Pin::new(rx).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(r) => {
                this.verdict = None;
                match r {
                    // A dropped verdict: the session is gone without one
                    // (it cannot wait any more); end as actix would.
                    Ok(true) | Err(_) => {
                        nudge(cx.waker().clone());
                        Poll::Ready(None)
                    }
                    Ok(false) => Poll::Ready(Some(Err(Box::new(Unanswered)))),
                }
            }
        }
    }
}
