// The hall page: read-only; follows /api/hall/stream (the whole hall once, then the boards
// that changed) and draws every board and every open alert.
"use strict";

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
  return s < 60 ? `${s} s ago` : `${Math.floor(s / 60)} min ago`;
}

function problems(b, now) {
  const out = [];
  if (b.problem) out.push(`not followed: ${b.problem}`);
  if (b.stale_since) out.push(`stale since ${new Date(b.stale_since * 1000).toLocaleTimeString()}`);
  if (b.gap) out.push(`gap from event ${b.gap.missing_from} (${ago(b.gap.since, now)})`);
  return out;
}

function card(b, now) {
  const s = b.summary || {};
  const a = text("a", undefined, "card");
  a.dataset.board = b.board;
  if (b.url) { a.href = b.url; a.target = "_blank"; a.rel = "noopener"; }
  if ((s.alerts || []).length) a.classList.add("alert");
  if (b.stale_since) a.classList.add("stale");
  if (b.problem) a.classList.add("unheard");
  const h = text("h3");
  h.append(text("span", `Board ${b.board}`), text("span", (s.scores || []).join(" – "), "score"));
  a.append(h);
  const pits = (s.position && s.position.pits) || [];
  const half = pits.length / 2;
  const grid = text("div", undefined, "pits");
  // North's pits on top, right to left, as the board lies between the players
  for (const i of [...Array(half).keys()].map((k) => pits.length - 1 - k)) grid.append(text("span", pits[i]));
  for (let i = 0; i < half; i++) grid.append(text("span", pits[i]));
  a.append(grid);
  a.append(text("div", `${s.moves || 0} moves · last ${ago(s.last_move_at, now)}` +
    (s.game_over ? ` · ${s.game_over}` : ""), "meta"));
  const alerts = (s.alerts || []).length;
  if (alerts) a.append(text("div", `${alerts} open alert${alerts > 1 ? "s" : ""}`, "meta warn"));
  for (const p of problems(b, now)) a.append(text("div", p, "meta warn"));
  return a;
}

function row(b, now) {
  const s = b.summary || {};
  const tr = text("tr");
  tr.dataset.board = b.board;
  const link = text("a", `Board ${b.board}`);
  if (b.url) link.href = b.url;
  const first = text("td"); first.append(link);
  const alerts = (s.alerts || []).length;
  tr.append(first, text("td", (s.scores || []).join(" – ")), text("td", s.moves || 0),
    text("td", ago(s.last_move_at, now)),
    text("td", [alerts ? `${alerts} open` : "", ...problems(b, now)].filter(Boolean).join("; ") || "–"));
  return tr;
}

const hall = { boards: new Map(), offset: 0 };

function alertsOf(boards) {
  const out = [];
  for (const b of boards) for (const a of (b.summary || {}).alerts || []) out.push({ ...a, board: b.board, url: b.url });
  return out.sort((x, y) => (y.at || 0) - (x.at || 0));
}

function draw() {
  const now = Date.now() / 1000 + hall.offset; // the hall's clock, as of its last message
  const boards = [...hall.boards.values()];
  const alerts = alertsOf(boards);
  document.title = `Hall ${hall.name}`;
  document.getElementById("title").textContent = `Hall ${hall.name} · round ${hall.round}`;
  const link = document.getElementById("link");
  link.textContent = hall.connected ? `${boards.length} boards` : "broker lost";
  link.className = "badge " + (hall.connected ? "ok" : "bad");
  document.getElementById("ogn").href = hall.ogn;
  document.getElementById("grid").replaceChildren(...boards.map((b) => card(b, now)));
  document.querySelector("#table tbody").replaceChildren(...boards.map((b) => row(b, now)));
  document.getElementById("alerts").replaceChildren(...alerts.map((a) => {
    const li = text("li");
    const board = text("a", `Board ${a.board}`);
    if (a.url) board.href = a.url;
    li.append(board, text("span", ` ${ago(a.at, now)}: ${a.text}`));
    return li;
  }));
  document.getElementById("no-alerts").hidden = alerts.length > 0;
  // a hall nobody publishes to yet says how to start a board, not a blank page
  const empty = document.getElementById("no-boards");
  empty.hidden = boards.length > 0;
  const broker = hall.broker || "mqtt://HOST/HALL";
  empty.querySelector("code").textContent = `oware-companion serve --publish ${broker} --hall-board N`;
  empty.querySelector(".why").textContent = hall.connected
    ? ""
    : ` The broker ${broker} does not answer yet: is Mosquitto running there?`;
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
    link.textContent = "hall unreachable";
    link.className = "badge bad";
  };
}

follow();
setInterval(() => { if (hall.name !== undefined) draw(); }, CLOCK_MS);
