// The tournament screens (issue 49): the list (upcoming, running,
// finished), one tournament (its settings, players, Join / Withdraw /
// Pause / Resume, the standings, a knockout's bracket, the round's games,
// the player's own game), the create form, and the lobby's "next game"
// banner. Plain HTTP (`/api/tournaments…`, docs/protocol.md,
// *Tournaments*) with the player's credentials, as the lobby's rooms;
// a tournament game is an ordinary room, entered by its id.
//
// Loaded when a tournament screen is first opened (the lobby's entry, a
// `t_<id>` / `#/t/<id>` link), or by the lobby once `GET
// /api/me/tournaments` shows the player in a tournament that is not over:
// the lobby then reads that route every MINE_MS for a game waiting for him
// (its "next game" banner), whichever device or chat he joined from.
// The state is `S.tour`, changed by tournament-state.js's transitions.

import { api } from './net.js';
import { t, lang } from './i18n.js';
import { h, $ } from './dom.js';
import * as tg from './telegram.js';
import { S, dispatch, gameName, GAME_KINDS, credHeaders, serverNow } from './store.js';
import { playerName, timeControlName, ask, toast } from './text.js';
import { formatClock } from './clock.js';
import { enterRoom, mount, loadStats } from './lobby.js';
import { render, header } from './app.js';
import { freshForm, actionsFor, entryOf, pointsShown, roundKey, matchWinner, refreshMs, nextOf } from './tournament-state.js';

/** How often the lobby reads the player's running tournaments for a waiting game. */
export const MINE_MS = 5000;
/** The most rows of standings and players drawn (the player's own is added when further down). */
export const SHOWN = 100;
/** How often the list is read again while shown. */
export const LIST_MS = 10000;

dispatch('tourInit');

const T = () => S.tour;
const me = () => S.player;

// ---- addresses ----------------------------------------------------------------------
/** Outside Telegram a tournament screen has an address (`#/t/<id>`, `#/tournaments`); inside, the hash is Telegram's. */
function setUrl() {
  if (tg.active()) return;
  const s = S.screen;
  const hash = s === 'tournament' && T().id ? `#/t/${encodeURIComponent(T().id)}` : s === 'tournaments' || s === 'tournamentNew' ? '#/tournaments' : '';
  const keep = location.hash.startsWith('#/') ? '' : location.hash;
  history.replaceState(null, '', `${location.pathname}${location.search}${hash || keep}`);
}

/** A tournament's link: the Mini App's `startapp=t_<id>` when the node knows it, else this page's `#/t/<id>`. */
export function tourLink(id) {
  if (S.config?.telegramAppUrl) return `${S.config.telegramAppUrl}?startapp=t_${id}`;
  return `${location.origin}${location.pathname}#/t/${encodeURIComponent(id)}`;
}

// ---- navigation -----------------------------------------------------------------------
export function openList() {
  dispatch('tourOpened', { screen: 'tournaments' });
  loadList();
  watchList();
  setUrl();
  render();
}

export function openNew() {
  dispatch('tourOpened', { screen: 'tournamentNew', back: 'tournaments' });
  setUrl();
  render();
}

/** Opens tournament `id`; Back goes to `back` (the list, or the lobby for a link or a room). */
export function openTournament(id, back = 'lobby') {
  dispatch('tourOpened', { screen: 'tournament', id, back });
  load(id);
  setUrl();
  render();
}

/** Back: from a tournament to where it was opened from, from the form to the list, from the list to the lobby. */
export function back() {
  const s = S.screen;
  const to = s === 'tournament' ? T().back : s === 'tournamentNew' ? 'tournaments' : 'lobby';
  dispatch('tourClosed', to);
  if (to === 'tournaments') {
    loadList();
    watchList();
  }
  setUrl();
  if (to === 'lobby') loadStats();
  render();
}

/** Enters a tournament game's room (to play it, or with `watch` to watch); the room's Back returns here. */
function enterGame(id, roomId, watch = false) {
  dispatch('tourReturn', id);
  if (!tg.active() && location.hash.startsWith('#/')) history.replaceState(null, '', `${location.pathname}${location.search}`);
  enterRoom(roomId, undefined, watch);
}

