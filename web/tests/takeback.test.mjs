// Takebacks (issue 46) in a real browser: in a casual game between two
// people, the player who has just played his turn asks to take it back;
// his opponent allows it and the mover plays the same roll again on the
// board as it was; asked again and declined, the button goes and the turn
// stands. Each turn is said to a screen reader.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, launch, openPage, appState, waitState, playDiceTurn, ready } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('a turn taken back with the opponent\u2019s consent is played again with the same roll; a declined one stands', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    const alice = await openPage(browser, `${node.base}/?guest=alice`);
    await alice.waitForSelector('#create-room');
    await alice.click('#create-room'); // long nardy, casual
    await alice.waitForSelector('#invite-link');
    const link = await alice.$eval('#invite-link', (e) => e.value);
    const bob = await openPage(browser, link.replace(/^http:\/\/[^/]+/, node.base) + '&guest=bob');
    await waitState(bob, (s) => s.seat === 'b', 'bob seated');
    await ready(alice);
    await ready(bob);
    const pages = { a: alice, b: bob };
    const st = await waitState(alice, (s) => s.view?.phase === 'playing' && s.view.toAct?.seat, 'the first turn');
    const seat = st.view.toAct.seat;
    const mover = pages[seat];
    const other = pages[seat === 'a' ? 'b' : 'a'];

    // The mover plays his turn; before it, the board and (after the roll) the dice.
    let before;
    await playDiceTurn(mover, {
      afterRoll: async () => {
        before = await appState(mover);
      },
    });
    await waitState(other, (s) => s.view.toAct?.seat !== seat, 'the turn passed');
    // The opponent's screen reader heard the turn: who, the roll, each step.
    const heard = await other.textContent('#move-live');
    const steps = await other.evaluate((me) => window.__tabula.state.log.filter((e) => e.seat === me && e.steps?.length).pop().steps, seat);
    // (The first turn may be the opening roll's, with no roll of its own.)
    assert.match(heard, /^[^:]+: (rolled \d–\d, )?\S/, heard);
    for (const st of steps) assert.ok(heard.includes(st), `${st} in "${heard}"`);
    assert.equal(await other.getAttribute('#move-live', 'aria-live'), 'polite');
    // He asks to take it back; his opponent is asked and allows it.
    await mover.waitForSelector('#takeback');
    await mover.click('#takeback');
    await mover.waitForSelector('#withdraw-takeback');
    await other.waitForSelector('#accept-takeback');
    assert.ok(await other.$('#decline-takeback'), 'he may decline');
    await other.click('#accept-takeback');
    const back = await waitState(mover, (s) => s.view.toAct?.seat === seat && s.view.toAct.need === 'move' && s.view.moves, 'the roll to play again');
    assert.deepEqual(back.view.dice, before.view.dice, 'the same roll');
    assert.deepEqual(back.view.board, before.view.board, 'the board as it was');
    await waitState(other, (s) => s.view.toAct?.seat === seat && JSON.stringify(s.view.board) === JSON.stringify(before.view.board), 'the opponent sees it too');
    assert.equal(await mover.$('#takeback'), null, 'nothing to take back mid-turn');

    // Played again, asked again, declined this time: the turn stands.
    await playDiceTurn(mover);
    const played = await waitState(other, (s) => s.view.toAct?.seat !== seat, 'the turn passed again');
    await mover.waitForSelector('#takeback');
    await mover.click('#takeback');
    await other.waitForSelector('#decline-takeback');
    await other.click('#decline-takeback');
    await mover.waitForSelector('#takeback', { state: 'detached' });
    const after = await appState(mover);
    assert.deepEqual(after.view.board, played.view.board, 'the turn stands');
    assert.ok(!after.takeback, 'no takeback pending');
    for (const p of [alice, bob]) assert.deepEqual(p.errors, []);
  } finally {
    await node.stop();
  }
});
