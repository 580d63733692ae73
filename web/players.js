// The player's own screens (issue 24): his profile (ratings with rank,
// statistics, deleting his data), the history of his finished games with
// a replay of each (turn by turn, the computer's analysis of long and
// short nardy), and the leaderboards. Plain HTTP (GET /api/me/profile,
// DELETE /api/me, GET /api/me/history, GET /api/games/{room}/{n} and its
// /analysis, GET /api/leaderboards/{game}), sent with the player's
// credentials as /api/me/games is (docs/protocol.md, "Players, history
// and ratings").
//
// The app passes in what it shares (the element builder, the header, its
// credentials, names of games and levels, the confirmation, …) through
// `setup`; the boards are the room's own renderers, drawn read-only.

import { api } from './net.js';
import { renderNardy, parseSteps } from './boards/nardy.js';
import { renderThud, parseThud } from './boards/thud.js';
import { sha256hex } from './sha256.js';
import { t, lang } from './i18n.js';
import { shownName } from './names.js';

/** The screens this module draws (`S.screen`). */
export const SCREENS = new Set(['profile', 'history', 'replay', 'leaderboard']);
const GAME_KINDS = ['long_nardy', 'backgammon', 'thud'];
/** A turn that gave up more than this much equity is a blunder. */
export const BLUNDER = 0.08;
const PAGE = 20;

let C = null;
const S = () => C.S;
/** This module's part of the app's state. */
const P = () => S().pl;

/**
 * ctx: { S, h, header, render, credHeaders, gameName, levelName, kindName,
 *        reasonFor, seatWord, avatar, photoOf, gameStats, statsTable, ask,
 *        toast, loadStats, tgActive }
 */
export function setup(ctx) {
  C = ctx;
  ctx.S.pl = {
    back: 'lobby',
    focusTitle: false,
    profile: null,
    history: { filters: { game: '', opponent: '' }, games: [], next: null, loading: false, error: null, loaded: false, seq: 0 },
    replay: null,
    board: { game: 'long_nardy', period: 'all', data: null, loading: false, error: null, seq: 0 },
    deleted: null,
  };
}

const h = (...a) => C.h(...a);

/** The server's answer as a short sentence (no store on this node, not found, …). */
function errorText(e) {
  if (e?.status === 503 || e?.code === 'no_store') return t('pl.noStore');
  if (e?.status === 404) return t('pl.notFound');
  if (e?.status === 401) return t('pl.signIn');
  return e?.message || t('pl.failed');
}

/** Whether the app knows who the player is (a guest's token comes with `welcome`). */
const known = () => Boolean(S().player);

// ---- navigation ---------------------------------------------------------------

/** Opens a screen: `profile`, `history`, `leaderboard`, or `replay` with {room, gameNumber}. */
export function open(screen, arg) {
  const st = S();
  if (screen === 'replay') {
    // Back goes to the list it was opened from (a shared link: the lobby).
    P().back = st.screen === 'history' ? 'history' : 'lobby';
    openReplay(arg.room, arg.gameNumber);
  } else {
    P().back = 'lobby';
  }
  st.screen = screen;
  P().focusTitle = true;
  P().openedAt = Date.now();
  if (screen === 'profile') loadProfile();
  // From the lobby the list starts again (a game may have ended since); back from a replay it stays as it was.
  if (screen === 'history') loadHistory(true);
  if (screen === 'leaderboard') loadBoard();
  setUrl();
  C.render();
}

/** Back: from a replay to the list it was opened from, else to the lobby. */
export function back() {
  const st = S();
  if (st.screen === 'replay' && P().back === 'history') {
    st.screen = 'history';
    closeReplay();
    if (!P().history.loaded) loadHistory(true);
  } else {
    st.screen = 'lobby';
    closeReplay();
    C.loadStats?.();
  }
  P().focusTitle = true;
  setUrl();
  C.render();
}

/** A replay has an address of its own (`?replay=<room>.<game>`): a record is public, so it may be shared. */
function setUrl() {
  const r = P().replay;
  const q = S().screen === 'replay' && r ? `?replay=${encodeURIComponent(r.room)}.${r.gameNumber}` : '';
  history.replaceState(null, '', `${location.pathname}${q}${location.hash}`);
}

