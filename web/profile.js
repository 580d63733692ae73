// The player's profile (ratings, rank, statistics, deleting his data) and
// his history of games (filters, "More"), over HTTP.

import { api } from './net.js';
import { t } from './i18n.js';
import { GAME_KINDS, PAGE, C, S, P, h, errorText, known, open, ratingText, dateText, seatText, outcomeText, resultText, $, top, status } from './players.js';

// ---- loading --------------------------------------------------------------------
export async function loadProfile() {
  const p = P();
  p.profile = { ...(p.profile || {}), loading: true, error: null };
  if (!known()) return;
  try {
    const data = await api('GET', '/api/me/profile', undefined, C.credHeaders());
    p.profile = { data, loading: false, error: null };
  } catch (e) {
    p.profile = { data: null, loading: false, error: errorText(e) };
  }
  if (S().screen === 'profile') C.render();
}

export async function loadHistory(reset) {
  const hs = P().history;
  if (reset) {
    hs.games = [];
    hs.next = null;
    hs.loaded = false;
  }
  hs.loading = true;
  hs.error = null;
  const seq = ++hs.seq;
  if (!known()) return;
  const q = new URLSearchParams({ limit: String(PAGE) });
  if (hs.filters.game) q.set('game', hs.filters.game);
  if (hs.filters.opponent) q.set('opponent', hs.filters.opponent);
  if (!reset && hs.next) q.set('after', hs.next);
  try {
    const r = await api('GET', `/api/me/history?${q}`, undefined, C.credHeaders());
    if (seq !== hs.seq) return;
    hs.games = reset ? r.games || [] : [...hs.games, ...(r.games || [])];
    hs.next = r.next || null;
    hs.loaded = true;
  } catch (e) {
    if (seq !== hs.seq) return;
    hs.error = errorText(e);
  }
  hs.loading = false;
  if (S().screen === 'history') C.render();
}

export function deleteData() {
  C.ask(t('pl.deleteAsk'), t('pl.deleteYes'), async () => {
    try {
      const r = await api('DELETE', '/api/me', undefined, C.credHeaders());
      P().deleted = r?.deleted || true;
      // Nothing of his is left: the lists start again from the server.
      Object.assign(P().history, { games: [], next: null, loaded: false });
      P().board.data = null;
      C.toast(t('pl.deletedToast'), 'info', 4000);
      await loadProfile();
      C.loadStats?.();
    } catch (e) {
      C.toast(errorText(e), 'error', 4000);
    }
    C.render();
  });
}


// ---- the rating graph -------------------------------------------------------------
const SVG = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs, ...kids) => {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  e.append(...kids);
  return e;
};
/** A new player's rating (Glicko-2 as the node runs it): where a history that covers every game starts. */
const START = 1500;

/**
 * The rating over his rated games of one kind (the profile's `history`,
 * oldest first): an inline SVG line, its lowest and highest marked, the
 * last point a dot; said whole to a screen reader. Nothing before two points.
 */
export function ratingGraph(g, r) {
  const hist = (r?.history || []).map((p) => Math.round(p.rating));
  // The history reaches back to his first game: the line starts where every player starts.
  const pts = hist.length && hist.length >= (r.games || 0) ? [START, ...hist] : hist;
  if (pts.length < 2) return null;
  const W = 320;
  const H = 96;
  const pad = { l: 36, r: 8, t: 8, b: 8 };
  const lo = Math.min(...pts);
  const hi = Math.max(...pts);
  const span = Math.max(hi - lo, 20);
  const x = (i) => pad.l + (i * (W - pad.l - pad.r)) / (pts.length - 1);
  const y = (v) => pad.t + ((hi - v) * (H - pad.t - pad.b)) / span;
  const line = pts.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const last = pts.length - 1;
  const label = t('pl.graph', { game: C.gameName(g), n: hist.length, from: pts[0], to: pts[last], lo, hi });
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'rating-graph', role: 'img', 'aria-label': label },
    svg('line', { x1: pad.l, x2: W - pad.r, y1: y(hi).toFixed(1), y2: y(hi).toFixed(1), class: 'grid' }),
    svg('line', { x1: pad.l, x2: W - pad.r, y1: y(lo).toFixed(1), y2: y(lo).toFixed(1), class: 'grid' }),
    svg('text', { x: pad.l - 4, y: (y(hi) + 4).toFixed(1), class: 'axis' }, String(hi)),
    svg('text', { x: pad.l - 4, y: (y(lo) + 4).toFixed(1), class: 'axis' }, String(lo)),
    svg('polyline', { points: line, class: 'line' }),
    svg('circle', { cx: x(last).toFixed(1), cy: y(pts[last]).toFixed(1), r: 3.5, class: 'dot' }));
  return h(`figure.rating-figure#rating-graph-${g}`, { 'data-points': String(pts.length) }, h('figcaption', C.gameName(g)), chart);
}

