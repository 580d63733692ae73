// Tabula Mini App: the start, `render()` (which screen, the overlays and
// toasts; redraws held while a control is pressed), the header, the theme
// and Telegram's buttons. The screens are modules of their own: lobby.js,
// room.js (with play.js, server.js, log.js), settings.js, and players.js
// (profile.js, replay.js, leaderboard.js); the state is store.js's `S`.
// The client holds no rules: it shows what the server offers
// (possibleMoves, legalMoves) and sends the player's choice. Wire
// protocol: docs/protocol.md.

import { Net, api } from './net.js';
import * as tg from './telegram.js';
import * as sound from './sound.js';
import { t, setLang, pickLang } from './i18n.js';
import * as pl from './players.js';
import { h, $, patchChildren } from './dom.js';
import { gameName, levelName, kindName, params, pref, S, dispatch, net, setNet, credQuery, credHeaders, seatIdx, game, isDice, playing, myTurn, need } from './store.js';
import { photoOf, avatar, seatWord, toast, ask, reasonFor, gameStats, statsTable } from './text.js';
import { enterRoom, loadStats, renderLobby, R, loadRoom, prefetchRoom, onWelcome, T, TOUR_SCREENS, loadTour, openTournaments } from './lobby.js';
import { ping, onPong, strays } from './store.js';
import { openSheet, sheet, applyBoardTheme } from './settings.js';

