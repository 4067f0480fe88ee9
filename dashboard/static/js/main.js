// The dashboard's entry point: reads the URL, connects to the live service's
// WebSocket, and redraws the page after every message.
//
// The page is /board/N. URL parameters: view=referee|player|spectator|overlay|corner|
// teaching (default spectator), lang=en|pl|de|cs|fr, token=… (for commands when the
// server asks for one), speak=1 (announcements on), voice=<name>; board=N is read too.
//
// Server messages go through model.js (applyMessage: one switch over the message
// types, no DOM) and are then drawn by view.js: a new kind of event is a case there
// and, if it shows, a render function here.
//
// Latency: each message's `server_time` is compared with the moment its DOM
// update finished; window.dashboard.latencies holds the figures (ms) for the
// browser tests and for anyone curious (open the console).

import { setupCamera } from "./camera.js";
import { chooseLanguage, language, playerName, scoreText, setLanguage, t } from "./i18n.js";
import { applyMessage, emptyModel } from "./model.js";
import { canPreview, illegalReason, legalMoves, outcome, replayPositions } from "./rules.js";
import { announce, bindVoiceSelect, setEnabled, setVoice, spoken } from "./speech.js";
import {
  alertHeadline, gameResultText, pitName, renderAlerts, renderBoardArea, renderLastMove,
  renderMoves, renderPlayers, renderResult, renderSuggestion, resultText,
} from "./view.js";
import { OVERLAYS, VIEWS, rulesTitle, viewHref } from "./views.js";

const params = new URLSearchParams(location.search);
const view = VIEWS.includes(params.get("view")) ? params.get("view") : "spectator";
// The board: ?board=N, else the page's path /board/N, else 1.
const pathBoard = location.pathname.match(/^\/board\/(\d+)/)?.[1];
const board = /^\d+$/.test(params.get("board") ?? "") ? params.get("board") : (pathBoard ?? "1");
let token = params.get("token") ?? sessionStorage.getItem("oware-token") ?? "";
// The token never stays in the address: kept for this tab, taken out of the address bar
// (and so out of the history, bookmarks and the server's logs), and sent in the first
// WebSocket message and in each command's Authorization header.
if (params.has("token")) {
  sessionStorage.setItem("oware-token", token);
  const clean = new URLSearchParams(params);
  clean.delete("token");
  const rest = clean.toString();
  history.replaceState(history.state, "", location.pathname + (rest ? `?${rest}` : "") + location.hash);
}

const model = emptyModel();
const ctx = {
  view, animate: false, replay: null, preview: null, hintPit: null,
  canCommand: view === "referee", socketDown: false,
};
const latencies = [];
// receive: hand the page a server message as if it came over the socket (the browser
// tests use it to check what a redraw keeps).
window.dashboard = { model, ctx, latencies, spoken, send: null, receive: (msg) => onMessage(msg) };

const $ = (id) => document.getElementById(id);

function focusPit(pit) {
  document.querySelector(`#board .pit[data-pit="${pit}"][tabindex]`)?.focus({ preventScroll: true });
}

/** Pits that act (teaching: explain; referee: correct) respond to a click, Enter and Space. */
function onPitActivate(handler) {
  const boardBox = $("board");
  boardBox.addEventListener("click", (e) => {
    const g = e.target.closest?.(".pit[role=button]");
    if (g) handler(Number(g.dataset.pit));
  });
  boardBox.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" && e.key !== " ") return;
    const g = e.target.closest?.(".pit[role=button]");
    if (!g) return;
    e.preventDefault(); // Space would scroll the page
    handler(Number(g.dataset.pit));
  });
}

function render() {
  // The board is redrawn from scratch: a keyboard user focused on a pit keeps the focus.
  const focusedPit = document.activeElement?.closest?.("#board .pit")?.dataset.pit;
  renderPlayers(model, ctx);
  renderBoardArea(model, ctx);
  if (focusedPit !== undefined) focusPit(focusedPit);
  renderLastMove(model, ctx);
  renderMoves(model, ctx);
  renderResult(model, ctx);
  renderAlerts(model, ctx, sendCommand);
  renderSuggestion(model, ctx);
  if (view === "referee") showCurrentRules();
  showLinkStatus();
  ctx.animate = false;
}

