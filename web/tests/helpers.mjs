// Shared test fixtures: a Tabula node of our own (the real binary, on a
// free port, with the test-only start positions allowed and bots that do
// not wait) and headless Chromium driven by playwright-core.

import { spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { mkdirSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createHmac } from 'node:crypto';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../..');
export const SHOTS = path.join(ROOT, 'target', 'web-screenshots');
const BIN = process.env.TABULA_SERVER_BIN || path.join(process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target'), 'debug', 'tabula-server');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Each node's durable store: a SQLite file of its own, named by its port, so
// a restart on the same port finds what it archived.
let storeDir = null;

/**
 * Each node's durable store (history, ratings): an SQLite file of its own
 * in a temporary directory, kept for a node restarted on the same port,
 * never the checkout's `tabula.db`; removed when the tests end.
 */
const stores = new Map();
process.on('exit', () => {
  for (const dir of stores.values()) rmSync(dir, { recursive: true, force: true });
});
function storeUrl(port) {
  if (!stores.has(port)) stores.set(port, mkdtempSync(path.join(tmpdir(), 'tabula-web-store-')));
  return `sqlite://${path.join(stores.get(port), 'tabula.db')}?mode=rwc`;
}

/** Starts a node; `port` reuses a port (a restart). Resolves when /healthz answers. */
export async function startNode(port, extraEnv = {}) {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run cargo build -p tabula-server first`);
  port = port || (await freePort());
  const env = {
    ...process.env,
    TABULA__SERVER__LISTEN: `127.0.0.1:${port}`,
    TABULA__BOTS__DELAY_MS: '0',
    TABULA__TESTING__ALLOW_START_POSITION: 'true',
    TABULA__WEB__DIR: path.join(ROOT, 'web'),
    TABULA__SERVER__RATE_PER_SEC: '1000',
    TABULA__SERVER__RATE_BURST: '1000',
    TABULA__STORE__URL: `sqlite://${(storeDir ||= mkdtempSync(path.join(tmpdir(), 'tabula-web-store-')))}/node-${port}.db?mode=rwc`,
    RUST_LOG: process.env.RUST_LOG || 'warn',
    TABULA__STORE__URL: storeUrl(port),
    // Finished games reach the store (history, ratings) within a tenth of a second.
    TABULA__STORE__ARCHIVE_INTERVAL_MS: '100',
    ...extraEnv,
  };
  const child = spawn(BIN, [], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`tabula-server exited with ${child.exitCode}`);
    try {
      const r = await fetch(`${base}/healthz`);
      if (r.ok) break;
    } catch {}
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('tabula-server did not become healthy');
    }
    await sleep(50);
  }
  return {
    base,
    port,
    child,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      const t = setTimeout(() => child.kill('SIGKILL'), 8000);
      await done;
      clearTimeout(t);
    },
  };
}

/** A Redis of our own on a free port (for a node restart that keeps its rooms). */
export async function startRedis() {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'tabula-web-redis-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  const deadline = Date.now() + 10000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    const ok = await new Promise((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) break;
    if (Date.now() > deadline) throw new Error('redis-server did not start');
    await sleep(50);
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await done;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

/**
 * A page in its own context (own localStorage: its own guest), phone-sized;
 * or, with `same`, another window of the browser `same` is in (its
 * localStorage, so the same player).
 */
export async function openPage(browser, url, same) {
  const ctx = same ? same.context() : await browser.newContext({ viewport: { width: 420, height: 860 }, deviceScaleFactor: 1, hasTouch: false });
  return openIn(ctx, url);
}

/** A new page of `ctx` at `url`, its console errors kept in `page.errors`, once the app is up. */
async function openIn(ctx, url) {
  const page = await ctx.newPage();
  page.setDefaultTimeout(15000);
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/WebSocket|Failed to load resource/.test(m.text())) errors.push(m.text());
  });
  page.errors = errors;
  await page.goto(url);
  await page.waitForFunction(() => window.__tabula?.state);
  return page;
}

