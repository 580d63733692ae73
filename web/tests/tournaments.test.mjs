// Tournaments in the Mini App (issue 49): the screens' transitions and
// questions in node; then, on a real node, a knockout of three (one joined
// over HTTP, two through the screens: the list, and a #/t/<id> link), its
// start, a player's game opened from the tournament screen and the other's
// from the lobby's banner, a resignation, the bracket and the standings
// updated, the final won by the absent player's forfeit; a refusal (409
// `tournament_refused`) said on the screen; the create form and the list;
// an arena's late joining, Pause and Resume; Telegram's start_param
// `t_<id>`; 320×568.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, launch, openPage, openTelegramPage, waitState, ready, api, sleep, screenshot, TG_BOT_TOKEN, signInitData } from './helpers.mjs';
import { S, dispatch } from '../store.js';
import { tourState, actionsFor, pointsShown, roundKey, nextOf, inAny, refreshMs, matchWinner } from '../tournament-state.js';

// ---- the screens' state, in node ------------------------------------------------------
const knockout = (status, players, extra = {}) => ({ id: 'cup', status, round: status === 'running' ? 1 : 0, config: { format: { type: 'knockout' }, game: 'long_nardy', startAtMs: 1000, maxPlayers: null }, players, ...extra });
const entry = (player, o = {}) => ({ player, rating: 1500, withdrawn: false, paused: false, ...o });

test('the buttons a tournament allows the player, as the server judges them', () => {
  assert.deepEqual(actionsFor(knockout('registering', []), 'me'), ['join']);
  assert.deepEqual(actionsFor(knockout('registering', [entry('me')]), 'me'), ['withdraw']);
  assert.deepEqual(actionsFor(knockout('running', []), 'me'), [], 'a knockout takes nobody once started');
  assert.deepEqual(actionsFor(knockout('running', [entry('me')]), 'me'), ['withdraw'], 'no pause in a knockout');
  assert.deepEqual(actionsFor(knockout('finished', [entry('me')]), 'me'), []);
  const full = knockout('registering', [entry('a'), entry('b')]);
  full.config.maxPlayers = 2;
  assert.deepEqual(actionsFor(full, 'me'), [], 'full');
  assert.deepEqual(actionsFor(knockout('registering', [entry('me', { withdrawn: true })]), 'me'), ['join'], 'back after withdrawing');
  const swiss = (round, late, players) => ({ ...knockout('running', players), round, config: { format: { type: 'swiss', rounds: 5, lateJoinUntilRound: late }, startAtMs: 0 } });
  assert.deepEqual(actionsFor(swiss(1, 2, []), 'me'), ['join'], 'late joining open');
  assert.deepEqual(actionsFor(swiss(2, 2, []), 'me'), [], 'late joining closed');
  assert.deepEqual(actionsFor(swiss(1, 0, [entry('me')]), 'me'), ['withdraw', 'pause']);
  assert.deepEqual(actionsFor(swiss(1, 0, [entry('me', { paused: true })]), 'me'), ['withdraw', 'resume']);
  const arena = { ...knockout('running', []), config: { format: { type: 'arena', durationMs: 60000, rematchWaitMs: 0 }, startAtMs: 0 } };
  assert.deepEqual(actionsFor(arena, 'me'), ['join']);
  assert.deepEqual(actionsFor(arena, null), [], 'nobody known: no buttons');
});

