// The player's own screens (issue 24): the history of finished games and
// the replay of one (turn by turn, with the analysis), the profile with
// ratings after a rated game between two people, the leaderboard, and
// deleting one's data. Real nodes with an SQLite store of their own
// (helpers.mjs), Debian's Chromium at a phone's size.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startNode, launch, api, screenshot, appState, waitState, playDiceTurn, ready, sleep } from './helpers.mjs';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** A page of its own (its own guest) at a phone's size, its console errors kept in `page.errors`. */
async function phone(url, { width = 390, height = 844, colorScheme = 'light', guest } = {}) {
  const ctx = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, colorScheme });
  const page = await ctx.newPage();
  page.setDefaultTimeout(15000);
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/WebSocket|Failed to load resource/.test(m.text())) errors.push(m.text());
  });
  page.errors = errors;
  page.ctx = ctx;
  await page.goto(guest ? `${url}${url.includes('?') ? '&' : '?'}guest=${guest}` : url);
  await page.waitForFunction(() => window.__tabula?.state);
  return page;
}

/** The page's player's credentials, as the app sends them. */
const bearer = (page) => page.evaluate(() => ({ authorization: `Bearer ${window.__tabula.net.token}` }));

/** axe-core's findings of impact serious or critical on the page as it is. */
async function axe(page, where) {
  await page.addScriptTag({ path: AXE });
  const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${where}: ${v.id} (${v.help}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Nothing wider than the screen. */
async function noSideScroll(page, where) {
  const { sw, w } = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, w: window.innerWidth }));
  assert.ok(sw <= w, `${where}: the page is ${sw}px wide on a ${w}px screen`);
}

/** From the lobby to the history, until its list shows `pred` (a finished game reaches the store within moments). */
async function openHistoryUntil(page, pred, what) {
  const end = Date.now() + 15000;
  for (;;) {
    if (await page.locator('#back').count()) await page.click('#back');
    await page.click('#open-history');
    await page.waitForSelector('#history-list, #history-empty, #history-error');
    if (await pred()) return;
    if (Date.now() > end) throw new Error(`the history never showed ${what}: ${await page.textContent('main')}`);
    await sleep(300);
  }
}

/** The position as drawn: the checkers on each point, off and on the bar (the renderer's own input). */
const drawn = (page) => page.evaluate(() => {
  const o = document.querySelector('#replay-board').__nardy;
  return o ? o.position : null;
});
/** What the replay's SVG shows: each checker's colour and point, the counts on top. */
const picture = (page) => page.$$eval('#replay-board .checker', (cs) => cs.map((c) => `${c.getAttribute('class')}@${c.dataset.point}:${c.textContent}`).sort().join(' '));

/** A position's checkers without empty points and bookkeeping (whose turn, first turn). */
function checkers(pos) {
  const side = (m) => Object.fromEntries(Object.entries(m || {}).filter(([, n]) => n > 0).sort(([a], [b]) => Number(a) - Number(b)));
  return { white: side(pos.white), black: side(pos.black), off: pos.off || {}, bar: pos.bar || {} };
}

