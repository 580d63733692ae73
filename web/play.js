// The player's intents in a room: roll, the local turn (undo until Done),
// the opponent's steps drawn one after another, board taps and drags,
// resign, leave, rematch, hint, play again.

import { api } from './net.js';
import * as tg from './telegram.js';
import { targetsFrom, movableFrom, applyStep, parseSteps } from './boards/nardy.js';
import { thudTargets } from './boards/thud.js';
import { sha256hex } from './sha256.js';
import * as sound from './sound.js';
import { t } from './i18n.js';
import { h, $ } from './dom.js';
import { pref, confirmTurns, S, net, credHeaders, game, isDice, playing, myTurn, need, clearSel, playText, localSteps, currentMoves, vsComputer } from './store.js';
import { toast } from './text.js';
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
  S.rollAskedAt = Date.now();
  // Once the dice are in, the focus goes to the board (its first movable checker).
  S.focusBoard = true;
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
  S.inflight = path.length;
  for (const [from, to] of path) net.send({ type: 'move', from: spot(from), to: spot(to) });
  clearSel();
  tg.haptic('light');
  render();
}


/** Starts the local turn when the player's own offer arrives (confirmation on). */
export function ensureLocal() {
  const v = S.view;
  if (!confirmTurns() || !isDice() || !myTurn() || need() !== 'move' || !v.moves || v.moves.seat !== S.seat) return;
  if (S.local) return;
  S.local = { offer0: v.moves, groups: [], pos: structuredClone(v.board.position), asking: null, complete: false, sent: false };
}

export function localPlay(path) {
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
export const samePlay = (text) => String(text || '').replace(/\*/g, '').split(/[\s,]+/).filter(Boolean).map((st) => st.split(/[-/]/).join('>')).join(' ');

export function onPreview(m) {
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

export function undo() {
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

export function sendTurn() {
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
export const stepMs = () => ({ normal: 320, fast: 140, off: 0 })[pref('speed', 'normal')] ?? 320;

export function enqueue(e) {
  S.queue.push(e);
  pump();
}

export function pump() {
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
  S.sliding = true;
  const end = () => {
    S.sliding = false;
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

export function ask(text, yes, onYes) {
  S.confirm = { text, yes, onYes };
  render();
}

export function resign() {
  ask(t('ask.resign'), t('btn.resign'), () => net.send({ type: 'resign' }));
}

export function leave() {
  // A game against the computer waits for its player (it pauses): leaving loses nothing.
  if (playing() && S.seat && !vsComputer()) ask(t('ask.leave'), t('btn.leave'), toLobby);
  else toLobby();
}

export async function playAgain() {
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

export async function verifySeed() {
  const seed = S.ended?.serverSeed;
  const commit = S.commitment;
  if (!seed) return;
  const got = await sha256hex(seed);
  S.verify = commit ? { ok: got === commit, got } : { ok: null, got };
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
  if (S.sel === p && !keep) {
    clearSel();
  } else {
    S.sel = p;
    S.targets = targetsFrom(game(), currentMoves(), p);
    tg.haptic('select');
  }
  render();
}

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



// ---- hint, rematch ----------------------------------------------------------------
export function askHint() {
  S.hint = { plays: null };
  net.send({ type: 'hint' });
  render();
}

/** Plays the hint's steps as the local turn (the player still confirms with Done). */
export function playHint(play) {
  const steps = parseSteps(game(), play).map(([f, to]) => [String(f), String(to)]);
  S.hint = null;
  if (!S.local || S.local.groups.length) return;
  localPlay(steps);
}

export function askRematch() {
  S.rematch = { ...(S.rematch || {}), [S.seat]: true };
  net.send({ type: 'rematch' });
  render();
}
