// Tabula Mini App: lobby, rooms, boards, chat, results. The client holds
// no rules: it shows what the server offers (possibleMoves, legalMoves) and
// sends the player's choice. Wire protocol: docs/protocol.md.

import { Net, api } from './net.js';
import * as tg from './telegram.js';
import { renderNardy, targetsFrom, movableFrom, pips, borneOff, applyStep } from './boards/nardy.js';
import { renderThud, thudTargets, parseThud, thudScore } from './boards/thud.js';
import { sha256hex } from './sha256.js';

const GAMES = {
  long_nardy: 'Long nardy',
  backgammon: 'Short nardy',
  thud: 'Thud!',
};
const LEVELS = { 1: 'Easy', 2: 'Medium', 3: 'Hard' };
const KINDS = {
  oin: 'Oin',
  mars: 'Mars',
  koks: 'Koks',
  single: 'Single game',
  gammon: 'Gammon',
  backgammon: 'Backgammon',
  drop: 'Double dropped',
  thudTotals: 'On total points',
  draw: 'Draw',
};
const REASONS = {
  borneOff: 'all checkers borne off',
  resigned: 'resignation',
  stoodUp: 'the loser stood up',
  disconnected: 'the loser did not come back',
  dropped: 'a dropped double',
  roundsOver: 'both rounds played',
};
const VARIANTS = {
  long_nardy: [
    ['scoring', 'Scoring', [['oin_mars_koks', 'Oin · mars · koks'], ['oin_mars', 'Oin · mars'], ['single', 'Single point']]],
    ['opening', 'Who starts', [['opening_roll_plays', 'Opening roll plays'], ['opening_roll_rerolls', 'Opening roll, then reroll'], ['white_first', 'White first']]],
  ],
  backgammon: [['scoring', 'Scoring', [['single', 'Single game'], ['gammons', 'Gammons count']]]],
  thud: [['capture_rule', 'Troll captures', [['zrf', 'All adjacent dwarfs (seed 003)'], ['classic', 'Classic rule']]]],
};

const $ = (sel, root = document) => root.querySelector(sel);
/** A tiny element builder: h('div.cls#id', {attrs}, ...children). */
function h(spec, attrs, ...kids) {
  const [, tag, rest] = /^([a-z0-9]+)(.*)$/i.exec(spec);
  const e = document.createElement(tag);
  for (const m of rest.matchAll(/([.#])([\w-]+)/g)) {
    if (m[1] === '.') e.classList.add(m[2]);
    else e.id = m[2];
  }
  if (attrs !== undefined && attrs !== null && (typeof attrs !== 'object' || attrs instanceof Node || Array.isArray(attrs))) {
    kids.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) e.append(k instanceof Node ? k : String(k));
  return e;
}

const params = new URLSearchParams(location.search);

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
  };
}

const S = {
  screen: 'lobby',
  conn: 'connecting',
  player: null,
  config: {},
  lobby: { game: 'long_nardy', options: {}, matchLength: 1 },
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
};

let net;

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
  if (seat === S.seat) return 'You';
  if (s.bot) return `Computer · ${LEVELS[s.bot]}`;
  if (!s.player) return 'Waiting…';
  if (s.player.startsWith('tg:')) return 'Opponent';
  return guestName(s.player);
}

/** A guest as others see it: `Guest 3f9a` (its id's first four digits). */
function guestName(id) {
  return id.startsWith('guest:') ? `Guest ${id.slice(6, 10)}` : id;
}

function sideName(seat) {
  if (game() === 'thud') {
    const b = S.view?.board;
    if (!b) return '';
    return b.dwarfs === seat ? 'Dwarfs' : 'Trolls';
  }
  return seat === 'a' ? 'White' : 'Black';
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
    const r = await api('POST', '/api/quickmatch', { game: S.lobby.game, options: lobbyOptions() }, credHeaders(), ctl.signal);
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
  } catch {}
  history.replaceState(null, '', `${location.pathname}?join=${encodeURIComponent(key)}${location.hash}`);
  net.join(key);
  render();
}

