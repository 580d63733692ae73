// Long nardy in a real browser: two people by an invite link, a whole game
// against the computer, and a dropped socket mid-turn.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, startRedis, launch, openPage, api, screenshot, appState, waitState, playDiceTurn, centre, sleep, ready } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('two pages join one room by invite and play turns by clicking; black sees the board rotated', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    const alice = await openPage(browser, `${node.base}/?guest=alice`);
    await alice.waitForSelector('#bot-hard');
    await screenshot(alice, 'lobby');
    await alice.click('#create-room'); // long nardy, the default game
    await alice.waitForSelector('#invite-link');
    const link = await alice.$eval('#invite-link', (e) => e.value);
    assert.match(link, /\?join=[A-Z0-9]{6}$/, link);
    const bob = await openPage(browser, link.replace(/^http:\/\/[^/]+/, node.base) + '&guest=bob');
    await waitState(bob, (s) => s.seat === 'b', 'bob seated');
    const bobId = (await appState(bob)).player;
    assert.match(bobId, /^guest:[0-9a-f]{32}$/, 'a minted guest id');
    await waitState(alice, (s) => s.view?.seats?.[1]?.player === bobId, 'alice sees bob');
    await ready(alice);
    await ready(bob);
    await waitState(alice, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start');
    await waitState(bob, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start for bob');

    // Orientation: each sees his own head (white 24, black 12) top-right.
    assert.equal(await alice.getAttribute('#board svg', 'data-rotated'), 'false');
    assert.equal(await bob.getAttribute('#board svg', 'data-rotated'), 'true');
    const a24 = await centre(alice, '#board .point[data-point="24"]');
    const a12 = await centre(alice, '#board .point[data-point="12"]');
    const b24 = await centre(bob, '#board .point[data-point="24"]');
    const b12 = await centre(bob, '#board .point[data-point="12"]');
    assert.ok(a24.y < a12.y && a24.x > a12.x, `white: 24 top-right of 12 (${JSON.stringify([a24, a12])})`);
    assert.ok(b12.y < b24.y && b12.x > b24.x, `black: 12 top-right of 24 (${JSON.stringify([b12, b24])})`);
    assert.ok(Math.abs(a24.x - b12.x) < 1 && Math.abs(a24.y - b12.y) < 1, 'both heads in the same place');

    // Several full turns, each player clicking on his own page.
    const pages = { a: alice, b: bob };
    let turns = 0;
    let doubleTaps = 0;
    while (turns < 6) {
      const st = await appState(alice);
      if (st.view.phase !== 'playing') break;
      const seat = st.view.toAct.seat;
      const r = await playDiceTurn(pages[seat], { preferDouble: turns % 2 === 0 });
      if (r.usedDouble) doubleTaps += 1;
      turns += 1;
      // The other page sees the same board once it has caught up.
      const mine = await appState(pages[seat]);
      const theirs = await waitState(pages[seat === 'a' ? 'b' : 'a'], (s) => s.version >= mine.version, 'the opponent page to catch up');
      assert.deepEqual(
        normal(theirs.view.board.position),
        normal(mine.view.board.position),
        `after turn ${turns} both pages show the same position`,
      );
    }
    assert.ok(turns >= 6, `played ${turns} turns`);
    // Chat: a line from one page reaches the other.
    await alice.fill('#chat-input', 'good luck!');
    await alice.press('#chat-input', 'Enter');
    await bob.waitForSelector('#chat .line:has-text("good luck!")');
    const aliceId = (await appState(alice)).player;
    // Shown by her name (a guest's generated one), never by her id.
    const aliceName = (await api(node.base, 'GET', `/api/players/${encodeURIComponent(aliceId)}/profile`)).name;
    await bob.waitForFunction((n) => document.querySelector('#chat .line:last-child b')?.textContent === n, aliceName);
    assert.ok(!(await bob.evaluate(() => document.body.innerText)).includes(aliceId.slice(6)), 'no raw id on the page');
    const st = await appState(alice);
    assert.notDeepEqual(normal(st.view.board.position).white, { 24: 15 }, 'white has moved');
    assert.notDeepEqual(normal(st.view.board.position).black, { 12: 15 }, 'black has moved');
    console.log(`# two-page game: ${turns} turns, ${doubleTaps} one-tap two-dice moves`);
    await screenshot(alice, 'long-nardy-white');
    await screenshot(bob, 'long-nardy-black');
    assert.deepEqual(alice.errors, []);
    assert.deepEqual(bob.errors, []);
  } finally {
    await node.stop();
  }
});

