//! Tournaments in Telegram groups (issue 49): the `/tournament` command
//! that creates one for the group ([`parse_tournament`] reads it), the
//! Join button that registers the player who taps it, and the posts the
//! bot makes in the group: the announcement, each round's pairings (or an
//! arena's live top, one message edited at most once a
//! `telegram.group_top_interval_ms`), the final standings and a
//! cancellation.
//!
//! **Exactly once into the group's queue.** A post is decided by the
//! tournament's owner from the core's effects ([`crate::tournaments`]) and
//! kept in the tournament's stored state (its outbox, `telegram` beside
//! the core) in the same write as the state that caused it. Only after
//! that write is it queued in the bot's outbound queue (the notices'
//! queue, under an id made from the tournament and the post:
//! `grp:{tournament}:round:{n}`), and only once queued is it dropped from
//! the outbox (another write). An owner killed between the two writes
//! leaves the post in the outbox; the node that takes the tournament over
//! queues it again under the same id, which the queue refuses. The sender
//! ([`super::sender`]) takes it like a notice: at most once to Telegram
//! (a send killed in flight is lost, never doubled), a 429's
//! `retry_after` obeyed, a passing fault retried.
//!
//! **Limits.** Group posts share the bot's sends a second with the
//! notices, and each group gets at most one message per
//! `telegram.group_interval_ms` (Telegram allows about 20 a minute in a
//! group).
//!
//! **Language.** A group's posts are in the language of the member who
//! created the tournament (his Telegram `language_code`, Russian for
//! `ru…`, else English): Telegram tells the bot no group language, and the
//! creator chose to speak to that group.

use std::sync::Arc;

use frankenstein::types::{Message, User};
use tabula_room::GameKind;
use tabula_tournament::{Format, Input, PlayerId, Status, Tournament, TournamentConfig};

use super::Telegram;
use super::group_post::Group;
use super::texts::Lang;
use crate::AppState;
use crate::time::now_ms;

/// A Swiss tournament's rounds when the command names none.
pub const DEFAULT_ROUNDS: u32 = 5;
/// An arena's length when the command names none, ms.
pub const DEFAULT_ARENA_MS: u64 = 30 * 60_000;
/// How long two arena players who just met wait for someone else.
const ARENA_REMATCH_WAIT_MS: u64 = 15_000;
/// A no-show's grace in a group's tournament.
const GRACE_MS: u64 = 120_000;
/// The most a start may be put off, ms (a week).
const MAX_START_MS: u64 = 7 * 86_400_000;
/// What `/tournament` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// The format.
    pub format: Format,
    /// The game.
    pub game: tabula_tournament::GameKind,
    /// The start, this long from now (ms).
    pub start_in_ms: u64,
}

/// Reads a duration: `10` (minutes), `10m`, `30s`, `2h` (also `мин`,
/// `с`, `ч`); `None` when it is not one.
pub fn duration_ms(s: &str) -> Option<u64> {
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if digits == 0 || digits > 6 {
        return None;
    }
    let n: u64 = s[..digits].parse().ok()?;
    let unit = match &s[digits..] {
        "" | "m" | "min" | "м" | "мин" => 60_000,
        "s" | "sec" | "с" | "сек" => 1_000,
        "h" | "ч" => 3_600_000,
        _ => return None,
    };
    Some(n * unit)
}

/// Reads `/tournament`'s arguments: `<format> <game> <start> [rounds |
/// length]`; `None` for anything else (the usage is answered).
pub fn parse_tournament(args: &str) -> Option<Spec> {
    let words: Vec<String> = args.split_whitespace().map(str::to_lowercase).collect();
    if !(3..=4).contains(&words.len()) {
        return None;
    }
    let game = match words[1].as_str() {
        "long" | "long_nardy" | "длинные" => tabula_tournament::GameKind::LongNardy,
        "short" | "short_nardy" | "backgammon" | "короткие" => {
            tabula_tournament::GameKind::Backgammon
        }
        "thud" => tabula_tournament::GameKind::Thud,
        _ => return None,
    };
    let start_in_ms = duration_ms(&words[2]).filter(|ms| (1_000..=MAX_START_MS).contains(ms))?;
    let extra = words.get(3);
    let format = match words[0].as_str() {
        "knockout" | "ko" | "выбывание" if extra.is_none() => Format::Knockout,
        "swiss" | "швейцарка" => {
            let rounds = match extra {
                Some(r) => r.parse().ok().filter(|r| (1..=20).contains(r))?,
                None => DEFAULT_ROUNDS,
            };
            Format::Swiss {
                rounds,
                late_join_until_round: 0,
            }
        }
        "arena" | "арена" => {
            let duration_ms = match extra {
                Some(d) => duration_ms(d).filter(|ms| (60_000..=86_400_000).contains(ms))?,
                None => DEFAULT_ARENA_MS,
            };
            Format::Arena {
                duration_ms,
                rematch_wait_ms: ARENA_REMATCH_WAIT_MS,
            }
        }
        _ => return None,
    };
    Some(Spec {
        format,
        game,
        start_in_ms,
    })
}

