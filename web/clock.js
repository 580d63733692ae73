// Clocks and the automatic turn, as pure functions (no DOM, no network),
// so that the browser tests can check them directly.
//
// The server is the clock (docs/protocol.md, "Clocks"): `state.clock` and
// the `clock` event give, in the server's time, each seat's reserve and
// the running period (`spentMs` used before `since`; `since` null while a
// paused game stops it). The app counts down from those figures, reading
// the server's "now" as the device's corrected by an offset taken from the
// `serverTime` of `state` and `pong`, never from the device's clock alone.

/** The server's clock as this device can know it. */
export class ServerClock {
  constructor(now = () => Date.now()) {
    this.now = now;
    this.offset = 0;
    this.known = false;
    this.fromPong = false;
  }

  /**
   * A `serverTime` read on receipt. `rtt`, when known (a `pong`), centres
   * the sample on the round trip and is trusted over a `state`'s sample; a
   * `state` (whose request time is unknown) replaces a pong's offset only
   * when they disagree by more than a second (the device's clock jumped).
   */
  sample(serverTime, rtt = null) {
    if (typeof serverTime !== 'number' || !Number.isFinite(serverTime)) return;
    const estimate = serverTime + (rtt !== null ? rtt / 2 : 0) - this.now();
    if (rtt !== null || !this.known || !this.fromPong || Math.abs(estimate - this.offset) > 1000) {
      this.offset = Math.round(estimate);
      this.fromPong = rtt !== null;
      this.known = true;
    }
  }

  /** The server's time now (ms since the epoch). */
  serverNow() {
    return this.now() + this.offset;
  }
}

/**
 * What `seat`'s clock shows at server time `now`: `free` (what is left of
 * the running period's free time; null when its clock does not run),
 * `bank` (its reserve, less what the running period has spent of it),
 * `total` (free + bank: what is left before it times out), `running`,
 * `paused` (it is this seat's period but a paused game stopped it).
 */
export function clockFigures(clock, seat, now) {
  const i = seat === 'b' ? 1 : 0;
  const bank0 = Math.max(0, Number(clock?.reserve?.[i]) || 0);
  const r = clock?.running;
  if (!r || r.seat !== seat) return { running: false, paused: false, free: null, bank: bank0, total: bank0 };
  const delay = Math.max(0, Number(clock.delayMs) || 0);
  const used = Math.max(0, Number(r.spentMs) || 0) + (typeof r.since === 'number' ? Math.max(0, now - r.since) : 0);
  const free = Math.max(0, delay - used);
  const bank = Math.max(0, bank0 - Math.max(0, used - delay));
  return { running: true, paused: typeof r.since !== 'number', free, bank, total: free + bank };
}

/** "1:05", "0:09", "1:02:03": whole seconds, rounded up (0:01 until the very end). */
export function formatClock(ms) {
  const s = Math.max(0, Math.ceil((Number(ms) || 0) / 1000));
  const two = (n) => String(n).padStart(2, '0');
  if (s >= 3600) return `${Math.floor(s / 3600)}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  return `${Math.floor(s / 60)}:${two(s % 60)}`;
}

/** The last stretch of a player's own time in which he is warned (free time and reserve together). */
export const WARN_MS = 10000;

/**
 * Whether a clock event or state starts a new period (to warn once per
 * period): another seat's clock runs, or the same seat's started afresh
 * (nothing spent yet at a new start, or less spent than before).
 */
export function newPeriod(prev, next) {
  if (!next) return false;
  if (!prev || prev.seat !== next.seat) return true;
  if ((next.spentMs || 0) < (prev.spentMs || 0)) return true;
  return next.since !== prev.since && (next.spentMs || 0) === 0 && typeof next.since === 'number';
}

/**
 * Auto-roll (a setting): at the start of the player's own turn, roll for
 * him, unless he may offer the cube (then he decides). `mayDouble` is what
 * the turn's `turnStarted` said, or null when unknown (the turn came with
 * a fresh state): unknown counts as "he may", unless the cube is off or
 * his opponent owns it.
 */
export function shouldAutoRoll({ on, toRoll, cube, seat, mayDouble }) {
  if (!on || !toRoll) return false;
  if (!cube?.enabled) return true;
  if (cube.owner && cube.owner !== seat) return true;
  return mayDouble === false;
}

/**
 * Auto-play (a setting): the play to send for the player when exactly one
 * is legal (`possibleMoves.sequences` has one entry: one final position),
 * else null.
 */
export function forcedPlay(moves) {
  const seqs = moves?.sequences;
  if (!Array.isArray(seqs) || seqs.length !== 1) return null;
  const play = typeof seqs[0] === 'string' ? seqs[0].trim() : '';
  return play || null;
}
