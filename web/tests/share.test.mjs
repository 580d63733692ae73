// Sharing a finished game (issue 44): the result sheet's and the replay's
// Share, the result sheet's Review and "Challenge in a chat" (web/share.js).
// Inside Telegram the link goes to Telegram's share sheet
// (openTelegramLink t.me/share/url) and the challenge through
// switchInlineQuery (6.7+ only); outside, the system share sheet, else the
// clipboard, else the link shown to copy by hand. Every shared link is
// then opened and must show the replay of that game.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startNode, launch, openPage, openTelegramPage, waitState, screenshot, TG_BOT_TOKEN } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Starts long nardy against Easy from the lobby and resigns it: the result sheet is open. */
async function resignedGame(page) {
  await page.waitForSelector('#bot-easy');
  await page.click('#bot-easy');
  const st = await waitState(page, (s) => s.view?.phase === 'playing' && s.roomId, 'the game to start');
  await page.click('#resign');
  await page.click('#confirm-yes');
  await page.waitForSelector('#game-over #share-result');
  return st.roomId;
}

const tgCalls = (page, name) => page.evaluate((n) => window.__tg.calls.filter((c) => c[0] === n).map((c) => c.slice(1)), name);

test('inside Telegram: the result shared by Telegram\'s share sheet as a startapp=replay link that opens the replay; a challenge by switchInlineQuery on 6.7+ only', { timeout: 120000 }, async () => {
  const node = await startNode(undefined, {
    TABULA__AUTH__BOT_TOKEN: TG_BOT_TOKEN,
    TABULA__WEB__TELEGRAM_APP_URL: 'https://t.me/tabula_bot/play',
  });
  try {
    const page = await openTelegramPage(browser, node.base, { id: 5151, first_name: 'Vera' });
    const room = await resignedGame(page);
    await page.click('#share-result');
    const opened = await tgCalls(page, 'openTelegramLink');
    assert.equal(opened.length, 1, 'one share sheet');
    const share = new URL(opened[0][0]);
    assert.equal(`${share.origin}${share.pathname}`, 'https://t.me/share/url');
    const link = share.searchParams.get('url');
    assert.equal(link, `https://t.me/tabula_bot/play?startapp=replay-${room}-1`);
    assert.match(share.searchParams.get('text'), /^A loss at Long nardy in Tabula/);
    // Challenge in a chat: the inline mode's cards of the game just played.
    await page.click('#challenge-chat');
    assert.deepEqual(await tgCalls(page, 'switchInlineQuery'), [['long', ['users', 'groups', 'supergroups']]]);
    assert.deepEqual(page.errors, []);

    // The link's startapp, opened as Telegram opens it (start_param): the
    // replay of that game, from which Share sends the same link. A client
    // older than 6.7 has no switchInlineQuery with chat types.
    const other = await openTelegramPage(browser, node.base, { id: 5252, first_name: 'Oleg' }, {
      startParam: new URL(link).searchParams.get('startapp'),
      setup: (ctx) => ctx.addInitScript(() => { window.__tgVersion = '6.2'; }),
    });
    await other.waitForSelector('#replay-board svg');
    const st = await waitState(other, (s) => s.screen === 'replay' && s.pl.replay?.data, 'the replay');
    assert.equal(st.pl.replay.data.room, room);
    assert.equal(st.pl.replay.data.gameNumber, 1);
    await other.click('#replay-share');
    const again = await tgCalls(other, 'openTelegramLink');
    assert.equal(new URL(again[0][0]).searchParams.get('url'), link);
    assert.match(new URL(again[0][0]).searchParams.get('text'), /^A game of Long nardy in Tabula/, 'a spectator\'s words');
    assert.equal(await other.evaluate(async () => (await import('/share.js')).canChallengeInChat()), false, 'no challenge in a chat before 6.7');
    assert.equal(await page.evaluate(async () => (await import('/share.js')).canChallengeInChat()), true);
    assert.deepEqual(other.errors, []);
    await page.context().close();
    await other.context().close();
  } finally {
    await node.stop();
  }
});

/**
 * A stand-in for the Bot API (the tests have no internet): getMe and
 * savePreparedInlineMessage as Telegram answers them, every call recorded;
 * `state.refuse` answers savePreparedInlineMessage with a 500.
 */
async function botApi() {
  const calls = [];
  const state = { refuse: false };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const method = req.url.split('/').pop();
      let json = {};
      try { json = JSON.parse(body || '{}'); } catch {}
      calls.push({ method, body: json });
      res.setHeader('content-type', 'application/json');
      let answer = { ok: true, result: true };
      if (method === 'getMe') answer = { ok: true, result: { id: 4242, is_bot: true, first_name: 'Tabula', username: 'tabula_bot' } };
      if (method === 'savePreparedInlineMessage') {
        if (state.refuse) {
          res.statusCode = 500;
          answer = { ok: false, error_code: 500, description: 'Internal Server Error' };
        } else {
          answer = { ok: true, result: { id: `prepared-${calls.length}`, expiration_date: Math.floor(Date.now() / 1000) + 86400 } };
        }
      }
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, calls, state, close: () => new Promise((r) => server.close(r)) };
}

