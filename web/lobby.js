// The lobby screen: the game and its options, against the computer, quick
// match, invite, join by code, Continue cards, statistics; entering and
// leaving a room.

import { api } from './net.js';
import { t } from './i18n.js';
import * as pl from './players.js';
import { h, $, patch } from './dom.js';
import { GAME_KINDS, gameName, levelName, VARIANTS, setPref, TIME_CONTROLS, S, dispatch, net, credHeaders, seatIdx, playing, vsComputer, correspondence } from './store.js';
import { playerName, timeControlName, gameStats, statsTable, profiles } from './text.js';
import { openSheet } from './settings.js';
import { render, header } from './app.js';

// ---- lobby actions ------------------------------------------------------------
export function lobbyOptions() {
  const g = S.lobby.game;
  // Every choice shown, with its default when untouched.
  const o = {};
  for (const [key, , choices] of VARIANTS[g]) o[key] = (S.lobby.options[g] || {})[key] || choices[0][0];
  if (g === 'long_nardy') return { long: { ...o } };
  if (g === 'backgammon') return { backgammon: { ...o } };
  return { thud: { ...o } };
}

export async function createRoom(bot, open = false) {
  dispatch('lobbyError', null);
  const body = { game: S.lobby.game, options: lobbyOptions() };
  // An open challenge: listed in every lobby until someone takes the seat.
  if (open) body.open = true;
  if (S.lobby.game !== 'thud' && S.lobby.matchLength > 1) body.matchLength = S.lobby.matchLength;
  if (bot) body.bot = { level: bot };
  // Between people: the clock chosen in the lobby (against the computer, none).
  else body.timeControl = S.lobby.timeControl;
  try {
    const r = await api('POST', '/api/rooms', body, credHeaders());
    dispatch('botChosen', bot || null);
    enterRoom(r.roomId, r.invite);
  } catch (e) {
    dispatch('lobbyError', e.message);
    render();
  }
}

export async function quickMatch() {
  dispatch('lobbyError', null);
  const ctl = new AbortController();
  dispatch('searching', ctl);
  render();
  try {
    const r = await api('POST', '/api/quickmatch', { game: S.lobby.game, options: lobbyOptions(), timeControl: S.lobby.timeControl }, credHeaders(), ctl.signal);
    dispatch('searching', null);
    dispatch('botChosen', r.bot || null);
    enterRoom(r.roomId, r.invite);
  } catch (e) {
    dispatch('searching', null);
    if (e.name !== 'AbortError') dispatch('lobbyError', e.message);
    render();
  }
}

// ---- the room's modules, loaded when first needed ---------------------------------
/**
 * The room's modules (server.js: its messages applied; play.js: the
 * player's intents; room.js: the screen; with the boards, the move log,
 * sharing and the rating change they import), loaded when a room is
 * first entered or a room's message first arrives, and fetched ahead once
 * the lobby is up (`prefetchRoom`), never before: the lobby loads none of
 * them. `R` holds them once loaded.
 */
export let R = null;
let roomLoading = null;
export function loadRoom() {
  roomLoading ||= Promise.all([import('./server.js'), import('./play.js'), import('./room.js')]).then(([server, play, room]) => {
    R = { ...server, ...play, ...room };
    return R;
  });
  return roomLoading;
}

/** Fetches the room's modules while the lobby is idle (a room then opens without the wait). */
export function prefetchRoom() {
  if (roomLoading) return;
  const go = () => loadRoom().catch(() => { roomLoading = null; });
  if (window.requestIdleCallback) requestIdleCallback(go, { timeout: 3000 });
  else setTimeout(go, 500);
}

/** The socket's `welcome`: the player, his profile. */
export function onWelcome(m) {
  dispatch('welcomed', m);
  if (m.profile) profiles.set(m.player, m.profile);
  if (S.screen === 'lobby') loadStats();
  pl.onWelcome();
}

