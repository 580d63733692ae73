// The board on a phone: sizes measured on the drawn board at 390×844 and
// 844×390, the contrast of its markings and text in both themes, keyboard
// and screen-reader labels, screenshots at four sizes, and an axe-core
// audit of the lobby and of a game in progress.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startNode, launch, openPage, api, screenshot, appState, waitState, playDiceTurn, tapToRoll, ready } from './helpers.mjs';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** A page of its own (own guest) at a phone's size, in a colour scheme. */
async function phone(url, width, height, colorScheme = 'light') {
  const ctx = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, colorScheme });
  const page = await openPage(browser, url, { context: () => ctx });
  page.ctx = ctx;
  return page;
}

async function botGame(page, game = 'long_nardy') {
  await page.click(`button[data-game="${game}"]`);
  await page.click('#bot-easy');
  await ready(page);
  await waitState(page, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start');
}

/**
 * Plays turns until it is our move with the dice out, after the computer
 * has moved (its last move marked); then selects a checker so that its
 * targets show. `onRoll` runs on the way while it is our turn to roll,
 * `onDice` once the dice are out and the movable checkers marked, before
 * one is selected (the dice may leave only one checker movable).
 */
async function toMoveWithTargets(page, onRoll, onDice) {
  await playDiceTurn(page);
  await waitState(page, (s) => s.view.phase !== 'playing' || (s.view.toAct?.seat === 'a' && s.view.toAct.need === 'roll'), 'our turn to roll');
  await page.waitForSelector('#board .last-to, #board .last-from');
  if (onRoll) await onRoll();
  await tapToRoll(page, 'a');
  await waitState(page, (s) => s.view.toAct?.need === 'move' && s.view.moves?.seat === 'a', 'dice rolled');
  await page.waitForSelector('#board .checker.movable');
  if (onDice) await onDice();
  await page.locator('#board .checker.movable').last().click();
  await page.waitForSelector('#board .point.target, #board .tray.target');
}

// In-page colour arithmetic (WCAG 2 relative luminance and contrast ratio).
const COLOUR = `
  window.__c = (() => {
    const rgb = (s) => {
      const m = /rgba?\\(([^)]+)\\)/.exec(s);
      if (!m) throw new Error('not a colour: ' + s);
      const [r, g, b] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
      return [r, g, b];
    };
    const lum = (s) => {
      const [r, g, b] = rgb(s).map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const css = (sel, prop) => { const e = document.querySelector(sel); if (!e) return null; return getComputedStyle(e)[prop]; };
    /** A two-tone marking (core and halo) against each surrounding colour: the better of the two. */
    const twoTone = (core, halo, around) => Math.min(ratio(core, halo), ...around.filter(Boolean).map((s) => Math.max(ratio(core, s), ratio(halo, s))));
    return { ratio, css, twoTone };
  })();`;

/** The nardy board's markings and text, as contrast ratios (what they are drawn in, against what is around them). */
async function nardyContrast(page) {
  await page.addScriptTag({ content: COLOUR });
  return page.evaluate(() => {
    const { ratio, css, twoTone } = window.__c;
    const frame = css('#board .frame', 'fill');
    const felt = css('#board .felt', 'fill');
    const ptA = css('#board .tri.pt-a', 'fill');
    const ptB = css('#board .tri.pt-b', 'fill');
    const white = css('#board .checker.white .body', 'fill');
    const black = css('#board .checker.black .body', 'fill');
    const out = { colours: {} };
    const ringOn = (sel) => {
      const g = document.querySelector(sel);
      if (!g) return null;
      return ratio(getComputedStyle(g.querySelector('.ring')).stroke, getComputedStyle(g.querySelector('.body')).fill);
    };
    out.movable = ringOn('#board .checker.movable:not(.selected)');
    out.selected = ringOn('#board .checker.selected');
    out.colours.movable = css('#board .checker.movable:not(.selected) .ring', 'stroke');
    if (document.querySelector('#board .tmark.ring')) {
      const core = css('#board .tmark.ring', 'stroke');
      const halo = css('#board .tmark-halo.ring', 'stroke');
      out.target = twoTone(core, halo, [felt, ptA, ptB, white, black]);
      out.targetOutline = twoTone(css('#board .tmark.outline', 'stroke'), css('#board .tmark-halo.outline', 'stroke'), [felt, ptA, ptB, white, black]);
      out.colours.target = core;
    }
    if (document.querySelector('#board .tray.target')) {
      const core = css('#board .tmark.arrow', 'stroke');
      out.trayTarget = twoTone(core, css('#board .tmark-halo.arrow', 'stroke'), [css('#tray .tray-bg', 'fill'), frame, white, black]);
    }
    if (document.querySelector('#tray.glow:not(.target)')) out.homeGlow = Math.min(ratio(css('#tray .tray-bg', 'stroke'), css('#tray .tray-bg', 'fill')), ratio(css('#tray .tray-bg', 'stroke'), frame));
    if (document.querySelector('#board .last-to')) {
      out.lastTo = ratio(css('#board .last-to', 'fill'), frame);
      out.colours.last = css('#board .last-to', 'fill');
      const onLast = document.querySelector('#board .num.on-last');
      if (onLast) out.textOnLast = ratio(getComputedStyle(onLast).fill, css('#board .last-to', 'fill'));
    }
    if (document.querySelector('#board .last-from')) out.lastFrom = ratio(css('#board .last-from', 'stroke'), frame);
    out.numbers = ratio(css('#board .num:not(.on-last)', 'fill'), frame);
    if (document.querySelector('#board .count.white')) out.countOnWhite = ratio(css('#board .count.white', 'fill'), white);
    if (document.querySelector('#board .count.black')) out.countOnBlack = ratio(css('#board .count.black', 'fill'), black);
    if (document.querySelector('#board .prompt')) out.prompt = ratio(css('#board .prompt', 'fill'), felt);
    if (document.querySelector('#board .die-face')) {
      out.diePips = ratio(css('#board .die .pip', 'fill'), css('#board .die-face', 'fill'));
      out.dieOnFelt = ratio(css('#board .die-face', 'fill'), felt);
    }
    // Checkers against the points and the felt (the better of fill and edge, as for any two-tone shape).
    out.checkers = Math.min(
      twoTone(white, css('#board .checker.white .body', 'stroke'), [felt, ptA, ptB]),
      twoTone(black, css('#board .checker.black .body', 'stroke'), [felt, ptA, ptB]),
    );
    return out;
  });
}

const round = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'number' ? Math.round(v * 100) / 100 : v]));

