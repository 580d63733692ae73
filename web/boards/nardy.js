// Long nardy and short nardy (backgammon) boards as SVG.
//
// Orientation (seed 000): each player sees the board from his side, and
// both see their own checkers start top-right and travel counter-clockwise
// to their home bottom-right. Long nardy uses one numbering for both
// (white 24→1, black 12→1→24→13), so black's view is white's rotated 180°.
// Backgammon numbers each side's points 1..24 itself, so each viewer's
// points are drawn in his own numbering (the opponent's q is our 25-q).
//
// The board holds no rules: what can move comes from the server's
// `possibleMoves` (firstSteps / sequences), passed in by the app.

const NS = 'http://www.w3.org/2000/svg';
const M = 6; // margin
const PW = 28; // point width
const BAR = 20; // bar width
const TRAY = 32; // bear-off tray width
const HALF = 132; // height of one half
const GAP = 60; // the middle strip (point numbers, dice, messages)
const R = 13; // checker radius
export const WIDTH = M + 12 * PW + BAR + M + TRAY + M;
export const HEIGHT = M + HALF + GAP + HALF + M;
const TRAY_X = M + 12 * PW + BAR + M;

/** Steps of a notation string: long `"24-18,18-13"`, `"5-off"`; backgammon `"24/18 13/7*"`, `"bar/22"`. */
export function parseSteps(game, seq) {
  if (!seq) return [];
  const out = [];
  if (game === 'long_nardy') {
    for (const s of seq.split(',')) {
      const [from, to] = s.trim().split('-');
      if (from && to) out.push([from, to]);
    }
    return out;
  }
  for (let s of seq.trim().split(/\s+/)) {
    let times = 1;
    const m = s.match(/^(.*)\((\d)\)$/);
    if (m) {
      s = m[1];
      times = Number(m[2]);
    }
    const parts = s.replace(/\*/g, '').split('/');
    for (let t = 0; t < times; t++) {
      for (let i = 0; i + 1 < parts.length; i++) out.push([parts[i], parts[i + 1]]);
    }
  }
  return out;
}

/**
 * What one tap on a checker offers: each reachable target with the steps
 * that reach it. A target two (or more) steps away is offered only along a
 * listed sequence whose first steps move this same checker, so every stop
 * on the way is legal.
 */
export function targetsFrom(game, moves, from) {
  const targets = new Map();
  if (!moves) return targets;
  for (const fs of moves.firstSteps || []) {
    const [f, t] = parseSteps(game, fs)[0] || [];
    if (f === from && !targets.has(t)) targets.set(t, [[f, t]]);
  }
  for (const seq of moves.sequences || []) {
    const steps = parseSteps(game, seq);
    if (!steps.length || steps[0][0] !== from) continue;
    let cur = from;
    const path = [];
    for (const [f, t] of steps) {
      if (f !== cur) break;
      path.push([f, t]);
      cur = t;
      if (!targets.has(t) || targets.get(t).length > path.length) targets.set(t, path.slice());
      if (t === 'off') break;
    }
  }
  return targets;
}

/** The points with a checker that may move now. */
export function movableFrom(game, moves) {
  const s = new Set();
  for (const fs of moves?.firstSteps || []) {
    const st = parseSteps(game, fs)[0];
    if (st) s.add(st[0]);
  }
  return s;
}

const count = (side, p) => (side && side[String(p)]) || 0;
const sum = (side) => Object.values(side || {}).reduce((a, b) => a + b, 0);

/** Pip counts [seat a, seat b] (display only). */
export function pips(game, pos) {
  if (!pos) return [0, 0];
  if (game === 'long_nardy') {
    let w = 0;
    let b = 0;
    for (const [p, n] of Object.entries(pos.white || {})) w += Number(p) * n;
    for (const [p, n] of Object.entries(pos.black || {})) {
      const q = Number(p);
      b += (q >= 13 ? q - 12 : q + 12) * n;
    }
    return [w, b];
  }
  const side = (s, bar) => {
    let t = 25 * (bar || 0);
    for (const [p, n] of Object.entries(s || {})) t += Number(p) * n;
    return t;
  };
  return [side(pos.white, pos.bar?.white), side(pos.black, pos.bar?.black)];
}

/** Checkers borne off [seat a, seat b]. */
export function borneOff(game, pos) {
  if (!pos) return [0, 0];
  if (pos.off && typeof pos.off.white === 'number') return [pos.off.white, pos.off.black];
  const bar = pos.bar || {};
  return [15 - sum(pos.white) - (bar.white || 0), 15 - sum(pos.black) - (bar.black || 0)];
}

