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

import { t, lang } from './i18n.js';
import { shownName } from './names.js';

/** The screens this module draws (`S.screen`). */
export const SCREENS = new Set(['profile', 'history', 'replay', 'leaderboard']);
export const GAME_KINDS = ['long_nardy', 'backgammon', 'thud'];
export const PAGE = 20;

export let C = null;
export const S = () => C.S;
/** This module's part of the app's state. */
export const P = () => S().pl;

/**
 * ctx: { S, dispatch, h, header, render, credHeaders, gameName, levelName, kindName,
 *        reasonFor, seatWord, avatar, photoOf, gameStats, statsTable, ask,
 *        toast, loadStats, tgActive, openTournament }
 */
export function setup(ctx) {
  C = ctx;
  ctx.dispatch('players', {
    back: 'lobby',
    focusTitle: false,
    profile: null,
    history: { filters: { game: '', opponent: '' }, games: [], next: null, loading: false, error: null, loaded: false, seq: 0 },
    replay: null,
    board: { game: 'long_nardy', period: 'all', data: null, loading: false, error: null, seq: 0 },
    deleted: null,
  });
}

export const h = (...a) => C.h(...a);

/**
 * The screens' own modules (profile and history, replay, leaderboard),
 * loaded when one is first opened rather than with the lobby.
 */
let M = null;
let loading = null;
function loadScreens() {
  loading ||= Promise.all([import('./profile.js'), import('./replay.js'), import('./leaderboard.js')]).then((mods) => {
    M = Object.assign({}, ...mods);
  });
  return loading;
}

/** The server's answer as a short sentence (no store on this node, not found, …). */
export function errorText(e) {
  if (e?.code === 'no_store') return t('pl.noStore');
  // The store is there but cannot be reached now (503 `store_unavailable`
  // with Retry-After), or the node is not ready: a passing state.
  if (e?.status === 503) return t('pl.storeDown');
  if (e?.status === 404) return t('pl.notFound');
  if (e?.status === 401) return t('pl.signIn');
  return e?.message || t('pl.failed');
}

/** Whether the app knows who the player is (a guest's token comes with `welcome`). */
export const known = () => Boolean(S().player);


// ---- navigation ---------------------------------------------------------------
/** Opens a screen: `profile`, `history`, `leaderboard`, or `replay` with {room, gameNumber, analysis?} (analysis: shown at once). */
export function open(screen, arg) {
  if (!M) {
    loadScreens().then(() => open(screen, arg), (e) => C.toast(errorText(e), 'error'));
    return;
  }
  const st = S();
  if (screen === 'replay') {
    // Back goes to the list it was opened from (a shared link: the lobby).
    P().back = st.screen === 'history' ? 'history' : 'lobby';
    M.openReplay(arg.room, arg.gameNumber, arg.analysis);
  } else {
    P().back = 'lobby';
  }
  st.screen = screen;
  P().focusTitle = true;
  P().openedAt = Date.now();
  if (screen === 'profile') M.loadProfile();
  // From the lobby the list starts again (a game may have ended since); back from a replay it stays as it was.
  if (screen === 'history') M.loadHistory(true);
  if (screen === 'leaderboard') M.loadBoard();
  setUrl();
  C.render();
}

/** Back: from a replay to the list it was opened from, else to the lobby. */
export function back() {
  const st = S();
  if (!M) return;
  if (st.screen === 'replay' && P().back === 'history') {
    st.screen = 'history';
    M.closeReplay();
    if (!P().history.loaded) M.loadHistory(true);
  } else {
    st.screen = 'lobby';
    M.closeReplay();
    C.loadStats?.();
  }
  P().focusTitle = true;
  setUrl();
  C.render();
}

/** A replay has an address of its own (`?replay=<room>.<game>`): a record is public, so it may be shared. */
export function setUrl() {
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
  if (!M) return;
  const s = S().screen;
  if (s === 'profile' && !P().profile?.data) M.loadProfile();
  if (s === 'history' && !P().history.loaded) M.loadHistory(true);
  if (s === 'leaderboard' && !P().board.data) M.loadBoard();
}

/** Keys of the replay: ← → a turn back and on, Home / End the start and the end. */
export function onKey(ev) {
  if (!M || S().screen !== 'replay' || S().sheet || S().confirm) return false;
  const tag = ev.target?.tagName;
  if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || ev.altKey || ev.ctrlKey || ev.metaKey) return false;
  const to = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity }[ev.key];
  if (to === undefined || !P().replay?.data) return false;
  ev.preventDefault();
  M.step(to);
  return true;
}


// ---- words ------------------------------------------------------------------------
/** A rating as lichess shows it: whole points, `?` while provisional. */
export function ratingText(r) {
  if (!r || typeof r.rating !== 'number') return '—';
  return `${Math.round(r.rating)}${r.provisional ? '?' : ''}`;
}

export function num(x, digits) {
  return new Intl.NumberFormat(lang() === 'ru' ? 'ru-RU' : 'en-GB', { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
}

export const equity = (x) => (typeof x === 'number' ? num(x, 3) : '—');

export function dateText(ms) {
  if (!ms) return '';
  return new Intl.DateTimeFormat(lang() === 'ru' ? 'ru-RU' : 'en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' }).format(new Date(ms));
}

/** Who sat there: a person's name, "Computer (Hard)", or a player who deleted his data. */
export function seatText(info, { you = true } = {}) {
  if (!info) return '—';
  if (info.kind === 'computer') return t('pl.computer', { level: C.levelName(info.level) });
  if (info.kind === 'deleted') return t('pl.deletedPlayer');
  if (you && info.player && info.player === S().player) return t('pl.you', { name: info.name || '' });
  return info.name ? shownName(info.name, lang()) : t('seat.opponent');
}

export const outcomeText = (o) => (o === 'win' ? t('pl.won') : o === 'lose' ? t('pl.lost') : t('result.draw'));

/** "Mars · 2 points · resigned", from the viewer's seat. */
export function resultText(res, seat) {
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
  if (st.screen === 'profile') page = M.profilePage();
  else if (st.screen === 'history') page = M.historyPage();
  else if (st.screen === 'replay') page = M.replayPage();
  else page = M.boardPage();
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

export const $ = (sel, root) => root.querySelector(sel);

export function top(title) {
  const backBtn = C.tgActive() ? null : h('button.icon#back', { title: t('btn.back'), 'aria-label': t('btn.back'), onclick: back, text: '‹' });
  const head = C.header(title, backBtn);
  head.querySelector('h1')?.setAttribute('tabindex', '-1');
  return head;
}

export function status(text, cls = 'loading', id) {
  return h(`p.${cls}${id ? `#${id}` : ''}`, { role: cls === 'error' ? 'alert' : 'status' }, text);
}

/** The lobby's entries to these screens (and the tournaments', `onTournaments`). */
export function lobbyNav(onTournaments) {
  const b = (id, onclick, icon, key) => h(`button.nav#${id}`, { onclick }, h('span.nav-icon', { 'aria-hidden': 'true' }, icon), h('span', t(key)));
  return h('nav.lobby-nav#lobby-nav', { 'aria-label': t('pl.nav') },
    b('open-profile', () => open('profile'), '☺', 'pl.profile'),
    b('open-history', () => open('history'), '☰', 'pl.history'),
    b('open-leaderboard', () => open('leaderboard'), '♛', 'pl.leaderboard'),
    onTournaments ? b('open-tournaments', onTournaments, '♜', 'tour.nav') : null);
}