function assertContrast(c, what) {
  const markings = ['movable', 'selected', 'target', 'targetOutline', 'trayTarget', 'homeGlow', 'lastTo', 'lastFrom', 'diePips', 'dieOnFelt', 'checkers'];
  const text = ['numbers', 'textOnLast', 'countOnWhite', 'countOnBlack', 'prompt'];
  for (const k of markings) if (c[k] != null) assert.ok(c[k] >= 3, `${what}: ${k} ${c[k].toFixed(2)}:1 < 3:1`);
  for (const k of text) if (c[k] != null) assert.ok(c[k] >= 4.5, `${what}: text ${k} ${c[k].toFixed(2)}:1 < 4.5:1`);
}

test('portrait 390×844: the board is the whole width, checkers ≥ 32 px, dice ≥ 36 px, numbers ≥ 11 px; markings and text in contrast in both themes', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    const page = await phone(`${node.base}/?guest=paula`, 390, 844);
    await botGame(page);
    let prompt = null;
    // The movable ring, measured before a checker is selected: where the
    // dice leave one checker movable, none is left unselected after.
    const movable = {};
    await toMoveWithTargets(
      page,
      async () => {
        prompt = await nardyContrast(page);
      },
      async () => {
        for (const scheme of ['dark', 'light']) {
          await page.emulateMedia({ colorScheme: scheme });
          await page.waitForFunction((t) => document.documentElement.dataset.theme === t, scheme);
          const c = await nardyContrast(page);
          movable[scheme] = { ratio: c.movable, colour: c.colours.movable };
        }
      },
    );
    const m = await page.evaluate(() => {
      const svg = document.querySelector('#board svg');
      const box = svg.getBoundingClientRect();
      const scale = svg.getScreenCTM().a;
      const checker = document.querySelector('#board .checker .body').getBoundingClientRect();
      const die = document.querySelector('#board .die-face').getBoundingClientRect();
      const num = parseFloat(getComputedStyle(document.querySelector('#board .num')).fontSize) * scale;
      const status = document.querySelector('#status').getBoundingClientRect();
      return { width: box.width, height: box.height, bottom: box.bottom, checker: checker.width, die: die.width, num, statusTop: status.top, vw: innerWidth };
    });
    console.log(`# 390×844: board ${m.width.toFixed(0)}×${m.height.toFixed(0)} px, checker ${m.checker.toFixed(1)} px, die ${m.die.toFixed(1)} px, point numbers ${m.num.toFixed(1)} px`);
    assert.ok(m.width >= m.vw - 1, `the board is the whole width: ${m.width} of ${m.vw}`);
    assert.ok(m.checker >= 32, `checker ${m.checker} px`);
    assert.ok(m.die >= 36, `die ${m.die} px`);
    assert.ok(m.num >= 11, `point numbers ${m.num} px`);
    assert.ok(m.statusTop >= m.bottom - 1 && m.statusTop < 844, 'status right below the board');

    // Each marking its own colour and shape.
    const light = { ...(await nardyContrast(page)), prompt: prompt.prompt };
    light.movable ??= movable.light.ratio;
    light.colours.movable ??= movable.light.colour;
    console.log(`# light theme contrast: ${JSON.stringify(round({ ...light, colours: undefined }))}`);
    assert.ok(light.movable && light.selected && light.target && light.lastTo, `all the markings are drawn: ${JSON.stringify(light)}`);
    const cols = light.colours;
    assert.equal(new Set([cols.movable, cols.target, cols.last]).size, 3, `three colours: ${JSON.stringify(cols)}`);
    assertContrast(light, 'light');
    await screenshot(page, 'board-390x844');

    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    const dark = await nardyContrast(page);
    dark.prompt = null;
    dark.movable ??= movable.dark.ratio;
    assert.ok(dark.movable, 'the movable ring is drawn in the dark theme');
    console.log(`# dark theme contrast: ${JSON.stringify(round({ ...dark, colours: undefined }))}`);
    assertContrast(dark, 'dark');
    await screenshot(page, 'board-390x844-dark');
    // The prompt on the dark felt.
    await page.addScriptTag({ content: COLOUR });
    const darkPrompt = await page.evaluate(() => {
      const t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
      t.setAttribute('class', 'prompt');
      document.querySelector('#board svg').appendChild(t);
      const r = window.__c.ratio(getComputedStyle(t).fill, window.__c.css('#board .felt', 'fill'));
      t.remove();
      return r;
    });
    assert.ok(darkPrompt >= 4.5, `dark prompt ${darkPrompt}`);
    assert.deepEqual(page.errors, []);
    await page.ctx.close();
  } finally {
    await node.stop();
  }
});