// ---- profile ----------------------------------------------------------------------------
export function profilePage() {
  const pr = P().profile;
  const out = [top(t('pl.profile'))];
  // A toast of this screen (not one the room left behind).
  const toast = S().toast;
  if (toast && toast.at >= (P().openedAt || 0)) out.push(h(`p.toast.${toast.kind}#toast`, { role: 'status' }, toast.text));
  if (!pr || (pr.loading && !pr.data)) {
    out.push(status(t('pl.loading')));
    return h('main.players.profile', out);
  }
  if (pr.error) {
    out.push(status(pr.error, 'error', 'profile-error'));
    return h('main.players.profile', out);
  }
  const d = pr.data || {};
  const name = d.name || S().profile?.name || '';
  out.push(h('section.card.me-card#profile-card', h('div.me-line', bigAvatar(name, C.photoOf(d)), h('h2.me-name#profile-name', name || t('seat.opponent')))));
  // Ratings, one row per kind of game.
  const ratings = d.ratings || [];
  const rows = GAME_KINDS.map((g) => {
    const r = ratings.find((x) => x.game === g);
    const rank = r?.rank ? t('pl.rankOf', { rank: r.rank, of: r.of ?? '—' }) : r ? t('pl.unranked') : '—';
    return h('tr', { 'data-game': g, 'data-provisional': r ? String(Boolean(r.provisional)) : null },
      h('th', { scope: 'row' }, C.gameName(g)),
      h('td.rating', r ? h('span', { title: r.provisional ? t('pl.provisional') : null }, ratingText(r), r.provisional ? h('span.sr-only', ` (${t('pl.provisional')})`) : null) : '—'),
      h('td.rank', rank),
      h('td', r ? String(r.games ?? 0) : '0'));
  });
  out.push(h('section.card#ratings', h('h2', t('pl.ratings')),
    h('table.ratings#ratings-table',
      h('caption.sr-only', t('pl.ratings')),
      h('thead', h('tr', h('th', { scope: 'col' }, t('lobby.game')), h('th', { scope: 'col' }, t('pl.rating')), h('th', { scope: 'col' }, t('pl.rank')), h('th', { scope: 'col' }, t('pl.games')))),
      h('tbody', rows)),
    ratings.length ? null : h('p.muted#ratings-empty', t('pl.noRatings')),
    GAME_KINDS.map((g) => ratingGraph(g, ratings.find((x) => x.game === g))),
    h('p.note.left', t('pl.provisionalNote'))));
  // Statistics of each kind of game he played.
  const stats = d.stats || null;
  const kinds = GAME_KINDS.filter((g) => C.gameStats(stats, g)?.games);
  out.push(h('section.card.stats#profile-stats', h('h2', t('pl.stats')),
    kinds.length
      ? kinds.map((g) => h('div.stats-game', { 'data-game': g }, h('h3', C.gameName(g)), C.statsTable(C.gameStats(stats, g), g)))
      : h('p.muted#stats-empty', t('pl.noGames'))));
  // His finished tournaments: his place in each, a link to it (#/t/<id>).
  out.push(tournamentsCard(d.tournaments));
  // His data: deleted for good on request.
  const del = P().deleted;
  out.push(h('section.card#my-data', h('h2', t('pl.myData')), h('p', t('pl.deleteAbout')),
    del ? h('p.ok#delete-note', { role: 'status' }, typeof del === 'object' && typeof del.games === 'number'
      ? t('pl.deletedNote', { games: del.games, ratings: del.ratings ?? 0 }) : t('pl.deletedToast')) : null,
    h('button.danger#delete-data', { onclick: deleteData }, t('pl.delete'))));
  return h('main.players.profile', out);
}