/**
 * The tournament screens (tournaments.js, with tournament-state.js's
 * transitions), loaded when one is first opened, or by the lobby once
 * `GET /api/me/tournaments` shows the player in a tournament that is not
 * over (for its "next game" banner). `T` holds them once loaded.
 */
export const TOUR_SCREENS = new Set(['tournaments', 'tournament', 'tournamentNew']);
export let T = null;
let tourLoading = null;
export function loadTour() {
  tourLoading ||= import('./tournaments.js').then((m) => {
    T = m;
    return T;
  }, (e) => {
    tourLoading = null;
    throw e;
  });
  return tourLoading;
}

/** Opens the tournaments' list, or tournament `id` (`back`: where its Back goes). */
export function openTournaments(id, back) {
  loadTour().then(() => (id ? T.openTournament(id, back) : T.openList()), () => {
    dispatch('lobbyError', t('pl.failed'));
    render();
  });
}

/** How often the lobby asks whether the player is in a tournament, before tournaments.js is loaded (ms). */
export const PROBE_MS = 30000;
let probedAt = -Infinity;
let probing = false;
/**
 * The lobby's look at the player's tournaments before tournaments.js is
 * loaded: `GET /api/me/tournaments` at most every PROBE_MS; once it shows
 * him in one not over, tournaments.js is loaded, takes the answer and
 * reads the route every few seconds itself (tournaments.js's watchMine).
 */
function tourProbe() {
  if (T || probing || !S.player || Date.now() - probedAt < PROBE_MS) return;
  probing = true;
  probedAt = Date.now();
  api('GET', '/api/me/tournaments', undefined, credHeaders()).then((mine) => {
    if (!(mine?.upcoming?.length || mine?.running?.length)) return;
    return loadTour().then((m) => {
      m.mineAnswered(mine);
      render();
    });
  }).catch(() => {}).finally(() => {
    probing = false;
  });
}

/** The lobby's "next game" banner (tournaments.js), once the player's tournaments make it worth loading. */
function tourNextSection() {
  if (!T) {
    tourProbe();
    return null;
  }
  T.watchMine();
  return T.nextBanner();
}

/** The boards' renderers for the Continue cards (loaded with the first card). */
let boards = null;
let boardsLoading = null;
function loadBoards() {
  boardsLoading ||= Promise.all([import('./boards/nardy.js'), import('./boards/thud.js')]).then(([n, th]) => {
    boards = { renderNardy: n.renderNardy, renderThud: th.renderThud };
    render();
  });
  return boardsLoading;
}

/** The showcase (live.js: live games, open challenges, online), loaded after the lobby's first paint. */
let liveMod = null;
let liveLoading = null;
function liveSection() {
  if (!liveMod) {
    liveLoading ||= import('./live.js').then((m) => { liveMod = m; render(); }).catch(() => { liveLoading = null; });
    return null;
  }
  liveMod.watchLive(render);
  return liveMod.liveCards(enterRoom);
}

/** Enters a room: to play (a seat, or the one he has), or with `spectate` to watch. */
export function enterRoom(key, invite, spectate = false) {
  const kept = {};
  try {
    kept.thudRounds = JSON.parse(sessionStorage.getItem(`tabula.rounds.${key}`) || '[]');
    kept.roundTimeouts = JSON.parse(sessionStorage.getItem(`tabula.roundTimeouts.${key}`) || '{}');
    // The move log of this room as this tab saw it (kept across a reload).
    kept.log = JSON.parse(sessionStorage.getItem(`tabula.log.${key}`) || '[]');
  } catch {}
  dispatch('roomEntered', { key, invite, kept });
  history.replaceState(null, '', `${location.pathname}?join=${encodeURIComponent(key)}${location.hash}`);
  if (R) net.join(key, spectate);
  // The room's modules first (its messages need them), then the join.
  else loadRoom().then(() => { if (S.roomKey === key && net.room?.key !== key) net.join(key, spectate); render(); });
  render();
}