// -- announcements -------------------------------------------------------------
function announcementText(item) {
  const ev = item.event;
  switch (item.kind) {
    case "move": {
      const parts = [t("say.move", { player: playerName(ev.player, model.players), name: ev.name })];
      if (ev.captured) parts.push(t("say.capture", { count: ev.captured }));
      else if (ev.grand_slam && model.players === 2) parts.push(t("say.grand_slam"));
      if (ev.extra_turn) parts.push(t("say.extra_turn"));
      parts.push(t("say.scores", { scores: scoreText(ev.scores) }));
      return parts.join(" ");
    }
    case "game_over":
      return resultText(model);
    case "new_game":
      return t("say.new_game");
    case "corrected":
      return t("say.corrected");
    default:
      return alertHeadline(ev, model.players);
  }
}

// -- server messages -------------------------------------------------------------
function onMessage(msg) {
  if (msg.type === "command_result") {
    showCommandResult(msg.ok, msg.detail);
    return;
  }
  if (msg.type === "auth") {
    // the token sent when the socket opened: refused, the page says so (as a refused command)
    if (!msg.ok) showCommandResult(false, "", "ctl.token_wrong");
    document.body.dataset.ready = "true";
    return;
  }
  const effect = applyMessage(model, msg);
  if (effect.animate) {
    ctx.animate = true;
    ctx.preview = null;
    ctx.shownPit = null;
    ctx.hintPit = null;
    $("teach-hint").textContent = "";
  }
  render();
  document.body.dataset.lastType = msg.type;
  if (typeof msg.seq === "number") document.body.dataset.lastSeq = String(msg.seq);
  if (typeof msg.server_time === "number") {
    const ms = performance.timeOrigin + performance.now() - msg.server_time * 1000;
    latencies.push({ type: msg.type, seq: msg.seq ?? null, ms });
    if (latencies.length > 1000) latencies.shift();
  }
  for (const item of effect.announce) announce(announcementText(item));
  gamesChanged(msg.type);
}

// The page's own link to the server: connecting, connected, reconnecting.
let pageLink = "connecting";
function setLinkStatus(state) {
  pageLink = state;
  showLinkStatus();
}

// Board link states the header names in place of "Connected" (a card says more).
const BOARD_DOWN = new Set(["disconnected", "reconnecting", "silent", "unsure"]);

// The header's dot is green only while the page hears the server and the server hears the
// board: a board unplugged behind a page that is connected must not read "Connected".
function showLinkStatus() {
  const box = $("link-status");
  const boardLink = model.link;
  const boardDown = pageLink === "connected" && boardLink && BOARD_DOWN.has(boardLink.state);
  // (amber for a camera counting unsurely, red for a board not heard at all)
  const down = boardLink?.state === "unsure" ? "reconnecting" : "disconnected";
  box.dataset.state = boardDown ? down : pageLink;
  box.querySelector(".status-text").textContent = boardDown
    ? t(`alert.${boardLink.type === "camera" ? "camera" : "link"}`, {
        state: t(`link.${boardLink.state}`).toLowerCase(),
      })
    : t(`link.${pageLink}`);
}

let socket = null;
let retry = 500;
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const role = OVERLAYS.includes(view) ? "overlay" : view;
  const q = new URLSearchParams({ role });
  socket = new WebSocket(`${scheme}://${location.host}/ws/board/${board}?${q}`);
  window.dashboard.send = (obj) => socket.send(JSON.stringify(obj));
  setLinkStatus("connecting");
  socket.addEventListener("open", () => {
    retry = 500;
    ctx.socketDown = false;
    setLinkStatus("connected");
    // with a token, ready once the server has answered it (the referee's state follows)
    if (token && view === "referee") socket.send(JSON.stringify({ type: "auth", token }));
    else document.body.dataset.ready = "true";
  });
  socket.addEventListener("message", (e) => onMessage(JSON.parse(e.data)));
  socket.addEventListener("close", (e) => {
    if (e.target !== socket) return; // an old socket, replaced on purpose (a new token)
    document.body.dataset.ready = "false";
    ctx.socketDown = true;
    setLinkStatus("reconnecting");
    render();
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  });
}

/** Connect again (the token changed: the server now sends what the referee may see). */
function reconnect() {
  const old = socket;
  connect();
  old?.close();
}

// -- commands (referee view) -------------------------------------------------------------
// The last command's answer, kept to be written again in another language.
let commandResult = null;
function showCommandResult(ok, detail, key = null) {
  commandResult = { ok, detail, key };
  const p = $("command-result");
  if (ok) p.textContent = t("ctl.done");
  else p.textContent = key ? t(key) : t("ctl.refused", { detail });
  p.dataset.ok = String(ok);
}

