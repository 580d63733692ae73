// The Thud! board as SVG: the 15×15 grid with its corners cut (seed 003's
// kill-positions: ranks 1 and 15 lose five squares at each end, 2 and 14
// four, … 5 and 11 one) and the Thudstone on h8. What may move comes from
// the server's `legalMoves`.
//
// Square, it takes the whole width in portrait and the whole height in
// landscape (style.css). Markings, each its own shape: a movable piece has a
// light ring inside it, the selected one a thicker orange ring; a
// destination a mint dot with a dark halo (red, larger, where the move
// captures; a hurl or shove dot is ringed); the pieces a move would capture
// a dashed red outline; the last move a dashed outline on its square of
// departure and a solid one on its square of arrival, the pieces it took a
// red cross. Movable pieces and destinations are role="button"
// tabindex="0" (with the data-sq the app's taps read); arrow keys move the
// focus among them, and a redraw gives the focus back.
//
// Labels for screen readers come from `o.label(key, params)` when given
// (English where it returns nothing):
//   board   {side: 'dwarfs'|'trolls'|null}  "Thud! board, you play the dwarfs"
//   square  {sq, piece: 'dwarf'|'troll'|'stone', last: 'from'|'to'|null}  "f1: dwarf"
//   piece   {sq, piece, movable, selected}  "Your dwarf on f1, movable"
//   target  {sq, kinds: ['move'|'hurl'|'step'|'shove'], captures}  "Target: f3, hurl, captures 1"

const NS = 'http://www.w3.org/2000/svg';
const SQ = 24;
const PAD = 15;
export const SIZE = PAD * 2 + 15 * SQ;
const FILES = 'abcdefghijklmno';

/** Squares cut from each end of rank r (1..15). */
const cut = (r) => Math.max(0, 5 - (r <= 7 ? r - 1 : 15 - r));
export const playable = (f, r) => f >= cut(r) && f < 15 - cut(r);

/** `Da6-b6` → {piece, from, to, kind: move|hurl|step, captures}. */
export function parseThud(n) {
  const m = /^([DT])([a-o]\d{1,2})([-x])([a-o]\d{1,2})((?:x[a-o]\d{1,2})*)$/.exec(n);
  if (!m) return null;
  const captures = m[5] ? m[5].split('x').filter(Boolean) : [];
  if (m[3] === 'x') captures.unshift(m[4]); // a hurl captures the troll it lands on
  let kind = m[1] === 'D' ? (m[3] === 'x' ? 'hurl' : 'move') : 'step';
  if (m[1] === 'T') {
    const d = Math.max(Math.abs(sqFile(m[2]) - sqFile(m[4])), Math.abs(sqRank(m[2]) - sqRank(m[4])));
    if (d > 1) kind = 'shove';
  }
  return { notation: n, piece: m[1], from: m[2], to: m[4], kind, captures };
}

const sqFile = (s) => FILES.indexOf(s[0]);
const sqRank = (s) => Number(s.slice(1));

function xy(s) {
  return [PAD + sqFile(s) * SQ + SQ / 2, PAD + (15 - sqRank(s)) * SQ + SQ / 2];
}

function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/** The moves of the piece on `from`, grouped by destination. */
export function thudTargets(legalMoves, from) {
  const t = new Map();
  for (const n of legalMoves || []) {
    const mv = parseThud(n);
    if (!mv || mv.from !== from) continue;
    if (!t.has(mv.to)) t.set(mv.to, []);
    t.get(mv.to).push(mv);
  }
  return t;
}

const LABELS_EN = {
  board: ({ side }) => `Thud! board${side ? `, you play the ${side}` : ''}`,
  square: ({ sq, piece, last }) => `${sq}: ${piece}${last === 'to' ? ', last move ended here' : last === 'from' ? ', last move started here' : ''}`,
  piece: ({ sq, piece, movable, selected }) => `Your ${piece} on ${sq}${selected ? ', selected' : movable ? ', movable' : ''}`,
  target: ({ sq, kinds, captures }) => `Target: ${sq}${kinds.filter((k) => k === 'hurl' || k === 'shove').map((k) => `, ${k}`).join('')}${captures ? `, captures ${captures}` : ''}`,
};
export { LABELS_EN as THUD_LABELS_EN };

function labeller(fn) {
  return (key, params) => {
    let s = null;
    try {
      s = fn ? fn(key, params) : null;
    } catch {}
    return s || LABELS_EN[key](params);
  };
}

