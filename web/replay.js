// The replay of a finished game: the board frame by frame, the turn's
// notation, the analysis (fetched once), the record's Verify.

import { api } from './net.js';
import { renderNardy, parseSteps } from './boards/nardy.js';
import { renderThud, parseThud } from './boards/thud.js';
import { sha256hex } from './sha256.js';
import { t } from './i18n.js';
import { shareGame, sharedLinkBox } from './share.js';
import { C, S, P, h, errorText, equity, dateText, seatText, resultText, $, top, status } from './players.js';

/** A turn that gave up more than this much equity is a blunder. */
export const BLUNDER = 0.08;
export function closeReplay() {
  const r = P().replay;
  if (r?.recordUrl) URL.revokeObjectURL(r.recordUrl);
  P().replay = null;
}

export async function openReplay(room, gameNumber, analysis = false) {
  closeReplay();
  const r = { room, gameNumber, data: null, error: null, frame: 0, analysis: null, showAnalysis: false, verify: null };
  P().replay = r;
  try {
    r.data = await api('GET', `/api/games/${encodeURIComponent(room)}/${gameNumber}`, undefined, C.credHeaders());
    r.frame = 0;
  } catch (e) {
    r.error = errorText(e);
  }
  if (P().replay === r && S().screen === 'replay') C.render();
  // Review from the result sheet: the analysis at once (long and short nardy).
  if (analysis && r.data && r.data.game !== 'thud' && P().replay === r) {
    r.showAnalysis = true;
    loadAnalysis();
  }
}

export async function loadAnalysis() {
  const r = P().replay;
  if (!r || r.analysis) return;
  r.analysis = { loading: true };
  C.render();
  try {
    const data = await api('GET', `/api/games/${encodeURIComponent(r.room)}/${r.gameNumber}/analysis`, undefined, C.credHeaders());
    r.analysis = { data };
  } catch (e) {
    // Asked again the next time the toggle is switched on.
    r.analysis = { error: e?.code === 'no_analysis' ? t('pl.noAnalysis') : errorText(e), failed: true };
  }
  if (P().replay === r) C.render();
}

// ---- replay ---------------------------------------------------------------------------------
/** Moves the replay by `d` frames (±Infinity: to the start or the end). */
export function step(d) {
  const r = P().replay;
  const n = r?.data?.frames?.length || 0;
  if (!n) return;
  const f = d === Infinity ? n - 1 : d === -Infinity ? 0 : Math.max(0, Math.min(n - 1, r.frame + d));
  if (f === r.frame) return;
  r.frame = f;
  C.render();
}

export function goTo(f) {
  const r = P().replay;
  r.frame = f;
  C.render();
}

/** The viewer's seat in the archived game (his own game), else null. */
export function viewerSeat(d) {
  const i = (d.seats || []).findIndex((s) => s?.kind === 'person' && s.player && s.player === S().player);
  return i < 0 ? null : i === 1 ? 'b' : 'a';
}

export function sideOf(game, seat, board) {
  if (game === 'thud') return t(board?.dwarfs === seat ? 'side.dwarfs' : 'side.trolls');
  return C.seatWord(seat, game);
}

/** "White · 6–3 · 24-18,18-15" for a frame (a pass: "no moves"). */
export function frameMove(game, fr, i) {
  // Thud!'s second round starts as a frame of its own, as the game does.
  if (!fr?.seat) return i > 0 && game === 'thud' ? t('pl.roundStart', { n: fr?.board?.round || 2 }) : t('pl.startPosition');
  const bits = [sideOf(game, fr.seat, fr.board)];
  if (fr.dice) bits.push(`${fr.dice[0]}–${fr.dice[1]}`);
  // No notation: a roll with no legal play, or (Thud!) a round ended by agreement or on time.
  bits.push(fr.notation || (game === 'thud' ? t('pl.roundEnd', { n: fr.board?.round || 1 }) : t('log.pass')));
  return bits.join(' · ');
}

