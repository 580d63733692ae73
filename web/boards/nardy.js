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
//
// Geometry, made for a phone: at 390 px wide a checker is ≥ 32 px (the
// checkers are a little wider than the point pitch, as on a real board), a
// die 38 px, a point number 12.5 px. Two layouts share one drawing:
// `tall` (portrait: the bear-off trays are bands above and below the
// board, so the 12 points take the whole width) and `wide` (landscape:
// the trays stand at the right). `o.layout` picks one; without it the
// screen's orientation does, and the board redraws itself when that changes.
// Backgammon's hit checkers wait on the bar in the middle strip, left of the
// centre line; the dice fall in the right half.
//
// Markings, each its own shape (contrast figures: web/tests/board.test.mjs):
//   movable checker  a ring inside the checker (blue), the selected one a
//                    thicker orange ring and a dot;
//   target point     a landing ring where the checker would stand and a dot,
//                    and the point outlined (mint with a dark halo, so it
//                    stands out on light and dark points, felt and checkers);
//   bear-off target  the tray outlined the same way, with an arrow into it;
//   trays            "all home" is a dashed amber outline;
//   last move        amber marks on the point numbers: "to" a filled pill,
//                    "from" an outlined one: every step of `lastTurn` (an
//                    array of {seat, from, to}) when given and not empty,
//                    else `lastMove` (one step, or an array of them).
// Keyboard: movable checkers, target points and a target tray are
// role="button" tabindex="0" (they keep the data-point the app's taps
// read); arrow keys move the focus among them; a board redrawn while it had
// the focus gives it back to the same element (to the first target right
// after a checker is selected). Enter / Space are the app's (they play like
// a tap).
//
// Labels for screen readers come from `o.label(key, params)` when given (a
// translated string; a missing or empty answer falls back to English):
//   board     {game: 'long_nardy'|'backgammon', side: 'white'|'black'|null}
//             "Long nardy board, you play white"
//   point     {n, count, color: 'white'|'black'|null, last: 'from'|'to'|null}
//             "Point 13, 5 white checkers" / "Point 7, empty"
//   target    {n, count, color, steps}  "Target: point 18"
//   targetOff {count}   "Target: bear off into your tray"
//   checker   {n, color, count, movable, selected}  n a point or 'bar', count
//             the checkers there (drawn on the outermost past five)
//             "Your checker on point 24, movable" / "One of your 14 checkers on point 24, selected"
//   bar       {mine, theirs, color, theirColor}  "Bar: 1 white checker, 2 black checkers"
//   tray      {mine: true|false, count, color}  "Your tray: 3 checkers borne off"
//   die       {n, used}  "Die: 5" / "Die: 5, used"
// (thud.js takes the same kind of `label`; its keys are listed there.)

const NS = 'http://www.w3.org/2000/svg';
const D = 32.4; // checker diameter
const R = D / 2;
const M = 2; // frame at the sides and the ends
const BAR = 6; // the centre line (long nardy has no bar; backgammon's waits in the middle strip)
const PW = (390 - 2 * M - BAR) / 12; // point pitch: 31.67, a touch under a checker
const FELT_W = 12 * PW + BAR;
const NB = 17; // the band of point numbers at each end
const HALF = 5 * D + 2; // one half: five checkers
const GAP = 56; // the middle strip (dice, prompt, the bar's checkers)
const TRB = 30; // tall layout: a tray band
const TRAY = 38; // wide layout: the tray column
const DIE = 38;
const MAX_SHOWN = 8; // checkers drawn on one point (closer together past five; the count on top)

