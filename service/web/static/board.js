// The archipelago as SVG, drawn from the tile data (tiles.md geometry):
// flat-topped hexes, axial (q, r); world direction d (0 = S, clockwise) points at
// angle 90° + 60°·d on screen; a tile with rotation r turns local edge k to (k + r) mod 6.

import { BY_LETTER, LETTER, cap } from "./api.js";

const S = 70; // hex radius, px
const SQ3 = Math.sqrt(3);
const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c) node.append(c);
  return node;
}

export function centre(q, r) {
  return [S * 1.5 * q, S * SQ3 * (r + q / 2)];
}

function towards(x, y, direction, distance) {
  const a = ((90 + 60 * direction) * Math.PI) / 180;
  return [x + distance * Math.cos(a), y + distance * Math.sin(a)];
}

function hexPoints(x, y, radius = S) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = (60 * i * Math.PI) / 180;
    pts.push(`${(x + radius * Math.cos(a)).toFixed(1)},${(y + radius * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(" ");
}

export function parseBeaches(text) {
  return text.split("|").map((b) => [...b].map((l) => BY_LETTER[l]));
}

function focusable(node, label, onActivate) {
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.setAttribute("aria-label", label);
  node.addEventListener("click", onActivate);
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      onActivate(event);
    }
  });
}

/**
 * Draw ``position`` (domain.position.dump) into ``host``.
 * opts: {targets: {beaches, jetties, cells} (Sets of "isl:i", "isl:i:j", "q,r"),
 *        chosen: Map "isl:i" → count, onBeach(isl, i), onJetty(isl, i, j), onCell(key),
 *        voyageCell: "q,r"}
 */
export function drawBoard(host, position, tileData, opts = {}) {
  const targets = opts.targets || { beaches: new Set(), jetties: new Set(), cells: new Set() };
  const chosen = opts.chosen || new Map();
  const placed = position.tiles.map(([key, tile, rotation]) => {
    const [q, r] = key.split(",").map(Number);
    return { key, tile, rotation, q, r };
  });
  const cells = [
    ...placed.map((t) => [t.q, t.r]),
    ...[...targets.cells].map((k) => k.split(",").map(Number)),
    ...(opts.extent || []).map((k) => k.split(",").map(Number)), // a fixed frame (replay)
  ];
  const xs = cells.map(([q, r]) => centre(q, r)[0]);
  const ys = cells.map(([q, r]) => centre(q, r)[1]);
  const pad = S * 1.1;
  const minX = Math.min(...xs) - pad;
  const minY = Math.min(...ys) - pad;
  const width = Math.max(...xs) - Math.min(...xs) + 2 * pad;
  const height = Math.max(...ys) - Math.min(...ys) + 2 * pad;
  const root = svg("svg", {
    viewBox: `${minX.toFixed(0)} ${minY.toFixed(0)} ${width.toFixed(0)} ${height.toFixed(0)}`,
    class: "board",
    role: "img",
    "aria-label": "The archipelago",
  });
  // natural size: on a phone the board keeps it and scrolls inside its frame
  root.style.setProperty("--natural-width", `${Math.round(width)}px`);
  const removed = new Set(position.removed || []);
  for (const t of placed) {
    root.append(drawTile(t, tileData.tiles[t.tile], position, removed.has(t.tile), targets, chosen, opts));
  }
  for (const key of targets.cells) {
    const [q, r] = key.split(",").map(Number);
    const [x, y] = centre(q, r);
    const cell = svg("polygon", { points: hexPoints(x, y, S - 3), class: "cell target", "data-cell": key });
    focusable(cell, `place the tile at ${key}`, () => opts.onCell && opts.onCell(key));
    if (chosen.get(`cell:${key}`)) cell.classList.add("chosen");
    root.append(cell);
  }
  if (opts.voyageCell) {
    const [q, r] = opts.voyageCell.split(",").map(Number);
    const [x, y] = centre(q, r);
    root.append(svg("polygon", { points: hexPoints(x, y, S - 6), class: "voyage" }));
  }
  host.replaceChildren(root);
  return root;
}

function drawTile(t, data, position, isRemoved, targets, chosen, opts) {
  const [x, y] = centre(t.q, t.r);
  const g = svg("g", {
    class: `tile ${data.kind}${isRemoved ? " removed" : ""}`,
    "data-tile": t.tile,
    "data-cell": t.key,
  });
  g.append(svg("polygon", { points: hexPoints(x, y), class: "hex" }));
  const world = (k) => (k + t.rotation) % 6;
  if (data.kind === "ocean") {
    for (const p of data.paths) {
      const [ax, ay] = towards(x, y, world(p.a), (S * SQ3) / 2);
      const [bx, by] = towards(x, y, world(p.b), (S * SQ3) / 2);
      const cx = x + ((ax + bx) / 2 - x) * 0.35;
      const cy = y + ((ay + by) / 2 - y) * 0.35;
      g.append(svg("path", { d: `M${ax},${ay} Q${cx},${cy} ${bx},${by}`, class: `foam danger${p.danger}` }));
      if (p.danger > 0) {
        const lx = 0.25 * ax + 0.5 * cx + 0.25 * bx;
        const ly = 0.25 * ay + 0.5 * cy + 0.25 * by;
        g.append(svg("circle", { cx: lx, cy: ly, r: 8, class: "danger-badge" }));
        const label = svg("text", { x: lx, y: ly + 4, class: "danger-number" });
        label.textContent = String(p.danger);
        g.append(label);
      }
    }
  } else {
    const land = svg("circle", { cx: x, cy: y, r: S * 0.42, class: "land", "data-island": t.tile });
    if (targets.islands && targets.islands.has(t.tile)) {
      land.classList.add("target");
      focusable(land, `${data.name}: found a royal island`, () => opts.onIsland && opts.onIsland(t.tile));
    }
    g.append(land);
    const name = svg("text", { x, y: y - 4, class: "island-name" });
    name.textContent = data.name;
    const value = svg("text", { x, y: y + 10, class: "island-value" });
    value.textContent = t.tile === "tonga" ? "start" : `${data.value} pts`;
    g.append(name, value);
    const boats = position.boats[t.tile] ? parseBeaches(position.boats[t.tile]) : data.beaches.map(() => []);
    data.beaches.forEach((beach, i) => g.append(drawBeach(t, x, y, beach, i, boats[i] || [], world, targets, chosen, opts)));
    const king = (position.kings || {})[t.tile];
    if (king) {
      const crown = svg("text", { x, y: y + 24, class: `king colour-${king}` });
      crown.textContent = `♛${LETTER[king]}`;
      crown.append(svg("title", {}, document.createTextNode(`${cap(king)} king`)));
      g.append(crown);
    }
  }
  if (t.tile !== "tonga") {
    const [mx, my] = towards(x, y, world(0), (S * SQ3) / 2 - 5);
    g.append(svg("circle", { cx: mx, cy: my, r: 4, class: "red-mark" }));
  }
  return g;
}

function drawBeach(t, x, y, beach, i, boats, world, targets, chosen, opts) {
  let vx = 0;
  let vy = 0;
  for (const j of beach.jetties) {
    const [px, py] = towards(0, 0, world(j), 1);
    vx += px;
    vy += py;
  }
  const angle = Math.atan2(vy, vx);
  const bx = x + S * 0.62 * Math.cos(angle);
  const by = y + S * 0.62 * Math.sin(angle);
  const tx = -Math.sin(angle);
  const ty = Math.cos(angle);
  const key = `${t.tile}:${i}`;
  const g = svg("g", { class: "beach", "data-beach": key });
  for (const j of beach.jetties) {
    const [jx, jy] = towards(x, y, world(j), S * 0.83);
    g.append(svg("line", { x1: bx, y1: by, x2: jx, y2: jy, class: "jetty-line" }));
    const jetty = svg("circle", { cx: jx, cy: jy, r: 6, class: "jetty", "data-jetty": `${key}:${j}` });
    if (targets.jetties.has(`${key}:${j}`)) {
      jetty.classList.add("target");
      focusable(jetty, `jetty ${j} of beach ${i}`, (e) => {
        e.stopPropagation();
        opts.onJetty && opts.onJetty(t.tile, i, j);
      });
    }
    if (chosen.get(`jetty:${key}:${j}`)) jetty.classList.add("chosen");
    g.append(jetty);
  }
  const n = beach.capacity;
  const step = 11;
  const half = ((n - 1) * step) / 2 + 7;
  const frame = svg("rect", {
    x: bx - half,
    y: by - 8,
    width: 2 * half,
    height: 16,
    rx: 8,
    class: "beach-frame",
    transform: `rotate(${((angle * 180) / Math.PI + 90).toFixed(1)} ${bx} ${by})`,
  });
  g.append(frame);
  for (let k = 0; k < n; k++) {
    const off = (k - (n - 1) / 2) * step;
    const sx = bx + tx * off;
    const sy = by + ty * off;
    const colour = boats[k];
    g.append(svg("circle", { cx: sx, cy: sy, r: 5, class: colour ? `boat colour-${colour}` : "slot", "data-boat": colour || "" }));
    if (colour) {
      const letter = svg("text", { x: sx, y: sy + 2.5, class: "boat-letter" });
      letter.textContent = LETTER[colour];
      g.append(letter);
    }
  }
  const picks = chosen.get(`beach:${key}`) || 0;
  if (picks) {
    g.classList.add("chosen");
    const badge = svg("text", { x: bx + tx * (half + 6), y: by + ty * (half + 6) + 3, class: "pick-count" });
    badge.textContent = `+${picks}`;
    g.append(badge);
  }
  if (targets.beaches.has(key)) {
    g.classList.add("target");
    focusable(g, `beach ${i} of ${t.tile}`, () => opts.onBeach && opts.onBeach(t.tile, i));
  }
  return g;
}