test('quick match: two players who ask at once meet in one room', { timeout: 60000 }, async () => {
  const node = await startNode(undefined, { TABULA__MATCHMAKING__BOT_AFTER_MS: '15000' });
  try {
    const p1 = await openPage(browser, `${node.base}/?guest=quick1`);
    const p2 = await openPage(browser, `${node.base}/?guest=quick2`);
    await p1.click('button[data-game="thud"]');
    await p2.click('button[data-game="thud"]');
    await p1.click('#quick-match');
    await p1.waitForSelector('#cancel-search');
    await p2.click('#quick-match');
    const a = await waitState(p1, (s) => s.view && s.seat, 'p1 in a room');
    const b = await waitState(p2, (s) => s.view && s.seat, 'p2 in a room');
    assert.equal(a.view.game, 'thud');
    assert.notEqual(a.seat, b.seat);
    const ids = await Promise.all([p1, p2].map((p) => p.evaluate(() => window.__tabula.state.roomId)));
    assert.equal(ids[0], ids[1], 'the same room');
    assert.deepEqual([...p1.errors, ...p2.errors], []);
  } finally {
    await node.stop();
  }
});

test('a reload is the same guest: the token kept in localStorage takes the seat back', { timeout: 60000 }, async () => {
  const node = await startNode();
  try {
    const room = await api(node.base, 'POST', '/api/rooms', { game: 'long_nardy', bot: { level: 'easy' } });
    const page = await openPage(browser, `${node.base}/?join=${room.invite}`);
    const before = await waitState(page, (s) => s.seat === 'a' && s.conn === 'online', 'seated');
    assert.match(before.player, /^guest:[0-9a-f]{32}$/);
    await page.reload();
    await page.waitForFunction(() => window.__tabula?.state);
    const after = await waitState(page, (s) => s.seat === 'a' && s.conn === 'online', 'seated again after the reload');
    assert.equal(after.player, before.player, 'the same guest');
    // Another browser (its own storage) is another guest: a spectator here.
    const other = await openPage(browser, `${node.base}/?join=${room.invite}`);
    const o = await waitState(other, (s) => s.player && s.conn === 'online' && s.view, 'the other browser in');
    assert.notEqual(o.player, before.player);
    assert.notEqual(o.seat, 'a');
    assert.deepEqual([...page.errors, ...other.errors], []);
  } finally {
    await node.stop();
  }
});

test('the node closes a lobby socket as idle; the app stays quiet and reopens it to enter a room', { timeout: 60000 }, async () => {
  const node = await startNode(undefined, { TABULA__SERVER__JOIN_TIMEOUT_MS: '1500' });
  try {
    const page = await openPage(browser, `${node.base}/`);
    const first = await waitState(page, (s) => s.player && s.conn === 'online', 'welcomed in the lobby');
    // Closed by the node after 1.5 s in no room: no reconnect loop, no banner.
    await page.waitForFunction(() => window.__tabula.net.dormant === true, null, { timeout: 10000 });
    await new Promise((r) => setTimeout(r, 2000));
    const st = await appState(page);
    assert.equal(st.conn, 'online', 'nothing shown as wrong');
    assert.equal(await page.evaluate(() => window.__tabula.net.ws), null, 'no socket reopened meanwhile');
    // Entering a room reopens it, as the same guest.
    const room = await api(node.base, 'POST', '/api/rooms', { game: 'long_nardy', bot: { level: 'easy' } });
    await page.evaluate((key) => window.__tabula.enter(key), room.invite);
    const inRoom = await waitState(page, (s) => s.seat === 'a' && s.conn === 'online', 'seated after the wake');
    assert.equal(inRoom.player, first.player);
    assert.deepEqual(page.errors, []);
  } finally {
    await node.stop();
  }
});

