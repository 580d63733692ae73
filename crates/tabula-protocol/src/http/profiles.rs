//! Players' names: a profile as anyone sees it, several at once, and a
//! chosen name.

use serde::{Deserialize, Serialize};

/// What everyone may see of a player: `welcome.profile`,
/// `GET /api/players/{id}/profile`, each of `GET /api/profiles`, and the
/// answer to `POST /api/me/name`. `name` is always there (chosen, from
/// Telegram, or generated for the id), so a client never shows an id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlayerProfile {
    /// The player id (`tg:…` or `guest:…`), as seats and chat name him.
    pub id: String,
    /// The name to show.
    pub name: String,
    /// The Telegram username, without `@` (Telegram players who have one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// The Telegram profile photo, an `https` URL (when Telegram gave one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub photo_url: Option<String>,
}

/// `GET /api/profiles?ids=a,b`: the profiles, in the order asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Profiles {
    /// One per id asked.
    pub profiles: Vec<PlayerProfile>,
}

/// The query of `GET /api/profiles`: player ids separated by commas.
#[derive(Debug, Clone, Default, Deserialize, Serialize, utoipa::ToSchema, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ProfilesQuery {
    /// `tg:1,guest:ab12…`.
    #[serde(default)]
    pub ids: String,
}

/// `POST /api/me/name`: `{"name": "Ann"}` sets the name the player is
/// shown by; `{"name": null}` forgets it (back to his Telegram name, or his
/// generated one). The field is required.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, utoipa::ToSchema)]
pub struct SetName {
    /// The name, or `null`; `None` when the field is missing.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub name: Option<Option<String>>,
}

/// A field that is present: `null` is `Some(None)`, missing stays `None`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

#[cfg(test)]
mod profile_tests {
    use super::*;

    #[test]
    fn set_name_tells_null_from_missing() {
        let read = |s: &str| serde_json::from_str::<SetName>(s).map(|b| b.name);
        assert_eq!(read(r#"{"name":"Ann"}"#).unwrap(), Some(Some("Ann".into())));
        assert_eq!(read(r#"{"name":null}"#).unwrap(), Some(None));
        assert_eq!(read(r#"{}"#).unwrap(), None);
        assert!(read(r#"{"name":5}"#).is_err());
    }

    #[test]
    fn profiles_serialise_as_documented() {
        let p = PlayerProfile {
            id: "tg:1".into(),
            name: "Ann Lee".into(),
            username: Some("ann".into()),
            photo_url: Some("https://t.me/i/userpic/320/a.svg".into()),
        };
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"id":"tg:1","name":"Ann Lee","username":"ann","photoUrl":"https://t.me/i/userpic/320/a.svg"}"#
        );
        let g = PlayerProfile {
            id: "guest:ab".into(),
            name: "Brave Otter 42".into(),
            username: None,
            photo_url: None,
        };
        assert_eq!(
            serde_json::to_string(&g).unwrap(),
            r#"{"id":"guest:ab","name":"Brave Otter 42"}"#
        );
    }
}
