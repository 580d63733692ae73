//! A bounded frame guard in front of `actix-ws`: an oversized WebSocket
//! frame is refused at its header, before any of its payload is read.
//!
//! Why: `actix-ws` 0.4's `MessageStream` reads whatever the socket has into
//! its buffer and decodes with actix-http's `ws::Codec`, whose parser checks
//! `max_size` only once the *whole* frame is buffered (it even reserves the
//! declared length, up to the limit, and the buffer grows past it as
//! chunks are appended). One 64 MiB frame from an unauthenticated guest
//! raised a node's RSS by ~100 MB before the 1009 close (issue 21).
//!
//! Why this route — a guard in front, not a fork of `actix-ws` or our own
//! decoder: the guard is the only part we own, it is small and pure (it
//! reads frame headers as the bytes pass and copies nothing), and
//! everything else stays upstream's: the handshake, the codec, the
//! continuation aggregation and the connection-closed signal `actix_ws::
//! handle` wires between the response body and the message stream (which a
//! decoder of our own would lose). Sessions keep getting the same
//! `AggregatedMessageStream`. A fork would have to be kept in step with
//! every upstream release; an upstream fix (checking the declared length at
//! the header in actix-http's `Parser::parse`) is the right long-term fix
//! and makes this guard redundant, not wrong.
//!
//! What it bounds: [`FrameGuard`] wraps the request's payload and follows
//! the frame structure of the bytes it passes on (RFC 6455 §5.2: two bytes,
//! a 16- or 64-bit extended length, the 4-byte mask). When a header
//! declares a data frame — or a fragmented message so far — longer than
//! `max_frame_bytes`, or a control frame longer than 125 bytes, it passes
//! on nothing more and ends the stream with an error; the socket's payload
//! is then never pulled again, so actix-http stops reading the connection
//! (its payload buffer pauses at 32 KiB) and the session closes it. What
//! `MessageStream` buffers is therefore at most one frame the guard let
//! through (≤ `max_frame_bytes` + 14 header bytes) plus what one poll
//! takes from actix-http's payload buffer (≤ ~40 KiB).
//!
//! The refusal reaches the session as a `ProtocolError` whose source is
//! `PayloadError::Overflow`; [`refusal`] turns any `ProtocolError` into the
//! close the session sends: a frame too large gets the `frame_too_large`
//! error and close 1009 (docs/protocol.md), anything else close 1002.

use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::dev;
use actix_web::error::PayloadError;
use actix_web::web::Bytes;
use actix_ws::{CloseCode, CloseReason, ProtocolError};
use futures_util::Stream;
use tabula_protocol::{ErrorCode, ServerMsg};

/// The longest frame header (2 + 8 extended length + 4 mask).
pub const MAX_HEADER: usize = 14;

/// The largest control frame payload (RFC 6455 §5.5).
const MAX_CONTROL: u64 = 125;

/// Why the guard ended a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// A data frame, or a fragmented message so far, declared `declared`
    /// payload bytes, over the limit.
    TooLarge {
        /// The declared payload length (of the message so far).
        declared: u64,
    },
    /// A control frame declared more than 125 bytes.
    ControlTooLong,
}

/// Follows frame headers in a byte stream (pure: no IO).
#[derive(Debug, Clone)]
pub struct Scanner {
    max: u64,
    /// The header being read (it may arrive split over chunks).
    header: [u8; MAX_HEADER],
    header_len: usize,
    /// Payload bytes of the current frame still to pass.
    remaining: u64,
    /// Payload bytes of the fragmented data message under way.
    message: u64,
}

impl Scanner {
    /// A scanner refusing data frames (and messages) over `max` bytes.
    pub fn new(max: usize) -> Scanner {
        Scanner {
            max: max as u64,
            header: [0; MAX_HEADER],
            header_len: 0,
            remaining: 0,
            message: 0,
        }
    }

    /// The header's full length once its first two bytes are known.
    fn header_needed(&self) -> Option<usize> {
        if self.header_len < 2 {
            return None;
        }
        let ext = match self.header[1] & 0x7F {
            126 => 2,
            127 => 8,
            _ => 0,
        };
        let mask = if self.header[1] & 0x80 != 0 { 4 } else { 0 };
        Some(2 + ext + mask)
    }

