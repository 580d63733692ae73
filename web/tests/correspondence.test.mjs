// Correspondence games (issue 44): created from the lobby with days a
// move, shown as such in the room, and listed in the lobby's "Continue"
// with whose turn it is once the page is closed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, launch, openPage, appState, waitState, ready } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('a correspondence game made from the lobby says so in the room and waits in the lobby with whose turn', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    const alice = await openPage(browser, `${node.base}/?guest=alice`);
    await alice.waitForSelector('#time-control');
    const options = await alice.$$eval('#time-control option', (os) => os.map((o) => o.value));
    assert.deepEqual(options.slice(-3), ['1d', '3d', '7d']);
    await alice.selectOption('#time-control', '3d');
    await alice.click('#create-room');
    await alice.waitForSelector('#invite-link');
    const link = await alice.$eval('#invite-link', (e) => e.value);
    const bob = await openPage(browser, link.replace(/^http:\/\/[^/]+/, node.base) + '&guest=bob');
    await waitState(bob, (s) => s.seat === 'b', 'bob seated');
    await ready(alice);
    await ready(bob);
    const st = await waitState(alice, (s) => s.view?.phase === 'playing' && s.view.toAct, 'the game to start');
    assert.deepEqual(st.view.timeControl, { delayMs: 3 * 86400000, reserveMs: 0 });
    assert.match(await alice.textContent('#time-control-info'), /Correspondence: 3 d a move/);
    const aliceMoves = st.view.toAct.seat === 'a';
    // Bob goes back to the lobby with the room's button: no question, no
    // resignation; the game waits for him there, with whose turn it is.
    await bob.click('#leave');
    await bob.waitForSelector('#continue .continue-game');
    const text = await bob.textContent('#continue');
    assert.match(text, /Long nardy vs /);
    if (aliceMoves) assert.match(text, /Their turn/);
    else assert.match(text, /Your turn · 72 h left/);
    const a = await appState(alice);
    assert.equal(a.view.phase, 'playing', 'nobody resigned');
    assert.equal(a.view.seats[1].disconnectDeadline, null, 'no disconnection to see');
    // Alice closes the app; back in the lobby, the game waits for her too.
    const ctx = alice.context();
    await alice.close();
    const back = await openPage(browser, `${node.base}/`, { context: () => ctx });
    await back.waitForSelector('#continue .continue-game');
    const mine = await back.textContent('#continue');
    if (aliceMoves) assert.match(mine, /Your turn · 72 h left/);
    else assert.match(mine, /Their turn/);
    // And Bob opens it again from there, in his seat.
    await bob.click('#continue .continue-game');
    await waitState(bob, (s) => s.seat === 'b' && s.view?.phase === 'playing', 'bob back in his seat');
    assert.deepEqual(back.errors, []);
    assert.deepEqual(bob.errors, []);
  } finally {
    await node.stop();
  }
});