// ---- reading ----------------------------------------------------------------------------
let listSeq = 0;
export async function loadList() {
  const mine = ++listSeq;
  try {
    const list = await api('GET', '/api/tournaments', undefined, credHeaders());
    if (mine !== listSeq) return;
    dispatch('tourList', { list });
  } catch (e) {
    if (mine !== listSeq) return;
    dispatch('tourList', { error: errorText(e) });
  }
  if (S.screen === 'tournaments') render();
}

let listTimer = null;
function watchList() {
  if (listTimer) return;
  listTimer = setInterval(() => {
    if (S.screen !== 'tournaments') {
      clearInterval(listTimer);
      listTimer = null;
      return;
    }
    if (document.visibilityState === 'visible') loadList();
  }, LIST_MS);
}

let seq = 0;
let timer = null;
/** Reads tournament `id` (with the player's credentials: they name him for `myGame`), then again while it is shown. */
export async function load(id) {
  const mine = ++seq;
  clearTimeout(timer);
  let gone = false;
  try {
    const data = await api('GET', `/api/tournaments/${encodeURIComponent(id)}`, undefined, credHeaders());
    if (mine !== seq) return;
    dispatch('tourLoaded', { id, data });
  } catch (e) {
    if (mine !== seq) return;
    gone = e?.status === 404;
    dispatch('tourLoaded', { id, error: errorText(e) });
  }
  if (S.screen === 'tournament' && T().id === id) {
    render();
    // Read again while it may change (a tournament that is not there: not again).
    const ms = gone ? 0 : refreshMs(T().data, serverNow());
    if (ms) timer = setTimeout(() => {
      if (S.screen !== 'tournament' || T().id !== id) return;
      if (document.visibilityState === 'visible') load(id);
      else timer = setTimeout(() => load(id), ms);
    }, ms);
  }
}

/** A refusal as the player reads it: the server's reasons in his language (the message itself otherwise). */
const REFUSALS = {
  'the tournament is over': 'tour.why.over',
  'already registered': 'tour.why.registered',
  'a knockout takes no players once it started': 'tour.why.knockoutStarted',
  'late joining of this Swiss is closed': 'tour.why.lateClosed',
  'the tournament is full': 'tour.why.full',
  'not registered': 'tour.why.notRegistered',
  'already withdrawn': 'tour.why.withdrawn',
  "a knockout's players cannot pause": 'tour.why.noPause',
  'the tournament is not running': 'tour.why.notRunning',
  'already paused': 'tour.why.paused',
  'not paused': 'tour.why.notPaused',
};
export function errorText(e) {
  if (e?.code === 'tournament_refused') return t('tour.refused', { why: REFUSALS[e.message] ? t(REFUSALS[e.message]) : e.message });
  if (e?.code === 'tournament_not_found' || e?.status === 404) return t('tour.notFound');
  if (e?.status === 401) return t('pl.signIn');
  if (e?.status === 429) return t('tour.tooMany');
  return e?.message || t('pl.failed');
}

// ---- the player's requests ---------------------------------------------------------------
const SENT = { join: 'tour.sent.join', withdraw: 'tour.sent.withdraw', pause: 'tour.sent.pause', resume: 'tour.sent.resume' };
export async function act(action) {
  const id = T().id;
  if (!id || T().busy) return;
  dispatch('tourBusy', action);
  dispatch('tourNotice', null);
  render();
  try {
    await api('POST', `/api/tournaments/${encodeURIComponent(id)}/${action}`, undefined, credHeaders());
    const sent = { kind: 'ok', text: t(SENT[action]) };
    dispatch('tourNotice', sent);
    // Said while it is being applied; the screen shows the rest (he is on the list, paused, …).
    setTimeout(() => {
      if (T().notice !== sent) return;
      dispatch('tourNotice', null);
      if (S.screen === 'tournament') render();
    }, 4000);
  } catch (e) {
    dispatch('tourNotice', { kind: 'error', text: errorText(e) });
  }
  dispatch('tourBusy', null);
  render();
  // The owner applies a request within a moment: read it back.
  setTimeout(() => { if (T().id === id && S.screen === 'tournament') load(id); }, 250);
}

