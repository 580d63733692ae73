//! Computer opponents for every Tabula game: Easy, Medium and Hard (in progress).
