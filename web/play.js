// The player's intents in a room: roll, the local turn (undo until Done),
// the opponent's steps drawn one after another, board taps and drags,
// resign, leave, rematch, hint, play again. The state changes through the
// intents' named transitions (transitions.js, `dispatch`); what is here is
// the rest: the socket, haptics, sound, the drawing of slides.

import { api } from './net.js';
import * as tg from './telegram.js';
import { movableFrom, parseSteps } from './boards/nardy.js';
import { thudTargets } from './boards/thud.js';
import * as sound from './sound.js';
import { t } from './i18n.js';
import { h, $ } from './dom.js';
import { pref, confirmTurns, S, dispatch, net, credHeaders, game, isDice, playing, myTurn, need, clearSel, currentMoves, vsComputer, correspondence } from './store.js';
import { toast, ask } from './text.js';
import { enterRoom, toLobby } from './lobby.js';
import { autoTurn, applyEvent } from './server.js';
import { render } from './app.js';

// ---- room actions -------------------------------------------------------------
export function sendReady() {
  const r = new Uint8Array(16);
  crypto.getRandomValues(r);
  net.send({ type: 'setClientSeed', seed: Array.from(r, (b) => b.toString(16).padStart(2, '0')).join('') });
  net.send({ type: 'ready' });
  tg.haptic('light');
}

/** A tap again this long after a roll that got no answer asks again. */
export const ROLL_AGAIN_MS = 2000;

/**
 * The roll. One at a time: while a `rollDice` is unanswered, taps do
 * nothing for ROLL_AGAIN_MS, then a tap sends the same command again (its
 * `seq`, so the server applies it once: lost on the way, it is applied now;
 * applied with its answer lost, the answer is `ack` `duplicate` and the app
 * resyncs). A refused roll is no longer waiting: the next tap rolls.
 */
export function roll() {
  const asked = [...net.pending.values()].find((c) => c.type === 'rollDice');
  if (asked && Date.now() - S.rollAskedAt < ROLL_AGAIN_MS) return;
  // Once the dice are in, the focus goes to the board (its first movable checker).
  dispatch('rollAsked', { at: Date.now() });
  if (asked) net.raw(asked);
  else net.send({ type: 'rollDice' });
  tg.haptic('medium');
}

export const spot = (s) => (s === 'off' || s === 'bar' ? s : Number(s));

export function playPath(path) {
  sound.play('checker');
  if (confirmTurns() && isDice()) {
    localPlay(path);
    return;
  }
  // Steps of one tap go out together; nothing is offered until all are echoed.
  dispatch('movesSent', { n: path.length });
  for (const [from, to] of path) net.send({ type: 'move', from: spot(from), to: spot(to) });
  tg.haptic('light');
  render();
}


/** Starts the local turn when the player's own offer arrives (confirmation on). */
export function ensureLocal() {
  dispatch('localStart', { confirm: confirmTurns() });
}

export function localPlay(path) {
  const r = dispatch('localStep', { path });
  if (!r) return;
  if (r.hits) sound.play('hit');
  tg.haptic('light');
  net.send({ type: 'preview', play: r.ask });
  render();
}

/** A play's steps in one spelling ("24-18,18-13", "13/7 8/7*" and the server's "13-7,8-7" alike). */
export const samePlay = (text) => String(text || '').replace(/\*/g, '').split(/[\s,]+/).filter(Boolean).map((st) => st.split(/[-/]/).join('>')).join(' ');

export function onPreview(m) {
  const same = samePlay(m.play) === samePlay(S.local?.asking);
  // An answer for steps since undone is not this offer.
  if (dispatch('previewed', { m, same }) === 'complete' && !confirmTurns()) sendTurn();
}

export function undo() {
  if (!dispatch('undo')) return;
  tg.haptic('light');
  render();
}

