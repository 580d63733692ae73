//! How a finished game's seat is named in what the routes answer and the
//! bot shares: a player by his name, a bot as the computer (in the
//! reader's language), a deleted player as a dash.

use tabula_store::Seat;

use crate::telegram::texts::Lang;

/// A seat's name in a shared message.
pub(super) fn seat_name(seat: &Seat, name: Option<&str>, lang: Lang) -> String {
    match seat {
        Seat::Player(_) => name.unwrap_or("?").to_string(),
        Seat::Bot(_) => lang.computer().to_string(),
        Seat::Deleted => "—".to_string(),
    }
}