/// The room's game of the tournament's.
pub fn room_game(g: tabula_tournament::GameKind) -> GameKind {
    match g {
        tabula_tournament::GameKind::LongNardy => GameKind::LongNardy,
        tabula_tournament::GameKind::Backgammon => GameKind::Backgammon,
        tabula_tournament::GameKind::Thud => GameKind::Thud,
    }
}

/// A Telegram user's name as a post shows it.
fn display_name(u: &User) -> String {
    match &u.last_name {
        Some(l) if !l.is_empty() => format!("{} {l}", u.first_name),
        _ => u.first_name.clone(),
    }
}

/// `/tournament` in a group: creates the tournament for it (the
/// announcement follows through the outbox), or answers the usage.
pub async fn on_command(state: Arc<AppState>, tg: &Telegram, m: &Message, from: &User, args: &str) {
    let lang = Lang::of(from.language_code.as_deref());
    let chat = m.chat.id;
    let Some(spec) = parse_tournament(args) else {
        return super::reply::send(tg, chat, lang.tournament_usage().into(), None).await;
    };
    let player = format!("tg:{}", from.id);
    let now = now_ms();
    let clock_ms = u64::try_from(state.started.elapsed().as_millis()).unwrap_or(u64::MAX);
    if state.draining.load(std::sync::atomic::Ordering::SeqCst)
        || state.quotas.admit(Some(&player), None, clock_ms).is_err()
    {
        return super::reply::send(tg, chat, lang.unavailable().into(), None).await;
    }
    let config = TournamentConfig {
        format: spec.format,
        game: spec.game,
        match_points: 1,
        clock: serde_json::to_string(&state.settings.rooms.default_time_control).ok(),
        rated: true,
        start_at_ms: now + spec.start_in_ms,
        grace_ms: GRACE_MS,
        max_players: None,
    };
    let n: u64 = rand::random();
    let id = format!("t{:010x}", n & 0xff_ffff_ffff);
    let t = match Tournament::new(id, config) {
        Ok(t) => t,
        Err(e) => {
            tracing::warn!(error = %e, "group tournament not made");
            return super::reply::send(tg, chat, lang.tournament_usage().into(), None).await;
        }
    };
    let tid = t.id().to_string();
    let group = Group { chat, lang };
    match crate::tournaments::create_for(state, t, Some((group, display_name(from)))).await {
        Ok(()) => {
            tracing::info!(tournament = %tid, chat, %player, "group tournament created");
        }
        Err(e) => {
            tracing::warn!(error = %e, chat, "group tournament not created");
            super::reply::send(tg, chat, lang.unavailable().into(), None).await;
        }
    }
}

