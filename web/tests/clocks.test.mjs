// Clocks (issue 23) in the Mini App: both clocks beside the names, the
// running one counting down from the server's figures, the waiting one
// still; the player's last seconds warned (colour, a live announcement,
// Telegram's haptic warning, once); a game nobody plays lost on time,
// said on both pages; the time control chosen in the lobby; auto-roll and
// auto-play. Plus the pure helpers of web/clock.js.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, launch, openPage, openTelegramPage, appState, waitState, ready, screenshot, api, sleep, signInitData, TG_BOT_TOKEN } from './helpers.mjs';
import { ServerClock, clockFigures, formatClock, newPeriod, shouldAutoRoll, forcedPlay, WARN_MS } from '../clock.js';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('clock helpers: figures from the server\u2019s clock, the format, the offset, the period, auto-roll and auto-play decisions', () => {
  const clock = { delayMs: 3000, reserveMs: 12000, reserve: [12000, 9000], running: { seat: 'a', spentMs: 0, since: 1000, freeUntil: 4000, deadline: 16000 } };
  // The running seat: free time first, then the reserve.
  assert.deepEqual(clockFigures(clock, 'a', 1000), { running: true, paused: false, free: 3000, bank: 12000, total: 15000 });
  assert.deepEqual(clockFigures(clock, 'a', 2500), { running: true, paused: false, free: 1500, bank: 12000, total: 13500 });
  assert.deepEqual(clockFigures(clock, 'a', 6000), { running: true, paused: false, free: 0, bank: 10000, total: 10000 });
  assert.equal(clockFigures(clock, 'a', 99999).total, 0, 'never below nothing');
  // A server time a little before `since` (an offset not yet refined): no more than the whole delay.
  assert.equal(clockFigures(clock, 'a', 500).free, 3000);
  // The waiting seat: its reserve, still.
  assert.deepEqual(clockFigures(clock, 'b', 6000), { running: false, paused: false, free: null, bank: 9000, total: 9000 });
  // Stopped (a paused game): what the period had spent, whatever the time.
  const paused = { ...clock, running: { seat: 'b', spentMs: 4000, since: null, freeUntil: null, deadline: null } };
  assert.deepEqual(clockFigures(paused, 'b', 123456), { running: true, paused: true, free: 0, bank: 8000, total: 8000 });
  assert.equal(WARN_MS, 10000);

  assert.equal(formatClock(0), '0:00');
  assert.equal(formatClock(1), '0:01', 'rounded up: 0:00 only at the very end');
  assert.equal(formatClock(12000), '0:12');
  assert.equal(formatClock(105000), '1:45');
  assert.equal(formatClock(3723000), '1:02:03');

  // The server's time: a pong's sample is centred on its round trip and
  // kept over a state's, unless they disagree by more than a second.
  let now = 10000;
  const sc = new ServerClock(() => now);
  sc.sample(50000);
  assert.equal(sc.serverNow(), 50000);
  sc.sample(50100, 200);
  assert.equal(sc.serverNow(), 50200);
  now = 11000;
  sc.sample(50900);
  assert.equal(sc.serverNow(), 51200, 'a state a little behind does not undo the pong');
  sc.sample(90000);
  assert.equal(sc.serverNow(), 90000, 'the device clock jumped: the state is taken');

  // A new period: another seat, or the same seat started afresh; not a resync of the same one, nor a pause.
  const r = clock.running;
  assert.equal(newPeriod(null, r), true);
  assert.equal(newPeriod(r, { ...r }), false);
  assert.equal(newPeriod(r, { ...r, seat: 'b' }), true);
  assert.equal(newPeriod(r, { ...r, spentMs: 2000, since: null }), false, 'stopped by a pause');
  assert.equal(newPeriod({ ...r, spentMs: 2000, since: null }, { ...r, spentMs: 2000, since: 9000 }), false, 'restarted after the pause');
  assert.equal(newPeriod(r, { ...r, since: 20000 }), true, 'the same seat again, from nothing');
  assert.equal(newPeriod(r, null), false);

  // Auto-roll: never when the player may offer the cube (or it is not known that he may not).
  const base = { on: true, toRoll: true, seat: 'a' };
  assert.equal(shouldAutoRoll({ ...base, on: false, cube: null, mayDouble: false }), false, 'the setting off');
  assert.equal(shouldAutoRoll({ ...base, toRoll: false, cube: null, mayDouble: false }), false);
  assert.equal(shouldAutoRoll({ ...base, cube: null, mayDouble: null }), true, 'no cube');
  assert.equal(shouldAutoRoll({ ...base, cube: { enabled: false, value: 1 }, mayDouble: null }), true);
  assert.equal(shouldAutoRoll({ ...base, cube: { enabled: true, value: 1, owner: null }, mayDouble: true }), false, 'he may double: he decides');
  assert.equal(shouldAutoRoll({ ...base, cube: { enabled: true, value: 1, owner: null }, mayDouble: null }), false, 'unknown: he decides');
  assert.equal(shouldAutoRoll({ ...base, cube: { enabled: true, value: 1, owner: null }, mayDouble: false }), true, 'Crawford, say: he may not');
  assert.equal(shouldAutoRoll({ ...base, cube: { enabled: true, value: 2, owner: 'b' }, mayDouble: null }), true, 'the opponent owns the cube');
  assert.equal(shouldAutoRoll({ ...base, cube: { enabled: true, value: 2, owner: 'a' }, mayDouble: true }), false);

  // Auto-play: exactly one legal play.
  assert.equal(forcedPlay({ sequences: ['1-off'] }), '1-off');
  assert.equal(forcedPlay({ sequences: ['24/18 13/8'] }), '24/18 13/8');
  assert.equal(forcedPlay({ sequences: ['24-18,18-13', '24-19,24-18'] }), null, 'a choice: the player plays');
  assert.equal(forcedPlay({ sequences: [] }), null);
  assert.equal(forcedPlay(null), null);
});