export function toLobby() {
  // A game against the computer is only paused by going back, and a
  // correspondence game goes on without him: keep the seat.
  if (S.seat && ((playing() && vsComputer()) || correspondence())) net.stepAway();
  else net.leaveRoom();
  dispatch('roomLeft');
  history.replaceState(null, '', `${location.pathname}${location.hash}`);
  // A tournament's game: back to its tournament (its standings, the next round).
  const tour = S.tour?.returnTo;
  if (tour && T) {
    dispatch('tourReturn', null);
    T.openTournament(tour, 'lobby');
    return;
  }
  loadStats();
  render();
}

export async function loadStats() {
  if (!net?.player) return;
  try {
    dispatch('stats', await api('GET', `/api/players/${encodeURIComponent(net.player)}/stats`));
    render();
  } catch {}
  loadUnfinished();
}

/** The player's paused games against the computer, for the lobby's "Continue" cards. */
export async function loadUnfinished() {
  try {
    const r = await api('GET', '/api/me/games', undefined, credHeaders());
    dispatch('unfinished', r.games || []);
    if (S.screen === 'lobby') render();
  } catch {}
}

export function renderLobby(app) {
  const L = S.lobby;
  const opts = L.options[L.game] || {};
  const gameButtons = GAME_KINDS.map((g) =>
    h(`button.seg${g === L.game ? '.on' : ''}`, { 'data-game': g, 'aria-pressed': String(g === L.game), onclick: () => { dispatch('lobbyGame', g); render(); } }, gameName(g)),
  );
  const variantRows = VARIANTS[L.game].map(([key, label, choices]) =>
    h('label.row', h('span', t(label)), h('select', { 'data-opt': key, onchange: (e) => dispatch('lobbyOption', { option: key, value: e.target.value }) },
      choices.map(([val, text]) => h('option', { value: val, selected: (opts[key] || choices[0][0]) === val }, t(text))))),
  );
  if (L.game !== 'thud') {
    variantRows.push(h('label.row', h('span', t('opt.match')), h('select#match-length', { onchange: (e) => dispatch('lobbyMatch', Number(e.target.value)) },
      [1, 3, 5, 7].map((n) => h('option', { value: n, selected: L.matchLength === n }, n === 1 ? t('opt.match.1') : t('opt.match.n', { n }))))));
  }
  // Statistics per kind of game: the chosen game's (a Thud! loss is not in a nardy row).
  const st = gameStats(S.stats, L.game);
  const statsBox = st && st.games
    ? h('section.card.stats#lobby-stats', h('h2', t('lobby.resultsIn', { game: gameName(L.game) })), statsTable(st, L.game))
    : null;
  const page = h('main.lobby',
    header(t('lobby.title')),
    S.error ? h('p.error#lobby-error', S.error) : null,
    // A tournament game waiting for the player (tournaments.js).
    tourNextSection(),
    continueCards(),
    // Profile, history, leaderboards (players.js); tournaments (tournaments.js).
    pl.lobbyNav(() => openTournaments()),
    h('section.card', h('h2', t('lobby.game')), h('div.segs', gameButtons), variantRows, h('button.link#rules', { onclick: () => openSheet('rules', L.game) }, t('btn.rules'))),
    h('section.card', h('h2', t('lobby.computer')),
      h('div.row3', [1, 2, 3].map((l) => h(`button.big#bot-${['easy', 'medium', 'hard'][l - 1]}`, { onclick: () => createRoom(l), title: t(`level.${l}.about.${L.game}`) }, levelName(l)))),
      h('p.levels-about', [1, 2, 3].map((l) => h('span', h('b', levelName(l)), ' — ', t(`level.${l}.about.${L.game}`))))),
    h('section.card', h('h2', t('lobby.person')),
      // The clock of a game between people (quick match pairs equal clocks only).
      h('label.row', h('span', t('lobby.clock')), h('select#time-control', { onchange: (e) => { dispatch('lobbyClock', e.target.value); setPref('timeControl', e.target.value); } },
        TIME_CONTROLS.map((tc) => h('option', { value: tc, selected: L.timeControl === tc }, timeControlName(tc))))),
      S.searching
        ? h('div.row', h('span.spin'), h('span', t('lobby.searching')), h('button#cancel-search', { onclick: () => S.searching?.abort() }, t('btn.cancel')))
        : h('div.row2', h('button.big#quick-match', { onclick: quickMatch }, t('lobby.quick')), h('button.big#create-room', { onclick: () => createRoom(null) }, t('lobby.invite')), h('button.big#open-challenge', { onclick: () => createRoom(null, true) }, t('lobby.openChallenge'))),
      h('form.row#join-form', { onsubmit: (e) => { e.preventDefault(); const c = $('#join-code').value.trim(); if (c) enterRoom(c); } },
        h('input#join-code', { placeholder: t('lobby.code'), 'aria-label': t('lobby.code'), autocomplete: 'off', maxlength: 32 }), h('button', { type: 'submit' }, t('btn.join')))),
    liveSection(),
    statsBox,
    h('footer.note#me', S.player ? t('lobby.signedIn', { name: playerName(S.player) }) : ''),
  );
  mount(app, page);
}

