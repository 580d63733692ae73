// The state store's named transitions (issue 46), in node without a
// browser: the table, what each transition changes, and that the room's
// modules change the state only through them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { S, dispatch, define, defined, roomState, strays } from '../store.js';
import { transitions, events, fromServer, intents } from '../transitions.js';

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
define(transitions);

/** A long-nardy state as the server sends it: white (`a`, this player) to move with 6-5. */
function stateMsg(version = 5, extra = {}) {
  return {
    type: 'state',
    room: 'r1',
    yourSeat: 'a',
    serverTime: Date.now(),
    state: {
      version,
      game: 'long_nardy',
      phase: 'playing',
      gameNumber: 1,
      seats: [{ player: 'p1', ready: true }, { player: 'p2', ready: true }],
      toAct: { seat: 'a', need: 'move' },
      dice: [6, 5],
      board: { position: { white: { 24: 15 }, black: { 12: 15 } } },
      moves: { seat: 'a', diceLeft: [6, 5], firstSteps: ['24-18', '24-19'], sequences: ['24-18,18-13', '24-19,19-13', '24-18,24-19'] },
      actions: [{ type: 'roll', seat: 'a', dice: [6, 5] }],
      chat: [{ from: 'p2', text: 'hi', version: 3 }],
      ...extra,
    },
  };
}

function fresh() {
  dispatch('roomEntered', { key: 'r1', invite: null, kept: { log: [], thudRounds: [], roundTimeouts: {} } });
}

test('every transition is in the table once, and an unknown name throws', () => {
  const names = [...Object.keys(fromServer), ...Object.keys(events), ...Object.keys(intents)];
  assert.equal(new Set(names).size, names.length, 'no name in two groups');
  for (const n of names) assert.ok(defined(n), n);
  for (const n of ['deselect', 'roomEntered', 'roomLeft', 'localDropped']) assert.ok(defined(n), n);
  assert.throws(() => dispatch('noSuchTransition'), /unknown transition/);
  assert.throws(() => define({ deselect: () => {} }), /defined twice/);
  // Every event the server sends that changes the state has its transition.
  for (const e of ['seatTaken', 'botSeated', 'seatFreed', 'ready', 'gameStarted', 'turnStarted', 'diceRolled', 'possibleMoves', 'moved', 'turnPassed', 'thudMoved', 'roundEnded', 'playerDisconnected', 'playerReconnected', 'rematchOffered', 'rematchDeclined', 'rematchStarted', 'gameEnded']) {
    assert.ok(Object.hasOwn(events, e), e);
  }
});

test('a state, then a local turn: select, step, preview, undo, Done', () => {
  fresh();
  assert.equal(S.screen, 'room');
  const r = dispatch('roomState', { m: stateMsg(), pendingMoves: 0 });
  assert.deepEqual(r, { first: true, newPeriod: false });
  assert.equal(S.seat, 'a');
  assert.equal(S.version, 5);
  assert.equal(S.chat.length, 1);
  assert.deepEqual(S.log.slice(-1)[0], { seat: 'a', dice: [6, 5], steps: [] });
  // An older state is not applied.
  assert.equal(dispatch('roomState', { m: stateMsg(4) }), null);
  assert.equal(S.version, 5);

  assert.equal(dispatch('localStart', { confirm: false }), false, 'no local turn without confirmation');
  assert.equal(dispatch('localStart', { confirm: true }), true);
  assert.equal(dispatch('localStart', { confirm: true }), false, 'one at a time');

  assert.equal(dispatch('select', { p: '24' }), true);
  assert.equal(S.sel, '24');
  assert.ok(S.targets.has('18') && S.targets.has('19'), 'first steps and further stops');
  assert.equal(dispatch('select', { p: '24' }), false, 'a second tap unselects');
  assert.equal(S.sel, null);

  const step = dispatch('localStep', { path: [['24', '18']] });
  assert.deepEqual(step, { ask: '24-18', hits: 0 });
  assert.equal(S.local.pos.white['24'], 14);
  assert.equal(dispatch('localStep', { path: [['24', '19']] }), null, 'nothing while the preview is asked');
  assert.equal(dispatch('previewed', { m: { complete: false }, same: false }), null, 'an answer for other steps is not this one');
  assert.equal(dispatch('previewed', { m: { complete: false, diceLeft: [5], firstSteps: ['18-13'], sequences: ['18-13'] }, same: true }), 'offer');
  assert.deepEqual(S.local.groups[0].offer.diceLeft, [5]);

  assert.equal(dispatch('undo'), true);
  assert.equal(S.local.groups.length, 0);
  assert.equal(S.local.pos.white['24'], 15);
  assert.equal(dispatch('undo'), false, 'nothing left to undo');

  dispatch('localStep', { path: [['24', '18'], ['18', '13']] });
  assert.equal(dispatch('turnSent'), null, 'not complete yet');
  assert.equal(dispatch('previewed', { m: { complete: true }, same: true }), 'complete');
  assert.equal(dispatch('turnSent'), '24-18,18-13');
  assert.equal(dispatch('turnSent'), null, 'sent once');
  assert.equal(dispatch('undo'), false, 'no undo once sent');
});

