//! Players' profiles, behind [`Profiles`].
//!
//! A profile is what others see of a player. It has two parts, written
//! separately so neither overwrites the other: what his latest login said
//! ([`ProfileUpdate`]: a Telegram login's names, username, photo and
//! language, or a guest's generated name), refreshed at each login, and
//! the name he chose ([`Profiles::set_chosen_name`]), which wins over the
//! login's when shown ([`Profile::name`]).
//!
//! [`Profiles::delete_player`] is the player's "delete my data": his
//! profile, his side of every game, his ratings and his statistics are
//! deleted, not hidden.

use crate::{StoreError, StoreFuture};

/// The longest player id the store accepts, in bytes.
pub const MAX_ID_BYTES: usize = 128;

/// The longest text field (a name, a URL) the store accepts, in bytes.
pub const MAX_TEXT_BYTES: usize = 2048;

/// Players' profiles.
pub trait Profiles: Send + Sync + std::fmt::Debug + 'static {
    /// Writes what a login says about `update.player`, creating his
    /// profile or refreshing it (every login field is replaced, `None`
    /// included; the chosen name is kept), and returns the stored profile.
    fn upsert_profile<'a>(&'a self, update: &'a ProfileUpdate) -> StoreFuture<'a, Profile>;

    /// Sets (or, with `None`, clears) the name `player` chose. Returns
    /// whether he has a profile (without one nothing is written).
    fn set_chosen_name<'a>(
        &'a self,
        player: &'a str,
        name: Option<&'a str>,
    ) -> StoreFuture<'a, bool>;

    /// `player`'s profile, if he has one.
    fn profile<'a>(&'a self, player: &'a str) -> StoreFuture<'a, Option<Profile>>;

    /// Deletes everything stored about `player`, in one transaction: his
    /// profile, his ratings and their history, his statistics, his
    /// tournament results, and his
    /// side of every game (the game leaves his history; an opponent keeps
    /// it, with this seat shown as [`Seat::Deleted`](crate::Seat::Deleted);
    /// a game left with no player in it is deleted whole, its cached
    /// analysis with it). Deleting a player with nothing stored is not an
    /// error.
    fn delete_player<'a>(&'a self, player: &'a str) -> StoreFuture<'a, Deleted>;
}

/// What one login says about a player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileUpdate {
    /// The player's id as the server names him (`tg:123`, `guest:abc`).
    pub player: String,
    /// The name his login gives (Telegram's first and last name, or a
    /// guest's generated name).
    pub display_name: String,
    /// His Telegram username, without `@`.
    pub username: Option<String>,
    /// His photo's URL.
    pub photo_url: Option<String>,
    /// His language (an IETF tag, as Telegram sends it).
    pub language: Option<String>,
}

/// A stored profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The player's id.
    pub player: String,
    /// The name his latest login gave.
    pub display_name: String,
    /// The name he chose, if any.
    pub chosen_name: Option<String>,
    /// His username.
    pub username: Option<String>,
    /// His photo's URL.
    pub photo_url: Option<String>,
    /// His language.
    pub language: Option<String>,
    /// When the profile was first written (ms since the epoch).
    pub created_ms: u64,
    /// When it was last written.
    pub updated_ms: u64,
}

impl Profile {
    /// The name to show: the chosen one, else the login's.
    pub fn name(&self) -> &str {
        self.chosen_name.as_deref().unwrap_or(&self.display_name)
    }
}

/// What [`Profiles::delete_player`] deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Deleted {
    /// Whether there was a profile.
    pub profile: bool,
    /// Games taken out of his history.
    pub games: u64,
    /// Of those, games deleted whole (no player left in them).
    pub games_deleted: u64,
    /// Ratings deleted (one per game kind he was rated in).
    pub ratings: u64,
    /// Whether there were statistics.
    pub stats: bool,
    /// Tournament results deleted (one per finished tournament).
    pub tournaments: u64,
}

/// Checks a player id.
pub(crate) fn check_id(player: &str) -> Result<(), StoreError> {
    if player.is_empty() || player.len() > MAX_ID_BYTES {
        return Err(StoreError::Invalid(format!(
            "a player id must have 1 to {MAX_ID_BYTES} bytes"
        )));
    }
    Ok(())
}

/// Checks a text field.
pub(crate) fn check_text(what: &str, text: &str) -> Result<(), StoreError> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(StoreError::Invalid(format!(
            "{what} is over {MAX_TEXT_BYTES} bytes"
        )));
    }
    Ok(())
}

impl ProfileUpdate {
    /// Checks the fields' sizes (the store does not judge their content).
    pub(crate) fn check(&self) -> Result<(), StoreError> {
        check_id(&self.player)?;
        if self.display_name.is_empty() {
            return Err(StoreError::Invalid("the display name is empty".into()));
        }
        check_text("the display name", &self.display_name)?;
        for (what, text) in [
            ("the username", &self.username),
            ("the photo URL", &self.photo_url),
            ("the language", &self.language),
        ] {
            if let Some(text) = text {
                check_text(what, text)?;
            }
        }
        Ok(())
    }
}
