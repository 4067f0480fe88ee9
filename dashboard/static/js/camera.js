// The referee's camera panel: which calibration a camera board uses, and the
// manual fallback when neither the markers nor the pit grid find the board —
// the four corners of the pits' area placed by hand on the camera's last frame.
//
// The panel shows only for a board watched by a camera (its source URL is
// camera:// or video://). Corners are clicked on the picture in the order NW, NE, SE, SW
// (far left, far right, near right, near left as South sees the board), or
// typed in the fields under it; they are in the frame's own pixels, whatever
// size the picture is shown at. Saving sends them to
// POST /api/board/{b}/camera/corners: the live reading follows them at once.

import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const CORNERS = ["nw", "ne", "se", "sw"];

/**
 * Wire the panel. `board` is the board number, `token()` the command token now
 * (the referee may type it after the page loaded).
 */
export async function setupCamera(board, token) {
  const state = { corners: [], size: null, objectUrl: null };
  const headers = () => (token() ? { Authorization: `Bearer ${token()}` } : {});
  const api = (path, init = {}) =>
    fetch(`/api/board/${board}/camera${path}`, { ...init, headers: { ...headers(), ...init.headers } });

  // Only a board watched by a camera has the panel (asking the camera API of any
  // other board would answer 404, which the browser reports as an error).
  const boards = await fetch("/api/boards").then((r) => (r.ok ? r.json() : [])).catch(() => []);
  const source = boards.find((b) => String(b.board) === String(board))?.source ?? "";
  if (!/^(camera|video):\/\//.test(source)) return;
  const info = await api("").catch(() => null);
  if (!info) return;
  buildCornerFields();
  $("camera-panel").hidden = false;
  if (info.ok) showInfo(await info.json());
  else showResult(false, await detail(info));
  // What the counter learnt grows with every confirmed position: read it again now and then.
  setInterval(async () => {
    const again = await api("").catch(() => null);
    if (again?.ok) showInfo(await again.json());
  }, 15000);

  $("camera-edit").addEventListener("click", () => open());
  $("camera-cancel").addEventListener("click", () => $("camera-dialog").close());
  $("camera-again").addEventListener("click", () => {
    state.corners = [];
    sync();
  });
  $("camera-frame").addEventListener("click", (e) => {
    if (!state.size) return;
    const img = e.currentTarget;
    const box = img.getBoundingClientRect();
    const x = ((e.clientX - box.left) / box.width) * state.size[0];
    const y = ((e.clientY - box.top) / box.height) * state.size[1];
    if (state.corners.length >= 4) state.corners = [];
    state.corners.push([Math.round(x), Math.round(y)]);
    sync();
  });
  $("camera-form").addEventListener("input", () => {
    // typed values win: read every complete pair back
    const read = [];
    for (const name of CORNERS) {
      const x = $(`corner-${name}-x`).value;
      const y = $(`corner-${name}-y`).value;
      if (x === "" || y === "") break;
      read.push([Number(x), Number(y)]);
    }
    state.corners = read;
    drawOverlay();
    prompt();
  });
  $("camera-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (state.corners.length !== 4) {
      prompt();
      return;
    }
    const r = await api("/corners", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ corners: state.corners }),
    }).catch((err) => ({ ok: false, status: 0, json: async () => ({ detail: String(err) }) }));
    if (!r.ok) {
      $("camera-help").textContent = t("cam.refused", { detail: await detail(r) });
      return;
    }
    const body = await r.json();
    $("camera-dialog").close();
    showInfo(body);
    showResult(true, body.previous ? t("cam.saved_previous", { file: body.file, previous: body.previous }) : t("cam.saved", { file: body.file ?? "" }));
  });

  async function open() {
    const r = await api("");
    if (!r.ok) {
      showResult(false, await detail(r));
      return;
    }
    const now = await r.json();
    const frame = await api("/frame");
    if (!frame.ok) {
      showResult(false, await detail(frame));
      return;
    }
    if (state.objectUrl) URL.revokeObjectURL(state.objectUrl);
    state.objectUrl = URL.createObjectURL(await frame.blob());
    state.size = now.frame_size;
    // Start from the corners in use when they refer to a frame of this size.
    const same = now.image_size && now.frame_size && now.image_size.join() === now.frame_size.join();
    state.corners = same && now.corners ? now.corners.map(([x, y]) => [Math.round(x), Math.round(y)]) : [];
    const img = $("camera-frame");
    img.src = state.objectUrl;
    $("camera-overlay").setAttribute("viewBox", `0 0 ${state.size[0]} ${state.size[1]}`);
    sync();
    $("camera-dialog").showModal();
  }

  /** Fields and overlay from state.corners. */
  function sync() {
    CORNERS.forEach((name, i) => {
      const c = state.corners[i];
      $(`corner-${name}-x`).value = c ? String(c[0]) : "";
      $(`corner-${name}-y`).value = c ? String(c[1]) : "";
    });
    drawOverlay();
    prompt();
  }

  function prompt() {
    const n = state.corners.length;
    $("camera-help").textContent = n < 4 ? t("cam.click", { corner: t(`cam.${CORNERS[n]}`) }) : t("cam.ready");
  }

  function drawOverlay() {
    const svg = $("camera-overlay");
    svg.replaceChildren();
    if (!state.size) return;
    const r = Math.max(state.size[0], state.size[1]) / 120;
    if (state.corners.length >= 2) {
      const line = document.createElementNS(SVG, state.corners.length === 4 ? "polygon" : "polyline");
      line.setAttribute("points", state.corners.map((c) => c.join(",")).join(" "));
      line.setAttribute("class", "corner-outline");
      line.setAttribute("stroke-width", String(r / 2));
      svg.append(line);
    }
    state.corners.forEach(([x, y], i) => {
      const dot = document.createElementNS(SVG, "circle");
      Object.entries({ cx: x, cy: y, r, class: "corner-dot" }).forEach(([k, v]) => dot.setAttribute(k, String(v)));
      const label = document.createElementNS(SVG, "text");
      Object.entries({ x: x + r * 1.5, y: y - r * 1.5, class: "corner-label", "font-size": String(r * 3) })
        .forEach(([k, v]) => label.setAttribute(k, String(v)));
      label.textContent = CORNERS[i].toUpperCase();
      svg.append(dot, label);
    });
  }
}