test('points, round names, refreshing, and the lobby\u2019s next game from GET /api/me/tournaments', () => {
  assert.equal(pointsShown({ type: 'swiss' }, 3), 1.5);
  assert.equal(pointsShown({ type: 'swiss' }, 5, 4), 1.25, 'Sonneborn–Berger in quarter-points');
  assert.equal(pointsShown({ type: 'arena' }, 6), 6);
  assert.deepEqual(roundKey(3, 3), ['tour.final', {}]);
  assert.deepEqual(roundKey(2, 3), ['tour.semi', {}]);
  assert.deepEqual(roundKey(1, 3), ['tour.quarter', {}]);
  assert.deepEqual(roundKey(1, 5), ['tour.roundN', { n: 1 }]);
  assert.equal(matchWinner({ winner: { state: 'winner', player: 'x' } }), 'x');
  assert.equal(matchWinner({ winner: { state: 'pending' } }), null);
  assert.equal(refreshMs(knockout('running', []), 0), 2500);
  assert.equal(refreshMs(knockout('registering', []), 0), 2500, 'about to start');
  assert.equal(refreshMs(knockout('registering', []), -3600000), 10000);
  assert.equal(refreshMs(knockout('finished', []), 0), 0);
  // The lobby's next game from GET /api/me/tournaments: the first running one with his game.
  const line = (id, status, o = {}) => ({ id, format: { type: 'knockout' }, game: 'thud', status, startAtMs: 1000, players: 2, round: 1, paused: false, ...o });
  const game = { roomId: 'b:1:1', round: 1, white: 'me', black: 'x' };
  assert.equal(nextOf(null), null);
  assert.equal(nextOf({ upcoming: [line('u', 'registering')], running: [], finished: [] }), null, 'registered only: no banner');
  assert.equal(nextOf({ upcoming: [], running: [line('a', 'running')], finished: [] }), null, 'running, between his games');
  assert.deepEqual(nextOf({ upcoming: [], running: [line('a', 'running'), line('b', 'running', { myGame: game })], finished: [] }),
    { id: 'b', game, format: { type: 'knockout' }, kind: 'thud' });
  assert.equal(inAny({ upcoming: [line('u', 'registering')], running: [] }), true);
  assert.equal(inAny({ upcoming: [], running: [line('a', 'running')] }), true);
  assert.equal(inAny({ upcoming: [], running: [], finished: [{ id: 'old', place: 1 }] }), false, 'only finished ones: nothing to watch');
  assert.equal(inAny(undefined), false);
});

test('the tournament transitions', () => {
  dispatch('tourInit');
  assert.deepEqual(Object.keys(S.tour), Object.keys(tourState()));
  dispatch('tourOpened', { screen: 'tournament', id: 'cup', back: 'tournaments' });
  assert.equal(S.screen, 'tournament');
  assert.equal(S.tour.back, 'tournaments');
  assert.equal(dispatch('tourLoaded', { id: 'other', data: { id: 'other' } }), false, 'a late answer for another tournament is dropped');
  assert.equal(S.tour.data, null);
  assert.equal(dispatch('tourLoaded', { id: 'cup', data: { id: 'cup' } }), true);
  assert.equal(S.tour.data.id, 'cup');
  dispatch('tourLoaded', { id: 'cup', error: 'offline' });
  assert.equal(S.tour.data.id, 'cup', 'a failed refresh keeps what was shown');
  dispatch('tourOpened', { screen: 'tournament', id: 'cup2' });
  assert.equal(S.tour.data, null, 'another tournament starts empty');
  dispatch('tourForm', { field: 'format', value: 'swiss' });
  assert.equal(S.tour.form.format, 'swiss');
  dispatch('tourClosed', 'lobby');
  assert.equal(S.screen, 'lobby');
});

