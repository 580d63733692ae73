// The room screen: players, board, status, controls, info, chat and the
// result sheet, patched in place (dom.js) on every render.

import { api } from './net.js';
import * as tg from './telegram.js';
import { renderNardy, movableFrom, pips, borneOff } from './boards/nardy.js';
import { renderThud, thudScore } from './boards/thud.js';
import { t, lang } from './i18n.js';
import { formatClock } from './clock.js';
import { h, $, patchChildren } from './dom.js';
import { gameName, params, pref, S, dispatch, net, serverNow, seatIdx, other, isDice, playing, myTurn, need, localSteps, currentMoves, vsComputer, tournamentRoom } from './store.js';
import { seatName, playerName, seatAvatar, narrate, sideName, toast, inviteLink, resultKind, resultSentence, reasonFor, timeoutSentence, roundTimeoutSentence, gameStats, statsTable } from './text.js';
import { sendReady, roll, undo, sendTurn, thudPlay, resign, leave, playAgain, verifySeed, boardPointerDown, cancelDrag, boardPointerMove, boardPointerUp, askHint, playHint, askRematch } from './play.js';
import { clockBox } from './server.js';
import { openSheet, logBody } from './settings.js';
import { render, header } from './app.js';
import { shareGame, sharedLinkBox, canChallengeInChat, challengeInChat } from './share.js';
import * as pl from './players.js';
import { ratingLine } from './rating.js';
import { toLobby } from './lobby.js';

export function ensureRoomSkeleton(app) {
  let page = $('main.room', app);
  if (page) return page;
  const chatForm = h('form#chat-form', {
    onsubmit: (e) => {
      e.preventDefault();
      const inp = $('#chat-input');
      const t = inp.value.trim();
      if (t) net.send({ type: 'chat', text: t });
      inp.value = '';
    },
  }, h('input#chat-input', { placeholder: t('chat.placeholder'), 'aria-label': t('chat.placeholder'), maxlength: 500, autocomplete: 'off' }), h('button', { type: 'submit' }, t('btn.send')));
  page = h('main.room',
    h('div#room-header'),
    h('div#players'),
    h('div#board-wrap', { onpointerdown: boardPointerDown, onpointermove: boardPointerMove, onpointerup: boardPointerUp, onpointercancel: cancelDrag }, h('div#board')),
    h('div#status'),
    // The clock's warning, said once per period to a screen reader.
    h('div.sr-only#clock-live', { 'aria-live': 'assertive', role: 'status' }),
    // Each roll, step and pass, said as it happens (server.js `say`).
    h('div.sr-only#move-live', { 'aria-live': 'polite', role: 'log' }),
    h('div#controls'),
    h('div#info'),
    // Wide screens and landscape: the move list beside the board (the pips are in #players, beside it too).
    h('section#side-log', { 'aria-label': t('log.title') }),
    h('section.chat', h('div#chat'), chatForm),
  );
  app.replaceChildren(page);
  return page;
}

export function renderRoom(app) {
  const page = ensureRoomSkeleton(app);
  const v = S.view;
  patchChildren($('#room-header', page), [header(v ? gameName(v.game) : t('lobby.title'), tg.active() ? null : h('button.icon#leave', { title: t('btn.leave'), 'aria-label': t('btn.leave'), onclick: leave, text: '‹' }))]);
  if (!v) {
    $('#board', page).replaceChildren(h('p.loading', t('room.joining')));
    return;
  }
  renderPlayers($('#players', page));
  // A sliding checker is not redrawn under itself: the board waits for the step's end.
  if (!S.sliding) renderBoard($('#board', page));
  patchChildren($('#status', page), statusLine());
  patchChildren($('#controls', page), controls());
  patchChildren($('#info', page), info());
  renderSideLog($('#side-log', page));
  renderChat($('#chat', page));
}

/** The width from which the move list stands beside the board (style.css draws the room in two columns). */
export const WIDE = '(orientation: landscape) and (min-width: 640px)';
const wide = window.matchMedia?.(WIDE);
wide?.addEventListener?.('change', () => render());