test('a finished game against the computer is in the history; its replay steps turn by turn to the final position, with the analysis of every turn', { timeout: 180000 }, async () => {
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
    const page = await phone(`${node.base}/?join=${room.roomId}`, { guest: 'hilda' });
    await ready(page);
    await waitState(page, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start');
    for (let turns = 0; turns < 12; turns++) {
      const st = await appState(page);
      if (st.view.phase !== 'playing' || st.gameOver) break;
      await playDiceTurn(page);
    }
    await page.waitForSelector('#game-over');
    const end = await appState(page);
    const finalPosition = end.view.board.position;
    const outcome = end.gameOver.result;
    await page.click('#close-result');
    await page.click('#leave');
    await page.waitForSelector('#open-history');

    // The history: this game, newest first, against "Computer (Hard)", not rated.
    const row = `.history-row[data-room="${room.roomId}"]`;
    await openHistoryUntil(page, async () => (await page.locator('.history-row').count()) > 0, 'the game');
    const first = page.locator('.history-row').first();
    assert.equal(await first.getAttribute('data-room'), room.roomId, 'the newest game first');
    assert.equal(await first.getAttribute('data-outcome'), outcome);
    const text = await first.textContent();
    assert.match(text, outcome === 'win' ? /Won/ : /Lost/);
    assert.match(text, /Long nardy/);
    assert.match(text, /vs Computer \(Hard\)/);
    assert.match(text, /Oin|Mars|Koks/);
    assert.match(text, /point/);
    assert.equal(await first.locator('.badge.rated').count(), 0, 'a game against the computer is not rated');
    assert.equal(await first.locator('.casual').textContent(), 'Casual', 'said to a screen reader');
    await screenshot(page, 'players-history');
    // Filters: by opponent and by game.
    await page.selectOption('#history-opponent', 'person');
    await page.waitForSelector('#history-empty');
    await page.selectOption('#history-opponent', 'computer');
    await page.waitForSelector(row);
    await page.selectOption('#history-game', 'thud');
    await page.waitForSelector('#history-empty');
    await page.selectOption('#history-game', 'long_nardy');
    await page.waitForSelector(row);

    // The replay, opened from the keyboard: the start, then turn by turn.
    await page.focus(row);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#replay-board svg');
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1', 'a new screen starts at its title');
    assert.match(new URL(page.url()).search, new RegExp(`replay=${room.roomId}\\.1`), 'the replay has an address of its own');
    const game = await api(node.base, 'GET', `/api/games/${room.roomId}/1`, undefined, await bearer(page));
    const frames = game.frames;
    assert.ok(frames.length >= 2, `frames: ${frames.length}`);
    assert.equal(frames[0].seat, null, 'frame 0 is the start');
    assert.match(await page.textContent('#replay-counter'), /Start/);
    assert.deepEqual(checkers(await drawn(page)), checkers(frames[0].board.position), 'the start position drawn');
    const start = await picture(page);
    await page.click('#replay-next');
    await page.waitForSelector('#replay-board[data-frame="1"]');
    const one = await picture(page);
    assert.notEqual(one, start, 'forward changes the drawn board');
    assert.deepEqual(checkers(await drawn(page)), checkers(frames[1].board.position));
    assert.match(await page.textContent('#replay-counter'), new RegExp(`Turn 1 of ${frames.length - 1}`));
    const move = await page.textContent('#replay-move');
    assert.match(move, /White|Black/, move);
    if (frames[1].dice) assert.ok(move.includes(`${frames[1].dice[0]}–${frames[1].dice[1]}`), `the dice in "${move}"`);
    if (frames[1].notation) assert.ok(move.includes(frames[1].notation), `the notation in "${move}"`);
    await page.click('#replay-prev');
    await page.waitForSelector('#replay-board[data-frame="0"]');
    assert.equal(await picture(page), start, 'back returns to the previous board');
    await page.click('#replay-last');
    await page.waitForSelector(`#replay-board[data-frame="${frames.length - 1}"]`);
    assert.deepEqual(checkers(await drawn(page)), checkers(finalPosition), 'the last frame is the final position');
    assert.ok(await page.locator('#replay-next').isDisabled(), 'nothing after the last frame');
    // Arrow keys, Home and End.
    await page.keyboard.press('Home');
    await page.waitForSelector('#replay-board[data-frame="0"]');
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('#replay-board[data-frame="1"]');
    assert.equal(await picture(page), one);
    await page.keyboard.press('ArrowLeft');
    await page.waitForSelector('#replay-board[data-frame="0"]');
    await page.keyboard.press('End');
    await page.waitForSelector(`#replay-board[data-frame="${frames.length - 1}"]`);
    // Read only: nothing on the board takes a tap or the focus.
    assert.equal(await page.locator('#replay-board [tabindex="0"], #replay-board .movable').count(), 0);
    await page.keyboard.press('Home');
    await page.click('#replay-next');
    await screenshot(page, 'players-replay');

    // The analysis: asked once, a row per analysed turn, blunders marked.
    let asked = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/analysis')) asked += 1;
    });
    await page.click('#analysis-toggle');
    await page.waitForSelector('#analysis-list li, #analysis-error', { timeout: 60000 });
    assert.equal(await page.locator('#analysis-error').count(), 0, await page.locator('#analysis').textContent());
    const analysis = await api(node.base, 'GET', `/api/games/${room.roomId}/1/analysis`, undefined, await bearer(page));
    const rows = page.locator('#analysis-list li');
    assert.ok(analysis.turns.length >= 1, 'turns analysed');
    assert.equal(await rows.count(), analysis.turns.length, 'a row per turn');
    for (const [i, x] of analysis.turns.entries()) {
      const li = rows.nth(i);
      assert.equal(await li.getAttribute('data-turn'), String(x.turn));
      assert.equal(await li.evaluate((e) => e.classList.contains('blunder')), x.equityLost > 0.08, `turn ${x.turn}: lost ${x.equityLost}`);
      assert.ok((await li.textContent()).includes(x.played || 'no moves'), `turn ${x.turn} shows its play`);
    }
    assert.equal(await page.getAttribute('#analysis-list li.current', 'data-turn'), '1', 'the current turn marked');
    assert.match(await page.textContent('#analysis-seats'), /White/);
    assert.match(await page.textContent('#analysis-current'), /best play|Equity lost/);
    // A row takes the replay to its turn; the toggle off and on asks nothing again.
    await rows.last().locator('button').click();
    await page.waitForSelector(`#replay-board[data-frame="${Math.min(analysis.turns.at(-1).turn, frames.length - 1)}"]`);
    await page.click('#analysis-toggle');
    await page.click('#analysis-toggle');
    await page.waitForSelector('#analysis-list li');
    assert.equal(asked, 1, 'the analysis is fetched once');
    await screenshot(page, 'players-replay-analysis');
    // The record: its server seed checks against the commitment.
    await page.click('#replay-verify');
    await page.waitForSelector('#replay-verify-result.ok');
    assert.match(await page.getAttribute('#replay-record', 'download'), /\.json$/);
    const found = await axe(page, 'replay light');

    // Other sizes and the dark theme.
    for (const [w, hh] of [[320, 568], [1280, 800]]) {
      await page.setViewportSize({ width: w, height: hh });
      await sleep(100);
      await noSideScroll(page, `replay ${w}`);
      await screenshot(page, `players-replay-${w}`);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => localStorage.setItem('tabula.theme', 'dark'));
    await page.reload();
    await page.waitForSelector('#replay-board svg');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    await page.click('#analysis-toggle');
    await page.waitForSelector('#analysis-list li');
    found.push(...(await axe(page, 'replay dark')));
    await screenshot(page, 'players-replay-dark');
    // Back from a shared replay goes to the lobby.
    await page.click('#back');
    await page.waitForSelector('#open-history');
    assert.deepEqual(found, []);
    assert.deepEqual(page.errors, []);
    console.log(`# replay: ${frames.length} frames, ${analysis.turns.length} turns analysed, ${analysis.turns.filter((x) => x.equityLost > 0.08).length} blunders; ${outcome}`);
    await page.ctx.close();

    // The bot's deep link to this replay (`startapp=replay-<room>-<n>`,
    // as Telegram passes a Mini App link's parameter) opens exactly it.
    const linked = await phone(`${node.base}/?startapp=replay-${room.roomId}-1`, { guest: 'ivan' });
    await linked.waitForSelector('#replay-board svg');
    assert.match(new URL(linked.url()).search, new RegExp(`replay=${room.roomId}\\.1`), 'the replay of the link');
    assert.equal(await linked.locator('#game-over, #board-wrap').count(), 0, 'no room was joined');
    assert.deepEqual(linked.errors, []);
    await linked.ctx.close();
  } finally {
    await node.stop();
  }
});

