// The server's messages applied to the state: `onMessage` (state, events,
// chat, errors), the clocks, the automatic turn and Ready.

import { api } from './net.js';
import * as tg from './telegram.js';
import { parseSteps } from './boards/nardy.js';
import * as sound from './sound.js';
import { t } from './i18n.js';
import { clockFigures, formatClock, WARN_MS, shouldAutoRoll, forcedPlay } from './clock.js';
import { h, $ } from './dom.js';
import { ping, pingAt, onPong, autoRollOn, autoPlayOn, S, dispatch, define, net, serverClock, serverNow, seatIdx, isDice, playing, myTurn, need } from './store.js';
import { seatName, narrate, sideName, toast, roundTimeoutSentence } from './text.js';
import { loadStats, onWelcome } from './lobby.js';
import { sendReady, roll, ensureLocal, onPreview, undo, enqueue } from './play.js';
import { saveLog } from './log.js';
import { transitions, events } from './transitions.js';
import { render } from './app.js';
import { noteRating } from './rating.js';



// ---- server messages -------------------------------------------------------
// Each message changes the state through its named transition
// (transitions.js); what follows here is the rest: sound, haptics, toasts,
// storage, the socket's version, asking for a fresh state.
define(transitions);

export const RESYNC = new Set(['takebackAccepted', 'rematchStarted', 'gameStarted', 'doubleOffered', 'doubleTaken', 'doubleDropped', 'endProposed', 'endDeclined', 'thudMoved', 'roundEnded', 'gameEnded', 'matchOver']);

/** Asks for a fresh full `state` (the answer to `join`), in order with the events. */
export function resync() {
  if (S.roomKey && net.room) net.join(net.room.key, net.room.spectate);
}