test('landscape 844×390: the board fills the height, players, status, controls and chat at its side', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    const page = await phone(`${node.base}/?guest=lana`, 844, 390);
    await botGame(page);
    await toMoveWithTargets(page);
    const m = await page.evaluate(() => {
      const r = (s) => document.querySelector(s).getBoundingClientRect();
      return {
        board: r('#board svg').toJSON(),
        checker: r('#board .checker .body').width,
        die: r('#board .die-face').width,
        players: r('#players').toJSON(),
        status: r('#status').toJSON(),
        controls: r('#controls').toJSON(),
        chat: r('#chat-input').toJSON(),
        layout: document.querySelector('#board svg').dataset.layout,
        scrolls: document.documentElement.scrollHeight > innerHeight + 1,
      };
    });
    console.log(`# 844×390: board ${m.board.width.toFixed(0)}×${m.board.height.toFixed(0)} px (${m.layout}), checker ${m.checker.toFixed(1)} px, die ${m.die.toFixed(1)} px`);
    assert.equal(m.layout, 'wide');
    assert.ok(m.board.height >= 0.9 * 390, `the board fills the height: ${m.board.height} of 390`);
    assert.ok(m.board.top >= 0 && m.board.bottom <= 390, 'and stays inside it');
    for (const k of ['players', 'status', 'controls', 'chat']) {
      assert.ok(m[k].left >= m.board.right, `${k} at the board's side (${m[k].left} ≥ ${m.board.right})`);
      assert.ok(m[k].bottom <= 390 && m[k].height > 0, `${k} on screen`);
    }
    assert.ok(!m.scrolls, 'nothing below the fold');
    assertContrast(await nardyContrast(page), 'landscape');
    await screenshot(page, 'board-844x390');
    assert.deepEqual(page.errors, []);
    await page.ctx.close();
  } finally {
    await node.stop();
  }
});

