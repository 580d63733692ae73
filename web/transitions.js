// The room's named transitions: every change the server's messages and the
// player's intents make to the state, as `(S, payload) => result`. No DOM,
// no socket, no sound, no storage: server.js and play.js dispatch them
// (store.js `dispatch`) and do those after, from the state and the result.
// Loaded with the room's modules; the unit test (tests/transitions.test.mjs)
// runs them in node.

import { targetsFrom, movableFrom, applyStep } from './boards/nardy.js';
import { parseThud } from './boards/thud.js';
import { newPeriod } from './clock.js';
import { logTurn, logStep, logPass, rebuildLog, stepText, playText } from './log.js';

const seatIdx = (s) => (s === 'b' ? 1 : 0);
const isDice = (S) => S.view?.game === 'long_nardy' || S.view?.game === 'backgammon';
const myTurn = (S) => Boolean(S.seat && S.view?.phase === 'playing' && S.view.toAct?.seat === S.seat);
const freeSeat = () => ({ player: null, bot: null, ready: false, disconnectDeadline: null });
const localSteps = (S) => (S.local ? S.local.groups.flatMap((g) => g.steps) : []);

function deselect(S) {
  S.sel = null;
  S.targets = null;
  S.choose = null;
}

/** A new clock (state or event): a new period may be warned about again. Returns whether one started. */
function noteClock(S, prev, next) {
  if (!newPeriod(prev?.running, next?.running)) return false;
  S.periodId += 1;
  return true;
}

function addChat(S, c) {
  if (S.chatSeen.has(c.version)) return false;
  S.chatSeen.add(c.version);
  S.chat.push({ from: c.from, text: c.text, version: c.version, key: c.key, params: c.params });
  return true;
}

function currentMoves(S) {
  const L = S.local;
  if (!L) return S.view?.moves;
  if (L.asking || L.sent || L.complete) return null;
  return L.groups.length ? L.groups[L.groups.length - 1].offer : L.offer0;
}

/** The server's messages (other than events): each returns what its dispatcher needs to know. */
export const fromServer = {
  /**
   * A full `state` (`m`), with the moves still unanswered (`pendingMoves`).
   * Returns null when it is older than what is shown, else { first, newPeriod }.
   */
  roomState(S, { m, pendingMoves = 0 }) {
    const first = !S.view;
    if (!first && m.state.version < S.version) return null;
    const period = noteClock(S, S.view?.clock, m.state.clock);
    // Whether this turn's player may double is said by its turnStarted only.
    S.mayDoubleKnown = false;
    S.roomId = m.room;
    S.seat = m.yourSeat;
    // The room's recent chat comes with its state (kept across reopening).
    for (const c of m.state.chat || []) addChat(S, c);
    S.chat.sort((a, b) => a.version - b.version);
    // The state is the truth: events still waiting to be drawn are in it.
    S.queue = [];
    // A local turn survives a resync of the same offer (a reconnect mid-turn).
    if (S.local && JSON.stringify(S.local.offer0) !== JSON.stringify(m.state.moves)) S.local = null;
    S.view = m.state;
    S.version = m.state.version;
    // The whole game's log from its actions; the events after this state extend it.
    rebuildLog(S, m.state);
    S.rematch = m.state.rematch?.length ? Object.fromEntries(m.state.rematch.map((x) => [x, true])) : null;
    S.takeback = m.state.takeback ? { seat: m.state.takeback } : null;
    // Steps still unanswered (resent after a reconnect) are still on their way.
    S.inflight = pendingMoves;
    if (S.view.commitment) S.commitment = S.view.commitment;
    if (S.sel && !(S.view.moves && movableFrom(S.view.game, S.view.moves).has(S.sel))) deselect(S);
    if (first && !S.invite && S.roomKey !== m.room) S.invite = S.roomKey;
    // Back to a game that ended while away (a forfeit, say): say how.
    if (first && S.view.phase === 'finished' && S.view.lastResult && S.seat && !S.ended) {
      S.ended = { result: S.view.lastResult };
      S.showResult = true;
    }
    return { first, newPeriod: period };
  },
  /** An event's version seen (its changes come from its own transition). Returns whether it is new. */
  eventSeen(S, { version }) {
    if (!S.view || version <= S.version) return false;
    S.version = version;
    return true;
  },
  /** The `clock` event: it replaces state.clock. Returns whether a new period started. */
  clock(S, e) {
    if (!S.view) return false;
    const next = { delayMs: e.delayMs, reserveMs: e.reserveMs, reserve: e.reserve, running: e.running || null };
    const period = noteClock(S, S.view.clock, next);
    S.view.clock = next;
    if (!S.view.timeControl) S.view.timeControl = { delayMs: e.delayMs, reserveMs: e.reserveMs };
    return period;
  },
  hint(S, { plays }) {
    if (S.hint) S.hint = { plays: plays || [] };
  },
  /** A chat line; returns whether the room's version moved. */
  chat(S, m) {
    if (addChat(S, m)) S.chat.sort((a, b) => a.version - b.version);
    if (S.view && m.version > S.version) {
      S.version = m.version;
      return true;
    }
    return false;
  },
  /** `game_over`: returns { isNew, versionMoved }. */
  gameOver(S, m) {
    const isNew = !S.gameOver || S.gameOver.version !== m.version;
    if (isNew) {
      S.gameOver = m;
      S.showResult = true;
    }
    const versionMoved = Boolean(S.view && m.version > S.version);
    if (versionMoved) S.version = m.version;
    return { isNew, versionMoved };
  },
  /** Sent after the deadline: nothing is on its way any more. */
  timeUp(S) {
    S.inflight = 0;
    S.autoMoving = 0;
  },
  replaced(S) {
    S.conn = 'replaced';
  },
  roomNotFound(S, { message }) {
    S.error = message;
    S.screen = 'lobby';
    S.roomKey = null;
  },
  /** The confirmed turn was refused: the local turn is over. */
  turnRefused(S) {
    S.local = null;
  },
  hintRefused(S, { message }) {
    S.hint = { plays: [], error: message };
  },
  commandRefused(S) {
    S.inflight = 0;
  },
  summary(S, { summary }) {
    S.summary = summary;
  },
  /** The player warned of his last seconds in this period. */
  clockWarned(S) {
    S.clockWarned = S.periodId;
  },
  /** The only legal play sent for the player (auto-play): `steps` of it. */
  autoPlayed(S, { steps }) {
    S.autoPlayed = S.version;
    S.local = null;
    deselect(S);
    S.inflight = steps;
    S.autoMoving = steps;
  },
  autoReadied(S, { key }) {
    S.autoReady = key;
  },
};

