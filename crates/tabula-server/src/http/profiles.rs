//! Players' profiles: what others see of a player — his name, never his
//! id — refreshed at each Telegram login, chosen with `POST /api/me/name`,
//! read with `GET /api/players/{id}/profile` and `GET /api/profiles`.
//!
//! The name shown is the first of: the name the player chose, his
//! Telegram name (first and last, from his latest signed `initData`), his
//! Telegram username, the name [`tabula_auth::generated_name`] derives
//! from his id. A guest therefore has a name before anything is stored,
//! and every node gives him the same one.
//!
//! Kept in the backplane ([`tabula_backplane::Archive::profile`]): a
//! guest's profile for `auth.guest_session_ttl_secs` after his latest
//! login or rename (as long as his token), a Telegram player's for
//! [`TELEGRAM_PROFILE_KEEP`] after his latest login.

use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use tabula_auth::{NameError, TelegramProfile, check_name, generated_name};
use tabula_backplane::{Backplane, BackplaneError, ProfilePart, StoredProfile};
use tabula_protocol::ErrorCode;
use tabula_protocol::http::{
    AuthQuery, PlayerProfile, Profiles, ProfilesQuery, PublicProfile, SetName,
};
use tabula_room::PlayerId;

use super::{ApiError, login};
use crate::AppState;
use crate::settings::AuthSettings;

/// How long a Telegram player's profile is kept after his latest login.
pub const TELEGRAM_PROFILE_KEEP: Duration = Duration::from_secs(365 * 86_400);

/// The most ids one `GET /api/profiles` reads.
pub const MAX_PROFILE_IDS: usize = 50;

/// How long `player`'s profile is kept after a login or a rename.
pub fn keep(auth: &AuthSettings, player: &PlayerId) -> Duration {
    if player.0.starts_with("guest:") {
        Duration::from_secs(auth.guest_session_ttl_secs.max(1))
    } else {
        TELEGRAM_PROFILE_KEEP
    }
}

/// The public profile of `id` from what is stored for him.
pub fn public(id: &str, stored: &StoredProfile) -> PlayerProfile {
    let tg: TelegramProfile = stored
        .telegram
        .as_deref()
        .and_then(|j| serde_json::from_str(j).ok())
        .unwrap_or_default();
    // Written checked; checked again, so a stored name can never be worse.
    let chosen = stored.name.as_deref().and_then(|n| check_name(n).ok());
    let name = chosen
        .or_else(|| tg.name.clone())
        .or_else(|| tg.username.clone())
        .unwrap_or_else(|| generated_name(id));
    PlayerProfile {
        id: id.to_string(),
        name,
        username: tg.username,
        photo_url: tg.photo_url,
    }
}

/// What a login does to the player's profile: with signed `initData`, its
/// Telegram part is written when it changed (else kept); any other
/// login keeps what is stored. Answers the profile as it now is (for
/// `welcome`); a store that cannot be reached costs the refresh, never the
/// login.
pub async fn on_login(
    bp: &dyn Backplane,
    keep: Duration,
    player: &PlayerId,
    telegram: Option<&TelegramProfile>,
) -> PlayerProfile {
    let mut stored = match bp.profile(&player.0).await {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(player = %player, error = %e, "profile not read");
            StoredProfile::default()
        }
    };
    let fresh = telegram.and_then(|t| serde_json::to_string(t).ok());
    let write = match &fresh {
        Some(json) if stored.telegram.as_deref() != Some(json.as_str()) => {
            stored.telegram = Some(json.clone());
            bp.set_profile(&player.0, ProfilePart::Telegram, fresh.clone(), keep)
                .await
        }
        _ if !stored.is_empty() => bp.keep_profile(&player.0, keep).await,
        _ => Ok(()),
    };
    if let Err(e) = write {
        tracing::warn!(player = %player, error = %e, "profile not refreshed");
    }
    public(&player.0, &stored)
}

/// Why a rename was refused.
#[derive(Debug)]
pub enum RenameError {
    /// The name is not one (nothing was written).
    Name(NameError),
    /// The store failed.
    Store(BackplaneError),
}

/// Sets (`Some`) or forgets (`None`) the name `player` chose; the profile
/// as it then is. A refused name changes nothing.
pub async fn rename(
    bp: &dyn Backplane,
    keep: Duration,
    player: &PlayerId,
    name: Option<&str>,
) -> Result<PlayerProfile, RenameError> {
    let name = name
        .map(check_name)
        .transpose()
        .map_err(RenameError::Name)?;
    bp.set_profile(&player.0, ProfilePart::Name, name, keep)
        .await
        .map_err(RenameError::Store)?;
    let stored = bp.profile(&player.0).await.map_err(RenameError::Store)?;
    Ok(public(&player.0, &stored))
}

