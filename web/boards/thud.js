// The Thud! board as SVG: the 15×15 grid with its corners cut (seed 003's
// kill-positions: ranks 1 and 15 lose five squares at each end, 2 and 14
// four, … 5 and 11 one) and the Thudstone on h8. What may move comes from
// the server's `legalMoves`.

const NS = 'http://www.w3.org/2000/svg';
const SQ = 22;
const PAD = 14;
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

/**
 * o: { position: {dwarfs, trolls, turn}, legalMoves, mine: 'dwarfs'|'trolls'|null, myTurn,
 *      selected, targets: Map, lastMove: parsed move }
 */
export function renderThud(root, o) {
  const pos = o.position || { dwarfs: [], trolls: [] };
  const svg = el('svg', { viewBox: `0 0 ${SIZE} ${SIZE}`, class: 'board thud', 'data-game': 'thud', role: 'img', 'aria-label': 'board' });
  el('rect', { x: 0, y: 0, width: SIZE, height: SIZE, rx: 10, class: 'frame' }, svg);
  const movable = new Set();
  if (o.myTurn) for (const n of o.legalMoves || []) {
    const mv = parseThud(n);
    if (mv) movable.add(mv.from);
  }
  const captureMarks = new Set();
  if (o.targets) for (const list of o.targets.values()) for (const mv of list) for (const c of mv.captures) captureMarks.add(c);
  for (let r = 1; r <= 15; r++) {
    for (let f = 0; f < 15; f++) {
      if (!playable(f, r)) continue;
      const s = `${FILES[f]}${r}`;
      const g = el('g', { class: 'sq', 'data-sq': s }, svg);
      const cls = ['cell', (f + r) % 2 ? 'light' : 'dark'];
      if (o.lastMove && (o.lastMove.from === s || o.lastMove.to === s)) cls.push('last');
      el('rect', { x: PAD + f * SQ, y: PAD + (15 - r) * SQ, width: SQ, height: SQ, class: cls.join(' ') }, g);
      const tg = o.targets?.get(s);
      if (tg) {
        g.classList.add('target');
        const kinds = new Set(tg.map((m) => m.kind));
        const [cx, cy] = xy(s);
        el('circle', { cx, cy, r: 5, class: `dot ${[...kinds].join(' ')}${tg.some((m) => m.captures.length) ? ' capture' : ''}` }, g);
      }
    }
  }
  // Rank and file labels.
  for (let f = 0; f < 15; f++) el('text', { x: PAD + f * SQ + SQ / 2, y: SIZE - 3, class: 'num' }, svg).textContent = FILES[f];
  for (let r = 1; r <= 15; r++) el('text', { x: 7, y: PAD + (15 - r) * SQ + SQ / 2 + 3, class: 'num' }, svg).textContent = r;
  // The stone.
  const [sx, sy] = xy('h8');
  el('circle', { cx: sx, cy: sy, r: SQ / 2 - 2, class: 'stone', 'data-sq': 'h8' }, svg);
  const piece = (s, kind) => {
    const [cx, cy] = xy(s);
    const cls = ['piece', kind];
    const isMine = o.mine === (kind === 'dwarf' ? 'dwarfs' : 'trolls');
    if (isMine && movable.has(s)) cls.push('movable');
    if (o.selected === s) cls.push('selected');
    if (captureMarks.has(s)) cls.push('threatened');
    if (kind === 'dwarf') el('circle', { cx, cy, r: SQ / 2 - 3.5, class: cls.join(' '), 'data-sq': s }, svg);
    else el('rect', { x: cx - SQ / 2 + 2, y: cy - SQ / 2 + 2, width: SQ - 4, height: SQ - 4, rx: 4, class: cls.join(' '), 'data-sq': s }, svg);
  };
  for (const s of pos.dwarfs || []) piece(s, 'dwarf');
  for (const s of pos.trolls || []) piece(s, 'troll');
  if (o.lastMove) {
    for (const c of o.lastMove.captures || []) {
      const [cx, cy] = xy(c);
      el('path', { d: `M${cx - 6},${cy - 6}L${cx + 6},${cy + 6}M${cx + 6},${cy - 6}L${cx - 6},${cy + 6}`, class: 'captured' }, svg);
    }
  }
  root.replaceChildren(svg);
  return svg;
}

/** Round score as it stands: each dwarf 1, each troll 4 (display only). */
export function thudScore(pos) {
  return { dwarfs: (pos?.dwarfs || []).length, trolls: 4 * (pos?.trolls || []).length };
}