export function replayPage() {
  const r = P().replay;
  const d = r?.data;
  const title = d ? `${t('pl.replay')}: ${C.gameName(d.game)}` : t('pl.replay');
  const out = [top(title)];
  if (!r || (!d && !r.error)) {
    out.push(status(t('pl.loading')));
    return h('main.players.replay', out);
  }
  if (r.error) {
    out.push(status(r.error, 'error', 'replay-error'));
    return h('main.players.replay', out);
  }
  const frames = d.frames || [];
  const last = Math.max(0, frames.length - 1);
  const fr = frames[r.frame] || {};
  const me = viewerSeat(d);
  const view = me || 'a';
  const side = h('div.replay-side');
  // Who played which side, the mover of this frame marked.
  const board = fr.board || frames[0]?.board;
  out.push(h('div#replay-players', ['a', 'b'].map((seat) => {
    const info = d.seats?.[seat === 'b' ? 1 : 0];
    const moving = fr.seat === seat;
    return h(`div.player${moving ? '.turn' : ''}${seat === me ? '.me' : ''}`, { 'data-seat': seat },
      h('span.who', C.avatar(seatText(info), C.photoOf(info)), h('b', seatText(info))),
      h('span.side', sideOf(d.game, seat, board)));
  })));
  const res = d.result;
  const verdict = me ? (res?.winner === me ? t('pl.won') : res?.winner ? t('pl.lost') : t('result.draw'))
    : res?.winner ? t('result.sideWon', { side: seatText(d.seats?.[res.winner === 'b' ? 1 : 0], { you: false }) }) : t('result.draw');
  out.push(h('p.replay-meta#replay-meta', [dateText(d.finishedMs), `${verdict} — ${resultText(res, me || 'a')}`, d.matchLength > 1 ? t('pl.match', { n: d.matchLength }) : null, d.rated ? t('pl.ratedMark') : t('pl.casual')].filter(Boolean).join(' · ')));
  const shareText = t(me ? (res?.winner === me ? 'share.won' : res?.winner ? 'share.lost' : 'share.draw') : 'share.watch', { game: C.gameName(d.game) });
  out.push(h('div.row.replay-share#replay-share-row', h('button#replay-share', { onclick: () => shareGame(d.room, d.gameNumber, shareText, 'replay') }, t('btn.share'))));
  out.push(sharedLinkBox('replay'));
  // The turn: its number, the mover, his dice and the notation.
  const counter = r.frame === 0 ? t('pl.turnStart', { n: last }) : t(d.game === 'thud' ? 'pl.plyOf' : 'pl.turnOf', { i: r.frame, n: last });
  side.append(h('div.replay-turn#replay-turn', { 'aria-live': 'polite', 'aria-atomic': 'true' },
    h('b#replay-counter', counter), h('span#replay-move', frameMove(d.game, fr, r.frame))));
  const nav = (id, icon, key, to, off) => h(`button.nav-btn#${id}`, { 'aria-label': t(key), title: t(key), disabled: off, onclick: () => step(to) }, navIcon(icon));
  side.append(h('div.replay-nav#replay-nav', { role: 'group', 'aria-label': t('pl.replayNav') },
    nav('replay-first', 'first', 'pl.first', -Infinity, r.frame === 0),
    nav('replay-prev', 'prev', 'pl.prev', -1, r.frame === 0),
    nav('replay-next', 'next', 'pl.next', 1, r.frame === last),
    nav('replay-last', 'last', 'pl.last', Infinity, r.frame === last)));
  side.append(h('input#replay-slider', { type: 'range', min: 0, max: last, value: r.frame, step: 1, 'aria-label': t('pl.slider'), 'aria-valuetext': counter, oninput: (e) => goTo(Number(e.target.value)) }));
  side.append(h('p.note.left#replay-keys', t('pl.keys')));
  // The analysis: long and short nardy only.
  if (d.game !== 'thud') side.append(analysisPart(r, d));
  if (d.game !== 'thud' && d.record) side.append(fairPart(r, d));
  const boardBox = h('div#replay-board', { 'data-frame': String(r.frame) });
  drawBoard(boardBox, d.game, fr.board || board, fr, view);
  return h('main.players.replay', h('div.replay-head', out), h('div#replay-board-wrap', boardBox), side);
}

