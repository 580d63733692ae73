// How things are said and shown: players' names and avatars, the arbiter's
// narration, result sentences, toasts, statistics tables.

import { api } from './net.js';
import * as tg from './telegram.js';
import { t, lang, has as hasText } from './i18n.js';
import { h, $ } from './dom.js';
import { shownName } from './names.js';
import { levelName, kindName, reasonName, S, dispatch, seatIdx, other, game } from './store.js';
import { render } from './app.js';

export function seatName(seat) {
  const s = S.view?.seats?.[seatIdx(seat)];
  if (!s) return '—';
  if (seat === S.seat) return t('seat.you');
  if (s.bot) return t('seat.computer', { level: levelName(s.bot) });
  if (!s.player) return t('seat.waiting');
  return playerName(s.player);
}


// ---- names and photos ---------------------------------------------------------
// A player is shown by his profile's name (docs/protocol.md, "Names"),
// fetched once per id; until it arrives, or if there is none, as
// "Opponent": never a raw id. A Telegram player's profile may hold his
// photo, drawn as a small round avatar beside his name.
/** Profiles by player id: the profile, or null while it is asked for (or there is none). */
export const profiles = new Map();

export function profileOf(id) {
  if (!id) return null;
  if (id === S.player && S.profile) return S.profile;
  const known = profiles.get(id);
  if (known === undefined) {
    profiles.set(id, null);
    api('GET', `/api/players/${encodeURIComponent(id)}/profile`)
      .then((p) => {
        if (p?.name) {
          profiles.set(id, p);
          render();
        }
      })
      .catch(() => {});
  }
  return known || null;
}

export function playerName(id) {
  if (!id) return t('seat.opponent');
  const name = profileOf(id)?.name;
  return name ? shownName(name, lang()) : t('seat.opponent');
}

