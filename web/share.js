// Sharing a finished game to a chat: the result sheet's and the replay's
// Share, and the result sheet's "Challenge in a chat".
//
// Telegram offers two ways for a Mini App to post into a chat:
// `shareMessage(id)` (Bot API 8.0+), which sends a message the bot
// prepared first, and `switchInlineQuery(query, chatTypes)` (Bot API
// 6.7+), which puts `@bot query` in a chat the player picks, answered by
// the bot's inline mode. A finished game (the result sheet's and the
// replay's Share) goes by the first where it can: the node prepares the
// game's result with a button that opens its replay (`POST
// /api/me/share`, savePreparedInlineMessage) and the player picks the
// chat. Where that cannot be (an older client, a guest, a node without
// the bot or the Mini App's link, Telegram refusing), it is shared as a
// link:
//
// - inside Telegram, Telegram's own share sheet for a link
//   (`openTelegramLink('https://t.me/share/url?…')`: the player picks the
//   chat);
// - outside, the system share sheet (`navigator.share`), else the link
//   copied to the clipboard, else shown to copy by hand.
//
// The link opens the replay: `https://t.me/<bot>/<app>?startapp=replay-
// <room>-<n>` when the node knows its Mini App (`telegramAppUrl` of
// /api/client-config), which app.js reads at start; else this node's own
// `?replay=<room>.<n>`.
//
// "Challenge in a chat" is the inline mode's own use: `switchInlineQuery`
// with the game's word (`long`, `short`, `thud`), so the chat shows the
// challenge cards of the game just played; offered inside Telegram 6.7+
// only, with the Mini App's link known (without it the bot offers no card).

import * as tg from './telegram.js';
import { S, dispatch, credHeaders } from './store.js';
import { api } from './net.js';
import { t, lang } from './i18n.js';
import { toast } from './text.js';
import { render } from './app.js';
import { h } from './dom.js';

/** The link that opens the replay of game `n` of `room`. */
export function replayLink(room, n) {
  if (S.config?.telegramAppUrl) return `${S.config.telegramAppUrl}?startapp=replay-${room}-${n}`;
  return `${location.origin}/?replay=${encodeURIComponent(room)}.${n}`;
}

/**
 * Shares `url` with `text` by the best way this client has; returns how:
 * `telegram`, `system`, `copied`, `shown` (the link put on screen to copy
 * by hand) or `cancelled`.
 */
export async function shareLink(url, text, where) {
  dispatch('shared', null);
  if (tg.share(url, text)) return 'telegram';
  if (typeof navigator.share === 'function') {
    try {
      await navigator.share({ title: 'Tabula', text, url });
      return 'system';
    } catch (e) {
      // The player closed the sheet: nothing more to do.
      if (e?.name === 'AbortError') return 'cancelled';
    }
  }
  try {
    await navigator.clipboard.writeText(url);
    toast(t('toast.linkCopied'));
    return 'copied';
  } catch {}
  dispatch('shared', { url, where });
  render();
  return 'shown';
}

/** Whether the bot can prepare a game's message for this player to send. */
export const canShareGame = () => tg.canShareMessage() && Boolean(S.config?.telegramAppUrl);

/**
 * Shares game `n` of `room`: as the bot's message through `shareMessage`
 * where it can be, else its replay link by `shareLink`. Returns how, as
 * `shareLink` does (`message` for the bot's message sent, `cancelled` when
 * the player closed Telegram's chat picker).
 */
export async function shareGame(room, n, text, where) {
  if (canShareGame()) {
    let id = null;
    try {
      id = (await api('POST', '/api/me/share', { room, game: n, lang: lang() }, credHeaders()))?.id;
    } catch {}
    if (id) return (await tg.shareMessage(id)) ? 'message' : 'cancelled';
  }
  return shareLink(replayLink(room, n), text, where);
}

/** The link put on screen at `where` when nothing else could share it (or null). */
export function sharedLinkBox(where) {
  if (S.shared?.where !== where) return null;
  const id = `${where}-link`;
  return h(`div.share-link#${id}`,
    h('label', { for: `${id}-input` }, t('share.copyHand')),
    h(`input#${id}-input`, { value: S.shared.url, readonly: true, onclick: (e) => e.target.select() }));
}

/** The inline query that offers challenge cards of `game` (challenge.rs's words). */
export function challengeQuery(game) {
  return { long_nardy: 'long', backgammon: 'short', thud: 'thud' }[game] || '';
}

/** Whether "Challenge in a chat" can be offered: Telegram 6.7+ and the Mini App's link known. */
export const canChallengeInChat = () => tg.canSwitchInline() && Boolean(S.config?.telegramAppUrl);

/** Opens Telegram's chat picker with the bot's challenge cards of `game`. */
export function challengeInChat(game) {
  return tg.switchInline(challengeQuery(game), ['users', 'groups', 'supergroups']);
}
