// The home page: every board the server watches, whether it is heard, each view of it with
// who it is for, its link, and for the stream overlays the size to give the streaming
// software. Data from GET /api/home (dashboard/routers/pages.py), asked again every few
// seconds so that a board unplugged (or plugged in) shows without a reload.

import { chooseLanguage, language, setLanguage, t } from "./i18n.js";
import { VIEWS, rulesTitle, viewHref } from "./views.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let data = null;
// How often the page asks again whether each board is heard.
const REFRESH_MS = 5000;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function render() {
  const box = $("home-boards");
  box.replaceChildren();
  if (!data) return;
  $("home-token").hidden = !data.token_required;
  // With several boards (a hall), a line of links to each board's section first.
  const index = $("home-index-list");
  index.replaceChildren();
  $("home-index").hidden = data.boards.length < 3;
  for (const b of data.boards) {
    const section = el("section", "panel home-board");
    section.dataset.board = b.board;
    const heading = el("h2", "", t("home.board", {
      board: b.board, rules: rulesTitle(b.rules, b.players), players: b.players,
    }));
    heading.id = `board-${b.board}-heading`;
    section.id = `board-${b.board}`;
    const jump = el("a", "", heading.textContent);
    jump.href = `#${section.id}`;
    const entry = el("li");
    entry.append(jump);
    index.append(entry);
    section.setAttribute("aria-labelledby", heading.id);
    section.append(heading, el("p", "home-source", t("home.source", { source: b.source })));
    const heard = el("p", "home-link");
    heard.setAttribute("role", "status");
    section.append(heard);
    showLink(heard, b);
    const list = el("ul", "view-list");
    for (const view of VIEWS) {
      const item = el("li", "view-item");
      item.dataset.view = view;
      const href = viewHref(b.board, view, language());
      const link = el("a", "view-link", t(`view.${view}`));
      link.href = href;
      const who = el("span", "view-who", t(`view.${view}_who`));
      const url = el("code", "view-url", new URL(href, location.href).href);
      item.append(link, who, url);
      if (view === "overlay" || view === "corner") {
        item.append(el("span", "view-size", t("view.overlay_size")));
      }
      list.append(item);
    }
    section.append(list);
    box.append(section);
  }
}

// Whether the board is followed: the server's own line for what is wrong, when it is.
function showLink(node, b) {
  const state = b.problem ? "problem" : b.ended ? "ended" : b.link_state ?? "connecting";
  const words = {
    problem: () => t("home.unheard", { problem: b.problem }),
    ended: () => t("home.ended"),
    connected: () => t("home.heard"),
  };
  node.dataset.state = state;
  // (any other state is a start: not yet heard, and not yet given up on)
  node.textContent = (words[state] ?? (() => t("link.connecting")))();
}

async function fetchHome() {
  try {
    const r = await fetch("/api/home");
    if (!r.ok) throw new Error(r.statusText);
    $("home-error").hidden = true;
    return await r.json();
  } catch {
    $("home-error").hidden = false;
    return null;
  }
}

async function load() {
  data = await fetchHome();
  render();
}

// Only the link lines change in place (a link being focused or copied stays as it is); a
// different list of boards draws the page again.
async function refresh() {
  const fresh = await fetchHome();
  if (!fresh) return;
  const same =
    data && fresh.boards.map((b) => b.board).join() === data.boards.map((b) => b.board).join();
  data = fresh;
  if (!same) {
    render();
    return;
  }
  for (const b of data.boards) {
    const node = document.querySelector(`.home-board[data-board="${b.board}"] .home-link`);
    if (node) showLink(node, b);
  }
}

async function start() {
  await setLanguage(chooseLanguage(params.get("lang")));
  const select = $("lang-select");
  select.value = language();
  select.addEventListener("change", async () => {
    await setLanguage(select.value);
    params.set("lang", select.value);
    history.replaceState(null, "", `?${params}`);
    render();
  });
  await load();
  setInterval(refresh, REFRESH_MS);
  document.body.dataset.ready = "true";
}

start();
