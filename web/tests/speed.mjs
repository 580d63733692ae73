// The Mini App's speed, as a reported benchmark (not a timed test; issue 46):
// the lobby's time to interactive on Chromium's emulated mid-range phone
// (4× CPU slowdown, a 4G profile: 150 ms round trip, 1.6 Mbit/s down,
// 750 kbit/s up, as Lighthouse's mobile profile), and the JavaScript the
// lobby loads (the modules reached from index.html at start) in bytes as
// sent (the node compresses) and gzipped here.
//
//   cd web && node tests/speed.mjs [runs]
//
// "Interactive": the lobby drawn with its buttons answering (the player
// known from the socket's `welcome`), timed from the navigation's start.

import { gzipSync } from 'node:zlib';
import { startNode, launch } from './helpers.mjs';

const runs = Number(process.argv[2] || 5);
const node = await startNode();
const browser = await launch();
try {
  const times = [];
  let js = null;
  for (let i = 0; i < runs; i++) {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, hasTouch: true, isMobile: true });
    const page = await ctx.newPage();
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
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
    if (!js) {
      const list = [...sizes.entries()];
      let gz = 0;
      let raw = 0;
      for (const [u] of list) {
        const body = Buffer.from(await (await fetch(u)).arrayBuffer());
        raw += body.length;
        gz += gzipSync(body, { level: 9 }).length;
      }
      js = { files: list.length, sent: list.reduce((n, [, b]) => n + b, 0), raw, gz };
    }
    await ctx.close();
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(`lobby interactive (4x CPU, 150 ms RTT, 1.6 Mbit/s): median ${median} ms of ${runs} runs (${times.join(', ')})`);
  console.log(`lobby JavaScript: ${js.files} files, ${(js.raw / 1024).toFixed(1)} KiB raw, ${(js.sent / 1024).toFixed(1)} KiB as sent (headers included), ${(js.gz / 1024).toFixed(1)} KiB gzip -9`);
} finally {
  await browser.close();
  await node.stop();
}
