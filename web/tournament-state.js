// The tournament screens' state (issue 49): their named transitions and
// the pure questions they ask of a tournament (which buttons its format
// and status allow the player, the points as shown, a round's name).
// No DOM, socket, storage or request here: tournaments.js does those, then
// dispatches; `tests/tournaments.test.mjs` runs these in node. Registered
// when tournaments.js loads (the lobby loads neither until it needs them).

import { define } from './store.js';

/** The create form's first values. */
export function freshForm() {
  return {
    format: 'knockout',
    game: 'long_nardy',
    matchPoints: 1,
    clock: 'normal',
    rated: false,
    startIn: 10,
    maxPlayers: '',
    rounds: 5,
    lateJoin: 2,
    duration: 30,
    rematchWait: 10,
  };
}

/** What the tournament screens start from (`S.tour`). */
export function tourState() {
  return {
    // The list (GET /api/tournaments): {upcoming, running, finished}, or null while read.
    list: null,
    listError: null,
    // The tournament shown: its id, GET /api/tournaments/{id}'s answer, and why it is not there.
    id: null,
    data: null,
    error: null,
    // The player's request under way (join, withdraw, pause, resume), and what came of the last one.
    busy: null,
    notice: null,
    form: freshForm(),
    formError: null,
    creating: false,
    // The lobby's "next game": {id, game, format, kind} of his tournament whose game waits for him (GET /api/me/tournaments).
    next: null,
    // The tournament a room was entered from (the room's Back comes back to it).
    returnTo: null,
    // Where the screen's Back goes, and whether a new screen's title takes the focus.
    back: 'lobby',
    focusTitle: false,
  };
}

define({
  /** The tournament screens' part of the state, made when their module first loads. */
  tourInit(S) {
    if (!S.tour) S.tour = tourState();
  },
  /** A tournament screen opened: `screen`, with `id` for one tournament (its old answer dropped when it is another). */
  tourOpened(S, { screen, id, back }) {
    const T = S.tour;
    S.screen = screen;
    T.focusTitle = true;
    T.back = back || 'lobby';
    if (screen === 'tournament') {
      if (T.id !== id) {
        T.data = null;
        T.error = null;
      }
      T.id = id;
      T.notice = null;
      T.busy = null;
    }
    if (screen === 'tournamentNew') T.formError = null;
  },
  /** The screen's title has the focus (once, after a new screen). */
  tourFocused(S) {
    S.tour.focusTitle = false;
  },
  /** Back from a tournament screen: to the list or the lobby. */
  tourClosed(S, to) {
    S.screen = to;
    S.tour.focusTitle = to !== 'lobby';
  },
  /** GET /api/tournaments answered (`list`) or failed (`error`). */
  tourList(S, { list, error }) {
    if (list) S.tour.list = list;
    S.tour.listError = error || null;
  },
  /** GET /api/tournaments/{id} answered (`data`) or failed (`error`); an answer for another id than the one shown is dropped. */
  tourLoaded(S, { id, data, error }) {
    const T = S.tour;
    if (id !== T.id) return false;
    if (data) T.data = data;
    T.error = error || null;
    return true;
  },
  /** The player's request (`join`, …) is out (null: answered). */
  tourBusy(S, action) {
    S.tour.busy = action || null;
  },
  /** What came of the player's request: {kind: 'ok' | 'error', text}, or null. */
  tourNotice(S, notice) {
    S.tour.notice = notice || null;
  },
  /** A field of the create form. */
  tourForm(S, { field, value }) {
    S.tour.form[field] = value;
  },
  /** The create request is out (true) or answered with `error` (or none). */
  tourCreating(S, { on, error }) {
    S.tour.creating = Boolean(on);
    S.tour.formError = error || null;
  },
  /** The lobby's "next game" ({id, game}) or none. */
  tourNext(S, next) {
    S.tour.next = next || null;
  },
  /** A room entered from a tournament (`id`), or left (null). */
  tourReturn(S, id) {
    S.tour.returnTo = id || null;
  },
});

// ---- questions asked of a tournament (GET /api/tournaments/{id}) ------------------

/** The player's entry, if he registered. */
export const entryOf = (data, me) => (data?.players || []).find((p) => p.player === me) || null;

/**
 * Which of Join, Withdraw, Pause and Resume the player may press, as the
 * server judges them (docs/protocol.md, *Tournaments*): join while
 * registering, or while running in an arena or a Swiss before its late
 * joining closes; withdraw while registered and not over; pause and resume
 * in a running arena or Swiss.
 */
export function actionsFor(data, me) {
  if (!data || !me) return [];
  const status = data.status;
  if (status === 'finished' || status === 'cancelled') return [];
  const f = data.config?.format || {};
  const e = entryOf(data, me);
  const active = e && !e.withdrawn;
  const out = [];
  if (!active) {
    const count = (data.players || []).filter((p) => !p.withdrawn).length;
    const full = data.config?.maxPlayers != null && count >= data.config.maxPlayers;
    const late = status === 'registering' || (status === 'running' && (f.type === 'arena' || (f.type === 'swiss' && data.round < f.lateJoinUntilRound)));
    if (late && !full) out.push('join');
    return out;
  }
  out.push('withdraw');
  if (status === 'running' && f.type !== 'knockout') out.push(e.paused ? 'resume' : 'pause');
  return out;
}

/**
 * Points as the table shows them: a Swiss's half-points as whole and
 * halves (3 → 1.5), its Sonneborn–Berger's quarter-points (`unit` 4) as
 * points; others as they are.
 */
export function pointsShown(format, points, unit = 2) {
  if (format?.type === 'swiss') return points / unit;
  return points;
}

/** The name of round `n` (1-based) of a bracket of `total` rounds: final, semi-final, quarter-final, or its number. */
export function roundKey(n, total) {
  const left = total - n;
  if (left === 0) return ['tour.final', {}];
  if (left === 1) return ['tour.semi', {}];
  if (left === 2) return ['tour.quarter', {}];
  return ['tour.roundN', { n }];
}

/** The winner of a bracket match ({state, player}), or null. */
export const matchWinner = (m) => (m?.winner?.state === 'winner' ? m.winner.player : null);

/** How often the tournament shown is read again (ms): often while it is running or about to start, seldom while registering, never once over. */
export function refreshMs(data, now) {
  if (!data) return 3000;
  if (data.status === 'running') return 2500;
  if (data.status === 'registering') return data.config.startAtMs - now < 60000 ? 2500 : 10000;
  return 0;
}

/**
 * The lobby's "next game" from `GET /api/me/tournaments`: the first of his
 * running tournaments whose game waits for him (the server lists those
 * first), as {id, game, format, kind}; or null.
 */
export function nextOf(mine) {
  const r = (mine?.running || []).find((x) => x && x.myGame);
  return r ? { id: r.id, game: r.myGame, format: r.format, kind: r.game } : null;
}

/** Whether `GET /api/me/tournaments` shows him in a tournament not over (the lobby then reads it every few seconds). */
export const inAny = (mine) => Boolean(mine?.upcoming?.length || mine?.running?.length);
