// The hall page: read-only; follows /api/hall/stream (the whole hall once, then the boards
// that changed) and draws every board and every open alert, in the language of the page
// (?lang=, else the browser's), with the words and alert headlines of a board's page.

import { chooseLanguage, language, playerName, scoreText, setLanguage, t } from "./js/i18n.js";
import { alertHeadline, englishDetail } from "./js/view.js";

const CLOCK_MS = 1000; // "12 s ago" is redrawn this often between messages

function text(tag, content, cls) {
  const el = document.createElement(tag);
  if (content !== undefined) el.textContent = content;
  if (cls) el.className = cls;
  return el;
}

function ago(at, now) {
  if (!at) return "–";
  const s = Math.max(0, Math.round(now - at));
  return s < 60 ? t("hall.ago_s", { n: s }) : t("hall.ago_min", { n: Math.floor(s / 60) });
}

function playersOf(summary) {
  return Math.max(2, ((summary.position && summary.position.pits) || []).length / 6);
}

function boardName(board) {
  return t("ui.board_label", { board });
}

/** A board's own page, in this page's language. */
function boardHref(url) {
  if (!url || language() === "en") return url;
  const u = new URL(url);
  u.searchParams.set("lang", language());
  return u.href;
}

/** The result of an ended game in words ("North wins, 23–25"), else the board's sentence. */
function gameOver(s) {
  const r = s.result;
  if (!r) return s.game_over;
  const scores = scoreText(r.scores || []);
  if (r.winner === null || r.winner === undefined) return t("result.draw", { scores });
  return t("result.win", { player: playerName(r.winner, playersOf(s)), scores });
}

function problems(b, now) {
  const out = [];
  if (b.problem) out.push(t("hall.not_followed", { problem: b.problem }));
  if (b.stale_since) {
    const time = new Date(b.stale_since * 1000).toLocaleTimeString(language());
    out.push(t("hall.stale", { time }));
  }
  if (b.gap) out.push(t("hall.gap", { n: b.gap.missing_from, ago: ago(b.gap.since, now) }));
  return out;
}

/** The pits as they lie between the players: North's row on top, right to left, with two;
 * each player's row in turn with more. */
function pitRows(pits) {
  if (pits.length !== 12) return pits.map((_, i) => i);
  return [11, 10, 9, 8, 7, 6, 0, 1, 2, 3, 4, 5];
}

function card(b, now) {
  const s = b.summary || {};
  const a = text("a", undefined, "card");
  a.dataset.board = b.board;
  if (b.url) { a.href = boardHref(b.url); a.target = "_blank"; a.rel = "noopener"; }
  if ((s.alerts || []).length) a.classList.add("alert");
  if (b.stale_since) a.classList.add("stale");
  if (b.problem) a.classList.add("unheard");
  const h = text("h3");
  h.append(text("span", boardName(b.board)), text("span", (s.scores || []).join(" – "), "score"));
  a.append(h);
  const pits = (s.position && s.position.pits) || [];
  const grid = text("div", undefined, "pits");
  for (const i of pitRows(pits)) grid.append(text("span", pits[i]));
  a.append(grid);
  const over = gameOver(s);
  a.append(text("div", t("hall.moves", { moves: s.moves || 0, ago: ago(s.last_move_at, now) }) +
    (over ? ` · ${over}` : ""), "meta"));
  const alerts = (s.alerts || []).length;
  if (alerts) a.append(text("div", t("hall.open_alerts", { n: alerts }), "meta warn"));
  for (const p of problems(b, now)) a.append(text("div", p, "meta warn"));
  return a;
}

function row(b, now) {
  const s = b.summary || {};
  const tr = text("tr");
  tr.dataset.board = b.board;
  const link = text("a", boardName(b.board));
  if (b.url) link.href = boardHref(b.url);
  const first = text("td"); first.append(link);
  const alerts = (s.alerts || []).length;
  const open = alerts ? t("hall.open_alerts", { n: alerts }) : "";
  tr.append(first, text("td", (s.scores || []).join(" – ")), text("td", s.moves || 0),
    text("td", ago(s.last_move_at, now)),
    text("td", [open, ...problems(b, now)].filter(Boolean).join("; ") || "–"));
  return tr;
}