/** A profile's photo to draw: an https URL only (the server keeps no other; checked again here). */
export function photoOf(p) {
  const u = p?.photoUrl;
  if (typeof u !== 'string') return null;
  try {
    return new URL(u).protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

/** Photos that failed to load: their players get the initial instead, without asking again. */
export const badPhotos = new Set();

/**
 * A small round avatar: the photo (alt: the name; no referrer sent), over
 * the name's initial, which shows when there is no photo or it fails to
 * load. Its box has one size whatever it holds, so nothing moves when the
 * photo arrives.
 */
export function avatar(name, url) {
  const initial = Array.from((name || '').trim())[0]?.toLocaleUpperCase() || '';
  const box = h('span.avatar', h('span.initial', { 'aria-hidden': 'true' }, initial));
  if (url && !badPhotos.has(url)) {
    const img = h('img', { referrerpolicy: 'no-referrer', alt: name || '', width: 32, height: 32, decoding: 'async', draggable: 'false', src: url });
    img.addEventListener('error', () => {
      badPhotos.add(url);
      img.remove();
      box.classList.remove('photo');
    });
    box.classList.add('photo');
    box.append(img);
  }
  return box;
}

/** The avatar of whoever sits in `seat`: a player's photo or initial, the computer's initial, an empty circle for a free seat. */
export function seatAvatar(seat) {
  const s = S.view?.seats?.[seatIdx(seat)];
  if (s?.bot) return avatar(t('seat.computer', { level: levelName(s.bot) }), null);
  const p = s?.player ? profileOf(s.player) : null;
  return avatar(p?.name || '', photoOf(p));
}

/** How the arbiter's lines and the log name a seat: by colour, or by order in Thud!. */
export function seatWord(seat, g = game()) {
  if (g === 'thud') return t(seat === 'a' ? 'side.first' : 'side.second');
  return t(seat === 'a' ? 'side.white' : 'side.black');
}

/**
 * The server's narration (an arbiter line, `opponent_left`, `game_over`)
 * in the player's language, from its `key` and `params`; `null` for a
 * message without a key this client knows (then its `text` is shown).
 */
export function narrate(m) {
  if (!m?.key || !hasText(`n.${m.key}`)) return null;
  const p = { ...(m.params || {}) };
  const g = game();
  for (const k of ['seat', 'loser', 'winner']) if (p[k] === 'a' || p[k] === 'b') p[`${k === 'seat' ? 'side' : k}Name`] = seatWord(p[k], g);
  p.aName = seatWord('a', g);
  p.bName = seatWord('b', g);
  if (p.kind) p.kindName = kindName(p.kind).toLowerCase();
  return t(`n.${m.key}`, p);
}

export function sideName(seat) {
  if (game() === 'thud') {
    const b = S.view?.board;
    if (!b) return '';
    return t(b.dwarfs === seat ? 'side.dwarfs' : 'side.trolls');
  }
  return seatWord(seat);
}

/** A confirmation: `text`, a Cancel and a `yes` button that calls `onYes`. */
export function ask(text, yes, onYes) {
  dispatch('confirm', { text, yes, onYes });
  render();
}

export function toast(text, kind = 'info', ms = 2500) {
  dispatch('toast', { text, kind, at: Date.now() });
  render();
  setTimeout(() => {
    if (S.toast && Date.now() - S.toast.at >= ms - 50) {
      dispatch('toast', null);
      render();
    }
  }, ms);
}

export function inviteLink() {
  const code = S.invite || S.roomId;
  if (!code) return '';
  if (tg.active() && S.config.telegramAppUrl) return `${S.config.telegramAppUrl}?startapp=${code}`;
  return `${location.origin}${location.pathname}?join=${code}`;
}

/**
 * The kind of a result as said: Thud!'s "on total points" only when both
 * rounds were played (a resignation, a forfeit or a clock run out decides
 * the game otherwise).
 */
export function resultKind(kind, res) {
  if (kind === 'thudTotals' && res?.reason && res.reason !== 'roundsOver') return '';
  return kindName(kind);
}

/** "You lost — Mars · 2 points · you did not come back in time." for a finished game's result. */
export function resultSentence(res, seat) {
  if (!res) return `${t('result.gameOver')}.`;
  const who = !seat ? (res.winner ? t('result.sideWon', { side: seatWord(res.winner) }) : t('result.draw'))
    : res.winner === seat ? t('result.youWon').replace(/!$/, '') : res.winner ? t('result.youLost') : t('result.draw');
  const pts = res.points ? t('result.points', { n: res.points }) : '';
  const why = res.reason && res.reason !== 'borneOff' && res.reason !== 'roundsOver' ? ` · ${reasonFor(res, seat)}` : '';
  const kind = resultKind(res.kind, res);
  return t('result.sentence', { who, kind, pts: kind ? pts : pts.replace(/^ · /, ''), why: kind || pts ? why : why.replace(/^ · /, '') });
}

/** Why a game ended, as its player (or a spectator) is told: "you did not come back in time", "your opponent ran out of time". */
export function reasonFor(res, seat) {
  if (seat && res.winner && res.reason === 'disconnected' && res.winner !== seat) return t('reason.youDisconnected');
  if (seat && res.winner && res.reason === 'timeout') return res.winner === seat ? t('reason.theyTimedOut') : t('reason.youTimedOut');
  return reasonName(res.reason);
}

/**
 * A game lost on time, said whole: who ran out (the viewer or his
 * opponent; a spectator is told the side) and the kind of loss.
 */
export function timeoutSentence(res, seat) {
  const kind = kindName(res.kind).toLowerCase();
  const pts = res.points ? t('result.points', { n: res.points }) : '';
  const loser = res.winner ? other(res.winner) : null;
  if (seat && loser === seat) return t('result.youTimedOut', { kind, pts });
  if (seat && loser) return t('result.theyTimedOut', { kind, pts });
  return `${t('result.timeout', { side: loser ? seatWord(loser) : '' })} — ${kind}${pts}.`;
}

/** Thud!: a round that ended on time, said for the viewer. */
export function roundTimeoutSentence(round, seat) {
  if (S.seat && seat === S.seat) return t('thud.roundTimeoutYou', { round });
  if (S.seat && seat) return t('thud.roundTimeoutThem', { round });
  return t('thud.roundTimeoutSide', { round, side: seat ? seatWord(seat, 'thud') : '' });
}


/** A time control's name with its figures. */
export function timeControlName(tc) {
  if (tc === 'blitz') return t('tc.blitz');
  if (tc === 'normal') return t('tc.normal');
  if (tc === 'long') return t('tc.long');
  // Correspondence: days a move.
  const days = /^([137])d$/.exec(tc || '');
  if (days) return t('tc.days', { n: days[1] });
  return t('tc.none');
}

/** A player's statistics in one kind of game (all together from a node that keeps no rows per game). */
export function gameStats(st, g) {
  if (!st) return null;
  if (st.byGame) return st.byGame[g] || null;
  return st;
}

/** A player's statistics in a kind of game `g` (Thud! has no mars: not mentioned there). */
export function statsTable(st, g) {
  const mars = g === 'thud' ? '' : t('stats.mars', { won: st.marsWins, lost: st.marsLosses });
  const rows = [h('p', t('stats.line', { games: st.games, wins: st.wins, losses: st.losses }) + (st.draws ? t('stats.draws', { n: st.draws }) : '') + mars)];
  const lv = Object.entries(st.byBotLevel || {});
  if (lv.length) {
    rows.push(h('table.levels',
      h('tr', h('th', t('stats.vsComputer')), h('th', t('stats.w')), h('th', t('stats.l')), h('th', t('stats.rate')), h('th', t('stats.streak')), h('th', t('stats.best'))),
      lv.map(([l, s]) => {
        const n = s.wins + s.losses;
        return h('tr', { 'data-level': l }, h('td', levelName(l)), h('td', s.wins), h('td', s.losses),
          h('td', n ? `${Math.round((100 * s.wins) / n)}%` : '—'), h('td', s.currentStreak > 0 ? `+${s.currentStreak}` : s.currentStreak), h('td', s.bestStreak));
      })));
  }
  return rows;
}