test('the same player in a second window: the first one steps back instead of fighting over the seat', { timeout: 60000 }, async () => {
  const node = await startNode();
  try {
    const room = await api(node.base, 'POST', '/api/rooms', { game: 'long_nardy', bot: { level: 'easy' } });
    const first = await openPage(browser, `${node.base}/?join=${room.invite}&guest=ivan`);
    await waitState(first, (s) => s.seat === 'a' && s.conn === 'online', 'first window seated');
    const second = await openPage(browser, `${node.base}/?join=${room.invite}`, first);
    await waitState(second, (s) => s.seat === 'a' && s.conn === 'online', 'second window seated');
    await first.waitForSelector('#conn-status:has-text("another window")');
    // It stays put (no reconnect loop) until asked to take over.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await appState(first)).conn, 'replaced');
    assert.equal((await appState(second)).conn, 'online');
    await first.click('#conn-status');
    await waitState(first, (s) => s.conn === 'online', 'the first window back');
    await second.waitForSelector('#conn-status:has-text("another window")');
    assert.deepEqual([...first.errors, ...second.errors], []);
  } finally {
    await node.stop();
  }
});

/** A node's environment for rooms kept in `redis` (a shared session secret, so a new node knows the old tokens). */
function redisEnv(redis, more = {}) {
  return {
    TABULA__CLUSTER__BACKPLANE: 'redis',
    TABULA__REDIS__URL: redis.url,
    TABULA__REDIS__LEASE_MS: '1000',
    TABULA__REDIS__TIMEOUT_MS: '500',
    TABULA__AUTH__SESSION_SECRET: 'a session secret of at least thirty-two bytes',
    ...more,
  };
}

function normal(pos) {
  const clean = (side) => Object.fromEntries(Object.entries(side || {}).filter(([, n]) => n > 0).sort());
  return { white: clean(pos.white), black: clean(pos.black) };
}

