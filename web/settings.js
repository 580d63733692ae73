// The sheets: settings, rules and the move log.

import { api } from './net.js';
import * as sound from './sound.js';
import * as tg from './telegram.js';
import { t, setLang, lang, LANGS, LANG_NAMES } from './i18n.js';
import { h, $ } from './dom.js';
import { gameName, levelName, pref, setPref, S, dispatch, credHeaders, game } from './store.js';
import { profiles, seatWord, sideName } from './text.js';
import { R } from './lobby.js';
import { render } from './app.js';

/** notices.js once loaded (a Telegram player's settings sheet needs it). */
let notices = null;
const applies = () => tg.active() && /^tg:/.test(S.player || '');

// ---- the board's theme ---------------------------------------------------------------
/** The boards' colour themes (style.css, `:root[data-board=…]`); classic is the measured default. */
export const BOARD_THEMES = ['classic', 'ocean', 'walnut'];
/** Puts the saved board theme on the page (at start and when chosen). */
export function applyBoardTheme() {
  const b = pref('board', 'classic');
  document.documentElement.dataset.board = BOARD_THEMES.includes(b) ? b : 'classic';
}

// ---- sheets: settings, rules, move log ----------------------------------------------
export function openSheet(kind, arg) {
  dispatch('sheet', { kind, arg });
  dispatch('nameNoted', null);
  sound.unlock();
  if (kind === 'settings' && applies()) {
    // The bot's switches (notices.js), loaded with the sheet that shows them.
    import('./notices.js').then((m) => {
      notices = m;
      m.loadNotices();
    });
  }
  render();
}

export function sheet() {
  const sh = S.sheet;
  const close = h('button#sheet-close', { onclick: () => { dispatch('sheet', null); render(); } }, t('btn.close'));
  let body = [];
  if (sh.kind === 'settings') body = settingsBody();
  else if (sh.kind === 'rules') body = rulesBody(sh.arg || game() || S.lobby.game);
  else if (sh.kind === 'log') body = logBody();
  const title = { settings: 'settings.title', rules: 'rules.title', log: 'log.title' }[sh.kind];
  return h(`div.overlay#sheet-${sh.kind}`, { role: 'dialog', 'aria-modal': 'true', 'aria-label': t(title) },
    h('div.sheet', h('h2', t(title)), body, h('div.row', close)));
}

export function settingsBody() {
  const langSel = h('select#lang', { onchange: (e) => { setPref('lang', e.target.value); setLang(e.target.value).then(render); } },
    LANGS.map((l) => h('option', { value: l, selected: l === lang() }, LANG_NAMES[l])));
  const check = (id, key, fallback, label, onchange) => h('label.row.check',
    h(`input#${id}`, { type: 'checkbox', checked: pref(key, fallback), onchange: (e) => { setPref(key, e.target.checked); onchange?.(e.target.checked); render(); } }),
    h('span', label));
  const speed = h('select#speed', { onchange: (e) => { setPref('speed', e.target.value); render(); } },
    ['normal', 'fast', 'off'].map((v) => h('option', { value: v, selected: pref('speed', 'normal') === v }, t(`settings.speed.${v}`))));
  const boardSel = h('select#board-theme', { onchange: (e) => { setPref('board', e.target.value); applyBoardTheme(); render(); } },
    BOARD_THEMES.map((v) => h('option', { value: v, selected: document.documentElement.dataset.board === v }, t(`settings.board.${v}`))));
  const out = [
    h('label.row', h('span', t('settings.language')), langSel),
    check('confirm-turns', 'confirm', true, t('settings.confirm'), () => { dispatch('localDropped'); R?.ensureLocal(); }),
    check('auto-roll', 'autoRoll', false, t('settings.autoRoll')),
    check('auto-play', 'autoPlay', false, t('settings.autoPlay')),
    check('sound-on', 'sound', true, t('settings.sound'), (on) => sound.setMuted(!on)),
    h('label.row', h('span', t('settings.speed')), speed),
    h('label.row', h('span', t('settings.board')), boardSel),
  ];
  if (S.player) {
    const input = h('input#name-input', { value: S.profile?.name || '', maxlength: 32, autocomplete: 'off', 'aria-label': t('settings.name') });
    out.push(h('form.row#name-form', {
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          // The input on the page (patched renders keep it; the one built here may be a discarded copy).
          const typed = (e.currentTarget || e.target).querySelector('#name-input')?.value ?? input.value;
          const r = await api('POST', '/api/me/name', { name: typed }, credHeaders());
          dispatch('profile', { ...(S.profile || {}), ...(r?.profile || r || {}), name: r?.profile?.name || r?.name || typed.trim() });
          profiles.set(S.player, S.profile);
          dispatch('nameNoted', { ok: true, text: t('settings.nameSaved') });
        } catch (err) {
          dispatch('nameNoted', { ok: false, text: err.message || t('settings.nameBad') });
        }
        render();
      },
    }, h('span', t('settings.name')), input, h('button', { type: 'submit' }, t('btn.save'))));
    if (S.nameNote) out.push(h(`p#name-note.${S.nameNote.ok ? 'ok' : 'error'}`, { role: 'status' }, S.nameNote.text));
  }
  if (applies()) out.push(notices?.noticesPart() || null);
  return out;
}

