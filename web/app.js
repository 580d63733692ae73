// Tabula Mini App: lobby, rooms, boards, chat, results. The client holds
// no rules: it shows what the server offers (possibleMoves, legalMoves) and
// sends the player's choice. Wire protocol: docs/protocol.md.

import { Net, api } from './net.js';
import * as tg from './telegram.js';
import { renderNardy, targetsFrom, movableFrom, pips, borneOff, applyStep, parseSteps } from './boards/nardy.js';
import { renderThud, thudTargets, parseThud, thudScore } from './boards/thud.js';
import { sha256hex } from './sha256.js';
import * as sound from './sound.js';
import { t, setLang, lang, pickLang, LANGS, STRINGS, has as hasText } from './i18n.js';
import { ServerClock, clockFigures, formatClock, WARN_MS, newPeriod, shouldAutoRoll, forcedPlay } from './clock.js';
import * as pl from './players.js';
import { h, $, patch, patchChildren } from './dom.js';
import { shownName } from './names.js';

const GAME_KINDS = ['long_nardy', 'backgammon', 'thud'];
const gameName = (g) => (GAME_KINDS.includes(g) ? t(`game.${g}`) : g);
const levelName = (l) => ([1, 2, 3].includes(Number(l)) ? t(`level.${l}`) : String(l));
const KIND_NAMES = ['oin', 'mars', 'koks', 'single', 'gammon', 'backgammon', 'drop', 'thudTotals', 'draw'];
const kindName = (k) => (KIND_NAMES.includes(k) ? t(`kind.${k}`) : k || '');
const REASON_NAMES = ['borneOff', 'resigned', 'stoodUp', 'disconnected', 'dropped', 'roundsOver', 'timeout'];
const reasonName = (r) => (REASON_NAMES.includes(r) && hasText(`reason.${r}`) ? t(`reason.${r}`) : r);
/** Each game's options: [key, label key, [[value, text key], …]]. */
const VARIANTS = {
  long_nardy: [
    ['scoring', 'opt.scoring', [['oin_mars_koks', 'opt.scoring.oin_mars_koks'], ['oin_mars', 'opt.scoring.oin_mars'], ['single', 'opt.scoring.single']]],
    ['opening', 'opt.opening', [['opening_roll_plays', 'opt.opening.opening_roll_plays'], ['opening_roll_rerolls', 'opt.opening.opening_roll_rerolls'], ['white_first', 'opt.opening.white_first']]],
  ],
  backgammon: [['scoring', 'opt.scoring', [['single', 'opt.bgscoring.single'], ['gammons', 'opt.scoring.gammons']]]],
  thud: [['capture_rule', 'opt.capture_rule', [['zrf', 'opt.capture_rule.zrf'], ['classic', 'opt.capture_rule.classic']]]],
};

const params = new URLSearchParams(location.search);

// ---- preferences (localStorage; the settings sheet) ---------------------------

function pref(key, fallback) {
  try {
    const v = localStorage.getItem(`tabula.${key}`);
    return v === null ? fallback : JSON.parse(v);
  } catch {
    return fallback;
  }
}

function setPref(key, value) {
  try {
    localStorage.setItem(`tabula.${key}`, JSON.stringify(value));
  } catch {}
}

/** Whether a dice turn waits for Done (with Undo until then); off: each step is sent at once. */
const confirmTurns = () => pref('confirm', true);
/** Roll for the player at the start of his turn (not when he may double). Off by default. */
const autoRollOn = () => pref('autoRoll', false);
/** Play for the player when only one play is legal. Off by default. */
const autoPlayOn = () => pref('autoPlay', false);
/** The time controls a game between people may be created with (docs/protocol.md, "Clocks"). */
const TIME_CONTROLS = ['none', 'blitz', 'normal', 'long'];