async function sendCommand(cmd) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  try {
    const r = await fetch(`/api/board/${board}/command`, {
      method: "POST", headers, body: JSON.stringify(cmd),
    });
    const body = await r.json().catch(() => ({}));
    const detail = typeof body.detail === "string" ? body.detail : r.statusText;
    // The token: said in the page's language, with what to do (the server's words are
    // for programs: "send 'Authorization: Bearer TOKEN'").
    const key = r.status === 401 ? (token ? "ctl.token_wrong" : "ctl.token_missing") : null;
    showCommandResult(r.ok, detail, key);
    if (r.status === 401) {
      $("token-label").hidden = false;
      $("token-input").focus();
    }
    return r.ok;
  } catch {
    showCommandResult(false, "", "ctl.offline");
    return false;
  }
}

/**
 * Ask before a command that ends the live game: a dialog in the page's language saying
 * what will happen. Resolves true when the referee confirms.
 */
function confirmFirst(heading, text, yes) {
  const dialog = $("confirm-dialog");
  $("confirm-heading").textContent = heading;
  $("confirm-text").textContent = text;
  $("confirm-yes").textContent = yes;
  $("confirm-no").textContent = t("confirm.keep");
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
  });
}

/** A game is live when moves were played and it has not ended: ending it needs a yes. */
function gameIsLive() {
  return model.moves.length > 0 && !model.gameOver;
}

/** The scores if the cycle is declared now: each player takes the seeds on their side. */
function cycleScores() {
  const pos = model.position;
  return pos.stores.map((s, p) => s + pos.pits.slice(6 * p, 6 * p + 6).reduce((a, b) => a + b, 0));
}

async function newGame() {
  const rules = $("rules-select").value;
  const title = rulesTitle(rules, rulesPlayers(rules));
  if (gameIsLive()) {
    const ok = await confirmFirst(
      t("confirm.new_game_title"),
      t("confirm.new_game", { board, moves: model.moves.length, rules: title }),
      t("confirm.new_game_yes"),
    );
    if (!ok) return;
  }
  sendCommand({ command: "new_game", rules });
}

async function declareCycle() {
  if (!model.position || model.gameOver) {
    showCommandResult(false, "", "ctl.no_game");
    return;
  }
  const ok = await confirmFirst(
    t("confirm.cycle_title"),
    t("confirm.cycle", { scores: scoreText(cycleScores()) }),
    t("confirm.cycle_yes"),
  );
  if (ok) sendCommand({ command: "declare_cycle_end" });
}

/** Players of a rule set chosen in the New game list ("universal-3" → 3). */
function rulesPlayers(rules) {
  if (rules === model.rules) return model.players;
  return Number(rules.match(/-(\d)$/)?.[1] ?? 2);
}

/** The New game list shows the rule set being played (an option is added for one it lacks,
 * such as universal mancala with variants). */
function showCurrentRules() {
  const select = $("rules-select");
  if (!model.position || select.dataset.shown === `${model.rules}/${model.players}`) return;
  select.dataset.shown = `${model.rules}/${model.players}`;
  const name = model.rules === "universal" && model.players > 2 ? `universal-${model.players}` : model.rules;
  let option = [...select.options].find((o) => o.value === name);
  if (!option) {
    option = new Option(`${rulesTitle(model.rules, model.players)} (${model.description})`, name);
    option.dataset.current = "true";
    select.prepend(option);
  }
  select.value = name;
}

function setupControls() {
  $("controls").hidden = false;
  $("token-label").hidden = !token && !params.has("token");
  $("undo-button").addEventListener("click", () => sendCommand({ command: "undo" }));
  $("cycle-button").addEventListener("click", declareCycle);
  $("new-game-form").addEventListener("submit", (e) => {
    e.preventDefault();
    newGame();
  });
  $("token-input").value = token;
  $("token-input").addEventListener("change", (e) => {
    token = e.target.value.trim();
    sessionStorage.setItem("oware-token", token);
    reconnect();
  });
  $("edit-button").addEventListener("click", () => openEditor());
  onPitActivate((pit) => openEditor(pit));
  $("edit-cancel").addEventListener("click", () => ($("edit-form").hidden = true));
  $("edit-reading").addEventListener("click", () => fillEditor("reading"));
  $("edit-referee").addEventListener("click", () => fillEditor("referee"));
  $("edit-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const grid = $("edit-grid");
    // Fields are laid out as on the board; put each value back at its index.
    const num = (key) => {
      const out = [];
      for (const i of grid.querySelectorAll(`input[data-${key}]`)) out[Number(i.dataset[key])] = Number(i.value);
      return out;
    };
    const position = {
      rules: model.rules, pits: num("pit"), stores: num("store"),
      to_move: Number(grid.querySelector("select").value),
    };
    if (await sendCommand({ command: "set_position", position })) $("edit-form").hidden = true;
  });
}

