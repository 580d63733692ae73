// The app's state and what is read from it: the one state object `S`
// (a room's part reset by `roomState`), changed by named transitions
// (`dispatch`), preferences, names of games and kinds, and the questions
// every screen asks of the state (whose turn, which game).

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

export const params = new URLSearchParams(globalThis.location?.search ?? '');


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
export const TIME_CONTROLS = ['none', 'blitz', 'normal', 'long', '1d', '3d', '7d'];

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
    // A takeback asked ({seat}), and whether ours may be asked now.
    takeback: null,
    takebackable: false,
    // Clocks: which period runs (counted up whenever a new one starts), the
    // one the player was warned in, Thud!'s rounds lost on time (round → seat).
    periodId: 0,
    clockWarned: null,
    roundTimeouts: {},
    // Whether the player may double this turn is known (its turnStarted was seen).
    mayDoubleKnown: false,
    autoPlayed: null,
    autoMoving: 0,
    // Rolls seen in this room (the dice tumble once per roll).
    rolls: 0,
  };
}

const state = {
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

// ---- named transitions ----------------------------------------------------------
//
// The state changes only by a transition named in a table: the server's
// messages (`roomState`, `diceRolled`, `moved`, … in transitions.js, which the
// room's modules register) and the player's intents (`select`, `localStep`,
// `undo`, `turnSent`, …). A transition is a function `(S, payload) => result`
// with no DOM, no socket and no sound: the module that dispatches it does
// those after, from the state and the result. Views only read `S`.
const table = Object.create(null);
let depth = 0;
/** Writes to `S` outside a transition, recorded when `globalThis.__tabulaStrict` is set (the browser tests). */
export const strays = [];

/** Adds transitions to the table (a name defined twice is a mistake). */
export function define(transitions) {
  for (const [name, fn] of Object.entries(transitions)) {
    if (table[name] && table[name] !== fn) throw new Error(`transition ${name} defined twice`);
    table[name] = fn;
  }
}

/** Whether a transition of that name is known. */
export const defined = (name) => Boolean(table[name]);

/** Applies the named transition to the state; returns what it returns. */
export function dispatch(name, payload) {
  const fn = table[name];
  if (!fn) throw new Error(`unknown transition ${name}`);
  depth += 1;
  try {
    return fn(state, payload);
  } finally {
    depth -= 1;
  }
}

/** The state, read by every view; a write to it outside `dispatch` is recorded in strict mode. */
export const S = new Proxy(state, {
  set(target, key, value) {
    if (!depth && globalThis.__tabulaStrict) strays.push({ key: String(key), stack: new Error().stack });
    target[key] = value;
    return true;
  },
});

/** Transitions every screen needs (the room's own are in transitions.js). */
define({
  /** Nothing selected on the board. */
  deselect(S) {
    S.sel = null;
    S.targets = null;
    S.choose = null;
  },
  /** A room entered (`key`, its `invite`), with what this tab kept of it (`kept`: thudRounds, roundTimeouts, log). */
  roomEntered(S, { key, invite, kept }) {
    Object.assign(S, { screen: 'room', roomKey: key, ...roomState(invite) }, kept);
    S.sel = null;
    S.targets = null;
    S.choose = null;
  },
  /** Back to the lobby from a room. */
  roomLeft(S) {
    S.screen = 'lobby';
    S.view = null;
    S.roomKey = null;
    S.queue = [];
    S.animating = false;
    S.local = null;
    S.sheet = null;
  },
  /** Confirmation of turns switched: the local turn is dropped (restarted if still on). */
  localDropped(S) {
    S.local = null;
  },
  /** The lobby's choices: the game, one of its options (`option`, `value`), the match length, the clock. */
  lobbyGame(S, game) {
    S.lobby.game = game;
  },
  lobbyOption(S, { option, value }) {
    const g = S.lobby.game;
    S.lobby.options[g] = { ...(S.lobby.options[g] || {}), [option]: value };
  },
  lobbyMatch(S, n) {
    S.lobby.matchLength = n;
  },
  lobbyClock(S, tc) {
    S.lobby.timeControl = tc;
  },
  /** The socket's `welcome`: who the player is (and his profile when the node knows it). */
  welcomed(S, { player, profile }) {
    S.player = player;
    if (profile) S.profile = profile;
  },
});

/**
 * The screens' own fields, each set whole by a transition of its own name
 * (`dispatch('lobbyError', message)`, `dispatch('sheet', null)`): what the
 * lobby, the header, the sheets, toasts and the player's screens show.
 */
const FIELDS = {
  lobbyError: 'error',
  searching: 'searching',
  botChosen: 'botLevel',
  stats: 'stats',
  unfinished: 'unfinished',
  live: 'live',
  conn: 'conn',
  config: 'config',
  confirm: 'confirm',
  sheet: 'sheet',
  nameNoted: 'nameNote',
  profile: 'profile',
  toast: 'toast',
  shared: 'shared',
  rating: 'rating',
  notices: 'notices',
  focusBoard: 'focusBoard',
  players: 'pl',
};
define(Object.fromEntries(Object.entries(FIELDS).map(([name, key]) => [name, (S, value) => {
  S[key] = value;
}])));

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
  dispatch('deselect');
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
export { stepText, playText } from './log.js';

export const localSteps = () => (S.local ? S.local.groups.flatMap((g) => g.steps) : []);
/** What the board offers now: the local turn's latest offer, or the server's. */
export function currentMoves() {
  const L = S.local;
  if (!L) return S.view?.moves;
  if (L.asking || L.sent || L.complete) return null;
  return L.groups.length ? L.groups[L.groups.length - 1].offer : L.offer0;
}

export const vsComputer = () => Boolean(S.view?.seats?.some((s) => s.bot));
/** A tournament's game: its room id is the game's, `{tournament}:{round}:{board}` or `{tournament}:a:{n}` (no rematch there: the tournament pairs). */
export const tournamentRoom = () => /^[A-Za-z0-9_-]{1,30}:(\d+|a):\d+$/.test(S.roomId || S.roomKey || '');
/** A correspondence room (days a move): its players come and go; only `leave` or resigning ends their part. */
export const correspondence = () => (S.view?.timeControl?.delayMs || 0) >= 86400000;


// ---- the server's clock: ping and pong ------------------------------------------
/** When the last `ping` went out (for the round trip of its `pong`). */
export let pingAt = 0;
export function ping() {
  if (net?.raw({ type: 'ping' })) pingAt = Date.now();
}

/** A `pong`: a sample of the server's clock, centred on the round trip. */
export function onPong(m) {
  if (pingAt && Date.now() - pingAt < 5000) serverClock.sample(m.serverTime, Date.now() - pingAt);
  pingAt = 0;
}