// ---- the create form ---------------------------------------------------------------------
const num = (v) => (v === '' || v === null || v === undefined ? NaN : Number(v));
const within = (v, lo, hi) => Number.isInteger(v) && v >= lo && v <= hi;

/** The form as POST /api/tournaments's body, or the first field that is wrong ({error}). */
export function formBody(f, now) {
  const points = num(f.matchPoints);
  if (!within(points, 1, 64)) return { error: t('tour.bad.points') };
  const start = num(f.startIn);
  if (!within(start, 1, 10080)) return { error: t('tour.bad.start') };
  const body = { format: { type: f.format }, game: f.game, matchPoints: points, timeControl: f.clock, rated: Boolean(f.rated), startAtMs: Math.round(now + start * 60000) };
  if (f.maxPlayers !== '' && f.maxPlayers !== null && f.maxPlayers !== undefined) {
    const max = num(f.maxPlayers);
    if (!within(max, 2, 4096)) return { error: t('tour.bad.max') };
    body.maxPlayers = max;
  }
  if (f.format === 'swiss') {
    const rounds = num(f.rounds);
    const late = num(f.lateJoin);
    if (!within(rounds, 1, 64)) return { error: t('tour.bad.rounds') };
    if (!within(late, 0, rounds)) return { error: t('tour.bad.late') };
    body.format = { type: 'swiss', rounds, lateJoinUntilRound: late };
  } else if (f.format === 'arena') {
    const dur = num(f.duration);
    const wait = num(f.rematchWait);
    if (!within(dur, 1, 1440)) return { error: t('tour.bad.duration') };
    if (!within(wait, 0, 3600)) return { error: t('tour.bad.rematch') };
    body.format = { type: 'arena', durationMs: dur * 60000, rematchWaitMs: wait * 1000 };
  }
  return { body };
}

export async function create() {
  if (T().creating) return;
  const { body, error } = formBody(T().form, serverNow());
  if (error) {
    dispatch('tourCreating', { on: false, error });
    render();
    return;
  }
  dispatch('tourCreating', { on: true });
  render();
  try {
    const data = await api('POST', '/api/tournaments', body, credHeaders());
    dispatch('tourCreating', { on: false });
    dispatch('tourForm', { field: 'startIn', value: freshForm().startIn });
    openTournament(data.id, 'tournaments');
    dispatch('tourLoaded', { id: data.id, data });
    render();
  } catch (e) {
    dispatch('tourCreating', { on: false, error: e?.status === 400 ? t('tour.bad.server', { why: e.message }) : errorText(e) });
    render();
  }
}

// ---- the lobby's "next game" -----------------------------------------------------------------
let mineTimer = null;
let mineSeq = 0;
/** The lobby's "next game" from an answer of GET /api/me/tournaments (redrawn when it changed). */
export function mineAnswered(mine) {
  const next = nextOf(mine);
  const before = JSON.stringify(T().next);
  dispatch('tourNext', next);
  if (S.screen === 'lobby' && JSON.stringify(next) !== before) render();
}

/** Reads the player's tournaments (GET /api/me/tournaments) for a game waiting for him; a failed read keeps the banner as it was. */
export async function checkMine() {
  if (!me()) return;
  const mine = ++mineSeq;
  try {
    const r = await api('GET', '/api/me/tournaments', undefined, credHeaders());
    if (mine === mineSeq) mineAnswered(r);
  } catch {}
}

/** Keeps the lobby's "next game" fresh while the lobby is shown (idempotent; stops itself once it is not). */
export function watchMine() {
  if (mineTimer) return;
  checkMine();
  mineTimer = setInterval(() => {
    if (S.screen !== 'lobby') {
      clearInterval(mineTimer);
      mineTimer = null;
      return;
    }
    if (document.visibilityState === 'visible') checkMine();
  }, MINE_MS);
}

/** Opens the player's game of the tournament shown (Telegram's MainButton on that screen). */
export function playMine() {
  const d = T().data;
  if (d?.myGame) enterGame(d.id, d.myGame.roomId);
}