/** The move list beside the board at wide viewports, kept scrolled to its latest turn. */
export function renderSideLog(box) {
  if (!wide?.matches) {
    if (box.firstChild) box.replaceChildren();
    return;
  }
  const rows = box.querySelectorAll('li').length;
  patchChildren(box, [h('h3', t('log.title')), ...logBody('side-moves')]);
  const now = box.querySelectorAll('li').length;
  if (now !== rows) box.scrollTop = box.scrollHeight;
}

export function renderPlayers(box) {
  const v = S.view;
  const me = S.seat || 'a';
  const order = [other(me), me];
  const p = isDice() && v.board ? pips(v.game, v.board.position) : null;
  const off = isDice() && v.board ? borneOff(v.game, v.board.position) : null;
  let score = null;
  if (v.game === 'thud' && v.board) score = thudScore(v.board.position);
  patchChildren(box, order.map((seat) => {
    const s = v.seats[seatIdx(seat)];
    const turn = playing() && v.toAct?.seat === seat;
    const bits = [];
    if (v.board) bits.push(h('span.side', sideName(seat)));
    if (p) bits.push(h('span.pips', { 'data-seat': seat }, t('room.pips', { n: p[seatIdx(seat)] })));
    if (off && off[seatIdx(seat)]) bits.push(h('span', t('room.off', { n: off[seatIdx(seat)] })));
    if (score) bits.push(h('span.tscore', { 'data-seat': seat }, t('room.pts', { n: v.board.dwarfs === seat ? score.dwarfs : score.trolls })));
    if (v.matchLength > 1) bits.push(h('span.score', `${v.score[seatIdx(seat)]}/${v.matchLength}`));
    if (v.phase === 'waiting_for_player' && s.ready) bits.push(h('span.ready-mark', t('room.ready')));
    // The forfeit time is the server's: counted from its clock, not the device's.
    if (s.disconnectDeadline) bits.push(h('span.away', { 'data-deadline': s.disconnectDeadline }, t('room.away', { n: Math.max(0, Math.round((s.disconnectDeadline - serverNow()) / 1000)) })));
    // A clocked game: each player's clock beside his name (nothing at all without one).
    const clock = v.clock ? clockBox(seat) : null;
    return h(`div.player${turn ? '.turn' : ''}${seat === S.seat ? '.me' : ''}`, { 'data-seat': seat }, h('span.who', seatAvatar(seat), h('b', seatName(seat))), clock, ...bits);
  }));
}

export function renderBoard(box) {
  const v = S.view;
  if (!v.board) {
    box.replaceChildren(h('div.board-empty', v.phase === 'finished' ? t('room.over') : t('room.boardLater')));
    return;
  }
  if (v.game === 'thud') {
    const mine = S.seat ? (v.board.dwarfs === S.seat ? 'dwarfs' : 'trolls') : null;
    renderThud(box, {
      label: (key, params) => t(`thud.${key}`, params),
      position: v.board.position,
      legalMoves: v.board.legalMoves,
      mine,
      myTurn: myTurn() && need() === 'move',
      selected: S.sel,
      targets: S.targets,
      lastMove: S.lastMove,
    });
    return;
  }
  const mineMoving = myTurn() && need() === 'move' && !S.inflight;
  let prompt = null;
  if (myTurn() && need() === 'roll') prompt = t('room.tapToRoll');
  if (S.noMoves) prompt = t('status.noMoves', { dice: (S.noMoves.dice || []).join('–') });
  const moves = mineMoving ? currentMoves() : null;
  const L = S.local;
  const svg = renderNardy(box, {
    label: (key, params) => t(`board.${key}`, params),
    game: v.game,
    position: L ? L.pos : v.board.position,
    seat: S.seat,
    dice: v.dice,
    diceLeft: L ? (L.complete ? [] : (L.groups.length ? L.groups[L.groups.length - 1].offer?.diceLeft : L.offer0.diceLeft) || null)
      : moves?.diceLeft || (v.moves?.seat === v.toAct?.seat ? v.moves?.diceLeft : null),
    lastTurn: S.lastTurn,
    movable: moves ? movableFrom(v.game, moves) : new Set(),
    selected: S.sel,
    targets: S.targets,
    lastMove: S.lastMove,
    prompt,
    offGlow: moves ? (moves.firstSteps || []).some((s) => /off/.test(s)) : false,
  });
  if (myTurn() && need() === 'roll') svg.classList.add('to-roll');
  tumbleDice(svg);
}

