// Desktop and landscape (issue 46): the move list and both pip counts beside
// the board, always in sight; in portrait the list stays in its sheet.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, launch, api, waitState, playDiceTurn, appState, screenshot } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Where the side panel, the pips and the board are, and what the panel lists. */
const measure = (page) =>
  page.evaluate(() => {
    const r = (s) => document.querySelector(s)?.getBoundingClientRect().toJSON() || null;
    const side = document.querySelector('#side-log');
    return {
      board: r('#board svg'),
      side: r('#side-log'),
      shown: side ? getComputedStyle(side).display !== 'none' : false,
      rows: [...document.querySelectorAll('#side-log li.log-turn')].map((li) => li.textContent),
      pipsA: r('#players .pips[data-seat="a"]'),
      pipsB: r('#players .pips[data-seat="b"]'),
      scrolls: document.documentElement.scrollHeight > innerHeight + 1,
    };
  });

test('1280×800 and 844×390: the move list and both pips beside the board; 390×844: neither list nor panel', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    const room = await api(node.base, 'POST', '/api/rooms', { game: 'long_nardy', bot: { level: 'easy' }, options: { long: { opening: 'white_first' } } });
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(15000);
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${node.base}/?join=${room.invite}`);
    await page.waitForFunction(() => window.__tabula?.state);
    await waitState(page, (s) => s.seat === 'a' && s.view?.phase === 'playing', 'the game started');
    // Our turn, then the computer's: two turns in the log.
    await playDiceTurn(page);
    await waitState(page, (s) => s.view.phase !== 'playing' || (s.view.toAct?.seat === 'a'), 'the computer played');
    const log = await page.evaluate(() => window.__tabula.state.log.filter((e) => !e.game && !e.note).length);
    for (const [w, h] of [[1280, 800], [844, 390]]) {
      await page.setViewportSize({ width: w, height: h });
      await page.waitForTimeout(200);
      const m = await measure(page);
      assert.ok(m.shown, `${w}×${h}: the move list is shown`);
      assert.ok(m.side.left >= m.board.right, `${w}×${h}: beside the board (${m.side.left} ≥ ${m.board.right})`);
      assert.ok(m.side.height > 0 && m.side.top < h, `${w}×${h}: on screen`);
      assert.equal(m.rows.length, log, `${w}×${h}: every turn listed`);
      assert.ok(m.rows.length >= 2 && m.rows.every((r) => /\d–\d: /.test(r)), `${w}×${h}: turns with their dice: ${m.rows.join(' | ')}`);
      for (const p of [m.pipsA, m.pipsB]) {
        assert.ok(p && p.left >= m.board.right && p.bottom <= h, `${w}×${h}: both pip counts beside the board`);
      }
      assert.ok(!m.scrolls, `${w}×${h}: nothing below the fold`);
      await screenshot(page, `side-${w}x${h}`);
    }
    // Portrait: the board takes the width; the list is in its sheet only.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(200);
    const p = await measure(page);
    assert.equal(p.shown, false, 'portrait: no side panel');
    assert.equal(p.rows.length, 0, 'portrait: nothing drawn in it');
    // Back to landscape: the list comes back at once (the orientation change redraws).
    await page.setViewportSize({ width: 844, height: 390 });
    await page.waitForFunction(() => document.querySelectorAll('#side-log li.log-turn').length >= 2);
    const st = await appState(page);
    assert.equal(st.screen, 'room');
    assert.deepEqual(errors, []);
    await ctx.close();
  } finally {
    await node.stop();
  }
});
