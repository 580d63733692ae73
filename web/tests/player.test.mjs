// The player's Mini App (issue 22): Russian and English, undo and Done
// with the turn sent once, the opponent's steps drawn one after another,
// the move log, hints, sounds and their mute switch.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { startNode, launch, openPage, openTelegramPage, appState, waitState, playDiceTurn, tapToRoll, ready, screenshot, api, sleep, ROOT, TG_BOT_TOKEN } from './helpers.mjs';
import { LANGS, loadLang } from '../i18n.js';

// Each language's strings, as the app loads them (one module per language).
const STRINGS = Object.fromEntries(await Promise.all(LANGS.map(async (l) => [l, await loadLang(l)])));

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const keys = (lang) => Object.keys(STRINGS[lang]).sort();

test('every text exists in English and Russian, and every key the app and the protocol use is in both', () => {
  assert.deepEqual(LANGS, ['en', 'ru']);
  assert.deepEqual(keys('ru'), keys('en'), 'the two languages have the same keys');
  const used = new Set();
  // Every module of the app (one per screen since issue 46) and the boards.
  const sources = [...readdirSync(path.join(ROOT, 'web')).filter((f) => f.endsWith('.js') && f !== 'i18n.js'), ...readdirSync(path.join(ROOT, 'web', 'boards')).map((f) => `boards/${f}`)];
  for (const f of sources) {
    const src = readFileSync(path.join(ROOT, 'web', f), 'utf8');
    for (const m of src.matchAll(/\bt\(\s*'([\w.]+)'/g)) used.add(m[1]);
  }
  assert.ok(used.size > 100, `the app's literal keys (${used.size})`);
  // Keys made from names: each name the app or the server can give.
  for (const g of ['long_nardy', 'backgammon', 'thud']) used.add(`game.${g}`).add(`rules.${g}`);
  for (const l of [1, 2, 3]) {
    used.add(`level.${l}`);
    for (const g of ['long_nardy', 'backgammon', 'thud']) used.add(`level.${l}.about.${g}`);
  }
  for (const k of ['oin', 'mars', 'koks', 'single', 'gammon', 'backgammon', 'drop', 'thudTotals', 'draw']) used.add(`kind.${k}`);
  for (const k of ['oin', 'mars', 'koks', 'head', 'gammon', 'backgammon']) used.add(`term.${k}`);
  for (const r of ['borneOff', 'resigned', 'stoodUp', 'disconnected', 'dropped', 'roundsOver', 'timeout']) used.add(`reason.${r}`);
  for (const v of ['normal', 'fast', 'off']) used.add(`settings.speed.${v}`);
  // The tournament screens' names (tournaments.js): statuses, formats, the list's sections.
  for (const s of ['registering', 'running', 'finished', 'cancelled']) used.add(`tour.status.${s}`);
  for (const f of ['knockout', 'swiss', 'arena']) used.add(`tour.fmtName.${f}`).add(`tour.about.${f}`).add(`tour.fmt.${f}`);
  for (const k of ['upcoming', 'running', 'finished', 'final', 'semi', 'quarter', 'roundN']) used.add(`tour.${k}`);
  // The move log's notes (the cube, a resignation, Thud!'s end of a round), named by the action.
  for (const k of ['double', 'take', 'drop', 'timeOut', 'proposeEnd', 'acceptEnd', 'declineEnd', 'resign.resigned', 'resign.stoodUp', 'resign.disconnected', 'resign.timeout']) used.add(`log.${k}`);
  // The boards' screen-reader labels (the keys boards/nardy.js and boards/thud.js list).
  for (const k of ['board', 'point', 'target', 'targetOff', 'checker', 'bar', 'tray', 'die']) used.add(`board.${k}`);
  for (const k of ['board', 'square', 'piece', 'target']) used.add(`thud.${k}`);
  // The narration keys docs/protocol.md lists (its "Narration keys" table).
  const doc = readFileSync(path.join(ROOT, 'docs', 'protocol.md'), 'utf8');
  const from = doc.indexOf('### Narration keys');
  const table = doc.slice(from, doc.indexOf('\n### ', from + 1));
  const narration = [...table.matchAll(/^\| `(\w+)`/gm)].map((m) => m[1]);
  assert.ok(narration.length >= 14, `the narration keys of docs/protocol.md: ${narration}`);
  for (const k of narration) used.add(`n.${k}`);
  for (const lang of ['en', 'ru']) {
    const missing = [...used].filter((k) => !Object.hasOwn(STRINGS[lang], k));
    assert.deepEqual(missing, [], `keys missing in ${lang}`);
  }
});

test('Russian from Telegram\u2019s language_code, English otherwise, switchable in settings, with no untranslated text', { timeout: 90000 }, async () => {
  const node = await startNode(undefined, { TABULA__AUTH__BOT_TOKEN: TG_BOT_TOKEN });
  try {
    const ru = await openTelegramPage(browser, node.base, { id: 5001, first_name: 'Оля', language_code: 'ru' });
    await ru.waitForSelector('#bot-easy');
    assert.equal(await ru.evaluate(() => document.documentElement.lang), 'ru');
    const heads = await ru.$$eval('main h2', (hs) => hs.map((x) => x.textContent));
    assert.ok(heads.includes('Игра с компьютером') && heads.includes('Игра с человеком'), heads.join(' | '));
    assert.equal(await ru.textContent('#bot-hard'), 'Сильный');
    await ru.click('#rules-button');
    assert.match(await ru.textContent('#sheet-rules'), /голов/);
    await screenshot(ru, 'lobby-ru-rules');
    await ru.click('#sheet-close');
    // A game in Russian: the status line and the controls.
    await ru.click('#bot-easy');
    await waitState(ru, (s) => s.view?.phase === 'playing', 'the game to start');
    await ru.waitForSelector('#resign');
    assert.equal(await ru.textContent('#resign'), 'Сдаться');
    assert.match(await ru.textContent('#status-text'), /[а-яё]/i);
    const text = await ru.evaluate(() => document.body.innerText);
    assert.ok(!text.includes('⟦'), 'no key without its text');
    await screenshot(ru, 'room-ru');
    assert.deepEqual(ru.errors, [], 'no console error (a missing key is one)');

    const en = await openPage(browser, `${node.base}/`);
    await en.waitForSelector('#bot-easy');
    assert.equal(await en.evaluate(() => document.documentElement.lang), 'en');
    assert.ok((await en.$$eval('main h2', (hs) => hs.map((x) => x.textContent))).includes('Play the computer'));
    // Switched in the settings, and kept.
    await en.click('#settings');
    await en.selectOption('#lang', 'ru');
    await en.click('#sheet-close');
    assert.ok((await en.$$eval('main h2', (hs) => hs.map((x) => x.textContent))).includes('Игра с компьютером'));
    await en.reload();
    await en.waitForSelector('#bot-easy');
    assert.equal(await en.evaluate(() => document.documentElement.lang), 'ru');
    assert.deepEqual(en.errors, []);
  } finally {
    await node.stop();
  }
});

/** Records, every frame, the position and dice the page draws (and whether a checker is sliding). */
function recordFrames(page) {
  return page.evaluate(() => {
    window.__frames = [];
    let last = '';
    const loop = () => {
      const s = window.__tabula.state;
      const L = s.local;
      const pos = JSON.stringify(L ? L.pos : s.view?.board?.position);
      const sliding = document.querySelectorAll('#board .sliding').length;
      const key = `${pos}|${sliding}`;
      if (key !== last) {
        last = key;
        window.__frames.push({ t: performance.now(), pos, dice: JSON.stringify(s.view?.dice || null), sliding });
      }
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  });
}

/** The distinct positions drawn since `since` (performance.now()), each with when it was first drawn. */
async function positionsSince(page, since) {
  const frames = await page.evaluate(() => window.__frames);
  const out = [];
  for (const f of frames) {
    if (f.t < since) continue;
    if (!out.length || out[out.length - 1].pos !== f.pos) out.push(f);
  }
  return { positions: out, slid: frames.some((f) => f.t >= since && f.sliding > 0) };
}

async function rollByTap(page) {
  const me = (await appState(page)).seat;
  await waitState(page, (s) => s.view?.toAct?.seat === me && s.view.toAct.need === 'roll', 'my roll');
  await tapToRoll(page, me);
  await waitState(page, (s) => s.local && !s.local.asking && s.local.steps === 0, 'the local turn offered');
}

async function localStep(page) {
  const before = (await appState(page)).local.steps;
  await page.locator('#board .checker.movable').last().click();
  await page.waitForSelector('#board .point.target, #board .tray.target');
  const target = (await page.locator('#board .point.target').count()) ? page.locator('#board .point.target').first() : page.locator('#board .tray.target');
  const box = await target.boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  return waitState(page, (s) => s.local && !s.local.asking && s.local.steps > before, 'the step played locally');
}

test('undo, then Done: the turn is sent once; the opponent sees only the confirmed steps, one after another, and the log', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    const alice = await openPage(browser, `${node.base}/?guest=alice`);
    await alice.waitForSelector('#create-room');
    await alice.selectOption('select[data-opt="opening"]', 'white_first');
    await alice.click('#create-room');
    await alice.waitForSelector('#invite-link');
    const link = await alice.$eval('#invite-link', (e) => e.value);
    // The invite is shown whole, not only in a clipped input.
    assert.equal(await alice.textContent('#invite-full'), link);
    const bob = await openPage(browser, link.replace(/^http:\/\/[^/]+/, node.base) + '&guest=bob');
    await waitState(bob, (s) => s.seat === 'b', 'bob seated');
    await ready(alice);
    await ready(bob);
    await waitState(alice, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start');
    // The sockets are already open: record from the page side.
    await alice.evaluate(() => {
      const ws = WebSocket.prototype.send;
      window.__sent = [];
      WebSocket.prototype.send = function (d) {
        window.__sent.push(String(d));
        return ws.call(this, d);
      };
    });
    await bob.evaluate(() => {
      window.__received = [];
      const orig = window.__tabula.net.receive.bind(window.__tabula.net);
      window.__tabula.net.receive = (d) => {
        window.__received.push({ t: performance.now(), d: String(d) });
        return orig(d);
      };
    });
    await recordFrames(bob);

    const start = (await appState(alice)).view.board.position;
    await rollByTap(alice);
    const one = await localStep(alice);
    assert.equal(one.local.steps >= 1, true);
    assert.notDeepEqual(await alice.evaluate(() => window.__tabula.state.local.pos), start, 'the step is drawn');
    // Undo takes it back to the position of the roll.
    await alice.click('#undo');
    await waitState(alice, (s) => s.local && s.local.steps === 0, 'the step undone');
    assert.deepEqual(await alice.evaluate(() => window.__tabula.state.local.pos), start);
    assert.equal(await alice.isDisabled('#done'), true, 'Done waits for a whole turn');
    // Play the whole turn, then confirm.
    for (let i = 0; i < 4; i++) {
      const st = await appState(alice);
      if (st.local.complete) break;
      await localStep(alice);
    }
    assert.equal((await appState(alice)).local.complete, true);
    assert.match(await alice.textContent('#status-text'), /Done/);
    await screenshot(alice, 'turn-to-confirm');
    const nothingYet = await bob.evaluate(() => window.__received.filter((r) => r.d.includes('"moved"')).length);
    assert.equal(nothingYet, 0, 'the opponent saw no step before Done (nor the undone one)');
    const since = await bob.evaluate(() => performance.now());
    await alice.click('#done');
    const after = await waitState(alice, (s) => s.view.toAct?.seat === 'b', 'the turn to pass to bob');
    const frames = await alice.evaluate(() => window.__sent.map((d) => JSON.parse(d).type));
    assert.equal(frames.filter((t) => t === 'turn').length, 1, `one turn sent: ${frames}`);
    assert.equal(frames.filter((t) => t === 'move').length, 0, 'no step sent on its own');
    assert.ok(frames.filter((t) => t === 'preview').length >= 2, 'the offers came from the server');

    // Bob saw the steps one after another, with the dice shown until the last.
    const bobDone = await waitState(bob, (s) => s.version >= after.version, 'bob to catch up');
    const steps = after.view.board && (await alice.evaluate(() => window.__tabula.state.lastTurn.length));
    const { positions, slid } = await positionsSince(bob, since);
    assert.equal(positions.length, steps, `each of the ${steps} steps drawn as its own position: ${positions.length}`);
    for (let i = 1; i < positions.length; i++) {
      assert.ok(positions[i].t - positions[i - 1].t >= 200, `step ${i + 1} came ${Math.round(positions[i].t - positions[i - 1].t)} ms after the one before`);
    }
    assert.ok(positions.slice(0, -1).every((p) => p.dice !== 'null'), 'the dice stay until the move is complete');
    assert.ok(slid, 'a checker slid along its route');
    assert.deepEqual(bobDone.view.board.position, after.view.board.position);
    assert.equal(await bob.evaluate(() => window.__tabula.state.lastTurn.length), steps, 'the last turn stays marked');
    // The move log: who, dice, notation.
    await bob.click('#log-button');
    const rows = await bob.$$eval('#move-log .log-turn', (r) => r.map((x) => x.textContent));
    assert.equal(rows.length, 1, rows.join(' | '));
    const dice = after.view.dice || (await bob.evaluate(() => window.__tabula.state.log.find((e) => e.dice)?.dice));
    assert.match(rows[0], new RegExp(`White ${dice[0]}–${dice[1]}: 24-`), rows[0]);
    await screenshot(bob, 'move-log');
    assert.deepEqual(alice.errors, []);
    assert.deepEqual(bob.errors, []);
  } finally {
    await node.stop();
  }
});

test('against the computer: a hint played and confirmed, sounds with a mute switch, the computer\u2019s steps in sequence', { timeout: 120000 }, async () => {
  const node = await startNode();
  try {
    const page = await openPage(browser, `${node.base}/?guest=hana`);
    await page.waitForSelector('#bot-medium');
    await page.selectOption('select[data-opt="opening"]', 'white_first');
    await page.click('#bot-medium');
    await waitState(page, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start');
    await page.click('#status'); // a gesture: the audio may start
    await rollByTap(page);
    assert.ok((await page.evaluate(() => window.__tabula.sounds)).includes('dice'), 'the dice sound');
    await page.click('#hint');
    await page.waitForSelector('#hint-box:has-text("Best")');
    const best = await page.evaluate(() => window.__tabula.state.hint.plays[0].play);
    await page.click('#hint-play');
    await waitState(page, (s) => s.local?.complete, 'the hinted turn laid out');
    await recordFrames(page);
    const since = await page.evaluate(() => performance.now());
    await page.click('#done');
    await waitState(page, (s) => s.view.toAct?.seat === 'a' && s.view.toAct.need === 'roll' && s.version > 0, 'the computer to play');
    const log = await page.evaluate(() => window.__tabula.state.log.filter((e) => !e.game));
    assert.equal(log[0].steps.join(','), best.replace(/\s+/g, ','), 'the hint was the turn played');
    const bot = log[1];
    assert.ok(bot && bot.seat === 'b', 'the computer played');
    const { positions } = await positionsSince(page, since);
    // Our confirmed turn is drawn at once; each of the computer's steps after it.
    const botSteps = bot.pass ? 0 : bot.steps.length;
    assert.ok(positions.length >= botSteps, `${positions.length} positions for ${botSteps} computer steps`);
    const tail = positions.slice(-botSteps);
    for (let i = 1; i < tail.length; i++) assert.ok(tail[i].t - tail[i - 1].t >= 200, 'the computer\u2019s steps one after another');
    assert.ok((await page.evaluate(() => window.__tabula.sounds)).includes('checker'), 'the checker sound');
    // Muted: nothing more is played.
    await page.click('#settings');
    await page.uncheck('#sound-on');
    await page.click('#sheet-close');
    const heard = await page.evaluate(() => window.__tabula.sounds.length);
    await playDiceTurn(page);
    await waitState(page, (s) => s.view.phase !== 'playing' || s.view.toAct?.seat === 'a', 'my turn again');
    assert.equal(await page.evaluate(() => window.__tabula.sounds.length), heard, 'no sound while muted');
    assert.deepEqual(page.errors, []);
  } finally {
    await node.stop();
  }
});

test('keyboard play: a checker and its target chosen with the keyboard, Undo and Done by keyboard too', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    const page = await openPage(browser, `${node.base}/?guest=kira`);
    await page.waitForSelector('#bot-easy');
    await page.selectOption('select[data-opt="opening"]', 'white_first');
    await page.click('#bot-easy');
    await waitState(page, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start');
    await rollByTap(page);
    for (let i = 0; i < 4; i++) {
      const st = await appState(page);
      if (st.local.complete) break;
      // Focus a movable checker (a button for screen readers), Enter selects it
      // and the focus goes on to its first target; Enter plays there.
      await page.focus('#board .checker.movable[tabindex]');
      assert.match(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), /movable/);
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.activeElement?.closest?.('#board .target, #board [data-point].target'));
      assert.match(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), /Target/);
      const before = st.local.steps;
      await page.keyboard.press('Enter');
      await waitState(page, (s) => s.local && !s.local.asking && s.local.steps > before, 'the step played by keyboard');
    }
    await page.focus('#undo');
    await page.keyboard.press('Enter');
    await waitState(page, (s) => s.local && !s.local.complete, 'a step undone by keyboard');
    await page.focus('#board .checker.movable[tabindex]');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await waitState(page, (s) => s.local?.complete, 'the turn complete again');
    const v = (await appState(page)).version;
    await page.focus('#done');
    await page.keyboard.press('Enter');
    await waitState(page, (s) => s.version > v && !s.local, 'the turn sent and played');
    assert.deepEqual(page.errors, []);
  } finally {
    await node.stop();
  }
});