/** Opens the game the lobby's banner offers (Telegram's MainButton in the lobby). */
export function playNext() {
  const n = T().next;
  if (n) enterGame(n.id, n.game.roomId);
}

/** The lobby's banner: the player's tournament game is waiting for him. */
export function nextBanner() {
  const n = T().next;
  if (!n) return null;
  const opp = n.game.white === me() ? n.game.black : n.game.white;
  return h('section.card.tour-next#tour-next', { 'aria-labelledby': 'tour-next-title' },
    h('h2#tour-next-title', t('tour.nextTitle')),
    h('p', t('tour.nextText', { what: `${formatText(n.format)} · ${gameName(n.kind)}`, name: playerName(opp) })),
    h('button.big.primary#play-next', { 'data-room': n.game.roomId, onclick: playNext }, t('tour.play')));
}

// ---- words ------------------------------------------------------------------------------------
export function formatText(f) {
  if (f?.type === 'swiss') return t('tour.fmt.swiss', { n: f.rounds });
  if (f?.type === 'arena') return t('tour.fmt.arena', { min: Math.round((f.durationMs || 0) / 60000) });
  return t('tour.fmt.knockout');
}

const locale = () => (lang() === 'ru' ? 'ru-RU' : 'en-GB');
export function whenText(ms) {
  if (!ms) return '';
  return new Intl.DateTimeFormat(locale(), { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' }).format(new Date(ms));
}

/** "in 5 min", "in 2 h", or nothing once passed. */
function inText(ms, now) {
  const left = ms - now;
  if (left <= 0) return '';
  const min = Math.ceil(left / 60000);
  return min < 120 ? t('tour.inMin', { n: min }) : t('tour.inH', { n: Math.round(min / 60) });
}

/** A tournament's clock (the room's time control, kept as its JSON). */
export function clockText(c) {
  let v;
  try {
    v = JSON.parse(c);
  } catch {
    return null;
  }
  if (v === null || v === 'none') return t('tc.none');
  if (typeof v === 'string') return timeControlName(v);
  if (typeof v?.delayMs === 'number') return t('room.clock', { delay: formatClock(v.delayMs), reserve: formatClock(v.reserveMs || 0) });
  return null;
}

const who = (id) => (id === me() ? t('tour.you', { name: playerName(id) }) : playerName(id));

function outcomeMark(o) {
  return { white_won: '1–0', black_won: '0–1', draw: '½–½', both_lost: '0–0' }[o] || '';
}

// ---- drawing ------------------------------------------------------------------------------------
/** Draws the tournament screen shown (`S.screen`) into `app`. */
export function renderTour(app) {
  let page;
  if (S.screen === 'tournaments') page = listPage();
  else if (S.screen === 'tournamentNew') page = formPage();
  else page = tournamentPage();
  mount(app, page);
  if (T().focusTitle) {
    dispatch('tourFocused');
    $('h1', app)?.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }
}

function top(title) {
  const backBtn = tg.active() ? null : h('button.icon#back', { title: t('btn.back'), 'aria-label': t('btn.back'), onclick: back, text: '‹' });
  const head = header(title, backBtn);
  head.querySelector('h1')?.setAttribute('tabindex', '-1');
  return head;
}

const status = (text, cls = 'loading', id) => h(`p.${cls}${id ? `#${id}` : ''}`, { role: cls === 'error' ? 'alert' : 'status' }, text);

// ---- the list -------
function listPage() {
  const L = T().list;
  const out = [top(t('tour.list')), h('button.big.primary#tour-create', { onclick: openNew }, t('tour.create'))];
  if (T().listError) out.push(status(T().listError, 'error', 'tour-list-error'));
  if (!L) {
    if (!T().listError) out.push(status(t('pl.loading')));
    return h('main.tour.tour-list', out);
  }
  const now = serverNow();
  const section = (key, rows, empty) => h(`section.card#tour-${key}`, { 'aria-labelledby': `tour-${key}-title` },
    h(`h2#tour-${key}-title`, t(`tour.${key}`)),
    rows.length
      ? h('ul.tour-lines', rows.map((r) => h('li', h('button.tour-line', { 'data-tour': r.id, onclick: () => openTournament(r.id, 'tournaments') },
        h('b', `${formatText(r.format)} · ${gameName(r.game)}`),
        h('span', [
          key === 'upcoming' ? `${whenText(r.startAtMs)}${inText(r.startAtMs, now) ? ` (${inText(r.startAtMs, now)})` : ''}` : whenText(r.startAtMs),
          t('tour.players', { n: r.players }),
          r.status === 'cancelled' ? t('tour.status.cancelled') : null,
        ].filter(Boolean).join(' · '))))))
      : h('p.empty', t(empty)));
  out.push(section('upcoming', L.upcoming || [], 'tour.noUpcoming'));
  out.push(section('running', L.running || [], 'tour.noRunning'));
  out.push(section('finished', L.finished || [], 'tour.noFinished'));
  return h('main.tour.tour-list', out);
}

// ---- the create form -------
function formPage() {
  const f = T().form;
  const set = (field, conv = (x) => x) => (e) => dispatch('tourForm', { field, value: conv(e.target.type === 'checkbox' ? e.target.checked : e.target.value) });
  const numberRow = (id, field, label, min, max, extra = {}) => h('label.row', { for: id },
    h('span', t(label)),
    h(`input#${id}`, { type: 'number', inputmode: 'numeric', min, max, step: 1, value: String(f[field]), oninput: set(field), ...extra }));
  const formats = ['knockout', 'swiss', 'arena'];
  const rows = [
    h('div.segs#tf-formats', { role: 'group', 'aria-label': t('tour.format') }, formats.map((x) =>
      h(`button.seg${f.format === x ? '.on' : ''}#tf-${x}`, { type: 'button', 'aria-pressed': String(f.format === x), onclick: () => { dispatch('tourForm', { field: 'format', value: x }); render(); } }, t(`tour.fmtName.${x}`)))),
    h('p.note.left#tf-about', t(`tour.about.${f.format}`)),
    h('label.row', { for: 'tf-game' }, h('span', t('lobby.game')), h('select#tf-game', { onchange: set('game') },
      GAME_KINDS.map((g) => h('option', { value: g, selected: f.game === g }, gameName(g))))),
    numberRow('tf-points', 'matchPoints', 'tour.matchPoints', 1, 64),
    h('label.row', { for: 'tf-clock' }, h('span', t('lobby.clock')), h('select#tf-clock', { onchange: set('clock') },
      ['none', 'blitz', 'normal', 'long'].map((c) => h('option', { value: c, selected: f.clock === c }, timeControlName(c))))),
    h('label.row.check', { for: 'tf-rated' }, h('span', t('tour.rated')), h('input#tf-rated', { type: 'checkbox', checked: Boolean(f.rated), onchange: set('rated') })),
    numberRow('tf-start', 'startIn', 'tour.startIn', 1, 10080),
    numberRow('tf-max', 'maxPlayers', 'tour.maxPlayers', 2, 4096, { placeholder: t('tour.noLimit') }),
  ];
  if (f.format === 'swiss') {
    rows.push(numberRow('tf-rounds', 'rounds', 'tour.rounds', 1, 64));
    rows.push(numberRow('tf-late', 'lateJoin', 'tour.lateJoin', 0, 64));
  }
  if (f.format === 'arena') {
    rows.push(numberRow('tf-duration', 'duration', 'tour.duration', 1, 1440));
    rows.push(numberRow('tf-rematch', 'rematchWait', 'tour.rematchWait', 0, 3600));
  }
  return h('main.tour.tour-new',
    top(t('tour.create')),
    h('form.card#tour-form', { novalidate: true, onsubmit: (e) => { e.preventDefault(); create(); } },
      rows,
      T().formError ? h('p.error#tf-error', { role: 'alert' }, T().formError) : null,
      h('button.big.primary#tf-submit', { type: 'submit', disabled: T().creating }, T().creating ? t('tour.creating') : t('tour.createBtn'))));
}

// ---- one tournament -------
function tournamentPage() {
  const d = T().data;
  if (!d) {
    return h('main.tour.tour-one', top(t('tour.one')), T().error ? status(T().error, 'error', 'tour-error') : status(t('pl.loading')));
  }
  const c = d.config;
  const f = c.format;
  const now = serverNow();
  // The format as the title (short enough for 320 px beside the header's buttons), the game first among the facts.
  const out = [top(formatText(f))];
  if (T().error) out.push(status(T().error, 'error', 'tour-error'));
  // The player's own game, first and prominent.
  if (d.myGame) {
    const opp = d.myGame.white === me() ? d.myGame.black : d.myGame.white;
    out.push(h('section.card.tour-play#tour-play', { 'aria-labelledby': 'tour-play-title' },
      h('h2#tour-play-title', t('tour.yourGame')),
      h('p', t('tour.against', { name: playerName(opp) })),
      h('button.big.primary#play-my-game', { 'data-room': d.myGame.roomId, onclick: playMine }, t('tour.play'))));
  }
  if (d.champion) out.push(h('p.tour-champion#tour-champion', { role: 'status' }, h('span', { 'aria-hidden': 'true' }, '🏆 '), t('tour.champion', { name: who(d.champion) })));
  // What it is.
  const active = (d.players || []).filter((p) => !p.withdrawn).length;
  let state = t(`tour.status.${d.status}`);
  if (d.status === 'running' && f.type === 'swiss') state += ` · ${t('tour.roundOf', { n: d.round, of: f.rounds })}`;
  if (d.status === 'running' && f.type === 'knockout' && d.bracket) state += ` · ${t(...roundKey(d.round, d.bracket.totalRounds))}`;
  if (d.status === 'running' && f.type === 'arena') {
    const end = c.startAtMs + f.durationMs;
    if (end > now) state += ` · ${t('tour.endsIn', { n: Math.ceil((end - now) / 60000) })}`;
  }
  const facts = [
    ['lobby.game', gameName(c.game), 'tour-game'],
    ['tour.statusLabel', state, 'tour-status'],
    ['tour.start', `${whenText(c.startAtMs)}${d.status === 'registering' && inText(c.startAtMs, now) ? ` (${inText(c.startAtMs, now)})` : ''}`, 'tour-start'],
    ['tour.match', t('tour.points', { n: c.matchPoints }), null],
    ['lobby.clock', clockText(c.clock), null],
    ['tour.ratedLabel', c.rated ? t('tour.ratedYes') : t('tour.ratedNo'), null],
    ['tour.playersLabel', c.maxPlayers ? t('tour.ofMax', { n: active, max: c.maxPlayers }) : String(active), 'tour-count'],
  ];
  if (f.type === 'swiss') facts.push(['tour.lateJoinLabel', f.lateJoinUntilRound ? t('tour.lateUntil', { n: f.lateJoinUntilRound }) : t('tour.lateNo'), null]);
  if (f.type === 'arena') facts.push(['tour.rematchLabel', t('tour.seconds', { n: Math.round(f.rematchWaitMs / 1000) }), null]);
  if (c.graceMs) facts.push(['tour.graceLabel', t('tour.graceText', { t: formatClock(c.graceMs) }), null]);
  out.push(h('section.card#tour-info', { 'aria-label': t('tour.about') },
    h('dl.tour-facts', facts.filter(([, v]) => v).flatMap(([k, v, id]) => [h('dt', t(k)), h(`dd${id ? `#${id}` : ''}`, v)])),
    h('p.note.left', t(`tour.about.${f.type}`))));
  // The player's buttons.
  const acts = actionsFor(d, me());
  const mine = entryOf(d, me());
  const busy = T().busy;
  const label = { join: 'tour.join', withdraw: 'tour.withdraw', pause: 'tour.pause', resume: 'tour.resume' };
  const press = (a) => () => {
    if (a === 'withdraw') ask(t(d.status === 'running' ? 'tour.withdrawAskRunning' : 'tour.withdrawAsk'), t('tour.withdraw'), () => act('withdraw'));
    else act(a);
  };
  const open = d.status === 'registering' || d.status === 'running';
  const youLine = !open || !mine ? null : !mine.withdrawn ? t(mine.paused ? 'tour.youPaused' : 'tour.youIn') : t('tour.youOut');
  if (acts.length || youLine || T().notice) {
    out.push(h('section.card#tour-you', { 'aria-label': t('tour.yourPlace') },
      youLine ? h('p#tour-you-line', youLine) : null,
      acts.length ? h('div.row2#tour-actions', acts.map((a) => h(`button.big${a === 'join' ? '.primary' : ''}#tour-${a}`, { onclick: press(a), disabled: Boolean(busy) }, busy === a ? t('tour.sending') : t(label[a])))) : null,
      h(`p#tour-notice${T().notice?.kind === 'error' ? '.error' : '.ok'}`, { role: T().notice?.kind === 'error' ? 'alert' : 'status' }, T().notice?.text || '')));
  }
  // Its link, to bring players (the bot's Join button opens the same).
  if (open) {
    const link = tourLink(d.id);
    out.push(h('section.card#tour-invite', { 'aria-labelledby': 'tour-invite-title' },
      h('h2#tour-invite-title', t('tour.invite')),
      h('input#tour-link', { value: link, readonly: true, 'aria-label': t('tour.invite'), onclick: (e) => e.target.select() }),
      h('div.row2',
        h('button#tour-copy', { onclick: async () => { try { await navigator.clipboard.writeText(link); toast(t('toast.linkCopied')); } catch { $('#tour-link')?.select(); } } }, t('btn.copy')),
        h('button#tour-share', {
          onclick: () => {
            if (tg.share(link, t('tour.inviteText'))) return;
            if (navigator.share) navigator.share({ title: 'Tabula', url: link }).catch(() => {});
            else $('#tour-link')?.select();
          },
        }, t('btn.share')))));
  }
  // The round's games (an arena's: those being played).
  if (d.status === 'running' || (d.games || []).length) out.push(gamesCard(d));
  if (d.bracket) out.push(bracketCard(d));
  out.push(standingsCard(d));
  out.push(playersCard(d));
  return h('main.tour.tour-one', out);
}

function gamesCard(d) {
  const f = d.config.format;
  const title = f.type === 'arena' ? t('tour.gamesArena') : t('tour.gamesRound', { n: d.round });
  const games = d.games || [];
  return h('section.card#tour-games', { 'aria-labelledby': 'tour-games-title' },
    h('h2#tour-games-title', title),
    games.length
      ? h('ul.tour-lines', games.map((g) => {
        const mineGame = g.white === me() || g.black === me();
        const res = outcomeMark(g.outcome);
        const text = `${who(g.white)} — ${who(g.black)}`;
        return h('li', h(`button.tour-game${mineGame ? '.mine' : ''}`, {
          'data-room': g.roomId,
          'data-outcome': g.outcome || null,
          onclick: () => enterGame(d.id, g.roomId, !(mineGame && !g.outcome)),
        }, h('b', text), h('span', res || (mineGame ? t('tour.play') : t('tour.watch')))));
      }))
      : h('p.empty', t('tour.noGames')));
}

function bracketCard(d) {
  const b = d.bracket;
  const cols = [];
  for (let r = 0; r < b.totalRounds; r++) {
    const matches = b.rounds[r] || [];
    const side = (m, p) => {
      if (!p) return h('div.b-side.bye', h('span', t('tour.bye')));
      const w = matchWinner(m);
      const cls = w === p ? '.won' : w || m.winner?.state === 'nobody' ? '.lost' : '';
      return h(`div.b-side${cls}${p === me() ? '.me' : ''}`, { 'data-player': p },
        h('span.b-name', who(p)),
        w === p ? h('span.b-mark', h('span', { 'aria-hidden': 'true' }, '✓'), h('span.sr-only', ` (${t('tour.winner')})`)) : null);
    };
    cols.push(h('div.b-round', { 'data-round': String(r + 1) },
      h('h3', t(...roundKey(r + 1, b.totalRounds))),
      matches.length
        ? h('ol.b-matches', matches.map((m, i) => h('li.b-match', { 'data-match': String(i + 1), 'data-winner': matchWinner(m) || (m.winner?.state === 'nobody' ? '-' : null) }, side(m, m.a), side(m, m.b))))
        : h('p.b-later', t('tour.later'))));
  }
  // The scrolling box is the region (named once: the section itself is not a landmark).
  return h('section.card#tour-bracket',
    h('h2#tour-bracket-title', t('tour.bracket')),
    h('div.bracket#bracket', { tabindex: '0', role: 'region', 'aria-label': t('tour.bracket') }, cols));
}

function standingsCard(d) {
  const f = d.config.format;
  const rows = d.standings?.rows || [];
  const swiss = f.type === 'swiss';
  const col = (short, full) => h('th', { scope: 'col' }, h('abbr', { title: full }, short), h('span.sr-only', ` ${full}`));
  const head = [h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, t('pl.player')),
    col(t('tour.col.pts'), t(f.type === 'knockout' ? 'tour.col.ptsKnockout' : 'tour.col.ptsFull')),
    col(t('tour.col.g'), t('pl.games')),
    col(t('tour.col.wdl'), t('tour.col.wdlFull'))];
  // A Swiss's tie-breaks in the order they count (README, *Tournaments*).
  if (swiss) head.push(col(t('tour.col.bh1'), t('tour.col.bh1Full')), col(t('tour.col.bh'), t('tour.col.bhFull')), col(t('tour.col.sb'), t('tour.col.sbFull')));
  const pts = (x, unit) => String(pointsShown(f, x, unit)).replace('.', lang() === 'ru' ? ',' : '.');
  // A big field (an arena of hundreds): the first SHOWN rows and the player's own, after "…"
  // (each name is a profile to read, and nobody scrolls 800 rows on a phone).
  const cols = 5 + (swiss ? 3 : 0);
  const mineAt = rows.findIndex((r) => r.player === me());
  const shown = rows.slice(0, SHOWN);
  const row = (r) => h(`tr${r.player === me() ? '.me' : ''}`, { 'data-player': r.player, 'aria-current': r.player === me() ? 'true' : null },
    h('td.rank', String(r.rank)),
    h('td.name', who(r.player), r.onFire ? h('span.fire', { title: t('tour.onFire') }, ' 🔥', h('span.sr-only', t('tour.onFire'))) : null),
    h('td.pts', pts(r.points)),
    h('td', String(r.games)),
    h('td.wdl', `${r.wins}–${r.draws}–${r.losses}`),
    swiss ? [h('td', pts(r.buchholzCut1)), h('td', pts(r.buchholz)), h('td', pts(r.sonnebornBerger, 4))] : null);
  const body = shown.map(row);
  if (rows.length > SHOWN) {
    body.push(h('tr.gap', h('td', { colspan: cols }, t('tour.more', { n: rows.length - SHOWN - (mineAt >= SHOWN ? 1 : 0) }))));
    if (mineAt >= SHOWN) body.push(row(rows[mineAt]));
  }
  return h('section.card#tour-standings',
    h('h2#tour-standings-title', t(d.status === 'finished' ? 'tour.final.standings' : 'tour.standings')),
    rows.length
      ? h('div.table-wrap', { tabindex: '0', role: 'region', 'aria-labelledby': 'tour-standings-title' },
        h('table.tour-table#standings', h('thead', h('tr', head)), h('tbody', body)))
      : h('p.empty', t('tour.noStandings')));
}

function playersCard(d) {
  const players = d.players || [];
  const shown = players.slice(0, SHOWN);
  const mine = players.slice(SHOWN).find((p) => p.player === me());
  if (mine) shown.push(mine);
  return h('section.card#tour-players', { 'aria-labelledby': 'tour-players-title' },
    h('h2#tour-players-title', t('tour.playersTitle', { n: players.filter((p) => !p.withdrawn).length })),
    players.length > SHOWN ? h('p.note.left', t('tour.more', { n: players.length - shown.length })) : null,
    players.length
      ? h('ul.tour-players', shown.map((p) => h(`li${p.withdrawn ? '.out' : ''}${p.player === me() ? '.me' : ''}`, { 'data-player': p.player },
        h('span', who(p.player)),
        h('span.muted', [String(p.rating), p.withdrawn ? t('tour.withdrawn') : null, p.paused ? t('tour.paused') : null].filter(Boolean).join(' · ')))))
      : h('p.empty', t('tour.noPlayers')));
}