/** One fieldset per corner (legend from the dictionary), x and y in frame pixels. */
function buildCornerFields() {
  const grid = $("corner-grid");
  grid.replaceChildren();
  for (const name of CORNERS) {
    const set = document.createElement("fieldset");
    const legend = document.createElement("legend");
    legend.dataset.i18n = `cam.${name}`;
    legend.textContent = t(`cam.${name}`);
    set.append(legend);
    for (const axis of ["x", "y"]) {
      const label = document.createElement("label");
      const input = document.createElement("input");
      Object.assign(input, { type: "number", id: `corner-${name}-${axis}`, min: 0, step: 1 });
      input.setAttribute("inputmode", "numeric");
      label.append(`${axis} `, input);
      set.append(label);
    }
    grid.append(set);
  }
}

function showInfo(body) {
  const method = body.method ? t(`cam.method_${body.method}`) : t("cam.method_none");
  $("camera-info").textContent = t("cam.info", { method, file: body.file ?? "—" });
  $("camera-learnt").textContent = t("cam.learnt", { n: body.learnt ?? 0 });
  $("camera-panel").dataset.method = body.method ?? "";
}

function showResult(ok, text) {
  const p = $("camera-result");
  p.textContent = text;
  p.dataset.ok = String(ok);
}

async function detail(response) {
  const body = await response.json().catch(() => ({}));
  return typeof body.detail === "string" ? body.detail : `${response.status}`;
}