/**
 * Show the correction form, the referee's position in it (a form already open keeps what
 * was typed); `pit` (activated on the board drawing) gets the focus, so a correction is
 * made pit by pit by tapping the pits.
 */
function openEditor(pit) {
  if (!model.position) return;
  if ($("edit-form").hidden) {
    buildEditor(model.position.pits, model.position.stores, model.position.to_move);
    $("edit-note").textContent = "";
    $("edit-form").hidden = false;
  }
  const first = $("edit-grid").querySelector(pit === undefined ? "input" : `input[data-pit="${pit}"]`);
  first?.focus();
  first?.select();
}

/** The fields, laid out as on the board; those differing from the referee's are marked. */
function buildEditor(pits, stores, toMove) {
  const pos = model.position;
  const grid = $("edit-grid");
  grid.replaceChildren();
  grid.style.setProperty("--cols", "6");
  const field = (label, value, referee, data) => {
    const l = document.createElement("label");
    const s = document.createElement("span");
    s.textContent = label;
    const input = document.createElement("input");
    Object.assign(input, { type: "number", min: 0, max: 99, value, required: true });
    Object.assign(input.dataset, data);
    input.dataset.referee = String(referee);
    input.setAttribute("inputmode", "numeric");
    const mark = () => l.classList.toggle("differs", Number(input.value) !== referee);
    input.addEventListener("input", mark);
    mark();
    l.append(s, input);
    return l;
  };
  // Rows as on the board for two players (North's row reversed on top).
  const order = model.players === 2 ? [11, 10, 9, 8, 7, 6, 0, 1, 2, 3, 4, 5] : pits.map((_, i) => i);
  for (const i of order) grid.append(field(pitName(i, model.players), pits[i], pos.pits[i], { pit: i }));
  // Stores and the side to move take two columns each: their labels are longer than a letter.
  for (const [p, c] of stores.entries()) {
    const store = field(`⌂ ${playerName(p, model.players)}`, c, pos.stores[p], { store: p });
    store.classList.add("wide");
    grid.append(store);
  }
  const l = document.createElement("label");
  l.className = "wide";
  const s = document.createElement("span");
  s.textContent = t("ctl.to_move");
  const sel = document.createElement("select");
  for (let p = 0; p < model.players; p++) sel.append(new Option(playerName(p, model.players), p));
  sel.value = String(toMove);
  l.append(s, sel);
  grid.append(l);
}

/**
 * Fill the form from the referee's position, or from the board as the source read it last
 * (a still board; a pit not seen keeps the referee's count). The side to move stays the
 * referee's, unless the board shows exactly a legal move played from the referee's
 * position: then it is the player after that move.
 */
async function fillEditor(kind) {
  const pos = model.position;
  if (!pos) return;
  const note = $("edit-note");
  if (kind === "referee") {
    buildEditor(pos.pits, pos.stores, pos.to_move);
    note.textContent = "";
    return;
  }
  let reading = null;
  try {
    const r = await fetch(`/api/board/${board}/state`);
    if (r.ok) reading = (await r.json()).reading ?? null;
  } catch {
    reading = null;
  }
  if (!reading || reading.pits.length !== pos.pits.length) {
    note.textContent = t("ctl.no_reading");
    return;
  }
  const pits = reading.pits.map((c, i) => c ?? pos.pits[i]);
  const stores = (reading.stores ?? []).length === pos.stores.length
    ? reading.stores.map((c, p) => c ?? pos.stores[p]) : pos.stores.slice();
  let toMove = pos.to_move;
  let played = null;
  if (canPreview(model.rules, model.players)) {
    for (const m of legalMoves(pos)) {
      const o = outcome(pos, m);
      if (o.pits.every((c, i) => c === pits[i])) {
        played = m;
        toMove = o.toMove;
        break;
      }
    }
  }
  buildEditor(pits, stores, toMove);
  const differ = pits.filter((c, i) => c !== pos.pits[i]).length;
  const unseen = reading.pits.filter((c) => c === null).length;
  const parts = [t("ctl.reading_used", { count: differ })];
  if (unseen) parts.push(t("ctl.reading_unseen", { count: unseen }));
  if (played !== null) {
    parts.push(t("ctl.reading_move", { name: pitName(played, model.players), player: playerName(toMove, model.players) }));
  }
  note.textContent = parts.join(" ");
}

