// The Mini App's sounds, synthesised with Web Audio (no files to fetch):
// dice, checker, hit, win, loss and the low-time warning. Muted by the settings switch; the
// audio context starts on the first tap (browsers allow sound only after
// a gesture). `played` lists what was played, newest last, for tests.

let ctx = null;
let muted = false;
export const played = [];

export function setMuted(m) {
  muted = Boolean(m);
}

export const isMuted = () => muted;

/** Call from a user gesture: creates (or resumes) the audio context. */
export function unlock() {
  try {
    if (!ctx) ctx = new (window.AudioContext || window.webkitAudioContext)();
    if (ctx.state === 'suspended') ctx.resume();
  } catch {
    ctx = null;
  }
}

function tone(freq, at, dur, type = 'sine', gain = 0.15) {
  const o = ctx.createOscillator();
  const g = ctx.createGain();
  o.type = type;
  o.frequency.setValueAtTime(freq, at);
  g.gain.setValueAtTime(gain, at);
  g.gain.exponentialRampToValueAtTime(0.0001, at + dur);
  o.connect(g).connect(ctx.destination);
  o.start(at);
  o.stop(at + dur + 0.02);
}

function noise(at, dur, gain = 0.2) {
  const n = Math.max(1, Math.floor(ctx.sampleRate * dur));
  const buf = ctx.createBuffer(1, n, ctx.sampleRate);
  const d = buf.getChannelData(0);
  for (let i = 0; i < n; i++) d[i] = (Math.random() * 2 - 1) * (1 - i / n);
  const src = ctx.createBufferSource();
  const g = ctx.createGain();
  g.gain.value = gain;
  src.buffer = buf;
  src.connect(g).connect(ctx.destination);
  src.start(at);
}

const SOUNDS = {
  dice: (t) => {
    for (let i = 0; i < 4; i++) noise(t + i * 0.06, 0.03, 0.25);
  },
  checker: (t) => tone(520, t, 0.07, 'triangle', 0.2),
  hit: (t) => {
    tone(180, t, 0.18, 'square', 0.12);
    noise(t, 0.05, 0.2);
  },
  win: (t) => [523, 659, 784, 1047].forEach((f, i) => tone(f, t + i * 0.12, 0.25)),
  loss: (t) => [392, 330, 262].forEach((f, i) => tone(f, t + i * 0.16, 0.3)),
  // The player's last seconds: two short high beeps.
  lowTime: (t) => [0, 0.18].forEach((d) => tone(1320, t + d, 0.1, 'square', 0.1)),
};

/** Plays `name` unless muted. */
export function play(name) {
  if (muted || !SOUNDS[name]) return;
  played.push(name);
  if (played.length > 50) played.shift();
  if (!ctx) return;
  try {
    SOUNDS[name](ctx.currentTime + 0.01);
  } catch {}
}