/** How long the dice tumble after a roll: the speed setting's, none with reduced motion or "instant". */
export const tumbleMs = () => (window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ? 0 : ({ normal: 450, fast: 220, off: 0 })[pref('speed', 'normal')] ?? 450);

/** The roll being tumbled: which one, since when (the board is redrawn meanwhile: each drawing takes it up where it is). */
let tumbling = { key: null, at: 0 };
export function tumbleDice(svg) {
  const key = `${S.roomKey}:${S.rolls}`;
  if (!S.rolls || !S.view?.dice) return;
  const ms = tumbleMs();
  if (tumbling.key !== key) tumbling = { key, at: performance.now() };
  const elapsed = performance.now() - tumbling.at;
  if (!ms || elapsed >= ms) return;
  svg.querySelectorAll('.die .tumble').forEach((g, i) => {
    const a = g.animate?.([
      { transform: `translate(${i % 2 ? 14 : -14}px, -22px) rotate(${i % 2 ? 250 : -220}deg)`, opacity: 0.3 },
      { transform: 'translate(0, 0) rotate(0deg)', opacity: 1 },
    ], { duration: ms, easing: 'cubic-bezier(0.2, 0.8, 0.3, 1)' });
    if (a) a.currentTime = elapsed;
  });
}

export function statusLine() {
  const v = S.view;
  const out = [];
  let text = '';
  const waitingSeat = v.seats.find((s) => !s.player && !s.bot);
  if (v.phase === 'waiting_for_player') {
    if (waitingSeat) text = t('status.waitOpponent');
    else if (S.seat && !v.seats[seatIdx(S.seat)].ready) text = t('status.pressReady');
    else text = t('status.waitReady');
  } else if (v.phase === 'finished') {
    text = resultSentence(v.lastResult, S.seat);
  } else if (v.paused) {
    text = t('status.paused');
  } else if (!S.seat) {
    text = t('status.toPlay', { side: sideName(v.toAct?.seat) });
  } else if (myTurn()) {
    const n = need();
    if (n === 'roll') text = isDice() ? t('status.yourRoll') : t('status.yourTurn');
    else if (n === 'move') text = v.game === 'thud' ? t('status.yourMoveThud', { side: sideName(S.seat).toLowerCase() }) : S.local?.complete ? t('status.confirm') : t('status.yourMove');
    else if (n === 'cubeDecision') text = t('status.cube', { n: 2 * (v.cube?.value || 1) });
    else if (n === 'endProposal') text = t('status.endProposal');
  } else {
    const s = v.seats[seatIdx(v.toAct?.seat)];
    text = s?.bot ? t('status.thinking') : t('status.theirTurn', { name: seatName(v.toAct?.seat) });
  }
  out.push(h('span#status-text', text));
  return out;
}

