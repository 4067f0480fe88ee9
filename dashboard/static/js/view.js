// Drawing the model into the page: board, players and scores, moves, alerts,
// suggestion, result. Pure DOM output; the wiring (events, sockets) is in main.js.

import { renderBoard, unchanged } from "./board.js";
import { joinNames, language, localDecimal, playerName, scoreText, t } from "./i18n.js";
import { playersOf } from "./rules.js";

/** The name of pit i: A-F / a-f for two players, 1A … 4F with more. */
export function pitName(i, players) {
  if (players === 2) return "ABCDEFabcdef"[i];
  return `${Math.floor(i / 6) + 1}${"ABCDEF"[i % 6]}`;
}

function names(pits, players) {
  return joinNames((pits ?? []).map((p) => pitName(p, players)));
}

function addMark(marks, pit, cls) {
  (marks[pit] ??= []).push(cls);
}

/** Seeds with a sign, as the page's language writes them: "+1.5", "-0.3", "0" ("+1,5" in Polish). */
export function formatValue(v) {
  if (Math.abs(v) >= 90) return t(v > 0 ? "value.win" : "value.loss");
  const r = Math.round(v * 10) / 10;
  return localDecimal(r > 0 ? `+${r}` : String(r));
}

/** Which suggestion to show, given the view and fair play (null = none). Under fair play
 * the players may see every screen but the referee's: only the referee's shows one (the
 * server sends the others none; this keeps a stale one off them too). */
export function visibleSuggestion(model, ctx) {
  if (!model.suggestion || ctx.replay) return null;
  if (model.fairPlay && ctx.view !== "referee") return null;
  if (ctx.view === "teaching") return null; // hints only on request there
  return model.suggestion;
}

export function renderBoardArea(model, ctx) {
  const container = document.getElementById("board");
  const shown = ctx.replay ? ctx.replay.positions[ctx.replay.ply] : model.position;
  if (!shown) return;
  // A replayed game may have another number of players than the live one on this board.
  const players = playersOf(shown);
  const marks = {};
  const storeMarks = {};
  let sownOrder = null;
  const last = ctx.replay ? null : model.lastMove;
  if (last) {
    addMark(marks, last.pit, "origin");
    sownOrder = {};
    last.sown.forEach((slot, step) => {
      if (slot >= 0) {
        sownOrder[slot] ??= step;
        if (!marks[slot]?.includes("sown")) addMark(marks, slot, "sown");
      } else {
        (storeMarks[-1 - slot] ??= []).push("sown");
      }
    });
    for (const [p] of last.captures ?? []) addMark(marks, p, "captured");
    if ((last.captures ?? []).length) (storeMarks[last.player] ??= []).push("gained");
  }
  if (model.pending && !ctx.replay) for (const p of model.pending.pits) addMark(marks, p, "pending");
  if (!ctx.replay) {
    for (const a of model.alerts) for (const p of a.pits ?? []) addMark(marks, p, `alert alert-${a.type}`);
  }
  const teaching = ctx.view === "teaching" && !ctx.replay;
  // Pits act in the teaching view (explain the move) and for the referee (correct the count).
  const correcting = ctx.canCommand && !ctx.replay && !teaching;
  if (teaching && !model.gameOver) for (const m of model.legal) addMark(marks, m, "legal");
  if (ctx.preview) {
    for (const p of ctx.preview.sown) addMark(marks, p, "preview-sown");
    for (const [p] of ctx.preview.captures) addMark(marks, p, "preview-capture");
    addMark(marks, ctx.preview.pit, "preview-origin");
  }
  const sugg = visibleSuggestion(model, ctx);
  let values = null;
  if (sugg && sugg.best !== undefined && sugg.best !== null) {
    addMark(marks, sugg.best, "best");
    values = {};
    for (const [pit, v] of Object.entries(sugg.values ?? {})) values[pit] = formatValue(v);
  }
  if (ctx.hintPit !== null && ctx.hintPit !== undefined) addMark(marks, ctx.hintPit, "best");
  const pitNames = shown.pits.map((_, i) => pitName(i, players));
  renderBoard(container, {
    players,
    pits: shown.pits,
    stores: shown.stores,
    toMove: model.gameOver && !ctx.replay ? -1 : shown.to_move,
    names: pitNames,
    marks,
    storeMarks,
    sownOrder,
    values,
    animate: ctx.animate,
    interactive: teaching || correcting,
    label: t("ui.board"),
    centreText: players > 2 && !model.gameOver ? t("ui.to_move", { player: playerName(shown.to_move, players) }) : "",
    storeLabels: shown.stores.map((c, p) => t("ui.store", { player: playerName(p, players), count: c })),
    // Stores are labelled: "store" and whose (two players), "store 3" in a corner (more).
    storeNames: shown.stores.map((_, p) =>
      players === 2 ? [t("ui.store_word"), playerName(p, players)] : [t("ui.store_n", { n: p + 1 })]),
    pitLabel: (i, count) => {
      let key = teaching && model.legal.includes(i) ? "ui.pit_legal" : "ui.pit";
      if (correcting) key = "ui.pit_correct";
      return t(key, { name: pitNames[i], count });
    },
  });
}