// ---- in the browser, on a real node -----------------------------------------------------
let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const bearer = (token) => ({ authorization: `Bearer ${token}` });
const tourOf = (page) => page.evaluate(() => window.__tabula.state.tour?.data || null);
const playerOf = async (page) => {
  // The app's handle may not be there yet when the page has just loaded.
  await page.waitForFunction(() => window.__tabula?.state?.player && window.__tabula?.net?.token);
  return page.evaluate(() => ({ id: window.__tabula.state.player, token: window.__tabula.net.token }));
};
/** Waits until GET /api/tournaments/{id} satisfies `pred`. */
async function until(base, id, pred, what, ms = 20000) {
  const end = Date.now() + ms;
  let d;
  while (Date.now() < end) {
    d = await api(base, 'GET', `/api/tournaments/${id}`);
    if (pred(d)) return d;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(d)}`);
}

/** Every visible button on the page smaller than 44×44, and whether the page is wider than the window. */
const fit = (page) => page.evaluate(() => ({
  small: [...document.querySelectorAll('#app button')].filter((b) => b.offsetParent).map((b) => [b.id || b.textContent.trim().slice(0, 20), b.getBoundingClientRect()]).filter(([, r]) => r.width < 43.5 || r.height < 43.5).map(([n, r]) => `${n} ${Math.round(r.width)}×${Math.round(r.height)}`),
  overflow: document.documentElement.scrollWidth > window.innerWidth + 1,
}));

test('a knockout of three: joined from the list and a link, started, played from the tournament screen and the lobby\u2019s banner, bracket and standings updated', { timeout: 180000 }, async () => {
  const node = await startNode();
  const pages = [];
  try {
    // C, the first to join (the first seed, a bye): a guest who joins over HTTP and never plays.
    const c = await openPage(browser, node.base);
    const C = await playerOf(c);
    await c.context().close();
    const a = await openPage(browser, node.base);
    pages.push(a);
    const A = await playerOf(a);
    await api(node.base, 'POST', '/api/tournaments', { id: 'cup1', format: { type: 'knockout' }, game: 'long_nardy', startAtMs: Date.now() + 15000, graceMs: 30000, timeControl: 'none' }, bearer(C.token));
    await api(node.base, 'POST', '/api/tournaments/cup1/join', undefined, bearer(C.token));
    await until(node.base, 'cup1', (d) => d.players.length === 1, 'C registered');

    // A: the lobby's entry, the list, the tournament, Join.
    await a.click('#open-tournaments');
    const line = a.locator('#tour-upcoming [data-tour="cup1"]');
    await line.waitFor();
    assert.match(await line.textContent(), /Knockout · Long nardy.*1 player/);
    await line.click();
    await a.waitForSelector('#tour-join');
    assert.equal(await a.textContent('#tour-status'), 'Registration open');
    // Its link, for players to come (outside Telegram, this page's #/t/<id>: B opens it below).
    assert.equal(await a.inputValue('#tour-link'), `${node.base}/#/t/cup1`);
    await a.click('#tour-join');
    await a.waitForSelector(`#tour-players li[data-player="${A.id}"]`);
    assert.match(await a.textContent('#tour-you-line'), /You are registered/);
    assert.ok(await a.locator('#tour-withdraw').count(), 'Withdraw offered once registered');

    // B: a link to the tournament (#/t/<id>), Join, then back to the lobby.
    const b = await openPage(browser, `${node.base}/#/t/cup1`);
    pages.push(b);
    const B = await playerOf(b);
    await b.waitForSelector('#tour-join');
    await b.click('#tour-join');
    await b.waitForSelector(`#tour-players li[data-player="${B.id}"]`);
    await until(node.base, 'cup1', (d) => d.players.length === 3, 'three registered');
    await b.click('#back');
    await b.waitForSelector('#bot-easy');

    // The start (registration closes): A's screen, read again every few seconds, shows his game.
    await a.waitForSelector('#play-my-game', { timeout: 30000 });
    let d = await tourOf(a);
    assert.equal(d.status, 'running');
    assert.deepEqual(d.bracket.seeds, [C.id, A.id, B.id], 'seeded in order of joining (equal ratings)');
    assert.equal(await a.getAttribute('#bracket [data-round="1"] [data-match="1"]', 'data-winner'), C.id, 'the first seed\u2019s bye');
    assert.equal(await a.getAttribute('#bracket [data-round="1"] [data-match="2"]', 'data-winner'), null, 'A against B: pending');
    assert.match(await a.textContent('#bracket [data-round="1"]'), /Semi-finals/);
    assert.match(await a.textContent('#bracket [data-round="2"]'), /Final/);
    const semi = d.myGame.roomId;
    assert.equal(await a.getAttribute('#play-my-game', 'data-room'), semi);
    assert.ok(await a.locator(`#tour-games [data-room="${semi}"]`).count(), 'the round\u2019s game listed');
    await screenshot(a, 'tournament-running');

    // B's lobby shows the waiting game; A opens his from the tournament screen.
    await b.waitForSelector('#play-next', { timeout: 15000 });
    assert.equal(await b.getAttribute('#play-next', 'data-room'), semi);
    await screenshot(b, 'tournament-lobby-banner');
    await b.click('#play-next');
    await a.click('#play-my-game');
    for (const p of [a, b]) await waitState(p, (s) => s.roomId === semi && s.seat, 'seated in the tournament game');
    await Promise.all([ready(a), ready(b)]);
    for (const p of [a, b]) await waitState(p, (s) => s.view?.phase === 'playing', 'the game to start');

    // A resigns; back from the room, he is on the tournament again: B won the match.
    await a.click('#resign');
    await a.click('#confirm-yes');
    await a.waitForSelector('#game-over');
    // No rematch in a tournament's game (the tournament pairs); the sheet's button goes back to it.
    assert.equal(await a.locator('#sheet-rematch, #rematch').count(), 0);
    assert.equal(await a.textContent('#play-again'), 'Tournament');
    await a.click('#play-again');
    await a.waitForFunction(() => window.__tabula.state.screen === 'tournament');
    await a.waitForFunction((bId) => document.querySelector('#bracket [data-round="1"] [data-match="2"]')?.dataset.winner === bId, B.id, { timeout: 15000 });
    await a.waitForFunction((aId) => document.querySelector(`#standings tr[data-player="${aId}"] td.wdl`)?.textContent === '0–0–1', A.id);
    assert.equal(await a.textContent(`#standings tr[data-player="${B.id}"] td.wdl`), '1–0–0');
    assert.ok(!(await a.locator('#play-my-game').count()), 'no game for A any more');

    // B: back from the room to the tournament, where the final waits: C never comes and forfeits.
    await b.waitForSelector('#game-over');
    await b.click('#close-result');
    await b.click('#leave');
    await b.waitForFunction(() => window.__tabula.state.screen === 'tournament');
    await b.waitForSelector('#play-my-game', { timeout: 15000 });
    d = await tourOf(b);
    assert.deepEqual([d.myGame.white, d.myGame.black].sort(), [B.id, C.id].sort(), 'the final: B against C');
    const final = d.myGame.roomId;
    await b.click('#play-my-game');
    await waitState(b, (s) => s.roomId === final && s.seat, 'seated in the final');
    await ready(b);

    // On A's screen: the champion, the final standings, the bracket's final.
    await a.waitForSelector('#tour-champion', { timeout: 60000 });
    assert.match(await a.textContent('#tour-champion'), /Champion/);
    await a.waitForFunction((bId) => document.querySelector('#bracket [data-round="2"] [data-match="1"]')?.dataset.winner === bId, B.id);
    d = await tourOf(a);
    assert.equal(d.champion, B.id);
    assert.equal(d.status, 'finished');
    await a.waitForFunction(() => /Final standings/.test(document.querySelector('#tour-standings h2')?.textContent));
    assert.equal(await a.getAttribute('#standings tbody tr:first-child', 'data-player'), B.id, 'the champion first');
    assert.equal(await a.locator('#tour-status').textContent(), 'Finished');
    await screenshot(a, 'tournament-finished');

    // 320×568: nothing wider than the screen (the bracket and the table scroll in their boxes), every button 44×44.
    await a.setViewportSize({ width: 320, height: 568 });
    assert.deepEqual(await fit(a), { small: [], overflow: false });
    await screenshot(a, 'tournament-finished-320');
    for (const p of pages) assert.deepEqual(p.errors, []);
  } finally {
    for (const p of pages) await p.context().close().catch(() => {});
    await node.stop();
  }
});

