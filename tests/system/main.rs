//! The system tests, one binary: node processes, Redis, the chart's drain,
//! the real binary, routing faults. Support: the `tabula-tests` library.