export function controls() {
  const v = S.view;
  const c = [];
  const mySeat = S.seat ? v.seats[seatIdx(S.seat)] : null;
  // Against the computer the app presses Ready itself (autoReady).
  if (mySeat && v.phase === 'waiting_for_player' && !mySeat.ready && !v.seats.some((s) => s.bot)) {
    c.push(h('button.primary#ready', { onclick: sendReady }, v.gameNumber > 0 ? t('btn.readyNext') : t('btn.ready')));
  }
  if (v.phase === 'waiting_for_player' && v.seats.some((s) => !s.player && !s.bot)) {
    const link = inviteLink();
    c.push(h('div.invite',
      h('input#invite-link', { value: link, readonly: true, 'aria-label': t('lobby.invite'), onclick: (e) => e.target.select() }),
      h('p.invite-url#invite-full', link),
      h('button#copy-invite', { onclick: async () => { try { await navigator.clipboard.writeText(link); toast(t('toast.linkCopied')); } catch { $('#invite-link').select(); } } }, t('btn.copy')),
      h('button#share-invite', {
        onclick: () => {
          if (tg.share(link, t('invite.text'))) return;
          if (navigator.share) navigator.share({ title: 'Tabula', url: link }).catch(() => {});
        },
      }, t('btn.share'))));
  }
  if (S.seat && playing()) {
    if (isDice() && myTurn() && need() === 'roll') {
      c.push(h('button.primary#roll', { onclick: roll }, t('btn.roll')));
      if (S.mayDouble && v.cube?.enabled) c.push(h('button#double', { onclick: () => net.send({ type: 'double' }) }, t('btn.double', { n: 2 * (v.cube.value || 1) })));
    }
    if (myTurn() && need() === 'cubeDecision') {
      c.push(h('button.primary#take', { onclick: () => net.send({ type: 'take' }) }, t('btn.take')));
      c.push(h('button#drop', { onclick: () => net.send({ type: 'drop' }) }, t('btn.drop')));
    }
    if (v.game === 'thud') {
      const prop = v.board?.proposal;
      if (prop && prop !== S.seat) {
        c.push(h('button.primary#accept-end', { onclick: () => net.send({ type: 'acceptEnd' }) }, t('btn.acceptEnd')));
        c.push(h('button#decline-end', { onclick: () => net.send({ type: 'declineEnd' }) }, t('btn.declineEnd')));
      } else if (prop === S.seat) {
        c.push(h('button#withdraw-end', { onclick: () => net.send({ type: 'declineEnd' }) }, t('btn.withdrawEnd')));
      } else {
        c.push(h('button#propose-end', { onclick: () => net.send({ type: 'proposeEnd' }) }, t('btn.proposeEnd')));
      }
    }
    if (S.choose) {
      c.push(h('div.choose', S.choose.map((mv) => h('button', { onclick: () => thudPlay(mv) }, mv.notation))));
    }
    const L = S.local;
    if (L && myTurn() && need() === 'move') {
      c.push(h('button#undo', { onclick: undo, disabled: !L.groups.length || L.sent }, t('btn.undo')));
      c.push(h('button.primary#done', { onclick: sendTurn, disabled: !L.complete || L.sent }, t('btn.done')));
    }
    if (isDice() && vsComputer() && myTurn() && need() === 'move' && !localSteps().length) {
      c.push(h('button#hint', { onclick: askHint, disabled: Boolean(S.hint && !S.hint.plays) }, t('btn.hint')));
    }
    // Takebacks: casual games between people, the turn just played.
    if (!v.rated && !vsComputer()) {
      const tb = S.takeback;
      if (tb && tb.seat !== S.seat) {
        c.push(h('button.primary#accept-takeback', { onclick: () => net.send({ type: 'acceptTakeback' }) }, t('btn.acceptTakeback')));
        c.push(h('button#decline-takeback', { onclick: () => net.send({ type: 'declineTakeback' }) }, t('btn.declineTakeback')));
      } else if (tb) {
        c.push(h('button#withdraw-takeback', { onclick: () => net.send({ type: 'declineTakeback' }) }, t('btn.withdrawTakeback')));
      } else if (S.takebackable && !myTurn()) {
        c.push(h('button#takeback', { onclick: () => net.send({ type: 'takeback' }) }, t('btn.takeback')));
      }
    }
    c.push(h('button.danger#resign', { onclick: resign }, t('btn.resign')));
  }
  if (S.hint) c.push(hintBox());
  const done = v.phase !== 'playing' && (v.lastResult || S.ended);
  if (S.seat && done && !vsComputer() && !tournamentRoom() && v.seats.every((x) => x.player) && v.phase === 'finished') {
    const asked = S.rematch?.[S.seat];
    c.push(h('button.primary#rematch', { onclick: askRematch, disabled: asked }, asked ? t('btn.rematchWaiting') : t('btn.rematch')));
    if (S.rematch && (asked || S.rematch[other(S.seat)])) c.push(h('button#decline-rematch', { onclick: () => net.send({ type: 'declineRematch' }) }, t(asked ? 'btn.withdrawRematch' : 'btn.declineRematch')));
  }
  if (isDice() || v.game === 'thud') c.push(h('button#log-button', { onclick: () => openSheet('log') }, t('btn.log')));
  if (v.phase !== 'playing' && (S.gameOver || S.ended || v.lastResult) && !S.showResult) {
    c.push(h('button#show-result', { onclick: () => { dispatch('showResult', { on: true }); render(); } }, t('btn.result')));
  }
  return c;
}