/** `?replay=<room>.<game>` as {room, gameNumber}, or null. */
export function replayParam(value) {
  const m = /^([A-Za-z0-9_-]{1,64})\.(\d{1,6})$/.exec(value || '');
  return m ? { room: m[1], gameNumber: Number(m[2]) } : null;
}

/** The welcome arrived: a screen opened before it knew the player loads now. */
export function onWelcome() {
  const s = S().screen;
  if (s === 'profile' && !P().profile?.data) loadProfile();
  if (s === 'history' && !P().history.loaded) loadHistory(true);
  if (s === 'leaderboard' && !P().board.data) loadBoard();
}

/** Keys of the replay: ← → a turn back and on, Home / End the start and the end. */
export function onKey(ev) {
  if (S().screen !== 'replay' || S().sheet || S().confirm) return false;
  const tag = ev.target?.tagName;
  if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || ev.altKey || ev.ctrlKey || ev.metaKey) return false;
  const to = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity }[ev.key];
  if (to === undefined || !P().replay?.data) return false;
  ev.preventDefault();
  step(to);
  return true;
}

// ---- loading --------------------------------------------------------------------

async function loadProfile() {
  const p = P();
  p.profile = { ...(p.profile || {}), loading: true, error: null };
  if (!known()) return;
  try {
    const data = await api('GET', '/api/me/profile', undefined, C.credHeaders());
    p.profile = { data, loading: false, error: null };
  } catch (e) {
    p.profile = { data: null, loading: false, error: errorText(e) };
  }
  if (S().screen === 'profile') C.render();
}

async function loadHistory(reset) {
  const hs = P().history;
  if (reset) {
    hs.games = [];
    hs.next = null;
    hs.loaded = false;
  }
  hs.loading = true;
  hs.error = null;
  const seq = ++hs.seq;
  if (!known()) return;
  const q = new URLSearchParams({ limit: String(PAGE) });
  if (hs.filters.game) q.set('game', hs.filters.game);
  if (hs.filters.opponent) q.set('opponent', hs.filters.opponent);
  if (!reset && hs.next) q.set('after', hs.next);
  try {
    const r = await api('GET', `/api/me/history?${q}`, undefined, C.credHeaders());
    if (seq !== hs.seq) return;
    hs.games = reset ? r.games || [] : [...hs.games, ...(r.games || [])];
    hs.next = r.next || null;
    hs.loaded = true;
  } catch (e) {
    if (seq !== hs.seq) return;
    hs.error = errorText(e);
  }
  hs.loading = false;
  if (S().screen === 'history') C.render();
}

function closeReplay() {
  const r = P().replay;
  if (r?.recordUrl) URL.revokeObjectURL(r.recordUrl);
  P().replay = null;
}

async function openReplay(room, gameNumber) {
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
}