// -- teaching view -------------------------------------------------------------
function explainPit(pit) {
  const pos = model.position;
  const players = model.players;
  const name = pitName(pit, players);
  if (model.gameOver) return t("teach.game_over");
  if (!canPreview(model.rules, players)) {
    if (model.legal.includes(pit)) return t("teach.no_preview", { name });
    if (Math.floor(pit / 6) !== pos.to_move) {
      return t("teach.not_yours", {
        name, owner: playerName(Math.floor(pit / 6), players), player: playerName(pos.to_move, players),
      });
    }
    return t("teach.empty", { name });
  }
  const why = illegalReason(pos, pit, model.legal);
  if (why.key) {
    return t(why.key, {
      name, owner: playerName(why.params.owner ?? 0, players), player: playerName(pos.to_move, players),
      moves: model.legal.map((m) => pitName(m, players)).join(", "),
    });
  }
  const o = outcome(pos, pit);
  ctx.preview = { pit, sown: o.sown, captures: o.captures };
  const last = pitName(o.sown.at(-1), players);
  const seeds = pos.pits[pit];
  if (o.grandSlam && !o.captures.length) return t("teach.preview_slam", { name });
  if (o.captures.length) {
    const count = o.captures.reduce((a, [, c]) => a + c, 0);
    const pits = o.captures.map(([p]) => pitName(p, players)).join(", ");
    return t("teach.preview_capture", { name, seeds, last, count, pits });
  }
  return t("teach.preview", { name, seeds, last });
}

function setupTeaching() {
  $("teaching").hidden = false;
  const boardBox = $("board");
  const show = (target) => {
    const g = target.closest?.(".pit");
    if (!g || !model.position) return;
    const pit = Number(g.dataset.pit);
    // Redrawing the board and focusing the new pit fires focusin again: explain once.
    if (ctx.shownPit === pit) return;
    ctx.shownPit = pit;
    ctx.preview = null;
    const text = explainPit(pit);
    $("teach-preview").textContent = text;
    $("teach-preview").dataset.pit = String(pit);
    const hadFocus = boardBox.contains(document.activeElement);
    renderBoardArea(model, ctx);
    if (hadFocus) focusPit(pit);
  };
  const clear = () => {
    ctx.shownPit = null;
    if (!ctx.preview) return;
    ctx.preview = null;
    renderBoardArea(model, ctx);
  };
  boardBox.addEventListener("pointerover", (e) => show(e.target));
  boardBox.addEventListener("focusin", (e) => show(e.target));
  boardBox.addEventListener("pointerleave", clear);
  onPitActivate((pit) => {
    ctx.shownPit = null; // explain again, even the pit already shown
    show($("board").querySelector(`.pit[data-pit="${pit}"]`));
  });
  $("hint-button").addEventListener("click", () => {
    const s = model.suggestion;
    if (!s || s.best === undefined || s.best === null) {
      $("teach-hint").textContent = t(model.fairPlay ? "teach.no_hint_fair" : "teach.no_hint");
      return;
    }
    ctx.hintPit = s.best;
    $("teach-hint").textContent = t("teach.hint_text", { name: s.best_name ?? pitName(s.best, model.players) });
    renderBoardArea(model, ctx);
  });
}

