//! The backplane: room directory, ownership, snapshots and routing behind one trait (in progress).
