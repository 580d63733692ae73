//! Every text the bot writes, in Russian and English (the Mini App's two
//! languages), chosen by the player's Telegram `language_code` as the
//! Mini App chooses it: Russian for `ru…`, English otherwise.

use serde::{Deserialize, Serialize};
use tabula_room::GameKind;

use super::notice::{NoticeKind, Outcome};

/// The bot's language for a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lang {
    /// Russian.
    Ru,
    /// English.
    #[default]
    En,
}

impl Lang {
    /// The language for Telegram's `language_code` (absent: English).
    pub fn of(code: Option<&str>) -> Lang {
        match code {
            Some(c) if c.to_ascii_lowercase().starts_with("ru") => Lang::Ru,
            _ => Lang::En,
        }
    }

    /// Russian or English.
    fn pick(self, ru: &'static str, en: &'static str) -> &'static str {
        match self {
            Lang::Ru => ru,
            Lang::En => en,
        }
    }

    /// A game's name.
    pub fn game(self, g: GameKind) -> &'static str {
        match g {
            GameKind::LongNardy => self.pick("Длинные нарды", "Long nardy"),
            GameKind::Backgammon => self.pick("Короткие нарды", "Short nardy"),
            GameKind::Thud => "Thud!",
        }
    }

    /// The computer's name, as an opponent.
    pub fn computer(self) -> &'static str {
        self.pick("Компьютер", "the computer")
    }

    /// `/start` without a payload.
    pub fn welcome(self, name: &str) -> String {
        match self {
            Lang::Ru => format!(
                "Привет, {name}! Здесь играют в длинные и короткие нарды и в Thud! — с друзьями, с соперниками со всего Telegram и с компьютером.\n\nНажмите «Играть», чтобы открыть игру. Я напишу, когда соперник сделает ход."
            ),
            Lang::En => format!(
                "Hello, {name}! Play long nardy, short nardy and Thud! here: with friends, with players from all over Telegram, and against the computer.\n\nTap Play to open the game. I'll message you when your opponent moves."
            ),
        }
    }

    /// The button that opens the Mini App.
    pub fn play_button(self) -> &'static str {
        self.pick("Играть", "Play")
    }

    /// The button that opens a room.
    pub fn open_game(self) -> &'static str {
        self.pick("Открыть игру", "Open the game")
    }

    /// The button under a notice of `kind`.
    pub fn open_game_for(self, kind: NoticeKind) -> &'static str {
        match kind {
            NoticeKind::GameEnded => self.open_replay(),
            NoticeKind::BotGameWaiting => self.pick("Продолжить", "Continue"),
            _ => self.open_game(),
        }
    }

    /// The button that opens a replay.
    pub fn open_replay(self) -> &'static str {
        self.pick("Смотреть запись", "Watch the replay")
    }

    /// A shared game's card title (the chat picker shows it).
    pub fn shared_title(self, game: GameKind) -> String {
        match self {
            Lang::Ru => format!("Запись партии: {}", self.game(game)),
            Lang::En => format!("Replay: {}", self.game(game)),
        }
    }

    /// A shared game's message: its result, then the invitation to watch.
    pub fn shared_game(self, winner: &str, loser: &str, game: GameKind, drawn: bool) -> String {
        let tail = self.pick("Посмотрите запись партии:", "Watch the game's replay:");
        let over = self.challenge_over(winner, loser, game, drawn);
        // "the computer beat …" opens a sentence here.
        let mut chars = over.chars();
        let first: String = chars
            .next()
            .map(|c| c.to_uppercase().collect())
            .unwrap_or_default();
        format!("{first}{}\n{tail}", chars.as_str())
    }

    /// `/start <invite or room>`.
    pub fn start_room(self) -> &'static str {
        self.pick(
            "Вас пригласили в игру. Нажмите кнопку, чтобы сесть за стол.",
            "You're invited to a game. Tap the button to take your seat.",
        )
    }

    /// `/start replay_…`.
    pub fn start_replay(self) -> &'static str {
        self.pick(
            "Запись партии: нажмите, чтобы посмотреть.",
            "A game's replay: tap to watch it.",
        )
    }

    /// `/start <game kind>` and `/play`'s buttons' header.
    pub fn choose_game(self) -> &'static str {
        self.pick(
            "Во что сыграем? Выберите игру и уровень компьютера, или быструю игру с человеком.",
            "What shall we play? Pick a game and the computer's level, or a quick match with a person.",
        )
    }

    /// A level's or quick match's button label.
    pub fn level(self, level: &str) -> &'static str {
        match level {
            "easy" => self.pick("Легко", "Easy"),
            "medium" => self.pick("Средне", "Medium"),
            "hard" => self.pick("Сложно", "Hard"),
            _ => self.pick("С человеком", "With a person"),
        }
    }

    /// `/games` with none.
    pub fn no_games(self) -> &'static str {
        self.pick(
            "Сейчас у вас нет начатых игр. /play — начать новую.",
            "You have no games going on. /play to start one.",
        )
    }

    /// `/games`' header.
    pub fn your_games(self) -> &'static str {
        self.pick("Ваши игры:", "Your games:")
    }

    /// One line of `/games`: whose turn (`Some(true)`: his; `None`: the
    /// game waits for a second player or a Ready) and, in a
    /// correspondence game, the time left for the move.
    pub fn game_line(
        self,
        game: GameKind,
        opponent: &str,
        yours: Option<bool>,
        left_ms: Option<u64>,
    ) -> String {
        let turn = match yours {
            Some(true) => self.pick("ваш ход", "your turn"),
            Some(false) => self.pick("ход соперника", "their turn"),
            None => self.pick("ждёт начала", "waiting to start"),
        };
        let left = left_ms
            .map(|ms| {
                let h = ms.div_ceil(3_600_000).max(1);
                match self {
                    Lang::Ru => format!(", осталось {h} ч"),
                    Lang::En => format!(", {h} h left"),
                }
            })
            .unwrap_or_default();
        let vs = self.pick("против", "vs");
        format!("• {} {vs} {opponent}: {turn}{left}", self.game(game))
    }

    /// `/games`: a correspondence seat nobody has taken yet.
    pub fn nobody_yet(self) -> &'static str {
        self.pick("(место свободно)", "(seat free)")
    }

    /// `/stats`: one game kind's line.
    pub fn stats_line(self, game: GameKind, played: u64, won: u64, rating: Option<f64>) -> String {
        let rating = rating
            .map(|r| format!(", {} {:.0}", self.pick("рейтинг", "rating"), r))
            .unwrap_or_default();
        match self {
            Lang::Ru => format!("{}: сыграно {played}, побед {won}{rating}", self.game(game)),
            Lang::En => format!("{}: {played} played, {won} won{rating}", self.game(game)),
        }
    }

    /// `/stats` with nothing played.
    pub fn no_stats(self) -> &'static str {
        self.pick(
            "Вы ещё не сыграли ни одной партии. /play — самое время начать.",
            "You haven't played a game yet. /play is a good place to start.",
        )
    }

    /// `/stats` when the store is unreachable.
    pub fn unavailable(self) -> &'static str {
        self.pick(
            "Не получилось узнать это сейчас. Попробуйте чуть позже.",
            "I couldn't find that out just now. Please try again shortly.",
        )
    }

    /// `/settings`' header.
    pub fn settings(self) -> &'static str {
        self.pick(
            "Какие уведомления присылать? Нажмите, чтобы включить или выключить.",
            "Which notifications should I send? Tap one to turn it on or off.",
        )
    }

    /// A notice kind's name in `/settings`.
    pub fn kind(self, k: NoticeKind) -> &'static str {
        match k {
            NoticeKind::YourTurn => self.pick("Ваш ход", "Your turn"),
            NoticeKind::InviteTaken => self.pick("Приглашение принято", "Invite accepted"),
            NoticeKind::Rematch => self.pick("Предложение реванша", "Rematch offers"),
            NoticeKind::BotGameWaiting => self.pick(
                "Игра с компьютером ждёт",
                "A game against the computer waits",
            ),
            NoticeKind::GameEnded => self.pick("Игра окончена", "Game over"),
            NoticeKind::ChallengeOver => self.pick("Итог вызова", "A challenge's result"),
            NoticeKind::TimeLow => self.pick(
                "Мало времени на ход (игра по переписке)",
                "Little time left (correspondence)",
            ),
            NoticeKind::TournamentGame => self.pick("Игра турнира готова", "Tournament game ready"),
        }
    }

    /// The answer to a tap in `/settings`.
    pub fn saved(self) -> &'static str {
        self.pick("Сохранено", "Saved")
    }

    /// `/help`.
    pub fn help(self) -> &'static str {
        self.pick(
            "/play — новая игра\n/games — ваши игры и чей ход\n/stats — ваша статистика\n/settings — уведомления\n/help — эта справка\n\nВ любом чате наберите @ и имя бота, чтобы вызвать друга на партию.",
            "/play — a new game\n/games — your games and whose turn it is\n/stats — your statistics\n/settings — notifications\n/help — this help\n\nIn any chat, type @ and the bot's name to challenge a friend.",
        )
    }

    /// An unknown command or text.
    pub fn unknown(self) -> &'static str {
        self.pick(
            "Я понимаю команды /play, /games, /stats, /settings и /help.",
            "I understand /play, /games, /stats, /settings and /help.",
        )
    }

    /// A time control's name on a challenge card.
    pub fn clock(self, preset: &str) -> &'static str {
        match preset {
            "blitz" => self.pick("блиц, 12 с на ход", "blitz, 12 s a move"),
            "long" => self.pick("долго, 60 с на ход", "long, 60 s a move"),
            "1d" => self.pick("по переписке, день на ход", "correspondence, a day a move"),
            "3d" => self.pick(
                "по переписке, 3 дня на ход",
                "correspondence, 3 days a move",
            ),
            "7d" => self.pick(
                "по переписке, 7 дней на ход",
                "correspondence, 7 days a move",
            ),
            _ => self.pick("30 с на ход", "30 s a move"),
        }
    }

    /// Rated or casual.
    pub fn rated(self, rated: bool) -> &'static str {
        if rated {
            self.pick("на рейтинг", "rated")
        } else {
            self.pick("без рейтинга", "casual")
        }
    }

    /// A challenge card's title.
    pub fn card_title(self, game: GameKind, rated: bool, clock: &str) -> String {
        format!(
            "{} · {} · {}",
            self.game(game),
            self.rated(rated),
            self.clock(clock)
        )
    }

    /// The challenge posted in the chat.
    pub fn challenge(self, who: &str, game: GameKind, rated: bool, clock: &str) -> String {
        match self {
            Lang::Ru => format!(
                "{who} вызывает на партию: {} ({}, {}). Кто первым нажмёт «Принять», тот и играет.",
                self.game(game),
                self.rated(rated),
                self.clock(clock)
            ),
            Lang::En => format!(
                "{who} challenges you to {} ({}, {}). The first to tap Accept plays.",
                self.game(game),
                self.rated(rated),
                self.clock(clock)
            ),
        }
    }

    /// The challenge's button.
    pub fn accept(self) -> &'static str {
        self.pick("Принять", "Accept")
    }

    /// The challenge once accepted.
    pub fn accepted(self, a: &str, b: &str, game: GameKind) -> String {
        match self {
            Lang::Ru => format!("{a} против {b}: {}. Игра начинается!", self.game(game)),
            Lang::En => format!("{a} vs {b}: {}. The game is on!", self.game(game)),
        }
    }

    /// A tap on one's own challenge.
    pub fn own_challenge(self) -> &'static str {
        self.pick(
            "Это ваш вызов: ждём, кто его примет.",
            "That's your own challenge: waiting for someone to accept it.",
        )
    }

    /// A tap on a challenge someone took first.
    pub fn challenge_taken(self) -> &'static str {
        self.pick(
            "Вызов уже принят.",
            "Someone already accepted this challenge.",
        )
    }

    /// The challenge's result, in the chat.
    pub fn challenge_over(self, winner: &str, loser: &str, game: GameKind, drawn: bool) -> String {
        let g = self.game(game);
        match (self, drawn) {
            (Lang::Ru, false) => format!("{winner} обыграл(а) {loser}: {g}."),
            (Lang::En, false) => format!("{winner} beat {loser} at {g}."),
            (Lang::Ru, true) => format!("{winner} и {loser}: ничья, {g}."),
            (Lang::En, true) => format!("{winner} and {loser} drew at {g}."),
        }
    }

    /// A notice's text.
    /// A notice's text. `left_ms`: the time left for a correspondence
    /// move ("little time left").
    pub fn notice(
        self,
        kind: NoticeKind,
        game: GameKind,
        opponent: &str,
        outcome: Option<Outcome>,
        left_ms: Option<u64>,
    ) -> String {
        let g = self.game(game);
        // Whole hours, rounded up (under an hour: "1").
        let hours = left_ms.unwrap_or(0).div_ceil(3_600_000).max(1);
        match (self, kind) {
            (Lang::Ru, NoticeKind::TimeLow) => format!(
                "Осталось мало времени: {g}, соперник — {opponent}. Сделайте ход в течение {hours} ч, иначе партия будет проиграна по времени."
            ),
            (Lang::En, NoticeKind::TimeLow) => format!(
                "Little time left: {g} against {opponent}. Move within {hours} h, or you lose the game on time."
            ),
            // A correspondence turn says how long it has.
            (Lang::Ru, NoticeKind::YourTurn) if left_ms.is_some() => {
                format!("Ваш ход: {g}, соперник — {opponent}. На ход осталось {hours} ч.")
            }
            (Lang::En, NoticeKind::YourTurn) if left_ms.is_some() => {
                format!("Your turn: {g} against {opponent}. {hours} h left to move.")
            }
            (Lang::Ru, NoticeKind::YourTurn) => format!("Ваш ход: {g}, соперник — {opponent}."),
            (Lang::En, NoticeKind::YourTurn) => format!("Your turn: {g} against {opponent}."),
            (Lang::Ru, NoticeKind::InviteTaken) => {
                format!("{opponent} принял ваше приглашение: {g}. Игра ждёт вас.")
            }
            (Lang::En, NoticeKind::InviteTaken) => {
                format!("{opponent} took your invite to {g}. The game is waiting for you.")
            }
            (Lang::Ru, NoticeKind::Rematch) => format!("{opponent} предлагает реванш: {g}."),
            (Lang::En, NoticeKind::Rematch) => format!("{opponent} offers a rematch: {g}."),
            (Lang::Ru, NoticeKind::BotGameWaiting) => {
                format!("Ваша партия с компьютером ({g}) ждёт вас. Продолжим?")
            }
            (Lang::En, NoticeKind::BotGameWaiting) => {
                format!("Your game of {g} against the computer is waiting for you. Carry on?")
            }
            (Lang::Ru, NoticeKind::TournamentGame) => {
                format!("Ваша игра турнира готова: {g} против {opponent}. Заходите!")
            }
            (Lang::En, NoticeKind::TournamentGame) => {
                format!("Your tournament game is ready: {g} against {opponent}. Come and play!")
            }
            (lang, NoticeKind::ChallengeOver) => {
                lang.challenge_over(opponent, opponent, game, outcome == Some(Outcome::Drawn))
            }
            (lang, NoticeKind::GameEnded) => {
                let how = match (lang, outcome) {
                    (Lang::Ru, Some(Outcome::Won)) => "вы выиграли",
                    (Lang::Ru, Some(Outcome::Lost)) => "вы проиграли",
                    (Lang::Ru, _) => "ничья",
                    (Lang::En, Some(Outcome::Won)) => "you won",
                    (Lang::En, Some(Outcome::Lost)) => "you lost",
                    (Lang::En, _) => "a draw",
                };
                match lang {
                    Lang::Ru => format!("Игра окончена: {g} против {opponent} — {how}."),
                    Lang::En => format!("Game over: {g} against {opponent}, {how}."),
                }
            }
        }
    }
}