/** A page's two clocks as drawn: text and classes, by seat. */
const clocks = (page) =>
  page.$$eval('#players .clock[data-seat]', (els) => Object.fromEntries(els.map((e) => [e.dataset.seat, { text: e.textContent, cls: e.className, label: e.getAttribute('aria-label') }])));

/** WCAG contrast ratio of two computed rgb() colours. */
function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c.match(/[\d.]+/g).slice(0, 3).map(Number).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

test('a clocked game nobody plays: the running clock counts down, the waiting one stays, the last seconds warned once, lost on time on both pages', { timeout: 90000 }, async () => {
  const node = await startNode(undefined, { TABULA__AUTH__BOT_TOKEN: TG_BOT_TOKEN });
  try {
    // 3 s a move (the least the server takes) + 12 s: 15 s in all, the last 10 warned.
    // A Telegram-only node makes rooms for Telegram players only.
    const host = signInitData({ auth_date: String(Math.floor(Date.now() / 1000)), user: JSON.stringify({ id: 7100, first_name: 'Host' }) });
    const room = await api(node.base, 'POST', '/api/rooms', {
      game: 'long_nardy',
      options: { long: { scoring: 'oin_mars_koks', opening: 'white_first' } },
      timeControl: { delayMs: 3000, reserveMs: 12000 },
    }, { 'x-telegram-init-data': host });
    // Both inside (a stand-in of) Telegram, at 390×844, for the haptic warning.
    const alice = await openTelegramPage(browser, node.base, { id: 7101, first_name: 'Alice', language_code: 'en' }, { startParam: room.invite });
    await waitState(alice, (s) => s.seat === 'a', 'alice seated');
    const bob = await openTelegramPage(browser, node.base, { id: 7102, first_name: 'Bob', language_code: 'en' }, { startParam: room.invite });
    await waitState(bob, (s) => s.seat === 'b', 'bob seated');
    assert.deepEqual((await appState(alice)).view.timeControl, { delayMs: 3000, reserveMs: 12000 });
    await alice.evaluate(() => {
      const send = WebSocket.prototype.send;
      window.__sent = [];
      WebSocket.prototype.send = function (d) {
        window.__sent.push(JSON.parse(String(d)));
        return send.call(this, d);
      };
    });
    await ready(alice);
    await ready(bob);
    // White (Alice) is to roll: her clock runs.
    for (const p of [alice, bob]) await waitState(p, (s) => s.view?.phase === 'playing' && s.view.clock?.running?.seat === 'a', 'the game to start with white\u2019s clock running');

    const first = { alice: await clocks(alice), bob: await clocks(bob) };
    await sleep(1200);
    const second = { alice: await clocks(alice), bob: await clocks(bob) };
    for (const who of ['alice', 'bob']) {
      const [a1, a2, b1, b2] = [first[who].a, second[who].a, first[who].b, second[who].b];
      assert.match(a1.text, /^(\d:\d\d)?\+\d:\d\d$/, `${who}: the running clock reads free time then reserve: ${a1.text}`);
      assert.notEqual(a1.text, a2.text, `${who}: white's clock counts down (${a1.text} then ${a2.text})`);
      assert.match(a1.cls, /\brunning\b/);
      assert.equal(b1.text, '+0:12', `${who}: black waits with his whole reserve`);
      assert.equal(b2.text, b1.text, `${who}: the waiting clock stays`);
      assert.doesNotMatch(b1.cls, /\brunning\b/);
    }
    assert.match(first.alice.a.label, /free time/, 'the clock is labelled for a screen reader');
    await screenshot(bob, 'clocks-390');
    // Legible at 320 px: each clock whole, inside its player's box, in type of at least 13 px.
    await bob.setViewportSize({ width: 320, height: 568 });
    await sleep(100);
    const fit = await bob.$$eval('#players .clock', (els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      const box = e.closest('.player').getBoundingClientRect();
      return { inside: r.left >= box.left - 0.5 && r.right <= box.right + 0.5, whole: e.scrollWidth <= e.clientWidth + 1, px: parseFloat(getComputedStyle(e).fontSize) };
    }));
    assert.equal(fit.length, 2);
    for (const f of fit) assert.ok(f.inside && f.whole && f.px >= 13, `a clock at 320 px: ${JSON.stringify(f)}`);
    await screenshot(bob, 'clocks-320');
    await bob.setViewportSize({ width: 390, height: 844 });

    // The last ten seconds of Alice's own time: red on her page, said once, one haptic warning.
    await alice.evaluate(() => {
      window.__live = [];
      const live = document.querySelector('#clock-live');
      new MutationObserver(() => window.__live.push(live.textContent)).observe(live, { childList: true, characterData: true, subtree: true });
    });
    await alice.waitForSelector('#players .clock.low[data-seat="a"]', { timeout: 15000 });
    const low = await alice.$eval('#players .clock.low[data-seat="a"]', (e) => {
      const cs = getComputedStyle(e);
      return { fg: cs.color, bg: cs.backgroundColor, page: getComputedStyle(document.body).backgroundColor, text: e.textContent };
    });
    assert.match(low.text, /^\+0:(10|0\d)$/, `the reserve running out: ${low.text}`);
    assert.ok(contrast(low.fg, low.bg) >= 3, `the warning's text against its colour: ${contrast(low.fg, low.bg).toFixed(2)}`);
    assert.ok(contrast(low.bg, low.page) >= 3, `the warning's colour against the page: ${contrast(low.bg, low.page).toFixed(2)}`);
    const liveAttr = await alice.getAttribute('#clock-live', 'aria-live');
    assert.equal(liveAttr, 'assertive');
    await alice.waitForFunction(() => /seconds left on your clock/.test(document.querySelector('#clock-live').textContent));
    await screenshot(alice, 'clocks-warning-390');
    // Bob is not warned of Alice's time (his own clock does not run).
    assert.equal(await bob.textContent('#clock-live'), '');
    assert.equal(await bob.locator('#players .clock.low').count(), 0);

    // Nobody moves: Alice loses on time, said on both pages with the kind of loss.
    await alice.waitForSelector('#game-over', { timeout: 20000 });
    await bob.waitForSelector('#game-over', { timeout: 10000 });
    assert.equal(await alice.textContent('#result-title'), 'You lost');
    assert.equal(await bob.textContent('#result-title'), 'You won!');
    assert.equal(await alice.textContent('#result-reason'), 'You ran out of time — a loss: mars · 2 points.');
    assert.equal(await bob.textContent('#result-reason'), 'Your opponent ran out of time — a win: mars · 2 points.');
    assert.match(await alice.textContent('#result-kind'), /you ran out of time/);
    assert.match(await bob.textContent('#result-kind'), /your opponent ran out of time/);
    const ended = (await appState(bob)).ended;
    assert.equal(ended.result.reason, 'timeout');
    // The arbiter's line, rendered from its key.
    await bob.waitForSelector('#chat .line.arbiter:has-text("ran out of time")');
    await screenshot(alice, 'clocks-timeout-lost');
    await screenshot(bob, 'clocks-timeout-won');

    const calls = await alice.evaluate(() => window.__tg.calls);
    const warnings = calls.filter((c) => c[0] === 'notification' && c[1] === 'warning');
    assert.equal(warnings.length, 1, `one haptic warning: ${JSON.stringify(calls.filter((c) => c[0] === 'notification'))}`);
    const bobCalls = await bob.evaluate(() => window.__tg.calls);
    assert.equal(bobCalls.filter((c) => c[0] === 'notification' && c[1] === 'warning').length, 0, 'Bob is not warned of Alice\u2019s time');
    // Heard once too: the low-time beep on Alice's page only.
    assert.equal((await alice.evaluate(() => window.__tabula.sounds.filter((s) => s === 'lowTime').length)), 1, 'one low-time beep');
    assert.equal((await bob.evaluate(() => window.__tabula.sounds.filter((s) => s === 'lowTime').length)), 0, 'Bob hears none');
    const said = (await alice.evaluate(() => window.__live)).filter(Boolean);
    assert.equal(said.length, 1, `announced once: ${JSON.stringify(said)}`);
    // Nobody rolled (auto-roll is off by default): the clock ran out on the roll.
    assert.deepEqual(await alice.evaluate(() => window.__sent.filter((m) => m.type === 'rollDice')), []);
    assert.deepEqual(alice.errors, []);
    assert.deepEqual(bob.errors, []);
  } finally {
    await node.stop();
  }
});