test('short nardy against the computer: the board from our side, turns by clicking', { timeout: 60000 }, async () => {
  const node = await startNode();
  try {
    const page = await openPage(browser, `${node.base}/?guest=gina`);
    await page.click('button[data-game="backgammon"]');
    await page.click('#bot-medium');
    await ready(page);
    await waitState(page, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start');
    assert.equal(await page.getAttribute('#board svg', 'data-game'), 'backgammon');
    // Our 24-point (two back checkers) top-right, our 6-point bottom-right.
    const p24 = await centre(page, '#board .point[data-point="24"]');
    const p6 = await centre(page, '#board .point[data-point="6"]');
    assert.ok(p24.y < p6.y && p24.x > p6.x - 200, 'own numbering: 24 on top, 6 below');
    let dragged = 0;
    for (let t = 0; t < 2; t++) {
      const st = await appState(page);
      if (st.view.phase !== 'playing') break;
      dragged += (await playDiceTurn(page, { drag: true })).dragged;
    }
    assert.ok(dragged > 0, 'checkers were dragged onto highlighted points');
    const st = await appState(page);
    assert.ok(st.view.board.position.white, 'a backgammon position');
    await screenshot(page, 'short-nardy');
    // Resign, with a confirmation: cancel first, then confirm.
    await page.click('#resign');
    await page.click('#confirm-no');
    assert.equal((await appState(page)).view.phase, 'playing');
    await page.click('#resign');
    await page.click('#confirm-yes');
    await page.waitForSelector('#game-over');
    assert.equal(await page.textContent('#result-title'), 'You lost');
    assert.match(await page.textContent('#result-kind'), /resignation/);
    assert.deepEqual(page.errors, []);
  } finally {
    await node.stop();
  }
});

test('a whole game against the computer from a near-finished position, to the results screen', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    const room = await api(node.base, 'POST', '/api/rooms', {
      game: 'long_nardy',
      bot: { level: 'hard' },
      startPosition: {
        turn: 'white',
        white: { 1: 1, 2: 1, 3: 1, 5: 1 },
        black: { 13: 3, 14: 3, 15: 3, 16: 3, 17: 2, 19: 1 },
        off: { white: 11, black: 0 },
        first_turn: false,
      },
    });
    const page = await openPage(browser, `${node.base}/?join=${room.roomId}&guest=carol`);
    await ready(page);
    await waitState(page, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start');
    await screenshot(page, 'bot-game-start');
    // Every white checker is home: the bear-off tray glows.
    assert.ok(await page.$('#tray.glow'), 'the tray glows when all checkers are home');
    let turns = 0;
    for (; turns < 10; turns++) {
      const st = await appState(page);
      if (st.view.phase !== 'playing' || st.gameOver) break;
      await playDiceTurn(page);
    }
    await page.waitForSelector('#game-over');
    const title = await page.textContent('#result-title');
    const st = await appState(page);
    assert.ok(st.gameOver, 'game_over arrived');
    assert.equal(title, st.gameOver.result === 'win' ? 'You won!' : 'You lost');
    assert.match(await page.textContent('#result-kind'), /Oin|Mars|Koks/);
    // Seed 001's summary and the player's statistics against the Hard bot.
    await page.waitForSelector('#summary');
    const borne = await page.$eval('#summary', (t) => t.rows[1].cells[1].textContent);
    assert.equal(borne, st.gameOver.result === 'win' ? '15' : borne);
    await page.waitForSelector('#my-stats tr[data-level="3"]');
    const row = await page.$eval('#my-stats tr[data-level="3"]', (r) => [...r.cells].map((c) => c.textContent));
    assert.equal(row[0], 'Hard');
    assert.equal(Number(row[1]) + Number(row[2]), 1, `one game against Hard: ${row}`);
    // Provably fair: the revealed seed hashes to the commitment.
    await page.click('#verify');
    await page.waitForSelector('#verify-result.ok');
    const seed = await page.textContent('#server-seed');
    assert.match(seed, /[0-9a-f]{64}/);
    await screenshot(page, 'bot-game-over');
    // The arbiter announced the result in the chat, set apart from players' lines.
    assert.match(await page.textContent('#chat .line.arbiter'), /Arbiter/);
    await page.click('#close-result');
    await screenshot(page, 'bot-game-final-board');
    // Statistics per kind of game: the lobby shows long nardy's; Thud! has none.
    await page.click('#leave');
    await page.waitForSelector('#lobby-stats tr[data-level="3"]');
    assert.match(await page.textContent('#lobby-stats h2'), /Long nardy/);
    await page.click('button[data-game="thud"]');
    assert.equal(await page.locator('#lobby-stats').count(), 0, 'no Thud! results from a nardy game');
    assert.deepEqual(page.errors, []);
    console.log(`# bot game over after ${turns} of our turns: ${st.gameOver.result} ${st.gameOver.kind}`);
  } finally {
    await node.stop();
  }
});

