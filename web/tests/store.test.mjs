// The state store (issue 46): in a real game, the server's messages and the
// player's intents change the state only through named transitions. With
// `__tabulaStrict` set before the app starts, every write to the state
// outside `dispatch` is recorded with its stack (`window.__tabula.strays`);
// there may be none, from the room's modules or any other.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, launch, api, waitState, playDiceTurn, appState, sleep } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const ROOM_MODULES = /\/(server|play|room|transitions|log)\.js/;

test('a game against the computer: no write to the state outside a named transition', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    const room = await api(node.base, 'POST', '/api/rooms', { game: 'long_nardy', bot: { level: 'easy' } });
    const ctx = await browser.newContext({ viewport: { width: 420, height: 860 } });
    await ctx.addInitScript(() => {
      window.__tabulaStrict = true;
    });
    const page = await ctx.newPage();
    page.setDefaultTimeout(15000);
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${node.base}/?join=${room.invite}`);
    await page.waitForFunction(() => window.__tabula?.state);
    await waitState(page, (s) => s.seat === 'a' && s.view?.phase === 'playing', 'the game started');
    // A few whole turns: roll, select, step (local, previewed), Undo once, Done; the computer's steps slide.
    let undone = false;
    for (let turn = 0; turn < 3; turn++) {
      const r = await playDiceTurn(page, {
        afterRoll: async () => {
          if (undone) return;
          // One step, then Undo: the local turn's transitions both ways.
          const st = await appState(page);
          if (st.view?.toAct?.need !== 'move') return;
          await page.locator('#board .checker.movable').last().click();
          await page.waitForSelector('#board .point.target, #board .tray.target');
          await page.locator('#board .point.target, #board .tray.target').first().click();
          await waitState(page, (s) => s.local && !s.local.asking && (s.local.steps > 0 || s.local.complete), 'the step previewed');
          if (await page.locator('#undo:not([disabled])').count()) {
            await page.click('#undo');
            undone = true;
          }
          await sleep(100);
        },
      });
      if (r.over) break;
    }
    assert.ok(undone, 'Undo was pressed');
    // The sheets, and back to the lobby: their fields change by transitions too.
    await page.click('#settings');
    await page.waitForSelector('#sheet-settings');
    await page.click('#sheet-close');
    await page.waitForSelector('#sheet-settings', { state: 'detached' });
    await page.evaluate(() => window.__tabula.toast('hello', 'info', 300));
    await sleep(500);
    const strays = await page.evaluate(() => window.__tabula.strays.map((s) => ({ key: s.key, stack: s.stack })));
    const ours = strays.filter((s) => ROOM_MODULES.test(s.stack.split('\n')[2] || ''));
    assert.deepEqual(ours.map((s) => `${s.key}: ${s.stack.split('\n')[2]}`), [], 'the room\'s modules wrote the state outside a transition');
    // Nor any other module: every write to the state is a named transition.
    assert.deepEqual(strays.map((s) => `${s.key}: ${s.stack.split('\n')[2]}`), [], 'a write outside a transition');
    assert.deepEqual(errors, []);
    await ctx.close();
  } finally {
    await node.stop();
  }
});