test('the create form, the list, and a refusal said clearly', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    const page = await openPage(browser, node.base);
    const me = await playerOf(page);
    await page.setViewportSize({ width: 320, height: 568 });
    // The lobby's four entries fit 320 px, their words whole.
    await page.waitForSelector('#open-tournaments');
    assert.deepEqual(await page.$$eval('#lobby-nav button', (bs) => bs.filter((b) => b.scrollWidth > b.clientWidth).map((b) => b.textContent)), []);
    await page.click('#open-tournaments');
    await page.waitForSelector('#tour-upcoming .empty');
    assert.deepEqual(await fit(page), { small: [], overflow: false });
    await page.click('#tour-create');
    await page.waitForSelector('#tour-form');
    // A Swiss of 3 rounds of short nardy, late joining until round 1, 8 players, in 30 minutes.
    await page.click('#tf-swiss');
    await page.waitForSelector('#tf-rounds');
    await page.selectOption('#tf-game', 'backgammon');
    await page.fill('#tf-points', '3');
    await page.selectOption('#tf-clock', 'blitz');
    await page.check('#tf-rated');
    await page.fill('#tf-start', '30');
    await page.fill('#tf-max', '8');
    await page.fill('#tf-rounds', '0');
    await page.click('#tf-submit');
    assert.match(await page.textContent('#tf-error'), /1 to 64 rounds/, 'a wrong field said before sending');
    await page.fill('#tf-rounds', '3');
    await page.fill('#tf-late', '1');
    assert.deepEqual(await fit(page), { small: [], overflow: false });
    await screenshot(page, 'tournament-create-320');
    const sent = Date.now();
    await page.click('#tf-submit');
    await page.waitForFunction(() => window.__tabula.state.screen === 'tournament' && window.__tabula.state.tour.data);
    const d = await tourOf(page);
    const stored = await api(node.base, 'GET', `/api/tournaments/${d.id}`);
    assert.deepEqual(stored.config.format, { type: 'swiss', rounds: 3, lateJoinUntilRound: 1 });
    assert.equal(stored.config.game, 'backgammon');
    assert.equal(stored.config.matchPoints, 3);
    assert.equal(stored.config.rated, true);
    assert.equal(stored.config.maxPlayers, 8);
    assert.ok(Math.abs(stored.config.startAtMs - (sent + 30 * 60000)) < 15000, 'starts in 30 minutes');
    assert.equal(await page.textContent('h1'), 'Swiss · 3 rounds');
    assert.equal(await page.textContent('#tour-game'), 'Short nardy');
    assert.match(await page.textContent('#tour-count'), /0 of 8/);
    // Back to the list: the new one is upcoming.
    await page.click('#back');
    await page.waitForSelector(`#tour-upcoming [data-tour="${d.id}"]`);
    assert.match(await page.textContent(`[data-tour="${d.id}"]`), /Swiss · 3 rounds · Short nardy.*0 players/);

    // A refusal: the page shows Join for a tournament of two that fills meanwhile.
    const other = await openPage(browser, node.base);
    const O = await playerOf(other);
    await other.context().close();
    await api(node.base, 'POST', '/api/tournaments', { id: 'pair', format: { type: 'knockout' }, game: 'thud', startAtMs: Date.now() + 3600000, maxPlayers: 2 }, bearer(O.token));
    await api(node.base, 'POST', '/api/tournaments/pair/join', undefined, bearer(O.token));
    await until(node.base, 'pair', (x) => x.players.length === 1, 'one registered');
    await page.click('#back');
    await page.waitForSelector('#bot-easy');
    await page.click('#open-tournaments');
    await page.click('[data-tour="pair"]');
    await page.waitForSelector('#tour-join');
    const third = await openPage(browser, node.base);
    const Th = await playerOf(third);
    await third.context().close();
    await api(node.base, 'POST', '/api/tournaments/pair/join', undefined, bearer(Th.token));
    await until(node.base, 'pair', (x) => x.players.length === 2, 'full');
    await page.click('#tour-join');
    await page.waitForFunction(() => document.querySelector('#tour-notice')?.textContent.length > 0);
    assert.equal(await page.textContent('#tour-notice'), 'Refused: the tournament is full.');
    assert.equal(await page.getAttribute('#tour-notice', 'role'), 'alert');
    assert.ok(!(await api(node.base, 'GET', '/api/tournaments/pair')).players.some((p) => p.player === me.id));
    await screenshot(page, 'tournament-refused-320');
    assert.deepEqual(page.errors, []);
    await page.context().close();
    // The bot's Mini App button in a private chat opens /?tournament=<id>.
    const linked = await openPage(browser, `${node.base}/?tournament=pair`);
    await linked.waitForSelector('#tour-players');
    assert.match(await linked.textContent('#tour-players'), /.+/);
    assert.deepEqual(linked.errors, []);
    await linked.context().close();
  } finally {
    await node.stop();
  }
});

