// Telegram Mini App integration. Outside Telegram every call is a no-op,
// and the Telegram script is not even requested (no internet is needed to
// run or test the app in a browser).

const SRC = 'https://telegram.org/js/telegram-web-app.js';

let wa = null;

/** Whether the page was opened as a Mini App (Telegram puts `tgWebAppData` in the URL hash). */
export function insideTelegram() {
  if (/[#&?]tgWebApp(Data|Version|Platform)=/.test(location.hash + location.search)) return true;
  try {
    if ((sessionStorage.getItem('__telegram__initParams') || '').includes('tgWebAppData')) return true;
  } catch {}
  return Boolean(window.TelegramWebviewProxy);
}

/** Loads telegram-web-app.js first (before anything talks to the server), bounded by a timeout. */
export async function init(timeoutMs = 5000) {
  if (!window.Telegram?.WebApp && insideTelegram()) {
    await new Promise((resolve) => {
      const s = document.createElement('script');
      s.src = SRC;
      const t = setTimeout(resolve, timeoutMs);
      s.onload = s.onerror = () => {
        clearTimeout(t);
        resolve();
      };
      document.head.appendChild(s);
    });
  }
  const w = window.Telegram?.WebApp;
  if (!w || !w.initData) return null;
  wa = w;
  document.documentElement.classList.add('tg');
  applyTheme();
  w.onEvent('themeChanged', applyTheme);
  w.onEvent('viewportChanged', applyViewport);
  applyViewport();
  w.ready();
  w.expand();
  return w;
}

export const active = () => Boolean(wa);

/** The raw, signed initData string (sent to the server as is; initDataUnsafe is never sent). */
export const initData = () => wa?.initData || '';

/** The `startapp` parameter the Mini App was opened with, read from the signed initData. */
export function startParam() {
  if (!wa) return null;
  try {
    return new URLSearchParams(wa.initData).get('start_param');
  } catch {
    return null;
  }
}

/** The user's Telegram language (`language_code` of initData's user), for the interface only. */
export function languageCode() {
  if (!wa) return null;
  try {
    return JSON.parse(new URLSearchParams(wa.initData).get('user') || '{}').language_code || null;
  } catch {
    return null;
  }
}

function applyTheme() {
  if (!wa) return;
  document.documentElement.dataset.theme = wa.colorScheme === 'dark' ? 'dark' : 'light';
  // telegram-web-app.js also sets the --tg-theme-* variables our CSS reads.
  const p = wa.themeParams || {};
  for (const [k, v] of Object.entries(p)) {
    document.documentElement.style.setProperty(`--tg-theme-${k.replace(/_/g, '-')}`, v);
  }
}

function applyViewport() {
  if (!wa) return;
  const h = wa.viewportStableHeight;
  if (h) document.documentElement.style.setProperty('--app-height', `${h}px`);
}

const atLeast = (v) => Boolean(wa?.isVersionAtLeast?.(v));

export function haptic(kind) {
  if (!wa || !atLeast('6.1')) return;
  const h = wa.HapticFeedback;
  if (kind === 'success' || kind === 'error' || kind === 'warning') h.notificationOccurred(kind);
  else if (kind === 'select') h.selectionChanged();
  else h.impactOccurred(kind || 'light');
}

// Each switch is sent to Telegram only when it changes (the app re-renders often).
const last = {};
const changed = (key, value) => {
  if (last[key] === value) return false;
  last[key] = value;
  return true;
};

/** Closing confirmation while a game is being played. */
export function closingConfirmation(on) {
  if (!wa || !atLeast('6.2') || !changed('closing', on)) return;
  if (on) wa.enableClosingConfirmation();
  else wa.disableClosingConfirmation();
}

/** Vertical swipes (which would close the app) are off while a board is shown. */
export function verticalSwipes(on) {
  if (!wa || !atLeast('7.7') || !changed('swipes', on)) return;
  if (on) wa.enableVerticalSwipes();
  else wa.disableVerticalSwipes();
}

let backHandler = null;
export function backButton(handler) {
  if (!wa || !atLeast('6.1')) return false;
  if (!changed('back', handler)) return true;
  if (backHandler) wa.BackButton.offClick(backHandler);
  backHandler = handler;
  if (handler) {
    wa.BackButton.onClick(handler);
    wa.BackButton.show();
  } else {
    wa.BackButton.hide();
  }
  return true;
}

let mainHandler = null;
/** Shows the MainButton with `text` (or hides it with null). Returns whether it is in use. */
export function mainButton(text, handler) {
  if (!wa) return false;
  if (!changed('main', `${text}\u0000${handler ? handler.name : ''}`)) return Boolean(text && handler);
  const b = wa.MainButton;
  if (mainHandler) b.offClick(mainHandler);
  mainHandler = handler || null;
  if (text && handler) {
    b.setText(text);
    b.onClick(handler);
    b.show();
    return true;
  }
  b.hide();
  return false;
}

/** Opens a share link (t.me/share) inside Telegram. */
export function share(url, text) {
  if (!wa) return false;
  wa.openTelegramLink(`https://t.me/share/url?url=${encodeURIComponent(url)}&text=${encodeURIComponent(text)}`);
  return true;
}

/** Whether `shareMessage` (a message the bot prepared) can be used (Bot API 8.0+). */
export const canShareMessage = () => Boolean(wa?.shareMessage) && atLeast('8.0');

/**
 * Lets the player send the bot's prepared message `id` to a chat he picks;
 * resolves true once sent, false when he closed the picker or it failed.
 */
export function shareMessage(id) {
  return new Promise((resolve) => {
    if (!canShareMessage()) return resolve(false);
    try {
      wa.shareMessage(id, (sent) => resolve(Boolean(sent)));
    } catch {
      resolve(false);
    }
  });
}

/** Whether `switchInlineQuery` with chat types can be used (Bot API 6.7+). */
export const canSwitchInline = () => Boolean(wa?.switchInlineQuery) && atLeast('6.7');

/** Puts `@bot query` in a chat of `chatTypes` the player picks (the bot's inline mode answers). */
export function switchInline(query, chatTypes) {
  if (!canSwitchInline()) return false;
  wa.switchInlineQuery(query, chatTypes);
  return true;
}

/** Opens a t.me link inside Telegram (false outside). */
export function openTelegramLink(url) {
  if (!wa) return false;
  wa.openTelegramLink(url);
  return true;
}