    /// The complete header's (fin, opcode, payload length).
    fn parsed(&self) -> (bool, u8, u64) {
        let h = &self.header;
        let fin = h[0] & 0x80 != 0;
        let opcode = h[0] & 0x0F;
        let len = match h[1] & 0x7F {
            126 => u64::from(u16::from_be_bytes([h[2], h[3]])),
            127 => u64::from_be_bytes([h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9]]),
            n => u64::from(n),
        };
        (fin, opcode, len)
    }

    /// A complete header: refused, or the frame's payload to pass.
    fn header_done(&mut self) -> Result<(), Refused> {
        let (fin, opcode, len) = self.parsed();
        self.header_len = 0;
        if opcode >= 8 {
            if len > MAX_CONTROL {
                return Err(Refused::ControlTooLong);
            }
        } else {
            // 0 continues a message; 1 (text), 2 (binary) and the reserved
            // data opcodes (the codec refuses those) start one.
            let total = if opcode == 0 {
                self.message.saturating_add(len)
            } else {
                len
            };
            if total > self.max {
                return Err(Refused::TooLarge { declared: total });
            }
            self.message = if fin { 0 } else { total };
        }
        self.remaining = len;
        Ok(())
    }

    /// Scans `chunk`: `Ok(())` when all of it may pass, or the offset of
    /// the refused frame's header in it (0 when that header began in an
    /// earlier chunk) and why.
    pub fn scan(&mut self, chunk: &[u8]) -> Result<(), (usize, Refused)> {
        let mut i = 0;
        let mut header_start = 0;
        while i < chunk.len() {
            if self.remaining > 0 {
                let take = usize::try_from(self.remaining)
                    .unwrap_or(usize::MAX)
                    .min(chunk.len() - i);
                i += take;
                self.remaining -= take as u64;
                continue;
            }
            if self.header_len == 0 {
                header_start = i;
            }
            self.header[self.header_len] = chunk[i];
            self.header_len += 1;
            i += 1;
            if self.header_needed() == Some(self.header_len) {
                self.header_done().map_err(|r| (header_start, r))?;
            }
        }
        Ok(())
    }
}

/// The request's payload behind a [`Scanner`]: the bytes pass unchanged
/// until a header is refused; then what came before that frame passes,
/// and the stream ends with `PayloadError::Overflow` (too large) or an
/// `InvalidData` IO error (a long control frame).
pub struct FrameGuard<S> {
    inner: S,
    scanner: Scanner,
    /// The refusal, once found: returned after the bytes before it and
    /// one `Pending` (so that `MessageStream` decodes those first).
    refused: Option<Refused>,
    /// The bytes before the refused frame were passed: pause once.
    pause: bool,
    /// The refusal was returned: the stream is over.
    done: bool,
}

impl<S> std::fmt::Debug for FrameGuard<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameGuard")
            .field("scanner", &self.scanner)
            .field("refused", &self.refused)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl<S> FrameGuard<S> {
    /// Guards `inner` with a limit of `max_frame_bytes`.
    pub fn new(inner: S, max_frame_bytes: usize) -> FrameGuard<S> {
        FrameGuard {
            inner,
            scanner: Scanner::new(max_frame_bytes),
            refused: None,
            pause: false,
            done: false,
        }
    }
}

fn refused_error(r: Refused) -> PayloadError {
    match r {
        Refused::TooLarge { .. } => PayloadError::Overflow,
        Refused::ControlTooLong => PayloadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "a control frame over 125 bytes",
        )),
    }
}

impl<S> Stream for FrameGuard<S>
where
    S: Stream<Item = Result<Bytes, PayloadError>> + Unpin,
{
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        if this.pause {
            this.pause = false;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        if let Some(r) = this.refused {
            this.done = true;
            return Poll::Ready(Some(Err(refused_error(r))));
        }
        match Pin::new(&mut this.inner).poll_next(cx) {
            Poll::Ready(Some(Ok(chunk))) => match this.scanner.scan(&chunk) {
                Ok(()) => Poll::Ready(Some(Ok(chunk))),
                Err((0, r)) => {
                    this.done = true;
                    Poll::Ready(Some(Err(refused_error(r))))
                }
                Err((at, r)) => {
                    // The frames before the refused one are decoded and
                    // handled first: `MessageStream` pulls until `Pending`,
                    // so a `Pending` (woken at once) comes before the error.
                    this.refused = Some(r);
                    this.pause = true;
                    Poll::Ready(Some(Ok(chunk.slice(..at))))
                }
            },
            other => other,
        }
    }
}

/// The request's payload, guarded: what `actix_ws::handle` is given.
pub fn guard(payload: dev::Payload, max_frame_bytes: usize) -> dev::Payload {
    dev::Payload::Stream {
        payload: Box::pin(FrameGuard::new(payload, max_frame_bytes)),
    }
}

/// Whether a stream error is a frame (or message) over the limit.
pub fn too_large(e: &ProtocolError) -> bool {
    match e {
        ProtocolError::Overflow => true,
        ProtocolError::Io(io) => io
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<PayloadError>())
            .is_some_and(|p| matches!(p, PayloadError::Overflow)),
        _ => false,
    }
}

