// The settings sheet's "Messages from the bot" (issue 44): which kinds of
// the bot's notifications a Telegram player gets, the same switches as the
// bot's /settings (GET / PUT /api/me/notices, docs/protocol.md). A player
// who never started the bot is told to start it: Telegram lets a bot write
// only to someone who did, so until then the switches cannot apply.

import { api } from './net.js';
import * as tg from './telegram.js';
import { t } from './i18n.js';
import { h } from './dom.js';
import { S, dispatch, credHeaders } from './store.js';
import { render } from './app.js';

/** Whether the section applies: a Telegram player (the bot writes to no one else). */
export const applies = () => tg.active() && /^tg:/.test(S.player || '');

/** Reads the player's switches (when the settings sheet opens). */
export async function loadNotices() {
  if (!applies()) return;
  const n = { loading: true, data: null, error: null, saving: null };
  dispatch('notices', n);
  try {
    n.data = await api('GET', '/api/me/notices', undefined, credHeaders());
  } catch (e) {
    n.error = e?.message || t('notices.failed');
  }
  n.loading = false;
  if (S.notices === n) render();
}

async function setKind(kind, on) {
  const n = S.notices;
  if (!n?.data) return;
  n.saving = kind;
  n.error = null;
  render();
  try {
    n.data = await api('PUT', '/api/me/notices', { [kind]: on }, credHeaders());
  } catch (e) {
    n.error = e?.message || t('notices.failed');
  }
  n.saving = null;
  if (S.notices === n) render();
}

/** The bot's own chat: `https://t.me/<bot>` from the Mini App's link. */
function botLink() {
  const m = /^https:\/\/t\.me\/([A-Za-z0-9_]+)/.exec(S.config?.telegramAppUrl || '');
  return m ? `https://t.me/${m[1]}` : null;
}

/** The section, or nothing outside Telegram. */
export function noticesPart() {
  if (!applies()) return null;
  const n = S.notices;
  const out = [h('h3#notices-title', t('notices.title'))];
  if (!n || n.loading) {
    out.push(h('p.loading#notices-loading', { role: 'status' }, t('notices.loading')));
    return h('section.notices#notices', { 'aria-labelledby': 'notices-title' }, out);
  }
  const d = n.data;
  if (d && !d.started) {
    const bot = botLink();
    out.push(h('p.note.left#notices-start', t('notices.start')));
    if (bot) out.push(h('button#notices-open-bot', { onclick: () => tg.openTelegramLink(bot) || window.open(bot, '_blank', 'noopener') }, t('notices.openBot')));
  } else if (d?.blocked) {
    out.push(h('p.note.left#notices-blocked', t('notices.blocked')));
  }
  for (const k of d?.kinds || []) {
    out.push(h('label.row.check', { 'data-kind': k.kind },
      h(`input#notice-${k.kind}`, {
        type: 'checkbox', checked: k.on, disabled: !d.started || Boolean(n.saving),
        onchange: (e) => setKind(k.kind, e.target.checked),
      }),
      h('span', t(`notices.${k.kind}`))));
  }
  if (n.error) out.push(h('p.error#notices-error', { role: 'alert' }, n.error));
  return h('section.notices#notices', { 'aria-labelledby': 'notices-title' }, out);
}