export function info() {
  const v = S.view;
  const out = [];
  if (isDice() && v.cube?.enabled) {
    out.push(h('span.cube#cube', { title: t('term.cube') }, t('room.cube', { n: v.cube.value }) + (v.cube.owner ? t(v.cube.owner === S.seat ? 'room.cubeYours' : 'room.cubeTheirs') : t('room.cubeCentred'))));
  }
  if (v.matchLength > 1) out.push(h('span#match-score', t('room.match', { n: v.matchLength, mine: v.score[seatIdx(S.seat || 'a')], theirs: v.score[seatIdx(other(S.seat || 'a'))] })));
  if (v.game === 'thud' && v.board) {
    const r = S.thudRounds.filter(Boolean);
    out.push(h('span#thud-round', t('room.round', { n: v.board.round })));
    if (r.length) out.push(h('span', t('room.round1', { mine: r[0][seatIdx(S.seat || 'a')], theirs: r[0][seatIdx(other(S.seat || 'a'))] })));
  }
  // Thud!: a round that ended on time says so until the game is over.
  for (const [round, seat] of Object.entries(S.roundTimeouts || {})) out.push(h('span.round-timeout', { 'data-round': round }, roundTimeoutSentence(Number(round), seat)));
  const tc = v.timeControl || v.clock;
  if (tc && tc.delayMs >= 86400000) out.push(h('span#time-control-info', t('room.clockDays', { n: Math.round(tc.delayMs / 86400000) })));
  else if (tc) out.push(h('span#time-control-info', t('room.clock', { delay: formatClock(tc.delayMs), reserve: formatClock(tc.reserveMs) })));
  // Thud! has no dice: nothing to say about their fairness.
  if (S.commitment && v.game !== 'thud') out.push(h('span.fair#commitment', { title: S.commitment }, t('room.fair', { c: S.commitment.slice(0, 12) })));
  if (S.invite || S.roomId) out.push(h('span.code', t('room.code', { code: S.invite || S.roomId })));
  return out;
}


export function hintBox() {
  const hnt = S.hint;
  if (!hnt.plays) return h('p.hint#hint-box', t('hint.asking'));
  if (!hnt.plays.length) return h('p.hint#hint-box', hnt.error || t('hint.none'));
  const best = hnt.plays[0];
  const win = typeof best.win === 'number' ? ` · ${t('hint.win', { p: Math.round(best.win * 100) })}` : '';
  return h('div.hint#hint-box', h('span', t('hint.best', { play: best.play }) + win),
    S.local && !S.local.groups.length ? h('button#hint-play', { onclick: () => playHint(best.play) }, t('btn.playHint')) : null,
    h('button.icon#hint-close', { 'aria-label': t('btn.close'), title: t('btn.close'), onclick: () => { dispatch('hintClosed'); render(); } }, '×'));
}

