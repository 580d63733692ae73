// The leaderboards: a tab per game, all time / this week, the player's own
// row and rank.

import { api } from './net.js';
import { t, lang } from './i18n.js';
import { shownName } from './names.js';
import { GAME_KINDS, C, S, P, h, errorText, known, ratingText, $, top, status } from './players.js';

export async function loadBoard() {
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

// ---- leaderboard ------------------------------------------------------------------------------
export function boardPage() {
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