test('the time control is chosen in the lobby for games between people (invite and quick match), and a game against the computer has no clock', { timeout: 60000 }, async () => {
  const node = await startNode();
  try {
    const page = await openPage(browser, `${node.base}/`);
    await page.waitForSelector('#time-control');
    assert.equal(await page.$eval('#time-control', (e) => e.value), 'normal', 'normal by default');
    assert.deepEqual(await page.$$eval('#time-control option', (os) => os.map((o) => o.value)), ['none', 'blitz', 'normal', 'long', '1d', '3d', '7d']);
    // In the card of games between people, not the computer's.
    assert.equal(await page.$eval('#time-control', (e) => Boolean(e.closest('section').querySelector('#create-room'))), true);
    // Quick match sends it.
    await page.selectOption('#time-control', 'long');
    const asked = page.waitForRequest((r) => r.url().endsWith('/api/quickmatch'));
    await page.click('#quick-match');
    assert.equal(JSON.parse((await asked).postData()).timeControl, 'long');
    await page.click('#cancel-search');
    // An invite with blitz: the room's clock is 12 s a move + 60 s, shown beside both names.
    await page.selectOption('#time-control', 'blitz');
    await page.click('#create-room');
    await waitState(page, (s) => s.view?.timeControl, 'the room');
    assert.deepEqual((await appState(page)).view.timeControl, { delayMs: 12000, reserveMs: 60000 });
    assert.match(await page.textContent('#time-control-info'), /Clock: 0:12 a move \+ 1:00/);
    // The rules explain the clock.
    await page.click('#rules-button');
    assert.match(await page.textContent('#sheet-rules'), /reserve/);
    assert.match(await page.textContent('#sheet-rules'), /mars \(2 points\)/);
    await page.click('#sheet-close');
    // The choice is kept; against the computer, no clock at all.
    await page.click('#leave');
    await page.waitForSelector('#bot-easy');
    assert.equal(await page.$eval('#time-control', (e) => e.value), 'blitz');
    await page.click('#bot-easy');
    await waitState(page, (s) => s.view?.phase === 'playing', 'the game against the computer');
    assert.equal((await appState(page)).view.timeControl, undefined);
    assert.equal(await page.locator('#players .clock').count(), 0, 'no clock drawn');
    assert.equal(await page.locator('#time-control-info').count(), 0);
    assert.deepEqual(page.errors, []);
  } finally {
    await node.stop();
  }
});