export function renderChat(box) {
  const have = box.childElementCount;
  if (have === S.chat.length && box.dataset.lang === lang()) return;
  box.dataset.lang = lang();
  box.replaceChildren(...S.chat.map((c) => {
    const arb = c.from?.kind === 'arbiter';
    const who = arb ? t('chat.arbiter') : c.from?.id === S.player ? t('chat.you') : playerName(c.from?.id);
    return h(`p.line${arb ? '.arbiter' : ''}`, h('b', who), ' ', narrate(c) || c.text);
  }));
  box.scrollTop = box.scrollHeight;
}

export function gameOverSheet() {
  const v = S.view;
  const go = S.gameOver;
  const res = S.ended?.result || v.lastResult;
  let title = t('result.gameOver');
  let cls = '';
  if (go) {
    title = go.result === 'win' ? t('result.youWon') : go.result === 'lose' ? t('result.youLost') : t('result.draw');
    cls = go.result;
  } else if (res && S.seat) {
    title = res.winner === S.seat ? t('result.youWon') : res.winner ? t('result.youLost') : t('result.draw');
  }
  const kind = go?.kind || res?.kind;
  const pts = go?.points ?? res?.points;
  const parts = [h(`h2.result.${cls || 'none'}#result-title`, title)];
  // Who played: each with his photo (or initial) and name, the viewer's side first.
  const first = S.seat || 'a';
  parts.push(h('div.result-players#result-players', [first, other(first)].map((seat) =>
    h('span.who', { 'data-seat': seat }, seatAvatar(seat), h('b', seatName(seat)), h('span.side', sideName(seat))))));
  const term = ['oin', 'mars', 'koks', 'gammon', 'backgammon'].includes(kind) ? t(`term.${kind}`) : null;
  parts.push(h('p.kind#result-kind', { title: term }, `${resultKind(kind, res)}${pts ? t('result.points', { n: pts }) : ''}${res?.reason && res.reason !== 'borneOff' && res.reason !== 'roundsOver' ? ` · ${reasonFor(res, S.seat)}` : ''}`.replace(/^ · /, '')));
  if (term) parts.push(h('p.term#result-term', term));
  // A rated match: the rating before and after it (rating.js).
  parts.push(ratingLine());
  // Lost on time: who ran out, and what it cost.
  if (res?.reason === 'timeout') parts.push(h('p.timeout#result-reason', timeoutSentence(res, S.seat)));
  if (v.game === 'thud') {
    for (const [round, seat] of Object.entries(S.roundTimeouts || {})) parts.push(h('p.round-timeout', { 'data-round': round }, roundTimeoutSentence(Number(round), seat)));
  }
  if (go?.message) parts.push(h('p.msg', narrate(go) || go.message));
  // Decided on the totals only when both rounds were played (not after a resignation, a forfeit or a clock run out).
  if (res?.thudTotals && (!res.reason || res.reason === 'roundsOver')) {
    // Thud!'s own wording: two rounds, decided on the totals.
    const me = seatIdx(S.seat || 'a');
    const [mine, theirs] = [res.thudTotals[me], res.thudTotals[1 - me]];
    if (S.seat) parts.push(h('p#thud-result', t(res.winner === S.seat ? 'thud.resultWon' : res.winner ? 'thud.resultLost' : 'thud.resultDraw', { mine, theirs })));
    else parts.push(h('p#thud-result', t('result.totalsWatch', { a: res.thudTotals[0], b: res.thudTotals[1] })));
  }
  parts.push(resultShare(v, go, res));
  const sum = S.summary?.summary;
  if (sum) {
    const me = seatIdx(S.seat || 'a');
    const op = 1 - me;
    const thud = v.game === 'thud';
    parts.push(h('table.summary#summary',
      h('tr', h('th', ''), h('th', t('sum.you')), h('th', t('sum.opponent'))),
      thud ? null : h('tr', h('td', t('sum.borneOff')), h('td', sum.borneOff[me]), h('td', sum.borneOff[op])),
      h('tr', h('td', t('sum.moves')), h('td', sum.moves[me]), h('td', sum.moves[op])),
      thud ? null : h('tr', h('td', t('sum.doubles')), h('td', sum.doubles[me]), h('td', sum.doubles[op])),
      // Long nardy has no hitting: no row that is always 0.
      v.game === 'long_nardy' ? null : h('tr', h('td', t(thud ? 'sum.captures' : 'sum.hits')), h('td', sum.hits[me]), h('td', sum.hits[op]))));
  }
  const mine = gameStats(S.stats, v.game);
  if (mine?.games) parts.push(h('div.stats#my-stats', h('h3', t('stats.mine')), statsTable(mine, v.game)));
  if (S.ended?.serverSeed && v.game !== 'thud') {
    const ver = S.verify;
    parts.push(h('div.fairness#fairness',
      h('h3', t('fair.title')),
      h('p.mono', t('fair.commitment', { c: S.commitment || '—' })),
      h('p.mono#server-seed', t('fair.seed', { s: S.ended.serverSeed })),
      h('div.row',
        h('button#verify', { onclick: verifySeed }, t('btn.verify')),
        h('a#records', { href: `/api/rooms/${encodeURIComponent(S.roomId || S.roomKey)}/records`, target: '_blank', rel: 'noopener' }, t('btn.record'))),
      ver ? h(`p#verify-result.${ver.ok ? 'ok' : 'bad'}`, ver.ok ? t('fair.ok') : ver.ok === null ? t('fair.hash', { h: ver.got }) : t('fair.bad', { h: ver.got })) : null));
  }
  // A tournament's game goes back to its tournament (lobby.js's toLobby).
  const again = v.phase === 'waiting_for_player' ? t('btn.nextGame') : v.seats[1]?.bot ? t('btn.playAgain') : S.tour?.returnTo ? t('tour.backTo') : t('btn.lobby');
  // The sheet's actions stay at its foot, in sight however long the sheet (320×568 included).
  const actions = [];
  if (S.seat && v.phase === 'finished' && !vsComputer() && !tournamentRoom() && v.seats.every((x) => x.player)) {
    const asked = S.rematch?.[S.seat];
    actions.push(h('div.row', h('button.primary#sheet-rematch', { onclick: askRematch, disabled: asked }, asked ? t('btn.rematchWaiting') : t('btn.rematch'))));
  }
  actions.push(h('div.row2',
    h('button#close-result', { onclick: () => { dispatch('showResult', { on: false }); render(); } }, t('btn.seeBoard')),
    h('button.primary#play-again', { onclick: playAgain }, again)));
  parts.push(h('div.sheet-actions#result-actions', actions));
  return h('div.overlay#game-over', { 'data-result': go?.result || '' }, h('div.sheet', parts));
}