test('screenshots of a game in progress at 320×568 and 1280×800; bearing off: the tray as a target, in contrast', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    for (const [w, h] of [[320, 568], [1280, 800]]) {
      const page = await phone(`${node.base}/`, w, h);
      await botGame(page);
      await toMoveWithTargets(page);
      const m = await page.evaluate(() => ({ board: document.querySelector('#board svg').getBoundingClientRect().toJSON(), checker: document.querySelector('#board .checker .body').getBoundingClientRect().width }));
      console.log(`# ${w}×${h}: board ${m.board.width.toFixed(0)}×${m.board.height.toFixed(0)} px, checker ${m.checker.toFixed(1)} px`);
      if (w < h) assert.ok(m.board.width >= w - 1, 'portrait: the whole width');
      else assert.ok(m.board.height >= 0.9 * h, 'landscape: the whole height');
      await screenshot(page, `board-${w}x${h}`);
      assert.deepEqual(page.errors, []);
      await page.ctx.close();
    }
    // Bearing off (short nardy, every checker home): the tray is a target with its own marking.
    // One white checker on each home point, so every roll (4-4 too) may bear off at once.
    for (const [w, h, scheme] of [[390, 844, 'light'], [844, 390, 'dark']]) {
      const room = await api(node.base, 'POST', '/api/rooms', {
        game: 'backgammon',
        bot: { level: 'easy' },
        startPosition: { turn: 'white', white: { 1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1 }, black: { 1: 3, 2: 3, 4: 3, 6: 3 }, bar: { white: 0, black: 1 }, off: { white: 9, black: 2 } },
      });
      const page = await phone(`${node.base}/?join=${room.roomId}`, w, h, scheme);
      await ready(page);
      await waitState(page, (s) => s.view?.phase === 'playing' && s.view.toAct?.seat === 'a', 'our turn');
      await page.waitForSelector('#tray.glow');
      await tapToRoll(page, 'a');
      await waitState(page, (s) => s.view.toAct?.need === 'move' && s.view.moves?.seat === 'a', 'dice rolled');
      // A checker that may bear off.
      const from = await page.evaluate(() => {
        const m = window.__tabula.state.view.moves;
        const s = (m.firstSteps || []).find((x) => /off/.test(x));
        return s ? s.split('/')[0] : null;
      });
      assert.ok(from, 'bearing off is offered');
      await page.click(`#board .checker.movable[data-point="${from}"]`);
      await page.waitForSelector('#board .tray.target');
      assert.equal(await page.getAttribute('#tray', 'role'), 'button');
      assert.match(await page.getAttribute('#tray', 'aria-label'), /bear off/i);
      assert.match(await page.getAttribute('#board .bar-stack', 'aria-label'), /^Bar: 1 black checker$/);
      const c = await nardyContrast(page);
      console.log(`# bearing off ${w}×${h} ${scheme}: tray target ${c.trayTarget.toFixed(2)}:1, landing ring ${c.target?.toFixed(2)}:1`);
      assertContrast(c, `bear-off ${scheme}`);
      await screenshot(page, `board-bear-off-${w}x${h}-${scheme}`);
      assert.deepEqual(page.errors, []);
      await page.ctx.close();
    }
  } finally {
    await node.stop();
  }
});

