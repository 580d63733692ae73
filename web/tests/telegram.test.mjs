// Inside Telegram: the page is opened with `#tgWebAppData=…`, loads
// telegram-web-app.js (here a recording stand-in served in its place: the
// tests have no internet), authenticates with the signed initData, opens
// the room of its start_param, and uses Telegram's theme, buttons, haptics,
// closing confirmation and vertical-swipe switch.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, launch, api, screenshot, appState, waitState, playDiceTurn, TG_BOT_TOKEN as BOT_TOKEN, signInitData as initData, TELEGRAM_STUB as STUB } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('inside Telegram: initData login, start_param, theme, MainButton, BackButton, haptics, closing confirmation', { timeout: 90000 }, async () => {
  const node = await startNode(undefined, {
    TABULA__AUTH__BOT_TOKEN: BOT_TOKEN,
    TABULA__WEB__TELEGRAM_APP_URL: 'https://t.me/tabula_bot/play',
  });
  try {
    // A Telegram-only node makes rooms for Telegram players only.
    const maker = initData({ auth_date: String(Math.floor(Date.now() / 1000)), user: JSON.stringify({ id: 4243, first_name: 'Host' }) });
    const room = await api(node.base, 'POST', '/api/rooms', { game: 'long_nardy', bot: { level: 'easy' } }, { 'x-telegram-init-data': maker });
    const data = initData({
      auth_date: String(Math.floor(Date.now() / 1000)),
      query_id: 'AAHdF6IQAAAAAN0XohDhrOrc',
      start_param: room.invite,
      user: JSON.stringify({ id: 4242, first_name: 'Tanya' }),
    });
    const ctx = await browser.newContext({ viewport: { width: 400, height: 800 } });
    let scriptRequests = 0;
    await ctx.route('https://telegram.org/**', (route) => {
      scriptRequests += 1;
      route.fulfill({ status: 200, contentType: 'application/javascript', body: STUB });
    });
    const sent = [];
    const page = await ctx.newPage();
    page.on('websocket', (ws) => {
      sent.push(ws.url());
      ws.on('framesent', (f) => sent.push(String(f.payload)));
    });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${node.base}/#tgWebAppData=${encodeURIComponent(data)}&tgWebAppVersion=8.0&tgWebAppPlatform=web`);
    await page.waitForFunction(() => window.__tabula?.state);
    assert.equal(scriptRequests, 1, 'telegram-web-app.js was loaded');
    const st = await waitState(page, (s) => s.seat === 'a' && s.player === 'tg:4242', 'the start_param room, as tg:4242');
    assert.equal(st.view.seats[1].bot, 1);
    const calls = () => page.evaluate(() => window.__tg.calls.map((c) => c[0]));
    assert.ok((await calls()).includes('ready') && (await calls()).includes('expand'));
    // The signed initData went to the server; initDataUnsafe never did.
    assert.ok(sent.some((u) => u.includes('initData=') && u.includes('hash%3D')), 'initData in the socket URL');
    assert.ok(!sent.some((m) => m.includes('must never be sent')), 'initDataUnsafe is not sent');
    // Theme: Telegram's colours and colour scheme.
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(16, 24, 32)');
    // The board is shown: vertical swipes off, BackButton on.
    assert.ok((await calls()).includes('disableVerticalSwipes'));
    assert.equal(await page.evaluate(() => window.__tg.back.visible), true);
    // Against the computer there is no Ready step: the game starts by
    // itself, and the MainButton never asked for Ready.
    await waitState(page, (s) => s.view?.phase === 'playing', 'the game to start');
    assert.notEqual(await page.evaluate(() => window.__tg.main.text), 'Ready');
    await page.waitForFunction(() => window.__tg.calls.some((c) => c[0] === 'enableClosingConfirmation'));
    await playDiceTurn(page);
    assert.ok((await calls()).includes('impact'), 'haptic feedback on the roll and the moves');
    // themeChanged is followed.
    await page.evaluate(() => {
      window.Telegram.WebApp.colorScheme = 'light';
      window.Telegram.WebApp.themeParams = { bg_color: '#ffffff', text_color: '#000000' };
      window.__tgEmit('themeChanged');
    });
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
    await page.evaluate(() => {
      window.Telegram.WebApp.colorScheme = 'dark';
      window.Telegram.WebApp.themeParams = { bg_color: '#101820', text_color: '#eeeeee', button_color: '#3390ec' };
      window.__tgEmit('themeChanged');
    });
    await screenshot(page, 'telegram-dark');
    // The BackButton leaves the room; against the computer without a
    // confirmation: the game only pauses, and the lobby offers it back.
    await page.evaluate(() => window.__tg.back.f());
    await waitState(page, (s) => s.view === null, 'back in the lobby');
    assert.equal(await page.locator('#confirm').count(), 0, 'no confirmation: nothing is lost');
    await page.waitForSelector('#continue .continue-game');
    assert.ok((await calls()).includes('disableClosingConfirmation'));
    assert.ok((await calls()).includes('enableVerticalSwipes'));
    // Invites made inside Telegram are t.me links with startapp.
    await page.click('#create-room');
    await page.waitForSelector('#invite-link');
    assert.match(await page.$eval('#invite-link', (e) => e.value), /^https:\/\/t\.me\/tabula_bot\/play\?startapp=[A-Z0-9]{6}$/);
    assert.deepEqual(errors, []);
    await ctx.close();
  } finally {
    await node.stop();
  }
});