// -- history -------------------------------------------------------------
// Each load is numbered: an older answer arriving late never replaces a newer list.
let gamesLoad = 0;
async function loadGames() {
  const list = $("game-list");
  const number = ++gamesLoad;
  try {
    await loadHome(); // the boards watched: their newest games are the ones in progress
    const r = await fetch("/api/games?limit=50");
    const games = r.ok ? await r.json() : [];
    if (number !== gamesLoad) return;
    // The list is rebuilt: a keyboard user focused on a game keeps the focus.
    const focused = document.activeElement?.closest?.("#game-list .game")?.dataset.id;
    list.replaceChildren();
    if (!games.length) {
      const li = document.createElement("li");
      li.textContent = t("hist.none");
      list.append(li);
    }
    // The newest game of each board this server watches is the one being played.
    const live = new Set();
    for (const g of games) {
      if (homeData?.boards.some((b) => b.board === String(g.board)) && !live.has(String(g.board))) {
        live.add(String(g.board));
        g.live = true;
      }
    }
    for (const g of games) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "game";
      b.dataset.id = String(g.id);
      b.dataset.board = String(g.board);
      b.dataset.moves = String(g.moves ?? 0);
      b.dataset.status = gameStatus(g);
      b.textContent = titleText(titleParams(g));
      b.addEventListener("click", () => openGame(g.id));
      li.append(b);
      list.append(li);
    }
    if (focused !== undefined) list.querySelector(`.game[data-id="${focused}"]`)?.focus();
  } catch {
    list.replaceChildren();
  }
}

// The list follows the games being played: a move, a new game, a correction or a
// game's end reloads it, at most once a second (a fast replay sends many moves).
const GAMES_CHANGED = new Set(["move", "new_game", "corrected", "game_over"]);
let gamesReload = null;
function gamesChanged(type) {
  if ($("history").hidden || !GAMES_CHANGED.has(type) || gamesReload !== null) return;
  gamesReload = setTimeout(() => {
    gamesReload = null;
    loadGames();
  }, 1000);
}

/** finished, in progress (the newest game of a board being watched), or abandoned (left
 * unfinished: a new game was started, or the server stopped). */
function gameStatus(game) {
  if ((game.result ?? "*") !== "*") return "finished";
  return game.live && !game.ended ? "in_progress" : "abandoned";
}

/** The words of a game's title (hist.game): from its record when there is one, else from
 * the games list's metadata (the same fields /api/games/{id} carries). The result is said
 * in words ("South won", "abandoned"), not as a record's "1-0" or "*". */
function titleParams(game, record = null) {
  const result = record?.result ?? game.result ?? "*";
  const status = gameStatus({ ...game, result });
  return record
    ? { id: game.id, board: game.board ?? "?", result, status, moves: record.moves.length, rules: record.start.rules }
    : { id: game.id, board: game.board ?? "?", result, status, moves: game.moves ?? 0, rules: game.rules ?? "" };
}

/** A game's title in the page's language (written again when the language changes). */
function titleText(params) {
  return t("hist.game", { ...params, result: gameResultText(params.result, params.status) });
}

// The open game's title, and why it cannot be replayed if it cannot: kept to be written
// again in another language.
let replayTitle = null;
function showReplayTitle() {
  if (!replayTitle) return;
  $("replay-title").textContent = titleText(replayTitle.params);
  if (replayTitle.note) $("replay-ply").textContent = t(replayTitle.note);
}

async function openGame(id) {
  const r = await fetch(`/api/games/${id}`);
  if (!r.ok) return;
  const body = await r.json();
  // The service nests the record under "record" (null when the game cannot be replayed
  // under the rules, e.g. corrected by hand); a bare record is accepted too.
  const record = "record" in body ? body.record : body;
  $("replay").hidden = false;
  $("download-ogn").href = `/api/games/${id}/export?format=ogn`;
  $("download-json").href = `/api/games/${id}/export?format=json`;
  const positions = record ? replayPositions(record) : null;
  const params = titleParams({ ...body, id }, record);
  replayTitle = { params, note: !record ? "hist.no_record" : !positions ? "hist.no_positions" : null };
  showReplayTitle();
  if (!positions) {
    // Nothing to step through: the live game (not a game opened before) stays on the board.
    ctx.replay = null;
    delete document.body.dataset.replay;
    render();
    return;
  }
  // in progress or abandoned: as the list says it (the list knows which games are live)
  const listed = $("game-list").querySelector(`.game[data-id="${id}"]`)?.dataset.status;
  if (listed) replayTitle.params.status = listed;
  showReplayTitle();
  const moves = record.moves.map((m) => ({
    ...m, notation: m.captured ? `${m.name}+${m.captured}` : m.name,
  }));
  ctx.replay = { id, positions, moves, ply: 0 };
  stepReplay(0);
}

function stepReplay(ply) {
  if (!ctx.replay) return;
  ctx.replay.ply = Math.max(0, Math.min(ply, ctx.replay.positions.length - 1));
  $("replay-ply").textContent = `${ctx.replay.ply} / ${ctx.replay.positions.length - 1}`;
  document.body.dataset.replay = "true";
  render();
}