/** The room's events (docs/protocol.md), each by its own type. */
export const events = {
  seatTaken(S, e) {
    S.view.seats[seatIdx(e.seat)] = { ...freeSeat(), player: e.player };
  },
  botSeated(S, e) {
    S.view.seats[seatIdx(e.seat)] = { ...freeSeat(), bot: e.level };
  },
  seatFreed(S, e) {
    S.view.seats[seatIdx(e.seat)] = freeSeat();
  },
  ready(S, e) {
    S.view.seats[seatIdx(e.seat)].ready = true;
  },
  gameStarted(S, e) {
    S.log.push({ game: (S.view.gameNumber || 0) + 1 });
    S.rematch = null;
    S.lastTurn = [];
    S.commitment = e.commitment;
    S.gameOver = null;
    S.ended = null;
    S.summary = null;
    S.verify = null;
    S.lastMove = null;
    S.roundTimeouts = {};
    S.view.phase = 'playing';
  },
  openingRoll() {},
  turnStarted(S, e) {
    const v = S.view;
    // The turn just played was ours, with steps: it may be taken back
    // until the opponent acts (a casual game between people; the room says).
    S.takebackable = e.seat !== S.seat && Boolean(S.seat) && S.lastTurn.length > 0 && S.lastTurn.every((m) => m.seat === S.seat);
    S.local = null;
    S.hint = null;
    S.noMoves = null;
    v.toAct = { seat: e.seat, need: 'roll' };
    S.inflight = 0;
    v.dice = null;
    v.moves = null;
    S.mayDouble = Boolean(e.mayDouble && e.seat === S.seat);
    S.mayDoubleKnown = true;
    deselect(S);
  },
  diceRolled(S, e) {
    S.takebackable = false;
    // Counted, so the board tumbles each new roll once (the same dice twice included).
    S.rolls = (S.rolls || 0) + 1;
    S.view.dice = e.dice;
    S.view.toAct = { seat: e.seat, need: 'move' };
    S.lastTurn = [];
    logTurn(S, e.seat, e.dice);
  },
  possibleMoves(S, e) {
    const v = S.view;
    v.moves = { seat: e.seat, diceLeft: e.diceLeft, firstSteps: e.firstSteps, sequences: e.sequences };
    if (S.sel && !movableFrom(v.game, v.moves).has(S.sel)) deselect(S);
    else if (S.sel) S.targets = targetsFrom(v.game, v.moves, S.sel);
  },
  moved(S, e) {
    const v = S.view;
    if (v.board?.position) applyStep(v.game, v.board.position, e.seat, String(e.from), String(e.to), e.hit);
    S.lastMove = { seat: e.seat, from: String(e.from), to: String(e.to) };
    S.lastTurn.push(S.lastMove);
    logStep(S, e.seat, e.notation || stepText(v.game, [e.from, e.to]));
    // The offer was for the position before this step; the next one follows.
    v.moves = null;
    if (e.seat === S.seat) {
      deselect(S);
      S.inflight = Math.max(0, (S.inflight || 0) - 1);
      S.autoMoving = Math.max(0, S.autoMoving - 1);
    }
  },
  turnPassed(S, e) {
    S.view.moves = null;
    logPass(S, e.seat, e.dice);
    S.lastTurn = [];
    S.noMoves = { seat: e.seat, dice: e.dice };
    S.view.dice = e.dice;
  },
  thudMoved(S, e) {
    S.takebackable = Boolean(S.seat) && e.seat === S.seat;
    S.lastMove = parseThud(e.notation);
    S.log.push({ seat: e.seat, thud: e.notation });
  },
  /** Returns, for a round lost on time, the seat that ran out (else undefined). */
  roundEnded(S, e) {
    S.thudRounds[e.round - 1] = e.points;
    if (e.reason !== 'timeout') return undefined;
    // Who ran out: the seat whose clock ran (the clock event that stops it comes after).
    const who = S.view.clock?.running?.seat || S.view.toAct?.seat || null;
    S.roundTimeouts[e.round] = who;
    return who;
  },
  playerDisconnected(S, e) {
    S.view.seats[seatIdx(e.seat)].disconnectDeadline = e.deadline;
  },
  playerReconnected(S, e) {
    S.view.seats[seatIdx(e.seat)].disconnectDeadline = null;
  },
  takebackOffered(S, e) {
    S.takeback = { seat: e.seat };
  },
  /** Returns whether it was ours that is off (declined by the opponent, or lapsed). */
  takebackDeclined(S, e) {
    const ours = S.takeback?.seat === S.seat && e.seat !== S.seat;
    S.takeback = null;
    // Declined or withdrawn: not asked again for this turn.
    S.takebackable = false;
    return ours;
  },
  /** The turn of `e.seat` is undone: his roll to play again (a fresh state follows). */
  takebackAccepted(S, e) {
    const v = S.view;
    S.takeback = null;
    S.takebackable = false;
    S.local = null;
    S.hint = null;
    S.lastTurn = [];
    S.lastMove = null;
    v.board = e.board;
    v.moves = null;
    if (e.dice) v.dice = e.dice;
    v.toAct = { seat: e.seat, need: 'move' };
    deselect(S);
  },
  rematchOffered(S, e) {
    S.rematch = { ...(S.rematch || {}), [e.seat]: true };
  },
  /** Returns whether a rematch was asked. */
  rematchDeclined(S) {
    const was = Boolean(S.rematch);
    S.rematch = null;
    return was;
  },
  rematchStarted(S) {
    // The seats swap (so do the colours): the state that follows says which is ours now.
    S.rematch = null;
    S.gameOver = null;
    S.ended = null;
    S.summary = null;
    S.showResult = false;
  },
  gameEnded(S, e) {
    S.local = null;
    S.autoMoving = 0;
    S.ended = e;
    S.view.lastResult = e.result;
    S.view.score = e.matchScore;
    S.showResult = true;
  },
};