/** Applies a `moved` event to a position (display bookkeeping; the server decided it). */
export function applyStep(game, pos, seat, from, to, hit) {
  const me = seat === 'a' ? 'white' : 'black';
  const opp = me === 'white' ? 'black' : 'white';
  pos[me] = { ...(pos[me] || {}) };
  const dec = (side, p) => {
    const k = String(p);
    side[k] = (side[k] || 0) - 1;
    if (side[k] <= 0) delete side[k];
  };
  if (from === 'bar') {
    pos.bar = { ...(pos.bar || { white: 0, black: 0 }) };
    pos.bar[me] = Math.max(0, (pos.bar[me] || 0) - 1);
  } else {
    dec(pos[me], from);
  }
  if (to === 'off') {
    if (pos.off) pos.off = { ...pos.off, [me]: (pos.off[me] || 0) + 1 };
  } else {
    pos[me][String(to)] = (pos[me][String(to)] || 0) + 1;
    if (game === 'backgammon' && hit) {
      pos[opp] = { ...(pos[opp] || {}) };
      dec(pos[opp], 25 - Number(to));
      pos.bar = { ...(pos.bar || { white: 0, black: 0 }) };
      pos.bar[opp] = (pos.bar[opp] || 0) + 1;
    }
  }
}

/** Where point `v` (in the viewer's numbering) is drawn: top row or bottom, column 0..11 from the left. */
export function slot(v, rotated) {
  let top = v >= 13;
  let col = top ? v - 13 : 12 - v;
  if (rotated) {
    top = !top;
    col = 11 - col;
  }
  return { top, col };
}

const colX = (col) => M + col * PW + PW / 2 + (col >= 6 ? BAR : 0);

function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function drawDie(g, x, y, n, used) {
  const s = 24;
  const d = el('g', { class: `die${used ? ' used' : ''}`, transform: `translate(${x - s / 2},${y - s / 2})`, 'data-die': n }, g);
  el('rect', { width: s, height: s, rx: 5 }, d);
  const P = { 1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]], 4: [[1, 1], [3, 1], [1, 3], [3, 3]], 5: [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]], 6: [[1, 1], [3, 1], [1, 2], [3, 2], [1, 3], [3, 3]] };
  for (const [px, py] of P[n] || []) el('circle', { cx: (px * s) / 4, cy: (py * s) / 4, r: 2.6, class: 'pip' }, d);
}

/**
 * Draws the board into `root` (replacing its content).
 * o: { game, position, seat ('a'|'b'|null), dice, diceLeft, movable:Set, selected, targets:Map,
 *      lastMove:{from,to,seat}, prompt:string|null, offGlow:boolean }
 */