/** The replay buttons' icons, drawn (no font is sure to have ⏮ and ⏭). */
export function navIcon(kind) {
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('width', '18');
  svg.setAttribute('height', '18');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const d = { first: 'M3 3h2v10H3z M13 3v10L6 8z', prev: 'M12 3v10L5 8z', next: 'M4 3v10l7-5z', last: 'M11 3h2v10h-2z M3 3v10l7-5z' }[kind];
  const path = document.createElementNS(NS, 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', 'currentColor');
  svg.append(path);
  return svg;
}

export function drawBoard(box, game, board, fr, view) {
  if (!board) {
    box.append(h('div.board-empty', t('pl.noBoard')));
    return;
  }
  if (game === 'thud') {
    renderThud(box, { label: (key, params) => t(`thud.${key}`, params), position: board.position, legalMoves: [], mine: null, myTurn: false, targets: new Map(), lastMove: fr.notation ? parseThud(fr.notation) : null });
    return;
  }
  let lastTurn = [];
  try {
    lastTurn = fr.seat && fr.notation ? parseSteps(game, fr.notation).map(([from, to]) => ({ seat: fr.seat, from: String(from), to: String(to) })) : [];
  } catch {}
  renderNardy(box, {
    label: (key, params) => t(`board.${key}`, params),
    game,
    position: board.position,
    seat: view,
    dice: fr.dice || null,
    diceLeft: null,
    lastTurn,
    movable: new Set(),
    targets: new Map(),
    selected: null,
    prompt: null,
  });
}

export function analysisPart(r, d) {
  const on = r.showAnalysis;
  const out = [h('button#analysis-toggle', {
    'aria-pressed': String(on), 'aria-controls': 'analysis',
    onclick: () => {
      r.showAnalysis = !r.showAnalysis;
      if (r.showAnalysis && (!r.analysis || r.analysis.failed)) {
        r.analysis = null;
        loadAnalysis();
      }
      C.render();
    },
  }, on ? t('pl.analysisHide') : t('pl.analysisShow'))];
  if (!on) return h('section.analysis-part', out);
  const a = r.analysis;
  const box = h('section.card.analysis#analysis', { 'aria-label': t('pl.analysis') });
  if (!a || a.loading) box.append(status(t('pl.analysing')));
  else if (a.error) box.append(status(a.error, 'error', 'analysis-error'));
  else {
    const turns = a.data?.turns || [];
    const cur = turns.find((x) => x.turn === r.frame);
    // This turn's verdict, beside the board.
    box.append(h('p.analysis-now#analysis-current', { 'aria-live': 'polite' },
      !cur ? (r.frame === 0 ? t('pl.analysisPick') : t('pl.analysisNone'))
        : cur.equityLost > 0 || cur.rank > 1 ? t('pl.analysisLost', { lost: equity(cur.equityLost), best: cur.best || '—', rank: cur.rank, plays: cur.plays })
          : t('pl.analysisBest', { plays: cur.plays })));
    const ps = a.data?.perSeat || {};
    box.append(h('table.per-seat#analysis-seats',
      h('caption', t('pl.perSeat')),
      h('thead', h('tr', h('th', { scope: 'col' }, t('pl.player')), h('th', { scope: 'col' }, t('pl.turns')), h('th', { scope: 'col' }, t('pl.lostTotal')), h('th', { scope: 'col' }, t('pl.lostMean')), h('th', { scope: 'col' }, t('pl.bestRate')))),
      h('tbody', ['a', 'b'].map((seat) => {
        const s = ps[seat];
        return h('tr', { 'data-seat': seat }, h('th', { scope: 'row' }, `${C.seatWord(seat, d.game)} · ${seatText(d.seats?.[seat === 'b' ? 1 : 0])}`),
          h('td', s ? String(s.turns) : '—'), h('td', s ? equity(s.equityLost) : '—'), h('td', s ? equity(s.meanEquityLost) : '—'),
          h('td', s && typeof s.bestPlayRate === 'number' ? `${Math.round(s.bestPlayRate * 100)}%` : '—'));
      }))));
    box.append(h('ol.analysis-list#analysis-list', { 'aria-label': t('pl.analysisTurns') }, turns.map((x) => {
      const blunder = x.equityLost > BLUNDER;
      const current = x.turn === r.frame;
      const best = !(x.equityLost > 0) && (x.rank ?? 1) <= 1;
      return h(`li${blunder ? '.blunder' : ''}${current ? '.current' : ''}`, { 'data-turn': String(x.turn), 'data-seat': x.seat },
        h('button.turn-row', { 'aria-current': current ? 'step' : null, onclick: () => goTo(Math.min(x.turn, (d.frames?.length || 1) - 1)) },
          h('span.t-n', `${x.turn}.`),
          h('span.t-who', `${C.seatWord(x.seat, d.game)}${x.dice ? ` ${x.dice[0]}–${x.dice[1]}` : ''}`),
          h('span.t-play', x.played || t('log.pass')),
          // Equity given up, with a minus once it shows in three decimals.
          h('span.t-lost', best ? t('pl.bestMark') : x.equityLost >= 0.0005 ? `−${equity(x.equityLost)}` : equity(0)),
          blunder ? h('span.badge.blunder-mark', t('pl.blunder')) : null,
          best || !x.best ? null : h('span.t-best', t('pl.bestWas', { best: x.best }))));
    })));
  }
  out.push(box);
  return h('section.analysis-part', out);
}

/** The dice's fairness: the record's server seed against its commitment, and the record itself for `tabula verify`. */
export function fairPart(r, d) {
  const rec = d.record || {};
  const seed = rec.serverSeed ?? rec.server_seed;
  const commit = rec.commitment;
  const v = r.verify;
  if (!r.recordUrl) {
    try {
      r.recordUrl = URL.createObjectURL(new Blob([JSON.stringify(rec, null, 2)], { type: 'application/json' }));
    } catch {}
  }
  return h('section.card.fairness#replay-fair', h('h2', t('fair.title')),
    commit ? h('p.mono', t('fair.commitment', { c: commit })) : null,
    seed ? h('p.mono', t('fair.seed', { s: seed })) : null,
    h('div.row',
      seed ? h('button#replay-verify', {
        onclick: async () => {
          const got = await sha256hex(seed);
          r.verify = commit ? { ok: got === commit, got } : { ok: null, got };
          C.render();
        },
      }, t('btn.verify')) : null,
      r.recordUrl ? h('a#replay-record', { href: r.recordUrl, download: `tabula-${d.room}-${d.gameNumber}.json` }, t('pl.record')) : null),
    v ? h(`p#replay-verify-result.${v.ok ? 'ok' : 'bad'}`, { role: 'status' }, v.ok ? t('fair.ok') : v.ok === null ? t('fair.hash', { h: v.got }) : t('fair.bad', { h: v.got })) : null);
}