test('an arena: joined late, its games being played, Pause and Resume; no write to the state outside a transition', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    // Three guests over HTTP: two play each other from the start, the third waits for someone.
    const guests = [];
    for (let i = 0; i < 3; i++) {
      const g = await openPage(browser, node.base);
      guests.push(await playerOf(g));
      await g.context().close();
    }
    await api(node.base, 'POST', '/api/tournaments', { id: 'ar', format: { type: 'arena', durationMs: 600000, rematchWaitMs: 0 }, game: 'backgammon', startAtMs: Date.now() + 2000, graceMs: 0 }, bearer(guests[0].token));
    for (const g of guests) await api(node.base, 'POST', '/api/tournaments/ar/join', undefined, bearer(g.token));
    await until(node.base, 'ar', (x) => x.status === 'running' && x.games.length === 1, 'the arena running, one game');
    // The page in strict mode: every write to the state outside a named transition is recorded.
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
    await ctx.addInitScript(() => { window.__tabulaStrict = true; });
    const page = await ctx.newPage();
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(String(e)));
    await page.goto(`${node.base}/`);
    const me = await playerOf(page);
    await page.click('#open-tournaments');
    await page.click('#tour-running [data-tour="ar"]');
    // Running, yet an arena takes late joiners.
    await page.waitForSelector('#tour-join');
    assert.match(await page.textContent('#tour-status'), /Running · ends in 10 min/);
    await page.click('#tour-join');
    await page.waitForSelector('#tour-pause');
    // Paired at once with the one waiting: his game, among those being played.
    await page.waitForSelector('#play-my-game', { timeout: 15000 });
    const d = await tourOf(page);
    assert.match(d.myGame.roomId, /^ar:a:\d+$/);
    assert.equal(await page.textContent('#tour-games-title'), 'Games being played');
    assert.ok(await page.locator(`#tour-games [data-room="${d.myGame.roomId}"]`).count());
    await page.click('#tour-pause');
    await page.waitForSelector('#tour-resume');
    assert.match(await page.textContent('#tour-you-line'), /You are paused/);
    assert.ok((await api(node.base, 'GET', '/api/tournaments/ar')).players.find((p) => p.player === me.id).paused);
    await page.click('#tour-resume');
    await page.waitForSelector('#tour-pause');
    assert.match(await page.textContent('#tour-you-line'), /You are registered/);
    // Withdraw asks first; cancelled, nothing changes.
    await page.click('#tour-withdraw');
    await page.click('#confirm-no');
    assert.ok(await page.locator('#tour-pause').count());
    await page.click('#back');
    await page.click('#back');
    await page.waitForSelector('#bot-easy');
    assert.deepEqual(await page.evaluate(() => window.__tabula.strays.map((s) => s.key)), []);
    assert.deepEqual(page.errors, []);
    await ctx.close();
  } finally {
    await node.stop();
  }
});