/** The leaderboard on the page against the node's answer: rows, '?' on provisional ratings, the player's own line. */
async function checkBoard(page, board, me) {
  assert.equal(await page.locator('#lb-table tbody tr[data-rank]').count(), board.top.length + (board.you?.rank && !board.top.some((e) => e.player === me) ? 1 : 0));
  for (const e of board.top) {
    const cell = (await page.textContent(`#lb-table tr[data-rank="${e.rank}"] td.rating`)).replace(/ \(.*\)$/, '');
    assert.equal(cell, `${Math.round(e.rating)}${e.provisional ? '?' : ''}`, `rank ${e.rank}`);
  }
  if (!board.top.length) await page.waitForSelector('#lb-empty');
  const line = await page.textContent('#lb-you');
  const you = board.you;
  if (you?.rank) {
    assert.match(line, new RegExp(`Your rank: #${you.rank} of ${you.of} · rating ${Math.round(you.rating)}${you.provisional ? '\\?' : ''}`));
    assert.equal(await page.getAttribute('#lb-table tr.me', 'data-rank'), String(you.rank));
  } else {
    assert.match(line, /not ranked yet/);
    if (you) assert.match(line, new RegExp(`${Math.round(you.rating)}\\? is provisional`));
    assert.equal(await page.locator('#lb-table tr.me').count(), 0);
  }
  if (you?.provisional || board.top.some((e) => e.provisional)) await page.waitForSelector('#lb-provisional');
  return you;
}