export async function api(base, method, p, body, headers = {}) {
  const r = await fetch(base + p, { method, headers: { 'content-type': 'application/json', ...headers }, body: body && JSON.stringify(body) });
  const data = await r.json().catch(() => null);
  if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(data)}`);
  return data;
}

export async function screenshot(page, name) {
  mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** The app's state (window.__tabula.state) as plain data. */
export const appState = (page) =>
  page.evaluate(() => {
    const s = window.__tabula.state;
    const L = s.local;
    const local = L && { steps: L.groups.reduce((n, g) => n + g.steps.length, 0), asking: Boolean(L.asking), complete: L.complete, sent: L.sent };
    return { seat: s.seat, view: s.view, version: s.version, gameOver: s.gameOver, conn: s.conn, player: s.player, ended: s.ended, inflight: s.inflight, local, idle: !s.animating && !s.queue.length, screen: s.screen, roomId: s.roomId, rating: s.rating, pl: s.pl };
  });

/**
 * Waits until `pred(state)` holds (polling the page), with every event
 * received drawn: the app animates someone else's steps one after another
 * (its `queue`), and a state read mid-animation is behind its version.
 */
export async function waitState(page, pred, what, ms = 20000) {
  const end = Date.now() + ms;
  let st;
  while (Date.now() < end) {
    st = await appState(page);
    if (st.idle && pred(st)) return st;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}; state: ${JSON.stringify(st?.view?.toAct)} phase ${st?.view?.phase}`);
}

/**
 * Taps the board to roll (it is `me`'s turn to roll) and waits for the
 * dice. A player whose tap did nothing taps again, as a person would: the
 * app asks again when its roll got no answer (said on the test output, so
 * a lost tap stays visible).
 */
export async function tapToRoll(page, me) {
  const rolledAt = (await appState(page)).version;
  const rolled = (s) => s.version > rolledAt && (s.view.phase !== 'playing' || s.view.toAct?.seat !== me || (s.view.toAct?.need === 'move' && s.view.moves?.seat === me));
  for (let tap = 1; ; tap++) {
    await page.click('#board svg', { position: { x: 40, y: 60 } });
    try {
      await waitState(page, rolled, 'dice rolled', 5000);
      if (tap > 1) console.log(`# the roll took ${tap} taps`);
      return;
    } catch {
      const now = await appState(page);
      const stillToRoll = now.view?.phase === 'playing' && now.view.toAct?.seat === me && now.view.toAct?.need === 'roll';
      if (tap < 4 && stillToRoll) continue;
      // Rolled meanwhile, or something else is going on: one last wait.
      await waitState(page, rolled, 'dice rolled');
      return;
    }
  }
}

/**
 * Plays one whole dice turn of the page's player by clicking: tap the board
 * to roll, then, while the server offers steps, tap a highlighted checker and
 * a highlighted target; with confirmation on (the app's default) the steps
 * are local until Done, which this presses once the turn is complete.
 * Returns the steps played.
 */
