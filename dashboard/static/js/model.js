// The page's picture of the game, updated by each server message (docs/SERVICE_API.md).
//
// applyMessage() changes the model and returns what the view should do about
// it ({announce: [what to say], animate: bool}); it touches no DOM, so the
// whole protocol handling is in one place and easy to follow.

import { canPreview, legalMoves, playersOf } from "./rules.js";

const ALERTS = new Set([
  "illegal_move", "illegal_sowing", "missed_capture", "wrong_capture",
  "board_disturbed", "ambiguous", "bad_observation",
]);

export function emptyModel() {
  return {
    position: null, // {rules, pits, stores, to_move}
    players: 2,
    rules: "abapa",
    description: "",
    legal: [],
    moves: [], // [{player, pit, name, notation, captured}]
    lastMove: null, // the last `move` event
    provisional: null, // a `move_provisional` event: the move the referee is reading
    pending: null, // a `capture_pending` event
    alerts: [],
    gameOver: null,
    suggestion: null,
    fairPlay: false,
    link: null,
    storage: null, // a `storage` message while the session log cannot be written
    seq: -1,
    lastEventSeq: -1,
  };
}

function setPosition(model, position, legal) {
  model.position = position;
  model.rules = position.rules;
  model.players = playersOf(position);
  if (legal) model.legal = legal;
  else if (canPreview(position.rules, model.players)) model.legal = legalMoves(position);
  else {
    // Universal rules: the page does not compute legality; any non-empty own pit.
    const base = position.to_move * 6;
    model.legal = [0, 1, 2, 3, 4, 5].map((k) => base + k).filter((i) => position.pits[i] > 0);
  }
}

export function applyMessage(model, msg) {
  const out = { announce: [], animate: false };
  if (typeof msg.seq === "number") model.lastEventSeq = msg.seq;
  switch (msg.type) {
    case "state":
      setPosition(model, msg.position, msg.legal_moves);
      model.description = msg.description ?? "";
      model.moves = (msg.moves ?? []).slice();
      model.alerts = (msg.alerts ?? []).slice();
      model.gameOver = msg.game_over ?? null;
      model.suggestion = msg.suggestion ?? null;
      model.fairPlay = Boolean(msg.fair_play);
      if (msg.link) model.link = msg.link;
      model.storage = msg.storage?.state === "failing" ? msg.storage : null;
      model.pending = null;
      // a move being read when the page (re)connects: shown until confirmed or withdrawn
      model.provisional = msg.provisional ?? null;
      if (model.lastMove && !model.moves.length) model.lastMove = null;
      model.seq = msg.seq ?? model.seq;
      break;
    case "move":
      setPosition(model, msg.position);
      model.moves.push({
        player: msg.player, pit: msg.pit, name: msg.name, notation: msg.notation,
        captured: msg.captured,
      });
      model.lastMove = msg;
      model.provisional = null;
      model.pending = null;
      model.alerts = [];
      model.suggestion = null; // it was about the position before this move
      out.animate = true;
      out.announce.push({ kind: "move", event: msg });
      break;
    case "capture_pending":
      model.pending = msg;
      break;
    case "move_provisional":
      // Shown as "being read" until the referee confirms it (a `move`) or withdraws it.
      model.provisional = msg;
      break;
    case "move_withdrawn":
      if (model.provisional?.seq === msg.provisional || msg.provisional === undefined) {
        model.provisional = null;
      }
      break;
    case "board_restored":
      // It closes one alert (`closes`: its alert_id); older servers closed them all.
      if (typeof msg.closes === "number") {
        model.alerts = model.alerts.filter((a) => a.alert_id !== msg.closes);
      } else {
        model.alerts = [];
      }
      break;
    case "new_game":
    case "corrected":
      setPosition(model, msg.position);
      model.alerts = [];
      model.pending = null;
      model.provisional = null;
      model.gameOver = null;
      model.suggestion = null;
      if (msg.type === "new_game") {
        model.moves = [];
        model.lastMove = null;
      }
      out.announce.push({ kind: msg.type, event: msg });
      break;
    case "confirmed":
      // A counted pit: keep the question (the referee may need another pit) but mark
      // the answer; a confirmed move ends it (a move or board_restored follows).
      if (typeof msg.pit === "number") {
        for (const a of model.alerts) {
          if (a.type === "ambiguous") a.answered = { ...(a.answered ?? {}), [msg.pit]: msg.count };
        }
      }
      break;
    case "game_over":
      model.gameOver = msg;
      model.legal = [];
      out.announce.push({ kind: "game_over", event: msg });
      break;
    case "suggestion":
      // Always about the current position: the server drops stale ones before sending.
      model.suggestion = msg;
      break;
    case "storage":
      // The session log cannot be written (a full disk): the game waits until it can.
      if (msg.state === "failing" && !model.storage) out.announce.push({ kind: "alert", event: msg });
      model.storage = msg.state === "failing" ? msg : null;
      break;
    case "link":
    case "camera":
      if (model.link?.state !== msg.state && msg.state !== "connected") {
        out.announce.push({ kind: "link", event: msg });
      }
      model.link = msg;
      break;
    default:
      if (ALERTS.has(msg.type)) {
        // An alert with the alert_id of one shown replaces it in place (the referee's
        // out-of-sync alert is updated as the board changes: one card, not one per
        // reading); without one, the same type on the same pits replaces the old card.
        const key = (a) =>
          typeof a.alert_id === "number" ? `id:${a.alert_id}` : `${a.type}:${(a.pits ?? []).join(",")}`;
        const index = model.alerts.findIndex((a) => key(a) === key(msg));
        if (index >= 0) model.alerts[index] = msg;
        else model.alerts.push(msg);
        // An update is not news: the screen reader heard the alert when it came.
        if (!msg.update || index < 0) out.announce.push({ kind: "alert", event: msg });
      }
  }
  return out;
}
