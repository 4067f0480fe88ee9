// The board as SVG: pits with drawn seeds and counts, stores, pit letters, highlights.
//
// Two players: North's row on top (f … a from left to right, as South sees it),
// South's row below (A … F), North's store on the left, South's on the right.
// Three and four players sit around a square: player 1 at the bottom, the next
// player on the right, then the top, then the left (counter-clockwise, the
// sowing direction); each store sits at the corner after the player's pit F,
// where the sowing ring passes through it.
//
// renderBoard() rebuilds the whole SVG when what it shows changed (a board is a
// few hundred elements, well under a millisecond) and leaves it alone otherwise;
// the sowing animation is played only when a new move arrives (`animate` true).

const SVG_NS = "http://www.w3.org/2000/svg";
const MAX_DRAWN_SEEDS = 24;
const MAX_DRAWN_STORE = 48;

const drawnFrom = new WeakMap();

/**
 * True when `container` was last drawn from the same `inputs` (compared as JSON); else
 * remembers them and returns false. Every server message redraws the page, and engine
 * suggestions arrive several times a second: rebuilding an unchanged part would replace
 * a button or pit between press and release (the click is lost), drop the keyboard
 * focus, make a live region speak again and cut an animation short.
 */
export function unchanged(container, inputs) {
  const key = JSON.stringify(inputs);
  if (drawnFrom.get(container) === key && container.firstElementChild) return true;
  drawnFrom.set(container, key);
  return false;
}

/** Pit and store centres for a board of `players` players. */
export function layout(players) {
  if (players === 2) {
    const pits = [];
    for (let i = 0; i < 12; i++) {
      const col = i < 6 ? i : 11 - i;
      pits.push({ x: 195 + col * 122, y: i < 6 ? 300 : 120, side: i < 6 ? "bottom" : "top" });
    }
    return {
      width: 1000, height: 420, r: 54, pitch: 122, pits,
      stores: [{ x: 930, y: 210, w: 110, h: 290 }, { x: 70, y: 210, w: 110, h: 290 }],
      centre: { x: 500, y: 210 },
    };
  }
  // Pits 235…765 along each side leave the corners to the stores (100 wide).
  const step = 106;
  const sides = [
    (k) => ({ x: 235 + k * step, y: 880, side: "bottom" }),
    (k) => ({ x: 880, y: 765 - k * step, side: "right" }),
    (k) => ({ x: 765 - k * step, y: 120, side: "top" }),
    (k) => ({ x: 120, y: 235 + k * step, side: "left" }),
  ];
  const corners = [
    { x: 880, y: 880 }, { x: 880, y: 120 }, { x: 120, y: 120 }, { x: 120, y: 880 },
  ];
  const pits = [];
  for (let p = 0; p < players; p++) for (let k = 0; k < 6; k++) pits.push(sides[p](k));
  return {
    width: 1000, height: 1000, r: 48, pitch: step, pits,
    stores: corners.slice(0, players).map((c) => ({ ...c, w: 104, h: 104 })),
    centre: { x: 500, y: 500 },
  };
}

function el(name, attrs = {}, text) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Seeds arranged on a sunflower spiral, so any count looks like a heap, not a grid. */
function drawSeeds(group, cx, cy, radius, count, limit) {
  const n = Math.min(count, limit);
  for (let j = 0; j < n; j++) {
    const rr = (radius - 10) * Math.sqrt((j + 0.5) / Math.max(n, 5));
    const a = j * 2.39996 + 0.6;
    group.append(el("circle", {
      class: "seed", cx: (cx + rr * Math.cos(a)).toFixed(1),
      cy: (cy + rr * Math.sin(a)).toFixed(1), r: 7.5,
    }));
  }
}

/**
 * Draw `view` into `container`. view = {
 *   players, pits, stores, toMove, names: [pit names], storeLabels: [..],
 *   storeNames: [[lines written on or by each store]],
 *   marks: {pit: [class names]}, storeMarks: {player: [class]}, sownOrder: {pit: step},
 *   values: {pit: "text"}, pitLabel(i) -> aria label, interactive: bool, animate: bool }
 */
