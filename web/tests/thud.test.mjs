// Thud! in a real browser: two pages, moves by clicking a piece and a
// highlighted square, until a capture; then the end of the round by
// agreement (propose / accept).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNode, launch, openPage, api, screenshot, appState, waitState, ready } from './helpers.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const FILES = 'abcdefghijklmno';
const sq = (s) => [FILES.indexOf(s[0]), Number(s.slice(1))];
const toCentre = (s) => {
  const [f, r] = sq(s);
  return Math.max(Math.abs(f - 7), Math.abs(r - 8));
};
const parse = (n) => /^([DT])([a-o]\d+)[-x]([a-o]\d+)/.exec(n);

/** Clicks the piece, checks the destination is highlighted, clicks it (or picks the move from the chooser). */
async function clickMove(page, notation) {
  const [, , from, to] = parse(notation);
  await page.click(`#board .piece[data-sq="${from}"]`);
  await page.waitForSelector(`#board .sq.target[data-sq="${to}"]`);
  const before = (await appState(page)).version;
  await page.click(`#board .sq[data-sq="${to}"] rect`);
  const chooser = await page.$(`#controls .choose button:text-is("${notation}")`);
  if (chooser) await chooser.click();
  await waitState(page, (s) => s.version > before && !s.view.board.legalMoves.includes(notation), `${notation} to be played`);
}

test('a Thud! game: moves by clicking, a capture, the running score, and the round ended by agreement', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    const room = await api(node.base, 'POST', '/api/rooms', { game: 'thud' });
    const p1 = await openPage(browser, `${node.base}/?join=${room.invite}&guest=erin`);
    await waitState(p1, (s) => s.seat === 'a', 'erin seated');
    const p2 = await openPage(browser, `${node.base}/?join=${room.invite}&guest=frank`);
    await waitState(p2, (s) => s.seat === 'b', 'frank seated');
    await ready(p1);
    await ready(p2);
    const pages = { a: p1, b: p2 };
    let st = await waitState(p1, (s) => s.view?.phase === 'playing' && s.view.board?.legalMoves?.length, 'the game to start');
    assert.equal(await p1.getAttribute('#board svg', 'data-game'), 'thud');
    assert.equal(await p1.$$eval('#board .piece.dwarf', (e) => e.length), 32);
    assert.equal(await p1.$$eval('#board .piece.troll', (e) => e.length), 8);
    assert.equal(await p1.$$eval("#board .sq", (e) => e.length), 165, "the octagon: 164 playable squares and the stone");
    assert.equal(await p1.$$eval("#board .stone", (e) => e.length), 1);

    let captured = null;
    const played = [];
    for (let ply = 0; ply < 14 && !captured; ply++) {
      st = await appState(p1);
      const seat = st.view.toAct.seat;
      const page = pages[seat];
      const mine = await waitState(page, (s) => s.view.toAct?.seat === seat && s.view.board.legalMoves.length, 'legal moves');
      const legal = mine.view.board.legalMoves;
      // Take a capture when one is offered; else the dwarfs close in on the trolls and the trolls wait.
      let pick = legal.find((n) => /x/.test(n));
      if (!pick) {
        const sorted = [...legal].sort((x, y) => toCentre(parse(x)[3]) - toCentre(parse(y)[3]));
        pick = legal[0].startsWith('D') ? sorted[0] : sorted[sorted.length - 1];
      }
      const dwarfsBefore = mine.view.board.position.dwarfs.length;
      const trollsBefore = mine.view.board.position.trolls.length;
      await clickMove(page, pick);
      played.push(pick);
      if (/x/.test(pick)) {
        captured = pick;
        const other = pages[seat === 'a' ? 'b' : 'a'];
        const after = await waitState(other, (s) => !s.view.board.legalMoves.length || s.view.board.position.dwarfs.length + 4 * s.view.board.position.trolls.length < dwarfsBefore + 4 * trollsBefore, 'the capture on the other page');
        assert.ok(after.view.board.position.dwarfs.length < dwarfsBefore || after.view.board.position.trolls.length < trollsBefore);
        // The capture is marked on both boards, and the running score shows it.
        await other.waitForSelector('#board .captured');
        await page.waitForSelector('#board .captured');
        const score = await other.$$eval('#players .tscore', (e) => e.map((x) => x.textContent));
        assert.ok(score.some((t) => t === `${after.view.board.position.dwarfs.length} pts`), `score ${score}`);
        await screenshot(p1, 'thud-capture-dwarfs');
        await screenshot(p2, 'thud-capture-trolls');
      }
    }
    assert.ok(captured, `a capture within the plies played: ${played.join(' ')}`);

    // Show what a selected piece offers (destinations, and captures for hurls and shoves).
    st = await appState(p1);
    const seat = st.view.toAct.seat;
    const page = pages[seat];
    const first = (await appState(page)).view.board.legalMoves[0];
    await page.click(`#board .piece[data-sq="${parse(first)[2]}"]`);
    assert.ok((await page.$$('#board .sq.target')).length > 0, 'destinations highlighted');
    await screenshot(page, 'thud-selected');

    // End the round by agreement.
    await p1.click('#propose-end');
    await p2.waitForSelector('#accept-end');
    await p2.click('#accept-end');
    await waitState(p1, (s) => s.view.board?.round === 2, 'round 2');
    await p1.waitForSelector('#thud-round:text("Round 2 of 2")');
    assert.match(await p1.textContent('#info'), /Round 1: \d+–\d+/);
    // A game without dice says nothing of dice fairness.
    assert.equal(await p1.locator('#commitment').count(), 0);
    assert.doesNotMatch(await p1.textContent('#info'), /dice/i);
    await screenshot(p1, 'thud-round-2');
    assert.deepEqual(p1.errors, []);
    assert.deepEqual(p2.errors, []);
    console.log(`# thud: ${played.length} plies, capture ${captured}`);
  } finally {
    await node.stop();
  }
});