/** Alice makes an invite room from the lobby; Bob opens its link; both are seated. */
async function inviteGame(node, alice, bobUrl) {
  await alice.waitForSelector('#create-room');
  await alice.click('#create-room');
  await alice.waitForSelector('#invite-link');
  const link = await alice.$eval('#invite-link', (e) => e.value);
  const code = new URL(link.replace(/^https:\/\/t\.me\/[^?]+/, node.base)).searchParams;
  const join = code.get('join') || code.get('startapp');
  const bob = await bobUrl(join);
  await waitState(bob, (s) => s.seat === 'b', 'bob seated');
  return bob;
}

test('names: a Telegram player\u2019s name from his signed initData is shown to his opponent; a guest\u2019s chosen name too; never an id', { timeout: 90000 }, async () => {
  const tgNode = await startNode(undefined, { TABULA__AUTH__BOT_TOKEN: TG_BOT_TOKEN });
  try {
    const tanya = await openTelegramPage(browser, tgNode.base, { id: 7001, first_name: 'Tanya', last_name: 'Kim', username: 'tanyak', language_code: 'en' });
    await waitState(tanya, (s) => s.player === 'tg:7001', 'signed in');
    await tanya.waitForSelector('#me:has-text("Tanya Kim")');
    const pavel = await inviteGame(tgNode, tanya, (code) => openTelegramPage(browser, tgNode.base, { id: 7002, first_name: 'Pavel', language_code: 'en' }, { startParam: code }));
    await tanya.waitForSelector('#players .player[data-seat="b"] b:has-text("Pavel")');
    await pavel.waitForSelector('#players .player[data-seat="a"] b:has-text("Tanya Kim")');
    await screenshot(pavel, 'names-telegram');
    for (const page of [tanya, pavel]) {
      const text = await page.evaluate(() => document.body.innerText);
      assert.ok(!/tg:700/.test(text), 'no raw id on the page');
      assert.deepEqual(page.errors, []);
    }
  } finally {
    await tgNode.stop();
  }
  const node = await startNode();
  try {
    // A guest has a readable generated name, and chooses his own in the
    // settings; a bad one is refused and changes nothing.
    const guest = await openPage(browser, `${node.base}/`);
    await waitState(guest, (s) => s.player, 'a guest');
    await guest.waitForFunction(() => window.__tabula.state.profile?.name);
    const generated = await guest.evaluate(() => window.__tabula.state.profile.name);
    assert.ok(!/guest|[0-9a-f]{8}/.test(generated), `a readable generated name: ${generated}`);
    await guest.click('#settings');
    await guest.fill('#name-input', 'Evil\u202ename');
    await guest.click('#name-form button[type="submit"]');
    await guest.waitForSelector('#name-note.error');
    assert.match(await guest.textContent('#name-note'), /control or invisible/);
    assert.equal(await guest.evaluate(() => window.__tabula.state.profile.name), generated, 'nothing changed');
    await guest.fill('#name-input', '  Boris  ');
    await guest.click('#name-form button[type="submit"]');
    await guest.waitForFunction(() => window.__tabula.state.profile?.name === 'Boris');
    await guest.click('#sheet-close');
    const joined = await inviteGame(node, guest, (code) => openPage(browser, `${node.base}/?join=${code}`));
    await joined.waitForSelector('#players .player[data-seat="a"] b:has-text("Boris")');
    const joinedName = await joined.evaluate(() => window.__tabula.state.profile.name);
    await guest.waitForSelector(`#players .player[data-seat="b"] b:has-text("${joinedName}")`);
    assert.deepEqual(guest.errors, []);
  } finally {
    await node.stop();
  }
});

