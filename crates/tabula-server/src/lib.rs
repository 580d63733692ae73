//! The Tabula node: actix-web, WebSocket sessions, room actors (in progress).
