// axe-core on every screen, in both languages (issue 46): the lobby, a game
// against the computer, its result sheet, the settings and the rules, the
// profile, the history and the leaderboard, the tournaments (the list, a
// running knockout with its bracket and standings, the create form), with
// no serious or critical finding. (board.test.mjs audits the lobby and a game in both themes.)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startNode, launch, waitState, openPage, api, sleep } from './helpers.mjs';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

async function axe(page) {
  await page.addScriptTag({ path: AXE });
  const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
}

test('axe-core: no serious or critical finding on any screen, in English and in Russian', { timeout: 240000 }, async () => {
  const node = await startNode();
  try {
    const found = [];
    // A running knockout of two guests (a bracket, standings, a game) for the tournament screens.
    const tokens = [];
    for (let i = 0; i < 2; i++) {
      const p = await openPage(browser, node.base);
      await p.waitForFunction(() => window.__tabula.net.token);
      tokens.push(await p.evaluate(() => window.__tabula.net.token));
      await p.context().close();
    }
    const auth = (tok) => ({ authorization: `Bearer ${tok}` });
    await api(node.base, 'POST', '/api/tournaments', { id: 'axecup', format: { type: 'knockout' }, game: 'long_nardy', startAtMs: Date.now() + 1500, graceMs: 0 }, auth(tokens[0]));
    for (const tok of tokens) await api(node.base, 'POST', '/api/tournaments/axecup/join', undefined, auth(tok));
    for (let i = 0; i < 100 && (await api(node.base, 'GET', '/api/tournaments/axecup')).status !== 'running'; i++) await sleep(100);
    for (const lang of ['en', 'ru']) {
      const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
      await ctx.addInitScript((l) => localStorage.setItem('tabula.lang', JSON.stringify(l)), lang);
      const page = await ctx.newPage();
      page.setDefaultTimeout(15000);
      await page.goto(`${node.base}/`);
      await page.waitForSelector('#bot-easy');
      const audit = async (where) => {
        for (const v of await axe(page)) found.push({ where: `${where} (${lang})`, ...v });
      };
      await audit('lobby');
      for (const [button, sheet] of [['#settings', '#sheet-settings'], ['#rules-button', '#sheet-rules']]) {
        await page.click(button);
        await page.waitForSelector(sheet);
        await audit(sheet.slice(1));
        await page.click('#sheet-close');
      }
      await page.click('#bot-easy');
      await waitState(page, (s) => s.view?.phase === 'playing', 'the game to start');
      await audit('game');
      await page.click('#resign');
      await page.waitForSelector('#confirm');
      await audit('confirmation');
      await page.click('#confirm-yes');
      await page.waitForSelector('#game-over');
      await audit('result sheet');
      await page.click('#close-result');
      await page.click('#leave');
      for (const nav of ['profile', 'history', 'leaderboard']) {
        await page.click(`#open-${nav}`);
        await page.waitForFunction((s) => window.__tabula.state.screen === s, nav);
        await page.waitForTimeout(500);
        await audit(nav);
        await page.click('#back');
        await page.waitForSelector('#open-profile');
      }
      await page.click('#open-tournaments');
      await page.waitForSelector('#tour-running [data-tour="axecup"]');
      await audit('tournaments');
      await page.click('[data-tour="axecup"]');
      await page.waitForSelector('#bracket');
      await page.waitForSelector('#standings');
      await audit('tournament');
      await page.click('#back');
      await page.click('#tour-create');
      await page.waitForSelector('#tour-form');
      await page.click('#tf-swiss');
      await page.waitForSelector('#tf-rounds');
      await audit('tournament form');
      await page.click('#back');
      await page.click('#back');
      await page.waitForSelector('#open-profile');
      await ctx.close();
    }
    for (const f of found) console.log(`# axe ${f.where}: ${f.impact} ${f.id} (${f.help})\n#   ${f.nodes.join('\n#   ')}`);
    assert.deepEqual(found.map((f) => `${f.where}: ${f.id}`), []);
  } finally {
    await node.stop();
  }
});
