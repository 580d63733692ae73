//! [`Room::view`]: the room as the wire's `state` shows it, built from the
//! room's accessors; its types are [`crate::view`]'s.

use super::Room;
use crate::event::{BotNeed, Event, Phase};
use crate::types::SeatId;
use crate::view::{ChatLine, MovesView, RoomView, ToAct};

impl Room {
    /// The legal continuations of the turn being played, as
    /// [`Room::view`]'s `moves` (without building the rest of the view: a
    /// bot's prompt needs only these).
    pub fn moves_view(&self) -> Option<MovesView> {
        let moving = self.phase() == Phase::Playing
            && matches!(
                self.game().and_then(|g| g.to_act()),
                Some((_, BotNeed::Move))
            );
        let thud = self.game().is_some_and(|g| !g.uses_dice());
        if moving && !thud {
            self.recent().moves(self.log())
        } else {
            None
        }
    }

    /// The full state everyone may see (no secrets: the server seed stays
    /// hidden until the game ends).
    pub fn view(&self) -> RoomView {
        let game = self.game();
        let playing = self.phase() == Phase::Playing;
        let to_act = if playing {
            game.and_then(|g| g.to_act())
                .map(|(seat, need)| ToAct { seat, need })
        } else {
            None
        };
        let recent = self.recent();
        let dice = recent.dice();
        let last_result = recent.last_result().cloned();
        let moves = recent.moves(self.log());
        let dice = dice.filter(|d| d[0] != 0 && playing);
        let moving = matches!(
            to_act,
            Some(ToAct {
                need: BotNeed::Move,
                ..
            })
        );
        // Games without dice (Thud!) show no cube, dice or moves.
        let thud = game.is_some_and(|g| !g.uses_dice());
        let seats = SeatId::BOTH.map(|s| self.seat_view(s));
        RoomView {
            version: self.version(),
            phase: self.phase(),
            game: self.config().options.game,
            options: self.config().options,
            stake: self.config().stake.clone(),
            match_length: self.config().match_length,
            score: self.score(),
            seats,
            spectators: self.spectators().to_vec(),
            game_number: self.game_number(),
            board: game.map(|g| g.board_view()),
            to_act,
            cube: game.filter(|_| !thud).map(|g| g.cube()),
            dice: if thud { None } else { dice },
            moves: if moving && !thud { moves } else { None },
            commitment: game.filter(|_| playing).map(|g| g.dice().commitment()),
            last_result,
            paused: self.paused(),
            chat: recent
                .chat()
                .iter()
                .filter_map(|e| match &*e.event {
                    Event::Chat {
                        from,
                        text,
                        narration,
                    } => Some(ChatLine {
                        version: e.version,
                        from: from.clone(),
                        text: text.clone(),
                        narration: narration.clone(),
                    }),
                    _ => None,
                })
                .collect(),
            takeback: self.takeback_asked(),
            rematch: self.rematch_offers(),
            match_number: self.match_number(),
            actions: game.map(|g| g.actions().to_vec()).unwrap_or_default(),
            rated: self.config().rated && self.config().bot.is_none(),
            time_control: self.config().time_control,
            clock: self.clock(),
        }
    }
}