export async function playDiceTurn(page, { preferDouble = false, afterRoll = null, drag = false } = {}) {
  const me = (await appState(page)).seat;
  let st = await waitState(page, (s) => s.view?.phase !== 'playing' || s.view.toAct?.seat === me, 'my turn');
  if (st.view.phase !== 'playing') return { steps: 0, over: true };
  if (st.view.toAct.need === 'roll') await tapToRoll(page, me);
  if (afterRoll) await afterRoll();
  let steps = 0;
  let dragged = 0;
  let usedDouble = false;
  // After a tap: the server echoed the step (no confirmation), or the
  // local turn has the server's offer for what is left.
  const settled = (before, localBefore) => (s) => (s.version > before && !s.inflight) || (s.local && !s.local.asking && s.local.steps > localBefore);
  for (let guard = 0; guard < 12; guard++) {
    st = await appState(page);
    if (st.view.phase !== 'playing' || st.view.toAct?.seat !== me || st.view.toAct?.need !== 'move') break;
    if (st.local?.complete && !st.local.sent) {
      const before = st.version;
      await page.click('#done');
      await waitState(page, (s) => s.version > before && (s.view.phase !== 'playing' || s.view.toAct?.seat !== me || s.view.toAct?.need !== 'move'), 'the confirmed turn to be played');
      break;
    }
    const movable = page.locator('#board .checker.movable');
    if (!(await movable.count())) {
      await sleep(50);
      continue;
    }
    const before = st.version;
    const localBefore = st.local?.steps || 0;
    if (drag) {
      // Press on a movable checker, pull it (that selects it), drop it on a highlighted point.
      const from = await movable.last().boundingBox().catch(() => null);
      if (!from) continue;
      await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await page.mouse.down();
      await page.mouse.move(from.x + from.width / 2 + 12, from.y + from.height / 2 + 12, { steps: 3 });
      const to = await page.evaluate(() => {
        const t = [...(window.__tabula.state.targets?.keys() || [])][0];
        const e = t && document.querySelector(t === 'off' ? '#tray' : `#board .point[data-point="${t}"] .hit`);
        if (!e) return null;
        const r = e.getBoundingClientRect();
        return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
      });
      if (!to) {
        await page.mouse.up();
        continue;
      }
      await page.mouse.move(to.x, to.y, { steps: 4 });
      await page.mouse.up();
      await waitState(page, settled(before, localBefore), 'the dragged step to be echoed');
      steps += 1;
      dragged += 1;
      continue;
    }
    // Locators re-resolve: the board is redrawn whenever the state changes;
    // a state that moved on meanwhile (the turn ended) is looked at again.
    try {
      await movable.last().click({ timeout: 3000 });
      await page.waitForSelector('#board .point.target, #board .tray.target', { timeout: 3000 });
    } catch {
      continue;
    }
    let target = null;
    if (preferDouble) {
      // A target two steps away, if the server offers one (one tap plays both dice).
      const far = await page.evaluate(() => {
        const s = window.__tabula.state;
        for (const [to, p] of s.targets || []) if (p.length > 1) return to;
        return null;
      });
      if (far) {
        target = page.locator(far === 'off' ? '#board .tray.target' : `#board .point.target[data-point="${far}"]`);
        usedDouble = true;
      }
    }
    if (!target) {
      target = (await page.locator('#board .point.target').count()) ? page.locator('#board .point.target').first() : page.locator('#board .tray.target');
    }
    // A point's checkers carry its data-point too: tap the middle of its column, whatever is drawn there.
    const box = await target.boundingBox({ timeout: 3000 }).catch(() => null);
    if (!box) continue;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await waitState(page, settled(before, localBefore), 'the steps to be echoed');
    steps += 1;
  }
  return { steps, usedDouble, dragged };
}