test('keyboard and screen readers: labelled points, checkers, dice and trays; movable checkers and targets are focusable buttons', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    const page = await phone(`${node.base}/?guest=kira`, 390, 844);
    await botGame(page);
    await toMoveWithTargets(page);
    const a = await page.evaluate(() => {
      const q = (s) => [...document.querySelectorAll(s)];
      const lab = (e) => e.getAttribute('aria-label');
      return {
        board: lab(document.querySelector('#board svg')),
        points: q('#board .point:not(.target)').map(lab),
        targets: q('#board .point.target').map((e) => [lab(e), e.getAttribute('role'), e.getAttribute('tabindex'), e.dataset.point]),
        movable: q('#board .checker.movable').map((e) => [lab(e), e.getAttribute('role'), e.getAttribute('tabindex'), e.dataset.point]),
        hidden: q('#board .checker:not(.movable):not(.selected)').every((e) => e.getAttribute('aria-hidden') === 'true' && !e.hasAttribute('tabindex')),
        dice: q('#board .die').map(lab),
        trays: q('#board .tray').map(lab),
      };
    });
    assert.match(a.board, /^Long nardy board, you play white$/);
    assert.ok(a.points.every((l) => /^Point \d+, (empty|\d+ (white|black) checkers?)/.test(l)), a.points.join(' | '));
    assert.ok(a.points.some((l) => /^Point \d+, \d+ black checkers?/.test(l)));
    assert.ok(a.targets.length > 0 && a.targets.every(([l, role, ti, p]) => l === `Target: point ${p}` && role === 'button' && ti === '0'), JSON.stringify(a.targets));
    assert.ok(a.movable.length > 0 && a.movable.every(([l, role, ti, p]) => new RegExp(`^(Your checker|One of your \\d+ checkers) on point ${p}, (movable|selected)$`).test(l) && role === 'button' && ti === '0'), JSON.stringify(a.movable));
    assert.ok(a.hidden, 'the other checkers are told by their point');
    assert.ok(a.dice.length >= 2 && a.dice.every((l) => /^Die: [1-6](, used)?$/.test(l)), a.dice.join(' | '));
    assert.deepEqual(a.trays.map((l) => /tray: \d+ checkers? borne off$/.test(l)), [true, true], a.trays.join(' | '));

    // Tab reaches the board's buttons; the focused one shows a visible ring.
    let focused = null;
    for (let i = 0; i < 60 && !focused; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => {
        const e = document.activeElement;
        if (!e?.closest('#board')) return null;
        const ring = e.querySelector('.focus, .hit, .tray-bg');
        return { key: e.dataset.key, visible: e.matches(':focus-visible'), stroke: getComputedStyle(ring).stroke, width: getComputedStyle(ring).strokeWidth };
      });
    }
    assert.ok(focused, 'Tab reaches the board');
    assert.ok(focused.visible && focused.stroke !== 'none' && parseFloat(focused.width) >= 2, `a visible focus ring: ${JSON.stringify(focused)}`);
    // Arrow keys move among the board's buttons.
    await page.keyboard.press('ArrowRight');
    const next = await page.evaluate(() => document.activeElement?.dataset.key);
    assert.ok(next && next !== focused.key, `ArrowRight moved the focus (${focused.key} → ${next})`);
    // A tap on a focused checker (what Enter will do) selects it and the focus goes on to its first target.
    const movableKey = await page.evaluate(() => [...document.querySelectorAll('#board .checker.movable:not(.selected)')].find((e) => !document.querySelector(`#board .point.target[data-point="${e.dataset.point}"]`))?.dataset.key);
    if (movableKey) {
      await page.focus(`#board [data-key="${movableKey}"]`);
      await page.evaluate(() => {
        const e = document.activeElement;
        const r = e.getBoundingClientRect();
        const o = { bubbles: true, clientX: r.x + r.width / 2, clientY: r.y + r.height / 2, pointerId: 1 };
        e.dispatchEvent(new PointerEvent('pointerdown', o));
        e.dispatchEvent(new PointerEvent('pointerup', o));
      });
      await page.waitForFunction((k) => window.__tabula.state.sel === k.slice(2), movableKey);
      const after = await page.evaluate(() => document.activeElement?.closest('.point.target, .tray.target') ? document.activeElement.dataset.key : document.activeElement?.tagName);
      assert.match(after, /^(t:\d+|off)$/, 'focus on a target after selecting');
    }
    assert.deepEqual(page.errors, []);
    await page.ctx.close();
  } finally {
    await node.stop();
  }
});

