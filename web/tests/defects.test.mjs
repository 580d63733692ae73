// What a new player saw go wrong (issue 46), each checked in the browser:
// disabled buttons that look enabled, a clipped Russian prompt, clipped or
// run-together texts, truncated names and English generated names in
// Russian, Thud!'s result after a resignation and statistics rows that do
// not apply, the focus lost after the roll, Roll / Done and the result's
// buttons below the fold at 320×568, touch targets under 44×44 px.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, launch, appState, waitState, tapToRoll } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** A phone of `w`×`h` with touch, in `lang`. */
async function phone(url, w, h, lang) {
  const ctx = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: 1, hasTouch: true, isMobile: true });
  await ctx.addInitScript((l) => localStorage.setItem('tabula.lang', JSON.stringify(l)), lang);
  const page = await ctx.newPage();
  page.setDefaultTimeout(15000);
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.__tabula?.state);
  return page;
}

/** Visible buttons smaller than 44×44 px. */
const smallButtons = (page) => page.evaluate(() => [...document.querySelectorAll('button')]
  .filter((b) => b.offsetParent !== null && getComputedStyle(b).visibility !== 'hidden')
  .map((b) => ({ id: b.id || b.className || b.textContent.trim().slice(0, 20), w: Math.round(b.getBoundingClientRect().width), h: Math.round(b.getBoundingClientRect().height) }))
  .filter((b) => b.w < 44 || b.h < 44));

/** Whether the element is wholly inside the viewport as it stands (no scrolling). */
const aboveFold = (page, sel) => page.$eval(sel, (e) => {
  const r = e.getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight;
});

/** Names cut short (with an ellipsis or hidden overflow). */
const cutNames = (page) => page.$$eval('#players .who b', (bs) => bs.filter((b) => b.scrollWidth > b.clientWidth + 1 || b.scrollHeight > b.clientHeight + 1).map((b) => b.textContent));

for (const lang of ['ru', 'en']) {
  test(`the lobby at 320×568 (${lang}): selects whole, the levels apart, buttons side by side of one height, targets ≥ 44 px, the generated name in the language`, { timeout: 60000 }, async () => {
    const node = await startNode();
    try {
      const page = await phone(`${node.base}/`, 320, 568, lang);
      await page.waitForSelector('#bot-easy');
      await page.waitForFunction(() => window.__tabula.state.player && document.querySelector('#me')?.textContent);
      // Each select shows its choice whole.
      const clipped = await page.$$eval('select', (ss) => ss.filter((s) => s.offsetParent).map((s) => {
        const c = document.createElement('canvas').getContext('2d');
        const cs = getComputedStyle(s);
        c.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        const text = s.options[s.selectedIndex].text;
        const need = c.measureText(text).width + parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight) + 20;
        return need > s.clientWidth ? `${text} (${Math.round(need)} > ${s.clientWidth})` : null;
      }).filter(Boolean));
      assert.deepEqual(clipped, [], 'selects show their choice whole');
      // The levels' descriptions, each starting a line of its own (not run on after the one before).
      const starts = await page.$$eval('.levels-about > span', (ss) => ss.map((s) => Math.round(s.getClientRects()[0].left - s.parentElement.getBoundingClientRect().left - parseFloat(getComputedStyle(s.parentElement).paddingLeft))));
      assert.deepEqual(starts, [0, 0, 0], `each level starts a line: ${starts}`);
      const [qm, inv] = await Promise.all(['#quick-match', '#create-room'].map((s) => page.$eval(s, (e) => e.getBoundingClientRect().height)));
      assert.equal(Math.round(qm), Math.round(inv), 'quick match and invite of one height');
      assert.deepEqual(await smallButtons(page), [], 'every button at least 44×44');
      // A guest's generated name, in the page's language.
      const me = await page.textContent('#me');
      if (lang === 'ru') assert.ok(!/[A-Za-z]/.test(me), `the generated name in Russian: ${me}`);
      assert.deepEqual(page.errors, []);
    } finally {
      await node.stop();
    }
  });
}

