// The hall page: read-only; polls /api/hall and draws every board and every open alert.
"use strict";

const POLL_MS = 1000;

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

function draw(hall) {
  document.title = `Hall ${hall.hall}`;
  document.getElementById("title").textContent = `Hall ${hall.hall} · round ${hall.round}`;
  const link = document.getElementById("link");
  link.textContent = hall.connected ? `${hall.boards.length} boards` : "broker lost";
  link.className = "badge " + (hall.connected ? "ok" : "bad");
  document.getElementById("ogn").href = hall.ogn;
  const grid = document.getElementById("grid");
  grid.replaceChildren(...hall.boards.map((b) => card(b, hall.now)));
  document.querySelector("#table tbody").replaceChildren(...hall.boards.map((b) => row(b, hall.now)));
  const list = document.getElementById("alerts");
  list.replaceChildren(...hall.alerts.map((a) => {
    const li = text("li");
    const board = text("a", `Board ${a.board}`);
    if (a.url) board.href = a.url;
    li.append(board, text("span", ` ${ago(a.at, hall.now)}: ${a.text}`));
    return li;
  }));
  document.getElementById("no-alerts").hidden = hall.alerts.length > 0;
}

async function poll() {
  try {
    const res = await fetch("/api/hall", { cache: "no-store" });
    if (res.ok) draw(await res.json());
  } catch (e) {
    const link = document.getElementById("link");
    link.textContent = "hall unreachable";
    link.className = "badge bad";
  }
  setTimeout(poll, POLL_MS);
}
poll();