const hall = { boards: new Map(), offset: 0 };

function alertsOf(boards) {
  const out = [];
  for (const b of boards) {
    const s = b.summary || {};
    for (const a of s.alerts || []) out.push({ ...a, board: b.board, url: b.url, players: playersOf(s) });
  }
  return out.sort((x, y) => (y.at || 0) - (x.at || 0));
}

function alertItem(a, now) {
  const li = text("li");
  const board = text("a", boardName(a.board));
  if (a.url) board.href = boardHref(a.url);
  // the headline in the page's language when the board said which pits; the referee's
  // own sentence (English) below it, as on the board's page
  const headline = a.pits !== undefined || a.moves !== undefined ? alertHeadline(a, a.players) : a.text;
  li.append(board, text("span", ` ${ago(a.at, now)}: ${headline}`));
  if (headline !== a.text && a.text) li.append(englishDetail(a.text, "div"));
  return li;
}

function draw() {
  const now = Date.now() / 1000 + hall.offset; // the hall's clock, as of its last message
  const boards = [...hall.boards.values()];
  const alerts = alertsOf(boards);
  document.title = t("hall.page_title", { name: hall.name });
  document.getElementById("title").textContent = t("hall.title", { name: hall.name, round: hall.round });
  const link = document.getElementById("link");
  link.textContent = hall.connected ? t("hall.boards", { n: boards.length }) : t("hall.broker_lost");
  link.className = "badge " + (hall.connected ? "ok" : "bad");
  document.getElementById("ogn").href = hall.ogn;
  document.getElementById("grid").replaceChildren(...boards.map((b) => card(b, now)));
  document.querySelector("#table tbody").replaceChildren(...boards.map((b) => row(b, now)));
  document.getElementById("alerts").replaceChildren(...alerts.map((a) => alertItem(a, now)));
  document.getElementById("no-alerts").hidden = alerts.length > 0;
  // a hall nobody publishes to yet says how to start a board, not a blank page
  const empty = document.getElementById("no-boards");
  empty.hidden = boards.length > 0;
  const broker = hall.broker || "mqtt://HOST/HALL";
  empty.querySelector("code").textContent = `oware-companion serve --publish ${broker} --hall-board N`;
  empty.querySelector(".why").textContent = hall.connected ? "" : " " + t("hall.broker_down", { broker });
}

function boardOrder(x, y) {
  const nx = Number(x.board), ny = Number(y.board);
  return Number.isNaN(nx) || Number.isNaN(ny) ? String(x.board).localeCompare(y.board) : nx - ny;
}

function take(message) {
  if (message.full) {
    hall.boards = new Map();
    hall.name = message.hall;
    hall.round = message.round;
    hall.ogn = message.ogn;
    hall.broker = message.broker;
  }
  hall.connected = message.connected;
  hall.offset = message.now - Date.now() / 1000;
  for (const b of message.boards) hall.boards.set(b.board, b);
  hall.boards = new Map([...hall.boards.values()].sort(boardOrder).map((b) => [b.board, b]));
  draw();
}

function follow() {
  const feed = new EventSource("/api/hall/stream");
  feed.onmessage = (e) => take(JSON.parse(e.data));
  feed.onerror = () => {
    // the browser reconnects by itself, and the hall sends everything again
    const link = document.getElementById("link");
    link.textContent = t("hall.unreachable");
    link.className = "badge bad";
  };
}

async function start() {
  const params = new URLSearchParams(location.search);
  await setLanguage(chooseLanguage(params.get("lang")));
  const select = document.getElementById("lang-select");
  select.value = language();
  select.addEventListener("change", async () => {
    await setLanguage(select.value);
    params.set("lang", select.value);
    history.replaceState(null, "", `?${params}`);
    if (hall.name !== undefined) draw();
  });
  follow();
  setInterval(() => { if (hall.name !== undefined) draw(); }, CLOCK_MS);
}

start();
