// The lobby's showcase (issue 46): the games between people being played
// now, highest-rated first, each opening the room as a spectator; the open
// challenges, each with a button to take its free seat; how many are
// online. Loaded by the lobby after its first paint (not part of its
// start-up modules); `GET /api/live` read on entering the lobby and every
// REFRESH_MS while the lobby is shown and the page visible, never per frame.

import { api } from './net.js';
import { t, lang } from './i18n.js';
import { h } from './dom.js';
import { S, dispatch, gameName, credHeaders } from './store.js';
import { shownName } from './names.js';

export const REFRESH_MS = 12000;

let timer = null;
let seq = 0;

/** Reads the showcase once; `render` afterwards while the lobby is up. */
export async function loadLive(render) {
  const mine = ++seq;
  try {
    const data = await api('GET', '/api/live', undefined, credHeaders());
    if (mine !== seq) return;
    dispatch('live', { games: data.games || [], challenges: data.challenges || [], online: data.online ?? null });
  } catch {
    if (mine !== seq) return;
    dispatch('live', { ...(S.live || { games: [], challenges: [] }), failed: true });
  }
  if (S.screen === 'lobby') render();
}

/** Keeps the showcase fresh while the lobby is shown (idempotent; stops itself once it is not). */
export function watchLive(render) {
  if (timer) return;
  loadLive(render);
  timer = setInterval(() => {
    if (S.screen !== 'lobby') {
      clearInterval(timer);
      timer = null;
      return;
    }
    if (document.visibilityState === 'visible') loadLive(render);
  }, REFRESH_MS);
}

const who = (p) => (p?.name ? shownName(p.name, lang()) : t('seat.opponent'));
const rating = (p) => (p && p.rating != null ? ` (${p.rating})` : '');

/** "N online", the live games and the open challenges: the lobby's cards. */
export function liveCards(enter) {
  const L = S.live;
  if (!L) return h('section.card.live#live', h('h2', t('live.title')), h('p.note', t('pl.loading')));
  const games = L.games || [];
  const challenges = (L.challenges || []).filter((c) => c.players?.[0]?.id !== S.player);
  return [
    h('section.card.live#live',
      h('h2', t('live.title'), L.online != null ? h('span.badge#online', { role: 'status' }, t('live.online', { n: L.online })) : null),
      games.length
        ? h('ul.live-list#live-games', games.map((g) => h('li',
          h('button.live-game', { 'data-live-room': g.roomId, onclick: () => enter(g.roomId, undefined, true), 'aria-label': t('live.watch', { a: who(g.players[0]), b: who(g.players[1]) }) },
            h('b', `${who(g.players[0])}${rating(g.players[0])} — ${who(g.players[1])}${rating(g.players[1])}`),
            h('span', `${gameName(g.game)}${g.matchLength > 1 ? ` · ${g.score[0]}:${g.score[1]} / ${g.matchLength}` : ''}${g.spectators ? ` · ${t('live.watching', { n: g.spectators })}` : ''}`)))))
        : h('p.empty#live-empty', t('live.none'))),
    h('section.card.live#challenges',
      h('h2', t('live.challenges')),
      challenges.length
        ? h('ul.live-list#challenge-list', challenges.map((c) => h('li.row',
          h('span', h('b', `${who(c.players[0])}${rating(c.players[0])}`), ` · ${gameName(c.game)}`),
          h('button#take-' + c.roomId, { 'data-challenge': c.roomId, onclick: () => enter(c.roomId) }, t('live.take')))))
        : h('p.empty#challenges-empty', t('live.noChallenges'))),
  ];
}