/** The drawing's geometry for a layout (`tall` or `wide`). */
export function geometry(layout) {
  const wide = layout === 'wide';
  const W = wide ? M + FELT_W + M + TRAY + M : M + FELT_W + M;
  const trb = wide ? 0 : TRB;
  const ptTop = M + trb + NB;
  const ptBot = ptTop + 2 * HALF + GAP;
  const H = ptBot + NB + trb + M;
  return { wide, W, H, ptTop, ptBot, midY: ptTop + HALF + GAP / 2, numTop: M + trb + NB / 2, numBot: ptBot + NB / 2 };
}
export const WIDTH = geometry('tall').W;
export const HEIGHT = geometry('tall').H;

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
/** English labels (the default of `o.label`). */
export const LABELS_EN = {
  board: ({ game, side }) => `${game === 'long_nardy' ? 'Long nardy' : 'Short nardy'} board${side ? `, you play ${side}` : ''}`,
  point: ({ n, count, color, last }) =>
    `Point ${n}, ${count ? plural(count, `${color} checker`, `${color} checkers`) : 'empty'}${last === 'to' ? ', last move ended here' : last === 'from' ? ', last move started here' : ''}`,
  target: ({ n }) => `Target: point ${n}`,
  targetOff: () => 'Target: bear off into your tray',
  checker: ({ n, count, movable, selected }) =>
    `${count > 1 ? `One of your ${count} checkers` : 'Your checker'} ${n === 'bar' ? 'on the bar' : `on point ${n}`}${selected ? ', selected' : movable ? ', movable' : ''}`,
  bar: ({ mine, theirs, color, theirColor }) =>
    `Bar: ${[mine ? plural(mine, `${color} checker`, `${color} checkers`) : '', theirs ? plural(theirs, `${theirColor} checker`, `${theirColor} checkers`) : ''].filter(Boolean).join(', ') || 'empty'}`,
  tray: ({ mine, count }) => `${mine ? 'Your' : 'Opponent’s'} tray: ${plural(count, 'checker', 'checkers')} borne off`,
  die: ({ n, used }) => `Die: ${n}${used ? ', used' : ''}`,
};

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
const CENTRE_X = M + 6 * PW + BAR / 2;
const RIGHT_HALF_X = M + 6 * PW + BAR + 3 * PW;

function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

const PIPS = { 1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]], 4: [[1, 1], [3, 1], [1, 3], [3, 3]], 5: [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]], 6: [[1, 1], [3, 1], [1, 2], [3, 2], [1, 3], [3, 3]] };

function drawDie(g, x, y, n, used, say) {
  const s = DIE;
  const d = el('g', { class: `die${used ? ' used' : ''}`, transform: `translate(${x - s / 2},${y - s / 2})`, 'data-die': n, role: 'img', 'aria-label': say('die', { n, used }) }, g);
  // The face inside a group of its own, which the app may tumble (its transform is free).
  const f = el('g', { class: 'tumble' }, d);
  el('rect', { width: s, height: s, rx: 7, class: 'die-face' }, f);
  for (const [px, py] of PIPS[n] || []) el('circle', { cx: (px * s) / 4, cy: (py * s) / 4, r: 3.7, class: 'pip' }, f);
}

/** A labeller: the app's `label(key, params)`, English where it has nothing. */
function labeller(fn) {
  return (key, params) => {
    let s = null;
    try {
      s = fn ? fn(key, params) : null;
    } catch {}
    return s || LABELS_EN[key](params);
  };
}

let layoutWatch = null;
/** Redraws the boards laid out by the orientation when it changes (the app redraws on state changes only). */
function watchLayout() {
  if (layoutWatch || typeof matchMedia !== 'function') return;
  layoutWatch = matchMedia('(orientation: landscape)');
  const redraw = () => {
    for (const r of document.querySelectorAll('[data-board-root="nardy"]')) if (r.__nardy && !r.__nardy.layout) renderNardy(r, r.__nardy);
  };
  if (layoutWatch.addEventListener) layoutWatch.addEventListener('change', redraw);
  else layoutWatch.addListener?.(redraw);
}

/** Arrow keys move the focus among the board's buttons (in drawing order, wrapping). */
function arrowKeys(svg) {
  svg.addEventListener('keydown', (ev) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[ev.key];
    if (!step) return;
    const list = [...svg.querySelectorAll('[tabindex="0"]')];
    if (!list.length) return;
    ev.preventDefault();
    const i = list.indexOf(document.activeElement);
    const next = list[(i < 0 ? (step > 0 ? 0 : list.length - 1) : i + step + list.length) % list.length];
    next.focus();
  });
}

/** Gives the focus back after a redraw (the board is rebuilt on every state change). */
function keepFocus(root, svg, o) {
  const prevSel = root.__nardySel;
  root.__nardySel = o.selected || null;
  const key = root.__focusKey;
  root.__focusKey = null;
  if (!key) return;
  let e = null;
  // A checker just selected from the keyboard: on to its first target.
  if (o.selected && prevSel !== o.selected && key === `c:${o.selected}`) e = svg.querySelector('.point.target, .tray.target');
  e = e || svg.querySelector(`[data-key="${key}"]`) || svg.querySelector('[tabindex="0"]');
  if (e) e.focus({ preventScroll: true });
}