export function rulesBody(g) {
  const out = [h('h3', gameName(g))];
  for (const line of t(`rules.${g}`).split('\n')) out.push(h('p', line));
  if (g !== 'thud') out.push(h('h3', t('rules.cubeTitle')), h('p', t('rules.cube')));
  // The clock: delay, reserve, and what running out costs in this game.
  out.push(h('h3#rules-clock', t('rules.clockTitle')), h('p', t('rules.clock')),
    h('p', g === 'thud' ? t('rules.clockThud') : g === 'backgammon' ? t('rules.clockBackgammon') : t('rules.clockNardy')));
  const terms = g === 'long_nardy' ? ['oin', 'mars', 'koks', 'head'] : g === 'backgammon' ? ['gammon', 'backgammon'] : [];
  if (terms.length) out.push(h('ul.terms', terms.map((k) => h('li', t(`term.${k}`)))));
  out.push(h('h3', t('rules.levelsTitle')), h('ul', [1, 2, 3].map((l) => h('li', h('b', levelName(l)), ' — ', t(`level.${l}.about.${g}`)))));
  out.push(h('p.tips', t('rules.tips')));
  return out;
}

/** The move log as a list (`id`: the sheet's `move-log`, the room's side panel its own). */
export function logBody(id = 'move-log') {
  if (!S.log.some((e) => !e.game)) return [h('p', t('log.empty'))];
  const rows = [];
  let n = 0;
  for (const e of S.log) {
    if (e.game) {
      rows.push(h('li.log-game', t('log.game', { n: e.game })));
      n = 0;
      continue;
    }
    const who = S.view ? sideName(e.seat) || seatWord(e.seat) : e.seat;
    if (e.note) {
      // The cube, a resignation, Thud!'s end of a round: not a turn, so not numbered.
      const what = e.note === 'resign' ? t(`log.resign.${['stoodUp', 'disconnected', 'timeout'].includes(e.reason) ? e.reason : 'resigned'}`) : t(`log.${e.note}`, { n: e.cube });
      rows.push(h('li.log-note', { 'data-seat': e.seat, 'data-note': e.note }, h('b', who), ': ', what));
      continue;
    }
    n += 1;
    const dice = e.dice ? ` ${e.dice[0]}–${e.dice[1]}` : '';
    const what = e.thud || (e.pass ? t('log.pass') : (e.steps || []).join(', '));
    rows.push(h('li.log-turn', { 'data-seat': e.seat }, h('span.n', `${n}.`), ' ', h('b', who), dice, ': ', what));
  }
  return [h(`ol.log#${id}`, rows)];
}