/** The centre of an element's box on the page. */
export async function centre(page, selector) {
  const b = await (await page.$(selector)).boundingBox();
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

/**
 * Presses Ready where the app asks for it; against the computer the app
 * presses it itself, so this then only waits for the game to start.
 */
export async function ready(page) {
  const end = Date.now() + 15000;
  while (Date.now() < end) {
    const st = await appState(page);
    if (st.view?.phase === 'playing') return;
    const mine = st.seat && st.view?.seats?.[st.seat === 'b' ? 1 : 0];
    if (mine?.ready) return;
    if (await page.locator('#ready').count()) {
      await page.click('#ready').catch(() => {});
      return;
    }
    await sleep(50);
  }
  throw new Error('neither a Ready button nor a started game');
}

// ---- Telegram ----------------------------------------------------------------

/** The bot token the Telegram tests' nodes are started with. */
export const TG_BOT_TOKEN = '123456789:TEST-bot-token-for-the-browser-tests';

/** initData as Telegram signs it (HMAC-SHA256 with the bot token's WebAppData key). */
export function signInitData(fields, botToken = TG_BOT_TOKEN) {
  const check = Object.keys(fields).sort().map((k) => `${k}=${fields[k]}`).join('\n');
  const secret = createHmac('sha256', 'WebAppData').update(botToken).digest();
  const hash = createHmac('sha256', secret).update(check).digest('hex');
  const q = new URLSearchParams(fields);
  q.set('hash', hash);
  return q.toString();
}

/** A recording stand-in for telegram-web-app.js (the tests have no internet). */
export const TELEGRAM_STUB = `
window.__tg = { calls: [], main: {}, back: {} };
const rec = (n) => (...a) => window.__tg.calls.push([n, ...a]);
const hash = new URLSearchParams(location.hash.slice(1));
const handlers = {};
window.Telegram = { WebApp: {
  initData: hash.get('tgWebAppData') || '',
  initDataUnsafe: { user: { id: 1, note: 'must never be sent' } },
  colorScheme: 'dark',
  themeParams: { bg_color: '#101820', text_color: '#eeeeee', hint_color: '#8899aa', button_color: '#3390ec', button_text_color: '#ffffff', secondary_bg_color: '#1c2733' },
  viewportStableHeight: 700,
  // The client's Bot API version: the newest, unless a test sets window.__tgVersion first.
  version: window.__tgVersion || '8.0',
  isVersionAtLeast: (v) => {
    const [a, b] = (window.__tgVersion || '99.0').split('.').map(Number);
    const [c, d] = v.split('.').map(Number);
    return a > c || (a === c && (b || 0) >= (d || 0));
  },
  ready: rec('ready'), expand: rec('expand'),
  onEvent: (e, f) => { (handlers[e] = handlers[e] || []).push(f); },
  enableClosingConfirmation: rec('enableClosingConfirmation'), disableClosingConfirmation: rec('disableClosingConfirmation'),
  enableVerticalSwipes: rec('enableVerticalSwipes'), disableVerticalSwipes: rec('disableVerticalSwipes'),
  HapticFeedback: { impactOccurred: rec('impact'), notificationOccurred: rec('notification'), selectionChanged: rec('selection') },
  BackButton: { onClick: (f) => { window.__tg.back.f = f; }, offClick: () => {}, show: () => { window.__tg.back.visible = true; }, hide: () => { window.__tg.back.visible = false; } },
  MainButton: { setText: (t) => { window.__tg.main.text = t; }, onClick: (f) => { window.__tg.main.f = f; }, offClick: () => { window.__tg.main.f = null; }, show: () => { window.__tg.main.visible = true; }, hide: () => { window.__tg.main.visible = false; } },
  openTelegramLink: rec('openTelegramLink'),
  switchInlineQuery: rec('switchInlineQuery'),
  // shareMessage (8.0+) only where a test asks for it: window.__tgShare
  // 'sent' or 'cancelled', what the player does in the chat picker.
  ...(window.__tgShare ? { shareMessage: (id, cb) => { window.__tg.calls.push(['shareMessage', id]); setTimeout(() => cb && cb(window.__tgShare === 'sent'), 0); } } : {}),
} };
window.__tgEmit = (e) => (handlers[e] || []).forEach((f) => f());
`;


/**
 * A page inside (a stand-in of) Telegram, signed in by `user` (initData's
 * user object: id, first_name, photo_url, language_code, …), phone-sized;
 * `setup(ctx)` runs on its context before the page opens (routes of its own).
 */
export async function openTelegramPage(browser, base, user, { startParam, viewport = { width: 390, height: 844 }, setup } = {}) {
  const fields = { auth_date: String(Math.floor(Date.now() / 1000)), user: JSON.stringify(user) };
  if (startParam) fields.start_param = startParam;
  const data = signInitData(fields);
  const ctx = await browser.newContext({ viewport });
  await ctx.route('https://telegram.org/**', (route) => route.fulfill({ status: 200, contentType: 'application/javascript', body: TELEGRAM_STUB }));
  if (setup) await setup(ctx);
  return openIn(ctx, `${base}/#tgWebAppData=${encodeURIComponent(data)}&tgWebAppVersion=8.0&tgWebAppPlatform=web`);
}
