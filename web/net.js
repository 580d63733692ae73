// The socket: authentication, a rising `seq` per player (kept across
// reloads), reconnect with backoff, re-join + `resume` after a drop, and
// resending every command that was not answered (same `seq`: the server
// applies it at most once). See docs/protocol.md.

const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];
const TOKEN_KEY = 'tabula.token';

// The session token is a guest's only identity (the server mints guests;
// a name is no credential), so it is kept across reloads and visits.
function loadToken() {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}
function saveToken(t) {
  try {
    if (t) localStorage.setItem(TOKEN_KEY, t);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {}
}

export class Net {
  /**
   * @param {object} o
   * @param {() => string} o.query  the credentials query (`guest=…`, `initData=…`)
   * @param {(msg: object) => void} o.onMessage every server message
   * @param {(status: string) => void} o.onStatus `connecting` | `online` | `reconnecting`
   */
  constructor({ query, onMessage, onStatus }) {
    this.query = query;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.player = null;
    this.token = loadToken();
    this.room = null; // { key, spectate }
    this.version = 0; // the last room version the app processed
    this.pending = new Map(); // seq -> message, until something answers it
    this.failures = 0;
    this.timer = null;
    this.welcomed = false;
    this.closed = false;
    // Closed by the node for being in no room (`idle`): not reopened until
    // the app joins a room or sends a command.
    this.dormant = false;
    this.status = 'connecting';
    this.waiters = [];
  }

  /** Opens the socket (and keeps it open until `close()`). */
  connect() {
    this.closed = false;
    // Closed by the node for being in no room (`idle`): not reopened until
    // the app joins a room or sends a command.
    this.dormant = false;
    this.status = 'connecting';
    this.open();
  }

  url() {
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const q = this.token ? `token=${encodeURIComponent(this.token)}` : this.query();
    return `${proto}//${location.host}/ws?${q}`;
  }

  open() {
    clearTimeout(this.timer);
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (e) {
      this.retry();
      return;
    }
    this.ws = ws;
    this.welcomed = false;
    ws.onmessage = (ev) => this.receive(ev.data);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (!this.closed && !this.dormant) this.retry();
    };
    ws.onerror = () => {};
  }

  retry() {
    this.setStatus('reconnecting');
    const base = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)];
    this.failures += 1;
    if (this.token && this.failures >= 2) this.checkToken();
    const wait = base / 2 + Math.random() * base / 2;
    this.timer = setTimeout(() => this.open(), wait);
  }

  /**
   * After failed connects: is the token still good? Only a 401 drops it
   * (expired, or the node's secret changed: back to initData, or a new
   * guest); a node that cannot be reached keeps it.
   */
  async checkToken() {
    const token = this.token;
    try {
      const r = await fetch('/api/session', { headers: { authorization: `Bearer ${token}` } });
      if (r.status === 401 && this.token === token) {
        this.token = null;
        saveToken(null);
      }
    } catch {}
  }

  setStatus(s) {
    if (this.status !== s) {
      this.status = s;
      this.onStatus(s);
    }
  }

  receive(text) {
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg.type === 'error' && msg.code === 'idle') {
      // The node closes a socket that sits in no room; nothing is wrong.
      this.dormant = true;
      return;
    }
    if (msg.type === 'welcome') {
      this.player = msg.player;
      if (msg.token) {
        this.token = msg.token;
        saveToken(msg.token);
      }
      this.failures = 0;
      this.welcomed = true;
      this.setStatus('online');
      this.rejoin();
    }
    if (msg.seq != null && this.pending.has(msg.seq)) {
      // Rate limited or the store was unavailable: not applied, resend later.
      if (msg.type === 'error' && (msg.code === 'rate_limited' || msg.code === 'unavailable')) {
        const again = this.pending.get(msg.seq);
        setTimeout(() => this.raw(again), 500);
      } else {
        this.pending.delete(msg.seq);
      }
    }
    this.onMessage(msg);
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) if (!f(msg)) this.waiters.push(f);
  }

  /** After (re)connecting: join the room again, replay what was missed, resend the unanswered. */
  rejoin() {
    if (!this.room) return;
    this.raw({ type: 'join', room: this.room.key, spectate: this.room.spectate || undefined });
    if (this.version > 0) this.raw({ type: 'resume', version: this.version });
    for (const m of this.pending.values()) this.raw(m);
  }

  nextSeq() {
    const key = `tabula.seq.${this.player || 'anon'}`;
    let last = 0;
    try {
      last = Number(localStorage.getItem(key)) || 0;
    } catch {}
    // Rising per player across reloads and devices.
    const seq = Math.max(last + 1, Date.now());
    try {
      localStorage.setItem(key, String(seq));
    } catch {}
    return seq;
  }

  /** Sends a command with a fresh `seq`; it is resent after a reconnect until answered. */
  send(msg) {
    const m = { ...msg, seq: this.nextSeq() };
    this.pending.set(m.seq, m);
    if (!this.wake()) this.raw(m);
    return m.seq;
  }

  /** Reopens a socket the node closed as idle; `rejoin` then does the rest. */
  wake() {
    if (!this.dormant || this.ws) return false;
    this.dormant = false;
    this.open();
    return true;
  }

  raw(m) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN && (this.welcomed || m.type === 'ping')) {
      this.ws.send(JSON.stringify(m));
      return true;
    }
    return false;
  }

  /** Joins (or re-syncs with) a room: the answer is a full `state`. */
  join(key, spectate = false) {
    if (!this.room || this.room.key !== key) this.version = 0;
    this.room = { key, spectate };
    if (!this.wake()) this.raw({ type: 'join', room: key, spectate: spectate || undefined });
  }

  /**
   * Leaves the room's screen but keeps the seat: the socket is replaced by
   * a fresh one in no room, so the room sees its player disconnect (a game
   * against the computer pauses and waits for him; docs/protocol.md).
   */
  stepAway() {
    this.room = null;
    this.version = 0;
    this.pending.clear();
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
    this.open();
  }

  leaveRoom() {
    if (this.room) this.raw({ type: 'leave', seq: this.nextSeq() });
    this.room = null;
    this.version = 0;
    this.pending.clear();
  }

  /** Resolves with the first message for which `pred` holds (or null after `ms`). */
  waitFor(pred, ms = 10000) {
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(null), ms);
      this.waiters.push((m) => {
        if (!pred(m)) return false;
        clearTimeout(t);
        resolve(m);
        return true;
      });
    });
  }

  /** Test hook and "network lost" simulation: drops the socket; it reconnects by itself. */
  dropSocket() {
    if (this.ws) this.ws.close(4000, 'dropped');
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
  }
}

/** JSON over HTTP with the player's credentials; throws an Error with the server's message. */
export async function api(method, path, body, headers = {}, signal) {
  const r = await fetch(path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  const text = await r.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {}
  if (!r.ok) {
    const msg = data?.error?.message || `${r.status} ${r.statusText}`;
    const e = new Error(msg);
    e.status = r.status;
    e.code = data?.error?.code;
    throw e;
  }
  return data;
}