export function renderPlayers(model, ctx) {
  const box = document.getElementById("players");
  const shown = ctx.replay ? ctx.replay.positions[ctx.replay.ply] : model.position;
  if (!shown) return;
  box.replaceChildren();
  const scores = model.gameOver && !ctx.replay ? model.gameOver.scores : shown.stores;
  const players = playersOf(shown); // the replayed game's, when one is replayed
  for (let p = 0; p < players; p++) {
    const card = document.createElement("div");
    card.className = `player-card player-${p}`;
    const toMove = shown.to_move === p && !(model.gameOver && !ctx.replay);
    if (toMove) card.classList.add("to-move");
    card.dataset.player = String(p);
    const name = document.createElement("span");
    name.className = "player-name";
    name.textContent = playerName(p, players);
    const score = document.createElement("span");
    score.className = "player-score";
    score.textContent = String(scores[p]);
    score.setAttribute("aria-label", `${t("ui.score")} ${scores[p]}`);
    card.append(name, score);
    if (toMove) {
      const turn = document.createElement("span");
      turn.className = "turn-flag";
      turn.textContent = t("ui.to_move", { player: playerName(p, players) });
      card.append(turn);
    }
    box.append(card);
  }
}

export function renderLastMove(model, ctx) {
  const p = document.getElementById("last-move");
  if (ctx.replay) {
    p.textContent = t("ui.replaying", { ply: ctx.replay.ply, total: ctx.replay.positions.length - 1 });
    return;
  }
  const last = model.lastMove ?? model.moves.at(-1);
  if (!last) {
    p.textContent = t("ui.no_moves");
    if (model.provisional) p.textContent += ` · ${t("ui.reading_move", { move: model.provisional.name })}`;
    return;
  }
  // who played it, and what it took: "Last move: North played b, capturing 2"
  const player = playerName(last.player, model.players);
  const key = last.captured ? "ui.last_move_capture" : "ui.last_move";
  let text = t(key, { player, move: last.name ?? last.notation, count: last.captured ?? 0 });
  if (model.provisional) text += ` · ${t("ui.reading_move", { move: model.provisional.name })}`;
  p.textContent = text;
}

/** The move list "1. F f+2 2. A b" as list items, one per move number. */
export function renderMoves(model, ctx) {
  const list = document.getElementById("move-list");
  const moves = ctx.replay ? ctx.replay.moves : model.moves;
  list.replaceChildren();
  let item = null;
  let number = 0;
  moves.forEach((m, i) => {
    if (m.player === 0 || item === null) {
      number += 1;
      item = document.createElement("li");
      item.value = number;
      if (m.player !== 0) item.append(document.createTextNode("… "));
      list.append(item);
    }
    const span = document.createElement("span");
    span.className = "move";
    if (m.captured) span.classList.add("capture");
    if (ctx.replay && i === ctx.replay.ply - 1) span.classList.add("current");
    span.textContent = m.notation ?? (m.captured ? `${m.name}+${m.captured}` : m.name);
    item.append(span, document.createTextNode(" "));
  });
  if (!ctx.replay && model.gameOver && model.moves.length) {
    const res = document.createElement("li");
    res.className = "result-item";
    res.textContent = resultText(model);
    list.append(res);
  }
  // The list follows the game: the newest move live, the move shown in a replay.
  const panel = list.parentElement;
  const current = ctx.replay ? list.querySelector(".current") : null;
  if (ctx.replay && !current) panel.scrollTop = 0;
  else if (current) {
    const top = current.offsetTop - panel.offsetTop;
    // the panel's title stays at its top (sticky): a move under it is not in view
    const title = panel.querySelector("h2")?.offsetHeight ?? 0;
    if (top < panel.scrollTop + title || top + current.offsetHeight > panel.scrollTop + panel.clientHeight) {
      panel.scrollTop = Math.max(0, top - panel.clientHeight / 2);
    }
  } else panel.scrollTop = panel.scrollHeight;
}

