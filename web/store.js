// The app's state and what is read from it: the one state object `S`
// (a room's part reset by `roomState`), preferences, names of games and
// kinds, and the questions every screen asks of the state (whose turn, which
// game).

import * as tg from './telegram.js';
import { t, has as hasText } from './i18n.js';
import { ServerClock } from './clock.js';
import { $ } from './dom.js';

export const GAME_KINDS = ['long_nardy', 'backgammon', 'thud'];
export const gameName = (g) => (GAME_KINDS.includes(g) ? t(`game.${g}`) : g);
export const levelName = (l) => ([1, 2, 3].includes(Number(l)) ? t(`level.${l}`) : String(l));
export const KIND_NAMES = ['oin', 'mars', 'koks', 'single', 'gammon', 'backgammon', 'drop', 'thudTotals', 'draw'];
export const kindName = (k) => (KIND_NAMES.includes(k) ? t(`kind.${k}`) : k || '');
export const REASON_NAMES = ['borneOff', 'resigned', 'stoodUp', 'disconnected', 'dropped', 'roundsOver', 'timeout'];
export const reasonName = (r) => (REASON_NAMES.includes(r) && hasText(`reason.${r}`) ? t(`reason.${r}`) : r);
/** Each game's options: [key, label key, [[value, text key], …]]. */
export const VARIANTS = {
  long_nardy: [
    ['scoring', 'opt.scoring', [['oin_mars_koks', 'opt.scoring.oin_mars_koks'], ['oin_mars', 'opt.scoring.oin_mars'], ['single', 'opt.scoring.single']]],
    ['opening', 'opt.opening', [['opening_roll_plays', 'opt.opening.opening_roll_plays'], ['opening_roll_rerolls', 'opt.opening.opening_roll_rerolls'], ['white_first', 'opt.opening.white_first']]],
  ],
  backgammon: [['scoring', 'opt.scoring', [['single', 'opt.bgscoring.single'], ['gammons', 'opt.scoring.gammons']]]],
  thud: [['capture_rule', 'opt.capture_rule', [['zrf', 'opt.capture_rule.zrf'], ['classic', 'opt.capture_rule.classic']]]],
};

export const params = new URLSearchParams(location.search);


// ---- preferences (localStorage; the settings sheet) ---------------------------
export function pref(key, fallback) {
  try {
    const v = localStorage.getItem(`tabula.${key}`);
    return v === null ? fallback : JSON.parse(v);
  } catch {
    return fallback;
  }
}

export function setPref(key, value) {
  try {
    localStorage.setItem(`tabula.${key}`, JSON.stringify(value));
  } catch {}
}

/** Whether a dice turn waits for Done (with Undo until then); off: each step is sent at once. */
export const confirmTurns = () => pref('confirm', true);
/** Roll for the player at the start of his turn (not when he may double). Off by default. */
export const autoRollOn = () => pref('autoRoll', false);
/** Play for the player when only one play is legal. Off by default. */
export const autoPlayOn = () => pref('autoPlay', false);
/** The time controls a game between people may be created with (docs/protocol.md, "Clocks"). */
export const TIME_CONTROLS = ['none', 'blitz', 'normal', 'long'];

/** What a room screen starts from (also the app's initial values). */
export function roomState(invite) {
  return {
    roomId: null,
    invite: invite || null,
    seat: null,
    view: null,
    version: 0,
    chat: [],
    chatSeen: new Set(),
    gameOver: null,
    ended: null,
    summary: null,
    verify: null,
    commitment: null,
    lastMove: null,
    thudRounds: [],
    showResult: true,
    // This turn's steps, played locally until Done (see "the local turn").
    local: null,
    // Events waiting for the animation of the step before them.
    queue: [],
    animating: false,
    // The last turn's steps, marked until the next roll.
    lastTurn: [],
    // The move log: [{game}] separators and [{seat, dice, steps, pass, thud}] turns.
    log: [],
    hint: null,
    rematch: null,
    // Clocks: which period runs (counted up whenever a new one starts), the
    // one the player was warned in, Thud!'s rounds lost on time (round → seat).
    periodId: 0,
    clockWarned: null,
    roundTimeouts: {},
    // Whether the player may double this turn is known (its turnStarted was seen).
    mayDoubleKnown: false,
    autoPlayed: null,
    autoMoving: 0,
  };
}

export const S = {
  screen: 'lobby',
  conn: 'connecting',
  player: null,
  config: {},
  lobby: { game: 'long_nardy', options: {}, matchLength: 1, timeControl: TIME_CONTROLS.includes(pref('timeControl', 'normal')) ? pref('timeControl', 'normal') : 'normal' },
  roomKey: null,
  ...roomState(null),
  stats: null,
  sel: null,
  targets: null,
  toast: null,
  mayDouble: false,
  confirm: null,
  choose: null,
  searching: null,
  error: null,
  botLevel: null,
  inflight: 0,
  sheet: null,
  profile: null,
};

export let net;
/** The socket, once made (main). */
export function setNet(n) {
  net = n;
}
/** The server's time as this device knows it (the offset from `state` and `pong`). */
export const serverClock = new ServerClock();
export const serverNow = () => serverClock.serverNow();
// ---- identity ---------------------------------------------------------------
// Telegram: initData. A guest sends nothing the first time: the node mints
// the guest and its token, which `net` keeps (localStorage) and sends after.
export const credQuery = () => (tg.active() ? `initData=${encodeURIComponent(tg.initData())}` : '');
export function credHeaders() {
  if (net?.token) return { authorization: `Bearer ${net.token}` };
  if (tg.active()) return { 'x-telegram-init-data': tg.initData() };
  return {};
}


// ---- helpers ---------------------------------------------------------------
export const seatIdx = (s) => (s === 'b' ? 1 : 0);
export const other = (s) => (s === 'a' ? 'b' : 'a');
export const game = () => S.view?.game;
export const isDice = () => game() === 'long_nardy' || game() === 'backgammon';
export const playing = () => S.view?.phase === 'playing';
export const myTurn = () => Boolean(S.seat && playing() && S.view.toAct?.seat === S.seat);
export const need = () => S.view?.toAct?.need;

export function clearSel() {
  S.sel = null;
  S.targets = null;
  S.choose = null;
}


// ---- the local turn: undo until Done ---------------------------------------------
//
// With confirmation on (the default), the player's steps are drawn on a
// copy of the position and never sent one by one: after each tap the app
// asks the server what the rest of the turn offers (`preview`, answered to
// this player alone), and Undo goes back to the offer before the tap. Done
// sends the steps as one `turn`, which the server applies atomically. The
// opponent sees only the confirmed turn. The client still holds no rules:
// every offer comes from the server.
export const stepText = (g, [f, to]) => (g === 'long_nardy' ? `${f}-${to}` : `${f}/${to}`);
export const playText = (g, steps) => steps.map((st) => stepText(g, st)).join(g === 'long_nardy' ? ',' : ' ');

export const localSteps = () => (S.local ? S.local.groups.flatMap((g) => g.steps) : []);
/** What the board offers now: the local turn's latest offer, or the server's. */
export function currentMoves() {
  const L = S.local;
  if (!L) return S.view?.moves;
  if (L.asking || L.sent || L.complete) return null;
  return L.groups.length ? L.groups[L.groups.length - 1].offer : L.offer0;
}

export const vsComputer = () => Boolean(S.view?.seats?.some((s) => s.bot));
