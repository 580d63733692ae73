// A steady screen (issue 46): a tap on Done is never lost, whatever the
// app draws around it (a toast, a clock tick, an opponent's event); toasts
// float above the page (and above the result sheet) without moving it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, launch, appState, waitState, ready, tapToRoll, sleep } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** A phone: touch events, 390×844. */
async function phone(url) {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, hasTouch: true, isMobile: true });
  const page = await ctx.newPage();
  page.setDefaultTimeout(15000);
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.__tabula?.state);
  return page;
}

/** Alice invites Bob (with the lobby's clock `tc`), both ready, the game started with white to roll. */
async function twoPlayers(node, tc = 'long') {
  const alice = await phone(`${node.base}/`);
  await alice.waitForSelector('#create-room');
  await alice.selectOption('select[data-opt="opening"]', 'white_first');
  await alice.selectOption('#time-control', tc);
  await alice.click('#create-room');
  await alice.waitForSelector('#invite-link');
  const link = await alice.$eval('#invite-link', (e) => e.value);
  const code = new URL(link).searchParams.get('join');
  const bob = await phone(`${node.base}/?join=${code}`);
  await waitState(bob, (s) => s.seat === 'b', 'bob seated');
  await ready(alice);
  await ready(bob);
  await waitState(alice, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start');
  return { alice, bob };
}

/** Rolls and lays out Alice's whole turn locally, so that Done is enabled. */
async function layOutTurn(page) {
  const me = (await appState(page)).seat;
  await tapToRoll(page, me);
  await waitState(page, (s) => s.local && !s.local.asking, 'the local turn offered');
  for (let i = 0; i < 6; i++) {
    const st = await appState(page);
    if (st.local.complete) return;
    const before = st.local.steps;
    await page.locator('#board .checker.movable').last().click();
    await page.waitForSelector('#board .point.target, #board .tray.target');
    const target = (await page.locator('#board .point.target').count()) ? page.locator('#board .point.target').first() : page.locator('#board .tray.target');
    const box = await target.boundingBox();
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await waitState(page, (s) => s.local && !s.local.asking && s.local.steps > before, 'the step played locally');
  }
  await waitState(page, (s) => s.local?.complete, 'the turn laid out');
}

test('a tap on Done is never lost: 200 touches, each within 0–100 ms of a toast, a clock tick or an opponent\u2019s event', { timeout: 240000 }, async () => {
  const node = await startNode();
  try {
    const { alice, bob } = await twoPlayers(node);
    await layOutTurn(alice);
    assert.equal(await alice.isDisabled('#done'), false);
    // Done's `turn` is counted here and not sent, so that the same Done can be pressed again.
    await alice.evaluate(() => {
      window.__turns = 0;
      const net = window.__tabula.net;
      const send = net.send.bind(net);
      net.send = (c) => {
        if (c.type === 'turn') {
          window.__turns += 1;
          return 0;
        }
        return send(c);
      };
      // Each tick of a clock, as it is drawn.
      window.__ticks = 0;
      new MutationObserver(() => {
        window.__ticks += 1;
      }).observe(document.querySelector('#players'), { subtree: true, characterData: true, childList: true });
    });
    const cdp = await alice.context().newCDPSession(alice);
    const touch = (type, x, y) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
    const perturb = {
      toast: (i) => alice.evaluate((n) => window.__tabula.toast(`Toast number ${n}, long enough to wrap on a phone's narrow screen`, n % 2 ? 'info' : 'error', 150 + (n % 5) * 40), i),
      opponent: (i) => bob.evaluate((n) => window.__tabula.net.send({ type: 'chat', text: `line ${n}` }), i),
      // A clock tick: wait for the next one, the tap is then within 0–100 ms of it.
      clock: () => alice.waitForFunction((n) => window.__ticks > n, 0, { polling: 5 }).then(() => alice.evaluate(() => { window.__ticks = 0; })),
    };
    const kinds = ['toast', 'opponent', 'clock'];
    let lost = 0;
    const lostAt = [];
    for (let i = 0; i < 200; i++) {
      const kind = kinds[i % 3];
      // Where Done is as the finger aims at it.
      await alice.waitForSelector('#done:not([disabled])');
      const b = await alice.$eval('#done', (e) => e.getBoundingClientRect().toJSON());
      const x = b.x + b.width / 2;
      const y = b.y + b.height / 2;
      const offset = Math.round(Math.random() * 200) - 100; // the event 100 ms before the touch to 100 ms after
      const hold = 30 + Math.round(Math.random() * 70);
      const before = await alice.evaluate(() => window.__turns);
      if (kind === 'clock') {
        await alice.evaluate(() => { window.__ticks = 0; });
        await perturb.clock();
        await sleep(Math.abs(offset) % 100);
        await touch('touchStart', x, y);
        await sleep(hold);
        await touch('touchEnd');
      } else if (offset < 0) {
        await perturb[kind](i);
        await sleep(-offset);
        await touch('touchStart', x, y);
        await sleep(hold);
        await touch('touchEnd');
      } else {
        await touch('touchStart', x, y);
        const p = sleep(offset).then(() => perturb[kind](i));
        await sleep(hold);
        await touch('touchEnd');
        await p;
      }
      const got = await alice.waitForFunction((n) => window.__turns > n, before, { timeout: 1000, polling: 10 }).then(() => true, () => false);
      if (!got) {
        lost += 1;
        lostAt.push(`${i}:${kind}:${offset}`);
      }
      // Done again, for the next tap.
      await alice.evaluate(() => {
        window.__tabula.state.local.sent = false;
        window.__tabula.render();
      });
    }
    assert.equal(lost, 0, `taps on Done lost: ${lostAt.join(' ')}`);
    assert.deepEqual(alice.errors, []);
  } finally {
    await node.stop();
  }
});

test('a toast floats above the page: the controls do not move when it appears or expires', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    const { alice } = await twoPlayers(node, 'none');
    await layOutTurn(alice);
    const at = () => alice.evaluate(() => ['#done', '#undo', '#resign', '#board'].map((s) => JSON.stringify(document.querySelector(s).getBoundingClientRect())));
    const still = await at();
    await alice.evaluate(() => window.__tabula.toast('A toast long enough to need two lines on a phone, or even three of them', 'info', 600));
    await alice.waitForSelector('#toast');
    assert.deepEqual(await at(), still, 'nothing moved when the toast appeared');
    // It does not catch a tap meant for what is under it.
    assert.equal(await alice.$eval('#toast', (e) => getComputedStyle(e).pointerEvents), 'none');
    await alice.waitForSelector('#toast', { state: 'detached' });
    assert.deepEqual(await at(), still, 'nothing moved when the toast expired');
  } finally {
    await node.stop();
  }
});

test('a rematch request is seen on the result sheet: its toast is above the overlay', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    const { alice, bob } = await twoPlayers(node, 'none');
    await alice.click('#resign');
    await alice.click('#confirm-yes');
    await alice.waitForSelector('#game-over');
    await bob.waitForSelector('#game-over');
    await bob.click('#sheet-rematch');
    await alice.waitForSelector('#toast:has-text("rematch")');
    // Painted above everything: what is at the toast's centre is the toast (hit-testing follows the painting order).
    const top = await alice.$eval('#toast', (e) => {
      e.style.pointerEvents = 'auto';
      const r = e.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      e.style.pointerEvents = '';
      return Boolean(hit && e.contains(hit)) && r.width > 0 && r.bottom > 0 && r.top < innerHeight;
    });
    assert.ok(top, 'the rematch toast is visible above the result sheet');
  } finally {
    await node.stop();
  }
});