/** Makes `e` a keyboard button with a label (and a key to find it again after a redraw). */
function button(e, label, key) {
  e.setAttribute('role', 'button');
  e.setAttribute('tabindex', '0');
  e.setAttribute('aria-label', label);
  e.setAttribute('data-key', key);
  return e;
}

/**
 * Draws the board into `root` (replacing its content).
 * o: { game, position, seat ('a'|'b'|null), dice, diceLeft, movable:Set, selected, targets:Map,
 *      lastMove: {from,to,seat} | [{from,to,seat}, …], lastTurn: [{from,to,seat}, …],
 *      prompt:string|null, offGlow:boolean,
 *      layout?: 'tall'|'wide', label?: (key, params) => string }
 */
export function renderNardy(root, o) {
  const say = labeller(o.label);
  const layout = o.layout || (typeof matchMedia === 'function' && matchMedia('(orientation: landscape)').matches ? 'wide' : 'tall');
  const G = geometry(layout);
  const long = o.game === 'long_nardy';
  const pos = o.position || { white: {}, black: {} };
  const viewer = o.seat || 'a';
  const rotated = long && viewer === 'b';
  const mine = viewer === 'a' ? 'white' : 'black';
  const theirs = mine === 'white' ? 'black' : 'white';
  // Remember what had the focus, to give it back once redrawn.
  const act = typeof document !== 'undefined' ? document.activeElement : null;
  root.__focusKey = act && root.contains(act) ? act.getAttribute('data-key') : null;

  const svg = el('svg', {
    viewBox: `0 0 ${G.W} ${G.H}`,
    class: 'board nardy',
    'data-game': o.game,
    'data-view': viewer === 'b' ? 'black' : 'white',
    'data-rotated': rotated ? 'true' : 'false',
    'data-layout': layout,
    role: 'group',
    'aria-label': say('board', { game: o.game, side: o.seat ? mine : null }),
  });
  const deco = el('g', { class: 'deco', 'aria-hidden': 'true' }, svg);
  el('rect', { x: 0, y: 0, width: G.W, height: G.H, rx: 8, class: 'frame' }, deco);
  el('rect', { x: M, y: G.ptTop, width: FELT_W, height: G.ptBot - G.ptTop, class: 'felt' }, deco);
  el('rect', { x: M + 6 * PW, y: G.ptTop, width: BAR, height: G.ptBot - G.ptTop, class: 'bar', 'data-point': 'bar' }, svg).setAttribute('aria-hidden', 'true');

  // The last move, in the viewer's numbering: {from: Set, to: Set} of points ('off', 'bar' too).
  const steps = o.lastTurn?.length ? o.lastTurn : Array.isArray(o.lastMove) ? o.lastMove : o.lastMove ? [o.lastMove] : [];
  const last = { from: new Set(), to: new Set(), offBy: new Set() };
  const viewPoint = (p, seat) => (p === 'off' || p === 'bar' || long || seat === viewer ? String(p) : String(25 - Number(p)));
  for (const s of steps) {
    if (!s || !s.to) continue;
    if (s.from != null) last.from.add(s.from === 'bar' ? `bar:${s.seat === viewer ? 'mine' : 'theirs'}` : viewPoint(String(s.from), s.seat));
    if (s.to === 'off') last.offBy.add(s.seat === viewer ? 'mine' : 'theirs');
    else last.to.add(viewPoint(String(s.to), s.seat));
  }

  // What stands on point v (viewer's numbering).
  const onPoint = (v) => {
    if (long) {
      const w = count(pos.white, v);
      const b = count(pos.black, v);
      return w ? { n: w, color: 'white' } : b ? { n: b, color: 'black' } : { n: 0, color: null };
    }
    const m = count(pos[mine], v);
    const t = count(pos[theirs], 25 - v);
    return m ? { n: m, color: mine } : t ? { n: t, color: theirs } : { n: 0, color: null };
  };
  const baseY = (top) => (top ? G.ptTop : G.ptBot);
  const stackY = (top, i, sp) => (top ? G.ptTop + 1 + R + i * sp : G.ptBot - 1 - R - i * sp);

  // Points: the triangle, its number on the band, a tap area over both.
  for (let v = 1; v <= 24; v++) {
    const { top, col } = slot(v, rotated);
    const x = colX(col);
    const y0 = baseY(top);
    const tip = top ? G.ptTop + HALF - 6 : G.ptBot - HALF + 6;
    const shade = (col + (top ? 0 : 1)) % 2 ? 'pt-a' : 'pt-b';
    const here = onPoint(v);
    const lastMark = last.to.has(String(v)) ? 'to' : last.from.has(String(v)) ? 'from' : null;
    const isTarget = o.targets?.has(String(v));
    const g = el('g', { class: 'point', 'data-point': String(v) }, svg);
    const params = { n: v, count: here.n, color: here.color, last: lastMark };
    if (isTarget) {
      g.classList.add('target');
      button(g, say('target', { ...params, steps: o.targets.get(String(v)) }), `t:${v}`);
    } else {
      g.setAttribute('role', 'img');
      g.setAttribute('aria-label', say('point', params));
    }
    el('rect', { x: x - PW / 2, y: top ? G.ptTop - NB : G.ptBot - HALF, width: PW, height: HALF + NB, class: 'hit' }, g);
    el('polygon', { points: `${x - PW / 2 + 0.8},${y0} ${x + PW / 2 - 0.8},${y0} ${x},${tip}`, class: `tri ${shade}` }, g);
    const ny = top ? G.numTop : G.numBot;
    if (last.to.has(String(v))) el('rect', { x: x - 13, y: ny - 8, width: 26, height: 16, rx: 8, class: 'last-to' }, g);
    if (last.from.has(String(v))) el('rect', { x: x - 12, y: ny - 7, width: 24, height: 14, rx: 7, class: 'last-from' }, g);
    el('text', { x, y: ny, class: `num${last.to.has(String(v)) ? ' on-last' : ''}`, 'dominant-baseline': 'central' }, g).textContent = v;
  }

  // Checkers: up to five a checker apart, more drawn closer (the count on the outermost).
  const checker = (parent, x, y, color, v, { isMine, outer, n, showCount }) => {
    const movable = isMine && outer && o.movable?.has(String(v));
    const selected = isMine && outer && o.selected === String(v);
    const g = el('g', { class: `checker ${color}`, 'data-point': String(v) }, parent);
    if (movable) g.classList.add('movable');
    if (selected) g.classList.add('selected');
    if (movable || selected) button(g, say('checker', { n: v === 'bar' ? 'bar' : Number(v), color, count: n, movable, selected }), `c:${v}`);
    else g.setAttribute('aria-hidden', 'true');
    el('circle', { cx: x, cy: y, r: R, class: 'body' }, g);
    if (movable || selected) {
      el('circle', { cx: x, cy: y, r: R + 3, class: 'focus' }, g);
      el('circle', { cx: x, cy: y, r: R - 4.2, class: selected ? 'ring sel' : 'ring' }, g);
      if (selected && !showCount) el('circle', { cx: x, cy: y, r: 4, class: 'sel-dot' }, g);
    }
    if (showCount) el('text', { x, y, class: `count ${color}`, 'dominant-baseline': 'central' }, g).textContent = n;
    return g;
  };
  const layer = el('g', { class: 'checkers' }, svg);
  for (let v = 1; v <= 24; v++) {
    const here = onPoint(v);
    if (!here.n) continue;
    const { top, col } = slot(v, rotated);
    const x = colX(col);
    const shown = Math.min(here.n, MAX_SHOWN);
    const sp = shown <= 5 ? D : (HALF - 2 - D) / (shown - 1);
    const isMine = here.color === mine && Boolean(o.seat);
    for (let i = 0; i < shown; i++) {
      const outer = i === shown - 1;
      checker(layer, x, stackY(top, i, sp), here.color, v, { isMine, outer, n: here.n, showCount: outer && here.n > 5 });
    }
  }

  // Backgammon's bar: its checkers wait in the middle strip, left of the centre line (ours nearest).
  if (!long) {
    const bar = pos.bar || {};
    const nm = bar[mine] || 0;
    const nt = bar[theirs] || 0;
    if (nm || nt) {
      const g = el('g', { class: 'bar-stack', role: 'img', 'aria-label': say('bar', { mine: nm, theirs: nt, color: mine, theirColor: theirs }) }, layer);
      if (nt) checker(g, CENTRE_X - 26 - D - 4, G.midY, theirs, 'bar', { isMine: false, outer: true, n: nt, showCount: nt > 1 });
      if (nm) {
        const c = checker(layer, CENTRE_X - 26, G.midY, mine, 'bar', { isMine: Boolean(o.seat), outer: true, n: nm, showCount: nm > 1 });
        if (c.getAttribute('role') !== 'button') g.appendChild(c);
      }
      if (last.from.has('bar:mine')) el('circle', { cx: CENTRE_X - 26, cy: G.midY, r: R + 3, class: 'last-from' }, layer);
      if (last.from.has('bar:theirs')) el('circle', { cx: CENTRE_X - 30 - D, cy: G.midY, r: R + 3, class: 'last-from' }, layer);
    }
  }

  // Bear-off trays: the viewer's by his home (bottom), the opponent's at the top.
  const homeOf = (p) => (long && mine === 'black' ? p >= 13 && p <= 18 : p >= 1 && p <= 6);
  const allHome =
    Boolean(o.seat) &&
    !(pos.bar && pos.bar[mine]) &&
    Object.entries(pos[mine] || {}).every(([p, n]) => !n || homeOf(Number(p)));
  const off = borneOff(o.game, pos);
  const offOf = (side) => off[side === 'white' ? 0 : 1];
  const trayBox = (top) => {
    if (G.wide) return { x: M + FELT_W + M, y: top ? G.ptTop : G.ptBot - HALF, w: TRAY, h: HALF };
    return { x: M + 2, y: top ? M + 3 : G.H - M - TRB + 3, w: G.W - 2 * M - 4, h: TRB - 6 };
  };
  const trays = {};
  const tray = (top, side, isMine) => {
    const b = trayBox(top);
    const n = offOf(side);
    const isTarget = isMine && o.targets?.has('off');
    const g = el('g', { class: 'tray', id: isMine ? 'tray' : 'tray-opp', 'data-point': isMine ? 'off' : undefined }, svg);
    if (isMine && (allHome || o.offGlow || isTarget)) g.classList.add('glow');
    if (isTarget) {
      g.classList.add('target');
      button(g, say('targetOff', { count: n }), 'off');
    } else {
      g.setAttribute('role', 'img');
      g.setAttribute('aria-label', say('tray', { mine: isMine, count: n, color: side }));
    }
    el('rect', { x: b.x, y: b.y, width: b.w, height: b.h, rx: 5, class: 'tray-bg' }, g);
    let tx;
    let ty;
    if (G.wide) {
      for (let i = 0; i < n; i++) {
        const yy = top ? b.y + 4 + i * 10.4 : b.y + b.h - 11 - i * 10.4;
        el('rect', { x: b.x + 4, y: yy, width: b.w - 8, height: 7, rx: 2, class: `off ${side}` }, g);
      }
      tx = b.x + b.w / 2;
      ty = top ? G.numTop : G.numBot;
    } else {
      for (let i = 0; i < n; i++) {
        el('rect', { x: b.x + b.w - 8 - (i + 1) * 10, y: b.y + 3, width: 7, height: b.h - 6, rx: 2, class: `off ${side}` }, g);
      }
      tx = b.x + b.w - 8 - n * 10 - 14;
      ty = b.y + b.h / 2;
    }
    const lastOff = last.offBy.has(isMine ? 'mine' : 'theirs');
    if (n && lastOff) el('rect', { x: tx - 12, y: ty - 8, width: 24, height: 16, rx: 8, class: 'last-to' }, g);
    el('text', { x: tx, y: ty, class: `num off-count${lastOff ? ' on-last' : ''}`, 'dominant-baseline': 'central' }, g).textContent = n ? `${n}` : '';
    trays[isMine ? 'mine' : 'theirs'] = b;
  };
  tray(true, theirs, false);
  tray(false, mine, true);

  // Middle strip: dice in the right half; the prompt there too when no dice are out.
  const mid = el('g', { class: 'mid' }, svg);
  const hasDice = Boolean(o.dice && o.dice[0]);
  if (hasDice) {
    const left = [...(o.diceLeft || [])];
    const dice = o.dice[0] === o.dice[1] ? [o.dice[0], o.dice[0], o.dice[0], o.dice[0]] : o.dice;
    const pitch = dice.length > 2 ? DIE + 3 : DIE + 8;
    dice.forEach((d, i) => {
      const k = left.indexOf(d);
      const used = o.diceLeft ? k < 0 : false;
      if (k >= 0) left.splice(k, 1);
      drawDie(mid, RIGHT_HALF_X + (i - (dice.length - 1) / 2) * pitch, G.midY, d, used, say);
    });
  }
  let prompt = null;
  if (o.prompt) {
    const x = hasDice ? M + 3 * PW : RIGHT_HALF_X;
    prompt = el('text', { x, y: G.midY, class: 'prompt', 'dominant-baseline': 'central' }, mid);
    prompt.textContent = o.prompt;
    // The room it has: its half of the strip, centred (a long one is made smaller to fit, below).
    prompt.__room = 2 * Math.min(x - M, M + FELT_W - x) - 8;
  }

  // Targets, over the checkers: the point outlined, a landing ring where the checker would stand, a dot.
  const marks = el('g', { class: 'marks', 'aria-hidden': 'true' }, svg);
  for (const t of o.targets?.keys?.() || []) {
    if (t === 'off') continue;
    const v = Number(t);
    if (!(v >= 1 && v <= 24)) continue;
    const { top, col } = slot(v, rotated);
    const x = colX(col);
    const y0 = baseY(top);
    const tip = top ? G.ptTop + HALF - 6 : G.ptBot - HALF + 6;
    const tri = `${x - PW / 2 + 2},${y0} ${x + PW / 2 - 2},${y0} ${x},${tip}`;
    const here = onPoint(v);
    const idx = here.color && here.color !== mine ? 0 : Math.min(here.n, 4);
    const y = stackY(top, idx, D);
    const g = el('g', { class: 'tmark-group', 'data-target': t }, marks);
    el('polygon', { points: tri, class: 'tmark-halo outline' }, g);
    el('polygon', { points: tri, class: 'tmark outline' }, g);
    el('circle', { cx: x, cy: y, r: R - 2, class: 'tmark-halo ring' }, g);
    el('circle', { cx: x, cy: y, r: R - 2, class: 'tmark ring' }, g);
    el('circle', { cx: x, cy: y, r: 4.5, class: 'tmark dot' }, g);
  }
  if (o.targets?.has?.('off') && trays.mine) {
    const b = trays.mine;
    const g = el('g', { class: 'tmark-group', 'data-target': 'off' }, marks);
    el('rect', { x: b.x + 1.5, y: b.y + 1.5, width: b.w - 3, height: b.h - 3, rx: 4, class: 'tmark-halo outline' }, g);
    el('rect', { x: b.x + 1.5, y: b.y + 1.5, width: b.w - 3, height: b.h - 3, rx: 4, class: 'tmark outline' }, g);
    // An arrow into the tray.
    const ax = G.wide ? b.x + b.w / 2 : b.x + 30;
    const ay = G.wide ? b.y + 22 : b.y + b.h / 2;
    const arrow = G.wide
      ? `M${ax - 8},${ay - 9} L${ax + 2},${ay} L${ax - 8},${ay + 9} M${ax - 13},${ay} L${ax + 1},${ay}`
      : `M${ax - 9},${ay - 5} L${ax},${ay + 5} L${ax + 9},${ay - 5}`;
    el('path', { d: arrow, class: 'tmark-halo arrow' }, g);
    el('path', { d: arrow, class: 'tmark arrow' }, g);
  }

  arrowKeys(svg);
  root.__nardy = o;
  root.setAttribute('data-board-root', 'nardy');
  root.replaceChildren(svg);
  // A prompt longer than its room ("Нажмите, чтобы бросить") is set smaller, never cut.
  if (prompt?.getComputedTextLength && svg.isConnected) {
    const w = prompt.getComputedTextLength();
    if (w > prompt.__room) prompt.style.fontSize = `${Math.floor((160 * prompt.__room) / w) / 10}px`;
  }
  keepFocus(root, svg, o);
  watchLayout();
  return svg;
}