test('rematch after a game between people: both agree, and the colours swap', { timeout: 90000 }, async () => {
  const node = await startNode();
  try {
    const alice = await openPage(browser, `${node.base}/`);
    const bob = await inviteGame(node, alice, (code) => openPage(browser, `${node.base}/?join=${code}`));
    await ready(alice);
    await ready(bob);
    await waitState(alice, (s) => s.view?.phase === 'playing', 'the game to start');
    await alice.click('#resign');
    await alice.click('#confirm-yes');
    await alice.waitForSelector('#game-over');
    await bob.waitForSelector('#game-over');
    // The arbiter's lines come as keys: English here, and in Russian the
    // server's own text.
    await alice.waitForSelector('#chat .line.arbiter:has-text("White resigns.")');
    await bob.waitForSelector('#chat .line.arbiter:has-text("Black wins: mars")');
    await bob.click('#close-result');
    await bob.click('#settings');
    await bob.selectOption('#lang', 'ru');
    await bob.click('#sheet-close');
    const lines = await bob.evaluate(() => window.__tabula.state.chat.filter((c) => c.key).map((c) => c.text));
    assert.ok(lines.length >= 2, lines.join(' | '));
    const shown = await bob.$$eval('#chat .line.arbiter', (ls) => ls.map((l) => l.textContent.replace(/^Арбитр /, '')));
    assert.deepEqual(shown, lines, 'the Russian rendering is the server\u2019s text');
    await bob.click('#settings');
    await bob.selectOption('#lang', 'en');
    await bob.click('#sheet-close');
    await bob.click('#show-result');
    await alice.click('#sheet-rematch');
    await bob.waitForSelector('#toast:has-text("rematch")');
    await bob.click('#sheet-rematch');
    const a2 = await waitState(alice, (s) => s.seat === 'b' && s.view?.phase === 'playing', 'alice playing black in the rematch');
    const b2 = await waitState(bob, (s) => s.seat === 'a' && s.view?.phase === 'playing', 'bob playing white');
    assert.equal(a2.view.seats[1].player, a2.player);
    assert.equal(b2.view.seats[0].player, b2.player);
    assert.equal(await alice.locator('#game-over').count(), 0, 'the result sheet is gone');
    assert.deepEqual(alice.errors, []);
    assert.deepEqual(bob.errors, []);
  } finally {
    await node.stop();
  }
});