export function onMessage(m) {
  switch (m.type) {
    case 'welcome':
      onWelcome(m);
      break;
    case 'state': {
      if (!S.roomKey) break;
      // The server's clock, read on receipt; a ping refines it.
      serverClock.sample(m.serverTime);
      if (m.state.clock && Date.now() - pingAt > 30000) ping();
      const pendingMoves = [...net.pending.values()].filter((c) => c.type === 'move').length;
      const r = dispatch('roomState', { m, pendingMoves });
      if (!r) break;
      if (r.newPeriod) clearClockLive();
      saveLog(S);
      net.version = S.version;
      if (S.view.phase === 'finished' && !S.summary) loadSummary();
      ensureLocal();
      noteRating(S.view);
      break;
    }
    case 'event':
      if (!dispatch('eventSeen', { version: m.version })) break;
      net.version = m.version;
      // The clocks are the server's figures for now: shown at once, not
      // behind the animation of steps already played.
      if (m.event.type === 'clock') applyClock(m.event);
      else enqueue(m.event);
      break;
    case 'pong':
      onPong(m);
      break;
    case 'preview':
      onPreview(m);
      break;
    case 'hint':
      dispatch('hint', m);
      break;
    case 'chat':
      if (dispatch('chat', m)) net.version = m.version;
      break;
    case 'game_over': {
      const r = dispatch('gameOver', m);
      if (r.isNew) tg.haptic(m.result === 'win' ? 'success' : m.result === 'lose' ? 'error' : 'warning');
      if (r.versionMoved) net.version = m.version;
      loadStats();
      break;
    }
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
        dispatch('timeUp');
        break;
      }
      if (m.code === 'replaced') {
        // The same player opened the game in another window: do not fight over the seat.
        net.close();
        dispatch('replaced');
        break;
      }
      if ((m.code === 'room_full' || m.code === 'game_in_progress' || m.code === 'match_finished') && S.roomKey && !S.view && !net.room?.spectate) {
        // Both seats are taken: watch instead.
        net.join(S.roomKey, true);
        toast(t('toast.full'), 'info', 3000);
      } else if (m.code === 'room_not_found') {
        // Unknown code, or (a single node restarted without a shared store) the room is gone.
        if (S.view) m.message = t('toast.gone');
        dispatch('roomNotFound', { message: m.message });
        net.room = null;
      } else if (S.local?.asking && m.code !== 'rate_limited') {
        // The server refused the tentative step: take it back.
        undo();
        toast(m.message, 'error');
      } else if (S.local?.sent) {
        dispatch('turnRefused');
        toast(m.message, 'error');
        resync();
      } else if (S.hint && (m.code === 'hints_disabled' || m.code === 'not_time_for_hint' || m.code === 'hint_pending')) {
        dispatch('hintRefused', { message: m.message });
      } else if (m.code === 'illegal_move' || m.code === 'not_your_turn' || m.code === 'already_rolled' || m.code === 'incomplete_turn') {
        dispatch('commandRefused');
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


// ---- moves said to a screen reader ----------------------------------------------------
// Every roll, step, pass and Thud! move, said in `#move-live` (polite): one
// turn at a time, its parts joined ("Alice: rolled 6–3, 13-7, 7-4"), so the
// quick steps of a whole turn are not cut off by one another.
let said = null;
function say(seat, part, fresh) {
  const live = $('#move-live');
  if (!live) return;
  if (fresh || !said || said.seat !== seat) said = { seat, parts: [] };
  said.parts.push(part);
  live.textContent = t('sr.turn', { who: seatName(seat), parts: said.parts.join(', ') });
}

// ---- clocks -----------------------------------------------------------------------
/** A new period: its warning may be said again. */
function clearClockLive() {
  const live = $('#clock-live');
  if (live) live.textContent = '';
}

/** The `clock` event: it replaces state.clock. */
export function applyClock(e) {
  if (dispatch('clock', e)) clearClockLive();
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
 * per period (colour, a live announcement, a beep, Telegram's haptic
 * warning or, outside Telegram, the phone's vibration).
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
  dispatch('clockWarned');
  const live = $('#clock-live');
  if (live) live.textContent = t('clock.warn', { n: Math.ceil(f.total / 1000) });
  // Heard and felt: a beep (unless muted) and Telegram's haptic warning, or the phone's vibration outside it.
  sound.play('lowTime');
  if (tg.active()) tg.haptic('warning');
  else navigator.vibrate?.([120, 80, 120]);
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
  dispatch('autoPlayed', { steps: parseSteps(v.game, play).length });
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
  dispatch('autoReadied', { key: `${S.roomId}:${v.gameNumber}` });
  sendReady();
}

export async function loadSummary() {
  const id = S.roomId || S.roomKey;
  if (!id) return;
  try {
    dispatch('summary', { summary: await api('GET', `/api/rooms/${encodeURIComponent(id)}/summary`) });
    render();
  } catch {}
}

/** Events whose transition extends the move log (kept for this tab). */
const LOGGED = new Set(['gameStarted', 'diceRolled', 'moved', 'turnPassed', 'thudMoved']);

/** One event: its transition, then what it sounds, shows and stores. */
export function applyEvent(e) {
  const r = Object.hasOwn(events, e.type) ? dispatch(e.type, e) : undefined;
  if (LOGGED.has(e.type)) saveLog(S);
  switch (e.type) {
    case 'gameStarted':
      try {
        sessionStorage.removeItem(`tabula.roundTimeouts.${S.roomKey}`);
      } catch {}
      break;
    case 'openingRoll': {
      const last = e.rolls[e.rolls.length - 1] || [];
      toast(t('toast.opening', { a: last[0], b: last[1], who: e.starter === S.seat ? t('toast.youStart') : t('toast.starts', { side: sideName(e.starter) }) }));
      break;
    }
    case 'diceRolled':
      sound.play('dice');
      say(e.seat, t('sr.rolled', { dice: e.dice.join('–') }), true);
      break;
    case 'possibleMoves':
      ensureLocal();
      break;
    case 'moved':
      say(e.seat, e.notation || `${e.from}-${e.to}`);
      if (e.seat !== S.seat) {
        sound.play(e.hit ? 'hit' : 'checker');
        tg.haptic('select');
      }
      break;
    case 'turnPassed':
      say(e.seat, t('sr.passed'));
      toast(e.seat === S.seat ? t('toast.noMovesYou', { dice: e.dice.join('–') }) : t('toast.noMoves', { who: seatName(e.seat), dice: e.dice.join('–') }), 'info', 3000);
      break;
    case 'thudMoved':
      say(e.seat, e.notation, true);
      sound.play(e.captured ? 'hit' : 'checker');
      if (e.captured) toast(t('toast.captured', { notation: e.notation, n: e.captured }), 'info', 2000);
      break;
    case 'roundEnded':
      if (e.reason === 'timeout') {
        toast(roundTimeoutSentence(e.round, r), 'warn', 5000);
        if (r && r === S.seat) tg.haptic('warning');
      }
      try {
        sessionStorage.setItem(`tabula.rounds.${S.roomKey}`, JSON.stringify(S.thudRounds));
        sessionStorage.setItem(`tabula.roundTimeouts.${S.roomKey}`, JSON.stringify(S.roundTimeouts));
      } catch {}
      break;
    case 'rematchOffered':
      if (e.seat !== S.seat && S.seat) toast(t('toast.rematchAsked'), 'info', 4000);
      break;
    case 'takebackOffered':
      if (e.seat !== S.seat && S.seat) {
        toast(t('toast.takebackAsked'), 'info', 4000);
        tg.haptic('warning');
      }
      break;
    case 'takebackDeclined':
      if (r) toast(t('toast.takebackDeclined'), 'warn', 3000);
      break;
    case 'takebackAccepted':
      toast(t(e.seat === S.seat ? 'toast.takebackYours' : 'toast.takebackTheirs'), 'info', 3000);
      break;
    case 'rematchDeclined':
      if (r) toast(t('toast.rematchDeclined'), 'warn', 3000);
      break;
    case 'gameEnded':
      if (S.seat) sound.play(e.result?.winner === S.seat ? 'win' : e.result?.winner ? 'loss' : 'checker');
      loadSummary();
      break;
    default:
      break;
  }
  if (RESYNC.has(e.type)) resync();
}