/// The texts of a group's tournament (`/tournament` and the posts of
/// [`super::groups`]), in the group's language.
impl Lang {
    /// `/tournament` with arguments it cannot read.
    pub fn tournament_usage(self) -> &'static str {
        self.pick(
            "Турнир для этой группы:\n/tournament <формат> <игра> <начало> [туры | длительность]\n\nформат: knockout (на выбывание), swiss [туров, 5], arena [минут, 30]\nигра: long (длинные нарды), short (короткие нарды), thud\nначало: через сколько минут (10), или 30s, 2h\n\nПримеры:\n/tournament knockout long 10\n/tournament swiss short 15 5\n/tournament arena thud 5 30",
            "A tournament for this group:\n/tournament <format> <game> <start> [rounds | length]\n\nformat: knockout, swiss [rounds, 5], arena [minutes, 30]\ngame: long (long nardy), short (short nardy), thud\nstart: in how many minutes (10), or 30s, 2h\n\nExamples:\n/tournament knockout long 10\n/tournament swiss short 15 5\n/tournament arena thud 5 30",
        )
    }

    /// `/tournament` in a private chat.
    pub fn tournament_group_only(self) -> &'static str {
        self.pick(
            "Турниры проводятся в группах: добавьте меня в группу и отправьте /tournament там.",
            "Tournaments are run in groups: add me to a group and send /tournament there.",
        )
    }

    /// A tournament's format, as the posts name it.
    pub fn format(self, f: &tabula_tournament::Format) -> String {
        use tabula_tournament::Format;
        match (self, f) {
            (Lang::Ru, Format::Knockout) => "на выбывание".into(),
            (Lang::En, Format::Knockout) => "knockout".into(),
            (Lang::Ru, Format::Swiss { rounds, .. }) => {
                format!("швейцарская система, туров: {rounds}")
            }
            (Lang::En, Format::Swiss { rounds, .. }) => format!("Swiss, {rounds} rounds"),
            (Lang::Ru, Format::Arena { duration_ms, .. }) => {
                format!("арена на {} мин", duration_ms.div_ceil(60_000))
            }
            (Lang::En, Format::Arena { duration_ms, .. }) => {
                format!("arena of {} min", duration_ms.div_ceil(60_000))
            }
        }
    }

    /// "in 10 min", from the time left (under a minute: "in under a
    /// minute"; started: "now").
    pub fn starts_in(self, left_ms: u64) -> String {
        match (self, left_ms) {
            (Lang::Ru, 0) => "сейчас".into(),
            (Lang::En, 0) => "now".into(),
            (Lang::Ru, 1..60_000) => "меньше чем через минуту".into(),
            (Lang::En, 1..60_000) => "in under a minute".into(),
            (Lang::Ru, ms) => format!("через {} мин", ms.div_ceil(60_000)),
            (Lang::En, ms) => format!("in {} min", ms.div_ceil(60_000)),
        }
    }

    /// The announcement.
    pub fn tournament_announce(
        self,
        creator: &str,
        game: GameKind,
        format: &tabula_tournament::Format,
        match_points: u32,
        left_ms: u64,
    ) -> String {
        let g = self.game(game);
        let f = self.format(format);
        let when = self.starts_in(left_ms);
        let points = match (self, match_points) {
            (_, 0 | 1) => String::new(),
            (Lang::Ru, n) => format!(", матчи до {n} очков"),
            (Lang::En, n) => format!(", matches to {n} points"),
        };
        match self {
            Lang::Ru => format!(
                "🏆 {creator} объявляет турнир: {g}, {f}{points}.\nНачало {when}. Нажмите «Участвовать», чтобы записаться."
            ),
            Lang::En => format!(
                "🏆 {creator} announces a tournament: {g}, {f}{points}.\nIt starts {when}. Tap Join to take part."
            ),
        }
    }

    /// The Join button.
    pub fn join_button(self) -> &'static str {
        self.pick("Участвовать", "Join")
    }

    /// The button that opens the tournament in the Mini App.
    pub fn open_tournament(self) -> &'static str {
        self.pick("Открыть турнир", "Open the tournament")
    }

    /// An arena's start (knockouts and Swiss start with their first
    /// round's pairings).
    pub fn arena_started(self, players: u32) -> String {
        match self {
            Lang::Ru => format!(
                "Арена началась, участников: {players}. Играйте: после каждой партии сразу новая пара."
            ),
            Lang::En => format!(
                "The arena has begun with {players} players. Play: after each game you are paired again at once."
            ),
        }
    }

    /// A round's pairings: `(white, black)` names, and the byes.
    pub fn round(self, round: u32, pairs: &[(String, String)], byes: &[String]) -> String {
        let head = match self {
            Lang::Ru => format!("Тур {round}, пары:"),
            Lang::En => format!("Round {round} pairings:"),
        };
        let mut lines: Vec<String> = pairs
            .iter()
            .enumerate()
            .map(|(i, (w, b))| format!("{}. {w} — {b}", i + 1))
            .collect();
        if !byes.is_empty() {
            lines.push(format!(
                "{} {}",
                self.pick("Без пары (очко):", "Bye:"),
                byes.join(", ")
            ));
        }
        self.fit(head, lines)
    }

    /// An arena's live top: `(name, points)`, best first.
    pub fn arena_top(self, rows: &[(String, u32)]) -> String {
        let head = self
            .pick("Арена, таблица сейчас:", "Arena, live standings:")
            .to_string();
        let lines = rows
            .iter()
            .enumerate()
            .map(|(i, (n, p))| format!("{}. {n} — {p}", i + 1))
            .collect();
        self.fit(head, lines)
    }

    /// The final standings: `(name, points as shown)`, best first; the
    /// champion is the first.
    pub fn tournament_final(self, rows: &[(String, String)]) -> String {
        let head = match (self, rows.first()) {
            (Lang::Ru, Some((c, _))) => format!("🏁 Турнир окончен. Победитель — {c}!\n"),
            (Lang::En, Some((c, _))) => {
                format!("🏁 The tournament is over. The champion is {c}!\n")
            }
            (Lang::Ru, None) => "🏁 Турнир окончен.".into(),
            (Lang::En, None) => "🏁 The tournament is over.".into(),
        };
        let lines = rows
            .iter()
            .enumerate()
            .map(|(i, (n, p))| {
                if p.is_empty() {
                    format!("{}. {n}", i + 1)
                } else {
                    format!("{}. {n} — {p}", i + 1)
                }
            })
            .collect();
        self.fit(head, lines)
    }

    /// The tournament was called off (fewer than two players at its
    /// start).
    pub fn tournament_cancelled(self) -> &'static str {
        self.pick(
            "Турнир отменён: к началу записалось меньше двух участников.",
            "The tournament was called off: fewer than two players had joined when it was due to start.",
        )
    }

    /// A Join tap that registered the player.
    pub fn joined(self) -> &'static str {
        self.pick("Вы записаны на турнир!", "You're in the tournament!")
    }

    /// A Join tap by a player already registered.
    pub fn already_joined(self) -> &'static str {
        self.pick("Вы уже записаны.", "You're already in.")
    }

    /// A Join tap once the tournament takes nobody more.
    pub fn join_closed(self) -> &'static str {
        self.pick(
            "Запись на этот турнир закрыта.",
            "This tournament takes no more players.",
        )
    }

    /// A header and lines, cut to fit one message (4096 characters, with
    /// room to spare): what does not fit is counted ("… and 12 more").
    fn fit(self, head: String, lines: Vec<String>) -> String {
        const MAX: usize = 3900;
        let mut out = head;
        let total = lines.len();
        for (i, line) in lines.into_iter().enumerate() {
            if out.chars().count() + line.chars().count() + 1 > MAX {
                let more = total - i;
                out.push('\n');
                out.push_str(&match self {
                    Lang::Ru => format!("… и ещё {more}"),
                    Lang::En => format!("… and {more} more"),
                });
                return out;
            }
            out.push('\n');
            out.push_str(&line);
        }
        out
    }
}