/**
 * A game's result in words for the Past games list: "South won", "draw", "Player 2 won",
 * "in progress" or "abandoned" (a record's "*": unfinished), from a record's result
 * ("1-0", "0-1-0", "1/2-1/2") and the game's status (see main.js gameStatus).
 */
export function gameResultText(result, status) {
  if (status === "in_progress") return t("hist.in_progress");
  if (!result || result === "*") return t("hist.abandoned");
  const fields = result.split("-");
  const players = fields.length;
  const winners = fields.flatMap((f, p) => (f === "1" ? [p] : []));
  if (winners.length === 1) return t("hist.won", { player: playerName(winners[0], players) });
  const shared = fields.flatMap((f, p) => (f === "1/2" ? [p] : []));
  if (shared.length === players || !shared.length) return t("hist.draw");
  return t("hist.shared", { players: joinNames(shared.map((p) => playerName(p, players))) });
}

export function resultText(model) {
  const over = model.gameOver;
  if (!over) return "";
  const scores = scoreText(over.scores ?? []);
  if (over.winner === null || over.winner === undefined) return t("result.draw", { scores });
  return t("result.win", { player: playerName(over.winner, model.players), scores });
}

export function renderResult(model, ctx) {
  const box = document.getElementById("result");
  const over = model.gameOver && !ctx.replay;
  box.hidden = !over;
  if (!over) return;
  box.replaceChildren();
  const head = document.createElement("strong");
  head.textContent = resultText(model);
  box.append(head);
  if (model.gameOver.text) box.append(englishDetail(model.gameOver.text, "span"));
}

/**
 * The referee's own sentence (`text`, `expected`, `seen` come from the server in English):
 * labelled in the page's language, and saying "(in English)" when the page is not, so a
 * reader knows why the sentence changes language; the sentence itself is marked lang="en"
 * for screen readers and speech.
 */
export function englishDetail(text, tag = "p", labelKey = "alert.note") {
  const box = document.createElement(tag);
  box.className = "detail";
  const label = document.createElement("span");
  label.className = "detail-label";
  const english = document.documentElement.lang === "en";
  label.textContent = t(english ? labelKey : `${labelKey}_en`);
  const words = document.createElement("span");
  words.className = "referee-words";
  words.lang = "en";
  words.textContent = text;
  box.append(label, " ", words); // a real space: copied text and screen readers keep it
  return box;
}

/** The headline of an alert in the page's language. */
export function alertHeadline(alert, players) {
  const pits = names(alert.pits, players);
  if (alert.type === "ambiguous" && alert.moves) {
    return t("alert.ambiguous_moves", { pits: names(alert.moves, players) });
  }
  if (alert.type === "link" || alert.type === "camera") {
    return t(`alert.${alert.type}`, { state: t(`link.${alert.state}`).toLowerCase() });
  }
  return t(`alert.${alert.type}`, { pits });
}

export function renderAlerts(model, ctx, onAnswer) {
  const box = document.getElementById("alerts");
  const cards = [];
  if (!ctx.replay) {
    if (ctx.socketDown) {
      cards.push({ type: "link", state: "reconnecting", text: t("link.page_offline"), page: true });
    } else if (model.link && model.link.state !== "connected") cards.push(model.link);
    if (model.storage) cards.push(model.storage);
    if (model.pending) cards.push({ ...model.pending, type: "capture_pending" });
    cards.push(...model.alerts);
  }
  if (unchanged(box, [language(), Boolean(ctx.canCommand), model.players, cards])) return;
  const heading = box.querySelector("h2");
  box.replaceChildren(heading);
  // The newest first: it is the one to see without scrolling (and the only one the stream
  // overlays show).
  for (const a of cards.slice().reverse()) {
    const card = document.createElement("article");
    card.className = `alert alert-${a.type}`;
    card.dataset.type = a.type;
    if (a.pits) card.dataset.pits = a.pits.join(",");
    const head = document.createElement("h3");
    head.textContent = alertHeadline(a, model.players);
    card.append(head);
    if (a.page) {
      const detail = document.createElement("p");
      detail.className = "detail";
      detail.textContent = a.text;
      card.append(detail);
    } else if (a.text || a.detail) {
      const source = a.type === "link" || a.type === "camera" || a.type === "storage";
      card.append(englishDetail(a.text || a.detail, "p", source ? "alert.source_note" : "alert.note"));
    }
    if (a.expected !== undefined && a.seen !== undefined && a.type !== "ambiguous") {
      const dl = document.createElement("dl");
      for (const [k, v] of [["alert.expected", a.expected], ["alert.seen", a.seen]]) {
        const dt = document.createElement("dt");
        dt.textContent = t(k);
        const dd = document.createElement("dd");
        dd.lang = "en"; // the referee's own words (see englishDetail)
        dd.textContent = String(v);
        dl.append(dt, dd);
      }
      card.append(dl);
    }
    if (a.type === "ambiguous" && ctx.canCommand) card.append(answerButtons(a, model, onAnswer));
    box.append(card);
  }
}