test('a rated game between two people (quick match): both have a provisional rating in the profile, the history row is rated, the leaderboard shows the node\u2019s standings with provisional ratings marked', { timeout: 180000 }, async () => {
  const node = await startNode(undefined, { TABULA__MATCHMAKING__BOT_AFTER_MS: '15000' });
  try {
    const ann = await phone(node.base, { guest: 'ann' });
    const ben = await phone(node.base, { guest: 'ben' });
    await ann.click('#quick-match');
    await ann.waitForSelector('#cancel-search');
    await ben.click('#quick-match');
    await waitState(ann, (s) => s.view && s.seat, 'ann in a room');
    await waitState(ben, (s) => s.view && s.seat, 'ben in a room');
    await ready(ann);
    await ready(ben);
    await waitState(ann, (s) => s.view?.phase === 'playing', 'the game to start');
    // Ben resigns: Ann wins.
    await ben.click('#resign');
    await ben.click('#confirm-yes');
    await waitState(ann, (s) => s.gameOver || s.ended, 'the game over for ann');
    await waitState(ben, (s) => s.gameOver || s.ended, 'the game over for ben');
    const annId = (await appState(ann)).player;
    const benId = (await appState(ben)).player;
    for (const p of [ann, ben]) {
      await p.click('#close-result');
      await p.click('#leave');
      await p.waitForSelector('#open-profile');
    }

    // The profile: a provisional long nardy rating after one rated game, as "1662?".
    const ratingOf = async (page) => {
      const end = Date.now() + 20000;
      for (;;) {
        if (await page.locator('#back').count()) await page.click('#back');
        await page.click('#open-profile');
        await page.waitForSelector('#ratings-table, #profile-error');
        const r = await page.locator('#ratings-table tr[data-game="long_nardy"] td.rating').textContent();
        if (r !== '—') return r;
        if (Date.now() > end) throw new Error(`no rating in the profile: ${await page.textContent('main')}`);
        await sleep(300);
      }
    };
    const annRating = await ratingOf(ann);
    const benRating = await ratingOf(ben);
    assert.match(annRating, /^\d+\?/, `provisional: ${annRating}`);
    assert.match(benRating, /^\d+\?/, `provisional: ${benRating}`);
    assert.ok(parseInt(annRating, 10) > 1500 && parseInt(benRating, 10) < 1500, `the winner up, the loser down: ${annRating} / ${benRating}`);
    assert.equal(await ann.getAttribute('#ratings-table tr[data-game="long_nardy"]', 'data-provisional'), 'true');
    assert.match(await ann.textContent('#ratings-table tr[data-game="long_nardy"] td.rating'), /\(provisional\)/, 'said to a screen reader');
    const profileApi = await api(node.base, 'GET', '/api/me/profile', undefined, await bearer(ann));
    assert.equal(profileApi.player, annId);
    const mine = profileApi.ratings.find((r) => r.game === 'long_nardy');
    assert.equal(mine.provisional, true, 'one game: provisional');
    assert.equal(annRating.replace(/\D.*$/, ''), String(Math.round(mine.rating)));
    // Its rank as the node gives it: none while provisional by the contract (lichess); a node that ranks it anyway is shown as it says.
    const rank = await ann.textContent('#ratings-table tr[data-game="long_nardy"] td.rank');
    if (mine.rank == null) assert.match(rank, /not ranked/);
    else assert.equal(rank, `#${mine.rank} of ${mine.of}`);
    assert.equal(await ann.textContent('#ratings-table tr[data-game="long_nardy"] td:last-child'), '1');
    assert.equal(await ann.textContent('#ratings-table tr[data-game="thud"] td.rating'), '—');
    // The rating graph: from a new player's 1500 to his rating after the game, as the profile's history says.
    assert.equal(mine.history.length, 1, 'one rated game in the history');
    assert.equal(Math.round(mine.history[0].rating), Math.round(mine.rating));
    await ann.waitForSelector('#rating-graph-long_nardy svg polyline');
    assert.equal(await ann.getAttribute('#rating-graph-long_nardy', 'data-points'), '2');
    assert.equal((await ann.getAttribute('#rating-graph-long_nardy polyline', 'points')).split(' ').length, 2);
    assert.match(await ann.getAttribute('#rating-graph-long_nardy svg', 'aria-label'), new RegExp(`^Long nardy: rating from 1500 to ${Math.round(mine.rating)} over the latest rated games \\(1\\)`));
    assert.equal(await ann.locator('#rating-graph-thud').count(), 0, 'no graph without rated games');
    assert.equal(await ann.textContent('#profile-name'), profileApi.name);
    await ann.waitForSelector('#profile-stats .stats-game[data-game="long_nardy"]');
    await screenshot(ann, 'players-profile');
    const found = await axe(ann, 'profile');
    for (const [w, hh] of [[320, 568], [1280, 800]]) {
      await ann.setViewportSize({ width: w, height: hh });
      await noSideScroll(ann, `profile ${w}`);
      await screenshot(ann, `players-profile-${w}`);
    }
    await ann.setViewportSize({ width: 390, height: 844 });

    // The history: the game, rated, against Ben by name.
    await openHistoryUntil(ann, async () => (await ann.locator('.history-row').count()) > 0, 'the rated game');
    const row = ann.locator('.history-row').first();
    assert.match(await row.textContent(), /Won/);
    assert.equal(await row.locator('.badge.rated').count(), 1, 'a quick-match game is rated');
    assert.match(await row.textContent(), new RegExp(`vs ${(await api(node.base, 'GET', `/api/players/${encodeURIComponent(benId)}/profile`)).name}`));
    assert.match(await row.textContent(), /resign/);
    await ann.selectOption('#history-opponent', 'computer');
    await ann.waitForSelector('#history-empty');
    // The filters stay as chosen while the app is open.
    await ann.click('#back');
    await ann.click('#open-history');
    assert.equal(await ann.inputValue('#history-opponent'), 'computer');
    await ann.selectOption('#history-opponent', '');
    await ann.waitForSelector('.history-row');

    // The leaderboard as the node gives it: by the contract nobody is
    // ranked after one game each (provisional) and Ann is told why; a node
    // that ranks provisional players anyway shows them marked "?".
    await ann.click('#back');
    await ann.click('#open-leaderboard');
    await ann.waitForSelector('#lb-you');
    const board = await api(node.base, 'GET', '/api/leaderboards/long_nardy?period=all', undefined, await bearer(ann));
    await checkBoard(ann, board, annId);
    await screenshot(ann, 'players-leaderboard');
    found.push(...(await axe(ann, 'leaderboard')));
    await ann.click('#lb-week');
    await ann.waitForSelector('#lb-week[aria-pressed="true"]');
    await ann.waitForSelector('#lb-you');
    await checkBoard(ann, await api(node.base, 'GET', '/api/leaderboards/long_nardy?period=week', undefined, await bearer(ann)), annId);
    await ann.click('[data-lb-game="backgammon"]');
    await ann.waitForFunction(() => /no rated game/.test(document.querySelector('#lb-you')?.textContent || ''));
    for (const [w, hh] of [[320, 568], [1280, 800]]) {
      await ann.setViewportSize({ width: w, height: hh });
      await noSideScroll(ann, `leaderboard ${w}`);
      await screenshot(ann, `players-leaderboard-${w}`);
    }

    // Ben deletes his data: Ann's game stays, against a deleted player.
    await ben.click('#back');
    await ben.click('#open-profile');
    await ben.click('#delete-data');
    await ben.click('#confirm-yes');
    await ben.waitForSelector('#delete-note');
    await ben.waitForSelector('#ratings-empty');
    await ann.setViewportSize({ width: 390, height: 844 });
    await ann.click('#back');
    await openHistoryUntil(ann, async () => /Deleted player/.test(await ann.textContent('#history-list').catch(() => '')), 'the deleted opponent');
    assert.deepEqual(found, []);
    assert.deepEqual([...ann.errors, ...ben.errors], []);
    console.log(`# ratings after one rated game: ${annRating} / ${benRating}; you on the leaderboard: ${JSON.stringify(board.you)}`);
    await ann.ctx.close();
    await ben.ctx.close();
  } finally {
    await node.stop();
  }
});