test('inside Telegram: start_param t_<id> opens the tournament, in Russian; its link is the Mini App\u2019s; the MainButton opens the player\u2019s game; the BackButton goes back', { timeout: 90000 }, async () => {
  const node = await startNode(undefined, { TABULA__AUTH__BOT_TOKEN: TG_BOT_TOKEN, TABULA__WEB__TELEGRAM_APP_URL: 'https://t.me/tabula_bot/play' });
  try {
    const initData = signInitData({ auth_date: String(Math.floor(Date.now() / 1000)), user: JSON.stringify({ id: 4901, first_name: 'Org' }) });
    const startAt = Date.now() + 12000;
    await api(node.base, 'POST', '/api/tournaments', { id: 'tgcup', format: { type: 'arena', durationMs: 1800000, rematchWaitMs: 10000 }, game: 'long_nardy', startAtMs: startAt, graceMs: 0 }, { 'x-telegram-init-data': initData });
    await api(node.base, 'POST', '/api/tournaments/tgcup/join', undefined, { 'x-telegram-init-data': initData });
    const page = await openTelegramPage(browser, node.base, { id: 4902, first_name: 'Рита', language_code: 'ru' }, { startParam: 't_tgcup' });
    await page.waitForFunction(() => window.__tabula.state.screen === 'tournament' && window.__tabula.state.tour?.data?.id === 'tgcup');
    await page.waitForSelector('#tour-join');
    assert.equal(await page.textContent('h1'), 'Арена · 30 мин');
    assert.equal(await page.textContent('#tour-game'), 'Длинные нарды');
    assert.equal(await page.textContent('#tour-join'), 'Записаться');
    assert.ok(!(await page.textContent('body')).includes('⟦'), 'nothing untranslated');
    // Its link is the Mini App's, as the bot's Join button; Share goes through Telegram's share sheet.
    await page.waitForFunction(() => document.querySelector('#tour-link')?.value.startsWith('https://t.me/'));
    assert.equal(await page.inputValue('#tour-link'), 'https://t.me/tabula_bot/play?startapp=t_tgcup');
    await page.click('#tour-share');
    const shared = await page.evaluate(() => window.__tg.calls.find((c) => c[0] === 'openTelegramLink')?.[1]);
    assert.ok(shared.startsWith('https://t.me/share/url?url=https%3A%2F%2Ft.me%2Ftabula_bot%2Fplay%3Fstartapp%3Dt_tgcup'), shared);
    await page.click('#tour-join');
    await page.waitForSelector('#tour-players li[data-player="tg:4902"]');
    // Registered before the start: Pause comes only while it runs.
    assert.ok(Date.now() < startAt - 500, 'still registering');
    assert.deepEqual(await page.$$eval('#tour-actions button', (bs) => bs.map((b) => b.id)), ['tour-withdraw']);
    // The start pairs the two: Telegram's MainButton is "Play your game" and opens the room.
    await page.waitForSelector('#play-my-game', { timeout: 30000 });
    assert.deepEqual(await page.$$eval('#tour-actions button', (bs) => bs.map((b) => b.id)), ['tour-withdraw', 'tour-pause']);
    const room = await page.getAttribute('#play-my-game', 'data-room');
    await page.waitForFunction(() => window.__tg.main.visible && window.__tg.main.text === 'Играть свою партию');
    await page.evaluate(() => window.__tg.main.f());
    await waitState(page, (st) => st.screen === 'room' && st.roomId === room && st.seat, 'seated in the arena game');
    // The BackButton: from the room to the tournament, then to the lobby.
    await page.evaluate(() => window.__tg.back.f());
    if (await page.locator('#confirm-yes').count()) await page.click('#confirm-yes');
    await page.waitForFunction(() => window.__tabula.state.screen === 'tournament');
    await page.evaluate(() => window.__tg.back.f());
    await page.waitForFunction(() => window.__tabula.state.screen === 'lobby');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  } finally {
    await node.stop();
  }
});