/** What a room screen starts from (also the app's initial values). */
function roomState(invite) {
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

const S = {
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

let net;
/** The socket, once made (main). */
function setNet(n) {
  net = n;
}
/** The server's time as this device knows it (the offset from `state` and `pong`). */
const serverClock = new ServerClock();
const serverNow = () => serverClock.serverNow();
/** When the last `ping` went out (for the round trip of its `pong`). */
let pingAt = 0;
function ping() {
  if (net?.raw({ type: 'ping' })) pingAt = Date.now();
}

// ---- identity ---------------------------------------------------------------

// Telegram: initData. A guest sends nothing the first time: the node mints
// the guest and its token, which `net` keeps (localStorage) and sends after.
const credQuery = () => (tg.active() ? `initData=${encodeURIComponent(tg.initData())}` : '');
function credHeaders() {
  if (net?.token) return { authorization: `Bearer ${net.token}` };
  if (tg.active()) return { 'x-telegram-init-data': tg.initData() };
  return {};
}

// ---- theme outside Telegram -------------------------------------------------

function applyStoredTheme() {
  if (tg.active()) return;
  let t = 'auto';
  try {
    t = localStorage.getItem('tabula.theme') || 'auto';
  } catch {}
  const dark = t === 'dark' || (t === 'auto' && matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  document.documentElement.dataset.themeChoice = t;
}

function cycleTheme() {
  const order = ['auto', 'light', 'dark'];
  const cur = document.documentElement.dataset.themeChoice || 'auto';
  const next = order[(order.indexOf(cur) + 1) % order.length];
  try {
    localStorage.setItem('tabula.theme', next);
  } catch {}
  applyStoredTheme();
  render();
}

// ---- helpers ---------------------------------------------------------------

const seatIdx = (s) => (s === 'b' ? 1 : 0);
const other = (s) => (s === 'a' ? 'b' : 'a');
const game = () => S.view?.game;
const isDice = () => game() === 'long_nardy' || game() === 'backgammon';
const playing = () => S.view?.phase === 'playing';
const myTurn = () => Boolean(S.seat && playing() && S.view.toAct?.seat === S.seat);
const need = () => S.view?.toAct?.need;

function seatName(seat) {
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
const profiles = new Map();

function profileOf(id) {
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

function playerName(id) {
  if (!id) return t('seat.opponent');
  const name = profileOf(id)?.name;
  return name ? shownName(name, lang()) : t('seat.opponent');
}

/** A profile's photo to draw: an https URL only (the server keeps no other; checked again here). */
function photoOf(p) {
  const u = p?.photoUrl;
  if (typeof u !== 'string') return null;
  try {
    return new URL(u).protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

/** Photos that failed to load: their players get the initial instead, without asking again. */
const badPhotos = new Set();

/**
 * A small round avatar: the photo (alt: the name; no referrer sent), over
 * the name's initial, which shows when there is no photo or it fails to
 * load. Its box has one size whatever it holds, so nothing moves when the
 * photo arrives.
 */
function avatar(name, url) {
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
function seatAvatar(seat) {
  const s = S.view?.seats?.[seatIdx(seat)];
  if (s?.bot) return avatar(t('seat.computer', { level: levelName(s.bot) }), null);
  const p = s?.player ? profileOf(s.player) : null;
  return avatar(p?.name || '', photoOf(p));
}

/** How the arbiter's lines and the log name a seat: by colour, or by order in Thud!. */
function seatWord(seat, g = game()) {
  if (g === 'thud') return t(seat === 'a' ? 'side.first' : 'side.second');
  return t(seat === 'a' ? 'side.white' : 'side.black');
}

/**
 * The server's narration (an arbiter line, `opponent_left`, `game_over`)
 * in the player's language, from its `key` and `params`; `null` for a
 * message without a key this client knows (then its `text` is shown).
 */
function narrate(m) {
  if (!m?.key || !hasText(`n.${m.key}`)) return null;
  const p = { ...(m.params || {}) };
  const g = game();
  for (const k of ['seat', 'loser', 'winner']) if (p[k] === 'a' || p[k] === 'b') p[`${k === 'seat' ? 'side' : k}Name`] = seatWord(p[k], g);
  p.aName = seatWord('a', g);
  p.bName = seatWord('b', g);
  if (p.kind) p.kindName = kindName(p.kind).toLowerCase();
  return t(`n.${m.key}`, p);
}

function sideName(seat) {
  if (game() === 'thud') {
    const b = S.view?.board;
    if (!b) return '';
    return t(b.dwarfs === seat ? 'side.dwarfs' : 'side.trolls');
  }
  return seatWord(seat);
}

function toast(text, kind = 'info', ms = 2500) {
  S.toast = { text, kind, at: Date.now() };
  render();
  setTimeout(() => {
    if (S.toast && Date.now() - S.toast.at >= ms - 50) {
      S.toast = null;
      render();
    }
  }, ms);
}

function inviteLink() {
  const code = S.invite || S.roomId;
  if (!code) return '';
  if (tg.active() && S.config.telegramAppUrl) return `${S.config.telegramAppUrl}?startapp=${code}`;
  return `${location.origin}${location.pathname}?join=${code}`;
}

function clearSel() {
  S.sel = null;
  S.targets = null;
  S.choose = null;
}

// ---- lobby actions ------------------------------------------------------------

function lobbyOptions() {
  const g = S.lobby.game;
  // Every choice shown, with its default when untouched.
  const o = {};
  for (const [key, , choices] of VARIANTS[g]) o[key] = (S.lobby.options[g] || {})[key] || choices[0][0];
  if (g === 'long_nardy') return { long: { ...o } };
  if (g === 'backgammon') return { backgammon: { ...o } };
  return { thud: { ...o } };
}

async function createRoom(bot) {
  S.error = null;
  const body = { game: S.lobby.game, options: lobbyOptions() };
  if (S.lobby.game !== 'thud' && S.lobby.matchLength > 1) body.matchLength = S.lobby.matchLength;
  if (bot) body.bot = { level: bot };
  // Between people: the clock chosen in the lobby (against the computer, none).
  else body.timeControl = S.lobby.timeControl;
  try {
    const r = await api('POST', '/api/rooms', body, credHeaders());
    S.botLevel = bot || null;
    enterRoom(r.roomId, r.invite);
  } catch (e) {
    S.error = e.message;
    render();
  }
}

async function quickMatch() {
  S.error = null;
  const ctl = new AbortController();
  S.searching = ctl;
  render();
  try {
    const r = await api('POST', '/api/quickmatch', { game: S.lobby.game, options: lobbyOptions(), timeControl: S.lobby.timeControl }, credHeaders(), ctl.signal);
    S.searching = null;
    S.botLevel = r.bot || null;
    enterRoom(r.roomId, r.invite);
  } catch (e) {
    S.searching = null;
    if (e.name !== 'AbortError') S.error = e.message;
    render();
  }
}

function enterRoom(key, invite) {
  Object.assign(S, { screen: 'room', roomKey: key, ...roomState(invite) });
  clearSel();
  try {
    S.thudRounds = JSON.parse(sessionStorage.getItem(`tabula.rounds.${key}`) || '[]');
    S.roundTimeouts = JSON.parse(sessionStorage.getItem(`tabula.roundTimeouts.${key}`) || '{}');
    // The move log of this room as this tab saw it (kept across a reload).
    S.log = JSON.parse(sessionStorage.getItem(`tabula.log.${key}`) || '[]');
  } catch {}
  history.replaceState(null, '', `${location.pathname}?join=${encodeURIComponent(key)}${location.hash}`);
  net.join(key);
  render();
}

function toLobby() {
  // A game against the computer is only paused by going back: keep the seat.
  if (playing() && S.seat && vsComputer()) net.stepAway();
  else net.leaveRoom();
  S.screen = 'lobby';
  S.view = null;
  S.roomKey = null;
  S.queue = [];
  S.animating = false;
  S.local = null;
  S.sheet = null;
  history.replaceState(null, '', `${location.pathname}${location.hash}`);
  loadStats();
  render();
}

async function loadStats() {
  if (!net?.player) return;
  try {
    S.stats = await api('GET', `/api/players/${encodeURIComponent(net.player)}/stats`);
    render();
  } catch {}
  loadUnfinished();
}

/** The player's paused games against the computer, for the lobby's "Continue" cards. */
async function loadUnfinished() {
  try {
    const r = await api('GET', '/api/me/games', undefined, credHeaders());
    S.unfinished = r.games || [];
    if (S.screen === 'lobby') render();
  } catch {}
}

/**
 * The kind of a result as said: Thud!'s "on total points" only when both
 * rounds were played (a resignation, a forfeit or a clock run out decides
 * the game otherwise).
 */
function resultKind(kind, res) {
  if (kind === 'thudTotals' && res?.reason && res.reason !== 'roundsOver') return '';
  return kindName(kind);
}

/** "You lost — Mars · 2 points · you did not come back in time." for a finished game's result. */
function resultSentence(res, seat) {
  if (!res) return `${t('result.gameOver')}.`;
  const who = !seat ? (res.winner ? t('result.sideWon', { side: seatWord(res.winner) }) : t('result.draw'))
    : res.winner === seat ? t('result.youWon').replace(/!$/, '') : res.winner ? t('result.youLost') : t('result.draw');
  const pts = res.points ? t('result.points', { n: res.points }) : '';
  const why = res.reason && res.reason !== 'borneOff' && res.reason !== 'roundsOver' ? ` · ${reasonFor(res, seat)}` : '';
  const kind = resultKind(res.kind, res);
  return t('result.sentence', { who, kind, pts: kind ? pts : pts.replace(/^ · /, ''), why: kind || pts ? why : why.replace(/^ · /, '') });
}

/** Why a game ended, as its player (or a spectator) is told: "you did not come back in time", "your opponent ran out of time". */
function reasonFor(res, seat) {
  if (seat && res.winner && res.reason === 'disconnected' && res.winner !== seat) return t('reason.youDisconnected');
  if (seat && res.winner && res.reason === 'timeout') return res.winner === seat ? t('reason.theyTimedOut') : t('reason.youTimedOut');
  return reasonName(res.reason);
}

/**
 * A game lost on time, said whole: who ran out (the viewer or his
 * opponent; a spectator is told the side) and the kind of loss.
 */
function timeoutSentence(res, seat) {
  const kind = kindName(res.kind).toLowerCase();
  const pts = res.points ? t('result.points', { n: res.points }) : '';
  const loser = res.winner ? other(res.winner) : null;
  if (seat && loser === seat) return t('result.youTimedOut', { kind, pts });
  if (seat && loser) return t('result.theyTimedOut', { kind, pts });
  return `${t('result.timeout', { side: loser ? seatWord(loser) : '' })} — ${kind}${pts}.`;
}

/** Thud!: a round that ended on time, said for the viewer. */
function roundTimeoutSentence(round, seat) {
  if (S.seat && seat === S.seat) return t('thud.roundTimeoutYou', { round });
  if (S.seat && seat) return t('thud.roundTimeoutThem', { round });
  return t('thud.roundTimeoutSide', { round, side: seat ? seatWord(seat, 'thud') : '' });
}

// ---- room actions -------------------------------------------------------------

function sendReady() {
  const r = new Uint8Array(16);
  crypto.getRandomValues(r);
  net.send({ type: 'setClientSeed', seed: Array.from(r, (b) => b.toString(16).padStart(2, '0')).join('') });
  net.send({ type: 'ready' });
  tg.haptic('light');
}

/** A tap again this long after a roll that got no answer asks again. */
const ROLL_AGAIN_MS = 2000;

/**
 * The roll. One at a time: while a `rollDice` is unanswered, taps do
 * nothing for ROLL_AGAIN_MS, then a tap sends the same command again (its
 * `seq`, so the server applies it once: lost on the way, it is applied now;
 * applied with its answer lost, the answer is `ack` `duplicate` and the app
 * resyncs). A refused roll is no longer waiting: the next tap rolls.
 */
function roll() {
  const asked = [...net.pending.values()].find((c) => c.type === 'rollDice');
  if (asked && Date.now() - S.rollAskedAt < ROLL_AGAIN_MS) return;
  S.rollAskedAt = Date.now();
  // Once the dice are in, the focus goes to the board (its first movable checker).
  S.focusBoard = true;
  if (asked) net.raw(asked);
  else net.send({ type: 'rollDice' });
  tg.haptic('medium');
}

const spot = (s) => (s === 'off' || s === 'bar' ? s : Number(s));

function playPath(path) {
  sound.play('checker');
  if (confirmTurns() && isDice()) {
    localPlay(path);
    return;
  }
  // Steps of one tap go out together; nothing is offered until all are echoed.
  S.inflight = path.length;
  for (const [from, to] of path) net.send({ type: 'move', from: spot(from), to: spot(to) });
  clearSel();
  tg.haptic('light');
  render();
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

const stepText = (g, [f, to]) => (g === 'long_nardy' ? `${f}-${to}` : `${f}/${to}`);
const playText = (g, steps) => steps.map((st) => stepText(g, st)).join(g === 'long_nardy' ? ',' : ' ');

/** Starts the local turn when the player's own offer arrives (confirmation on). */
function ensureLocal() {
  const v = S.view;
  if (!confirmTurns() || !isDice() || !myTurn() || need() !== 'move' || !v.moves || v.moves.seat !== S.seat) return;
  if (S.local) return;
  S.local = { offer0: v.moves, groups: [], pos: structuredClone(v.board.position), asking: null, complete: false, sent: false };
}

const localSteps = () => (S.local ? S.local.groups.flatMap((g) => g.steps) : []);
/** What the board offers now: the local turn's latest offer, or the server's. */
function currentMoves() {
  const L = S.local;
  if (!L) return S.view?.moves;
  if (L.asking || L.sent || L.complete) return null;
  return L.groups.length ? L.groups[L.groups.length - 1].offer : L.offer0;
}

function localPlay(path) {
  const L = S.local;
  if (!L || L.asking || L.sent || L.complete) return;
  const g = game();
  const before = structuredClone(L.pos);
  const me = S.seat === 'a' ? 'white' : 'black';
  const opp = me === 'white' ? 'black' : 'white';
  for (const [from, to] of path) {
    const hit = g === 'backgammon' && to !== 'off' && (L.pos[opp]?.[String(25 - Number(to))] || 0) === 1;
    if (hit) sound.play('hit');
    applyStep(g, L.pos, S.seat, String(from), String(to), hit);
  }
  L.groups.push({ steps: path.map(([f, to]) => [String(f), String(to)]), before, offer: null });
  L.asking = playText(g, localSteps());
  clearSel();
  tg.haptic('light');
  net.send({ type: 'preview', play: L.asking });
  render();
}

/** A play's steps in one spelling ("24-18,18-13", "13/7 8/7*" and the server's "13-7,8-7" alike). */
const samePlay = (text) => String(text || '').replace(/\*/g, '').split(/[\s,]+/).filter(Boolean).map((st) => st.split(/[-/]/).join('>')).join(' ');

function onPreview(m) {
  const L = S.local;
  if (!L || !L.asking) return;
  // An answer for steps since undone is not this offer.
  if (samePlay(m.play) !== samePlay(L.asking)) return;
  L.asking = null;
  const top = L.groups[L.groups.length - 1];
  if (m.complete) {
    L.complete = true;
    if (!confirmTurns()) sendTurn();
  } else {
    top.offer = { seat: S.seat, diceLeft: m.diceLeft, firstSteps: m.firstSteps, sequences: m.sequences };
  }
}

function undo() {
  const L = S.local;
  if (!L || L.sent || !L.groups.length) return;
  const top = L.groups.pop();
  L.pos = top.before;
  L.complete = false;
  L.asking = null;
  clearSel();
  tg.haptic('light');
  render();
}

function sendTurn() {
  const L = S.local;
  if (!L || !L.complete || L.sent) return;
  L.sent = true;
  net.send({ type: 'turn', play: playText(game(), localSteps()) });
  tg.haptic('medium');
  render();
}

// ---- the opponent's steps, one after another ------------------------------------
//
// Events are applied in order; a step by someone else (the opponent, the
// computer, or anyone while watching) is drawn sliding from its point to
// the next before the events after it are applied, so a whole turn that
// arrives in a few milliseconds is seen step by step.

/** How long one step of someone else's turn slides (settings: normal, fast, off). */
const stepMs = () => ({ normal: 320, fast: 140, off: 0 })[pref('speed', 'normal')] ?? 320;

function enqueue(e) {
  S.queue.push(e);
  pump();
}

function pump() {
  while (!S.animating && S.queue.length) {
    const e = S.queue.shift();
    const ms = stepMs();
    // The player's own steps played for him (auto-play) slide too: he did not lay them out.
    const animate = ms > 0 && e.type === 'moved' && (e.seat !== S.seat || S.autoMoving > 0) && isDice() && !document.hidden;
    // A player without a legal move sees his dice and "No moves" before the turn passes.
    const hold = ms > 0 && e.type === 'turnPassed' && !document.hidden ? 5 * ms : 0;
    const from = animate ? checkerRect(e.seat, e.from) : null;
    applyEvent(e);
    render();
    if (animate || hold) {
      S.animating = true;
      if (animate) slide(e.seat, e.to, from, ms);
      setTimeout(() => {
        S.animating = false;
        pump();
        autoTurn();
        render();
      }, hold || ms + 40);
    }
  }
}

/** The point as the board numbers it for this viewer (backgammon draws each side in the viewer's numbering). */
function viewPoint(seat, p) {
  if (p === 'off' || p === 'bar' || game() !== 'backgammon') return String(p);
  const viewer = S.seat || 'a';
  return seat === viewer ? String(p) : String(25 - Number(p));
}

function topChecker(seat, p) {
  const q = viewPoint(seat, p);
  const color = seat === 'a' ? 'white' : 'black';
  const list = [...document.querySelectorAll(`#board .checker[data-point="${q}"]`)].filter((c) => c.classList.contains(color));
  if (list.length) return list[list.length - 1];
  if (p === 'off') return document.querySelector(seat === (S.seat || 'a') ? '#board #tray' : '#board #tray-opp');
  return null;
}

function checkerRect(seat, p) {
  const c = topChecker(seat, p);
  return c ? c.getBoundingClientRect() : null;
}

function slide(seat, to, fromRect, ms) {
  const el = topChecker(seat, to);
  const svg = document.querySelector('#board svg');
  if (!el || !fromRect || !svg || !el.animate) return;
  const r = el.getBoundingClientRect();
  const box = svg.getBoundingClientRect();
  const vb = svg.viewBox?.baseVal;
  const k = vb && box.width ? vb.width / box.width : 1;
  const dx = (fromRect.left + fromRect.width / 2 - (r.left + r.width / 2)) * k;
  const dy = (fromRect.top + fromRect.height / 2 - (r.top + r.height / 2)) * k;
  el.classList.add('sliding');
  S.sliding = true;
  const end = () => {
    S.sliding = false;
    el.classList.remove('sliding');
  };
  el.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: 'translate(0, 0)' }], { duration: ms, easing: 'ease-in-out' })
    .finished.then(end, end);
}

// ---- the move log -------------------------------------------------------------------
//
// Entries: {game} starts a game; {seat, dice, steps} is a dice turn (with
// `pass` when it had no legal play); {seat, thud} a Thud! move; {seat, note}
// the cube, a resignation, a clock run out or Thud!'s end of a round. Every
// `state` carries the current game's actions (docs/protocol.md), so the log
// of that game is rebuilt from them whenever a state arrives (a player who
// reopens the game, a spectator who comes late); the events after it extend
// it. Earlier games of the room are kept as this tab saw them
// (sessionStorage).

function logTurn(seat, dice) {
  S.log.push({ seat, dice, steps: [] });
  saveLog();
}

function logStep(seat, notation) {
  let last = S.log[S.log.length - 1];
  if (!last || last.seat !== seat || last.pass || !last.steps) {
    last = { seat, dice: S.view?.dice || null, steps: [] };
    S.log.push(last);
  }
  last.steps.push(notation);
  saveLog();
}

/** A roll with no legal play: the roll's own entry says so (one entry, as `logFromActions` makes it). */
function logPass(seat, dice) {
  const last = S.log[S.log.length - 1];
  if (last?.steps && last.seat === seat && !last.steps.length && !last.pass) {
    last.pass = true;
    last.dice = last.dice || dice;
  } else {
    S.log.push({ seat, dice, steps: [], pass: true });
  }
  saveLog();
}

const LOG_NOTES = new Set(['double', 'take', 'drop', 'resign', 'timeOut', 'proposeEnd', 'acceptEnd', 'declineEnd']);

/**
 * Game `n`'s log from its actions as the state gives them (the game
 * record's form). `old`, the entries this tab had for that game, lends its
 * spelling of the same steps: a step seen live carries the server's
 * notation, a backgammon hit's `*` included, which an action does not say.
 */
function logFromActions(g, n, actions, old = []) {
  const out = [{ game: n }];
  const seen = old.flatMap((e) => e.steps || []);
  let k = 0;
  let cube = 1;
  for (const a of actions) {
    const last = out[out.length - 1];
    switch (a.type) {
      case 'opening':
        if (a.firstRoll) out.push({ seat: a.starter, dice: a.firstRoll, steps: [] });
        break;
      case 'roll':
        out.push({ seat: a.seat, dice: a.dice, steps: [] });
        break;
      case 'step': {
        let e = last;
        if (!e.steps || e.seat !== a.seat || e.pass) {
          e = { seat: a.seat, dice: null, steps: [] };
          out.push(e);
        }
        const text = stepText(g, [a.from, a.to]);
        const live = seen[k];
        e.steps.push(live && live.replace(/\*/g, '') === text ? live : text);
        k += 1;
        break;
      }
      case 'pass':
        if (last.steps && last.seat === a.seat && !last.steps.length && !last.pass) last.pass = true;
        else out.push({ seat: a.seat, dice: null, steps: [], pass: true });
        break;
      case 'thudMove':
        out.push({ seat: a.seat, thud: a.notation });
        break;
      default:
        if (!LOG_NOTES.has(a.type)) break;
        if (a.type === 'double') cube *= 2;
        out.push({ seat: a.seat, note: a.type, reason: a.reason, cube: a.type === 'double' ? cube : undefined });
        break;
    }
  }
  return out;
}

/** The log rebuilt for the state's game; earlier games stay as they were. */
function rebuildLog(v) {
  const n = v.gameNumber;
  if (!n) return;
  const at = S.log.findIndex((e) => e.game >= n);
  let keep = at < 0 ? S.log : S.log.slice(0, at);
  // Entries before any game mark are of an unknown game: the actions replace them.
  const first = keep.findIndex((e) => e.game);
  keep = first < 0 ? [] : keep.slice(first);
  const old = at < 0 ? [] : S.log.slice(at).filter((e) => !e.game || e.game === n);
  S.log = [...keep, ...logFromActions(v.game, n, v.actions || [], old)];
  saveLog();
}

function saveLog() {
  // At most 600 entries, dropping earlier games first (the current one stays whole).
  const cur = S.log.findLastIndex((e) => e.game);
  const over = S.log.length - 600;
  if (over > 0 && cur > 0) S.log.splice(0, Math.min(over, cur));
  try {
    sessionStorage.setItem(`tabula.log.${S.roomKey}`, JSON.stringify(S.log));
  } catch {}
}

function thudPlay(mv) {
  net.send({ type: 'thudMove', notation: mv.notation });
  clearSel();
  tg.haptic(mv.captures.length ? 'heavy' : 'light');
  render();
}

function ask(text, yes, onYes) {
  S.confirm = { text, yes, onYes };
  render();
}

function resign() {
  ask(t('ask.resign'), t('btn.resign'), () => net.send({ type: 'resign' }));
}

function leave() {
  // A game against the computer waits for its player (it pauses): leaving loses nothing.
  if (playing() && S.seat && !vsComputer()) ask(t('ask.leave'), t('btn.leave'), toLobby);
  else toLobby();
}

const vsComputer = () => Boolean(S.view?.seats?.some((s) => s.bot));

async function playAgain() {
  const v = S.view;
  if (!v) return toLobby();
  if (v.phase === 'waiting_for_player') {
    S.gameOver = null;
    S.ended = null;
    S.showResult = false;
    sendReady();
    render();
    return;
  }
  const bot = v.seats[1]?.bot;
  if (bot) {
    try {
      const r = await api('POST', '/api/rooms', { game: v.game, options: v.options, bot: { level: bot }, matchLength: v.matchLength }, credHeaders());
      S.botLevel = bot;
      enterRoom(r.roomId, r.invite);
    } catch (e) {
      toast(e.message, 'error');
    }
  } else {
    toLobby();
  }
}

async function verifySeed() {
  const seed = S.ended?.serverSeed;
  const commit = S.commitment;
  if (!seed) return;
  const got = await sha256hex(seed);
  S.verify = commit ? { ok: got === commit, got } : { ok: null, got };
  render();
}

// ---- server messages -------------------------------------------------------

const RESYNC = new Set(['rematchStarted', 'gameStarted', 'doubleOffered', 'doubleTaken', 'doubleDropped', 'endProposed', 'endDeclined', 'thudMoved', 'roundEnded', 'gameEnded', 'matchOver']);

/** Asks for a fresh full `state` (the answer to `join`), in order with the events. */
function resync() {
  if (S.roomKey && net.room) net.join(net.room.key, net.room.spectate);
}

function onMessage(m) {
  switch (m.type) {
    case 'welcome':
      S.player = m.player;
      if (m.profile) {
        S.profile = m.profile;
        profiles.set(m.player, m.profile);
      }
      if (S.screen === 'lobby') loadStats();
      pl.onWelcome();
      break;
    case 'state': {
      if (!S.roomKey) break;
      // The server's clock, read on receipt; a ping refines it.
      serverClock.sample(m.serverTime);
      if (m.state.clock && Date.now() - pingAt > 30000) ping();
      const first = !S.view;
      if (first || m.state.version >= S.version) {
        noteClock(S.view?.clock, m.state.clock);
        // Whether this turn's player may double is said by its turnStarted only.
        S.mayDoubleKnown = false;
        S.roomId = m.room;
        S.seat = m.yourSeat;
        // The room's recent chat comes with its state (kept across reopening).
        for (const c of m.state.chat || []) {
          if (!S.chatSeen.has(c.version)) {
            S.chatSeen.add(c.version);
            S.chat.push({ from: c.from, text: c.text, version: c.version, key: c.key, params: c.params });
          }
        }
        S.chat.sort((a, b) => a.version - b.version);
        // The state is the truth: events still waiting to be drawn are in it.
        S.queue = [];
        // A local turn survives a resync of the same offer (a reconnect mid-turn).
        if (S.local && JSON.stringify(S.local.offer0) !== JSON.stringify(m.state.moves)) S.local = null;
        S.view = m.state;
        S.version = m.state.version;
        // The whole game's log from its actions; the events after this state extend it.
        rebuildLog(m.state);
        S.rematch = m.state.rematch?.length ? Object.fromEntries(m.state.rematch.map((x) => [x, true])) : null;
        // Steps still unanswered (resent after a reconnect) are still on their way.
        S.inflight = [...net.pending.values()].filter((c) => c.type === 'move').length;
        net.version = S.version;
        if (S.view.commitment) S.commitment = S.view.commitment;
        if (S.sel && !(S.view.moves && movableFrom(S.view.game, S.view.moves).has(S.sel))) clearSel();
        if (first && !S.invite && S.roomKey !== m.room) S.invite = S.roomKey;
        if (S.view.phase === 'finished' && !S.summary) loadSummary();
        ensureLocal();
        // Back to a game that ended while away (a forfeit, say): say how.
        if (first && S.view.phase === 'finished' && S.view.lastResult && S.seat && !S.ended) {
          S.ended = { result: S.view.lastResult };
          S.showResult = true;
        }
      }
      break;
    }
    case 'event':
      if (!S.view || m.version <= S.version) break;
      S.version = m.version;
      net.version = m.version;
      // The clocks are the server's figures for now: shown at once, not
      // behind the animation of steps already played.
      if (m.event.type === 'clock') applyClock(m.event);
      else enqueue(m.event);
      break;
    case 'pong':
      if (pingAt && Date.now() - pingAt < 5000) serverClock.sample(m.serverTime, Date.now() - pingAt);
      pingAt = 0;
      break;
    case 'preview':
      onPreview(m);
      break;
    case 'hint':
      if (S.hint) S.hint = { plays: m.plays || [] };
      break;
    case 'chat':
      if (!S.chatSeen.has(m.version)) {
        S.chatSeen.add(m.version);
        S.chat.push({ from: m.from, text: m.text, version: m.version, key: m.key, params: m.params });
        S.chat.sort((a, b) => a.version - b.version);
      }
      if (S.view && m.version > S.version) {
        S.version = m.version;
        net.version = m.version;
      }
      break;
    case 'game_over':
      if (!S.gameOver || S.gameOver.version !== m.version) {
        S.gameOver = m;
        S.showResult = true;
        tg.haptic(m.result === 'win' ? 'success' : m.result === 'lose' ? 'error' : 'warning');
      }
      if (S.view && m.version > S.version) {
        S.version = m.version;
        net.version = m.version;
      }
      loadStats();
      break;
    case 'opponent_left':
      toast(narrate(m) || t('toast.opponentLeft'), 'warn', 4000);
      break;
    case 'ack':
      // A command resent after its answer was lost: applied before, so
      // what it caused was missed here. The state catches up.
      if (m.duplicate) resync();
      break;
    case 'error':
      if (m.code === 'time_up') {
        // Sent after the deadline, before the server said so: the result follows at once.
        S.inflight = 0;
        S.autoMoving = 0;
        break;
      }
      if (m.code === 'replaced') {
        // The same player opened the game in another window: do not fight over the seat.
        net.close();
        S.conn = 'replaced';
        break;
      }
      if ((m.code === 'room_full' || m.code === 'game_in_progress' || m.code === 'match_finished') && S.roomKey && !S.view && !net.room?.spectate) {
        // Both seats are taken: watch instead.
        net.join(S.roomKey, true);
        toast(t('toast.full'), 'info', 3000);
      } else if (m.code === 'room_not_found') {
        // Unknown code, or (a single node restarted without a shared store) the room is gone.
        if (S.view) m.message = t('toast.gone');
        S.error = m.message;
        S.screen = 'lobby';
        S.roomKey = null;
        net.room = null;
      } else if (S.local?.asking && m.code !== 'rate_limited') {
        // The server refused the tentative step: take it back.
        undo();
        toast(m.message, 'error');
      } else if (S.local?.sent) {
        S.local = null;
        toast(m.message, 'error');
        resync();
      } else if (S.hint && (m.code === 'hints_disabled' || m.code === 'not_time_for_hint' || m.code === 'hint_pending')) {
        S.hint = { plays: [], error: m.message };
      } else if (m.code === 'illegal_move' || m.code === 'not_your_turn' || m.code === 'already_rolled' || m.code === 'incomplete_turn') {
        S.inflight = 0;
        toast(m.message, 'error');
        resync();
      } else if (m.code !== 'already_ready' && m.code !== 'rate_limited' && m.code !== 'unavailable') {
        toast(m.message, 'error');
      }
      break;
    default:
      break;
  }
  autoReady();
  autoTurn();
  render();
}

// ---- clocks -----------------------------------------------------------------------

/** Notes a new clock (state or event): a new period may be warned about again. */
function noteClock(prev, next) {
  if (newPeriod(prev?.running, next?.running)) {
    S.periodId += 1;
    const live = $('#clock-live');
    if (live) live.textContent = '';
  }
}

/** The `clock` event: it replaces state.clock. */
function applyClock(e) {
  if (!S.view) return;
  const next = { delayMs: e.delayMs, reserveMs: e.reserveMs, reserve: e.reserve, running: e.running || null };
  noteClock(S.view.clock, next);
  S.view.clock = next;
  if (!S.view.timeControl) S.view.timeControl = { delayMs: e.delayMs, reserveMs: e.reserveMs };
}

/** Fills a player's clock: free time then reserve while it runs ("0:12 +1:45"), the reserve while he waits ("+1:45"). */
function fillClock(el, seat, now) {
  const c = S.view?.clock;
  if (!c) return;
  const f = clockFigures(c, seat, now);
  // The last seconds in red: the player's own clock (a spectator's: whichever runs).
  const low = f.running && playing() && f.total <= WARN_MS && (seat === S.seat || !S.seat || Boolean(net.room?.spectate));
  const free = f.running && f.free > 0 ? formatClock(f.free) : '';
  const bank = `+${formatClock(f.bank)}`;
  const key = `${free}|${bank}|${f.running}|${f.paused}|${low}`;
  if (el.dataset.key === key) return;
  el.dataset.key = key;
  el.classList.toggle('running', f.running && !f.paused);
  el.classList.toggle('paused', f.paused);
  el.classList.toggle('spending', f.running && !f.paused && f.free === 0);
  el.classList.toggle('low', low);
  el.querySelector('.free').textContent = free;
  el.querySelector('.bank').textContent = bank;
  el.setAttribute('aria-label', f.running ? t('clock.running', { free: formatClock(f.free), bank: formatClock(f.bank) }) : t('clock.waiting', { bank: formatClock(f.bank) }));
}

function clockBox(seat) {
  const el = h('span.clock', { 'data-seat': seat, role: 'timer' }, h('span.free'), h('span.bank'));
  fillClock(el, seat, serverNow());
  return el;
}

/**
 * Every 200 ms in a room: the clocks and the away countdowns from the
 * server's figures and time; the player's own last seconds warned once
 * per period (colour, a live announcement, Telegram's haptic warning).
 */
function tickClocks() {
  if (S.screen !== 'room' || !S.view) return;
  const now = serverNow();
  for (const el of document.querySelectorAll('#players .clock[data-seat]')) fillClock(el, el.dataset.seat, now);
  for (const el of document.querySelectorAll('#players .away[data-deadline]')) {
    el.textContent = t('room.away', { n: Math.max(0, Math.round((Number(el.dataset.deadline) - now) / 1000)) });
  }
  const c = S.view.clock;
  const r = c?.running;
  if (!r || !S.seat || r.seat !== S.seat || typeof r.since !== 'number' || !playing() || net.room?.spectate) return;
  const f = clockFigures(c, S.seat, now);
  if (f.total > WARN_MS || f.total <= 0 || S.clockWarned === S.periodId) return;
  S.clockWarned = S.periodId;
  const live = $('#clock-live');
  if (live) live.textContent = t('clock.warn', { n: Math.ceil(f.total / 1000) });
  tg.haptic('warning');
}

// ---- the automatic turn (settings) -----------------------------------------------

/**
 * Auto-roll: the player's roll at the start of his turn, unless he may
 * offer the cube. Auto-play: the only legal play of a turn, sent as one
 * `turn` (whether or not turns wait for Done). Only once the view has
 * caught up with every event (nothing waiting to be drawn).
 */
function autoTurn() {
  const v = S.view;
  if (!v || S.screen !== 'room' || !isDice() || !myTurn() || v.paused || net.room?.spectate || S.animating || S.queue.length) return;
  if (need() === 'roll') {
    const mayDouble = S.mayDoubleKnown ? Boolean(S.mayDouble) : null;
    const rolling = [...net.pending.values()].some((c) => c.type === 'rollDice');
    if (!rolling && shouldAutoRoll({ on: autoRollOn(), toRoll: true, cube: v.cube, seat: S.seat, mayDouble })) roll();
    return;
  }
  if (need() !== 'move' || !autoPlayOn() || S.inflight || v.moves?.seat !== S.seat) return;
  const L = S.local;
  if (L && (L.groups.length || L.asking || L.sent)) return;
  const play = forcedPlay(v.moves);
  if (!play || S.autoPlayed === S.version || [...net.pending.values()].some((c) => c.type === 'turn')) return;
  S.autoPlayed = S.version;
  const steps = parseSteps(game(), play);
  S.local = null;
  clearSel();
  S.inflight = steps.length;
  S.autoMoving = steps.length;
  net.send({ type: 'turn', play });
  toast(t('toast.autoPlayed', { play }), 'info', 2500);
  tg.haptic('light');
}

/**
 * Against the computer there is no Ready step: the app presses it (with its
 * client seed) for each game as soon as the room waits for it.
 */
function autoReady() {
  const v = S.view;
  if (!v || v.phase !== 'waiting_for_player' || !S.seat || net.room?.spectate) return;
  const mine = v.seats[seatIdx(S.seat)];
  const other = v.seats[1 - seatIdx(S.seat)];
  if (!other?.bot || mine?.ready || S.autoReady === `${S.roomId}:${v.gameNumber}`) return;
  S.autoReady = `${S.roomId}:${v.gameNumber}`;
  sendReady();
}

async function loadSummary() {
  const id = S.roomId || S.roomKey;
  if (!id) return;
  try {
    S.summary = await api('GET', `/api/rooms/${encodeURIComponent(id)}/summary`);
    render();
  } catch {}
}

function applyEvent(e) {
  const v = S.view;
  const i = seatIdx(e.seat);
  switch (e.type) {
    case 'seatTaken':
      v.seats[i] = { player: e.player, bot: null, ready: false, disconnectDeadline: null };
      break;
    case 'botSeated':
      v.seats[i] = { player: null, bot: e.level, ready: false, disconnectDeadline: null };
      break;
    case 'seatFreed':
      v.seats[i] = { player: null, bot: null, ready: false, disconnectDeadline: null };
      break;
    case 'ready':
      v.seats[i].ready = true;
      break;
    case 'gameStarted':
      S.log.push({ game: (v.gameNumber || 0) + 1 });
      saveLog();
      S.rematch = null;
      S.lastTurn = [];
      S.commitment = e.commitment;
      S.gameOver = null;
      S.ended = null;
      S.summary = null;
      S.verify = null;
      S.lastMove = null;
      S.roundTimeouts = {};
      try {
        sessionStorage.removeItem(`tabula.roundTimeouts.${S.roomKey}`);
      } catch {}
      v.phase = 'playing';
      break;
    case 'openingRoll': {
      const last = e.rolls[e.rolls.length - 1] || [];
      toast(t('toast.opening', { a: last[0], b: last[1], who: e.starter === S.seat ? t('toast.youStart') : t('toast.starts', { side: sideName(e.starter) }) }));
      break;
    }
    case 'turnStarted':
      S.local = null;
      S.hint = null;
      S.noMoves = null;
      v.toAct = { seat: e.seat, need: 'roll' };
      S.inflight = 0;
      v.dice = null;
      v.moves = null;
      S.mayDouble = e.mayDouble && e.seat === S.seat;
      S.mayDoubleKnown = true;
      clearSel();
      break;
    case 'diceRolled':
      v.dice = e.dice;
      v.toAct = { seat: e.seat, need: 'move' };
      S.lastTurn = [];
      logTurn(e.seat, e.dice);
      sound.play('dice');
      break;
    case 'possibleMoves':
      v.moves = { seat: e.seat, diceLeft: e.diceLeft, firstSteps: e.firstSteps, sequences: e.sequences };
      if (S.sel && !movableFrom(v.game, v.moves).has(S.sel)) clearSel();
      else if (S.sel) S.targets = targetsFrom(v.game, v.moves, S.sel);
      ensureLocal();
      break;
    case 'moved':
      if (v.board?.position) applyStep(v.game, v.board.position, e.seat, String(e.from), String(e.to), e.hit);
      S.lastMove = { seat: e.seat, from: String(e.from), to: String(e.to) };
      S.lastTurn.push(S.lastMove);
      logStep(e.seat, e.notation || stepText(v.game, [e.from, e.to]));
      if (e.seat !== S.seat) sound.play(e.hit ? 'hit' : 'checker');
      // The offer was for the position before this step; the next one follows.
      v.moves = null;
      if (e.seat === S.seat) {
        clearSel();
        S.inflight = Math.max(0, (S.inflight || 0) - 1);
        S.autoMoving = Math.max(0, S.autoMoving - 1);
      }
      if (e.seat !== S.seat) tg.haptic('select');
      break;
    case 'turnPassed':
      v.moves = null;
      logPass(e.seat, e.dice);
      S.lastTurn = [];
      S.noMoves = { seat: e.seat, dice: e.dice };
      v.dice = e.dice;
      toast(e.seat === S.seat ? t('toast.noMovesYou', { dice: e.dice.join('–') }) : t('toast.noMoves', { who: seatName(e.seat), dice: e.dice.join('–') }), 'info', 3000);
      break;
    case 'thudMoved':
      S.lastMove = parseThud(e.notation);
      S.log.push({ seat: e.seat, thud: e.notation });
      saveLog();
      sound.play(e.captured ? 'hit' : 'checker');
      if (e.captured) toast(t('toast.captured', { notation: e.notation, n: e.captured }), 'info', 2000);
      break;
    case 'roundEnded':
      S.thudRounds[e.round - 1] = e.points;
      if (e.reason === 'timeout') {
        // Who ran out: the seat whose clock ran (the clock event that stops it comes after).
        const who = v.clock?.running?.seat || v.toAct?.seat || null;
        S.roundTimeouts[e.round] = who;
        toast(roundTimeoutSentence(e.round, who), 'warn', 5000);
        if (who && who === S.seat) tg.haptic('warning');
      }
      try {
        sessionStorage.setItem(`tabula.rounds.${S.roomKey}`, JSON.stringify(S.thudRounds));
        sessionStorage.setItem(`tabula.roundTimeouts.${S.roomKey}`, JSON.stringify(S.roundTimeouts));
      } catch {}
      break;
    case 'playerDisconnected':
      v.seats[i].disconnectDeadline = e.deadline;
      break;
    case 'playerReconnected':
      v.seats[i].disconnectDeadline = null;
      break;
    case 'rematchOffered':
      S.rematch = { ...(S.rematch || {}), [e.seat]: true };
      if (e.seat !== S.seat && S.seat) toast(t('toast.rematchAsked'), 'info', 4000);
      break;
    case 'rematchDeclined':
      if (S.rematch) toast(t('toast.rematchDeclined'), 'warn', 3000);
      S.rematch = null;
      break;
    case 'rematchStarted':
      // The seats swap (so do the colours): the state that follows says which is ours now.
      S.rematch = null;
      S.gameOver = null;
      S.ended = null;
      S.summary = null;
      S.showResult = false;
      break;
    case 'gameEnded':
      if (S.seat) sound.play(e.result?.winner === S.seat ? 'win' : e.result?.winner ? 'loss' : 'checker');
      S.local = null;
      S.autoMoving = 0;
      S.ended = e;
      v.lastResult = e.result;
      v.score = e.matchScore;
      S.showResult = true;
      loadSummary();
      break;
    default:
      break;
  }
  if (RESYNC.has(e.type)) resync();
}

// ---- board interaction ---------------------------------------------------------

let drag = null;

function boardPointerDown(ev) {
  if (S.screen !== 'room' || !S.view) return;
  const t = ev.target.closest('[data-point],[data-sq]');
  drag = { x: ev.clientX, y: ev.clientY, t, moved: false, ghost: null, id: ev.pointerId };
  if (isDice() && myTurn() && need() === 'move' && !S.inflight && t?.dataset.point) {
    const p = t.dataset.point;
    if (movableFrom(game(), currentMoves()).has(p) && t.classList.contains('checker')) {
      drag.from = p;
    }
  }
}

function cancelDrag() {
  drag?.ghost?.remove();
  drag = null;
}

function boardPointerMove(ev) {
  if (!drag || !drag.from) return;
  const dx = ev.clientX - drag.x;
  const dy = ev.clientY - drag.y;
  if (!drag.moved && dx * dx + dy * dy > 64) {
    drag.moved = true;
    select(drag.from, true);
    drag.ghost = h('div.ghost');
    document.body.append(drag.ghost);
  }
  if (drag.ghost) {
    drag.ghost.style.left = `${ev.clientX}px`;
    drag.ghost.style.top = `${ev.clientY}px`;
  }
}

function boardPointerUp(ev) {
  const d = drag;
  drag = null;
  if (!d) return;
  if (d.ghost) d.ghost.remove();
  if (d.moved) {
    const under = document.elementFromPoint(ev.clientX, ev.clientY)?.closest('[data-point]');
    const p = under?.dataset.point;
    if (p && S.targets?.has(p)) playPath(S.targets.get(p));
    render();
    return;
  }
  tap(d.t);
}

function select(p, keep) {
  if (S.sel === p && !keep) {
    clearSel();
  } else {
    S.sel = p;
    S.targets = targetsFrom(game(), currentMoves(), p);
    tg.haptic('select');
  }
  render();
}

function tap(t) {
  const v = S.view;
  if (!v || !S.seat) return;
  if (game() === 'thud') return tapThud(t);
  if (!myTurn()) return;
  if (need() === 'roll') {
    roll();
    return;
  }
  if (need() !== 'move' || S.inflight) return;
  const p = t?.dataset.point;
  if (p && S.sel && S.targets?.has(p) && p !== S.sel) {
    playPath(S.targets.get(p));
    return;
  }
  if (p && movableFrom(game(), currentMoves()).has(p)) {
    select(p);
    return;
  }
  clearSel();
  render();
}

function tapThud(t) {
  const v = S.view;
  const s = t?.dataset.sq;
  if (!myTurn() || need() !== 'move' || !s) {
    clearSel();
    render();
    return;
  }
  const legal = v.board?.legalMoves || [];
  if (S.sel && S.targets?.has(s)) {
    const list = S.targets.get(s);
    if (list.length === 1) thudPlay(list[0]);
    else {
      S.choose = list;
      render();
    }
    return;
  }
  const t2 = thudTargets(legal, s);
  if (t2.size) {
    S.sel = s;
    S.targets = t2;
    S.choose = null;
    tg.haptic('select');
  } else clearSel();
  render();
}

// ---- rendering ----------------------------------------------------------------

// ---- a press is never disturbed -------------------------------------------------
//
// From the moment a finger (or the mouse) goes down on a control until its
// click, nothing is redrawn: the redraws asked for meanwhile wait for the
// click (or for a moment after the finger lifts without one, or for a press
// held too long), so the control under the finger is neither replaced nor
// moved between the touch and the click. The board handles its own
// pointers (drags) and is not held.

let pressed = false;
let owed = false;
let pressTimer = null;

function holdRenders(ev) {
  if (!ev.target.closest?.('button, select, input, a, label') || ev.target.closest('#board-wrap')) return;
  pressed = true;
  clearTimeout(pressTimer);
  pressTimer = setTimeout(releaseRenders, 1500);
}

function releaseRenders() {
  clearTimeout(pressTimer);
  if (!pressed) return;
  pressed = false;
  if (owed) {
    owed = false;
    render();
  }
}

function liftRenders() {
  if (!pressed) return;
  clearTimeout(pressTimer);
  pressTimer = setTimeout(releaseRenders, 120);
}

function render() {
  if (pressed) {
    owed = true;
    return;
  }
  const app = $('#app');
  if (!app) return;
  document.documentElement.dataset.screen = S.screen;
  if (S.screen === 'lobby') renderLobby(app);
  else if (pl.SCREENS.has(S.screen)) pl.render(app);
  else {
    renderRoom(app);
    focusBoardAfterRoll();
  }
  renderOverlays();
  telegramChrome();
}

/**
 * After the player's roll the focus lands on the board: on its first
 * movable checker, unless he has put it somewhere else meanwhile (the chat).
 */
function focusBoardAfterRoll() {
  if (!S.focusBoard || !S.view) return;
  if (!myTurn() || !isDice()) {
    if (S.view.phase !== 'playing' || (S.view.toAct?.seat && S.view.toAct.seat !== S.seat)) S.focusBoard = false;
    return;
  }
  if (need() !== 'move') return;
  const c = $('#board .checker.movable');
  if (!c) return;
  S.focusBoard = false;
  const a = document.activeElement;
  if (!a || a === document.body || !a.isConnected || a.closest('#board-wrap, #controls')) c.focus({ preventScroll: true });
}

function header(title, left) {
  const theme = tg.active()
    ? null
    : h('button.icon#theme', { title: t('btn.theme'), 'aria-label': t('btn.theme'), onclick: cycleTheme, text: { auto: '◐', light: '☀', dark: '☾' }[document.documentElement.dataset.themeChoice || 'auto'] });
  let conn = null;
  if (S.conn === 'replaced') {
    conn = h('button.conn#conn-status', { onclick: () => { S.conn = 'connecting'; net.connect(); render(); } }, t('conn.replaced'));
  } else if (S.conn !== 'online') {
    conn = h('span.conn#conn-status', { text: S.conn === 'reconnecting' ? t('conn.reconnecting') : t('conn.connecting') });
  }
  const rules = h('button.icon#rules-button', { title: t('btn.rules'), 'aria-label': t('btn.rules'), onclick: () => openSheet('rules', S.screen === 'room' ? game() : S.lobby.game), text: '?' });
  const settings = h('button.icon#settings', { title: t('btn.settings'), 'aria-label': t('btn.settings'), onclick: () => openSheet('settings'), text: '⚙' });
  return h('header.top', left, h('h1', title), conn, rules, settings, theme);
}

function renderLobby(app) {
  const L = S.lobby;
  const opts = (L.options[L.game] = L.options[L.game] || {});
  const gameButtons = GAME_KINDS.map((g) =>
    h(`button.seg${g === L.game ? '.on' : ''}`, { 'data-game': g, 'aria-pressed': String(g === L.game), onclick: () => { L.game = g; render(); } }, gameName(g)),
  );
  const variantRows = VARIANTS[L.game].map(([key, label, choices]) =>
    h('label.row', h('span', t(label)), h('select', { 'data-opt': key, onchange: (e) => { opts[key] = e.target.value; } },
      choices.map(([val, text]) => h('option', { value: val, selected: (opts[key] || choices[0][0]) === val }, t(text))))),
  );
  if (L.game !== 'thud') {
    variantRows.push(h('label.row', h('span', t('opt.match')), h('select#match-length', { onchange: (e) => { L.matchLength = Number(e.target.value); } },
      [1, 3, 5, 7].map((n) => h('option', { value: n, selected: L.matchLength === n }, n === 1 ? t('opt.match.1') : t('opt.match.n', { n }))))));
  }
  // Statistics per kind of game: the chosen game's (a Thud! loss is not in a nardy row).
  const st = gameStats(S.stats, L.game);
  const statsBox = st && st.games
    ? h('section.card.stats#lobby-stats', h('h2', t('lobby.resultsIn', { game: gameName(L.game) })), statsTable(st, L.game))
    : null;
  const page = h('main.lobby',
    header(t('lobby.title')),
    S.error ? h('p.error#lobby-error', S.error) : null,
    continueCards(),
    // Profile, history, leaderboards (players.js).
    pl.lobbyNav(),
    h('section.card', h('h2', t('lobby.game')), h('div.segs', gameButtons), variantRows, h('button.link#rules', { onclick: () => openSheet('rules', L.game) }, t('btn.rules'))),
    h('section.card', h('h2', t('lobby.computer')),
      h('div.row3', [1, 2, 3].map((l) => h(`button.big#bot-${['easy', 'medium', 'hard'][l - 1]}`, { onclick: () => createRoom(l), title: t(`level.${l}.about.${L.game}`) }, levelName(l)))),
      h('p.levels-about', [1, 2, 3].map((l) => h('span', h('b', levelName(l)), ' — ', t(`level.${l}.about.${L.game}`))))),
    h('section.card', h('h2', t('lobby.person')),
      // The clock of a game between people (quick match pairs equal clocks only).
      h('label.row', h('span', t('lobby.clock')), h('select#time-control', { onchange: (e) => { L.timeControl = e.target.value; setPref('timeControl', e.target.value); } },
        TIME_CONTROLS.map((tc) => h('option', { value: tc, selected: L.timeControl === tc }, timeControlName(tc))))),
      S.searching
        ? h('div.row', h('span.spin'), h('span', t('lobby.searching')), h('button#cancel-search', { onclick: () => S.searching?.abort() }, t('btn.cancel')))
        : h('div.row2', h('button.big#quick-match', { onclick: quickMatch }, t('lobby.quick')), h('button.big#create-room', { onclick: () => createRoom(null) }, t('lobby.invite'))),
      h('form.row#join-form', { onsubmit: (e) => { e.preventDefault(); const c = $('#join-code').value.trim(); if (c) enterRoom(c); } },
        h('input#join-code', { placeholder: t('lobby.code'), 'aria-label': t('lobby.code'), autocomplete: 'off', maxlength: 32 }), h('button', { type: 'submit' }, t('btn.join')))),
    statsBox,
    h('footer.note#me', S.player ? t('lobby.signedIn', { name: playerName(S.player) }) : ''),
  );
  mount(app, page);
}

/**
 * Puts a screen's page in the app: patched over the page already there when
 * it is the same screen (its elements kept), else in its place.
 */
function mount(app, page) {
  const cur = app.firstElementChild;
  if (app.childElementCount === 1 && cur.tagName === page.tagName && cur.className === page.className) patch(cur, page);
  else app.replaceChildren(page);
}

/** A time control's name with its figures. */
function timeControlName(tc) {
  if (tc === 'blitz') return t('tc.blitz');
  if (tc === 'normal') return t('tc.normal');
  if (tc === 'long') return t('tc.long');
  return t('tc.none');
}

/** One card per paused game against the computer: game, level, score, the board as left. */
function continueCards() {
  const list = S.unfinished || [];
  if (!list.length) return null;
  return h('section.card.continue#continue', h('h2', t('lobby.continue')),
    list.map((g) => {
      const board = h('div.mini-board', { 'aria-hidden': 'true' });
      if (g.board && g.game !== 'thud') {
        renderNardy(board, { game: g.game, position: g.board.position, seat: g.yourSeat, movable: new Set(), targets: new Set() });
      } else if (g.board) {
        renderThud(board, { position: g.board.position, legalMoves: [], mine: null, myTurn: false, targets: new Map() });
      }
      const mine = seatIdx(g.yourSeat);
      const score = g.matchLength > 1 ? t('lobby.score', { mine: g.score[mine], theirs: g.score[1 - mine], n: g.matchLength }) : '';
      const ago = Math.max(1, Math.round((Date.now() - g.pausedAt) / 60000));
      const when = ago < 60 ? t('ago.min', { n: ago }) : ago < 2880 ? t('ago.h', { n: Math.round(ago / 60) }) : t('ago.days', { n: Math.round(ago / 1440) });
      return h('button.continue-game', { 'data-room': g.roomId, onclick: () => enterRoom(g.roomId) },
        board,
        h('span.continue-text', h('b', t('lobby.vs', { game: gameName(g.game), level: levelName(g.bot) })), h('span', t('lobby.left', { when, score }))));
    }));
}

/** A player's statistics in one kind of game (all together from a node that keeps no rows per game). */
function gameStats(st, g) {
  if (!st) return null;
  if (st.byGame) return st.byGame[g] || null;
  return st;
}

/** A player's statistics in a kind of game `g` (Thud! has no mars: not mentioned there). */
function statsTable(st, g) {
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

function ensureRoomSkeleton(app) {
  let page = $('main.room', app);
  if (page) return page;
  const chatForm = h('form#chat-form', {
    onsubmit: (e) => {
      e.preventDefault();
      const inp = $('#chat-input');
      const t = inp.value.trim();
      if (t) net.send({ type: 'chat', text: t });
      inp.value = '';
    },
  }, h('input#chat-input', { placeholder: t('chat.placeholder'), 'aria-label': t('chat.placeholder'), maxlength: 500, autocomplete: 'off' }), h('button', { type: 'submit' }, t('btn.send')));
  page = h('main.room',
    h('div#room-header'),
    h('div#players'),
    h('div#board-wrap', { onpointerdown: boardPointerDown, onpointermove: boardPointerMove, onpointerup: boardPointerUp, onpointercancel: cancelDrag }, h('div#board')),
    h('div#status'),
    // The clock's warning, said once per period to a screen reader.
    h('div.sr-only#clock-live', { 'aria-live': 'assertive', role: 'status' }),
    h('div#controls'),
    h('div#info'),
    h('section.chat', h('div#chat'), chatForm),
  );
  app.replaceChildren(page);
  return page;
}

function renderRoom(app) {
  const page = ensureRoomSkeleton(app);
  const v = S.view;
  patchChildren($('#room-header', page), [header(v ? gameName(v.game) : t('lobby.title'), tg.active() ? null : h('button.icon#leave', { title: t('btn.leave'), 'aria-label': t('btn.leave'), onclick: leave, text: '‹' }))]);
  if (!v) {
    $('#board', page).replaceChildren(h('p.loading', t('room.joining')));
    return;
  }
  renderPlayers($('#players', page));
  // A sliding checker is not redrawn under itself: the board waits for the step's end.
  if (!S.sliding) renderBoard($('#board', page));
  patchChildren($('#status', page), statusLine());
  patchChildren($('#controls', page), controls());
  patchChildren($('#info', page), info());
  renderChat($('#chat', page));
}

function renderPlayers(box) {
  const v = S.view;
  const me = S.seat || 'a';
  const order = [other(me), me];
  const p = isDice() && v.board ? pips(v.game, v.board.position) : null;
  const off = isDice() && v.board ? borneOff(v.game, v.board.position) : null;
  let score = null;
  if (v.game === 'thud' && v.board) score = thudScore(v.board.position);
  patchChildren(box, order.map((seat) => {
    const s = v.seats[seatIdx(seat)];
    const turn = playing() && v.toAct?.seat === seat;
    const bits = [];
    if (v.board) bits.push(h('span.side', sideName(seat)));
    if (p) bits.push(h('span.pips', { 'data-seat': seat }, t('room.pips', { n: p[seatIdx(seat)] })));
    if (off && off[seatIdx(seat)]) bits.push(h('span', t('room.off', { n: off[seatIdx(seat)] })));
    if (score) bits.push(h('span.tscore', { 'data-seat': seat }, t('room.pts', { n: v.board.dwarfs === seat ? score.dwarfs : score.trolls })));
    if (v.matchLength > 1) bits.push(h('span.score', `${v.score[seatIdx(seat)]}/${v.matchLength}`));
    if (v.phase === 'waiting_for_player' && s.ready) bits.push(h('span.ready-mark', t('room.ready')));
    // The forfeit time is the server's: counted from its clock, not the device's.
    if (s.disconnectDeadline) bits.push(h('span.away', { 'data-deadline': s.disconnectDeadline }, t('room.away', { n: Math.max(0, Math.round((s.disconnectDeadline - serverNow()) / 1000)) })));
    // A clocked game: each player's clock beside his name (nothing at all without one).
    const clock = v.clock ? clockBox(seat) : null;
    return h(`div.player${turn ? '.turn' : ''}${seat === S.seat ? '.me' : ''}`, { 'data-seat': seat }, h('span.who', seatAvatar(seat), h('b', seatName(seat))), clock, ...bits);
  }));
}

function renderBoard(box) {
  const v = S.view;
  if (!v.board) {
    box.replaceChildren(h('div.board-empty', v.phase === 'finished' ? t('room.over') : t('room.boardLater')));
    return;
  }
  if (v.game === 'thud') {
    const mine = S.seat ? (v.board.dwarfs === S.seat ? 'dwarfs' : 'trolls') : null;
    renderThud(box, {
      label: (key, params) => t(`thud.${key}`, params),
      position: v.board.position,
      legalMoves: v.board.legalMoves,
      mine,
      myTurn: myTurn() && need() === 'move',
      selected: S.sel,
      targets: S.targets,
      lastMove: S.lastMove,
    });
    return;
  }
  const mineMoving = myTurn() && need() === 'move' && !S.inflight;
  let prompt = null;
  if (myTurn() && need() === 'roll') prompt = t('room.tapToRoll');
  if (S.noMoves) prompt = t('status.noMoves', { dice: (S.noMoves.dice || []).join('–') });
  const moves = mineMoving ? currentMoves() : null;
  const L = S.local;
  const svg = renderNardy(box, {
    label: (key, params) => t(`board.${key}`, params),
    game: v.game,
    position: L ? L.pos : v.board.position,
    seat: S.seat,
    dice: v.dice,
    diceLeft: L ? (L.complete ? [] : (L.groups.length ? L.groups[L.groups.length - 1].offer?.diceLeft : L.offer0.diceLeft) || null)
      : moves?.diceLeft || (v.moves?.seat === v.toAct?.seat ? v.moves?.diceLeft : null),
    lastTurn: S.lastTurn,
    movable: moves ? movableFrom(v.game, moves) : new Set(),
    selected: S.sel,
    targets: S.targets,
    lastMove: S.lastMove,
    prompt,
    offGlow: moves ? (moves.firstSteps || []).some((s) => /off/.test(s)) : false,
  });
  if (myTurn() && need() === 'roll') svg.classList.add('to-roll');
}

function statusLine() {
  const v = S.view;
  const out = [];
  let text = '';
  const waitingSeat = v.seats.find((s) => !s.player && !s.bot);
  if (v.phase === 'waiting_for_player') {
    if (waitingSeat) text = t('status.waitOpponent');
    else if (S.seat && !v.seats[seatIdx(S.seat)].ready) text = t('status.pressReady');
    else text = t('status.waitReady');
  } else if (v.phase === 'finished') {
    text = resultSentence(v.lastResult, S.seat);
  } else if (v.paused) {
    text = t('status.paused');
  } else if (!S.seat) {
    text = t('status.toPlay', { side: sideName(v.toAct?.seat) });
  } else if (myTurn()) {
    const n = need();
    if (n === 'roll') text = isDice() ? t('status.yourRoll') : t('status.yourTurn');
    else if (n === 'move') text = v.game === 'thud' ? t('status.yourMoveThud', { side: sideName(S.seat).toLowerCase() }) : S.local?.complete ? t('status.confirm') : t('status.yourMove');
    else if (n === 'cubeDecision') text = t('status.cube', { n: 2 * (v.cube?.value || 1) });
    else if (n === 'endProposal') text = t('status.endProposal');
  } else {
    const s = v.seats[seatIdx(v.toAct?.seat)];
    text = s?.bot ? t('status.thinking') : t('status.theirTurn', { name: seatName(v.toAct?.seat) });
  }
  out.push(h('span#status-text', text));
  return out;
}

function controls() {
  const v = S.view;
  const c = [];
  const mySeat = S.seat ? v.seats[seatIdx(S.seat)] : null;
  // Against the computer the app presses Ready itself (autoReady).
  if (mySeat && v.phase === 'waiting_for_player' && !mySeat.ready && !v.seats.some((s) => s.bot)) {
    c.push(h('button.primary#ready', { onclick: sendReady }, v.gameNumber > 0 ? t('btn.readyNext') : t('btn.ready')));
  }
  if (v.phase === 'waiting_for_player' && v.seats.some((s) => !s.player && !s.bot)) {
    const link = inviteLink();
    c.push(h('div.invite',
      h('input#invite-link', { value: link, readonly: true, 'aria-label': t('lobby.invite'), onclick: (e) => e.target.select() }),
      h('p.invite-url#invite-full', link),
      h('button#copy-invite', { onclick: async () => { try { await navigator.clipboard.writeText(link); toast(t('toast.linkCopied')); } catch { $('#invite-link').select(); } } }, t('btn.copy')),
      h('button#share-invite', {
        onclick: () => {
          if (tg.share(link, t('invite.text'))) return;
          if (navigator.share) navigator.share({ title: 'Tabula', url: link }).catch(() => {});
        },
      }, t('btn.share'))));
  }
  if (S.seat && playing()) {
    if (isDice() && myTurn() && need() === 'roll') {
      c.push(h('button.primary#roll', { onclick: roll }, t('btn.roll')));
      if (S.mayDouble && v.cube?.enabled) c.push(h('button#double', { onclick: () => net.send({ type: 'double' }) }, t('btn.double', { n: 2 * (v.cube.value || 1) })));
    }
    if (myTurn() && need() === 'cubeDecision') {
      c.push(h('button.primary#take', { onclick: () => net.send({ type: 'take' }) }, t('btn.take')));
      c.push(h('button#drop', { onclick: () => net.send({ type: 'drop' }) }, t('btn.drop')));
    }
    if (v.game === 'thud') {
      const prop = v.board?.proposal;
      if (prop && prop !== S.seat) {
        c.push(h('button.primary#accept-end', { onclick: () => net.send({ type: 'acceptEnd' }) }, t('btn.acceptEnd')));
        c.push(h('button#decline-end', { onclick: () => net.send({ type: 'declineEnd' }) }, t('btn.declineEnd')));
      } else if (prop === S.seat) {
        c.push(h('button#withdraw-end', { onclick: () => net.send({ type: 'declineEnd' }) }, t('btn.withdrawEnd')));
      } else {
        c.push(h('button#propose-end', { onclick: () => net.send({ type: 'proposeEnd' }) }, t('btn.proposeEnd')));
      }
    }
    if (S.choose) {
      c.push(h('div.choose', S.choose.map((mv) => h('button', { onclick: () => thudPlay(mv) }, mv.notation))));
    }
    const L = S.local;
    if (L && myTurn() && need() === 'move') {
      c.push(h('button#undo', { onclick: undo, disabled: !L.groups.length || L.sent }, t('btn.undo')));
      c.push(h('button.primary#done', { onclick: sendTurn, disabled: !L.complete || L.sent }, t('btn.done')));
    }
    if (isDice() && vsComputer() && myTurn() && need() === 'move' && !localSteps().length) {
      c.push(h('button#hint', { onclick: askHint, disabled: Boolean(S.hint && !S.hint.plays) }, t('btn.hint')));
    }
    c.push(h('button.danger#resign', { onclick: resign }, t('btn.resign')));
  }
  if (S.hint) c.push(hintBox());
  const done = v.phase !== 'playing' && (v.lastResult || S.ended);
  if (S.seat && done && !vsComputer() && v.seats.every((x) => x.player) && v.phase === 'finished') {
    const asked = S.rematch?.[S.seat];
    c.push(h('button.primary#rematch', { onclick: askRematch, disabled: asked }, asked ? t('btn.rematchWaiting') : t('btn.rematch')));
    if (S.rematch && (asked || S.rematch[other(S.seat)])) c.push(h('button#decline-rematch', { onclick: () => net.send({ type: 'declineRematch' }) }, t(asked ? 'btn.withdrawRematch' : 'btn.declineRematch')));
  }
  if (isDice() || v.game === 'thud') c.push(h('button#log-button', { onclick: () => openSheet('log') }, t('btn.log')));
  if (v.phase !== 'playing' && (S.gameOver || S.ended || v.lastResult) && !S.showResult) {
    c.push(h('button#show-result', { onclick: () => { S.showResult = true; render(); } }, t('btn.result')));
  }
  return c;
}

function info() {
  const v = S.view;
  const out = [];
  if (isDice() && v.cube?.enabled) {
    out.push(h('span.cube#cube', { title: t('term.cube') }, t('room.cube', { n: v.cube.value }) + (v.cube.owner ? t(v.cube.owner === S.seat ? 'room.cubeYours' : 'room.cubeTheirs') : t('room.cubeCentred'))));
  }
  if (v.matchLength > 1) out.push(h('span#match-score', t('room.match', { n: v.matchLength, mine: v.score[seatIdx(S.seat || 'a')], theirs: v.score[seatIdx(other(S.seat || 'a'))] })));
  if (v.game === 'thud' && v.board) {
    const r = S.thudRounds.filter(Boolean);
    out.push(h('span#thud-round', t('room.round', { n: v.board.round })));
    if (r.length) out.push(h('span', t('room.round1', { mine: r[0][seatIdx(S.seat || 'a')], theirs: r[0][seatIdx(other(S.seat || 'a'))] })));
  }
  // Thud!: a round that ended on time says so until the game is over.
  for (const [round, seat] of Object.entries(S.roundTimeouts || {})) out.push(h('span.round-timeout', { 'data-round': round }, roundTimeoutSentence(Number(round), seat)));
  const tc = v.timeControl || v.clock;
  if (tc) out.push(h('span#time-control-info', t('room.clock', { delay: formatClock(tc.delayMs), reserve: formatClock(tc.reserveMs) })));
  // Thud! has no dice: nothing to say about their fairness.
  if (S.commitment && v.game !== 'thud') out.push(h('span.fair#commitment', { title: S.commitment }, t('room.fair', { c: S.commitment.slice(0, 12) })));
  if (S.invite || S.roomId) out.push(h('span.code', t('room.code', { code: S.invite || S.roomId })));
  return out;
}

// ---- hint, rematch ----------------------------------------------------------------

function askHint() {
  S.hint = { plays: null };
  net.send({ type: 'hint' });
  render();
}

function hintBox() {
  const hnt = S.hint;
  if (!hnt.plays) return h('p.hint#hint-box', t('hint.asking'));
  if (!hnt.plays.length) return h('p.hint#hint-box', hnt.error || t('hint.none'));
  const best = hnt.plays[0];
  const win = typeof best.win === 'number' ? ` · ${t('hint.win', { p: Math.round(best.win * 100) })}` : '';
  return h('div.hint#hint-box', h('span', t('hint.best', { play: best.play }) + win),
    S.local && !S.local.groups.length ? h('button#hint-play', { onclick: () => playHint(best.play) }, t('btn.playHint')) : null,
    h('button.icon#hint-close', { 'aria-label': t('btn.close'), title: t('btn.close'), onclick: () => { S.hint = null; render(); } }, '×'));
}

/** Plays the hint's steps as the local turn (the player still confirms with Done). */
function playHint(play) {
  const steps = parseSteps(game(), play).map(([f, to]) => [String(f), String(to)]);
  S.hint = null;
  if (!S.local || S.local.groups.length) return;
  localPlay(steps);
}

function askRematch() {
  S.rematch = { ...(S.rematch || {}), [S.seat]: true };
  net.send({ type: 'rematch' });
  render();
}

// ---- sheets: settings, rules, move log ----------------------------------------------

function openSheet(kind, arg) {
  S.sheet = { kind, arg };
  S.nameNote = null;
  sound.unlock();
  render();
}

function sheet() {
  const sh = S.sheet;
  const close = h('button#sheet-close', { onclick: () => { S.sheet = null; render(); } }, t('btn.close'));
  let body = [];
  if (sh.kind === 'settings') body = settingsBody();
  else if (sh.kind === 'rules') body = rulesBody(sh.arg || game() || S.lobby.game);
  else if (sh.kind === 'log') body = logBody();
  const title = { settings: 'settings.title', rules: 'rules.title', log: 'log.title' }[sh.kind];
  return h(`div.overlay#sheet-${sh.kind}`, { role: 'dialog', 'aria-modal': 'true', 'aria-label': t(title) },
    h('div.sheet', h('h2', t(title)), body, h('div.row', close)));
}

function settingsBody() {
  const langSel = h('select#lang', { onchange: (e) => { setPref('lang', e.target.value); setLang(e.target.value); render(); } },
    LANGS.map((l) => h('option', { value: l, selected: l === lang() }, STRINGS[l]['lang.name'])));
  const check = (id, key, fallback, label, onchange) => h('label.row.check',
    h(`input#${id}`, { type: 'checkbox', checked: pref(key, fallback), onchange: (e) => { setPref(key, e.target.checked); onchange?.(e.target.checked); render(); } }),
    h('span', label));
  const speed = h('select#speed', { onchange: (e) => { setPref('speed', e.target.value); render(); } },
    ['normal', 'fast', 'off'].map((v) => h('option', { value: v, selected: pref('speed', 'normal') === v }, t(`settings.speed.${v}`))));
  const out = [
    h('label.row', h('span', t('settings.language')), langSel),
    check('confirm-turns', 'confirm', true, t('settings.confirm'), () => { S.local = null; ensureLocal(); }),
    check('auto-roll', 'autoRoll', false, t('settings.autoRoll')),
    check('auto-play', 'autoPlay', false, t('settings.autoPlay')),
    check('sound-on', 'sound', true, t('settings.sound'), (on) => sound.setMuted(!on)),
    h('label.row', h('span', t('settings.speed')), speed),
  ];
  if (S.player) {
    const input = h('input#name-input', { value: S.profile?.name || '', maxlength: 32, autocomplete: 'off', 'aria-label': t('settings.name') });
    out.push(h('form.row#name-form', {
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          // The input on the page (patched renders keep it; the one built here may be a discarded copy).
          const typed = (e.currentTarget || e.target).querySelector('#name-input')?.value ?? input.value;
          const r = await api('POST', '/api/me/name', { name: typed }, credHeaders());
          S.profile = { ...(S.profile || {}), ...(r?.profile || r || {}), name: r?.profile?.name || r?.name || typed.trim() };
          profiles.set(S.player, S.profile);
          S.nameNote = { ok: true, text: t('settings.nameSaved') };
        } catch (err) {
          S.nameNote = { ok: false, text: err.message || t('settings.nameBad') };
        }
        render();
      },
    }, h('span', t('settings.name')), input, h('button', { type: 'submit' }, t('btn.save'))));
    if (S.nameNote) out.push(h(`p#name-note.${S.nameNote.ok ? 'ok' : 'error'}`, { role: 'status' }, S.nameNote.text));
  }
  return out;
}

function rulesBody(g) {
  const out = [h('h3', gameName(g))];
  for (const line of t(`rules.${g}`).split('\n')) out.push(h('p', line));
  if (g !== 'thud') out.push(h('h3', t('rules.cubeTitle')), h('p', t('rules.cube')));
  // The clock: delay, reserve, and what running out costs in this game.
  out.push(h('h3#rules-clock', t('rules.clockTitle')), h('p', t('rules.clock')),
    h('p', g === 'thud' ? t('rules.clockThud') : g === 'backgammon' ? t('rules.clockBackgammon') : t('rules.clockNardy')));
  const terms = g === 'long_nardy' ? ['oin', 'mars', 'koks', 'head'] : g === 'backgammon' ? ['gammon', 'backgammon'] : [];
  if (terms.length) out.push(h('ul.terms', terms.map((k) => h('li', t(`term.${k}`)))));
  out.push(h('h3', t('rules.levelsTitle')), h('ul', [1, 2, 3].map((l) => h('li', h('b', levelName(l)), ' — ', t(`level.${l}.about.${g}`)))));
  out.push(h('p.tips', t('rules.tips')));
  return out;
}

function logBody() {
  if (!S.log.some((e) => !e.game)) return [h('p', t('log.empty'))];
  const rows = [];
  let n = 0;
  for (const e of S.log) {
    if (e.game) {
      rows.push(h('li.log-game', t('log.game', { n: e.game })));
      n = 0;
      continue;
    }
    const who = S.view ? sideName(e.seat) || seatWord(e.seat) : e.seat;
    if (e.note) {
      // The cube, a resignation, Thud!'s end of a round: not a turn, so not numbered.
      const what = e.note === 'resign' ? t(`log.resign.${['stoodUp', 'disconnected', 'timeout'].includes(e.reason) ? e.reason : 'resigned'}`) : t(`log.${e.note}`, { n: e.cube });
      rows.push(h('li.log-note', { 'data-seat': e.seat, 'data-note': e.note }, h('b', who), ': ', what));
      continue;
    }
    n += 1;
    const dice = e.dice ? ` ${e.dice[0]}–${e.dice[1]}` : '';
    const what = e.thud || (e.pass ? t('log.pass') : (e.steps || []).join(', '));
    rows.push(h('li.log-turn', { 'data-seat': e.seat }, h('span.n', `${n}.`), ' ', h('b', who), dice, ': ', what));
  }
  return [h('ol.log#move-log', rows)];
}

function renderChat(box) {
  const have = box.childElementCount;
  if (have === S.chat.length && box.dataset.lang === lang()) return;
  box.dataset.lang = lang();
  box.replaceChildren(...S.chat.map((c) => {
    const arb = c.from?.kind === 'arbiter';
    const who = arb ? t('chat.arbiter') : c.from?.id === S.player ? t('chat.you') : playerName(c.from?.id);
    return h(`p.line${arb ? '.arbiter' : ''}`, h('b', who), ' ', narrate(c) || c.text);
  }));
  box.scrollTop = box.scrollHeight;
}

function renderOverlays() {
  let layer = $('#overlays');
  if (!layer) {
    layer = h('div#overlays');
    document.body.append(layer);
  }
  const kids = [];
  if (S.confirm) {
    const c = S.confirm;
    kids.push(h('div.overlay#confirm', { role: 'alertdialog', 'aria-modal': 'true', 'aria-label': c.text }, h('div.sheet',
      h('p', c.text),
      h('div.row2',
        h('button#confirm-no', { onclick: () => { S.confirm = null; render(); } }, t('btn.cancel')),
        h('button.danger#confirm-yes', { onclick: () => { S.confirm = null; c.onYes(); render(); } }, c.yes)))));
  }
  // The result sheet once the game's end is known whole (gameEnded: why it
  // ended, a timeout among others), not at `game_over`, which comes just
  // before it and may wait behind the last steps' animation.
  if (S.screen === 'room' && S.view && S.showResult && (S.ended || (S.gameOver && S.view.phase !== 'playing'))) {
    kids.push(gameOverSheet());
  }
  if (S.sheet) kids.push(sheet());
  patchChildren(layer, kids);
  renderToasts();
}

/**
 * Toasts float in a layer of their own above everything, the result sheet
 * included, out of the page's flow (nothing moves when one comes or goes)
 * and letting taps through to what is under them.
 */
function renderToasts() {
  let layer = $('#toasts');
  if (!layer) {
    layer = h('div#toasts', { 'aria-live': 'polite', role: 'status' });
    document.body.append(layer);
  }
  patchChildren(layer, S.toast ? [h(`div.toast.${S.toast.kind}#toast`, S.toast.text)] : []);
}

function gameOverSheet() {
  const v = S.view;
  const go = S.gameOver;
  const res = S.ended?.result || v.lastResult;
  let title = t('result.gameOver');
  let cls = '';
  if (go) {
    title = go.result === 'win' ? t('result.youWon') : go.result === 'lose' ? t('result.youLost') : t('result.draw');
    cls = go.result;
  } else if (res && S.seat) {
    title = res.winner === S.seat ? t('result.youWon') : res.winner ? t('result.youLost') : t('result.draw');
  }
  const kind = go?.kind || res?.kind;
  const pts = go?.points ?? res?.points;
  const parts = [h(`h2.result.${cls || 'none'}#result-title`, title)];
  // Who played: each with his photo (or initial) and name, the viewer's side first.
  const first = S.seat || 'a';
  parts.push(h('div.result-players#result-players', [first, other(first)].map((seat) =>
    h('span.who', { 'data-seat': seat }, seatAvatar(seat), h('b', seatName(seat)), h('span.side', sideName(seat))))));
  const term = ['oin', 'mars', 'koks', 'gammon', 'backgammon'].includes(kind) ? t(`term.${kind}`) : null;
  parts.push(h('p.kind#result-kind', { title: term }, `${resultKind(kind, res)}${pts ? t('result.points', { n: pts }) : ''}${res?.reason && res.reason !== 'borneOff' && res.reason !== 'roundsOver' ? ` · ${reasonFor(res, S.seat)}` : ''}`.replace(/^ · /, '')));
  if (term) parts.push(h('p.term#result-term', term));
  // Lost on time: who ran out, and what it cost.
  if (res?.reason === 'timeout') parts.push(h('p.timeout#result-reason', timeoutSentence(res, S.seat)));
  if (v.game === 'thud') {
    for (const [round, seat] of Object.entries(S.roundTimeouts || {})) parts.push(h('p.round-timeout', { 'data-round': round }, roundTimeoutSentence(Number(round), seat)));
  }
  if (go?.message) parts.push(h('p.msg', narrate(go) || go.message));
  // Decided on the totals only when both rounds were played (not after a resignation, a forfeit or a clock run out).
  if (res?.thudTotals && (!res.reason || res.reason === 'roundsOver')) {
    // Thud!'s own wording: two rounds, decided on the totals.
    const me = seatIdx(S.seat || 'a');
    const [mine, theirs] = [res.thudTotals[me], res.thudTotals[1 - me]];
    if (S.seat) parts.push(h('p#thud-result', t(res.winner === S.seat ? 'thud.resultWon' : res.winner ? 'thud.resultLost' : 'thud.resultDraw', { mine, theirs })));
    else parts.push(h('p#thud-result', t('result.totalsWatch', { a: res.thudTotals[0], b: res.thudTotals[1] })));
  }
  const sum = S.summary?.summary;
  if (sum) {
    const me = seatIdx(S.seat || 'a');
    const op = 1 - me;
    const thud = v.game === 'thud';
    parts.push(h('table.summary#summary',
      h('tr', h('th', ''), h('th', t('sum.you')), h('th', t('sum.opponent'))),
      thud ? null : h('tr', h('td', t('sum.borneOff')), h('td', sum.borneOff[me]), h('td', sum.borneOff[op])),
      h('tr', h('td', t('sum.moves')), h('td', sum.moves[me]), h('td', sum.moves[op])),
      thud ? null : h('tr', h('td', t('sum.doubles')), h('td', sum.doubles[me]), h('td', sum.doubles[op])),
      // Long nardy has no hitting: no row that is always 0.
      v.game === 'long_nardy' ? null : h('tr', h('td', t(thud ? 'sum.captures' : 'sum.hits')), h('td', sum.hits[me]), h('td', sum.hits[op]))));
  }
  const mine = gameStats(S.stats, v.game);
  if (mine?.games) parts.push(h('div.stats#my-stats', h('h3', t('stats.mine')), statsTable(mine, v.game)));
  if (S.ended?.serverSeed && v.game !== 'thud') {
    const ver = S.verify;
    parts.push(h('div.fairness#fairness',
      h('h3', t('fair.title')),
      h('p.mono', t('fair.commitment', { c: S.commitment || '—' })),
      h('p.mono#server-seed', t('fair.seed', { s: S.ended.serverSeed })),
      h('div.row',
        h('button#verify', { onclick: verifySeed }, t('btn.verify')),
        h('a#records', { href: `/api/rooms/${encodeURIComponent(S.roomId || S.roomKey)}/records`, target: '_blank', rel: 'noopener' }, t('btn.record'))),
      ver ? h(`p#verify-result.${ver.ok ? 'ok' : 'bad'}`, ver.ok ? t('fair.ok') : ver.ok === null ? t('fair.hash', { h: ver.got }) : t('fair.bad', { h: ver.got })) : null));
  }
  const again = v.phase === 'waiting_for_player' ? t('btn.nextGame') : v.seats[1]?.bot ? t('btn.playAgain') : t('btn.lobby');
  // The sheet's actions stay at its foot, in sight however long the sheet (320×568 included).
  const actions = [];
  if (S.seat && v.phase === 'finished' && !vsComputer() && v.seats.every((x) => x.player)) {
    const asked = S.rematch?.[S.seat];
    actions.push(h('div.row', h('button.primary#sheet-rematch', { onclick: askRematch, disabled: asked }, asked ? t('btn.rematchWaiting') : t('btn.rematch'))));
  }
  actions.push(h('div.row2',
    h('button#close-result', { onclick: () => { S.showResult = false; render(); } }, t('btn.seeBoard')),
    h('button.primary#play-again', { onclick: playAgain }, again)));
  parts.push(h('div.sheet-actions#result-actions', actions));
  return h('div.overlay#game-over', { 'data-result': go?.result || '' }, h('div.sheet', parts));
}

function sideLabel(seat) {
  return seat === S.seat ? 'you' : 'opponent';
}

// ---- Telegram chrome ------------------------------------------------------------

function telegramChrome() {
  if (!tg.active()) return;
  const inRoom = S.screen === 'room';
  tg.closingConfirmation(inRoom && playing() && Boolean(S.seat));
  tg.verticalSwipes(!inRoom);
  tg.backButton(inRoom ? leave : pl.SCREENS.has(S.screen) ? pl.back : null);
  const v = S.view;
  const mine = S.seat && v ? v.seats[seatIdx(S.seat)] : null;
  const vsBot = inRoom && mine && v.seats.some((s) => s.bot);
  if (inRoom && S.local?.complete && !S.local.sent) tg.mainButton(t('btn.done'), sendTurn);
  else if (inRoom && mine && v.phase === 'waiting_for_player' && !mine.ready && !S.gameOver && !vsBot) tg.mainButton(t('btn.ready'), sendReady);
  else if (inRoom && S.showResult && (S.gameOver || S.ended)) tg.mainButton(t('btn.playAgain'), playAgain);
  else tg.mainButton(null);
}

// ---- start ------------------------------------------------------------------------

async function main() {
  // The profile, history and leaderboard screens share the app's helpers.
  pl.setup({
    S, h, header, render, credHeaders, gameName, levelName, kindName, reasonFor, seatWord, avatar, photoOf, gameStats, statsTable, ask, toast, loadStats,
    tgActive: () => tg.active(),
  });
  applyStoredTheme();
  sound.setMuted(!pref('sound', true));
  matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', applyStoredTheme);
  await tg.init();
  setLang(pref('lang', null) || pickLang(tg.languageCode(), navigator.languages || [navigator.language]));
  // Keyboard play: Enter or Space on a focused checker or point is a tap.
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && S.sheet) {
      S.sheet = null;
      render();
      return;
    }
    // The replay's keys (arrows, Home, End).
    if (pl.onKey(ev)) return;
    if (ev.key !== 'Enter' && ev.key !== ' ') return;
    const tgt = ev.target.closest?.('#board [data-point],#board [data-sq]');
    if (!tgt) return;
    ev.preventDefault();
    // The renderer keeps the focus across redraws (on to the first target after a selection).
    tap(tgt);
  });
  document.addEventListener('pointerdown', () => sound.unlock(), { once: true });
  document.addEventListener('pointerdown', holdRenders, true);
  document.addEventListener('pointerup', liftRenders, true);
  document.addEventListener('pointercancel', liftRenders, true);
  document.addEventListener('click', releaseRenders, true);
  try {
    S.config = (await api('GET', '/api/client-config')) || {};
  } catch {}
  setNet(new Net({
    query: credQuery,
    onMessage,
    onStatus: (s) => {
      S.conn = s;
      render();
    },
  }));
  window.__tabula = {
    get state() {
      return S;
    },
    get net() {
      return net;
    },
    dropSocket: () => net.dropSocket(),
    sounds: sound.played,
    enter: (key) => enterRoom(key),
    // For the tests: a toast as the app shows one, and a redraw.
    toast: (text, kind, ms) => toast(text, kind, ms),
    render: () => render(),
  };
  net.connect();
  const code = tg.startParam() || params.get('join') || params.get('startapp');
  const replay = pl.replayParam(params.get('replay'));
  if (code && /^[A-Za-z0-9_-]{1,64}$/.test(code)) enterRoom(code);
  else if (replay) pl.open('replay', replay);
  render();
  setInterval(() => {
    // Keep-alive; its pong refines the server's clock.
    ping();
  }, 15000);
  // The clocks and the away countdowns, from the server's figures.
  setInterval(tickClocks, 200);
}

main();