test('the socket is dropped mid-turn; the page reconnects, resumes and the game goes on', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    const room = await api(node.base, 'POST', '/api/rooms', { game: 'long_nardy', bot: { level: 'easy' } });
    const page = await openPage(browser, `${node.base}/?join=${room.invite}&guest=dave`);
    await ready(page);
    await waitState(page, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start');
    await playDiceTurn(page);
    const before = await appState(page);
    let sawReconnecting = false;
    // Drop the socket right after rolling, then play the turn by clicking while it reconnects.
    const r = await playDiceTurn(page, {
      afterRoll: async () => {
        // Watch the DOM for the "reconnecting" badge (it may show only briefly).
        await page.evaluate(() => {
          window.__seen = [];
          new MutationObserver(() => {
            const e = document.querySelector('#conn-status');
            if (e) window.__seen.push(e.textContent);
          }).observe(document.body, { childList: true, subtree: true });
          window.__tabula.dropSocket();
        });
        await page.waitForFunction(() => window.__seen.length > 0, null, { timeout: 5000 });
        sawReconnecting = (await page.evaluate(() => window.__seen)).some((t) => /Reconnecting/.test(t));
      },
    });
    assert.ok(sawReconnecting, 'the page showed that it is reconnecting');
    assert.ok(r.steps > 0 || (await appState(page)).view.phase !== 'playing', 'a step was played after the drop');
    await waitState(page, (s) => s.conn === 'online', 'back online');
    await page.waitForSelector('#conn-status', { state: 'detached' });
    // Another turn, and the server agrees with the page.
    await playDiceTurn(page);
    const after = await appState(page);
    assert.ok(after.version > before.version);
    const server = await api(node.base, 'GET', `/api/rooms/${room.roomId}`);
    await waitState(page, (s) => s.version >= server.state.version, 'the page to catch up');
    const now = await appState(page);
    assert.deepEqual(normal(now.view.board.position), normal(server.state.board.position), 'page and server agree');
    await screenshot(page, 'after-reconnect');

    // The node restarts: the page keeps retrying with backoff and comes back by itself.
    // (One node with the in-memory store forgets its rooms; a cluster keeps them in Redis.)
    const port = node.port;
    await node.stop();
    await page.waitForSelector('#conn-status');
    const node2 = await startNode(port);
    try {
      await waitState(page, (s) => s.conn === 'online', 'online after the restart', 20000);
      await page.waitForSelector('#lobby-error');
      assert.match(await page.textContent('#lobby-error'), /no longer exists/);
    } finally {
      await node2.stop();
    }
    assert.deepEqual(page.errors, []);
  } finally {
    await node.stop();
  }
});