test('delete my data: confirmed, then the history is empty and the profile has no statistics; the screens in Russian', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    const room = await api(node.base, 'POST', '/api/rooms', { game: 'long_nardy', bot: { level: 'easy' } });
    const page = await phone(`${node.base}/?join=${room.roomId}`, { guest: 'dora' });
    await ready(page);
    await waitState(page, (s) => s.view?.phase === 'playing', 'the game to start');
    await page.click('#resign');
    await page.click('#confirm-yes');
    await waitState(page, (s) => s.gameOver || s.ended, 'the game over');
    await page.click('#close-result');
    await page.click('#leave');
    await page.waitForSelector('#open-history');
    await openHistoryUntil(page, async () => (await page.locator('.history-row').count()) > 0, 'the game');
    assert.match(await page.textContent('.history-row'), /Lost/);
    // A cancelled confirmation deletes nothing.
    await page.click('#back');
    await page.click('#open-profile');
    await page.waitForSelector('#profile-stats .stats-game[data-game="long_nardy"]');
    await page.click('#delete-data');
    assert.match(await page.textContent('#confirm'), /for good/);
    await screenshot(page, 'players-delete-confirm');
    await page.click('#confirm-no');
    await page.click('#back');
    await page.click('#open-history');
    await page.waitForSelector('.history-row');
    // Confirmed: the history is empty and the profile has no ratings or statistics.
    await page.click('#back');
    await page.click('#open-profile');
    const asked = page.waitForRequest((r) => r.url().endsWith('/api/me') && r.method() === 'DELETE');
    await page.click('#delete-data');
    await page.click('#confirm-yes');
    await asked;
    await page.waitForSelector('#delete-note');
    // The contract's {deleted: {games, ratings, profile}} as a sentence; a node answering otherwise gets the plain one.
    assert.match(await page.textContent('#delete-note'), /Deleted: 1 game, 0 ratings|Your data was deleted/);
    await page.waitForSelector('#ratings-empty');
    await page.waitForSelector('#stats-empty');
    await screenshot(page, 'players-profile-deleted');
    await page.click('#back');
    await page.click('#open-history');
    await page.waitForSelector('#history-empty');
    assert.match(await page.textContent('#history-empty'), /No finished games/);
    const hist = await api(node.base, 'GET', '/api/me/history', undefined, await bearer(page));
    assert.deepEqual(hist.games, []);
    await screenshot(page, 'players-history-empty');

    // In Russian: every screen in Russian, nothing untranslated.
    await page.evaluate(() => localStorage.setItem('tabula.lang', '"ru"'));
    await page.goto(node.base);
    await page.waitForSelector('#open-profile');
    assert.equal(await page.textContent('#open-profile span:last-child'), 'Профиль');
    for (const [button, ready_] of [['#open-profile', '#ratings-table'], ['#open-history', '#history-empty'], ['#open-leaderboard', '#lb-you']]) {
      await page.click(button);
      await page.waitForSelector(ready_);
      const text = await page.textContent('main');
      assert.doesNotMatch(text, /⟦/, `untranslated on ${button}`);
      assert.match(text, /[а-яё]{4}/i);
      await page.click('#back');
    }
    assert.deepEqual(page.errors, []);
    await page.ctx.close();
  } finally {
    await node.stop();
  }
});