function toLobby() {
  net.leaveRoom();
  S.screen = 'lobby';
  S.view = null;
  S.roomKey = null;
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

/** "You lost — Mars · 2 points · the loser did not come back." for a finished game's result. */
function resultSentence(res, seat) {
  if (!res) return 'Game over.';
  const who = !seat ? (res.winner ? `${sideName(res.winner)} won` : 'Draw')
    : res.winner === seat ? 'You won' : res.winner ? 'You lost' : 'Draw';
  const pts = res.points ? ` · ${res.points} point${res.points === 1 ? '' : 's'}` : '';
  const why = res.reason ? ` · ${res.reason === 'disconnected' && res.winner !== seat && seat ? 'you did not come back in time' : REASONS[res.reason] || res.reason}` : '';
  return `${who} — ${KINDS[res.kind] || res.kind || ''}${pts}${why}.`;
}

// ---- room actions -------------------------------------------------------------

function sendReady() {
  const r = new Uint8Array(16);
  crypto.getRandomValues(r);
  net.send({ type: 'setClientSeed', seed: Array.from(r, (b) => b.toString(16).padStart(2, '0')).join('') });
  net.send({ type: 'ready' });
  tg.haptic('light');
}

function roll() {
  if (S.rolling === S.version) return;
  S.rolling = S.version;
  net.send({ type: 'rollDice' });
  tg.haptic('medium');
}

const spot = (s) => (s === 'off' || s === 'bar' ? s : Number(s));

function playPath(path) {
  // Steps of one tap go out together; nothing is offered until all are echoed.
  S.inflight = path.length;
  for (const [from, to] of path) net.send({ type: 'move', from: spot(from), to: spot(to) });
  clearSel();
  tg.haptic('light');
  render();
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
  ask('Resign this game?', 'Resign', () => net.send({ type: 'resign' }));
}

function leave() {
  if (playing() && S.seat) ask('Leave the room? During a game this loses it.', 'Leave', toLobby);
  else toLobby();
}

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

const RESYNC = new Set(['gameStarted', 'doubleOffered', 'doubleTaken', 'doubleDropped', 'endProposed', 'endDeclined', 'thudMoved', 'roundEnded', 'gameEnded', 'matchOver']);

/** Asks for a fresh full `state` (the answer to `join`), in order with the events. */
function resync() {
  if (S.roomKey && net.room) net.join(net.room.key, net.room.spectate);
}

function onMessage(m) {
  switch (m.type) {
    case 'welcome':
      S.player = m.player;
      if (S.screen === 'lobby') loadStats();
      break;
    case 'state': {
      if (!S.roomKey) break;
      const first = !S.view;
      if (first || m.state.version >= S.version) {
        S.roomId = m.room;
        S.seat = m.yourSeat;
        // The room's recent chat comes with its state (kept across reopening).
        for (const c of m.state.chat || []) {
          if (!S.chatSeen.has(c.version)) {
            S.chatSeen.add(c.version);
            S.chat.push({ from: c.from, text: c.text, version: c.version });
          }
        }
        S.chat.sort((a, b) => a.version - b.version);
        S.view = m.state;
        S.version = m.state.version;
        // Steps still unanswered (resent after a reconnect) are still on their way.
        S.inflight = [...net.pending.values()].filter((c) => c.type === 'move').length;
        net.version = S.version;
        if (S.view.commitment) S.commitment = S.view.commitment;
        if (S.view.phase === 'playing') S.rolling = null;
        if (S.sel && !(S.view.moves && movableFrom(S.view.game, S.view.moves).has(S.sel))) clearSel();
        if (first && !S.invite && S.roomKey !== m.room) S.invite = S.roomKey;
        if (S.view.phase === 'finished' && !S.summary) loadSummary();
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
      applyEvent(m.event);
      break;
    case 'chat':
      if (!S.chatSeen.has(m.version)) {
        S.chatSeen.add(m.version);
        S.chat.push({ from: m.from, text: m.text, version: m.version });
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
      toast(m.message || 'Your opponent left', 'warn', 4000);
      break;
    case 'error':
      // A refused command: a roll that was refused (rate limited, the
      // server briefly unavailable, …) must not block the next tap.
      S.rolling = null;
      if (m.code === 'replaced') {
        // The same player opened the game in another window: do not fight over the seat.
        net.close();
        S.conn = 'replaced';
        break;
      }
      if ((m.code === 'room_full' || m.code === 'game_in_progress' || m.code === 'match_finished') && S.roomKey && !S.view && !net.room?.spectate) {
        // Both seats are taken: watch instead.
        net.join(S.roomKey, true);
        toast('The room is full: you are watching.', 'info', 3000);
      } else if (m.code === 'room_not_found') {
        // Unknown code, or (a single node restarted without a shared store) the room is gone.
        if (S.view) m.message = 'This room no longer exists on the server.';
        S.error = m.message;
        S.screen = 'lobby';
        S.roomKey = null;
        net.room = null;
      } else if (m.code === 'illegal_move' || m.code === 'not_your_turn' || m.code === 'already_rolled') {
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
  render();
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
      S.commitment = e.commitment;
      S.gameOver = null;
      S.ended = null;
      S.summary = null;
      S.verify = null;
      S.lastMove = null;
      v.phase = 'playing';
      break;
    case 'openingRoll': {
      const last = e.rolls[e.rolls.length - 1] || [];
      toast(`Opening roll ${last[0]}–${last[1]}: ${e.starter === S.seat ? 'you start' : `${sideName(e.starter)} starts`}`);
      break;
    }
    case 'turnStarted':
      v.toAct = { seat: e.seat, need: 'roll' };
      S.inflight = 0;
      v.dice = null;
      v.moves = null;
      S.mayDouble = e.mayDouble && e.seat === S.seat;
      S.rolling = null;
      clearSel();
      break;
    case 'diceRolled':
      v.dice = e.dice;
      v.toAct = { seat: e.seat, need: 'move' };
      break;
    case 'possibleMoves':
      v.moves = { seat: e.seat, diceLeft: e.diceLeft, firstSteps: e.firstSteps, sequences: e.sequences };
      if (S.sel && !movableFrom(v.game, v.moves).has(S.sel)) clearSel();
      else if (S.sel) S.targets = targetsFrom(v.game, v.moves, S.sel);
      break;
    case 'moved':
      if (v.board?.position) applyStep(v.game, v.board.position, e.seat, String(e.from), String(e.to), e.hit);
      S.lastMove = { seat: e.seat, from: String(e.from), to: String(e.to) };
      // The offer was for the position before this step; the next one follows.
      v.moves = null;
      if (e.seat === S.seat) {
        clearSel();
        S.inflight = Math.max(0, (S.inflight || 0) - 1);
      }
      if (e.seat !== S.seat) tg.haptic('select');
      break;
    case 'turnPassed':
      v.moves = null;
      toast(e.seat === S.seat ? `No moves (${e.dice.join('–')}) — your turn passes` : `No moves for ${seatName(e.seat)} (${e.dice.join('–')})`, 'info', 3000);
      break;
    case 'thudMoved':
      S.lastMove = parseThud(e.notation);
      if (e.captured) toast(`${e.notation}: ${e.captured} captured`, 'info', 2000);
      break;
    case 'roundEnded':
      S.thudRounds[e.round - 1] = e.points;
      try {
        sessionStorage.setItem(`tabula.rounds.${S.roomKey}`, JSON.stringify(S.thudRounds));
      } catch {}
      break;
    case 'playerDisconnected':
      v.seats[i].disconnectDeadline = e.deadline;
      break;
    case 'playerReconnected':
      v.seats[i].disconnectDeadline = null;
      break;
    case 'gameEnded':
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
    if (movableFrom(game(), S.view.moves).has(p) && t.classList.contains('checker')) {
      drag.from = p;
    }
  }
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
    S.targets = targetsFrom(game(), S.view.moves, p);
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
  if (p && movableFrom(game(), v.moves).has(p)) {
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

function render() {
  const app = $('#app');
  if (!app) return;
  document.documentElement.dataset.screen = S.screen;
  if (S.screen === 'lobby') renderLobby(app);
  else renderRoom(app);
  renderOverlays();
  telegramChrome();
}

function header(title, left) {
  const theme = tg.active()
    ? null
    : h('button.icon#theme', { title: 'Theme', onclick: cycleTheme, text: { auto: '◐', light: '☀', dark: '☾' }[document.documentElement.dataset.themeChoice || 'auto'] });
  let conn = null;
  if (S.conn === 'replaced') {
    conn = h('button.conn#conn-status', { onclick: () => { S.conn = 'connecting'; net.connect(); render(); } }, 'Opened in another window — use here');
  } else if (S.conn !== 'online') {
    conn = h('span.conn#conn-status', { text: S.conn === 'reconnecting' ? 'Reconnecting…' : 'Connecting…' });
  }
  return h('header.top', left, h('h1', title), conn, theme);
}

function renderLobby(app) {
  const L = S.lobby;
  const opts = (L.options[L.game] = L.options[L.game] || {});
  const gameButtons = Object.entries(GAMES).map(([g, name]) =>
    h(`button.seg${g === L.game ? '.on' : ''}`, { 'data-game': g, onclick: () => { L.game = g; render(); } }, name),
  );
  const variantRows = VARIANTS[L.game].map(([key, label, choices]) =>
    h('label.row', h('span', label), h('select', { 'data-opt': key, onchange: (e) => { opts[key] = e.target.value; } },
      choices.map(([val, text]) => h('option', { value: val, selected: (opts[key] || choices[0][0]) === val }, text)))),
  );
  if (L.game !== 'thud') {
    variantRows.push(h('label.row', h('span', 'Match'), h('select#match-length', { onchange: (e) => { L.matchLength = Number(e.target.value); } },
      [1, 3, 5, 7].map((n) => h('option', { value: n, selected: L.matchLength === n }, n === 1 ? 'One game' : `To ${n} points (cube)`)))));
  }
  const st = S.stats;
  const statsBox = st && st.games
    ? h('section.card.stats', h('h2', 'Your results'), statsTable(st))
    : null;
  const page = h('main.lobby',
    header('Tabula'),
    S.error ? h('p.error#lobby-error', S.error) : null,
    continueCards(),
    h('section.card', h('h2', 'Game'), h('div.segs', gameButtons), variantRows),
    h('section.card', h('h2', 'Play the computer'),
      h('div.row3', [1, 2, 3].map((l) => h(`button.big#bot-${LEVELS[l].toLowerCase()}`, { onclick: () => createRoom(l) }, LEVELS[l])))),
    h('section.card', h('h2', 'Play a person'),
      S.searching
        ? h('div.row', h('span.spin'), h('span', 'Looking for an opponent…'), h('button#cancel-search', { onclick: () => S.searching?.abort() }, 'Cancel'))
        : h('div.row2', h('button.big#quick-match', { onclick: quickMatch }, 'Quick match'), h('button.big#create-room', { onclick: () => createRoom(null) }, 'Invite a friend')),
      h('form.row#join-form', { onsubmit: (e) => { e.preventDefault(); const c = $('#join-code').value.trim(); if (c) enterRoom(c); } },
        h('input#join-code', { placeholder: 'Invite code', autocomplete: 'off', maxlength: 32 }), h('button', { type: 'submit' }, 'Join'))),
    statsBox,
    h('footer.note', S.player ? `Signed in as ${S.player.startsWith('tg:') ? 'Telegram user' : S.player}` : ''),
  );
  app.replaceChildren(page);
}

/** One card per paused game against the computer: game, level, score, the board as left. */
function continueCards() {
  const list = S.unfinished || [];
  if (!list.length) return null;
  return h('section.card.continue#continue', h('h2', 'Continue'),
    list.map((g) => {
      const board = h('div.mini-board', { 'aria-hidden': 'true' });
      if (g.board && g.game !== 'thud') {
        renderNardy(board, { game: g.game, position: g.board.position, seat: g.yourSeat, movable: new Set(), targets: new Set() });
      } else if (g.board) {
        renderThud(board, { position: g.board.position, legalMoves: [], mine: null, myTurn: false, targets: new Map() });
      }
      const mine = seatIdx(g.yourSeat);
      const score = g.matchLength > 1 ? ` · ${g.score[mine]}–${g.score[1 - mine]} of ${g.matchLength}` : '';
      const ago = Math.max(1, Math.round((Date.now() - g.pausedAt) / 60000));
      const when = ago < 60 ? `${ago} min ago` : ago < 2880 ? `${Math.round(ago / 60)} h ago` : `${Math.round(ago / 1440)} days ago`;
      return h('button.continue-game', { 'data-room': g.roomId, onclick: () => enterRoom(g.roomId) },
        board,
        h('span.continue-text', h('b', `${GAMES[g.game] || g.game} vs ${LEVELS[g.bot] || 'computer'}`), h('span', `Left ${when}${score}`)));
    }));
}

function statsTable(st) {
  const rows = [h('p', `Games ${st.games} · points won ${st.wins} · lost ${st.losses}${st.draws ? ` · draws ${st.draws}` : ''} · mars won ${st.marsWins} / lost ${st.marsLosses}`)];
  const lv = Object.entries(st.byBotLevel || {});
  if (lv.length) {
    rows.push(h('table.levels',
      h('tr', h('th', 'vs computer'), h('th', 'W'), h('th', 'L'), h('th', 'Win rate'), h('th', 'Streak'), h('th', 'Best')),
      lv.map(([l, s]) => {
        const n = s.wins + s.losses;
        return h('tr', { 'data-level': l }, h('td', LEVELS[l] || l), h('td', s.wins), h('td', s.losses),
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
  }, h('input#chat-input', { placeholder: 'Message', maxlength: 500, autocomplete: 'off' }), h('button', { type: 'submit' }, 'Send'));
  page = h('main.room',
    h('div#room-header'),
    h('div#players'),
    h('div#board-wrap', { onpointerdown: boardPointerDown, onpointermove: boardPointerMove, onpointerup: boardPointerUp, onpointercancel: () => { drag?.ghost?.remove(); drag = null; } }, h('div#board')),
    h('div#status'),
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
  $('#room-header', page).replaceChildren(header(v ? GAMES[v.game] : 'Tabula', tg.active() ? null : h('button.icon#leave', { title: 'Leave', onclick: leave, text: '‹' })));
  if (!v) {
    $('#board', page).replaceChildren(h('p.loading', 'Joining…'));
    return;
  }
  renderPlayers($('#players', page));
  renderBoard($('#board', page));
  $('#status', page).replaceChildren(...statusLine());
  $('#controls', page).replaceChildren(...controls());
  $('#info', page).replaceChildren(...info());
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
  box.replaceChildren(...order.map((seat) => {
    const s = v.seats[seatIdx(seat)];
    const turn = playing() && v.toAct?.seat === seat;
    const bits = [];
    if (v.board) bits.push(h('span.side', sideName(seat)));
    if (p) bits.push(h('span.pips', { 'data-seat': seat }, `pips ${p[seatIdx(seat)]}`));
    if (off && off[seatIdx(seat)]) bits.push(h('span', `off ${off[seatIdx(seat)]}`));
    if (score) bits.push(h('span.tscore', { 'data-seat': seat }, `${v.board.dwarfs === seat ? score.dwarfs : score.trolls} pts`));
    if (v.matchLength > 1) bits.push(h('span.score', `${v.score[seatIdx(seat)]}/${v.matchLength}`));
    if (v.phase === 'waiting_for_player' && s.ready) bits.push(h('span.ready-mark', '✓ ready'));
    if (s.disconnectDeadline) bits.push(h('span.away', `away · ${Math.max(0, Math.round((s.disconnectDeadline - Date.now()) / 1000))} s`));
    return h(`div.player${turn ? '.turn' : ''}${seat === S.seat ? '.me' : ''}`, { 'data-seat': seat }, h('b', seatName(seat)), ...bits);
  }));
}

function renderBoard(box) {
  const v = S.view;
  if (!v.board) {
    box.replaceChildren(h('div.board-empty', v.phase === 'finished' ? 'The match is over.' : 'The board appears when both players are ready.'));
    return;
  }
  if (v.game === 'thud') {
    const mine = S.seat ? (v.board.dwarfs === S.seat ? 'dwarfs' : 'trolls') : null;
    renderThud(box, {
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
  if (myTurn() && need() === 'roll') prompt = 'Tap to roll';
  const moves = mineMoving ? v.moves : null;
  const svg = renderNardy(box, {
    game: v.game,
    position: v.board.position,
    seat: S.seat,
    dice: v.dice,
    diceLeft: moves?.diceLeft || (v.moves?.seat === v.toAct?.seat ? v.moves?.diceLeft : null),
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
    if (waitingSeat) text = 'Waiting for an opponent — share the invite.';
    else if (S.seat && !v.seats[seatIdx(S.seat)].ready) text = 'Press Ready to start.';
    else text = 'Waiting for the opponent to press Ready…';
  } else if (v.phase === 'finished') {
    text = resultSentence(v.lastResult, S.seat);
  } else if (v.paused) {
    text = 'Paused: the game waits for its player to come back.';
  } else if (!S.seat) {
    text = `${sideName(v.toAct?.seat)} to play.`;
  } else if (myTurn()) {
    const n = need();
    if (n === 'roll') text = isDice() ? 'Your turn — tap the board to roll.' : 'Your turn.';
    else if (n === 'move') text = v.game === 'thud' ? `Your move (${sideName(S.seat).toLowerCase()}).` : 'Your move.';
    else if (n === 'cubeDecision') text = `Your opponent doubles to ${2 * (v.cube?.value || 1)}. Take or drop?`;
    else if (n === 'endProposal') text = 'Your opponent proposes to end the round.';
  } else {
    const s = v.seats[seatIdx(v.toAct?.seat)];
    text = s?.bot ? 'The computer is thinking…' : `${seatName(v.toAct?.seat)}'s turn.`;
  }
  out.push(h('span#status-text', text));
  if (S.toast) out.push(h(`span.toast.${S.toast.kind}#toast`, S.toast.text));
  return out;
}

function controls() {
  const v = S.view;
  const c = [];
  const mySeat = S.seat ? v.seats[seatIdx(S.seat)] : null;
  // Against the computer the app presses Ready itself (autoReady).
  if (mySeat && v.phase === 'waiting_for_player' && !mySeat.ready && !v.seats.some((s) => s.bot)) {
    c.push(h('button.primary#ready', { onclick: sendReady }, v.gameNumber > 0 ? 'Ready for the next game' : 'Ready'));
  }
  if (v.phase === 'waiting_for_player' && v.seats.some((s) => !s.player && !s.bot)) {
    const link = inviteLink();
    c.push(h('div.invite',
      h('input#invite-link', { value: link, readonly: true, onclick: (e) => e.target.select() }),
      h('button#copy-invite', { onclick: async () => { try { await navigator.clipboard.writeText(link); toast('Link copied'); } catch { $('#invite-link').select(); } } }, 'Copy'),
      h('button#share-invite', {
        onclick: () => {
          if (tg.share(link, 'Play with me in Tabula')) return;
          if (navigator.share) navigator.share({ title: 'Tabula', url: link }).catch(() => {});
        },
      }, 'Share')));
  }
  if (S.seat && playing()) {
    if (isDice() && myTurn() && need() === 'roll') {
      c.push(h('button.primary#roll', { onclick: roll }, 'Roll'));
      if (S.mayDouble && v.cube?.enabled) c.push(h('button#double', { onclick: () => net.send({ type: 'double' }) }, `Double to ${2 * (v.cube.value || 1)}`));
    }
    if (myTurn() && need() === 'cubeDecision') {
      c.push(h('button.primary#take', { onclick: () => net.send({ type: 'take' }) }, 'Take'));
      c.push(h('button#drop', { onclick: () => net.send({ type: 'drop' }) }, 'Drop'));
    }
    if (v.game === 'thud') {
      const prop = v.board?.proposal;
      if (prop && prop !== S.seat) {
        c.push(h('button.primary#accept-end', { onclick: () => net.send({ type: 'acceptEnd' }) }, 'Accept end of round'));
        c.push(h('button#decline-end', { onclick: () => net.send({ type: 'declineEnd' }) }, 'Decline'));
      } else if (prop === S.seat) {
        c.push(h('button#withdraw-end', { onclick: () => net.send({ type: 'declineEnd' }) }, 'Withdraw end proposal'));
      } else {
        c.push(h('button#propose-end', { onclick: () => net.send({ type: 'proposeEnd' }) }, 'Propose end of round'));
      }
    }
    if (S.choose) {
      c.push(h('div.choose', S.choose.map((mv) => h('button', { onclick: () => thudPlay(mv) }, mv.notation))));
    }
    c.push(h('button.danger#resign', { onclick: resign }, 'Resign'));
  }
  if (v.phase !== 'playing' && (S.gameOver || S.ended || v.lastResult) && !S.showResult) {
    c.push(h('button#show-result', { onclick: () => { S.showResult = true; render(); } }, 'Result'));
  }
  return c;
}

function info() {
  const v = S.view;
  const out = [];
  if (isDice() && v.cube?.enabled) {
    out.push(h('span.cube#cube', `Cube ${v.cube.value}${v.cube.owner ? ` · ${v.cube.owner === S.seat ? 'yours' : 'opponent\u2019s'}` : ' · centred'}`));
  }
  if (v.matchLength > 1) out.push(h('span#match-score', `Match to ${v.matchLength}: ${v.score[seatIdx(S.seat || 'a')]}–${v.score[seatIdx(other(S.seat || 'a'))]}`));
  if (v.game === 'thud' && v.board) {
    const r = S.thudRounds.filter(Boolean);
    out.push(h('span#thud-round', `Round ${v.board.round} of 2`));
    if (r.length) out.push(h('span', `Round 1: ${r[0][seatIdx(S.seat || 'a')]}–${r[0][seatIdx(other(S.seat || 'a'))]}`));
  }
  // Thud! has no dice: nothing to say about their fairness.
  if (S.commitment && v.game !== 'thud') out.push(h('span.fair#commitment', { title: S.commitment }, `Fair dice: commitment ${S.commitment.slice(0, 12)}…`));
  if (S.invite || S.roomId) out.push(h('span.code', `Room ${S.invite || S.roomId}`));
  return out;
}

function renderChat(box) {
  const have = box.childElementCount;
  if (have === S.chat.length) return;
  box.replaceChildren(...S.chat.map((c) => {
    const arb = c.from?.kind === 'arbiter';
    const who = arb ? 'Arbiter' : c.from?.id === S.player ? 'You' : guestName(c.from?.id || '');
    return h(`p.line${arb ? '.arbiter' : ''}`, h('b', who), ' ', c.text);
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
    kids.push(h('div.overlay#confirm', h('div.sheet',
      h('p', c.text),
      h('div.row2',
        h('button#confirm-no', { onclick: () => { S.confirm = null; render(); } }, 'Cancel'),
        h('button.danger#confirm-yes', { onclick: () => { S.confirm = null; c.onYes(); render(); } }, c.yes)))));
  }
  if (S.screen === 'room' && S.view && S.showResult && (S.gameOver || (S.view.phase !== 'playing' && S.view.lastResult && S.ended))) {
    kids.push(gameOverSheet());
  }
  layer.replaceChildren(...kids);
}

function gameOverSheet() {
  const v = S.view;
  const go = S.gameOver;
  const res = S.ended?.result || v.lastResult;
  let title = 'Game over';
  let cls = '';
  if (go) {
    title = go.result === 'win' ? 'You won!' : go.result === 'lose' ? 'You lost' : 'Draw';
    cls = go.result;
  } else if (res && S.seat) {
    title = res.winner === S.seat ? 'You won!' : res.winner ? 'You lost' : 'Draw';
  }
  const kind = go?.kind || res?.kind;
  const pts = go?.points ?? res?.points;
  const parts = [h(`h2.result.${cls || 'none'}#result-title`, title)];
  parts.push(h('p.kind#result-kind', `${KINDS[kind] || kind || ''}${pts ? ` · ${pts} point${pts === 1 ? '' : 's'}` : ''}${res?.reason ? ` · ${REASONS[res.reason] || res.reason}` : ''}`));
  if (go?.message) parts.push(h('p.msg', go.message));
  if (res?.thudTotals) parts.push(h('p', `Totals: ${sideLabel('a')} ${res.thudTotals[0]} — ${sideLabel('b')} ${res.thudTotals[1]}`));
  const sum = S.summary?.summary;
  if (sum) {
    const me = seatIdx(S.seat || 'a');
    const op = 1 - me;
    const thud = v.game === 'thud';
    parts.push(h('table.summary#summary',
      h('tr', h('th', ''), h('th', 'You'), h('th', 'Opponent')),
      thud ? null : h('tr', h('td', 'Checkers borne off'), h('td', sum.borneOff[me]), h('td', sum.borneOff[op])),
      h('tr', h('td', 'Moves'), h('td', sum.moves[me]), h('td', sum.moves[op])),
      thud ? null : h('tr', h('td', 'Doubles'), h('td', sum.doubles[me]), h('td', sum.doubles[op])),
      h('tr', h('td', thud ? 'Captures' : 'Hits'), h('td', sum.hits[me]), h('td', sum.hits[op]))));
  }
  if (S.stats) parts.push(h('div.stats#my-stats', h('h3', 'Your statistics'), statsTable(S.stats)));
  if (S.ended?.serverSeed && v.game !== 'thud') {
    const ver = S.verify;
    parts.push(h('div.fairness#fairness',
      h('h3', 'Provably fair dice'),
      h('p.mono', `Commitment: ${S.commitment || '—'}`),
      h('p.mono#server-seed', `Server seed: ${S.ended.serverSeed}`),
      h('div.row',
        h('button#verify', { onclick: verifySeed }, 'Verify'),
        h('a#records', { href: `/api/rooms/${encodeURIComponent(S.roomId || S.roomKey)}/records`, target: '_blank', rel: 'noopener' }, 'Game record (for tabula verify)')),
      ver ? h(`p#verify-result.${ver.ok ? 'ok' : 'bad'}`, ver.ok ? '✓ SHA-256(server seed) matches the commitment made before the first roll.' : ver.ok === null ? `SHA-256 = ${ver.got}` : `✗ Mismatch: SHA-256(server seed) = ${ver.got}`) : null));
  }
  const again = v.phase === 'waiting_for_player' ? 'Next game' : v.seats[1]?.bot ? 'Play again' : 'Lobby';
  parts.push(h('div.row2',
    h('button#close-result', { onclick: () => { S.showResult = false; render(); } }, 'See board'),
    h('button.primary#play-again', { onclick: playAgain }, again)));
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
  tg.backButton(inRoom ? leave : null);
  const v = S.view;
  const mine = S.seat && v ? v.seats[seatIdx(S.seat)] : null;
  const vsBot = inRoom && mine && v.seats.some((s) => s.bot);
  if (inRoom && mine && v.phase === 'waiting_for_player' && !mine.ready && !S.gameOver && !vsBot) tg.mainButton('Ready', sendReady);
  else if (inRoom && S.showResult && (S.gameOver || S.ended)) tg.mainButton('Play again', playAgain);
  else tg.mainButton(null);
}

// ---- start ------------------------------------------------------------------------

async function main() {
  applyStoredTheme();
  matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', applyStoredTheme);
  await tg.init();
  try {
    S.config = (await api('GET', '/api/client-config')) || {};
  } catch {}
  net = new Net({
    query: credQuery,
    onMessage,
    onStatus: (s) => {
      S.conn = s;
      render();
    },
  });
  window.__tabula = {
    get state() {
      return S;
    },
    get net() {
      return net;
    },
    dropSocket: () => net.dropSocket(),
    enter: (key) => enterRoom(key),
  };
  net.connect();
  const code = tg.startParam() || params.get('join') || params.get('startapp');
  if (code && /^[A-Za-z0-9_-]{1,64}$/.test(code)) enterRoom(code);
  render();
  setInterval(() => {
    // Keep-alive, and the disconnect countdowns.
    net.raw({ type: 'ping' });
    if (S.screen === 'room' && S.view?.seats?.some((s) => s.disconnectDeadline)) render();
  }, 15000);
}

main();
