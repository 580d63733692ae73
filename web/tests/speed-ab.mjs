// Copies of web/ compared turn by turn (issue 46; a benchmark, not a test):
// one node per copy, each run opening a new game against the computer by
// its link and then the lobby on every copy in turn, so a busy machine
// slows them alike. The same emulated phone as speed.mjs (4× CPU, 150 ms
// round trip, 1.6 Mbit/s down, 750 kbit/s up, cache off).
//
//   cd web && node tests/speed-ab.mjs 7 /tmp/before/web tree
//
// `tree` is this checkout's web/; a copy of an earlier commit's:
// `git archive <commit> web | tar -x -C /tmp/before`.

import { startNode, launch } from './helpers.mjs';
const dirs = process.argv.slice(3);
const runs = Number(process.argv[2]);
const nodes = [];
for (const d of dirs) nodes.push(await startNode(undefined, d === 'tree' ? {} : { TABULA__WEB__DIR: d }));
const browser = await launch();
const res = dirs.map(() => []);
const lobby = dirs.map(() => []);
try {
  for (let i = 0; i < runs; i++) for (let k = 0; k < dirs.length; k++) {
    for (const which of ['room', 'lobby']) {
    const node = nodes[k];
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, hasTouch: true, isMobile: true });
    const page = await ctx.newPage();
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    if (which === 'room') {
      const room = await (await fetch(`${node.base}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ game: 'long_nardy', bot: { level: 'easy' } }) })).json();
      await page.goto(`${node.base}/?join=${room.invite}`, { waitUntil: 'commit' });
      await page.waitForFunction(() => { const s = window.__tabula?.state; return Boolean(s?.screen === 'room' && s.seat && s.view && document.querySelector('#board svg .checker')); }, null, { timeout: 60000, polling: 20 });
      res[k].push(await page.evaluate(() => Math.round(performance.now())));
    } else {
      await page.goto(`${node.base}/`, { waitUntil: 'commit' });
      await page.waitForFunction(() => window.__tabula?.state?.player && document.querySelector('#bot-easy'), null, { timeout: 60000, polling: 20 });
      lobby[k].push(await page.evaluate(() => Math.round(performance.now())));
    }
    await ctx.close();
    }
  }
  const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  dirs.forEach((d, k) => console.log(`${d}: room by link median ${med(res[k])} (${res[k].join(', ')}); lobby median ${med(lobby[k])} (${lobby[k].join(', ')})`));
} finally { await browser.close(); for (const n of nodes) await n.stop(); }