function setupHistory() {
  $("history").hidden = false;
  $("history-refresh").addEventListener("click", loadGames);
  $("replay-first").addEventListener("click", () => stepReplay(0));
  $("replay-prev").addEventListener("click", () => stepReplay(ctx.replay.ply - 1));
  $("replay-next").addEventListener("click", () => stepReplay(ctx.replay.ply + 1));
  $("replay-last").addEventListener("click", () => stepReplay(Infinity));
  $("replay-close").addEventListener("click", () => {
    ctx.replay = null;
    replayTitle = null;
    $("replay").hidden = true;
    delete document.body.dataset.replay;
    render();
  });
  loadGames();
}

// -- settings -------------------------------------------------------------
function setupSettings() {
  const langSelect = $("lang-select");
  const refillVoices = bindVoiceSelect($("voice-select"), () => t("ui.default_voice"));
  langSelect.value = language();
  langSelect.addEventListener("change", async () => {
    await setLanguage(langSelect.value);
    params.set("lang", langSelect.value);
    history.replaceState(null, "", `?${params}`);
    refillVoices();
    $("board-label").textContent = t("ui.board_label", { board });
    showLinkStatus();
    if (!$("history").hidden) {
      loadGames();
      showReplayTitle();
    }
    if (commandResult) showCommandResult(commandResult.ok, commandResult.detail, commandResult.key);
    renderNav();
    render();
  });
  const speak = $("speech-on");
  speak.checked = params.get("speak") === "1";
  setEnabled(speak.checked);
  speak.addEventListener("change", () => setEnabled(speak.checked));
  setVoice(params.get("voice") ?? "");
  $("voice-select").addEventListener("change", (e) => setVoice(e.target.value));
}

// -- the menu: the other views of this board, the other boards, the home page ------------
let homeData = null; // GET /api/home: the boards, and whether commands need a token

// Drawn in place, not rebuilt: the menu is drawn again when /api/home answers, and a
// keyboard user may already be tabbing through it (a removed link takes the focus with it).
function renderNav() {
  const nav = $("views-nav");
  const link = (id) => {
    let a = document.getElementById(id);
    if (!a) {
      a = document.createElement("a");
      a.id = id;
      nav.append(a);
    }
    return a;
  };
  const home = link("nav-home");
  home.href = language() === "en" ? "/" : `/?lang=${language()}`;
  home.textContent = t("ui.all_boards");
  for (const v of VIEWS) {
    const a = link(`nav-${v}`);
    a.href = viewHref(board, v, language());
    a.textContent = t(`view.${v}`);
    a.dataset.view = v;
    if (v === view) a.setAttribute("aria-current", "page");
  }
  const boards = homeData?.boards ?? [];
  if (boards.length > 1) {
    let select = document.getElementById("board-select");
    if (!select) {
      const label = document.createElement("label");
      label.append(document.createElement("span"));
      select = document.createElement("select");
      select.id = "board-select";
      select.addEventListener("change", () => location.assign(viewHref(select.value, view, language())));
      label.append(select);
      nav.append(label);
    }
    select.previousElementSibling.textContent = t("ui.other_board");
    select.replaceChildren(
      ...boards.map((b) => new Option(t("ui.board_option", { board: b.board, rules: rulesTitle(b.rules, b.players) }), b.board)),
    );
    select.value = board;
  }
}

// Fetched once: the menu and the Past games list (which games are in progress) wait for it.
let homeRequest = null;
function loadHome() {
  homeRequest ??= fetch("/api/home")
    .then((r) => (r.ok ? r.json() : null))
    .catch(() => null)
    .then((data) => {
      homeData = data;
    });
  return homeRequest;
}

async function setupNav() {
  renderNav();
  await loadHome();
  renderNav();
  if (homeData?.token_required && view === "referee") $("token-label").hidden = false;
}

async function start() {
  document.body.dataset.view = view;
  document.documentElement.dataset.view = view; // the overlays' transparency starts at the root
  await setLanguage(chooseLanguage(params.get("lang")));
  $("board-label").textContent = t("ui.board_label", { board });
  setupSettings();
  if (view === "referee") {
    setupControls();
    setupCamera(board, () => token);
  }
  if (view === "referee" || view === "spectator") setupHistory();
  if (view === "teaching") setupTeaching();
  if (!OVERLAYS.includes(view)) setupNav();
  connect();
}

start();