export function sendTurn() {
  const play = dispatch('turnSent');
  if (!play) return;
  net.send({ type: 'turn', play });
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
export const stepMs = () => ({ normal: 320, fast: 140, off: 0 })[pref('speed', 'normal')] ?? 320;

export function enqueue(e) {
  dispatch('queued', { e });
  pump();
}

export function pump() {
  for (let e = dispatch('dequeued'); e; e = dispatch('dequeued')) {
    const ms = stepMs();
    // The player's own steps played for him (auto-play) slide too: he did not lay them out.
    const animate = ms > 0 && e.type === 'moved' && (e.seat !== S.seat || S.autoMoving > 0) && isDice() && !document.hidden;
    // A player without a legal move sees his dice and "No moves" before the turn passes.
    const hold = ms > 0 && e.type === 'turnPassed' && !document.hidden ? 5 * ms : 0;
    const from = animate ? checkerRect(e.seat, e.from) : null;
    applyEvent(e);
    render();
    if (animate || hold) {
      dispatch('animating', { on: true });
      if (animate) slide(e.seat, e.to, from, ms);
      setTimeout(() => {
        dispatch('animating', { on: false });
        pump();
        autoTurn();
        render();
      }, hold || ms + 40);
    }
  }
}

/** The point as the board numbers it for this viewer (backgammon draws each side in the viewer's numbering). */
export function viewPoint(seat, p) {
  if (p === 'off' || p === 'bar' || game() !== 'backgammon') return String(p);
  const viewer = S.seat || 'a';
  return seat === viewer ? String(p) : String(25 - Number(p));
}

export function topChecker(seat, p) {
  const q = viewPoint(seat, p);
  const color = seat === 'a' ? 'white' : 'black';
  const list = [...document.querySelectorAll(`#board .checker[data-point="${q}"]`)].filter((c) => c.classList.contains(color));
  if (list.length) return list[list.length - 1];
  if (p === 'off') return document.querySelector(seat === (S.seat || 'a') ? '#board #tray' : '#board #tray-opp');
  return null;
}

export function checkerRect(seat, p) {
  const c = topChecker(seat, p);
  return c ? c.getBoundingClientRect() : null;
}

export function slide(seat, to, fromRect, ms) {
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
  dispatch('sliding', { on: true });
  const end = () => {
    dispatch('sliding', { on: false });
    el.classList.remove('sliding');
  };
  el.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: 'translate(0, 0)' }], { duration: ms, easing: 'ease-in-out' })
    .finished.then(end, end);
}


export function thudPlay(mv) {
  net.send({ type: 'thudMove', notation: mv.notation });
  clearSel();
  tg.haptic(mv.captures.length ? 'heavy' : 'light');
  render();
}


export function resign() {
  ask(t('ask.resign'), t('btn.resign'), () => net.send({ type: 'resign' }));
}

export function leave() {
  // A game against the computer waits for its player (it pauses): leaving loses nothing.
  // Nor does a correspondence game: he comes back to it from the lobby.
  if (playing() && S.seat && !vsComputer() && !correspondence()) ask(t('ask.leave'), t('btn.leave'), toLobby);
  else toLobby();
}

export async function playAgain() {
  const v = S.view;
  if (!v) return toLobby();
  if (v.phase === 'waiting_for_player') {
    dispatch('readyAgain');
    sendReady();
    render();
    return;
  }
  const bot = v.seats[1]?.bot;
  if (bot) {
    try {
      const r = await api('POST', '/api/rooms', { game: v.game, options: v.options, bot: { level: bot }, matchLength: v.matchLength }, credHeaders());
      dispatch('botChosen', bot);
      enterRoom(r.roomId, r.invite);
    } catch (e) {
      toast(e.message, 'error');
    }
  } else {
    toLobby();
  }
}

export async function verifySeed() {
  const seed = S.ended?.serverSeed;
  const commit = S.commitment;
  if (!seed) return;
  // SHA-256 in the browser, loaded on first use (never by the lobby).
  const { sha256hex } = await import('./sha256.js');
  const got = await sha256hex(seed);
  dispatch('verified', { ok: commit ? got === commit : null, got });
  render();
}


// ---- board interaction ---------------------------------------------------------
export let drag = null;

export function boardPointerDown(ev) {
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

export function cancelDrag() {
  drag?.ghost?.remove();
  drag = null;
}

export function boardPointerMove(ev) {
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

export function boardPointerUp(ev) {
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

export function select(p, keep) {
  if (dispatch('select', { p, keep })) tg.haptic('select');
  render();
}

/** Two taps on one checker within this long bear it off (when it may be). */
export const DOUBLE_TAP_MS = 400;
let lastTap = { p: null, at: 0 };

export function tap(t) {
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
  // A second tap on the same checker soon after the first: borne off, when it may be.
  const again = p && lastTap.p === p && Date.now() - lastTap.at < DOUBLE_TAP_MS;
  lastTap = { p, at: again ? 0 : Date.now() };
  if (again && S.sel === p && S.targets?.has('off')) {
    playPath(S.targets.get('off'));
    return;
  }
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

export function tapThud(t) {
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
      dispatch('choose', { list });
      render();
    }
    return;
  }
  const t2 = thudTargets(legal, s);
  if (t2.size) {
    dispatch('thudSelect', { s, targets: t2 });
    tg.haptic('select');
  } else clearSel();
  render();
}



// ---- hint, rematch ----------------------------------------------------------------
export function askHint() {
  dispatch('hintAsked');
  net.send({ type: 'hint' });
  render();
}

/** Plays the hint's steps as the local turn (the player still confirms with Done). */
export function playHint(play) {
  const steps = parseSteps(game(), play).map(([f, to]) => [String(f), String(to)]);
  dispatch('hintClosed');
  if (!S.local || S.local.groups.length) return;
  localPlay(steps);
}

export function askRematch() {
  dispatch('rematchAsked');
  net.send({ type: 'rematch' });
  render();
}