// ---- theme outside Telegram -------------------------------------------------
export function applyStoredTheme() {
  if (tg.active()) return;
  let t = 'auto';
  try {
    t = localStorage.getItem('tabula.theme') || 'auto';
  } catch {}
  const dark = t === 'dark' || (t === 'auto' && matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  document.documentElement.dataset.themeChoice = t;
}

export function cycleTheme() {
  const order = ['auto', 'light', 'dark'];
  const cur = document.documentElement.dataset.themeChoice || 'auto';
  const next = order[(order.indexOf(cur) + 1) % order.length];
  try {
    localStorage.setItem('tabula.theme', next);
  } catch {}
  applyStoredTheme();
  render();
}


// ---- rendering ----------------------------------------------------------------
// ---- a press is never disturbed -------------------------------------------------
//
// From the moment a finger (or the mouse) goes down on a control until its
// click, nothing is redrawn: the redraws asked for meanwhile wait for the
// click (or for a moment after the finger lifts without one, or for a press
// held too long), so the control under the finger is neither replaced nor
// moved between the touch and the click. The board handles its own
// pointers (drags) and is not held.
export let pressed = false;
export let owed = false;
export let pressTimer = null;

export function holdRenders(ev) {
  if (!ev.target.closest?.('button, select, input, a, label') || ev.target.closest('#board-wrap')) return;
  pressed = true;
  clearTimeout(pressTimer);
  pressTimer = setTimeout(releaseRenders, 1500);
}

export function releaseRenders() {
  clearTimeout(pressTimer);
  if (!pressed) return;
  pressed = false;
  if (owed) {
    owed = false;
    render();
  }
}

export function liftRenders() {
  if (!pressed) return;
  clearTimeout(pressTimer);
  pressTimer = setTimeout(releaseRenders, 120);
}

export function render() {
  if (pressed) {
    owed = true;
    return;
  }
  const app = $('#app');
  if (!app) return;
  document.documentElement.dataset.screen = S.screen;
  if (S.screen === 'lobby') {
    renderLobby(app);
    if (S.player) prefetchRoom();
  } else if (pl.SCREENS.has(S.screen)) pl.render(app);
  else if (TOUR_SCREENS.has(S.screen)) {
    // The tournament screens (tournaments.js), loaded on first use.
    if (T) T.renderTour(app);
    else {
      if (!$('#tour-loading', app)) app.replaceChildren(h('main.room-loading', h('p.loading#tour-loading', { role: 'status' }, t('pl.loading'))));
      loadTour().then(render);
    }
  } else if (R) {
    R.renderRoom(app);
    focusBoardAfterRoll();
  } else {
    // The room's modules are on their way (enterRoom asked for them).
    if (!$('#room-loading', app)) app.replaceChildren(h('main.room-loading', h('p.loading#room-loading', { role: 'status' }, t('room.loading'))));
    loadRoom().then(render);
  }
  renderOverlays();
  telegramChrome();
}

/**
 * After the player's roll the focus lands on the board: on its first
 * movable checker, unless he has put it somewhere else meanwhile (the chat).
 */
export function focusBoardAfterRoll() {
  if (!S.focusBoard || !S.view) return;
  if (!myTurn() || !isDice()) {
    if (S.view.phase !== 'playing' || (S.view.toAct?.seat && S.view.toAct.seat !== S.seat)) dispatch('focusBoard', false);
    return;
  }
  if (need() !== 'move') return;
  const c = $('#board .checker.movable');
  if (!c) return;
  dispatch('focusBoard', false);
  const a = document.activeElement;
  if (!a || a === document.body || !a.isConnected || a.closest('#board-wrap, #controls')) c.focus({ preventScroll: true });
}

export function header(title, left) {
  const theme = tg.active()
    ? null
    : h('button.icon#theme', { title: t('btn.theme'), 'aria-label': t('btn.theme'), onclick: cycleTheme, text: { auto: '◐', light: '☀', dark: '☾' }[document.documentElement.dataset.themeChoice || 'auto'] });
  let conn = null;
  if (S.conn === 'replaced') {
    conn = h('button.conn#conn-status', { onclick: () => { dispatch('conn', 'connecting'); net.connect(); render(); } }, t('conn.replaced'));
  } else if (S.conn !== 'online') {
    conn = h('span.conn#conn-status', { text: S.conn === 'reconnecting' ? t('conn.reconnecting') : t('conn.connecting') });
  }
  const rules = h('button.icon#rules-button', { title: t('btn.rules'), 'aria-label': t('btn.rules'), onclick: () => openSheet('rules', S.screen === 'room' ? game() : S.lobby.game), text: '?' });
  const settings = h('button.icon#settings', { title: t('btn.settings'), 'aria-label': t('btn.settings'), onclick: () => openSheet('settings'), text: '⚙' });
  return h('header.top', left, h('h1', title), conn, rules, settings, theme);
}

export function renderOverlays() {
  let layer = $('#overlays');
  if (!layer) {
    layer = h('div#overlays');
    document.body.append(layer);
  }
  const kids = [];
  if (S.confirm) {
    const c = S.confirm;
    kids.push(h('div.overlay#confirm', { role: 'alertdialog', 'aria-modal': 'true', 'aria-label': c.text }, h('div.sheet',
      h('p', c.text),
      h('div.row2',
        h('button#confirm-no', { onclick: () => { dispatch('confirm', null); render(); } }, t('btn.cancel')),
        h('button.danger#confirm-yes', { onclick: () => { dispatch('confirm', null); c.onYes(); render(); } }, c.yes)))));
  }
  // The result sheet once the game's end is known whole (gameEnded: why it
  // ended, a timeout among others), not at `game_over`, which comes just
  // before it and may wait behind the last steps' animation.
  if (R && S.screen === 'room' && S.view && S.showResult && (S.ended || (S.gameOver && S.view.phase !== 'playing'))) {
    kids.push(R.gameOverSheet());
  }
  if (S.sheet) kids.push(sheet());
  patchChildren(layer, kids);
  renderToasts();
}

/**
 * Toasts float in a layer of their own above everything, the result sheet
 * included, out of the page's flow (nothing moves when one comes or goes)
 * and letting taps through to what is under them.
 */
export function renderToasts() {
  let layer = $('#toasts');
  if (!layer) {
    layer = h('div#toasts', { 'aria-live': 'polite', role: 'status' });
    document.body.append(layer);
  }
  patchChildren(layer, S.toast ? [h(`div.toast.${S.toast.kind}#toast`, S.toast.text)] : []);
}

// ---- Telegram chrome ------------------------------------------------------------
export function telegramChrome() {
  if (!tg.active()) return;
  const inRoom = S.screen === 'room' && Boolean(R);
  tg.closingConfirmation(inRoom && playing() && Boolean(S.seat));
  tg.verticalSwipes(!inRoom);
  tg.backButton(inRoom ? R.leave : pl.SCREENS.has(S.screen) ? pl.back : TOUR_SCREENS.has(S.screen) && T ? T.back : null);
  const v = S.view;
  const mine = S.seat && v ? v.seats[seatIdx(S.seat)] : null;
  const vsBot = inRoom && mine && v.seats.some((s) => s.bot);
  if (inRoom && S.local?.complete && !S.local.sent) tg.mainButton(t('btn.done'), R.sendTurn);
  else if (inRoom && mine && v.phase === 'waiting_for_player' && !mine.ready && !S.gameOver && !vsBot) tg.mainButton(t('btn.ready'), R.sendReady);
  else if (inRoom && S.showResult && (S.gameOver || S.ended)) tg.mainButton(t('btn.playAgain'), R.playAgain);
  // A tournament game waiting for him: on its tournament's screen, and in the lobby's banner.
  else if (T && S.screen === 'tournament' && S.tour?.data?.myGame) tg.mainButton(t('tour.play'), T.playMine);
  else if (T && S.screen === 'lobby' && S.tour?.next) tg.mainButton(t('tour.play'), T.playNext);
  else tg.mainButton(null);
}


// ---- the socket's messages ----------------------------------------------------------
/**
 * The lobby answers `welcome`, `pong` and a `replaced` error itself;
 * anything else is a room's and goes to server.js's `onMessage`, loaded
 * first if it is not yet (messages wait for it in order).
 */
const waiting = [];
function route(m) {
  if (R && !waiting.length) return R.onMessage(m);
  if (!R && !waiting.length) {
    if (m.type === 'welcome') {
      onWelcome(m);
      render();
      return;
    }
    if (m.type === 'pong') return onPong(m);
  }
  waiting.push(m);
  if (waiting.length > 1) return;
  loadRoom().then(() => {
    while (waiting.length) R.onMessage(waiting.shift());
    render();
  });
}

// ---- start ------------------------------------------------------------------------
export async function main() {
  // The profile, history and leaderboard screens share the app's helpers.
  pl.setup({
    S, dispatch, h, header, render, credHeaders, gameName, levelName, kindName, reasonFor, seatWord, avatar, photoOf, gameStats, statsTable, ask, toast, loadStats,
    tgActive: () => tg.active(),
    // A tournament of the profile's results; its Back comes back to the profile.
    openTournament: (id) => openTournaments(id, 'profile'),
  });
  applyStoredTheme();
  applyBoardTheme();
  sound.setMuted(!pref('sound', true));
  matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', applyStoredTheme);
  await tg.init();
  await setLang(pref('lang', null) || pickLang(tg.languageCode(), navigator.languages || [navigator.language]));
  // Keyboard play: Enter or Space on a focused checker or point is a tap.
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && S.sheet) {
      dispatch('sheet', null);
      render();
      return;
    }
    // The replay's keys (arrows, Home, End).
    if (pl.onKey(ev)) return;
    if (ev.key !== 'Enter' && ev.key !== ' ') return;
    const tgt = ev.target.closest?.('#board [data-point],#board [data-sq]');
    if (!tgt) return;
    ev.preventDefault();
    // The renderer keeps the focus across redraws (on to the first target after a selection).
    R?.tap(tgt);
  });
  document.addEventListener('pointerdown', () => sound.unlock(), { once: true });
  document.addEventListener('pointerdown', holdRenders, true);
  document.addEventListener('pointerup', liftRenders, true);
  document.addEventListener('pointercancel', liftRenders, true);
  document.addEventListener('click', releaseRenders, true);
  // The node's client config (Telegram's app link for invites and shares)
  // comes beside the socket, not before it: nothing on the first screen waits for it.
  api('GET', '/api/client-config').then((c) => {
    dispatch('config', c || {});
    render();
  }, () => {});
  setNet(new Net({
    query: credQuery,
    onMessage: route,
    onStatus: (s) => {
      dispatch('conn', s);
      render();
    },
  }));
  window.__tabula = {
    get state() {
      return S;
    },
    get net() {
      return net;
    },
    dropSocket: () => net.dropSocket(),
    sounds: sound.played,
    // Writes to the state outside a named transition (with __tabulaStrict set before the app starts).
    strays,
    enter: (key) => enterRoom(key),
    // For the tests: a toast as the app shows one, and a redraw.
    toast: (text, kind, ms) => toast(text, kind, ms),
    render: () => render(),
  };
  net.connect();
  // A Mini App link's parameter (Telegram's start_param, or ?startapp=):
  // a room's invite or id, the bot's link to a replay,
  // `replay-<room>-<game>`, or to a tournament, `t_<id>`; or this page's
  // own ?join= / ?replay= / ?tournament= (the bot's web_app button) /
  // #/t/<id> / #/tournaments.
  const start = tg.startParam() || params.get('startapp');
  const linkedReplay = /^replay-([A-Za-z0-9_]{1,64})-(\d{1,6})$/.exec(start || '');
  const linkedTour = /^t_([A-Za-z0-9_-]{1,30})$/.exec(start || '')
    || /^([A-Za-z0-9_-]{1,30})$/.exec(params.get('tournament') || '')
    || (tg.active() ? null : /^#\/t\/([A-Za-z0-9_-]{1,30})$/.exec(location.hash));
  const code = linkedReplay || linkedTour ? null : start || params.get('join');
  const replay = linkedReplay
    ? { room: linkedReplay[1], gameNumber: Number(linkedReplay[2]) }
    : pl.replayParam(params.get('replay'));
  // A tournament's game is a room whose id holds colons (`cup:1:2`).
  if (code && /^[A-Za-z0-9_:-]{1,64}$/.test(code)) enterRoom(code);
  else if (linkedTour) openTournaments(linkedTour[1]);
  else if (!tg.active() && location.hash === '#/tournaments') openTournaments();
  else if (replay) pl.open('replay', replay);
  render();
  setInterval(() => {
    // Keep-alive; its pong refines the server's clock.
    ping();
  }, 15000);
  // The clocks and the away countdowns, from the server's figures.
  setInterval(() => R?.tickClocks(), 200);
}

main();