test('the lobby\u2019s banner from GET /api/me/tournaments for players who joined elsewhere (nothing in localStorage); the result on the profile, linked, in both languages', { timeout: 150000 }, async () => {
  const node = await startNode();
  const pages = [];
  try {
    // Two guests, joined over HTTP only (another device, a group's Join button): never opened here.
    const a = await openPage(browser, node.base);
    const b = await openPage(browser, node.base);
    pages.push(a, b);
    const A = await playerOf(a);
    const B = await playerOf(b);
    await api(node.base, 'POST', '/api/tournaments', { id: 'elsewhere', format: { type: 'knockout' }, game: 'backgammon', startAtMs: Date.now() + 4000, graceMs: 60000, timeControl: 'none' }, bearer(A.token));
    for (const p of [A, B]) await api(node.base, 'POST', '/api/tournaments/elsewhere/join', undefined, bearer(p.token));
    await until(node.base, 'elsewhere', (d) => d.players.length === 2, 'both registered');
    // The route reads the directory at most once a second per node (protocol.md): the lobby's own read may be that fresh.
    let mine;
    for (const end = Date.now() + 3000; Date.now() < end; await sleep(200)) {
      mine = await api(node.base, 'GET', '/api/me/tournaments', undefined, bearer(A.token));
      if (mine.upcoming.length) break;
    }
    assert.deepEqual(mine.upcoming.map((l) => l.id), ['elsewhere']);
    // Back in the lobby (the page opened anew): the server says he is in one; its game, once paired, is the banner.
    for (const p of [a, b]) {
      await p.reload();
      await p.waitForFunction(() => window.__tabula?.state?.player);
    }
    await a.waitForSelector('#play-next', { timeout: 30000 });
    await b.waitForSelector('#play-next', { timeout: 30000 });
    const room = await a.getAttribute('#play-next', 'data-room');
    assert.equal(room, 'elsewhere:1:1');
    assert.equal(await b.getAttribute('#play-next', 'data-room'), room);
    assert.match(await a.textContent('#tour-next'), /Knockout · Short nardy/);
    for (const p of [a, b]) assert.equal(await p.evaluate(() => localStorage.getItem('tabula.tournaments')), null, 'nothing remembered');
    await Promise.all([a.click('#play-next'), b.click('#play-next')]);
    for (const p of [a, b]) await waitState(p, (s) => s.roomId === room && s.seat, 'seated from the banner');
    await Promise.all([ready(a), ready(b)]);
    for (const p of [a, b]) await waitState(p, (s) => s.view?.phase === 'playing', 'the game to start');
    await a.click('#resign');
    await a.click('#confirm-yes');
    await a.waitForSelector('#game-over');
    await until(node.base, 'elsewhere', (d) => d.status === 'finished', 'the final over');

    // A's profile: the tournament, his place, a link to it.
    await a.goto(`${node.base}/`);
    await a.waitForFunction(() => window.__tabula?.state?.player);
    await a.click('#open-profile');
    const res = a.locator('#tour-results [data-tour="elsewhere"]');
    await res.waitFor({ timeout: 20000 });
    assert.equal(await res.getAttribute('data-place'), '2');
    assert.equal(await res.getAttribute('href'), '#/t/elsewhere');
    assert.match(await res.textContent(), /2nd of 2.*Knockout · Short nardy.*0 wins in 1 game/);
    assert.equal(await a.textContent('#tour-count'), 'Won 0 of 1 tournament');
    await screenshot(a, 'profile-tournaments');
    await res.click();
    await a.waitForFunction(() => window.__tabula.state.screen === 'tournament' && window.__tabula.state.tour?.id === 'elsewhere');
    await a.waitForSelector('#tour-champion');
    await a.click('#back');
    await a.waitForFunction(() => window.__tabula.state.screen === 'profile');
    // His history: the game, with a link to its tournament (once archived).
    await a.click('#back');
    await a.waitForFunction(() => window.__tabula.state.screen === 'lobby');
    for (const end = Date.now() + 15000; ;) {
      await a.click('#open-history');
      await a.waitForSelector('#history-list, #history-empty, #history-error');
      if (await a.locator('.h-tour[data-tour="elsewhere"]').count()) break;
      if (Date.now() > end) throw new Error(`the history never linked the tournament: ${await a.textContent('main')}`);
      await a.click('#back');
      await sleep(300);
    }
    assert.equal(await a.getAttribute('.history-row', 'data-room'), room);
    assert.equal(await a.textContent('.h-tour'), 'Played in the tournament elsewhere');
    await a.click('.h-tour');
    await a.waitForFunction(() => window.__tabula.state.screen === 'tournament' && window.__tabula.state.tour?.id === 'elsewhere');
    // B's, in Russian: the winner's cup.
    await b.evaluate(() => localStorage.setItem('tabula.lang', JSON.stringify('ru')));
    await b.goto(`${node.base}/`);
    await b.waitForFunction(() => window.__tabula?.state?.player);
    await b.click('#open-profile');
    const won = b.locator('#tour-results [data-tour="elsewhere"]');
    await won.waitFor({ timeout: 20000 });
    assert.match(await won.textContent(), /🏆 1-е место из 2.*На выбывание · Короткие нарды.*1 победа в 1 партии/);
    assert.equal(await b.textContent('#tour-count'), 'Побед в турнирах: 1 из 1');
    assert.ok(!(await b.textContent('body')).includes('⟦'), 'nothing untranslated');
    // The public profile says the same.
    const pub = await api(node.base, 'GET', `/api/players/${encodeURIComponent(B.id)}/profile`);
    assert.equal(pub.tournaments.won, 1);
    assert.equal(pub.tournaments.recent[0].id, 'elsewhere');
    for (const p of pages) assert.deepEqual(p.errors, []);
  } finally {
    for (const p of pages) await p.context().close().catch(() => {});
    await node.stop();
  }
});