/// What a session sends on a stream error before it closes: a frame over
/// `max_frame_bytes` gets `frame_too_large` and close 1009 (Message Too
/// Big); any other protocol error close 1002.
pub fn refusal(e: &ProtocolError, max_frame_bytes: usize) -> (CloseReason, Option<ServerMsg>) {
    if too_large(e) {
        let msg = ServerMsg::error(
            ErrorCode::FrameTooLarge,
            format!("a frame over the limit of {max_frame_bytes} bytes; closing"),
            None,
        );
        let reason = CloseReason {
            code: CloseCode::Size,
            description: Some("frame too large".into()),
        };
        (reason, Some(msg))
    } else {
        let reason = CloseReason {
            code: CloseCode::Protocol,
            description: Some(e.to_string()),
        };
        (reason, None)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use actix_web::test::TestRequest;
    use actix_web::{FromRequest, web};
    use actix_ws::AggregatedMessage;

    use super::*;

    /// A client frame (masked with the zero key, so the payload is as is).
    fn frame(fin: bool, opcode: u8, payload: &[u8]) -> Vec<u8> {
        header(fin, opcode, payload.len() as u64)
            .into_iter()
            .chain(payload.iter().copied())
            .collect()
    }

    fn header(fin: bool, opcode: u8, len: u64) -> Vec<u8> {
        let mut h = vec![if fin { 0x80 } else { 0 } | opcode];
        if len < 126 {
            h.push(0x80 | len as u8);
        } else if len <= u64::from(u16::MAX) {
            h.push(0x80 | 126);
            h.extend_from_slice(&(len as u16).to_be_bytes());
        } else {
            h.push(0x80 | 127);
            h.extend_from_slice(&len.to_be_bytes());
        }
        h.extend_from_slice(&[0, 0, 0, 0]);
        h
    }

    /// A payload of the given chunks, then (if `endless`) zeros forever;
    /// counts the bytes pulled from it.
    struct Source {
        chunks: VecDeque<Bytes>,
        endless: bool,
        pulled: std::rc::Rc<std::cell::Cell<usize>>,
    }

    impl Stream for Source {
        type Item = Result<Bytes, PayloadError>;
        fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
            let this = self.get_mut();
            let chunk = match this.chunks.pop_front() {
                Some(c) => c,
                None if this.endless => Bytes::from(vec![0u8; 64 * 1024]),
                None => return Poll::Ready(None),
            };
            this.pulled.set(this.pulled.get() + chunk.len());
            Poll::Ready(Some(Ok(chunk)))
        }
    }

    fn source(
        chunks: Vec<Vec<u8>>,
        endless: bool,
    ) -> (Source, std::rc::Rc<std::cell::Cell<usize>>) {
        let pulled = std::rc::Rc::new(std::cell::Cell::new(0));
        let s = Source {
            chunks: chunks.into_iter().map(Bytes::from).collect(),
            endless,
            pulled: pulled.clone(),
        };
        (s, pulled)
    }

    #[test]
    fn frames_within_the_limit_pass_unchanged_however_they_are_split() {
        let mut bytes = frame(true, 1, b"{\"type\":\"ping\"}");
        bytes.extend(frame(true, 9, b"p"));
        bytes.extend(frame(true, 2, &vec![7u8; 300]));
        bytes.extend(frame(true, 1, &vec![b'x'; 70_000]));
        bytes.extend(frame(false, 1, &vec![b'a'; 500]));
        bytes.extend(frame(true, 10, b""));
        bytes.extend(frame(true, 0, &vec![b'b'; 500]));
        for split in [1, 2, 3, 7, 13, 4096, bytes.len()] {
            let mut s = Scanner::new(70_000);
            for chunk in bytes.chunks(split) {
                assert_eq!(s.scan(chunk), Ok(()), "split {split}");
            }
            assert_eq!((s.remaining, s.header_len, s.message), (0, 0, 0));
        }
    }

    #[test]
    fn an_oversized_header_is_refused_before_its_payload() {
        let limit = 1024;
        let mut ok = frame(true, 1, b"hello");
        let at = ok.len();
        ok.extend(header(true, 1, 256 << 20));
        // Split inside the bad header: refused when it completes, at 0.
        let mut s = Scanner::new(limit);
        assert_eq!(s.scan(&ok[..at + 3]), Ok(()));
        assert_eq!(
            s.scan(&ok[at + 3..]),
            Err((
                0,
                Refused::TooLarge {
                    declared: 256 << 20
                }
            ))
        );
        // In one chunk: refused at its offset.
        let mut s = Scanner::new(limit);
        assert_eq!(
            s.scan(&ok),
            Err((
                at,
                Refused::TooLarge {
                    declared: 256 << 20
                }
            ))
        );
        // Exactly the limit passes, one more does not; 2^63 and beyond too.
        let mut s = Scanner::new(limit);
        assert_eq!(s.scan(&frame(true, 2, &vec![0; limit])), Ok(()));
        assert!(s.scan(&header(true, 2, limit as u64 + 1)).is_err());
        let mut s = Scanner::new(limit);
        assert!(s.scan(&header(true, 1, u64::MAX)).is_err());
    }

    #[test]
    fn a_fragmented_message_is_bounded_as_a_whole_and_control_frames_at_125() {
        let mut s = Scanner::new(1000);
        assert_eq!(s.scan(&frame(false, 1, &[b'a'; 600])), Ok(()));
        // A ping in between does not count.
        assert_eq!(s.scan(&frame(true, 9, &[0; 125])), Ok(()));
        assert_eq!(
            s.scan(&header(false, 0, 401)),
            Err((0, Refused::TooLarge { declared: 1001 }))
        );
        let mut s = Scanner::new(1000);
        assert_eq!(
            s.scan(&header(true, 9, 126)),
            Err((0, Refused::ControlTooLong))
        );
        // A finished message resets the count.
        let mut s = Scanner::new(1000);
        assert_eq!(s.scan(&frame(false, 2, &[0; 600])), Ok(()));
        assert_eq!(s.scan(&frame(true, 0, &[0; 400])), Ok(()));
        assert_eq!(s.scan(&frame(true, 2, &[0; 1000])), Ok(()));
    }

    /// What a guarded `actix_ws` stream yields: the messages, then the
    /// error or the end; and the bytes pulled from the socket.
    async fn through_actix_ws(
        chunks: Vec<Vec<u8>>,
        endless: bool,
        max: usize,
    ) -> (Vec<AggregatedMessage>, Option<ProtocolError>, usize) {
        let req = TestRequest::get()
            .insert_header(("upgrade", "websocket"))
            .insert_header(("connection", "upgrade"))
            .insert_header(("sec-websocket-version", "13"))
            .insert_header(("sec-websocket-key", "x3JJHMbDL1EzLkh9GBhXDw=="))
            .to_http_request();
        let (src, pulled) = source(chunks, endless);
        let mut payload = guard(
            dev::Payload::Stream {
                payload: Box::pin(src),
            },
            max,
        );
        let body = web::Payload::from_request(&req, &mut payload)
            .await
            .unwrap_or_else(|_| unreachable!("a payload is always extracted"));
        let (_resp, _session, stream) = actix_ws::handle(&req, body).expect("handshake");
        let mut stream = stream
            .max_frame_size(max)
            .aggregate_continuations()
            .max_continuation_size(max);
        let mut got = Vec::new();
        loop {
            match stream.recv().await {
                Some(Ok(m)) => got.push(m),
                Some(Err(e)) => return (got, Some(e), pulled.get()),
                None => return (got, None, pulled.get()),
            }
        }
    }

    #[actix_rt::test]
    async fn a_256_mib_frame_is_refused_after_its_header_and_earlier_messages_still_arrive() {
        let max = 1 << 20;
        let mut first = frame(true, 1, b"{\"type\":\"ping\"}");
        first.extend(header(true, 1, 256 << 20));
        first.extend(vec![b'x'; 1000]);
        let (got, err, pulled) = through_actix_ws(vec![first], true, max).await;
        assert_eq!(
            got,
            vec![AggregatedMessage::Text("{\"type\":\"ping\"}".into())]
        );
        let err = err.expect("refused");
        assert!(too_large(&err), "{err:?}");
        // Nothing but the first chunk was read from the endless payload.
        assert!(pulled < 2000, "pulled {pulled} bytes");
        let (reason, msg) = refusal(&err, max);
        assert_eq!(reason.code, CloseCode::Size);
        let msg = msg.expect("an error before the close").to_json();
        assert!(msg.contains("frame_too_large"), "{msg}");
    }

    #[actix_rt::test]
    async fn a_message_at_the_limit_passes_and_fragments_over_it_are_refused() {
        let max = 4096;
        let text = vec![b'y'; max];
        let (got, err, _) =
            through_actix_ws(vec![frame(true, 1, &text), frame(true, 8, b"")], false, max).await;
        assert!(err.is_none(), "{err:?}");
        assert_eq!(got.len(), 2);
        assert!(matches!(&got[0], AggregatedMessage::Text(t) if t.len() == max));
        assert!(matches!(got[1], AggregatedMessage::Close(None)));

        let chunks = vec![frame(false, 1, &[b'a'; 3000]), header(false, 0, 2000)];
        let (got, err, pulled) = through_actix_ws(chunks, true, max).await;
        assert!(got.is_empty());
        assert!(too_large(&err.expect("refused")));
        assert!(pulled < 3100, "pulled {pulled}");

        // A long ping is a protocol error (1002), not "too large".
        let (_, err, _) = through_actix_ws(vec![header(true, 9, 500)], true, max).await;
        let err = err.expect("refused");
        assert!(!too_large(&err));
        assert_eq!(refusal(&err, max).0.code, CloseCode::Protocol);
    }
}