/** The move log's rows as the page shows them (its sheet opened, read, closed). */
async function logRows(page) {
  await page.click('#log-button');
  await page.waitForSelector('#sheet-log');
  const rows = await page.$$eval('#sheet-log li', (r) => r.map((x) => x.textContent));
  await page.click('#sheet-close');
  return rows;
}

/** Plays the page's next turn against the computer and waits for the computer's answer (the page to roll again, or the end). */
async function turnAndAnswer(page) {
  await playDiceTurn(page);
  await waitState(page, (s) => s.view.phase !== 'playing' || (s.view.toAct?.seat === s.seat && s.view.toAct.need === 'roll'), 'the computer to answer');
}

test('the move log: a spectator who comes late sees every earlier turn, and so does a player who reopens the game with nothing kept in the tab', { timeout: 150000 }, async () => {
  const node = await startNode();
  try {
    const lena = await openPage(browser, `${node.base}/`);
    await lena.waitForSelector('#bot-easy');
    await lena.selectOption('select[data-opt="opening"]', 'white_first');
    await lena.click('#bot-easy');
    await waitState(lena, (s) => s.view?.phase === 'playing' && s.view.board, 'the game to start');
    for (let i = 0; i < 3; i++) await turnAndAnswer(lena);
    const room = (await lena.evaluate(() => window.__tabula.state.roomId));
    const rows = await logRows(lena);
    // The log is the game's record: a row per roll, its dice, in order.
    const { state } = await api(node.base, 'GET', `/api/rooms/${room}`);
    const rolls = state.actions.filter((a) => a.type === 'roll');
    assert.ok(rolls.length >= 6, `three turns each: ${JSON.stringify(state.actions)}`);
    const turns = rows.filter((r) => /^\d+\./.test(r));
    assert.equal(turns.length, rolls.length, rows.join(' | '));
    rolls.forEach((r, i) => assert.ok(turns[i].startsWith(`${i + 1}. ${r.seat === 'a' ? 'White' : 'Black'} ${r.dice[0]}–${r.dice[1]}: `), `${turns[i]} for ${JSON.stringify(r)}`));
    const steps = state.actions.filter((a) => a.type === 'step').map((a) => `${a.from}-${a.to}`);
    assert.deepEqual(turns.flatMap((r) => r.split(': ')[1].split(', ')).filter((x) => x !== 'no moves'), steps, 'every step, once, in order');

    // A spectator opens the game's link late (the room is full: he watches).
    const late = await openPage(browser, `${node.base}/?join=${room}`);
    await waitState(late, (s) => s.view?.phase === 'playing' && !s.seat, 'the spectator to watch');
    assert.deepEqual(await logRows(late), rows, 'the spectator sees the whole log so far');
    // The game goes on: both logs grow by the same turns, nothing twice.
    await turnAndAnswer(lena);
    const lenaNow = await appState(lena);
    await waitState(late, (s) => s.version >= lenaNow.version, 'the spectator to catch up');
    const more = await logRows(lena);
    assert.ok(more.length >= rows.length + 2, `${rows.length} → ${more.length}`);
    assert.deepEqual(more.slice(0, rows.length), rows);
    assert.deepEqual(await logRows(late), more, 'the spectator\u2019s log went on from the events, without a duplicate');
    await late.click('#log-button');
    await screenshot(late, 'move-log-spectator');
    await late.click('#sheet-close');

    // The player reopens the game in a tab that kept nothing (sessionStorage empty at load).
    await lena.addInitScript(() => sessionStorage.clear());
    await lena.reload();
    await lena.waitForFunction(() => window.__tabula?.state);
    await waitState(lena, (s) => s.view?.phase === 'playing' && s.seat === 'a', 'the game reopened');
    assert.deepEqual(await logRows(lena), more, 'the whole log after a reload, from the state alone');
    // The end of the game is in the log too: a resignation, from the state after it.
    await lena.click('#resign');
    await lena.click('#confirm-yes');
    for (const page of [lena, late]) {
      await page.waitForSelector('#game-over');
      await page.click('#close-result');
      const end = await logRows(page);
      assert.deepEqual(end, [...more, 'White: resigned'], 'the resignation once, after every turn');
    }
    assert.deepEqual(lena.errors, []);
    assert.deepEqual(late.errors, []);
  } finally {
    await node.stop();
  }
});