test('auto-roll and auto-play: with both settings on, a turn with one legal play is rolled and played without a tap (with Done on and off)', { timeout: 60000 }, async () => {
  const node = await startNode();
  try {
    for (const confirm of [true, false]) {
      const page = await openPage(browser, `${node.base}/`);
      await page.waitForSelector('#bot-easy');
      // Both off by default; switched on in the settings, and stored.
      await page.click('#settings');
      assert.equal(await page.isChecked('#auto-roll'), false);
      assert.equal(await page.isChecked('#auto-play'), false);
      await page.check('#auto-roll');
      await page.check('#auto-play');
      if (!confirm) await page.uncheck('#confirm-turns');
      await page.click('#sheet-close');
      assert.equal(await page.evaluate(() => localStorage.getItem('tabula.autoRoll')), 'true');
      assert.equal(await page.evaluate(() => localStorage.getItem('tabula.autoPlay')), 'true');
      // White's last checker on its 1 point: whatever the dice, one play (it comes off).
      const room = await api(node.base, 'POST', '/api/rooms', {
        game: 'long_nardy',
        bot: { level: 'easy' },
        startPosition: { turn: 'white', white: { 1: 1 }, black: { 13: 3, 14: 3, 15: 3, 16: 3, 17: 3 }, off: { white: 14, black: 0 }, first_turn: false },
      });
      await page.evaluate(() => {
        const send = WebSocket.prototype.send;
        window.__sent = [];
        WebSocket.prototype.send = function (d) {
          window.__sent.push(JSON.parse(String(d)));
          return send.call(this, d);
        };
      });
      await page.evaluate((key) => window.__tabula.enter(key), room.invite);
      // No tap at all: the page rolls, plays the only play, and the game is won.
      await waitState(page, (s) => s.view?.phase === 'finished' || s.view?.phase === 'waiting_for_player' && s.ended, 'the game played by itself');
      await page.waitForSelector('#game-over');
      assert.equal(await page.textContent('#result-title'), 'You won!');
      const sent = (await page.evaluate(() => window.__sent)).filter((m) => ['rollDice', 'move', 'turn', 'preview'].includes(m.type));
      assert.deepEqual(sent.map((m) => m.type), ['rollDice', 'turn'], `sent: ${JSON.stringify(sent)}`);
      assert.equal(sent[1].play, '1-off');
      assert.equal(await page.locator('#players .clock').count(), 0, 'no clock against the computer');
      assert.deepEqual(page.errors, []);
      await page.context().close();
    }
  } finally {
    await node.stop();
  }
});