async function loadAnalysis() {
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

async function loadBoard() {
  const b = P().board;
  b.loading = true;
  b.error = null;
  const seq = ++b.seq;
  if (!known()) return;
  try {
    const data = await api('GET', `/api/leaderboards/${b.game}?period=${b.period}&limit=100`, undefined, C.credHeaders());
    if (seq !== b.seq) return;
    b.data = data;
  } catch (e) {
    if (seq !== b.seq) return;
    b.data = null;
    b.error = errorText(e);
  }
  b.loading = false;
  if (S().screen === 'leaderboard') C.render();
}

function deleteData() {
  C.ask(t('pl.deleteAsk'), t('pl.deleteYes'), async () => {
    try {
      const r = await api('DELETE', '/api/me', undefined, C.credHeaders());
      P().deleted = r?.deleted || true;
      // Nothing of his is left: the lists start again from the server.
      Object.assign(P().history, { games: [], next: null, loaded: false });
      P().board.data = null;
      C.toast(t('pl.deletedToast'), 'info', 4000);
      await loadProfile();
      C.loadStats?.();
    } catch (e) {
      C.toast(errorText(e), 'error', 4000);
    }
    C.render();
  });
}

// ---- words ------------------------------------------------------------------------

/** A rating as lichess shows it: whole points, `?` while provisional. */
export function ratingText(r) {
  if (!r || typeof r.rating !== 'number') return '—';
  return `${Math.round(r.rating)}${r.provisional ? '?' : ''}`;
}

function num(x, digits) {
  return new Intl.NumberFormat(lang() === 'ru' ? 'ru-RU' : 'en-GB', { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
}

const equity = (x) => (typeof x === 'number' ? num(x, 3) : '—');

function dateText(ms) {
  if (!ms) return '';
  return new Intl.DateTimeFormat(lang() === 'ru' ? 'ru-RU' : 'en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' }).format(new Date(ms));
}

/** Who sat there: a person's name, "Computer (Hard)", or a player who deleted his data. */
function seatText(info, { you = true } = {}) {
  if (!info) return '—';
  if (info.kind === 'computer') return t('pl.computer', { level: C.levelName(info.level) });
  if (info.kind === 'deleted') return t('pl.deletedPlayer');
  if (you && info.player && info.player === S().player) return t('pl.you', { name: info.name || '' });
  return info.name ? shownName(info.name, lang()) : t('seat.opponent');
}

const outcomeText = (o) => (o === 'win' ? t('pl.won') : o === 'lose' ? t('pl.lost') : t('result.draw'));

/** "Mars · 2 points · resigned", from the viewer's seat. */
function resultText(res, seat) {
  if (!res) return '';
  // Thud! is decided on the totals: its one "point" says nothing.
  let s = `${C.kindName(res.kind)}${res.points && !res.thudTotals ? t('result.points', { n: res.points }) : ''}`;
  if (res.thudTotals) {
    const me = seat === 'b' ? 1 : 0;
    s += ` · ${res.thudTotals[me]} : ${res.thudTotals[1 - me]}`;
  }
  if (res.reason && res.reason !== 'borneOff' && res.reason !== 'roundsOver') s += ` · ${C.reasonFor(res, seat)}`;
  return s;
}

// ---- rendering ----------------------------------------------------------------------

export function render(app) {
  const st = S();
  const active = document.activeElement;
  // The focus, to give back after the redraw: a control by its id, or the title.
  const keep = active && app.contains(active) ? active.id || (active.tagName === 'H1' ? 'h1' : null) : null;
  let page;
  if (st.screen === 'profile') page = profilePage();
  else if (st.screen === 'history') page = historyPage();
  else if (st.screen === 'replay') page = replayPage();
  else page = boardPage();
  app.replaceChildren(page);
  // Keyboard users keep their place across redraws; a new screen starts at its title.
  if (P().focusTitle) {
    P().focusTitle = false;
    $('h1', page)?.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  } else if (keep === 'h1') {
    $('h1', page)?.focus({ preventScroll: true });
  } else if (keep) {
    document.getElementById(keep)?.focus({ preventScroll: true });
  }
}

const $ = (sel, root) => root.querySelector(sel);

function top(title) {
  const backBtn = C.tgActive() ? null : h('button.icon#back', { title: t('btn.back'), 'aria-label': t('btn.back'), onclick: back, text: '‹' });
  const head = C.header(title, backBtn);
  head.querySelector('h1')?.setAttribute('tabindex', '-1');
  return head;
}

function status(text, cls = 'loading', id) {
  return h(`p.${cls}${id ? `#${id}` : ''}`, { role: cls === 'error' ? 'alert' : 'status' }, text);
}

/** The lobby's entries to these screens. */
export function lobbyNav() {
  const b = (id, screen, icon, key) => h(`button.nav#${id}`, { onclick: () => open(screen) }, h('span.nav-icon', { 'aria-hidden': 'true' }, icon), h('span', t(key)));
  return h('nav.lobby-nav#lobby-nav', { 'aria-label': t('pl.nav') },
    b('open-profile', 'profile', '☺', 'pl.profile'),
    b('open-history', 'history', '☰', 'pl.history'),
    b('open-leaderboard', 'leaderboard', '♛', 'pl.leaderboard'));
}

// ---- profile ----------------------------------------------------------------------------

function profilePage() {
  const pr = P().profile;
  const out = [top(t('pl.profile'))];
  // A toast of this screen (not one the room left behind).
  const toast = S().toast;
  if (toast && toast.at >= (P().openedAt || 0)) out.push(h(`p.toast.${toast.kind}#toast`, { role: 'status' }, toast.text));
  if (!pr || (pr.loading && !pr.data)) {
    out.push(status(t('pl.loading')));
    return h('main.players.profile', out);
  }
  if (pr.error) {
    out.push(status(pr.error, 'error', 'profile-error'));
    return h('main.players.profile', out);
  }
  const d = pr.data || {};
  const name = d.name || S().profile?.name || '';
  out.push(h('section.card.me-card#profile-card', h('div.me-line', bigAvatar(name, C.photoOf(d)), h('h2.me-name#profile-name', name || t('seat.opponent')))));
  // Ratings, one row per kind of game.
  const ratings = d.ratings || [];
  const rows = GAME_KINDS.map((g) => {
    const r = ratings.find((x) => x.game === g);
    const rank = r?.rank ? t('pl.rankOf', { rank: r.rank, of: r.of ?? '—' }) : r ? t('pl.unranked') : '—';
    return h('tr', { 'data-game': g, 'data-provisional': r ? String(Boolean(r.provisional)) : null },
      h('th', { scope: 'row' }, C.gameName(g)),
      h('td.rating', r ? h('span', { title: r.provisional ? t('pl.provisional') : null }, ratingText(r), r.provisional ? h('span.sr-only', ` (${t('pl.provisional')})`) : null) : '—'),
      h('td.rank', rank),
      h('td', r ? String(r.games ?? 0) : '0'));
  });
  out.push(h('section.card#ratings', h('h2', t('pl.ratings')),
    h('table.ratings#ratings-table',
      h('caption.sr-only', t('pl.ratings')),
      h('thead', h('tr', h('th', { scope: 'col' }, t('lobby.game')), h('th', { scope: 'col' }, t('pl.rating')), h('th', { scope: 'col' }, t('pl.rank')), h('th', { scope: 'col' }, t('pl.games')))),
      h('tbody', rows)),
    ratings.length ? null : h('p.muted#ratings-empty', t('pl.noRatings')),
    h('p.note.left', t('pl.provisionalNote'))));
  // Statistics of each kind of game he played.
  const stats = d.stats || null;
  const kinds = GAME_KINDS.filter((g) => C.gameStats(stats, g)?.games);
  out.push(h('section.card.stats#profile-stats', h('h2', t('pl.stats')),
    kinds.length
      ? kinds.map((g) => h('div.stats-game', { 'data-game': g }, h('h3', C.gameName(g)), C.statsTable(C.gameStats(stats, g), g)))
      : h('p.muted#stats-empty', t('pl.noGames'))));
  // His data: deleted for good on request.
  const del = P().deleted;
  out.push(h('section.card#my-data', h('h2', t('pl.myData')), h('p', t('pl.deleteAbout')),
    del ? h('p.ok#delete-note', { role: 'status' }, typeof del === 'object' && typeof del.games === 'number'
      ? t('pl.deletedNote', { games: del.games, ratings: del.ratings ?? 0 }) : t('pl.deletedToast')) : null,
    h('button.danger#delete-data', { onclick: deleteData }, t('pl.delete'))));
  return h('main.players.profile', out);
}

function bigAvatar(name, url) {
  const a = C.avatar(name, url);
  a.classList.add('big');
  return a;
}

// ---- history -------------------------------------------------------------------------------

function historyPage() {
  const hs = P().history;
  const f = hs.filters;
  const out = [top(t('pl.history'))];
  const change = (key) => (e) => {
    f[key] = e.target.value;
    loadHistory(true);
    C.render();
  };
  out.push(h('section.card.filters#history-filters',
    h('label.row', h('span', t('lobby.game')), h('select#history-game', { onchange: change('game') },
      h('option', { value: '', selected: !f.game }, t('pl.allGames')),
      GAME_KINDS.map((g) => h('option', { value: g, selected: f.game === g }, C.gameName(g))))),
    h('label.row', h('span', t('pl.opponent')), h('select#history-opponent', { onchange: change('opponent') },
      [['', 'pl.anyone'], ['person', 'pl.people'], ['computer', 'pl.computers']].map(([v, k]) => h('option', { value: v, selected: f.opponent === v }, t(k)))))));
  if (hs.error) out.push(status(hs.error, 'error', 'history-error'));
  if (hs.games.length) {
    out.push(h('ol.history#history-list', { 'aria-label': t('pl.history') }, hs.games.map(historyRow)));
  } else if (hs.loaded && !hs.error) {
    out.push(h('p.empty#history-empty', { role: 'status' }, f.game || f.opponent ? t('pl.noGamesFiltered') : t('pl.noGames')));
  }
  if (hs.loading) out.push(status(t('pl.loading')));
  else if (hs.next) out.push(h('div.row', h('button.big#history-more', { onclick: () => { loadHistory(false); C.render(); } }, t('pl.more'))));
  return h('main.players.history', out);
}

function historyRow(g) {
  const opp = seatText(g.opponent, { you: false });
  const res = resultText(g.result, g.seat);
  const when = dateText(g.finishedMs);
  const match = g.matchLength > 1 ? t('pl.match', { n: g.matchLength }) : '';
  // The row's text is its accessible name: spaces between the parts, "casual" said, not shown.
  return h('li', h('button.history-row', {
    'data-room': g.room, 'data-game-number': String(g.gameNumber), 'data-outcome': g.outcome,
    onclick: () => open('replay', { room: g.room, gameNumber: g.gameNumber }),
  },
  h('span.h-line', h(`b.outcome.${g.outcome || 'none'}`, outcomeText(g.outcome)), ' ', h('span.h-game', C.gameName(g.game)), ' ',
    g.rated ? h('span.badge.rated', t('pl.ratedMark')) : h('span.sr-only.casual', t('pl.casual'))),
  ' ', h('span.h-line.h-opp', t('pl.vs', { name: opp })),
  ' ', h('span.h-line.h-res', [res, match].filter(Boolean).join(' · ')),
  ' ', h('span.h-line.h-when', when)));
}

// ---- replay ---------------------------------------------------------------------------------

/** Moves the replay by `d` frames (±Infinity: to the start or the end). */
function step(d) {
  const r = P().replay;
  const n = r?.data?.frames?.length || 0;
  if (!n) return;
  const f = d === Infinity ? n - 1 : d === -Infinity ? 0 : Math.max(0, Math.min(n - 1, r.frame + d));
  if (f === r.frame) return;
  r.frame = f;
  C.render();
}

function goTo(f) {
  const r = P().replay;
  r.frame = f;
  C.render();
}

/** The viewer's seat in the archived game (his own game), else null. */
function viewerSeat(d) {
  const i = (d.seats || []).findIndex((s) => s?.kind === 'person' && s.player && s.player === S().player);
  return i < 0 ? null : i === 1 ? 'b' : 'a';
}

function sideOf(game, seat, board) {
  if (game === 'thud') return t(board?.dwarfs === seat ? 'side.dwarfs' : 'side.trolls');
  return C.seatWord(seat, game);
}

/** "White · 6–3 · 24-18,18-15" for a frame (a pass: "no moves"). */
function frameMove(game, fr, i) {
  // Thud!'s second round starts as a frame of its own, as the game does.
  if (!fr?.seat) return i > 0 && game === 'thud' ? t('pl.roundStart', { n: fr?.board?.round || 2 }) : t('pl.startPosition');
  const bits = [sideOf(game, fr.seat, fr.board)];
  if (fr.dice) bits.push(`${fr.dice[0]}–${fr.dice[1]}`);
  // No notation: a roll with no legal play, or (Thud!) a round ended by agreement or on time.
  bits.push(fr.notation || (game === 'thud' ? t('pl.roundEnd', { n: fr.board?.round || 1 }) : t('log.pass')));
  return bits.join(' · ');
}

function replayPage() {
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
function navIcon(kind) {
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

function drawBoard(box, game, board, fr, view) {
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

function analysisPart(r, d) {
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
function fairPart(r, d) {
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

// ---- leaderboard ------------------------------------------------------------------------------

function boardPage() {
  const b = P().board;
  const out = [top(t('pl.leaderboard'))];
  const pick = (key, value) => () => {
    if (b[key] === value) return;
    b[key] = value;
    b.data = null;
    loadBoard();
    C.render();
  };
  out.push(h('div.segs#lb-games', { role: 'group', 'aria-label': t('lobby.game') }, GAME_KINDS.map((g) =>
    h(`button.seg${b.game === g ? '.on' : ''}`, { 'data-lb-game': g, 'aria-pressed': String(b.game === g), onclick: pick('game', g) }, C.gameName(g)))));
  out.push(h('div.segs#lb-periods', { role: 'group', 'aria-label': t('pl.period') }, [['all', 'pl.allTime'], ['week', 'pl.thisWeek']].map(([p, k]) =>
    h(`button.seg${b.period === p ? '.on' : ''}#lb-${p}`, { 'aria-pressed': String(b.period === p), onclick: pick('period', p) }, t(k)))));
  if (b.error) out.push(status(b.error, 'error', 'lb-error'));
  else if (!b.data) out.push(status(t('pl.loading')));
  else {
    const data = b.data;
    const topList = data.top || [];
    const you = data.you || null;
    const mine = S().player;
    const inTop = topList.some((e) => e.player === mine);
    const row = (e, me) => h(`tr${me ? '.me' : ''}`, { 'data-rank': String(e.rank), 'data-player-row': me ? 'me' : null, 'aria-current': me ? 'true' : null },
      h('td.rank', String(e.rank)),
      h('td.name', h('span.who', C.avatar(e.name || '', C.photoOf(e)), h('span.lb-name', e.name ? shownName(e.name, lang()) : t('seat.opponent')), me ? h('span.badge.you', t('seat.you')) : null)),
      h('td.rating', ratingText(e), e.provisional ? h('span.sr-only', ` (${t('pl.provisional')})`) : null),
      h('td', String(e.games ?? '')));
    const rows = topList.map((e) => row(e, e.player === mine));
    if (you?.rank && !inTop) {
      rows.push(h('tr.gap', { 'aria-hidden': 'true' }, h('td', { colspan: 4 }, '…')));
      const pinned = row({ rank: you.rank, name: S().profile?.name || t('seat.you'), rating: you.rating, games: you.games, photoUrl: S().profile?.photoUrl }, true);
      pinned.id = 'lb-you-row';
      rows.push(pinned);
    }
    if (rows.length) {
      out.push(h('section.card.lb#lb', h('table.lb-table#lb-table',
        h('caption.sr-only', `${t('pl.leaderboard')}: ${C.gameName(b.game)}, ${t(b.period === 'week' ? 'pl.thisWeek' : 'pl.allTime')}`),
        h('thead', h('tr', h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, t('pl.player')), h('th', { scope: 'col' }, t('pl.rating')), h('th', { scope: 'col' }, t('pl.games')))),
        h('tbody', rows))));
    } else {
      out.push(h('p.empty#lb-empty', t(b.period === 'week' ? 'pl.lbEmptyWeek' : 'pl.lbEmpty')));
    }
    // The player's own place, or why he has none.
    let line;
    if (you?.rank) line = t('pl.yourRank', { rank: you.rank, of: you.of ?? '—', rating: ratingText(you) });
    else if (you) line = t('pl.notRankedProvisional', { rating: ratingText({ ...you, provisional: true }), games: you.games ?? 0 });
    else line = t(b.period === 'week' ? 'pl.notRankedWeek' : 'pl.notRankedNone', { game: C.gameName(b.game) });
    out.push(h(`p.lb-you#lb-you${you?.rank ? '.ranked' : ''}`, { role: 'status' }, line));
    if (topList.some((e) => e.provisional) || you?.provisional) out.push(h('p.note.left#lb-provisional', t('pl.provisionalShort')));
  }
  return h('main.players.leaderboard', out);
}
