// The rating change on the result sheet after a rated match (issue 46,
// web/rating.js): two guests by quick match (rated), one resigns; each
// result sheet says the rating before and after, the winner's up and the
// loser's down, the same figures the node's profile then gives.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, launch, openPage, waitState, ready, screenshot } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const profileRating = (page) => page.evaluate(async () => {
  const r = await fetch('/api/me/profile', { headers: { authorization: `Bearer ${window.__tabula.net.token}` } });
  const p = await r.json();
  return p.ratings.find((x) => x.game === 'long_nardy');
});

test('after a rated match the result sheet shows the rating change, as the profile has it', { timeout: 120000 }, async () => {
  const node = await startNode(undefined, { TABULA__MATCHMAKING__BOT_AFTER_MS: '15000' });
  try {
    const ann = await openPage(browser, `${node.base}/`);
    const ben = await openPage(browser, `${node.base}/`);
    for (const p of [ann, ben]) await p.waitForFunction(() => window.__tabula.state.player && document.querySelector('#quick-match'));
    await ann.click('#quick-match');
    await ann.waitForSelector('#cancel-search');
    await ben.click('#quick-match');
    await waitState(ann, (s) => s.view?.rated && s.seat, 'ann in a rated room');
    await waitState(ben, (s) => s.view?.rated && s.seat, 'ben in a rated room');
    await ready(ann);
    await ready(ben);
    await waitState(ann, (s) => s.view?.phase === 'playing', 'the game to start');
    // The rating before is read while the match is on.
    await waitState(ann, (s) => s.rating?.before, 'ann\'s rating before');
    await waitState(ben, (s) => s.rating?.before, 'ben\'s rating before');
    await ben.click('#resign');
    await ben.click('#confirm-yes');
    const shown = {};
    for (const [name, p] of [['ann', ann], ['ben', ben]]) {
      await p.waitForSelector('#game-over #rating-change', { timeout: 20000 });
      shown[name] = { text: await p.textContent('#rating-change'), delta: Number(await p.getAttribute('#rating-change', 'data-delta')), now: await profileRating(p) };
    }
    assert.ok(shown.ann.delta > 0, `the winner's rating up: ${JSON.stringify(shown.ann)}`);
    assert.ok(shown.ben.delta < 0, `the loser's rating down: ${JSON.stringify(shown.ben)}`);
    for (const [name, s] of Object.entries(shown)) {
      const after = `${Math.round(s.now.rating)}${s.now.provisional ? '?' : ''}`;
      const sign = s.delta > 0 ? `+${s.delta}` : `\u2212${-s.delta}`;
      assert.equal(s.text, `Rating: 1500? → ${after} (${sign})`, `${name}: a new player's 1500 to the profile's rating`);
      assert.equal(Math.round(s.now.rating) - 1500, s.delta, name);
    }
    await screenshot(ann, 'rating-change-won');
    await screenshot(ben, 'rating-change-lost');
    for (const p of [ann, ben]) assert.deepEqual(p.errors, []);
  } finally {
    await node.stop();
  }
});
