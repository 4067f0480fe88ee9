// The views of a board's page and their addresses (the same table as dashboard/views.py):
// the home page lists them, the page's menu links them.

import { t } from "./i18n.js";

/** Every view, in the order the home page and the menu list them. */
export const VIEWS = ["referee", "player", "spectator", "overlay", "corner", "teaching"];

/** The stream overlays: transparent, no menu, sized to the stream's frame. */
export const OVERLAYS = ["overlay", "corner"];

/** The address of `view` of `board` (the spectators' view is the board's page itself),
 * keeping the page's language. */
export function viewHref(board, view, lang) {
  const q = new URLSearchParams();
  if (view !== "spectator") q.set("view", view);
  if (lang && lang !== "en") q.set("lang", lang);
  const query = q.toString();
  return `/board/${board}${query ? `?${query}` : ""}`;
}

/** A rule set's name in the page's language ("Universal, 3 players"), else its own name. */
export function rulesTitle(rules, players) {
  const base = rules === "oware" ? "abapa" : rules.replace(/-\d$/, "");
  const key = base === "universal" ? `rules.universal_${players}` : `rules.${base.replaceAll("-", "_")}`;
  const text = t(key);
  return text === key ? rules : text;
}
