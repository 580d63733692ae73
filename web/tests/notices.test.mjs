// The settings sheet's "Messages from the bot" (issue 44, web/notices.js):
// a Telegram player who never started the bot is told to start it (the
// switches shown but off limits, a button to the bot); once he has (a
// /start posted to the node's webhook as Telegram posts it), a switch
// turned off is stored by PUT /api/me/notices in the bot's own record, and
// is still off after a reload. A guest outside Telegram has no such
// section. The node's bot talks to a stand-in Bot API started here.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startNode, launch, openPage, openTelegramPage, api, screenshot, TG_BOT_TOKEN, signInitData } from './helpers.mjs';

const SECRET = 'webhook-secret_web';

/** A Bot API that answers every method with ok (the bot's replies are not what is tested here). */
function botApi() {
  const calls = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const method = req.url.split('/').pop();
      calls.push(method);
      let result = true;
      if (method === 'getMe') result = { id: 123456789, is_bot: true, first_name: 'Tabula', username: 'tabula_bot' };
      if (method === 'sendMessage') {
        let chat = 0;
        try { chat = JSON.parse(body).chat_id; } catch {}
        result = { message_id: calls.length, date: Math.floor(Date.now() / 1000), chat: { id: chat, type: 'private' }, text: '' };
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, result }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}`, calls, close: () => server.close() })));
}

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const switches = (page) => page.$$eval('#notices input[type=checkbox]', (l) => l.map((i) => ({ id: i.id, on: i.checked, disabled: i.disabled })));

test('notification settings: start the bot first, then a switch stored in the bot\'s record and kept', { timeout: 90000 }, async () => {
  const bot = await botApi();
  const node = await startNode(undefined, {
    TABULA__AUTH__BOT_TOKEN: TG_BOT_TOKEN,
    TABULA__WEB__TELEGRAM_APP_URL: 'https://t.me/tabula_bot/play',
    TABULA__TELEGRAM__WEBHOOK_SECRET: SECRET,
    TABULA__TELEGRAM__API_BASE_URL: bot.url,
    TABULA__AUTH__FORCE_GUEST: 'true',
  });
  try {
    const user = { id: 6161, first_name: 'Nina', language_code: 'en' };
    let page = await openTelegramPage(browser, node.base, user);
    await page.waitForFunction(() => window.__tabula.state.player === 'tg:6161');
    await page.click('#settings');
    await page.waitForSelector('#notices #notices-start');
    assert.match(await page.textContent('#notices-start'), /Start the bot/);
    const before = await switches(page);
    assert.deepEqual(before.map((s) => s.id), ['notice-your_turn', 'notice-time_low', 'notice-invite_taken', 'notice-rematch', 'notice-bot_game_waiting', 'notice-game_ended', 'notice-tournament_game']);
    assert.ok(before.every((s) => s.on && s.disabled), `off limits before the bot is started: ${JSON.stringify(before)}`);
    await page.click('#notices-open-bot');
    assert.deepEqual(await page.evaluate(() => window.__tg.calls.filter((c) => c[0] === 'openTelegramLink').map((c) => c[1])), ['https://t.me/tabula_bot']);
    await screenshot(page, 'notices-not-started');

    // He starts the bot: Telegram posts the /start to the webhook.
    const update = { update_id: 1, message: { message_id: 1, date: Math.floor(Date.now() / 1000), chat: { id: 6161, type: 'private', first_name: 'Nina' }, from: { id: 6161, is_bot: false, first_name: 'Nina', language_code: 'en' }, text: '/start' } };
    const r = await fetch(`${node.base}/telegram/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET }, body: JSON.stringify(update) });
    assert.equal(r.status, 200);
    const creds = { 'x-telegram-init-data': signInitData({ auth_date: String(Math.floor(Date.now() / 1000)), user: JSON.stringify(user) }) };
    for (let i = 0; (await api(node.base, 'GET', '/api/me/notices', undefined, creds)).started !== true; i++) {
      assert.ok(i < 100, 'the /start recorded');
      await new Promise((res) => setTimeout(res, 50));
    }

    // The sheet opened again reads it: no "start the bot", the switches live.
    await page.click('#sheet-close');
    await page.click('#settings');
    await page.waitForFunction(() => document.querySelector('#notice-rematch') && !document.querySelector('#notice-rematch').disabled);
    assert.equal(await page.locator('#notices-start').count(), 0);
    await page.click('#notice-rematch');
    await page.waitForFunction(() => !document.querySelector('#notice-rematch').disabled);
    const stored = await api(node.base, 'GET', '/api/me/notices', undefined, creds);
    assert.deepEqual(stored.kinds.filter((k) => !k.on).map((k) => k.kind), ['rematch'], 'stored by the node');
    assert.equal(await page.isChecked('#notice-rematch'), false);
    await screenshot(page, 'notices-started');
    assert.deepEqual(page.errors, []);
    await page.context().close();

    // Reopened: still off.
    page = await openTelegramPage(browser, node.base, user);
    await page.waitForFunction(() => window.__tabula.state.player === 'tg:6161');
    await page.click('#settings');
    await page.waitForFunction(() => document.querySelector('#notice-rematch') && !document.querySelector('#notice-rematch').disabled);
    assert.deepEqual((await switches(page)).filter((s) => !s.on).map((s) => s.id), ['notice-rematch']);
    await page.context().close();

    // A guest outside Telegram: no such section.
    const guest = await openPage(browser, `${node.base}/`);
    await guest.waitForFunction(() => window.__tabula.state.player);
    await guest.click('#settings');
    await guest.waitForSelector('#sheet-settings');
    assert.equal(await guest.locator('#notices').count(), 0);
    await guest.context().close();
  } finally {
    await node.stop();
    bot.close();
  }
});
