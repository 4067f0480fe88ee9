// Texts of the page in English, Polish, German, Czech and French.
//
// Dictionaries live in ../i18n/<lang>.json as flat "key": "text with {params}";
// {count:seed} writes the number with the noun in its plural form (see t()).
// A key missing in a language falls back to English, so a new text never shows
// up as a raw key. Elements with data-i18n="key" get their text replaced, and
// data-i18n-aria="key" their aria-label, whenever the language changes.

export const LANGUAGES = ["en", "pl", "de", "cs", "fr"];

/** BCP 47 tags for speech synthesis voices. */
export const SPEECH_LOCALES = { en: "en-GB", pl: "pl-PL", de: "de-DE", cs: "cs-CZ", fr: "fr-FR" };

const cache = new Map();
let current = "en";
let dict = {};
let fallback = {};

async function load(lang) {
  if (!cache.has(lang)) {
    const url = new URL(`../i18n/${lang}.json`, import.meta.url);
    cache.set(lang, fetch(url).then((r) => (r.ok ? r.json() : {})).catch(() => ({})));
  }
  return cache.get(lang);
}

/** Pick the language: the URL's ?lang=, else the browser's, else English. */
export function chooseLanguage(requested) {
  if (LANGUAGES.includes(requested)) return requested;
  for (const tag of navigator.languages ?? []) {
    const base = tag.slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

export async function setLanguage(lang) {
  fallback = await load("en");
  dict = lang === "en" ? fallback : await load(lang);
  current = lang;
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-i18n]")) {
    node.textContent = t(node.dataset.i18n);
  }
  for (const node of document.querySelectorAll("[data-i18n-aria]")) {
    node.setAttribute("aria-label", t(node.dataset.i18nAria));
  }
}

export function language() {
  return current;
}

/**
 * The text of `key` with placeholders filled from `params`: {name} is the value,
 * {name:noun} the value and the noun in the plural form that number takes in the
 * current language ("1 seed", "5 seeds"; Polish "2 ziarna", "5 ziaren").
 */
export function t(key, params = {}) {
  const text = dict[key] ?? fallback[key] ?? key;
  return text.replace(/\{(\w+)(?::(\w+))?\}/g, (m, name, noun) => {
    if (!(name in params)) return m;
    const value = String(params[name]);
    return noun ? `${value} ${nounFor(noun, value)}` : value;
  });
}

/**
 * The form of `noun` that goes with the number written `value`. The dictionaries
 * hold one text per plural category of their language ("noun.seed.one",
 * "noun.seed.few", ...); Intl.PluralRules picks the category, counting the written
 * decimals, since "1.0 seeds" is plural in English where "1 seed" is not.
 */
function nounFor(noun, written) {
  const value = written.replace(decimalSign(), "."); // "1,5" in Polish is 1.5
  const number = Math.abs(Number(value));
  const decimals = (value.split(".")[1] ?? "").length;
  const category = Number.isFinite(number) ? pluralRules(decimals).select(number) : "other";
  const key = `noun.${noun}.${category}`;
  const other = `noun.${noun}.other`;
  return dict[key] ?? dict[other] ?? fallback[key] ?? fallback[other] ?? noun;
}

/** The current language's decimal sign: "." in English, "," in Polish, Czech, German, French. */
function decimalSign() {
  if (!decimalCache.has(current)) {
    const parts = new Intl.NumberFormat(current).formatToParts(1.5);
    decimalCache.set(current, parts.find((p) => p.type === "decimal")?.value ?? ".");
  }
  return decimalCache.get(current);
}
const decimalCache = new Map();

/** A number written with a "." ("+1.5", "-0.4") as the current language writes it ("+1,5"). */
export function localDecimal(text) {
  return text.replace(".", decimalSign());
}

// Every pit label of every redraw asks: build each language's rules once, not per text.
const rulesCache = new Map();
function pluralRules(decimals) {
  const key = `${current}/${decimals}`;
  if (!rulesCache.has(key)) {
    rulesCache.set(key, new Intl.PluralRules(current, { minimumFractionDigits: decimals }));
  }
  return rulesCache.get(key);
}

/** "South" / "North" for two players, "Player 3" with more. */
export function playerName(player, players) {
  if (players === 2) return t(`player.${player}`);
  return t("player.n", { n: player + 1 });
}

/** "D", "D and E", "D, E and F" in the current language. */
export function joinNames(names) {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} ${t("word.and")} ${names.at(-1)}`;
}

/** Scores as "12 : 8" (2 players) or "12 : 8 : 4". */
export function scoreText(scores) {
  return scores.join(" : ");
}