test('the renderers alone: every step of the last turn marked, labels from opts.label with English where it has none, both layouts', { timeout: 60000 }, async () => {
  const node = await startNode();
  try {
    const page = await phone(`${node.base}/`, 390, 844);
    const r = await page.evaluate(async () => {
      const { renderNardy, geometry } = await import('/boards/nardy.js');
      const { renderThud } = await import('/boards/thud.js');
      const box = document.createElement('div');
      document.body.append(box);
      const asked = [];
      const label = (key, p) => {
        asked.push(key);
        return key === 'point' ? `Пункт ${p.n}` : key === 'board' ? 'Доска' : null;
      };
      const o = {
        game: 'long_nardy',
        position: { white: { 24: 13, 13: 1, 18: 1 }, black: { 12: 15 } },
        seat: 'a',
        dice: [6, 5],
        diceLeft: [],
        movable: new Set(),
        targets: new Map(),
        lastTurn: [{ seat: 'a', from: '24', to: '18' }, { seat: 'a', from: '18', to: '13' }, { seat: 'a', from: '24', to: '18' }],
        lastMove: { seat: 'a', from: '24', to: '18' },
        label,
      };
      const out = {};
      for (const layout of ['tall', 'wide']) {
        const svg = renderNardy(box, { ...o, layout });
        const vb = svg.getAttribute('viewBox').split(' ').map(Number);
        out[layout] = {
          viewBox: vb.slice(2),
          geometry: [geometry(layout).W, geometry(layout).H],
          from: [...svg.querySelectorAll('.point:has(.last-from)')].map((e) => e.dataset.point).sort(),
          to: [...svg.querySelectorAll('.point:has(.last-to)')].map((e) => e.dataset.point).sort(),
          board: svg.getAttribute('aria-label'),
          point: svg.querySelector('.point[data-point="13"]').getAttribute('aria-label'),
          die: svg.querySelector('.die').getAttribute('aria-label'),
          tray: svg.querySelector('#tray').getAttribute('aria-label'),
          trayRight: svg.querySelector('#tray .tray-bg').getBBox().x > 12 * 31,
        };
      }
      const thud = renderThud(box, { position: { dwarfs: ['f1'], trolls: ['h9'] }, legalMoves: ['Df1-f2'], mine: 'dwarfs', myTurn: true, targets: new Map(), label: (k) => (k === 'piece' ? 'Гном' : null) });
      out.thud = { board: thud.getAttribute('aria-label'), piece: thud.querySelector('.piece.movable').getAttribute('aria-label'), role: thud.querySelector('.piece.movable').getAttribute('role'), troll: thud.querySelector('.sq[data-sq="h9"]').getAttribute('aria-label') };
      out.asked = [...new Set(asked)].sort();
      box.remove();
      return out;
    });
    for (const layout of ['tall', 'wide']) {
      const x = r[layout];
      assert.deepEqual(x.viewBox, x.geometry, `${layout}: the viewBox is the layout's`);
      assert.deepEqual(x.from, ['18', '24'], `${layout}: every "from" of the turn`);
      assert.deepEqual(x.to, ['13', '18'], `${layout}: every "to" of the turn`);
      assert.equal(x.board, 'Доска');
      assert.equal(x.point, 'Пункт 13');
      assert.equal(x.die, 'Die: 6, used', 'English where the label function has nothing');
      assert.equal(x.tray, 'Your tray: 0 checkers borne off');
      assert.equal(x.trayRight, layout === 'wide', `${layout}: the tray ${layout === 'wide' ? 'at the right' : 'a band'}`);
    }
    assert.ok(r.tall.viewBox[1] > r.tall.viewBox[0] && r.wide.viewBox[0] > r.wide.viewBox[1], 'tall is taller than wide, wide is wider than tall');
    assert.deepEqual(r.thud, { board: 'Thud! board, you play the dwarfs', piece: 'Гном', role: 'button', troll: 'h9: troll' });
    assert.deepEqual(r.asked, ['board', 'die', 'point', 'tray'], 'the label function is asked for each kind drawn');
    assert.deepEqual(page.errors, []);
    await page.ctx.close();
  } finally {
    await node.stop();
  }
});