/// Player ids as a request names them, checked (an id `tabula-auth`
/// would not issue is refused, so nothing odd reaches a store key).
fn checked_id(raw: &str) -> Result<String, ApiError> {
    let refuse = |why: String| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            format!("not a player id: {why}"),
        )
    };
    let id = tabula_auth::PlayerId::parse(raw).map_err(|e| refuse(e.to_string()))?;
    if id.is_guest() && !issued_guest(id.as_str()) {
        return Err(refuse(
            "a guest id is `guest:` and 32 lower-case hex digits, as the node mints it".into(),
        ));
    }
    Ok(id.into_string())
}

/// Whether a guest id has the form a node mints (`guest:<32 hex>`,
/// `crate::credentials`): the only guests there are.
fn issued_guest(id: &str) -> bool {
    id.strip_prefix("guest:").is_some_and(|h| {
        h.len() == 32
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

fn unavailable(e: &BackplaneError) -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Unavailable,
        e.to_string(),
    )
}

/// `GET /api/players/{id}/profile`: `{"id","name","username"?,"photoUrl"?,
/// "tournaments"?}` for any well-formed id (one with nothing stored has
/// its generated name); `tournaments` (his counts of tournaments finished
/// and won, his latest results) when the durable store answers.
pub async fn player_profile(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = checked_id(&id)?;
    let stored = match state.backplane.profile(&id).await {
        Ok(stored) => stored,
        Err(e) => return Err(unavailable(&e)),
    };
    Ok(HttpResponse::Ok().json(PublicProfile {
        profile: public(&id, &stored),
        tournaments: super::results::stored_results(&state, &id).await,
    }))
}

/// `GET /api/profiles?ids=a,b`: up to [`MAX_PROFILE_IDS`] profiles, in
/// the order asked.
pub async fn profiles(
    state: web::Data<AppState>,
    q: web::Query<ProfilesQuery>,
) -> Result<HttpResponse, ApiError> {
    let raw: Vec<&str> = q.ids.split(',').filter(|s| !s.is_empty()).collect();
    if raw.is_empty() || raw.len() > MAX_PROFILE_IDS {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadRequest,
            format!("ids: 1 to {MAX_PROFILE_IDS} player ids separated by commas"),
        ));
    }
    let mut ids = Vec::with_capacity(raw.len());
    for r in raw {
        ids.push(checked_id(r)?);
    }
    match state.backplane.profiles(&ids).await {
        Ok(stored) => Ok(HttpResponse::Ok().json(Profiles {
            profiles: ids
                .iter()
                .zip(&stored)
                .map(|(id, s)| public(id, s))
                .collect(),
        })),
        Err(e) => Err(unavailable(&e)),
    }
}