test('Thud!: a round lost on time ends the round, said on both pages for each round, and in the result', { timeout: 60000 }, async () => {
  const node = await startNode();
  try {
    // 3 s a move and no reserve: nobody moves, each round ends on time.
    const room = await api(node.base, 'POST', '/api/rooms', { game: 'thud', timeControl: { delayMs: 3000, reserveMs: 0 } });
    const p1 = await openPage(browser, `${node.base}/?join=${room.invite}`);
    await waitState(p1, (s) => s.seat === 'a', 'the first player seated');
    const p2 = await openPage(browser, `${node.base}/?join=${room.invite}`);
    await waitState(p2, (s) => s.seat === 'b', 'the second player seated');
    await ready(p1);
    await ready(p2);
    await waitState(p1, (s) => s.view?.phase === 'playing' && s.view.clock?.running?.seat === 'a', 'the dwarfs\u2019 clock running');
    // Round 1: the first player (the dwarfs, to move) runs out.
    await p1.waitForSelector('#info .round-timeout[data-round="1"]', { timeout: 15000 });
    await p2.waitForSelector('#info .round-timeout[data-round="1"]', { timeout: 5000 });
    assert.equal(await p1.textContent('#info .round-timeout[data-round="1"]'), 'Round 1: you ran out of time — your opponent is credited with every piece left.');
    assert.equal(await p2.textContent('#info .round-timeout[data-round="1"]'), 'Round 1: your opponent ran out of time — you are credited with every piece left.');
    await p2.waitForSelector('#chat .line.arbiter:has-text("ran out of time: the round is over")');
    await screenshot(p2, 'clocks-thud-round-timeout');
    // Round 2 (full banks): the second player has the dwarfs and runs out too; the game is over.
    await p1.waitForSelector('#game-over', { timeout: 15000 });
    await p2.waitForSelector('#game-over', { timeout: 5000 });
    assert.deepEqual(await p1.$$eval('#game-over .round-timeout', (es) => es.map((e) => e.textContent)), [
      'Round 1: you ran out of time — your opponent is credited with every piece left.',
      'Round 2: your opponent ran out of time — you are credited with every piece left.',
    ]);
    assert.equal(await p2.locator('#game-over .round-timeout').count(), 2);
    assert.deepEqual(p1.errors, []);
    assert.deepEqual(p2.errors, []);
  } finally {
    await node.stop();
  }
});
