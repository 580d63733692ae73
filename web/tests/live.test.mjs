// The lobby's showcase (issue 46, web/live.js): an open challenge made from
// the lobby is listed in another player's lobby, whose "Take the seat"
// seats him; once both are ready the game is listed under "Live games" in a
// third lobby with the count of players online, and opening it watches as
// a spectator, who sees the players' move arrive.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, launch, openPage, waitState, appState, ready, playDiceTurn, api, sleep } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Polls `GET /api/live` until `pred` holds (a node lists its rooms every 3 s). */
async function liveUntil(base, pred, what) {
  const end = Date.now() + 15000;
  for (;;) {
    const v = await api(base, 'GET', '/api/live');
    if (pred(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: ${JSON.stringify(v)}`);
    await sleep(200);
  }
}

test('an open challenge taken from the lobby; the game listed live, watched as a spectator who sees a move arrive', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    // The maker opens a challenge from the lobby and waits in the room.
    const maker = await openPage(browser, node.base);
    await maker.waitForSelector('#open-challenge');
    await maker.click('#open-challenge');
    const made = await waitState(maker, (s) => s.screen === 'room' && s.view && s.seat, 'the challenge room');
    const room = made.roomId;
    assert.ok(room, 'a room id');
    await liveUntil(node.base, (v) => v.challenges.some((c) => c.roomId === room), 'the challenge listed');

    // Another player sees it in his lobby and takes the seat.
    const taker = await openPage(browser, node.base);
    await taker.waitForSelector(`[data-challenge="${room}"]`);
    assert.match(await taker.textContent('#challenges'), /Open challenges/);
    await taker.click(`[data-challenge="${room}"]`);
    await waitState(taker, (s) => s.screen === 'room' && s.seat, 'the taker seated');
    await ready(maker);
    await ready(taker);
    // `gameStarted` sets the phase; the first `turnStarted` (who acts) follows it.
    const playing = await waitState(maker, (s) => s.view?.phase === 'playing' && s.view.toAct?.seat, 'the game on, its first turn known');

    // A third lobby: the game under "Live games", the count of who is online.
    await liveUntil(node.base, (v) => v.games.some((g) => g.roomId === room) && !v.challenges.length, 'the game listed');
    const watcher = await openPage(browser, node.base);
    await watcher.waitForSelector(`[data-live-room="${room}"]`);
    // At least the two players (the watcher's own socket is counted at
    // the node's next listing, within 3 s).
    const online = Number((await watcher.textContent('#online')).match(/^(\d+) online$/)?.[1]);
    assert.ok(online >= 2 && online <= 3, `online: ${online}`);
    await watcher.click(`[data-live-room="${room}"]`);
    const seen = await waitState(watcher, (s) => s.screen === 'room' && s.view?.phase === 'playing' && s.view.board, 'the spectator in the room');
    assert.ok(!seen.seat, 'a spectator has no seat');

    // The player to act plays his turn (a roll, if his dice are not
    // rolled yet, and his steps): the spectator sees the move arrive.
    const toAct = playing.view.toAct.seat;
    const actorPage = (await appState(maker)).seat === toAct ? maker : taker;
    const before = (await appState(watcher)).view.board;
    await playDiceTurn(actorPage);
    await waitState(watcher, (s) => s.view.toAct?.seat !== toAct && JSON.stringify(s.view.board) !== JSON.stringify(before), 'the move seen by the spectator');
    for (const p of [maker, taker, watcher]) assert.deepEqual(p.errors, []);
  } finally {
    await node.stop();
  }
});
