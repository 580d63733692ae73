// The server's messages applied to the state: `onMessage` (state, events,
// chat, errors), the clocks, the automatic turn and Ready.

import { api } from './net.js';
import * as tg from './telegram.js';
import { targetsFrom, movableFrom, applyStep, parseSteps } from './boards/nardy.js';
import { parseThud } from './boards/thud.js';
import * as sound from './sound.js';
import { t } from './i18n.js';
import { clockFigures, formatClock, WARN_MS, newPeriod, shouldAutoRoll, forcedPlay } from './clock.js';
import * as pl from './players.js';
import { h, $ } from './dom.js';
import { autoRollOn, autoPlayOn, S, net, serverClock, serverNow, seatIdx, other, game, isDice, playing, myTurn, need, clearSel, stepText } from './store.js';
import { seatName, profiles, narrate, sideName, toast, roundTimeoutSentence } from './text.js';
import { loadStats } from './lobby.js';
import { sendReady, roll, ensureLocal, onPreview, undo, enqueue } from './play.js';
import { logTurn, logStep, logPass, rebuildLog, saveLog } from './log.js';
import { render } from './app.js';

/** When the last `ping` went out (for the round trip of its `pong`). */
export let pingAt = 0;
export function ping() {
  if (net?.raw({ type: 'ping' })) pingAt = Date.now();
}


// ---- server messages -------------------------------------------------------
export const RESYNC = new Set(['rematchStarted', 'gameStarted', 'doubleOffered', 'doubleTaken', 'doubleDropped', 'endProposed', 'endDeclined', 'thudMoved', 'roundEnded', 'gameEnded', 'matchOver']);

/** Asks for a fresh full `state` (the answer to `join`), in order with the events. */
export function resync() {
  if (S.roomKey && net.room) net.join(net.room.key, net.room.spectate);
}

export function onMessage(m) {
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
export function noteClock(prev, next) {
  if (newPeriod(prev?.running, next?.running)) {
    S.periodId += 1;
    const live = $('#clock-live');
    if (live) live.textContent = '';
  }
}

/** The `clock` event: it replaces state.clock. */
export function applyClock(e) {
  if (!S.view) return;
  const next = { delayMs: e.delayMs, reserveMs: e.reserveMs, reserve: e.reserve, running: e.running || null };
  noteClock(S.view.clock, next);
  S.view.clock = next;
  if (!S.view.timeControl) S.view.timeControl = { delayMs: e.delayMs, reserveMs: e.reserveMs };
}

/** Fills a player's clock: free time then reserve while it runs ("0:12 +1:45"), the reserve while he waits ("+1:45"). */
export function fillClock(el, seat, now) {
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

export function clockBox(seat) {
  const el = h('span.clock', { 'data-seat': seat, role: 'timer' }, h('span.free'), h('span.bank'));
  fillClock(el, seat, serverNow());
  return el;
}

/**
 * Every 200 ms in a room: the clocks and the away countdowns from the
 * server's figures and time; the player's own last seconds warned once
 * per period (colour, a live announcement, Telegram's haptic warning).
 */
export function tickClocks() {
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
export function autoTurn() {
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
export function autoReady() {
  const v = S.view;
  if (!v || v.phase !== 'waiting_for_player' || !S.seat || net.room?.spectate) return;
  const mine = v.seats[seatIdx(S.seat)];
  const other = v.seats[1 - seatIdx(S.seat)];
  if (!other?.bot || mine?.ready || S.autoReady === `${S.roomId}:${v.gameNumber}`) return;
  S.autoReady = `${S.roomId}:${v.gameNumber}`;
  sendReady();
}

export async function loadSummary() {
  const id = S.roomId || S.roomKey;
  if (!id) return;
  try {
    S.summary = await api('GET', `/api/rooms/${encodeURIComponent(id)}/summary`);
    render();
  } catch {}
}

export function applyEvent(e) {
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
