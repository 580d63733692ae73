// The Mini App's words: `t(key, params)` over the strings of one language,
// English (strings/en.js) or Russian (strings/ru.js), loaded on demand
// (`setLang` imports the chosen language's module: a visit loads one
// language's strings, not both).
//
// `t(key, params)` renders a key in the current language: a string with
// `{name}` placeholders, or a function of the params (for plurals and
// choices). A key missing in the current language renders as `⟦key⟧`
// (and is reported once on the console), so a gap is visible, never
// silent; `web/tests/player.test.mjs` fails on any key that one language
// has and the other lacks, and on any `t('…')` in the app that neither has.
//
// The language: a choice saved in settings, else Telegram's
// `language_code`, else the browser's languages; Russian for ru, be, kk,
// ky, uz and tg (where Russian is the common second language of
// Telegram's users), English otherwise.
//
// The server's narration (the arbiter's chat lines, `opponent_left`,
// `game_over`) comes as a message key with parameters (docs/protocol.md);
// `n.<key>` renders it, and its Russian rendering is the server's own
// `text`.

/** Russian plural: 1 очко, 2 очка, 5 очков, 21 очко. */
export function ruPlural(n, one, few, many) {
  const d = n % 10;
  const h = n % 100;
  if (h >= 11 && h <= 14) return many;
  if (d === 1) return one;
  if (d >= 2 && d <= 4) return few;
  return many;
}

/** The languages, with each one's name in itself (the settings' choice). */
export const LANG_NAMES = { en: 'English', ru: 'Русский' };
export const LANGS = Object.keys(LANG_NAMES);

/** The languages loaded so far, by code. */
export const STRINGS = {};

const LOADERS = {
  en: () => import('./strings/en.js'),
  ru: () => import('./strings/ru.js'),
};

let current = 'en';
const reported = new Set();

/** The language for a Telegram `language_code` and the browser's languages. */
export function pickLang(telegramCode, browserLangs = []) {
  const codes = [telegramCode, ...browserLangs].filter(Boolean).map((c) => String(c).toLowerCase().split(/[-_]/)[0]);
  const first = codes[0];
  if (!first) return 'en';
  return ['ru', 'be', 'kk', 'ky', 'uz', 'tg'].includes(first) ? 'ru' : 'en';
}

/** Loads `lang`'s strings (once). */
export async function loadLang(lang) {
  if (!STRINGS[lang]) STRINGS[lang] = (await LOADERS[lang]()).default;
  return STRINGS[lang];
}

/** Makes `lang` (English for an unknown one) the language, its strings loaded first. */
export async function setLang(lang) {
  const l = LOADERS[lang] ? lang : 'en';
  await loadLang(l);
  current = l;
  if (typeof document !== 'undefined') document.documentElement.lang = current;
}

export const lang = () => current;

/** Whether `key` exists (in the current language). */
export const has = (key) => Boolean(STRINGS[current]) && Object.hasOwn(STRINGS[current], key);

/** `key` rendered in the current language with `params`. */
export function t(key, params = {}) {
  const v = STRINGS[current]?.[key];
  if (v === undefined) {
    if (!reported.has(`${current}:${key}`)) {
      reported.add(`${current}:${key}`);
      console.error(`i18n: no ${current} text for ${key}`);
    }
    return `⟦${key}⟧`;
  }
  if (typeof v === 'function') return v(params);
  return v.replace(/\{(\w+)\}/g, (_, k) => (params[k] === undefined || params[k] === null ? '' : String(params[k])));
}