/** The player's intents (and the drawing of someone else's steps). */
export const intents = {
  /** A roll asked at `at` (ms); once the dice are in, the focus goes to the board. */
  rollAsked(S, { at }) {
    S.rollAskedAt = at;
    S.focusBoard = true;
  },
  /** Steps sent one by one (confirmation off): nothing is offered until all are echoed. */
  movesSent(S, { n }) {
    S.inflight = n;
    deselect(S);
  },
  /** Starts the local turn when the player's own offer is there (`confirm`: turns wait for Done). */
  localStart(S, { confirm }) {
    const v = S.view;
    if (!confirm || !isDice(S) || !myTurn(S) || v.toAct?.need !== 'move' || !v.moves || v.moves.seat !== S.seat) return false;
    if (S.local) return false;
    S.local = { offer0: v.moves, groups: [], pos: structuredClone(v.board.position), asking: null, complete: false, sent: false };
    return true;
  },
  /**
   * One tap's steps played on the local position. Returns null when the
   * local turn takes none now, else { ask: the play so far (for `preview`), hits }.
   */
  localStep(S, { path }) {
    const L = S.local;
    if (!L || L.asking || L.sent || L.complete) return null;
    const g = S.view.game;
    const before = structuredClone(L.pos);
    const me = S.seat === 'a' ? 'white' : 'black';
    const opp = me === 'white' ? 'black' : 'white';
    let hits = 0;
    for (const [from, to] of path) {
      const hit = g === 'backgammon' && to !== 'off' && (L.pos[opp]?.[String(25 - Number(to))] || 0) === 1;
      if (hit) hits += 1;
      applyStep(g, L.pos, S.seat, String(from), String(to), hit);
    }
    L.groups.push({ steps: path.map(([f, to]) => [String(f), String(to)]), before, offer: null });
    L.asking = playText(g, localSteps(S));
    deselect(S);
    return { ask: L.asking, hits };
  },
  /** The server's `preview` of the local steps (`same`: it answers the steps asked). Returns 'complete', 'offer' or null. */
  previewed(S, { m, same }) {
    const L = S.local;
    if (!L || !L.asking || !same) return null;
    L.asking = null;
    const top = L.groups[L.groups.length - 1];
    if (m.complete) {
      L.complete = true;
      return 'complete';
    }
    top.offer = { seat: S.seat, diceLeft: m.diceLeft, firstSteps: m.firstSteps, sequences: m.sequences };
    return 'offer';
  },
  /** Takes the last tap's steps back. Returns whether there was one. */
  undo(S) {
    const L = S.local;
    if (!L || L.sent || !L.groups.length) return false;
    const top = L.groups.pop();
    L.pos = top.before;
    L.complete = false;
    L.asking = null;
    deselect(S);
    return true;
  },
  /** Done: returns the turn's play to send (null when it is not complete or already sent). */
  turnSent(S) {
    const L = S.local;
    if (!L || !L.complete || L.sent) return null;
    L.sent = true;
    return playText(S.view.game, localSteps(S));
  },
  /** A checker (`p`) selected, or unselected when tapped again (unless `keep`). Returns whether selected. */
  select(S, { p, keep }) {
    if (S.sel === p && !keep) {
      deselect(S);
      return false;
    }
    S.sel = p;
    S.targets = targetsFrom(S.view.game, currentMoves(S), p);
    return true;
  },
  /** A Thud! piece (`s`) selected with its destinations (`targets`). */
  thudSelect(S, { s, targets }) {
    S.sel = s;
    S.targets = targets;
    S.choose = null;
  },
  /** Several Thud! moves land on one square: the player chooses. */
  choose(S, { list }) {
    S.choose = list;
  },
  /** An event waits for the animation before it. */
  queued(S, { e }) {
    S.queue.push(e);
  },
  /** The next event to draw, taken off the queue (undefined when none or while a step slides). */
  dequeued(S) {
    if (S.animating || !S.queue.length) return undefined;
    return S.queue.shift();
  },
  animating(S, { on }) {
    S.animating = on;
  },
  sliding(S, { on }) {
    S.sliding = on;
  },
  hintAsked(S) {
    S.hint = { plays: null };
  },
  hintClosed(S) {
    S.hint = null;
  },
  /** Ready again for the next game of the match: the last result put away. */
  readyAgain(S) {
    S.gameOver = null;
    S.ended = null;
    S.showResult = false;
  },
  verified(S, { ok, got }) {
    S.verify = { ok, got };
  },
  rematchAsked(S) {
    S.rematch = { ...(S.rematch || {}), [S.seat]: true };
  },
  showResult(S, { on }) {
    S.showResult = on;
  },
};

/** Every room transition by name (events keep their protocol type as their name). */
export const transitions = { ...fromServer, ...events, ...intents };