test('a node without a store says it keeps no history; a store that cannot be reached now says to try again (503 store_unavailable), not that there is none', { timeout: 60000 }, async () => {
  const node = await startNode(0, { TABULA__STORE__URL: '' });
  try {
    const page = await phone(node.base, { guest: 'nora' });
    await page.click('#open-history');
    await page.waitForSelector('#history-error');
    assert.match(await page.textContent('#history-error'), /keeps no history/);
    await page.ctx.close();

    // The store is configured but down: every store route answers as
    // docs/protocol.md says (503, `store_unavailable`, Retry-After).
    const down = await phone(node.base, { guest: 'otto' });
    await down.route(/\/api\/(players|me)\//, (r) => r.fulfill({
      status: 503,
      headers: { 'content-type': 'application/json', 'retry-after': '5' },
      body: JSON.stringify({ error: { code: 'store_unavailable', message: 'the durable store cannot be reached now; retry' } }),
    }));
    await down.click('#open-history');
    await down.waitForSelector('#history-error');
    const text = await down.textContent('#history-error');
    assert.match(text, /cannot be reached right now/);
    assert.doesNotMatch(text, /keeps no history/);
    assert.deepEqual(down.errors, []);
    await down.ctx.close();
  } finally {
    await node.stop();
  }
});