function answerButtons(alert, model, onAnswer) {
  const row = document.createElement("div");
  row.className = "button-row answers";
  if (alert.moves) {
    for (const m of alert.moves) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "answer";
      b.textContent = t("alert.move_button", { name: pitName(m, model.players) });
      b.addEventListener("click", () => onAnswer({ command: "confirm", move: m }));
      row.append(b);
    }
    return row;
  }
  for (const opt of alert.options ?? []) {
    for (const count of opt.counts) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "answer";
      b.dataset.pit = String(opt.pit);
      b.dataset.count = String(count);
      const answered = alert.answered?.[opt.pit];
      if (answered !== undefined) {
        b.disabled = true;
        b.setAttribute("aria-pressed", String(answered === count));
      }
      b.textContent = t("alert.count_button", { name: opt.name, count });
      b.addEventListener("click", () => onAnswer({ command: "confirm", pit: opt.pit, count }));
      row.append(b);
    }
  }
  return row;
}

export function renderSuggestion(model, ctx) {
  const panel = document.getElementById("suggestion");
  const bar = document.getElementById("eval-bar");
  const sugg = visibleSuggestion(model, ctx);
  const allowed = ctx.view !== "teaching";
  // Under fair play every view but the referee's says suggestions are hidden; the referee's
  // shows them, saying the players' screens do not.
  const hiddenHere = model.fairPlay && ctx.view !== "referee" && !ctx.replay;
  panel.hidden = !allowed || (!sugg && !hiddenHere);
  document.getElementById("sugg-note").hidden = !(model.fairPlay && ctx.view === "referee");
  bar.hidden = !sugg || !allowed || model.players !== 2;
  if (!sugg) {
    if (!panel.hidden) {
      document.getElementById("sugg-best").textContent = t("sugg.hidden");
      document.getElementById("sugg-values").replaceChildren();
    }
    return;
  }
  const best = document.getElementById("sugg-best");
  best.textContent = t("sugg.best", { name: sugg.best_name ?? pitName(sugg.best, model.players) });
  if (sugg.depth) best.textContent += ` (${t("sugg.depth", { depth: sugg.depth })})`;
  const list = document.getElementById("sugg-values");
  list.replaceChildren();
  const entries = Object.entries(sugg.values ?? {}).sort((a, b) => b[1] - a[1]);
  for (const [pit, v] of entries) {
    const li = document.createElement("li");
    // a forced win or loss is said in words; anything else in seeds ahead
    const value = Math.abs(v) >= 90 ? formatValue(v) : t("sugg.value", { value: formatValue(v) });
    li.textContent = `${pitName(Number(pit), model.players)}: ${value}`;
    if (Number(pit) === sugg.best) li.className = "best";
    list.append(li);
  }
  // The bar shows South's share: the value is for the side to move.
  const v = sugg.values?.[sugg.best] ?? 0;
  const mover = sugg.to_move ?? model.position?.to_move ?? 0;
  const south = mover === 0 ? v : -v;
  const share = 50 + 50 * Math.tanh(south / 8);
  bar.querySelector(".eval-fill").style.height = `${share.toFixed(1)}%`;
  bar.querySelector(".eval-text").textContent = formatValue(south);
  bar.setAttribute("aria-label", `${playerName(0, 2)} ${formatValue(south)}`);
}
