// The rating change of a rated match on the result sheet (issue 46: "after
// a rated game, the rating change"). The server rates a match when its
// last game is archived, a moment after `gameEnded` (docs/protocol.md,
// "Players, history and ratings"), and says nothing of it on the socket:
// so the player's rating in the room's game is read from his profile while
// the match is on (`GET /api/me/profile`), and again once it is over,
// until the profile counts one more rated game; the difference is shown.

import { api } from './net.js';
import { S, dispatch, credHeaders } from './store.js';
import { t } from './i18n.js';
import { h } from './dom.js';
import { render } from './app.js';

const NEW = { rating: 1500, games: 0, provisional: true };
const of = (profile, game) => profile?.ratings?.find((r) => r.game === game) || NEW;
const profile = () => api('GET', '/api/me/profile', undefined, credHeaders());

/** A room's state arrived: in a rated match, the rating before it, then after it. */
export function noteRating(v) {
  if (!v?.rated || !S.seat || !S.roomId) return;
  const key = `${S.roomId}:${v.matchNumber || 1}`;
  if (v.phase !== 'finished') {
    if (S.rating?.key === key) return;
    const r = { key, game: v.game, before: null, after: null };
    dispatch('rating', r);
    profile().then((p) => { r.before = of(p, v.game); }, () => {});
    return;
  }
  const r = S.rating;
  if (r?.key !== key || !r.before || r.after || r.waiting) return;
  r.waiting = true;
  (async () => {
    const end = Date.now() + 20000;
    while (Date.now() < end && S.rating === r) {
      try {
        const now = of(await profile(), r.game);
        if (now.games > r.before.games) {
          r.after = now;
          render();
          return;
        }
      } catch {}
      await new Promise((res) => setTimeout(res, 400));
    }
  })();
}

const shown = (x) => `${Math.round(x.rating)}${x.provisional ? '?' : ''}`;

/** The result sheet's line: "Rating: 1500? → 1662? (+162)", or nothing yet. */
export function ratingLine() {
  const r = S.rating;
  if (!r?.after || !S.roomId || !r.key.startsWith(`${S.roomId}:`)) return null;
  const d = Math.round(r.after.rating) - Math.round(r.before.rating);
  const delta = d > 0 ? `+${d}` : d < 0 ? `\u2212${-d}` : '±0';
  return h(`p.rating-change.${d > 0 ? 'up' : d < 0 ? 'down' : 'same'}#rating-change`, { 'data-delta': String(d) },
    t('result.rating', { before: shown(r.before), after: shown(r.after), delta }));
}