test('the server\'s events: moved, turnPassed, turnStarted, a game ended, a rematch', () => {
  fresh();
  dispatch('roomState', { m: stateMsg() });
  dispatch('movesSent', { n: 2 });
  assert.equal(S.inflight, 2);
  dispatch('moved', { seat: 'a', from: 24, to: 18, notation: '24-18' });
  assert.equal(S.inflight, 1);
  assert.equal(S.view.board.position.white['18'], 1);
  assert.deepEqual(S.lastMove, { seat: 'a', from: '24', to: '18' });
  assert.equal(S.view.moves, null, 'the offer was for the position before');
  assert.deepEqual(S.log.slice(-1)[0].steps, ['24-18']);

  dispatch('turnStarted', { seat: 'b', mayDouble: true });
  assert.deepEqual(S.view.toAct, { seat: 'b', need: 'roll' });
  assert.equal(S.inflight, 0);
  assert.equal(S.mayDouble, false, 'the opponent may double, not me');
  assert.equal(S.mayDoubleKnown, true);
  dispatch('diceRolled', { seat: 'b', dice: [3, 1] });
  assert.deepEqual(S.view.toAct, { seat: 'b', need: 'move' });
  dispatch('turnPassed', { seat: 'b', dice: [3, 1] });
  assert.deepEqual(S.noMoves, { seat: 'b', dice: [3, 1] });
  assert.equal(S.log.slice(-1)[0].pass, true, 'the roll\'s own entry says it passed');

  dispatch('rematchOffered', { seat: 'b' });
  assert.deepEqual(S.rematch, { b: true });
  assert.equal(dispatch('rematchDeclined'), true);
  assert.equal(dispatch('rematchDeclined'), false);

  dispatch('gameEnded', { result: { winner: 'a' }, matchScore: [1, 0] });
  assert.equal(S.showResult, true);
  assert.deepEqual(S.view.score, [1, 0]);
  dispatch('showResult', { on: false });
  assert.equal(S.showResult, false);

  dispatch('roundEnded', { round: 1, points: [3, 4], reason: 'timeout' });
  assert.deepEqual(S.thudRounds, [[3, 4]]);
  assert.equal(S.roundTimeouts[1], 'b', 'no clock ran: the seat to act ran out');

  dispatch('roomLeft');
  assert.equal(S.screen, 'lobby');
  assert.equal(S.view, null);
});

test('the queue of someone else\'s steps and the clock', () => {
  fresh();
  dispatch('roomState', { m: stateMsg() });
  assert.equal(dispatch('eventSeen', { version: 5 }), false, 'an event already in the state');
  assert.equal(dispatch('eventSeen', { version: 6 }), true);
  dispatch('queued', { e: { type: 'moved' } });
  dispatch('queued', { e: { type: 'turnStarted' } });
  assert.equal(dispatch('dequeued').type, 'moved');
  dispatch('animating', { on: true });
  assert.equal(dispatch('dequeued'), undefined, 'nothing while a step slides');
  dispatch('animating', { on: false });
  assert.equal(dispatch('dequeued').type, 'turnStarted');
  assert.equal(dispatch('dequeued'), undefined);

  const period = S.periodId;
  assert.equal(dispatch('clock', { delayMs: 30000, reserveMs: 120000, reserve: [120000, 120000], running: { seat: 'a', since: 1, spentMs: 0 } }), true);
  assert.equal(S.periodId, period + 1);
  assert.equal(S.view.timeControl.delayMs, 30000);
  dispatch('clockWarned');
  assert.equal(S.clockWarned, S.periodId);
});

test('outside a transition, a write to the state is recorded in strict mode', () => {
  globalThis.__tabulaStrict = true;
  const before = strays.length;
  dispatch('deselect');
  assert.equal(strays.length, before, 'a transition is not a stray');
  S.toast = null;
  assert.equal(strays.length, before + 1);
  assert.equal(strays.at(-1).key, 'toast');
  globalThis.__tabulaStrict = false;
  assert.equal(typeof roomState, 'function');
});

test('the screens\' fields: one transition each', () => {
  dispatch('lobbyError', 'no such room');
  assert.equal(S.error, 'no such room');
  dispatch('sheet', { kind: 'settings' });
  assert.deepEqual(S.sheet, { kind: 'settings' });
  dispatch('sheet', null);
  assert.equal(S.sheet, null);
  dispatch('welcomed', { player: 'guest:1', profile: { name: 'A' } });
  assert.equal(S.player, 'guest:1');
  assert.deepEqual(S.profile, { name: 'A' });
});

// Every module but the store: the server's messages, the player's intents
// and the screens change the state only by dispatching (nothing assigned to
// the state, the view or the local turn there).
// log.js's functions write the log of the state they are given, inside
// the room's transitions; store.js, transitions.js and tournament-state.js
// (the tournament screens' transitions) are the store.
const MODULES = readdirSync(web).filter((f) => f.endsWith('.js') && !['store.js', 'transitions.js', 'log.js', 'tournament-state.js'].includes(f));
for (const file of MODULES) {
  test(`${file} changes the state only through transitions`, () => {
    const src = readFileSync(path.join(web, file), 'utf8');
    const writes = src.split('\n').map((line, i) => [i + 1, line]).filter(([, line]) =>
      /(^|[^\w.])(S|v|L|S\.view|S\.local)(\.\w+|\[[^\]]+\])+\s*(=(?!=)|\+=|-=|\+\+|--)/.test(line) ||
      /(^|[^\w.])S(\.\w+)+\.(push|splice|shift|pop|unshift|sort|add|delete|set)\(/.test(line) ||
      /Object\.assign\(S\b/.test(line));
    assert.deepEqual(writes, [], `${file} writes the state at lines ${writes.map(([n]) => n).join(', ')}`);
  });
}