/** The profile's tournaments ({played, won, recent}: GET /api/me/profile's `tournaments`): the count won, then each recent one with his place, a link to it. */
export function tournamentsCard(tours) {
  const recent = tours?.recent || [];
  const line = (r) => {
    const place = t('pl.place', { place: r.place, of: r.players });
    const what = [t(`tour.fmtName.${r.format?.type || 'knockout'}`), C.gameName(r.game)].join(' · ');
    const go = (e) => {
      e.preventDefault();
      C.openTournament?.(r.id);
    };
    return h('li', h('a.tour-result', { href: `#/t/${encodeURIComponent(r.id)}`, 'data-tour': r.id, 'data-place': String(r.place), onclick: go },
      h(`b.place${r.place === 1 ? '.won' : ''}`, r.place === 1 ? `🏆 ${place}` : place), ' ',
      h('span.h-line', what), ' ',
      h('span.h-line.muted', [t('pl.tourWins', { wins: r.wins, games: r.games }), dateText(r.finishedAtMs)].filter(Boolean).join(' · '))));
  };
  return h('section.card#profile-tournaments', h('h2', t('pl.tournaments')),
    tours?.played ? h('p#tour-count', t('pl.tourCount', { won: tours.won || 0, played: tours.played })) : null,
    recent.length ? h('ol.tour-results#tour-results', recent.map(line)) : h('p.muted#tournaments-empty', t('pl.noTournaments')));
}

export function bigAvatar(name, url) {
  const a = C.avatar(name, url);
  a.classList.add('big');
  return a;
}


// ---- history -------------------------------------------------------------------------------
export function historyPage() {
  const hs = P().history;
  const f = hs.filters;
  const out = [top(t('pl.history'))];
  const change = (key) => (e) => {
    f[key] = e.target.value;
    loadHistory(true);
    C.render();
  };
  out.push(h('section.card.filters#history-filters',
    h('label.row', h('span', t('lobby.game')), h('select#history-game', { onchange: change('game') },
      h('option', { value: '', selected: !f.game }, t('pl.allGames')),
      GAME_KINDS.map((g) => h('option', { value: g, selected: f.game === g }, C.gameName(g))))),
    h('label.row', h('span', t('pl.opponent')), h('select#history-opponent', { onchange: change('opponent') },
      [['', 'pl.anyone'], ['person', 'pl.people'], ['computer', 'pl.computers']].map(([v, k]) => h('option', { value: v, selected: f.opponent === v }, t(k)))))));
  if (hs.error) out.push(status(hs.error, 'error', 'history-error'));
  if (hs.games.length) {
    out.push(h('ol.history#history-list', { 'aria-label': t('pl.history') }, hs.games.map(historyRow)));
  } else if (hs.loaded && !hs.error) {
    out.push(h('p.empty#history-empty', { role: 'status' }, f.game || f.opponent ? t('pl.noGamesFiltered') : t('pl.noGames')));
  }
  if (hs.loading) out.push(status(t('pl.loading')));
  else if (hs.next) out.push(h('div.row', h('button.big#history-more', { onclick: () => { loadHistory(false); C.render(); } }, t('pl.more'))));
  return h('main.players.history', out);
}

export function historyRow(g) {
  const opp = seatText(g.opponent, { you: false });
  const res = resultText(g.result, g.seat);
  const when = dateText(g.finishedMs);
  const match = g.matchLength > 1 ? t('pl.match', { n: g.matchLength }) : '';
  // The row's text is its accessible name: spaces between the parts, "casual" said, not shown.
  return h('li', h('button.history-row', {
    'data-room': g.room, 'data-game-number': String(g.gameNumber), 'data-outcome': g.outcome,
    onclick: () => open('replay', { room: g.room, gameNumber: g.gameNumber }),
  },
  h('span.h-line', h(`b.outcome.${g.outcome || 'none'}`, outcomeText(g.outcome)), ' ', h('span.h-game', C.gameName(g.game)), ' ',
    g.rated ? h('span.badge.rated', t('pl.ratedMark')) : h('span.sr-only.casual', t('pl.casual'))),
  ' ', h('span.h-line.h-opp', t('pl.vs', { name: opp })),
  ' ', h('span.h-line.h-res', [res, match].filter(Boolean).join(' · ')),
  ' ', h('span.h-line.h-when', when)),
  // A tournament's game: a link to its tournament, beside the row (a button holds no link).
  g.tournament ? h('a.h-tour', {
    href: `#/t/${encodeURIComponent(g.tournament)}`, 'data-tour': g.tournament,
    onclick: (e) => { e.preventDefault(); C.openTournament?.(g.tournament); },
  }, t('pl.inTournament', { id: g.tournament })) : null);
}