/// `POST /api/me/name` `{"name": "..."}` (or `null` to forget it),
/// authenticated as `/api/me/games` (but a token or `initData` is
/// required: 401 without): 200 with the profile, or 400 `bad_name` and
/// nothing changed. Charged to the room quotas (a write
/// on the player's behalf).
pub async fn set_name(
    req: HttpRequest,
    state: web::Data<AppState>,
    q: web::Query<AuthQuery>,
    body: web::Json<serde_json::Value>,
) -> Result<HttpResponse, ApiError> {
    // Without credentials a guest node would mint a guest for this request
    // alone: a write nobody could ever come back to.
    let creds = super::credentials(&req, &q);
    if creds.token.is_none() && creds.init_data.is_none() {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            "sign in first: a session token (as welcome gives it) or initData",
        ));
    }
    let l = login(&state, &req, &q)?;
    // An object only (serde would read a struct from an array too).
    let body = body.into_inner();
    let read = match body.is_object() {
        true => serde_json::from_value::<SetName>(body).map_err(|e| e.to_string()),
        false => Err("send an object: {\"name\": \"...\"}".to_string()),
    };
    let name = match read {
        Ok(SetName { name: Some(name) }) => name,
        Ok(SetName { name: None }) => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::BadRequest,
                "name is required: a string, or null to go back to the name you had",
            ));
        }
        Err(e) => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::BadRequest,
                e,
            ));
        }
    };
    // A bad name costs nothing; a good one is a write.
    if let Some(n) = &name
        && let Err(e) = check_name(n)
    {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadName,
            e.to_string(),
        ));
    }
    super::request::charge(&state, &req, Some(&l.player), "me_name")?;
    let keep = keep(&state.settings.auth, &l.player);
    // initData presented here refreshes the Telegram part first.
    if l.telegram.is_some() {
        on_login(&*state.backplane, keep, &l.player, l.telegram.as_ref()).await;
    }
    match rename(&*state.backplane, keep, &l.player, name.as_deref()).await {
        Ok(p) => {
            crate::archiver::chosen_name(
                &state,
                &l.player,
                l.telegram.as_ref(),
                l.language.clone(),
                name,
            );
            Ok(HttpResponse::Ok().json(p))
        }
        Err(RenameError::Name(e)) => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadName,
            e.to_string(),
        )),
        Err(RenameError::Store(e)) => Err(unavailable(&e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_backplane::{Archive, InProcess};

    fn tg(name: Option<&str>, username: Option<&str>) -> String {
        let p = TelegramProfile {
            name: name.map(str::to_string),
            username: username.map(str::to_string),
            photo_url: Some("https://t.me/i/userpic/320/a.svg".into()),
        };
        serde_json::to_string(&p).unwrap()
    }

    #[test]
    fn the_name_shown_is_chosen_then_telegram_then_username_then_generated() {
        let id = "tg:7";
        let none = StoredProfile::default();
        assert_eq!(public(id, &none).name, generated_name(id));
        assert_eq!(public(id, &none).username, None);
        let only_user = StoredProfile {
            telegram: Some(tg(None, Some("ann"))),
            name: None,
        };
        assert_eq!(public(id, &only_user).name, "ann");
        let named = StoredProfile {
            telegram: Some(tg(Some("Ann Lee"), Some("ann"))),
            name: None,
        };
        let p = public(id, &named);
        assert_eq!(
            (p.name.as_str(), p.username.as_deref()),
            ("Ann Lee", Some("ann"))
        );
        assert_eq!(
            p.photo_url.as_deref(),
            Some("https://t.me/i/userpic/320/a.svg")
        );
        let chosen = StoredProfile {
            name: Some("Queen A".into()),
            ..named.clone()
        };
        assert_eq!(public(id, &chosen).name, "Queen A");
        // What the store holds is checked again on the way out.
        let bad = StoredProfile {
            name: Some("\u{202e}x".into()),
            telegram: Some("not json".into()),
        };
        assert_eq!(public(id, &bad).name, generated_name(id));
    }

    #[actix_rt::test]
    async fn a_login_refreshes_telegram_and_never_the_chosen_name() {
        let bp = InProcess::new("n");
        let day = Duration::from_secs(86_400);
        let me = PlayerId::new("tg:7");
        let first = TelegramProfile {
            name: Some("Ann".into()),
            ..TelegramProfile::default()
        };
        assert_eq!(on_login(&bp, day, &me, Some(&first)).await.name, "Ann");
        let p = rename(&bp, day, &me, Some("  Queen A ")).await.unwrap();
        assert_eq!(p.name, "Queen A");
        // A later login with another Telegram name: the chosen one stays,
        // the Telegram part is refreshed underneath.
        let second = TelegramProfile {
            name: Some("Ann Lee".into()),
            username: Some("ann".into()),
            ..TelegramProfile::default()
        };
        let p = on_login(&bp, day, &me, Some(&second)).await;
        assert_eq!(
            (p.name.as_str(), p.username.as_deref()),
            ("Queen A", Some("ann"))
        );
        // Forgotten: the Telegram name again.
        assert_eq!(rename(&bp, day, &me, None).await.unwrap().name, "Ann Lee");
        // Refused: nothing changed.
        assert!(matches!(
            rename(&bp, day, &me, Some("")).await,
            Err(RenameError::Name(NameError::Empty))
        ));
        assert_eq!(on_login(&bp, day, &me, None).await.name, "Ann Lee");
        // A guest has his generated name without a write.
        let guest = PlayerId::new("guest:0123456789abcdef0123456789abcdef");
        let p = on_login(&bp, day, &guest, None).await;
        assert_eq!(p.name, generated_name(&guest.0));
        assert!(bp.profile(&guest.0).await.unwrap().is_empty());
    }

    #[test]
    fn guests_are_kept_as_long_as_their_token() {
        let mut a = crate::Settings::defaults().auth;
        a.guest_session_ttl_secs = 1234;
        assert_eq!(
            keep(&a, &PlayerId::new("guest:x")),
            Duration::from_secs(1234)
        );
        assert_eq!(keep(&a, &PlayerId::new("tg:1")), TELEGRAM_PROFILE_KEEP);
    }
}
