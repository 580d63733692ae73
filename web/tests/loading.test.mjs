// What the lobby loads (issue 46's speed aim: at most 60 KB of JavaScript):
// the strings of the player's language only (strings/en.js or
// strings/ru.js, fetched with the modules), never the other's until he
// switches; nothing of the replay, the fair-dice check or the bot's
// notification switches until they are used.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, launch, openTelegramPage, TG_BOT_TOKEN } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** A page whose script requests (paths) are recorded from the first. */
async function recorded(ctx, url) {
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  page.scripts = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.endsWith('.js') && u.hostname === '127.0.0.1') page.scripts.push(u.pathname);
  });
  if (url) {
    await page.goto(url);
    await page.waitForSelector('#bot-easy');
  }
  return page;
}

const LAZY = ['/strings/ru.js', '/sha256.js', '/notices.js', '/replay.js', '/profile.js', '/leaderboard.js'];

test('the lobby loads one language\'s strings; the other comes when chosen', { timeout: 60000 }, async () => {
  const node = await startNode();
  try {
    const ctx = await browser.newContext({ locale: 'en-US' });
    const page = await recorded(ctx, `${node.base}/`);
    assert.ok(page.scripts.includes('/strings/en.js'), `English strings: ${page.scripts}`);
    for (const f of LAZY) assert.ok(!page.scripts.includes(f), `${f} not loaded by the lobby: ${page.scripts}`);
    // Russian chosen in the settings: its strings arrive, the lobby is in Russian.
    await page.click('#settings');
    await page.selectOption('#lang', 'ru');
    await page.waitForFunction(() => document.documentElement.lang === 'ru');
    assert.ok(page.scripts.includes('/strings/ru.js'));
    await page.click('#sheet-close');
    await page.waitForFunction(() => /Настройки/.test(document.querySelector('#settings').getAttribute('aria-label')));
    assert.ok(!(await page.textContent('body')).includes('⟦'), 'nothing untranslated');
    // Kept for the next visit: only Russian then.
    const again = await recorded(ctx, `${node.base}/`);
    assert.ok(again.scripts.includes('/strings/ru.js') && !again.scripts.includes('/strings/en.js'), `Russian only: ${again.scripts}`);
    assert.equal(await again.evaluate(() => document.documentElement.lang), 'ru');
    // A browser in Russian: Russian only.
    const ruCtx = await browser.newContext({ locale: 'ru-RU' });
    const ru = await recorded(ruCtx, `${node.base}/`);
    assert.ok(ru.scripts.includes('/strings/ru.js') && !ru.scripts.includes('/strings/en.js'), `Russian only: ${ru.scripts}`);
    for (const p of [page, again, ru]) assert.deepEqual(p.errors, []);
    await ctx.close();
    await ruCtx.close();
  } finally {
    await node.stop();
  }
});

test('inside Telegram: language_code picks the strings; the settings sheet brings the notification switches', { timeout: 60000 }, async () => {
  const node = await startNode(undefined, { TABULA__AUTH__BOT_TOKEN: TG_BOT_TOKEN });
  try {
    const scripts = [];
    const page = await openTelegramPage(browser, node.base, { id: 7171, first_name: 'Rita', language_code: 'ru' }, {
      setup: (ctx) => ctx.on('request', (r) => {
        const u = new URL(r.url());
        if (u.hostname === '127.0.0.1' && u.pathname.endsWith('.js')) scripts.push(u.pathname);
      }),
    });
    await page.waitForSelector('#bot-easy');
    await page.waitForFunction(() => window.__tabula.state.player === 'tg:7171');
    assert.ok(scripts.includes('/strings/ru.js') && !scripts.includes('/strings/en.js'), `Russian only: ${scripts}`);
    for (const f of LAZY.slice(1)) assert.ok(!scripts.includes(f), `${f} not loaded by the lobby: ${scripts}`);
    await page.click('#settings');
    await page.waitForSelector('#notices');
    assert.ok(scripts.includes('/notices.js'));
    assert.equal(await page.textContent('#notices-title'), 'Сообщения бота');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  } finally {
    await node.stop();
  }
});