test('Thud! on a phone: the whole width in portrait, the whole height in landscape; its markings in contrast', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    for (const [w, h, scheme] of [[390, 844, 'light'], [844, 390, 'dark']]) {
      const page = await phone(`${node.base}/`, w, h, scheme);
      await botGame(page, 'thud');
      await waitState(page, (s) => s.view.toAct?.seat === s.seat && s.view.board.legalMoves?.length, 'our move');
      // Play one move so that the last move is marked, then select a piece.
      let st = await appState(page);
      if (st.view.board.dwarfs !== st.seat) {
        // We are the trolls: the dwarfs (the computer) moved first.
      } else {
        const first = st.view.board.legalMoves[0];
        const [, , from, to] = /^([DT])([a-o]\d+)[-x]([a-o]\d+)/.exec(first);
        await page.click(`#board .piece[data-sq="${from}"]`);
        await page.click(`#board .sq[data-sq="${to}"] rect`);
        const chooser = await page.$(`#controls .choose button:text-is("${first}")`);
        if (chooser) await chooser.click();
        // Our move, then the computer's: a state whose legal moves still
        // hold the move we played is one from before ours (a move's
        // events can bump the version twice before the turn passes).
        await waitState(page, (s) => s.view.toAct?.seat === s.seat && s.view.board.legalMoves?.length && s.version > st.version + 1 && !s.view.board.legalMoves.includes(first), 'the computer to answer');
      }
      st = await appState(page);
      await page.waitForSelector('#board .last-to');
      const from = /^[DT]([a-o]\d+)/.exec(st.view.board.legalMoves[0])[1];
      await page.click(`#board .piece[data-sq="${from}"]`);
      await page.waitForSelector('#board .sq.target');
      await page.addScriptTag({ content: COLOUR });
      const m = await page.evaluate(() => {
        const { ratio, css, twoTone } = window.__c;
        const light = css('#board .cell.light', 'fill');
        const dark = css('#board .cell.dark', 'fill');
        const body = (k) => css(`#board .piece.${k} .body`, 'fill');
        const ringOn = (e) => e && ratio(getComputedStyle(e.querySelector('.ring')).stroke, getComputedStyle(e.querySelector('.body')).fill);
        const mov = document.querySelector('#board .piece.movable:not(.selected)');
        const box = document.querySelector('#board svg').getBoundingClientRect().toJSON();
        return {
          box,
          side: document.querySelector('#status').getBoundingClientRect().left,
          movable: ringOn(mov),
          selected: ringOn(document.querySelector('#board .piece.selected')),
          target: twoTone(css('#board .dot', 'fill'), css('#board .dot-halo', 'stroke'), [light, dark, body('dwarf'), body('troll')]),
          lastTo: Math.min(ratio(css('#board .last-to', 'stroke'), light), ratio(css('#board .last-to', 'stroke'), dark)),
          lastFrom: document.querySelector('#board .last-from') ? Math.min(ratio(css('#board .last-from', 'stroke'), light), ratio(css('#board .last-from', 'stroke'), dark)) : null,
          labels: ratio(css('#board .num', 'fill'), css('#board .frame', 'fill')),
          targetLabel: document.querySelector('#board .sq.target').getAttribute('aria-label'),
          pieceLabel: mov?.getAttribute('aria-label'),
          role: mov?.getAttribute('role'),
        };
      });
      console.log(`# thud ${w}×${h} ${scheme}: board ${m.box.width.toFixed(0)}×${m.box.height.toFixed(0)} px; contrast ${JSON.stringify(round({ movable: m.movable, selected: m.selected, target: m.target, lastTo: m.lastTo, lastFrom: m.lastFrom, labels: m.labels }))}`);
      if (w < h) assert.ok(m.box.width >= w - 1, `portrait: the whole width (${m.box.width})`);
      else {
        assert.ok(m.box.height >= 0.9 * h, `landscape: the whole height (${m.box.height})`);
        assert.ok(m.side >= m.box.right, 'status at the side');
      }
      for (const k of ['movable', 'selected', 'target', 'lastTo', 'lastFrom']) if (m[k] != null) assert.ok(m[k] >= 3, `thud ${k} ${m[k]}`);
      assert.ok(m.labels >= 4.5, `thud labels ${m.labels}`);
      assert.match(m.targetLabel, /^Target: [a-o]\d+/);
      assert.match(m.pieceLabel || 'Your x on a1, movable', /^Your (dwarf|troll) on [a-o]\d+, movable$/);
      await screenshot(page, `thud-${w}x${h}-${scheme}`);
      assert.deepEqual(page.errors, []);
      await page.ctx.close();
    }
  } finally {
    await node.stop();
  }
});

/** axe-core's findings of impact serious or critical on the page as it is. */
async function axe(page) {
  await page.addScriptTag({ path: AXE });
  const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1).join(' ').trim()}`) }));
}

test('accessibility audit (axe-core): no serious or critical finding in the lobby or in a game, light and dark', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    const found = [];
    for (const scheme of ['light', 'dark']) {
      const page = await phone(`${node.base}/?guest=axel`, 390, 844, scheme);
      await page.waitForSelector('#bot-hard');
      for (const v of await axe(page)) found.push({ where: `lobby ${scheme}`, ...v });
      await botGame(page);
      await toMoveWithTargets(page);
      for (const v of await axe(page)) found.push({ where: `game ${scheme}`, ...v });
      await page.ctx.close();
    }
    for (const f of found) console.log(`# axe ${f.where}: ${f.impact} ${f.id} (${f.help})\n#   ${f.nodes.join('\n#   ')}`);
    if (!found.length) console.log('# axe: no serious or critical finding in the lobby and the game, light and dark');
    assert.deepEqual(found.map((f) => `${f.where}: ${f.id}`), []);
  } finally {
    await node.stop();
  }
});
