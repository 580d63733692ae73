// The small things of issue 46: the dice tumble in on a roll (not with
// reduced motion, not with "instant"), a double tap bears a checker off,
// and the board's colour themes in the settings (both languages).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, launch, api, waitState, tapToRoll, ready, screenshot } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** A page in a context of its own (`opts`: the context's), with every Web Animation's element class recorded. */
async function open(url, opts = {}, init = null) {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, ...opts });
  await ctx.addInitScript(() => {
    window.__anims = [];
    const animate = Element.prototype.animate;
    Element.prototype.animate = function (...args) {
      window.__anims.push(this.getAttribute('class') || this.tagName);
      return animate.apply(this, args);
    };
  });
  if (init) await ctx.addInitScript(init);
  const page = await ctx.newPage();
  page.setDefaultTimeout(15000);
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.__tabula?.state);
  page.ctx = ctx;
  return page;
}

const tumbles = (page) => page.evaluate(() => window.__anims.filter((c) => c === 'tumble').length);

test('the dice tumble in on each roll; not with reduced motion, not with "instant"', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    for (const [what, opts, init, expect] of [
      ['animated', {}, null, true],
      ['reduced motion', { reducedMotion: 'reduce' }, null, false],
      ['instant', {}, () => localStorage.setItem('tabula.speed', '"off"'), false],
    ]) {
      const room = await api(node.base, 'POST', '/api/rooms', { game: 'long_nardy', bot: { level: 'easy' }, options: { long: { opening: 'white_first' } } });
      const page = await open(`${node.base}/?join=${room.invite}`, opts, init);
      await waitState(page, (s) => s.seat === 'a' && s.view?.phase === 'playing' && s.view.toAct?.seat === 'a' && s.view.toAct.need === 'roll', 'our roll');
      assert.equal(await tumbles(page), 0, `${what}: nothing tumbles before the roll`);
      await tapToRoll(page, 'a');
      const n = await tumbles(page);
      if (expect) assert.ok(n >= 2, `${what}: both dice tumble (${n})`);
      else assert.equal(n, 0, `${what}: the dice just appear`);
      // Once settled, the dice stand square (the board measures them).
      await page.waitForTimeout(600);
      const turning = await page.evaluate(() => document.getAnimations().filter((a) => a.effect?.target?.classList?.contains('tumble') && a.playState === 'running').length);
      assert.equal(turning, 0, `${what}: the tumble is over within 0.6 s`);
      assert.deepEqual(page.errors, []);
      await page.ctx.close();
    }
  } finally {
    await node.stop();
  }
});

test('a double tap on a checker that may bear off bears it off', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    const room = await api(node.base, 'POST', '/api/rooms', {
      game: 'backgammon',
      bot: { level: 'easy' },
      startPosition: { turn: 'white', white: { 1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1 }, black: { 1: 3, 2: 3, 4: 3, 6: 3 }, bar: { white: 0, black: 1 }, off: { white: 9, black: 2 } },
    });
    const page = await open(`${node.base}/?join=${room.roomId}`);
    await ready(page);
    await waitState(page, (s) => s.view?.phase === 'playing' && s.view.toAct?.seat === 'a', 'our turn');
    await tapToRoll(page, 'a');
    await waitState(page, (s) => s.view.toAct?.need === 'move' && s.view.moves?.seat === 'a' && s.local, 'dice rolled');
    const from = await page.evaluate(() => {
      const m = window.__tabula.state.view.moves;
      const s = (m.firstSteps || []).find((x) => /off/.test(x));
      return s ? s.split('/')[0] : null;
    });
    assert.ok(from, 'bearing off is offered');
    await page.dblclick(`#board .checker.movable[data-point="${from}"]`);
    await waitState(page, (s) => s.local && s.local.steps === 1 && !s.local.asking, 'the checker borne off locally');
    const step = await page.evaluate(() => window.__tabula.state.local.groups[0].steps[0]);
    assert.deepEqual(step, [from, 'off'], 'one step, off the board');
    assert.deepEqual(page.errors, []);
    await page.ctx.close();
  } finally {
    await node.stop();
  }
});

test('board themes: chosen in the settings, kept across a reload, named in both languages', { timeout: 60000 }, async () => {
  const node = await startNode();
  try {
    const room = await api(node.base, 'POST', '/api/rooms', { game: 'long_nardy', bot: { level: 'easy' } });
    const page = await open(`${node.base}/?join=${room.invite}`);
    await page.waitForSelector('#board svg .felt');
    const felt = () => page.$eval('#board svg .felt', (e) => getComputedStyle(e).fill);
    const checker = () => page.$eval('#board svg .checker.black .body', (e) => getComputedStyle(e).fill);
    const classic = { felt: await felt(), checker: await checker() };
    await page.click('#settings');
    const names = await page.$$eval('#board-theme option', (os) => os.map((o) => [o.value, o.textContent]));
    assert.deepEqual(names.map(([v]) => v), ['classic', 'ocean', 'walnut']);
    assert.ok(names.every(([, n]) => n && !/^settings\./.test(n)), `named: ${JSON.stringify(names)}`);
    const seen = new Set([classic.felt]);
    for (const theme of ['ocean', 'walnut']) {
      await page.selectOption('#board-theme', theme);
      await page.waitForFunction((th) => document.documentElement.dataset.board === th, theme);
      seen.add(await felt());
    }
    assert.equal(seen.size, 3, `three felts: ${[...seen].join(', ')}`);
    assert.notEqual(await checker(), classic.checker, 'walnut\u2019s checkers are red');
    await screenshot(page, 'board-theme-walnut');
    await page.reload();
    await page.waitForSelector('#board svg .felt');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.board), 'walnut', 'kept');
    // In Russian.
    await page.evaluate(() => localStorage.setItem('tabula.lang', '"ru"'));
    await page.reload();
    await page.waitForSelector('#board svg .felt');
    await page.click('#settings');
    const ru = await page.$$eval('#board-theme option', (os) => os.map((o) => o.textContent));
    assert.deepEqual(ru, ['Классическая', 'Морская', 'Орех, красные шашки']);
    assert.deepEqual(page.errors, []);
    await page.ctx.close();
  } finally {
    await node.stop();
  }
});