/**
 * Puts a screen's page in the app: patched over the page already there when
 * it is the same screen (its elements kept), else in its place.
 */
export function mount(app, page) {
  const cur = app.firstElementChild;
  if (app.childElementCount === 1 && cur.tagName === page.tagName && cur.className === page.className) patch(cur, page);
  else app.replaceChildren(page);
}

/** One card per paused game against the computer: game, level, score, the board as left. */
export function continueCards() {
  const list = S.unfinished || [];
  if (!list.length) return null;
  return h('section.card.continue#continue', h('h2', t('lobby.continue')),
    list.map((g) => {
      const board = h('div.mini-board', { 'aria-hidden': 'true' });
      if (!boards) loadBoards();
      else if (g.board && g.game !== 'thud') {
        boards.renderNardy(board, { game: g.game, position: g.board.position, seat: g.yourSeat, movable: new Set(), targets: new Set() });
      } else if (g.board) {
        boards.renderThud(board, { position: g.board.position, legalMoves: [], mine: null, myTurn: false, targets: new Map() });
      }
      const mine = seatIdx(g.yourSeat);
      const score = g.matchLength > 1 ? t('lobby.score', { mine: g.score[mine], theirs: g.score[1 - mine], n: g.matchLength }) : '';
      if (g.timeControl) {
        // A correspondence game between people: whose turn, and the time left.
        const name = g.opponent ? playerName(g.opponent) : t('lobby.corrNobody');
        const yours = g.turn && g.turn === g.yourSeat;
        const hours = Math.max(1, Math.ceil(((g.deadline || 0) - Date.now()) / 3600000));
        const line = !g.turn ? t('lobby.corrWaiting', { score }) : yours ? t('lobby.corrYours', { h: hours, score }) : t('lobby.corrTheirs', { score });
        return h(`button.continue-game${yours ? '.your-turn' : ''}`, { 'data-room': g.roomId, onclick: () => enterRoom(g.roomId) },
          board,
          h('span.continue-text', h('b', t('lobby.corr', { game: gameName(g.game), name })), h('span', line)));
      }
      const ago = Math.max(1, Math.round((Date.now() - g.pausedAt) / 60000));
      const when = ago < 60 ? t('ago.min', { n: ago }) : ago < 2880 ? t('ago.h', { n: Math.round(ago / 60) }) : t('ago.days', { n: Math.round(ago / 1440) });
      return h('button.continue-game', { 'data-room': g.roomId, onclick: () => enterRoom(g.roomId) },
        board,
        h('span.continue-text', h('b', t('lobby.vs', { game: gameName(g.game), level: levelName(g.bot) })), h('span', t('lobby.left', { when, score }))));
    }));
}