/// A tap on a tournament's Join button (`tj:{id}`): the tapping user is
/// registered as the routes register him (checked against the stored
/// state, then posted to the tournament's inbox), and told the result.
pub async fn on_join(
    state: &AppState,
    tg: &Telegram,
    q: &frankenstein::types::CallbackQuery,
    tournament: &str,
) {
    let lang = Lang::of(q.from.language_code.as_deref());
    let qid = q.id.as_str();
    let answer = move |text: &'static str| super::reply::answer_callback(tg, qid, Some(text));
    if q.from.is_bot {
        return answer(lang.join_closed()).await;
    }
    let player = format!("tg:{}", q.from.id);
    let t = match state.backplane.load_tournament(tournament).await {
        Ok(Some(json)) => match crate::tournaments::decode(&json) {
            Ok((t, _)) => t,
            Err(_) => return answer(lang.unavailable()).await,
        },
        Ok(None) => return answer(lang.join_closed()).await,
        Err(_) => return answer(lang.unavailable()).await,
    };
    if let Some(e) = t.entrant(&PlayerId(player.clone()))
        && !e.withdrawn
    {
        return answer(lang.already_joined()).await;
    }
    if matches!(t.status(), Status::Finished | Status::Cancelled)
        || crate::http::tournaments::refusal(&t, &player, crate::http::tournaments::Action::Join)
            .is_some()
    {
        return answer(lang.join_closed()).await;
    }
    let game = room_game(t.config().game);
    let rating = crate::http::rooms::stored_rating(state, &player, game)
        .await
        .unwrap_or(f64::from(tabula_backplane::NEW_PLAYER_RATING));
    let input = Input::Join {
        player: PlayerId(player.clone()),
        rating: rating as i32,
    };
    // One join a tap (the webhook acts once on each update).
    let key = format!("join:{player}:{}", now_ms());
    match crate::tournaments::post_now(state.backplane.as_ref(), tournament, &key, input).await {
        Ok(_) => answer(lang.joined()).await,
        Err(e) => {
            tracing::warn!(tournament, %player, error = %e, "join from the group not posted");
            answer(lang.unavailable()).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telegram::group_post::{GroupPost, Post};
    use crate::telegram::group_send::points_shown;

    #[test]
    fn the_command_reads_format_game_and_start() {
        use tabula_tournament::GameKind as G;
        let ko = Some(Format::Knockout);
        let swiss = |rounds| {
            Some(Format::Swiss {
                rounds,
                late_join_until_round: 0,
            })
        };
        let arena = |duration_ms| {
            Some(Format::Arena {
                duration_ms,
                rematch_wait_ms: ARENA_REMATCH_WAIT_MS,
            })
        };
        let cases: &[(&str, Option<Format>, G, u64)] = &[
            ("knockout long_nardy 10", ko, G::LongNardy, 600_000),
            ("knockout long 10m", ko, G::LongNardy, 600_000),
            ("KO short 30s", ko, G::Backgammon, 30_000),
            ("knockout backgammon 2h", ko, G::Backgammon, 7_200_000),
            ("  knockout   thud   1  ", ko, G::Thud, 60_000),
            ("swiss short 15", swiss(5), G::Backgammon, 900_000),
            ("swiss short 15 7", swiss(7), G::Backgammon, 900_000),
            ("arena thud 5", arena(DEFAULT_ARENA_MS), G::Thud, 300_000),
            ("arena thud 5 45", arena(2_700_000), G::Thud, 300_000),
            ("arena long 5 2h", arena(7_200_000), G::LongNardy, 300_000),
            ("арена длинные 5 мин", None, G::LongNardy, 0),
            (
                "арена длинные 5мин",
                arena(DEFAULT_ARENA_MS),
                G::LongNardy,
                300_000,
            ),
            (
                "швейцарка короткие 1ч 3",
                swiss(3),
                G::Backgammon,
                3_600_000,
            ),
        ];
        for (args, format, game, start) in cases {
            let got = parse_tournament(args);
            match format {
                Some(f) => assert_eq!(
                    got,
                    Some(Spec {
                        format: *f,
                        game: *game,
                        start_in_ms: *start
                    }),
                    "{args}"
                ),
                None => assert_eq!(got, None, "{args}"),
            }
        }
    }

    #[test]
    fn the_command_refuses_what_it_cannot_read() {
        for args in [
            "",
            "knockout",
            "knockout long",
            "knockout chess 10",
            "league long 10",
            "knockout long soon",
            "knockout long -5",
            "knockout long 0",
            "knockout long 0s",
            "knockout long 20000",
            "knockout long 10 3",
            "swiss long 10 0",
            "swiss long 10 21",
            "swiss long 10 x",
            "arena long 10 30s",
            "arena long 10 2d",
            "knockout long 10 x y",
            "knockout long 10y",
        ] {
            assert_eq!(parse_tournament(args), None, "{args:?}");
        }
    }

    #[test]
    fn durations_read_their_units() {
        for (s, ms) in [
            ("10", Some(600_000)),
            ("10m", Some(600_000)),
            ("10min", Some(600_000)),
            ("45s", Some(45_000)),
            ("45сек", Some(45_000)),
            ("3h", Some(10_800_000)),
            ("3ч", Some(10_800_000)),
            ("m", None),
            ("1d", None),
            ("1.5", None),
            ("9999999", None),
        ] {
            assert_eq!(duration_ms(s), ms, "{s}");
        }
    }

    #[test]
    fn posts_have_one_id_each() {
        let f = Format::Knockout;
        let cases = [
            (
                Post::Announce {
                    format: f,
                    match_points: 1,
                    start_at_ms: 0,
                    creator: "Ann".into(),
                },
                "grp:cup:announce",
            ),
            (Post::Started { players: 3 }, "grp:cup:started"),
            (
                Post::Round {
                    round: 2,
                    pairings: vec![],
                    byes: vec![],
                },
                "grp:cup:round:2",
            ),
            (Post::Top { rows: vec![] }, "grp:cup:top:4"),
            (
                Post::Final {
                    format: f,
                    rows: vec![],
                },
                "grp:cup:final",
            ),
            (Post::Cancelled, "grp:cup:cancelled"),
        ];
        for (post, id) in cases {
            assert_eq!(post.id("cup", 4), id);
            let p = GroupPost {
                chat: -100,
                lang: Lang::Ru,
                tournament: "cup".into(),
                game: GameKind::Backgammon,
                caused_ms: 1,
                post,
                attempts: 0,
            };
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(serde_json::from_str::<GroupPost>(&json).unwrap(), p);
        }
    }

    #[test]
    fn points_read_as_each_format_counts_them() {
        let swiss = Format::Swiss {
            rounds: 5,
            late_join_until_round: 0,
        };
        let arena = Format::Arena {
            duration_ms: 1,
            rematch_wait_ms: 1,
        };
        for (format, points, shown) in [
            (Format::Knockout, 3, ""),
            (swiss, 0, "0"),
            (swiss, 1, "½"),
            (swiss, 7, "3½"),
            (swiss, 8, "4"),
            (arena, 12, "12"),
        ] {
            assert_eq!(points_shown(&format, points), shown, "{format:?} {points}");
        }
    }

    #[test]
    fn the_group_texts_in_both_languages() {
        let ko = Format::Knockout;
        let swiss = Format::Swiss {
            rounds: 5,
            late_join_until_round: 0,
        };
        let pairs = vec![("Ann".to_string(), "Bob".to_string())];
        let cases: Vec<(String, &str)> = vec![
            (
                Lang::En.tournament_announce("Ann", GameKind::LongNardy, &ko, 1, 600_000),
                "🏆 Ann announces a tournament: Long nardy, knockout.\nIt starts in 10 min. Tap Join to take part.",
            ),
            (
                Lang::Ru.tournament_announce("Аня", GameKind::Backgammon, &swiss, 3, 30_000),
                "🏆 Аня объявляет турнир: Короткие нарды, швейцарская система, туров: 5, матчи до 3 очков.\nНачало меньше чем через минуту. Нажмите «Участвовать», чтобы записаться.",
            ),
            (
                Lang::En.round(2, &pairs, &["Cid".to_string()]),
                "Round 2 pairings:\n1. Ann — Bob\nBye: Cid",
            ),
            (Lang::Ru.round(1, &pairs, &[]), "Тур 1, пары:\n1. Ann — Bob"),
            (
                Lang::En.arena_top(&[("Ann".into(), 7), ("Bob".into(), 4)]),
                "Arena, live standings:\n1. Ann — 7\n2. Bob — 4",
            ),
            (
                Lang::En.tournament_final(&[
                    ("Ann".into(), String::new()),
                    ("Bob".into(), String::new()),
                ]),
                "🏁 The tournament is over. The champion is Ann!\n\n1. Ann\n2. Bob",
            ),
            (
                Lang::Ru.tournament_final(&[("Ann".into(), "4½".into())]),
                "🏁 Турнир окончен. Победитель — Ann!\n\n1. Ann — 4½",
            ),
            (
                Lang::En.tournament_cancelled().into(),
                "The tournament was called off: fewer than two players had joined when it was due to start.",
            ),
            (Lang::Ru.starts_in(0), "сейчас"),
            (Lang::En.starts_in(60_001), "in 2 min"),
            (
                Lang::En.format(&Format::Arena {
                    duration_ms: 1_800_000,
                    rematch_wait_ms: 0,
                }),
                "arena of 30 min",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }

    #[test]
    fn a_long_round_fits_one_message() {
        let pairs: Vec<(String, String)> = (0..2048)
            .map(|i| (format!("Player number {i}"), format!("Opponent number {i}")))
            .collect();
        let text = Lang::En.round(1, &pairs, &[]);
        assert!(text.chars().count() <= 4096);
        assert!(text.ends_with("more"), "{}", &text[text.len() - 40..]);
    }
}
