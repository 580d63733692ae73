//! Room core (in progress).