export function renderBoard(container, view) {
  // `animate` is left out: a message that changes nothing must not cut short the
  // sowing animation of the move before it.
  const labels = view.pits.map((count, i) => view.pitLabel(i, count));
  const { animate: _animate, pitLabel: _pitLabel, ...shown } = view;
  if (unchanged(container, [shown, labels])) return container.firstElementChild;
  const g = layout(view.players);
  const svg = el("svg", {
    viewBox: `0 0 ${g.width} ${g.height}`, class: `board-svg players-${view.players}`,
    role: "group", "aria-label": view.label ?? "board",
  });
  svg.append(el("rect", {
    class: "board-wood", x: 8, y: 8, width: g.width - 16, height: g.height - 16, rx: 60,
  }));
  view.stores.forEach((count, p) => {
    const s = g.stores[p];
    if (!s) return;
    const classes = ["store", `player-${p}`, ...(view.storeMarks?.[p] ?? [])];
    if (p === view.toMove) classes.push("to-move");
    const grp = el("g", {
      class: classes.join(" "), "data-store": p, role: "img",
      "aria-label": view.storeLabels?.[p] ?? `store ${p}`,
    });
    grp.append(el("rect", {
      class: "store-hole", x: s.x - s.w / 2, y: s.y - s.h / 2, width: s.w, height: s.h, rx: 48,
    }));
    drawSeeds(grp, s.x, s.y, Math.min(s.w, s.h) / 2 + 4, count, MAX_DRAWN_STORE);
    grp.append(el("text", { class: "count store-count", x: s.x, y: s.y + 16 }, String(count)));
    const names = view.storeNames?.[p] ?? [];
    if (names.length === 2) {
      // a tall store (two players): "store" at its top, whose at its bottom, inside
      grp.append(el("text", { class: "store-name", x: s.x, y: s.y - s.h / 2 + 30 }, names[0]));
      grp.append(el("text", { class: "store-name", x: s.x, y: s.y + s.h / 2 - 14 }, names[1]));
    } else if (names.length === 1) {
      // a corner store (more players): its name outside, towards the board's edge
      const below = s.y > g.centre.y;
      const y = below ? s.y + s.h / 2 + 30 : s.y - s.h / 2 - 12;
      grp.append(el("text", { class: "store-name", x: s.x, y }, names[0]));
    }
    svg.append(grp);
  });
  view.pits.forEach((count, i) => {
    const { x, y, side } = g.pits[i];
    const owner = Math.floor(i / 6);
    const classes = ["pit", `player-${owner}`, ...(view.marks?.[i] ?? [])];
    const attrs = {
      class: classes.join(" "), "data-pit": i, "aria-label": labels[i],
    };
    if (view.interactive) Object.assign(attrs, { tabindex: 0, role: "button" });
    else attrs.role = "img";
    const grp = el("g", attrs);
    if (view.sownOrder && view.animate && i in view.sownOrder) {
      grp.style.setProperty("--step", view.sownOrder[i]);
    }
    // The ring outside the hole marks the suggested move, so a pit that is both suggested
    // and in an alert shows both: the alert colours the hole, the suggestion this ring.
    grp.append(el("circle", { class: "pit-ring", cx: x, cy: y, r: g.r + 8 }));
    grp.append(el("circle", { class: "pit-hole", cx: x, cy: y, r: g.r }));
    drawSeeds(grp, x, y, g.r, count, MAX_DRAWN_SEEDS);
    grp.append(el("text", { class: "count", x, y: y + 14 }, String(count)));
    const off = g.r + 26;
    const [lx, ly] = {
      bottom: [x, y + off + 8], top: [x, y - off + 4], right: [x + off + 6, y + 8],
      left: [x - off - 6, y + 8],
    }[side];
    grp.append(el("text", { class: "pit-name", x: lx, y: ly }, view.names[i]));
    if (view.values && i in view.values) {
      const vy = side === "top" ? y + g.r + 30 : y - g.r - 12;
      const vx = side === "left" ? x + g.r + 40 : side === "right" ? x - g.r - 40 : x;
      grp.append(el("text", { class: "pit-value", x: vx, y: side === "left" || side === "right" ? y + 8 : vy }, view.values[i]));
    }
    svg.append(grp);
  });
  if (view.centreText) {
    svg.append(el("text", { class: "centre-text", x: g.centre.x, y: g.centre.y + 12 }, view.centreText));
  }
  container.replaceChildren(svg);
  fitValues(svg, g.pitch);
  if (!view.animate) svg.classList.add("no-anim");
  return svg;
}

/**
 * A pit's value wider than the space between two pits (a word such as "przegrana", or
 * "+14.3" written large on a phone's ring board) is squeezed to that space, so that
 * neighbouring values never run into each other. Measured once the board is drawn, as
 * the font size depends on the screen (dashboard.css).
 */
function fitValues(svg, pitch) {
  const room = pitch - 12;
  for (const text of svg.querySelectorAll(".pit-value")) {
    if (text.getComputedTextLength() > room) {
      text.setAttribute("textLength", String(room));
      text.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
  }
}