test('inside Telegram 8.0+: the result shared as the bot\'s message (shareMessage of a message the node prepared), and as a link when Telegram refuses', { timeout: 120000 }, async () => {
  const api = await botApi();
  const node = await startNode(undefined, {
    TABULA__AUTH__BOT_TOKEN: TG_BOT_TOKEN,
    TABULA__WEB__TELEGRAM_APP_URL: 'https://t.me/tabula_bot/play',
    TABULA__TELEGRAM__API_BASE_URL: api.url,
  });
  try {
    const page = await openTelegramPage(browser, node.base, { id: 5353, first_name: 'Vera' }, {
      setup: (ctx) => ctx.addInitScript(() => { window.__tgShare = 'sent'; }),
    });
    const room = await resignedGame(page);
    const link = `https://t.me/tabula_bot/play?startapp=replay-${room}-1`;
    await page.click('#share-result');
    await page.waitForFunction(() => window.__tg.calls.some((c) => c[0] === 'shareMessage'));
    const prepared = api.calls.filter((c) => c.method === 'savePreparedInlineMessage');
    assert.equal(prepared.length, 1);
    const body = prepared[0].body;
    assert.equal(body.user_id, 5353, 'prepared for her alone');
    assert.match(body.result.input_message_content.message_text, /^The computer beat Vera at Long nardy\./);
    assert.equal(body.result.reply_markup.inline_keyboard[0][0].url, link);
    const id = `prepared-${api.calls.indexOf(prepared[0]) + 1}`;
    assert.deepEqual(await tgCalls(page, 'shareMessage'), [[id]]);
    assert.deepEqual(await tgCalls(page, 'openTelegramLink'), [], 'no link when the message went');

    // Telegram refuses to prepare it: the link, by Telegram's share sheet.
    api.state.refuse = true;
    await page.click('#share-result');
    await page.waitForFunction(() => window.__tg.calls.some((c) => c[0] === 'openTelegramLink'));
    const opened = await tgCalls(page, 'openTelegramLink');
    assert.equal(new URL(opened[0][0]).searchParams.get('url'), link);
    assert.equal((await tgCalls(page, 'shareMessage')).length, 1);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  } finally {
    await node.stop();
    await api.close();
  }
});

test('outside Telegram: the system share sheet, else the clipboard, else the link shown; Review opens the replay with its analysis', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    // A browser with a share sheet (recorded).
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
    await ctx.addInitScript(() => {
      window.__shared = [];
      navigator.share = async (d) => { window.__shared.push(d); };
    });
    const page = await openPage(browser, `${node.base}/`, { context: () => ctx });
    const room = await resignedGame(page);
    const link = `${node.base}/?replay=${room}.1`;
    await page.click('#share-result');
    const shared = await page.evaluate(() => window.__shared);
    assert.equal(shared.length, 1);
    assert.equal(shared[0].url, link);
    assert.match(shared[0].text, /^A loss at Long nardy in Tabula/);
    // No challenge in a chat outside Telegram.
    assert.equal(await page.locator('#challenge-chat').count(), 0);
    // Review: the replay of this game with the computer's analysis asked for at once.
    await page.click('#review-result');
    const st = await waitState(page, (s) => s.screen === 'replay' && s.pl.replay?.analysis?.data, 'the replay with its analysis');
    assert.equal(st.pl.replay.data.room, room);
    assert.equal(st.view, null, 'the room was left');
    await page.waitForSelector('#analysis');
    assert.equal(await page.getAttribute('#analysis-toggle', 'aria-pressed'), 'true');
    await screenshot(page, 'share-review');
    assert.deepEqual(page.errors, []);

    // No share sheet: the link goes to the clipboard, and a toast says so.
    const ctx2 = await browser.newContext({ viewport: { width: 390, height: 844 } });
    await ctx2.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: node.base });
    await ctx2.addInitScript(() => { delete Navigator.prototype.share; });
    const copier = await openPage(browser, link, { context: () => ctx2 });
    await copier.waitForSelector('#replay-share');
    assert.equal(await copier.evaluate(() => typeof navigator.share), 'undefined');
    await copier.click('#replay-share');
    await copier.waitForSelector('#toast');
    assert.equal(await copier.textContent('#toast'), 'Link copied');
    assert.equal(await copier.evaluate(() => navigator.clipboard.readText()), link);
    assert.equal(await copier.locator('#replay-link').count(), 0);

    // Neither: the link shown, to be copied by hand.
    const ctx3 = await browser.newContext({ viewport: { width: 390, height: 844 } });
    await ctx3.addInitScript(() => {
      delete Navigator.prototype.share;
      Object.defineProperty(navigator, 'clipboard', { value: { writeText: () => Promise.reject(new Error('denied')) } });
    });
    const bare = await openPage(browser, link, { context: () => ctx3 });
    await bare.waitForSelector('#replay-share');
    await bare.click('#replay-share');
    await bare.waitForSelector('#replay-link-input');
    assert.equal(await bare.inputValue('#replay-link-input'), link);
    await screenshot(bare, 'share-link-shown');
    for (const p of [copier, bare]) assert.deepEqual(p.errors, []);
    await ctx.close();
    await ctx2.close();
    await ctx3.close();
  } finally {
    await node.stop();
  }
});
