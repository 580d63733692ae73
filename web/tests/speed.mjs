// The Mini App's speed, as a reported benchmark (not a timed test; issue 46):
// the lobby's time to interactive on Chromium's emulated mid-range phone
// (4× CPU slowdown, a 4G profile: 150 ms round trip, 1.6 Mbit/s down,
// 750 kbit/s up, as Lighthouse's mobile profile), and the JavaScript the
// lobby loads (the modules reached from index.html at start) in bytes as
// sent (the node compresses) and gzipped here.
//
//   cd web && node tests/speed.mjs [runs]
//   WEB_DIR=/tmp/before/web node tests/speed.mjs 5   # another copy of web/, same node
//
// "Interactive": the lobby drawn with its buttons answering (the player
// known from the socket's `welcome`), timed from the navigation's start.
//
// A room's time to interactive, two ways, each run a new game against the
// computer: opened by its link (`/?join=<code>`, a cold start: the page,
// the lobby's modules, the room's, the socket, the room's state), timed
// from the navigation's start; and entered from the lobby (a tap on Easy
// once the lobby is idle), timed from the tap. "Interactive": the board
// drawn with the player seated and the game's state in, the board's tap
// answering (the room's modules loaded).

import { gzipSync } from 'node:zlib';
import { startNode, launch } from './helpers.mjs';

const runs = Number(process.argv[2] || 5);
// WEB_DIR=/path/to/web measures another copy of the app (an earlier commit's, say) on the same node binary.
const node = await startNode(undefined, process.env.WEB_DIR ? { TABULA__WEB__DIR: process.env.WEB_DIR } : {});
const browser = await launch();

/** A new phone: 390×844, touch, 4× CPU slowdown, the 4G profile, cache off. */
async function phone() {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, hasTouch: true, isMobile: true });
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  return { ctx, page, cdp };
}
try {
  const times = [];
  let js = null;
  for (let i = 0; i < runs; i++) {
    const { ctx, page, cdp } = await phone();
    const sizes = new Map();
    const urls = new Map();
    cdp.on('Network.responseReceived', (e) => urls.set(e.requestId, e.response.url));
    cdp.on('Network.loadingFinished', (e) => {
      const u = urls.get(e.requestId);
      if (u && /\.m?js(\?|$)/.test(u)) sizes.set(u, e.encodedDataLength);
    });
    await page.goto(`${node.base}/`, { waitUntil: 'commit' });
    await page.waitForFunction(() => window.__tabula?.state?.player && document.querySelector('#bot-easy'), null, { timeout: 60000, polling: 20 });
    times.push(await page.evaluate(() => Math.round(performance.now())));
    // What was loaded by then (not what the idle lobby fetches ahead after).
    const atInteractive = new Map(sizes);
    if (!js) {
      const list = [...atInteractive.entries()];
      let gz = 0;
      let raw = 0;
      for (const [u] of list) {
        const body = Buffer.from(await (await fetch(u)).arrayBuffer());
        raw += body.length;
        gz += gzipSync(body, { level: 9 }).length;
      }
      js = { files: list.length, sent: list.reduce((n, [, b]) => n + b, 0), raw, gz, names: list.map(([u]) => new URL(u).pathname.slice(1)).sort() };
    }
    await ctx.close();
  }
  // A room: by its link, and from the lobby.
  const link = [];
  const fromLobby = [];
  const roomReady = () => {
    const s = window.__tabula?.state;
    return Boolean(s?.screen === 'room' && s.seat && s.view && document.querySelector('#board svg') && (document.querySelector('#board svg .checker') || s.view.game === 'thud'));
  };
  for (let i = 0; i < runs; i++) {
    const { ctx, page } = await phone();
    const room = await (await fetch(`${node.base}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ game: 'long_nardy', bot: { level: 'easy' } }) })).json();
    await page.goto(`${node.base}/?join=${room.invite}`, { waitUntil: 'commit' });
    await page.waitForFunction(roomReady, null, { timeout: 60000, polling: 20 });
    link.push(await page.evaluate(() => Math.round(performance.now())));
    await ctx.close();
  }
  for (let i = 0; i < runs; i++) {
    const { ctx, page } = await phone();
    await page.goto(`${node.base}/`, { waitUntil: 'commit' });
    await page.waitForFunction(() => window.__tabula?.state?.player && document.querySelector('#bot-easy'), null, { timeout: 60000, polling: 20 });
    // The lobby idle: the room's modules fetched ahead, as a player who looks before tapping.
    await page.waitForTimeout(3000);
    const t0 = await page.evaluate(() => performance.now());
    await page.click('#bot-easy');
    await page.waitForFunction(roomReady, null, { timeout: 60000, polling: 20 });
    fromLobby.push(Math.round((await page.evaluate(() => performance.now())) - t0));
    await ctx.close();
  }
  const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(`lobby interactive (4x CPU, 150 ms RTT, 1.6 Mbit/s): median ${median} ms of ${runs} runs (${times.join(', ')})`);
  console.log(`room interactive by its link: median ${med(link)} ms of ${runs} runs (${link.join(', ')})`);
  console.log(`room interactive from the lobby (tap on Easy): median ${med(fromLobby)} ms of ${runs} runs (${fromLobby.join(', ')})`);
  console.log(`lobby JavaScript: ${js.files} files, ${(js.raw / 1024).toFixed(1)} KiB raw, ${(js.sent / 1024).toFixed(1)} KiB as sent (headers included), ${(js.gz / 1024).toFixed(1)} KiB gzip -9`);
  console.log(`  ${js.names.join(' ')}`);
} finally {
  await browser.close();
  await node.stop();
}