/**
 * The result's Share (a link to the game's replay, share.js), Review (the
 * replay with the computer's analysis, once the match is over: going there
 * leaves the room) and, inside Telegram, Challenge in a chat.
 */
function resultShare(v, go, res) {
  const n = S.ended?.gameNumber || v.gameNumber;
  const room = S.roomId;
  if (!room || !n || !S.ended) return null;
  const outcome = go?.result || (res && S.seat ? (res.winner === S.seat ? 'win' : res.winner ? 'lose' : 'draw') : null);
  const text = t(outcome === 'win' ? 'share.won' : outcome === 'lose' ? 'share.lost' : outcome === 'draw' ? 'share.draw' : 'share.watch', { game: gameName(v.game) });
  const review = v.phase === 'finished'
    ? h('button#review-result', {
      onclick: () => {
        toLobby();
        pl.open('replay', { room, gameNumber: n, analysis: v.game !== 'thud' });
      },
    }, t('btn.review'))
    : null;
  return h('div.result-share#result-share',
    h('div.row',
      h('button#share-result', { onclick: () => shareGame(room, n, text, 'result') }, t('btn.share')),
      review,
      canChallengeInChat() ? h('button#challenge-chat', { onclick: () => challengeInChat(v.game) }, t('btn.challengeChat')) : null),
    sharedLinkBox('result'));
}

export function sideLabel(seat) {
  return seat === S.seat ? 'you' : 'opponent';
}
