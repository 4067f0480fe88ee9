// A small copy of the Oware sowing rules, for the page's own previews only.
//
// The referee on the server (core/) is the authority: it decides every move.
// The page needs the rules only to *show* things between server messages:
// what a hovered move would do (teaching view), the legal moves after a move
// event (which carries the new position but not the legal moves), and the
// positions of a past game being replayed move by move. For the "universal"
// family (stores in the sowing ring, extra turns, variants) the page does not
// guess: previews say so and replays use the positions the server sends.

const HALF = 6;

/** Options of each Oware rule-set name the page knows (mirrors core/rules PRESETS). */
const OWARE_GRAND_SLAM = {
  abapa: "no_capture",
  oware: "no_capture",
  "abapa-declared": "no_capture",
  "mankala-pl": "forbidden",
  "grand-slam-all": "capture_all",
};

/** True when the page can compute moves of this rule set itself. */
export function canPreview(rules, players) {
  return players === 2 && Object.hasOwn(OWARE_GRAND_SLAM, rules);
}

/** Pits in sowing order from `pit` (skipping the origin), `n` seeds. */
function path(pit, n) {
  const out = [];
  let i = pit;
  while (out.length < n) {
    i = (i + 1) % 12;
    if (i !== pit) out.push(i);
  }
  return out;
}

/**
 * What playing `pit` does in an Oware position {pits, stores, to_move, rules}.
 * Returns {sown, captures: [[pit, seeds]], grandSlam, pits, stores, toMove}.
 */
export function outcome(position, pit) {
  const mover = position.to_move;
  const board = position.pits.slice();
  const n = board[pit];
  board[pit] = 0;
  const sown = path(pit, n);
  for (const s of sown) board[s] += 1;
  const lo = mover === 0 ? HALF : 0;
  let chain = [];
  for (let i = sown.at(-1); i >= lo && i < lo + HALF && board[i] >= 2 && board[i] <= 3; i--) {
    chain.push([i, board[i]]);
  }
  const taken = chain.reduce((a, [, c]) => a + c, 0);
  const theirs = board.slice(lo, lo + HALF).reduce((a, b) => a + b, 0);
  const grandSlam = chain.length > 0 && taken === theirs;
  const rule = OWARE_GRAND_SLAM[position.rules] ?? "no_capture";
  if (grandSlam && rule === "no_capture") chain = [];
  const stores = position.stores.slice();
  for (const [i, c] of chain) {
    board[i] = 0;
    stores[mover] += c;
  }
  return { sown, captures: chain, grandSlam, pits: board, stores, toMove: 1 - mover };
}

function opponentSeeds(pits, mover) {
  const lo = HALF * (1 - mover);
  return pits.slice(lo, lo + HALF).reduce((a, b) => a + b, 0);
}

/** Legal moves of an Oware position (must feed; grand slam forbidden where the rules say). */
export function legalMoves(position) {
  const mover = position.to_move;
  const base = HALF * mover;
  const own = [];
  for (let i = base; i < base + HALF; i++) if (position.pits[i] > 0) own.push(i);
  const rule = OWARE_GRAND_SLAM[position.rules] ?? "no_capture";
  if (rule === "forbidden" || opponentSeeds(position.pits, mover) === 0) {
    return own.filter((m) => opponentSeeds(outcome(position, m).pits, mover) > 0);
  }
  return own;
}

/**
 * Why `pit` cannot be played, as {key, params} for the i18n module ("" key = it is legal).
 * `legal` is the list of legal moves (from the server when it sent them).
 */
export function illegalReason(position, pit, legal) {
  const mover = position.to_move;
  const owner = Math.floor(pit / HALF);
  if (owner !== mover) return { key: "teach.not_yours", params: { owner } };
  if (position.pits[pit] === 0) return { key: "teach.empty", params: {} };
  if (legal.includes(pit)) return { key: "", params: {} };
  if (opponentSeeds(position.pits, mover) === 0) return { key: "teach.must_feed", params: {} };
  return { key: "teach.no_grand_slam", params: {} };
}

/** How many players a position is for (each has a row of six pits). */
export function playersOf(position) {
  return position.pits.length / HALF;
}

/** Every position of a game record ({start, moves: [{pit}]}), or null if the page cannot. */
export function replayPositions(record) {
  const start = record.start;
  if (Array.isArray(record.positions)) return record.positions;
  if (!canPreview(start.rules, playersOf(start))) return null;
  const out = [start];
  let pos = start;
  for (const m of record.moves) {
    const o = outcome(pos, m.pit);
    if (m.capture_missed) {
      // the players left the capture on the board: the game went on from the sown board
      const pits = o.pits.slice();
      for (const [p, c] of o.captures) pits[p] += c;
      pos = { rules: pos.rules, pits, stores: pos.stores.slice(), to_move: o.toMove };
    } else {
      pos = { rules: pos.rules, pits: o.pits, stores: o.stores, to_move: o.toMove };
    }
    out.push(pos);
  }
  return out;
}