test('a roll lost on its way to the node, then one whose answer is lost: a tap again asks again, and each roll is applied once', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    const ctx = await browser.newContext({ viewport: { width: 420, height: 860 }, deviceScaleFactor: 1 });
    // Between the page and the node: every frame passed on, except those `drop` picks.
    let drop = () => false;
    const rolls = [];
    const acks = [];
    await ctx.routeWebSocket(/\/ws/, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((m) => {
        const j = JSON.parse(String(m));
        if (j.type === 'rollDice') rolls.push(j.seq);
        if (!drop('out', j)) server.send(m);
      });
      server.onMessage((m) => {
        const j = JSON.parse(String(m));
        if (j.type === 'ack') acks.push(j);
        if (!drop('in', j)) ws.send(m);
      });
    });
    const room = await api(node.base, 'POST', '/api/rooms', { game: 'long_nardy', bot: { level: 'easy' } });
    const page = await openPage(browser, `${node.base}/?join=${room.invite}&guest=rita`, { context: () => ctx });
    await ready(page);
    await waitState(page, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start');
    const myRoll = (s) => s.view.toAct?.seat === 'a' && s.view.toAct.need === 'roll';
    const rolled = (s) => s.view.toAct?.seat === 'a' && s.view.toAct.need === 'move' && s.view.moves?.seat === 'a';
    const tap = () => page.click('#board svg', { position: { x: 40, y: 60 } });

    // 1. The roll never reaches the node.
    await playDiceTurn(page);
    await waitState(page, myRoll, 'our roll');
    const first = rolls.length;
    let lost = null;
    drop = (dir, j) => dir === 'out' && j.type === 'rollDice' && lost === null && (lost = j.seq) !== null;
    const tapped = Date.now();
    await tap();
    await waitState(page, () => lost !== null, 'the roll sent');
    // One roll at a time: a tap at once sends nothing more (checked when
    // the second tap came well within the app's 2 s).
    await tap();
    const atOnce = Date.now() - tapped < 1800;
    await sleep(500);
    if (atOnce) assert.deepEqual(rolls.slice(first), [lost], 'one roll at a time');
    else console.log('# the second tap came too late to check that it sent nothing');
    assert.ok(myRoll(await appState(page)), 'still to roll');
    await sleep(2000);
    await tap();
    await waitState(page, rolled, 'the dice, after a tap again');
    assert.deepEqual(rolls.slice(first), [lost, lost], 'the same command again');

    // 2. The roll reaches the node; its answer does not.
    drop = () => false;
    await playDiceTurn(page);
    await waitState(page, myRoll, 'our next roll');
    const asked = rolls.length;
    drop = (dir, j) => dir === 'in' && j.type === 'event' && j.seq != null && j.seq === rolls[asked];
    const v = (await appState(page)).version;
    await tap();
    await waitState(page, () => rolls.length > asked, 'the roll sent');
    await sleep(2500);
    const st = await appState(page);
    assert.ok(myRoll(st) && st.version === v, 'the answer never came');
    await tap();
    await waitState(page, rolled, 'the dice, after a tap again');
    assert.deepEqual(rolls.slice(asked), [rolls[asked], rolls[asked]], 'the same command again');
    assert.ok(acks.some((a) => a.seq === rolls[asked] && a.duplicate), 'applied once: the node said it had it');
    const server = await api(node.base, 'GET', `/api/rooms/${room.roomId}`);
    assert.deepEqual((await appState(page)).view.dice, server.state.dice, 'the dice the node rolled');
    drop = () => false;
    await playDiceTurn(page);
    assert.deepEqual(page.errors, []);
    await ctx.close();
  } finally {
    await node.stop();
  }
});

