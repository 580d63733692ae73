// The move log: rebuilt from a state's actions, extended by the events.

// Pure over the state it is given (no store import): the room's transitions
// (transitions.js) extend the log, `saveLog` keeps it for this tab.

export const stepText = (g, [f, to]) => (g === 'long_nardy' ? `${f}-${to}` : `${f}/${to}`);
export const playText = (g, steps) => steps.map((st) => stepText(g, st)).join(g === 'long_nardy' ? ',' : ' ');

// ---- the move log -------------------------------------------------------------------
//
// Entries: {game} starts a game; {seat, dice, steps} is a dice turn (with
// `pass` when it had no legal play); {seat, thud} a Thud! move; {seat, note}
// the cube, a resignation, a clock run out or Thud!'s end of a round. Every
// `state` carries the current game's actions (docs/protocol.md), so the log
// of that game is rebuilt from them whenever a state arrives (a player who
// reopens the game, a spectator who comes late); the events after it extend
// it. Earlier games of the room are kept as this tab saw them
// (sessionStorage).
export function logTurn(S, seat, dice) {
  S.log.push({ seat, dice, steps: [] });
}

export function logStep(S, seat, notation) {
  let last = S.log[S.log.length - 1];
  if (!last || last.seat !== seat || last.pass || !last.steps) {
    last = { seat, dice: S.view?.dice || null, steps: [] };
    S.log.push(last);
  }
  last.steps.push(notation);
}

/** A roll with no legal play: the roll's own entry says so (one entry, as `logFromActions` makes it). */
export function logPass(S, seat, dice) {
  const last = S.log[S.log.length - 1];
  if (last?.steps && last.seat === seat && !last.steps.length && !last.pass) {
    last.pass = true;
    last.dice = last.dice || dice;
  } else {
    S.log.push({ seat, dice, steps: [], pass: true });
  }
}

export const LOG_NOTES = new Set(['double', 'take', 'drop', 'resign', 'timeOut', 'proposeEnd', 'acceptEnd', 'declineEnd']);

/**
 * Game `n`'s log from its actions as the state gives them (the game
 * record's form). `old`, the entries this tab had for that game, lends its
 * spelling of the same steps: a step seen live carries the server's
 * notation, a backgammon hit's `*` included, which an action does not say.
 */
export function logFromActions(g, n, actions, old = []) {
  const out = [{ game: n }];
  const seen = old.flatMap((e) => e.steps || []);
  let k = 0;
  let cube = 1;
  for (const a of actions) {
    const last = out[out.length - 1];
    switch (a.type) {
      case 'opening':
        if (a.firstRoll) out.push({ seat: a.starter, dice: a.firstRoll, steps: [] });
        break;
      case 'roll':
        out.push({ seat: a.seat, dice: a.dice, steps: [] });
        break;
      case 'step': {
        let e = last;
        if (!e.steps || e.seat !== a.seat || e.pass) {
          e = { seat: a.seat, dice: null, steps: [] };
          out.push(e);
        }
        const text = stepText(g, [a.from, a.to]);
        const live = seen[k];
        e.steps.push(live && live.replace(/\*/g, '') === text ? live : text);
        k += 1;
        break;
      }
      case 'pass':
        if (last.steps && last.seat === a.seat && !last.steps.length && !last.pass) last.pass = true;
        else out.push({ seat: a.seat, dice: null, steps: [], pass: true });
        break;
      case 'thudMove':
        out.push({ seat: a.seat, thud: a.notation });
        break;
      default:
        if (!LOG_NOTES.has(a.type)) break;
        if (a.type === 'double') cube *= 2;
        out.push({ seat: a.seat, note: a.type, reason: a.reason, cube: a.type === 'double' ? cube : undefined });
        break;
    }
  }
  return out;
}

/** The log rebuilt for the state's game; earlier games stay as they were. */
export function rebuildLog(S, v) {
  const n = v.gameNumber;
  if (!n) return;
  const at = S.log.findIndex((e) => e.game >= n);
  let keep = at < 0 ? S.log : S.log.slice(0, at);
  // Entries before any game mark are of an unknown game: the actions replace them.
  const first = keep.findIndex((e) => e.game);
  keep = first < 0 ? [] : keep.slice(first);
  const old = at < 0 ? [] : S.log.slice(at).filter((e) => !e.game || e.game === n);
  S.log = [...keep, ...logFromActions(v.game, n, v.actions || [], old)];
}

/** Keeps the log for this tab (sessionStorage), trimmed. */
export function saveLog(S) {
  // At most 600 entries, dropping earlier games first (the current one stays whole).
  const cur = S.log.findLastIndex((e) => e.game);
  const over = S.log.length - 600;
  if (over > 0 && cur > 0) S.log.splice(0, Math.min(over, cur));
  try {
    sessionStorage.setItem(`tabula.log.${S.roomKey}`, JSON.stringify(S.log));
  } catch {}
}