test('long nardy against the computer at 320×568 in Russian: prompt whole, Roll and Done above the fold, focus on the board after the roll, Done and Undo look disabled, names whole, the result sheet\u2019s buttons above the fold and no Hits row', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    const page = await phone(`${node.base}/`, 320, 568, 'ru');
    await page.waitForSelector('#bot-easy');
    await page.selectOption('select[data-opt="opening"]', 'white_first');
    await page.click('#bot-easy');
    await waitState(page, (s) => s.view?.phase === 'playing' && s.view.toAct?.seat === s.seat && s.view.toAct.need === 'roll', 'my roll');
    await page.waitForSelector('#roll');
    // The board's prompt whole, inside the board.
    const prompt = await page.$eval('#board .prompt', (p) => {
      const r = p.getBoundingClientRect();
      const b = p.ownerSVGElement.getBoundingClientRect();
      return { text: p.textContent, inside: r.left >= b.left - 0.5 && r.right <= b.right + 0.5, r: [r.left, r.right, b.left, b.right].map(Math.round) };
    });
    assert.ok(prompt.inside, `the prompt "${prompt.text}" inside the board: ${prompt.r}`);
    assert.ok(await aboveFold(page, '#roll'), 'Roll above the fold at 320×568');
    assert.deepEqual(await cutNames(page), [], 'names whole');
    assert.deepEqual(await smallButtons(page), [], 'every button at least 44×44');
    // Rolled from the keyboard: the focus then lands on the board.
    await page.focus('#roll');
    await page.keyboard.press('Enter');
    await waitState(page, (s) => s.local && !s.local.asking, 'the local turn offered');
    await page.waitForSelector('#board .checker.movable');
    await page.waitForFunction(() => document.activeElement?.closest?.('#board'), null, { timeout: 3000 }).catch(() => {});
    assert.ok(await page.evaluate(() => Boolean(document.activeElement?.closest?.('#board'))), `after the roll the focus is on the board, not ${await page.evaluate(() => document.activeElement?.tagName)}`);
    // Done and Undo before they can act look disabled.
    const look = (sel) => page.$eval(sel, (e) => ({ disabled: e.disabled, opacity: Number(getComputedStyle(e).opacity), bg: getComputedStyle(e).backgroundColor }));
    const [undo0, done0] = [await look('#undo'), await look('#done')];
    assert.ok(undo0.disabled && done0.disabled);
    assert.ok(undo0.opacity <= 0.5 && done0.opacity <= 0.5, `disabled Undo and Done faded: ${JSON.stringify([undo0, done0])}`);
    assert.ok(await aboveFold(page, '#done'), 'Done above the fold at 320×568');
    // A whole turn laid out: Done enabled and looking it.
    for (let i = 0; i < 6 && !(await appState(page)).local.complete; i++) {
      const before = (await appState(page)).local.steps;
      await page.locator('#board .checker.movable').last().click();
      await page.waitForSelector('#board .point.target, #board .tray.target');
      const target = (await page.locator('#board .point.target').count()) ? page.locator('#board .point.target').first() : page.locator('#board .tray.target');
      const box = await target.boundingBox();
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      await waitState(page, (s) => s.local && !s.local.asking && s.local.steps > before, 'the step played locally');
    }
    const done1 = await look('#done');
    assert.ok(!done1.disabled && done1.opacity === 1 && done1.bg !== done0.bg, `enabled Done looks enabled: ${JSON.stringify([done0, done1])}`);
    assert.ok(await aboveFold(page, '#done'), 'Done above the fold with the turn laid out');
    // Resign: the result sheet's main buttons above the fold; long nardy has no Hits row.
    await page.click('#resign');
    await page.click('#confirm-yes');
    await page.waitForSelector('#game-over #summary');
    for (const sel of ['#play-again', '#close-result']) assert.ok(await aboveFold(page, sel), `${sel} above the fold`);
    assert.doesNotMatch(await page.textContent('#summary'), /Битых|Hits/, 'no Hits row in long nardy');
    assert.deepEqual(await smallButtons(page), [], 'every button of the result sheet at least 44×44');
    assert.deepEqual(page.errors, []);
  } finally {
    await node.stop();
  }
});

test('Thud! resigned against the computer: no "lost on total points, 0 to 0", no mars in its statistics', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    const page = await phone(`${node.base}/`, 390, 844, 'en');
    await page.waitForSelector('#bot-easy');
    await page.click('button[data-game="thud"]');
    await page.click('#bot-easy');
    await waitState(page, (s) => s.view?.phase === 'playing', 'the game to start');
    await page.click('#resign');
    await page.click('#confirm-yes');
    await page.waitForSelector('#game-over');
    await page.waitForSelector('#game-over #my-stats');
    const sheet = await page.textContent('#game-over');
    assert.doesNotMatch(sheet, /total points/, `the result of a resignation is not a count of points: ${sheet}`);
    assert.doesNotMatch(await page.textContent('#my-stats'), /mars/i, 'Thud! statistics without mars');
    await page.click('#close-result');
    await page.click('#leave');
    await page.waitForSelector('#lobby-stats');
    assert.doesNotMatch(await page.textContent('#lobby-stats'), /mars/i, 'the lobby\u2019s Thud! statistics without mars');
    assert.deepEqual(page.errors, []);
  } finally {
    await node.stop();
  }
});