test('a node restart with its rooms in Redis: the page reconnects by itself and the game goes on', { timeout: 90000 }, async () => {
  const redis = await startRedis();
  const env = redisEnv(redis);
  let node = await startNode(undefined, { ...env, TABULA__CLUSTER__NODE_ID: 'web-node-1' });
  try {
    const room = await api(node.base, 'POST', '/api/rooms', { game: 'long_nardy', bot: { level: 'easy' } });
    const page = await openPage(browser, `${node.base}/?join=${room.invite}&guest=hank`);
    await ready(page);
    await waitState(page, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start');
    await playDiceTurn(page);
    const before = await appState(page);
    // SIGTERM: the node hands its rooms off and closes the sockets with 1012; a new node takes its place.
    const port = node.port;
    await node.stop();
    await page.waitForSelector('#conn-status');
    node = await startNode(port, { ...env, TABULA__CLUSTER__NODE_ID: 'web-node-2' });
    await waitState(page, (s) => s.conn === 'online' && s.view?.phase === 'playing', 'back in the game', 30000);
    const after = await appState(page);
    assert.equal(after.seat, before.seat);
    assert.ok(after.version >= before.version, 'nothing was lost');
    // Our checkers stand where we left them (only the computer moved meanwhile).
    assert.deepEqual(normal(after.view.board.position).white, normal(before.view.board.position).white);
    await playDiceTurn(page);
    const server = await api(node.base, 'GET', `/api/rooms/${room.roomId}`);
    await waitState(page, (s) => s.version >= server.state.version, 'the page to catch up');
    assert.deepEqual(normal((await appState(page)).view.board.position), normal(server.state.board.position));
    assert.ok(server.state.version > before.version, 'the game went on after the restart');
    assert.deepEqual(page.errors, []);
  } finally {
    await node.stop();
    await redis.stop();
  }
});

test('server text is shown as text: a chat line of HTML stays letters', { timeout: 60000 }, async () => {
  const node = await startNode();
  try {
    const room = await api(node.base, 'POST', '/api/rooms', { game: 'long_nardy', bot: { level: 'easy' } });
    const page = await openPage(browser, `${node.base}/?join=${room.invite}`);
    await waitState(page, (s) => s.seat === 'a' && s.conn === 'online', 'seated');
    const evil = '<img src=x onerror="window.__pwned=1"><b>bold</b>';
    await page.fill('#chat-input', evil);
    await page.press('#chat-input', 'Enter');
    await page.waitForSelector('#chat .line:has-text("onerror")');
    assert.equal(await page.$$eval('#chat img', (e) => e.length), 0, 'no image made of the text');
    const kids = await page.$$eval('#chat .line', (ls) => ls.map((l) => l.children.length));
    assert.ok(kids.every((n) => n === 1), `each line is its author and text only: ${kids}`);
    assert.ok((await page.textContent('#chat')).includes(evil), 'the text as sent');
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    // Reopened, the chat is still there (it comes with the room's state),
    // still as text.
    await page.reload();
    await page.waitForFunction(() => window.__tabula?.state);
    await page.waitForSelector('#chat .line:has-text("onerror")');
    assert.equal(await page.$$eval('#chat img', (e) => e.length), 0);
    assert.equal(await page.$$eval('#chat .line:has-text("onerror")', (e) => e.length), 1, 'once');
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(page.errors, []);
  } finally {
    await node.stop();
  }
});

test('a game against the computer left for two minutes with the page closed is continued from the lobby, on another node', { timeout: 240000 }, async () => {
  const redis = await startRedis();
  // The real disconnect grace (30 s), which would forfeit a game between
  // people four times over while the page is closed; a short idle unload,
  // so the room is out of the node's memory and lives in Redis alone.
  const env = redisEnv(redis, { TABULA__ROOMS__UNLOAD_AFTER_MS: '1000' });
  let node = await startNode(undefined, { ...env, TABULA__CLUSTER__NODE_ID: 'web-node-1' });
  try {
    const page = await openPage(browser, `${node.base}/`);
    await page.click('#bot-easy');
    await ready(page);
    await waitState(page, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start');
    await playDiceTurn(page);
    const before = await waitState(page, (s) => s.view?.toAct?.seat === 'a', 'our turn again');
    const ctx = page.context();
    await page.close();
    // Away two minutes, four times the grace; the room leaves the node's
    // memory.
    await sleep(120000);
    const room = before.view;
    // The node is replaced (a rollout, a failure): the game lives in Redis.
    const port = node.port;
    await node.stop();
    node = await startNode(port, { ...env, TABULA__CLUSTER__NODE_ID: 'web-node-2' });
    const back = await openPage(browser, `${node.base}/`, { context: () => ctx });
    await back.waitForSelector('#continue .continue-game');
    assert.match(await back.textContent('#continue'), /Long nardy vs Easy/);
    assert.equal(await back.locator('#continue .continue-game').count(), 1);
    await screenshot(back, 'continue');
    await back.click('#continue .continue-game');
    const after = await waitState(back, (s) => s.conn === 'online' && s.view?.phase === 'playing' && s.seat === 'a', 'back in the game');
    assert.deepEqual(normal(after.view.board.position), normal(room.board.position), 'the board as we left it');
    assert.equal(after.view.toAct.seat, 'a');
    assert.ok(!after.view.paused, 'resumed');
    await playDiceTurn(back);
    await waitState(back, (s) => s.view?.toAct?.seat === 'a' || s.view?.phase !== 'playing', 'the computer to answer');
    assert.deepEqual(back.errors, []);
  } finally {
    await node.stop();
    await redis.stop();
  }
});