export function renderNardy(root, o) {
  const long = o.game === 'long_nardy';
  const pos = o.position || { white: {}, black: {} };
  const viewer = o.seat || 'a';
  const rotated = long && viewer === 'b';
  const mine = viewer === 'a' ? 'white' : 'black';
  const theirs = mine === 'white' ? 'black' : 'white';
  const svg = el('svg', {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    class: 'board nardy',
    'data-game': o.game,
    'data-view': viewer === 'b' ? 'black' : 'white',
    'data-rotated': rotated ? 'true' : 'false',
    role: 'img',
    'aria-label': 'board',
  });
  el('rect', { x: 0, y: 0, width: WIDTH, height: HEIGHT, rx: 10, class: 'frame' }, svg);
  el('rect', { x: M, y: M, width: 12 * PW + BAR, height: HEIGHT - 2 * M, class: 'felt' }, svg);
  el('rect', { x: M + 6 * PW, y: M, width: BAR, height: HEIGHT - 2 * M, class: 'bar', 'data-point': 'bar' }, svg);

  // Points.
  for (let v = 1; v <= 24; v++) {
    const { top, col } = slot(v, rotated);
    const x = colX(col);
    const y0 = top ? M : HEIGHT - M;
    const tip = top ? M + HALF - 10 : HEIGHT - M - HALF + 10;
    const shade = (col + (top ? 0 : 1)) % 2 ? 'pt-a' : 'pt-b';
    const g = el('g', { class: 'point', 'data-point': String(v) }, svg);
    if (o.targets?.has(String(v))) g.classList.add('target');
    el('rect', { x: x - PW / 2, y: top ? M : HEIGHT - M - HALF, width: PW, height: HALF, class: 'hit' }, g);
    el('polygon', { points: `${x - PW / 2 + 1},${y0} ${x + PW / 2 - 1},${y0} ${x},${tip}`, class: `tri ${shade}` }, g);
    el('text', { x, y: top ? M + HALF + 10 : HEIGHT - M - HALF - 3, class: 'num' }, g).textContent = v;
  }

  // Checkers.
  const stack = (v, n, color, isMine) => {
    if (!n) return;
    const { top, col } = slot(v, rotated);
    const x = colX(col);
    const shown = Math.min(n, 5);
    for (let i = 0; i < shown; i++) {
      const y = top ? M + R + 1 + i * 2 * R : HEIGHT - M - R - 1 - i * 2 * R;
      const last = i === shown - 1;
      const c = el('circle', { cx: x, cy: y, r: R - 0.5, class: `checker ${color}`, 'data-point': String(v) }, svg);
      if (isMine && last && o.movable?.has(String(v))) c.classList.add('movable');
      if (isMine && last && o.selected === String(v)) c.classList.add('selected');
      if (last && n > 5) {
        el('text', { x, y: y + 4, class: `count ${color}`, 'data-point': String(v) }, svg).textContent = n;
      }
    }
  };
  for (let v = 1; v <= 24; v++) {
    if (long) {
      stack(v, count(pos.white, v), 'white', mine === 'white');
      stack(v, count(pos.black, v), 'black', mine === 'black');
    } else {
      stack(v, count(pos[mine], v), mine, true);
      stack(v, count(pos[theirs], 25 - v), theirs, false);
    }
  }

  // Bar (backgammon): the viewer's hit checkers on the bottom half, the opponent's on the top.
  if (!long) {
    const bx = M + 6 * PW + BAR / 2;
    const bar = pos.bar || {};
    const draw = (n, color, top, isMine) => {
      for (let i = 0; i < Math.min(n, 4); i++) {
        const y = top ? M + HALF - R - i * 2 * R : HEIGHT - M - HALF + R + i * 2 * R;
        const c = el('circle', { cx: bx, cy: y, r: R - 3, class: `checker ${color}`, 'data-point': 'bar' }, svg);
        if (isMine && i === Math.min(n, 4) - 1 && o.movable?.has('bar')) c.classList.add('movable');
        if (isMine && o.selected === 'bar') c.classList.add('selected');
      }
      if (n > 4) el('text', { x: bx, y: top ? M + HALF - R + 4 : HEIGHT - M - HALF + R + 4, class: `count ${color}` }, svg).textContent = n;
    };
    draw(bar[theirs] || 0, theirs, true, false);
    draw(bar[mine] || 0, mine, false, true);
  }

  // All the viewer's checkers home (or off): his tray glows (a fact of the picture, not a rule).
  const homeOf = (p) => (long && mine === 'black' ? p >= 13 && p <= 18 : p >= 1 && p <= 6);
  const allHome =
    Boolean(o.seat) &&
    !(pos.bar && pos.bar[mine]) &&
    Object.entries(pos[mine] || {}).every(([p, n]) => !n || homeOf(Number(p)));
  // Bear-off trays: the viewer's at the bottom right (next to his home), the opponent's at the top.
  const off = borneOff(o.game, pos);
  const offOf = (side) => off[side === 'white' ? 0 : 1];
  const tray = (top, side, isMine) => {
    const y = top ? M : HEIGHT - M - HALF;
    const g = el('g', { class: 'tray', id: isMine ? 'tray' : 'tray-opp', 'data-point': isMine ? 'off' : undefined }, svg);
    if (isMine && (allHome || o.offGlow || o.targets?.has('off'))) g.classList.add('glow');
    if (isMine && o.targets?.has('off')) g.classList.add('target');
    el('rect', { x: TRAY_X, y, width: TRAY, height: HALF, rx: 4, class: 'tray-bg' }, g);
    const n = offOf(side);
    for (let i = 0; i < n; i++) {
      const yy = top ? y + 3 + i * 8 : y + HALF - 9 - i * 8;
      el('rect', { x: TRAY_X + 4, y: yy, width: TRAY - 8, height: 6, rx: 2, class: `off ${side}` }, g);
    }
    el('text', { x: TRAY_X + TRAY / 2, y: top ? y + HALF + 12 : y - 4, class: 'num off-count' }, g).textContent = n ? `${n}` : '';
  };
  tray(true, theirs, false);
  tray(false, mine, true);

  // Middle strip: dice and the prompt.
  const midY = M + HALF + GAP / 2;
  const mid = el('g', { class: 'mid' }, svg);
  if (o.dice && o.dice[0]) {
    const left = [...(o.diceLeft || [])];
    const dice = o.dice[0] === o.dice[1] ? [o.dice[0], o.dice[0], o.dice[0], o.dice[0]] : o.dice;
    const cx = M + 9 * PW + BAR;
    dice.forEach((d, i) => {
      const k = left.indexOf(d);
      const used = o.diceLeft ? k < 0 : false;
      if (k >= 0) left.splice(k, 1);
      drawDie(mid, cx + (i - (dice.length - 1) / 2) * 28, midY, d, used);
    });
  }
  if (o.prompt) {
    el('text', { x: M + 3 * PW, y: midY + 5, class: 'prompt' }, mid).textContent = o.prompt;
  }
  if (o.lastMove && o.lastMove.to && o.lastMove.to !== 'off') {
    const lv = long || o.lastMove.seat === viewer ? Number(o.lastMove.to) : 25 - Number(o.lastMove.to);
    if (lv >= 1 && lv <= 24) {
      const { top, col } = slot(lv, rotated);
      el('rect', { x: colX(col) - PW / 2 + 2, y: top ? M + HALF - 4 : HEIGHT - M - HALF + 1, width: PW - 4, height: 3, class: 'last' }, svg);
    }
  }
  root.replaceChildren(svg);
  return svg;
}