const SVG_PHOTO = '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#c0392b"/><circle cx="32" cy="26" r="12" fill="#fff"/></svg>';

test('photos: a Telegram player\u2019s photo from his signed initData is drawn round beside his name for his opponent, in the room and the result sheet; his initial when it fails', { timeout: 90000 }, async () => {
  const node = await startNode(undefined, { TABULA__AUTH__BOT_TOKEN: TG_BOT_TOKEN });
  const tanyaPhoto = 'https://t.me/i/userpic/320/tanya.svg';
  const pavelPhoto = 'https://t.me/i/userpic/320/pavel.jpg';
  const asked = [];
  // Tanya's photo is held until the test has measured the seat without it
  // (a fixed delay raced the test's own steps on a loaded machine).
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  // Telegram's photo server, for these pages: Tanya's photo comes late, Pavel's is gone.
  const photos = (ctx) => ctx.route('https://t.me/i/userpic/**', async (route) => {
    const req = route.request();
    asked.push({ url: req.url(), referer: (await req.allHeaders()).referer || null });
    if (req.url() === tanyaPhoto) {
      await Promise.race([released, sleep(30000)]);
      await route.fulfill({ status: 200, contentType: 'image/svg+xml', body: SVG_PHOTO });
    } else {
      await route.fulfill({ status: 404, contentType: 'text/plain', body: 'gone' });
    }
  });
  try {
    const tanya = await openTelegramPage(browser, node.base, { id: 7101, first_name: 'Tanya', last_name: 'Kim', photo_url: tanyaPhoto, language_code: 'en' }, { setup: photos });
    await waitState(tanya, (s) => s.player === 'tg:7101', 'signed in');
    assert.equal(await tanya.evaluate(() => window.__tabula.state.profile.photoUrl), tanyaPhoto);
    const pavel = await inviteGame(node, tanya, (code) => openTelegramPage(browser, node.base, { id: 7102, first_name: 'Pavel', photo_url: pavelPhoto, language_code: 'en' }, { startParam: code, setup: photos }));
    // Pavel sees Tanya's photo beside her name, in a round box that keeps its place while the photo loads.
    const seatA = '#players .player[data-seat="a"]';
    await pavel.waitForSelector(`${seatA} b:has-text("Tanya Kim")`);
    await pavel.waitForSelector(`${seatA} .avatar img`, { state: 'attached' });
    const geometry = () => pavel.evaluate((sel) => {
      const box = (e) => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].map(Math.round); };
      const img = document.querySelector(`${sel} .avatar img`);
      return { name: box(document.querySelector(`${sel} b`)), avatar: box(document.querySelector(`${sel} .avatar`)), board: box(document.querySelector('#board')), loaded: Boolean(img?.complete && img.naturalWidth > 0) };
    }, seatA);
    const pending = await geometry();
    release();
    await pavel.waitForFunction((sel) => { const i = document.querySelector(`${sel} .avatar img`); return i?.complete && i.naturalWidth > 0; }, seatA);
    const loaded = await geometry();
    assert.equal(pending.loaded, false, 'measured while the photo was on its way');
    assert.deepEqual({ ...loaded, loaded: false }, pending, 'nothing moved when the photo arrived');
    assert.deepEqual(loaded.avatar.slice(2), [20, 20]);
    const img = await pavel.$eval(`${seatA} .avatar img`, (i) => ({ src: i.src, alt: i.alt, referrerPolicy: i.referrerPolicy, radius: getComputedStyle(i.parentElement).borderRadius }));
    assert.deepEqual(img, { src: tanyaPhoto, alt: 'Tanya Kim', referrerPolicy: 'no-referrer', radius: '50%' });
    // Tanya sees her own photo, and Pavel's initial: his photo did not load.
    await tanya.waitForSelector('#players .player[data-seat="a"] .avatar img[alt="Tanya Kim"]', { state: 'attached' });
    await tanya.waitForSelector('#players .player[data-seat="b"] b:has-text("Pavel")');
    await tanya.waitForFunction(() => {
      const a = document.querySelector('#players .player[data-seat="b"] .avatar');
      return a && !a.querySelector('img') && a.textContent === 'P';
    });
    assert.deepEqual((await tanya.$eval('#players .player[data-seat="b"] .avatar', (a) => { const r = a.getBoundingClientRect(); return [r.width, r.height]; })), [20, 20]);
    assert.ok(asked.some((a) => a.url === tanyaPhoto) && asked.some((a) => a.url === pavelPhoto), JSON.stringify(asked));
    assert.deepEqual(asked.filter((a) => a.referer), [], 'no referrer sent to the photo server');
    await screenshot(pavel, 'avatars-room');

    // The result sheet: both players, each with his photo or initial.
    await ready(tanya);
    await ready(pavel);
    await waitState(tanya, (s) => s.view?.phase === 'playing', 'the game to start');
    await tanya.click('#resign');
    await tanya.click('#confirm-yes');
    await pavel.waitForSelector('#game-over #result-players');
    await pavel.waitForFunction(() => { const i = document.querySelector('#result-players .who[data-seat="a"] .avatar img'); return i?.complete && i.naturalWidth > 0 && i.alt === 'Tanya Kim'; });
    const sheet = await pavel.$$eval('#result-players .who', (ws) => ws.map((w) => ({ seat: w.dataset.seat, name: w.querySelector('b').textContent, initial: w.querySelector('.initial').textContent, photo: Boolean(w.querySelector('img')) })));
    assert.deepEqual(sheet, [{ seat: 'b', name: 'You', initial: 'P', photo: false }, { seat: 'a', name: 'Tanya Kim', initial: 'T', photo: true }]);
    await tanya.waitForSelector('#game-over #result-players .who[data-seat="b"] b:has-text("Pavel")');
    await screenshot(pavel, 'avatars-result');
    for (const page of [tanya, pavel]) {
      assert.ok(!/tg:710/.test(await page.evaluate(() => document.body.innerText)), 'no raw id on the page');
      assert.deepEqual(page.errors, []);
    }
  } finally {
    await node.stop();
  }
});
