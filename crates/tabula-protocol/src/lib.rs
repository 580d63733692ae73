//! Tabula's wire protocol: the JSON messages between clients and nodes (in progress).