function button(e, label, key) {
  e.setAttribute('role', 'button');
  e.setAttribute('tabindex', '0');
  e.setAttribute('aria-label', label);
  e.setAttribute('data-key', key);
}

/**
 * o: { position: {dwarfs, trolls, turn}, legalMoves, mine: 'dwarfs'|'trolls'|null, myTurn,
 *      selected, targets: Map, lastMove: parsed move, label?: (key, params) => string }
 */
export function renderThud(root, o) {
  const say = labeller(o.label);
  const pos = o.position || { dwarfs: [], trolls: [] };
  const act = typeof document !== 'undefined' ? document.activeElement : null;
  const focusKey = act && root.contains(act) ? act.getAttribute('data-key') : null;
  const prevSel = root.__thudSel;
  root.__thudSel = o.selected || null;
  const svg = el('svg', { viewBox: `0 0 ${SIZE} ${SIZE}`, class: 'board thud', 'data-game': 'thud', role: 'group', 'aria-label': say('board', { side: o.mine }) });
  el('rect', { x: 0, y: 0, width: SIZE, height: SIZE, rx: 10, class: 'frame', 'aria-hidden': 'true' }, svg);
  const movable = new Set();
  if (o.myTurn) for (const n of o.legalMoves || []) {
    const mv = parseThud(n);
    if (mv) movable.add(mv.from);
  }
  const captureMarks = new Set();
  if (o.targets) for (const list of o.targets.values()) for (const mv of list) for (const c of mv.captures) captureMarks.add(c);
  const at = new Map();
  for (const s of pos.dwarfs || []) at.set(s, 'dwarf');
  for (const s of pos.trolls || []) at.set(s, 'troll');
  const lastOf = (s) => (o.lastMove?.to === s ? 'to' : o.lastMove?.from === s ? 'from' : null);
  for (let r = 1; r <= 15; r++) {
    for (let f = 0; f < 15; f++) {
      if (!playable(f, r)) continue;
      const s = `${FILES[f]}${r}`;
      const g = el('g', { class: 'sq', 'data-sq': s }, svg);
      el('rect', { x: PAD + f * SQ, y: PAD + (15 - r) * SQ, width: SQ, height: SQ, class: `cell ${(f + r) % 2 ? 'light' : 'dark'}` }, g);
      const tg = o.targets?.get(s);
      const piece = at.get(s) || (s === 'h8' ? 'stone' : null);
      if (tg) {
        g.classList.add('target');
        const kinds = [...new Set(tg.map((m) => m.kind))];
        const captures = Math.max(0, ...tg.map((m) => m.captures.length));
        button(g, say('target', { sq: s, kinds, captures }), `t:${s}`);
      } else if (piece) {
        g.setAttribute('role', 'img');
        g.setAttribute('aria-label', say('square', { sq: s, piece, last: lastOf(s) }));
      } else {
        g.setAttribute('aria-hidden', 'true');
      }
    }
  }
  // Rank and file labels.
  const labels = el('g', { class: 'labels', 'aria-hidden': 'true' }, svg);
  for (let f = 0; f < 15; f++) el('text', { x: PAD + f * SQ + SQ / 2, y: SIZE - PAD / 2, class: 'num', 'dominant-baseline': 'central' }, labels).textContent = FILES[f];
  for (let r = 1; r <= 15; r++) el('text', { x: PAD / 2, y: PAD + (15 - r) * SQ + SQ / 2, class: 'num', 'dominant-baseline': 'central' }, labels).textContent = r;
  // The last move: dashed outline where it left, solid where it arrived.
  const marks = el('g', { class: 'marks', 'aria-hidden': 'true' }, svg);
  if (o.lastMove) {
    for (const [s, cls] of [[o.lastMove.from, 'last-from'], [o.lastMove.to, 'last-to']]) {
      if (!s) continue;
      const [cx, cy] = xy(s);
      el('rect', { x: cx - SQ / 2 + 1.75, y: cy - SQ / 2 + 1.75, width: SQ - 3.5, height: SQ - 3.5, rx: 2, class: cls }, marks);
    }
  }
  // The stone.
  const [sx, sy] = xy('h8');
  el('circle', { cx: sx, cy: sy, r: SQ / 2 - 3, class: 'stone', 'data-sq': 'h8', 'aria-hidden': 'true' }, svg);
  const piece = (s, kind) => {
    const [cx, cy] = xy(s);
    const isMine = o.mine === (kind === 'dwarf' ? 'dwarfs' : 'trolls');
    const mov = isMine && movable.has(s);
    const sel = o.selected === s;
    const g = el('g', { class: `piece ${kind}`, 'data-sq': s }, svg);
    if (mov) g.classList.add('movable');
    if (sel) g.classList.add('selected');
    if (captureMarks.has(s)) g.classList.add('threatened');
    if (mov || sel) button(g, say('piece', { sq: s, piece: kind, movable: mov, selected: sel }), `p:${s}`);
    else g.setAttribute('aria-hidden', 'true');
    const ring = mov || sel;
    if (kind === 'dwarf') {
      el('circle', { cx, cy, r: SQ / 2 - 3, class: 'body' }, g);
      if (ring) {
        el('circle', { cx, cy, r: SQ / 2, class: 'focus' }, g);
        el('circle', { cx, cy, r: SQ / 2 - 6.5, class: sel ? 'ring sel' : 'ring' }, g);
      }
    } else {
      el('rect', { x: cx - SQ / 2 + 2.5, y: cy - SQ / 2 + 2.5, width: SQ - 5, height: SQ - 5, rx: 4, class: 'body' }, g);
      if (ring) {
        el('rect', { x: cx - SQ / 2 + 0.5, y: cy - SQ / 2 + 0.5, width: SQ - 1, height: SQ - 1, rx: 5, class: 'focus' }, g);
        el('rect', { x: cx - SQ / 2 + 6, y: cy - SQ / 2 + 6, width: SQ - 12, height: SQ - 12, rx: 2, class: sel ? 'ring sel' : 'ring' }, g);
      }
    }
    if (captureMarks.has(s)) {
      el(kind === 'dwarf' ? 'circle' : 'rect', kind === 'dwarf'
        ? { cx, cy, r: SQ / 2 - 1, class: 'threat' }
        : { x: cx - SQ / 2 + 1, y: cy - SQ / 2 + 1, width: SQ - 2, height: SQ - 2, rx: 4, class: 'threat' }, g);
    }
  };
  for (const s of pos.dwarfs || []) piece(s, 'dwarf');
  for (const s of pos.trolls || []) piece(s, 'troll');
  // Destinations, over the pieces (a hurl lands on a troll).
  const dots = el('g', { class: 'marks', 'aria-hidden': 'true' }, svg);
  for (const [s, tg] of o.targets || []) {
    const [cx, cy] = xy(s);
    const kinds = [...new Set(tg.map((m) => m.kind))];
    const cap = tg.some((m) => m.captures.length);
    const r = cap ? 6.5 : 5;
    el('circle', { cx, cy, r, class: `dot-halo${cap ? ' capture' : ''}` }, dots);
    el('circle', { cx, cy, r, class: `dot ${kinds.join(' ')}${cap ? ' capture' : ''}` }, dots);
    if (kinds.includes('hurl') || kinds.includes('shove')) el('circle', { cx, cy, r: r + 3.5, class: `dot-ring${cap ? ' capture' : ''}` }, dots);
  }
  if (o.lastMove) {
    for (const c of o.lastMove.captures || []) {
      const [cx, cy] = xy(c);
      const d = `M${cx - 6},${cy - 6}L${cx + 6},${cy + 6}M${cx + 6},${cy - 6}L${cx - 6},${cy + 6}`;
      el('path', { d, class: 'captured-halo' }, dots);
      el('path', { d, class: 'captured' }, dots);
    }
  }
  svg.addEventListener('keydown', (ev) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[ev.key];
    if (!step) return;
    const list = [...svg.querySelectorAll('[tabindex="0"]')];
    if (!list.length) return;
    ev.preventDefault();
    const i = list.indexOf(document.activeElement);
    list[(i < 0 ? (step > 0 ? 0 : list.length - 1) : i + step + list.length) % list.length].focus();
  });
  root.replaceChildren(svg);
  if (focusKey) {
    let e = null;
    if (o.selected && prevSel !== o.selected && focusKey === `p:${o.selected}`) e = svg.querySelector('.sq.target');
    e = e || svg.querySelector(`[data-key="${focusKey}"]`) || svg.querySelector('[tabindex="0"]');
    if (e) e.focus({ preventScroll: true });
  }
  return svg;
}

/** Round score as it stands: each dwarf 1, each troll 4 (display only). */
export function thudScore(pos) {
  return { dwarfs: (pos?.dwarfs || []).length, trolls: 4 * (pos?.trolls || []).length };
}
