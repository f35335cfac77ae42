// The archipelago as SVG, drawn from the tile data (docs/tiles.md geometry):
// flat-topped hexes, axial (q, r); world direction d (0 = S, clockwise) points at
// angle 90° + 60°·d on screen; a tile with rotation r turns local edge k to (k + r) mod 6.
//
// A Board keeps its view (zoom and pan) across redraws: the frame only grows, and
// until the player zooms or pans it follows the archipelago, never shrinking the
// pieces below a legible size (then it centres on where the action is). Targets
// are circles on a layer of their own, laid out so that no two overlap.

import { BY_LETTER, LETTER, colourName } from "./api.js";
import { _, list, ngettext, number } from "./i18n.js";

const S = 70; // hex radius, in board units
const SQ3 = Math.sqrt(3);
const NS = "http://www.w3.org/2000/svg";
const MIN_SCALE = 1.25; // screen px per board unit the view never goes below by itself
const MIN_SCALE_NARROW = 1.55; // on a phone-sized board, where fingers and letters are bigger
const minScale = (width) => (width < 600 ? MIN_SCALE_NARROW : MIN_SCALE);
// who plays each colour (the boats' tooltips say whose they are)
let OWNERS = {};
const MAX_SCALE = 4;
// where things sit on an island tile (multiples of S) and how big their hit areas are
// Tonga's six beaches sit further out, its land smaller: they fit without touching
const LAND = { tonga: 0.3, other: 0.36 };
const BEACH_RING = { tonga: 0.55, other: 0.46 };
const JETTY_RING = { tonga: 0.78, other: 0.72 };
const ring = (table, tile) => (tile === "tonga" ? table.tonga : table.other);
const HIT = { island: 16, beach: { tonga: 8, other: 10 }, jetty: { tonga: 7, other: 8 }, cell: 0.6 * S };
const SLOT_R = 4.5;
const SLOT_STEP = 10;
const DANGER_RING = 0.74;

export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c) node.append(c);
  return node;
}

function title(text) {
  const t = svg("title");
  t.textContent = text;
  return t;
}

export function centre(q, r) {
  return [S * 1.5 * q, S * SQ3 * (r + q / 2)];
}

const STEPS = [[0, 1], [-1, 1], [-1, 0], [0, -1], [1, -1], [1, 0]];

function neighbours(q, r) {
  return STEPS.map(([dq, dr]) => [q + dq, r + dr]);
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

// where things face, in words (as projections/describe.py says it on the server)
export const DIRECTION = [_("south"), _("south-west"), _("north-west"), _("north"), _("north-east"), _("south-east")];
const COMPASS = [_("east"), _("south-east"), _("south"), _("south-west"), _("west"), _("north-west"), _("north"), _("north-east")];

function facing(jetties, rotation) {
  let x = 0;
  let y = 0;
  for (const j of jetties) {
    const a = ((90 + 60 * ((j + rotation) % 6)) * Math.PI) / 180;
    x += Math.cos(a);
    y += Math.sin(a);
  }
  const deg = (Math.atan2(y, x) * 180) / Math.PI;
  return COMPASS[(((Math.round(deg / 45) % 8) + 8) % 8)];
}

/** "the north-west beach" (numbered too when two beaches of the island face alike). */
export function beachWords(data, i, rotation) {
  const all = data.beaches.map((b) => facing(b.jetties, rotation));
  if (!all[i]) return _("beach {number}", { number: i + 1 });
  return all.filter((f) => f === all[i]).length > 1 ? _("the {direction} beach ({number})", { direction: all[i], number: i + 1 }) : _("the {direction} beach", { direction: all[i] });
}

/** The tile across world direction ``d`` from cell ``key``, if one is placed. */
export function tileToward(position, key, d) {
  const [q, r] = cellOf(key);
  const [dq, dr] = STEPS[d];
  const there = `${q + dq},${r + dr}`;
  return position.tiles.find(([k]) => k === there)?.[1] || null;
}

export function parseBeaches(text) {
  return text.split("|").map((b) => [...b].map((l) => BY_LETTER[l]));
}

const key = (q, r) => `${q},${r}`;
const cellOf = (k) => k.split(",").map(Number);

function focusable(node, label, onActivate) {
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.setAttribute("aria-label", label);
  node.addEventListener("click", (event) => {
    event.stopPropagation();
    onActivate(event);
  });
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      onActivate(event);
    }
  });
}

// --- pieces ---------------------------------------------------------------------

function beachPlace(t, beach, world) {
  let vx = 0;
  let vy = 0;
  for (const j of beach.jetties) {
    const [px, py] = towards(0, 0, world(j), 1);
    vx += px;
    vy += py;
  }
  const angle = Math.atan2(vy, vx);
  const radius = ring(BEACH_RING, t.tile) * S;
  const [x, y] = centre(t.q, t.r);
  return { x: x + radius * Math.cos(angle), y: y + radius * Math.sin(angle), angle };
}

function boatDot(x, y, colour, r = SLOT_R) {
  const g = svg("g", { class: "boat-piece" });
  const words = OWNERS[colour] ? _("{colour} boat ({owner})", { colour: colourName(colour), owner: OWNERS[colour] }) : _("{colour} boat", { colour: colourName(colour) });
  g.append(svg("circle", { cx: x, cy: y, r, class: `boat colour-${colour}`, "data-boat": colour }, title(words)));
  const letter = svg("text", { x, y: y + r * 0.55, class: `boat-letter on-${colour}`, "font-size": r * 1.6 });
  letter.textContent = LETTER[colour];
  g.append(letter);
  return g;
}

/** One tile: hex, foam paths with danger numbers at both ends, or an island with its
 * beaches, slots, boats, jetties and king. */
export function drawTile(t, data, position = { boats: {}, kings: {} }, extra = {}) {
  const [x, y] = centre(t.q, t.r);
  const name = data.name;
  const g = svg("g", {
    class: `tile ${data.kind}${extra.removed ? " removed" : ""}${extra.className ? ` ${extra.className}` : ""}`,
    "data-tile": t.tile,
    "data-cell": t.key,
    "data-rotation": t.rotation,
  });
  g.append(svg("polygon", { points: hexPoints(x, y), class: "hex" }, title(data.kind === "ocean" ? name : ngettext("{name}: {n} point", "{name}: {n} points", data.value, { name }))));
  const world = (k) => (k + t.rotation) % 6;
  if (data.kind === "ocean") {
    for (const p of data.paths) {
      const [ax, ay] = towards(x, y, world(p.a), (S * SQ3) / 2);
      const [bx, by] = towards(x, y, world(p.b), (S * SQ3) / 2);
      const cx = x + ((ax + bx) / 2 - x) * 0.35;
      const cy = y + ((ay + by) / 2 - y) * 0.35;
      const words = p.danger ? ngettext("a path of danger {n}: a fleet needs {n} colour", "a path of danger {n}: a fleet needs {n} colours", p.danger) : _("a path anyone passes");
      g.append(svg("path", { d: `M${ax},${ay} Q${cx},${cy} ${bx},${by}`, class: `foam danger${p.danger}`, "data-edges": `${p.a}-${p.b}` }, title(words)));
      if (p.danger > 0) {
        for (const edge of [p.a, p.b]) {
          const [lx, ly] = towards(x, y, world(edge), DANGER_RING * S);
          g.append(svg("circle", { cx: lx, cy: ly, r: 7, class: "danger-badge" }));
          const label = svg("text", { x: lx, y: ly + 3.6, class: "danger-number" });
          label.textContent = number(p.danger);
          g.append(label);
        }
      }
    }
  } else {
    const royal = position.kings?.[t.tile];
    g.append(svg("circle", { cx: x, cy: y, r: S * ring(LAND, t.tile), class: `land${royal ? " royal" : ""}`, "data-island": t.tile }, royal ? title(_("{island}: a royal island ({colour} king)", { island: data.name, colour: colourName(royal) })) : null));
    const label = svg("text", { x, y: y - 3, class: "island-name" });
    label.textContent = data.name;
    const value = svg("text", { x, y: y + 10, class: "island-value" });
    value.textContent = t.tile === "tonga" ? _("start") : ngettext("{n} pt", "{n} pts", data.value);
    g.append(label, value);
    const boats = position.boats?.[t.tile] ? parseBeaches(position.boats[t.tile]) : data.beaches.map(() => []);
    data.beaches.forEach((beach, i) => g.append(drawBeach(t, beach, i, boats[i] || [], world, data.name)));
    const king = position.kings?.[t.tile];
    if (king) {
      const crown = svg("text", { x, y: y + 22, class: `king colour-text-${king}` }, title(_("{colour} king: a royal island", { colour: colourName(king) })));
      crown.textContent = `♛${LETTER[king]}`;
      g.append(crown);
    }
  }
  if (t.tile !== "tonga") {
    // on edge 0, beside the middle (where a path ends and its danger number stands)
    const [ex, ey] = towards(x, y, world(0), (S * SQ3) / 2 - 4);
    const [dx, dy] = towards(0, 0, world(0) + 1.5, 16);
    g.append(svg("circle", { cx: ex + dx, cy: ey + dy, r: 3.5, class: "red-mark" }, title(_("red mark (edge 0)"))));
  }
  return g;
}

function drawBeach(t, beach, i, boats, world, islandName) {
  const place = beachPlace(t, beach, world);
  const { x: bx, y: by, angle } = place;
  const tx = -Math.sin(angle);
  const ty = Math.cos(angle);
  const g = svg("g", { class: "beach", "data-beach": `${t.tile}:${i}` });
  const [cx, cy] = centre(t.q, t.r);
  for (const j of beach.jetties) {
    const [jx, jy] = towards(cx, cy, world(j), ring(JETTY_RING, t.tile) * S);
    g.append(svg("line", { x1: bx, y1: by, x2: jx, y2: jy, class: "jetty-line" }));
    g.append(svg("circle", { cx: jx, cy: jy, r: 4, class: "jetty", "data-jetty": `${t.tile}:${i}:${j}` }));
  }
  const n = beach.capacity;
  const half = ((n - 1) * SLOT_STEP) / 2 + 6.5;
  g.append(
    svg(
      "rect",
      {
        x: bx - half,
        y: by - 6.5,
        width: 2 * half,
        height: 13,
        rx: 6.5,
        class: "beach-frame",
        transform: `rotate(${((angle * 180) / Math.PI + 90).toFixed(1)} ${bx} ${by})`,
      },
      title(ngettext("{island}, beach {number}: {taken} of {n} slot taken", "{island}, beach {number}: {taken} of {n} slots taken", n, { island: islandName, number: i, taken: number(boats.length) })),
    ),
  );
  slotPlaces(place, n).forEach(([sx, sy], k) => {
    if (boats[k]) g.append(boatDot(sx, sy, boats[k]));
    else g.append(svg("circle", { cx: sx, cy: sy, r: SLOT_R, class: "slot" }));
  });
  return g;
}

/** The centres of a beach's ``n`` slots, along the beach. */
function slotPlaces({ x, y, angle }, n) {
  const tx = -Math.sin(angle);
  const ty = Math.cos(angle);
  return Array.from({ length: n }, (_, k) => {
    const off = (k - (n - 1) / 2) * SLOT_STEP;
    return [x + tx * off, y + ty * off];
  });
}

// --- the board ------------------------------------------------------------------

function targetKey(node) {
  const d = node.dataset || {};
  const kind = [...(node.classList || [])].find((c) => c.endsWith("-target"));
  const what = d.jetty || d.beach || d.cell || d.island;
  return kind && what ? `${kind}|${what}` : null;
}

export class Board {
  /** ``handlers``: onBeach(island, i), onJetty(island, i, j), onCell(key), onIsland(island). */
  constructor(host, tileData, handlers = {}) {
    this.host = host;
    this.tiles = tileData.tiles;
    this.handlers = handlers;
    this.bounds = null; // grows, never shrinks: a stable frame
    this.view = null;
    this.auto = true; // follows the archipelago until the player zooms or pans
    this.focus = null;
    this.root = svg("svg", { class: "board", role: "group", "aria-label": _("The archipelago"), preserveAspectRatio: "xMidYMid meet" });
    this.layers = {
      tiles: svg("g", { class: "layer-tiles" }),
      overlay: svg("g", { class: "layer-overlay" }),
      targets: svg("g", { class: "layer-targets" }),
    };
    this.root.append(this.layers.tiles, this.layers.overlay, this.layers.targets);
    this.controls = this.makeControls();
    host.replaceChildren(this.root, this.controls);
    this.listen();
    new ResizeObserver(() => this.follow(false)).observe(host);
  }

  makeControls() {
    const button = (label, text, action) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "zoom";
      b.setAttribute("aria-label", label);
      b.textContent = text;
      b.addEventListener("click", action);
      return b;
    };
    const box = document.createElement("div");
    box.className = "zoom-controls";
    box.append(
      button(_("Zoom in"), "+", () => this.zoomBy(1.35)),
      button(_("Zoom out"), "−", () => this.zoomBy(1 / 1.35)),
      button(_("Show the whole archipelago"), "⤢", () => this.fitAll()),
    );
    return box;
  }

  /** Draw ``position`` (domain.position.dump) with the player's targets and marks.
   * opts: {targets: {beaches, jetties, cells, islands} Sets, chosen: Map, ghost:
   * {tile, cell, rotation}, overlay: {route, fleet, fleetCell, failed, lost, home},
   * extent: cell keys the frame must hold (replay), focus: a cell key} */
  render(position, opts = {}) {
    this.position = position;
    if (opts.owners) OWNERS = opts.owners;
    const targets = opts.targets || {};
    const chosen = opts.chosen || new Map();
    const placed = position.tiles.map(([k, tile, rotation]) => {
      const [q, r] = cellOf(k);
      return { key: k, tile, rotation, q, r };
    });
    const removed = new Set(position.removed || []);
    // keyboard focus survives the redraw: the same target, if it is still one
    const focused = this.layers.targets.contains(document.activeElement) ? targetKey(document.activeElement) : null;
    this.layers.tiles.replaceChildren(...placed.map((t) => drawTile(t, this.tiles[t.tile], position, { removed: removed.has(t.tile) })));
    this.layers.overlay.replaceChildren();
    this.layers.targets.replaceChildren();
    if (opts.ghost && opts.ghost.cell) this.drawGhost(opts.ghost);
    if (opts.overlay) this.drawOverlay(opts.overlay, placed);
    if (opts.planned) this.drawPlanned(opts.planned, placed, position);
    this.drawTargets(placed, targets, chosen);
    if (focused) {
      const again = [...this.layers.targets.querySelectorAll(".target")].find((t) => targetKey(t) === focused);
      if (again) again.focus();
    }
    // the frame: every tile, one ring of cells around (where a tile may come), targets
    const cells = [];
    for (const t of placed) cells.push([t.q, t.r], ...neighbours(t.q, t.r));
    for (const k of [...(targets.cells || []), ...(opts.extent || [])]) cells.push(cellOf(k));
    this.grow(cells);
    this.tileCells = [...placed.map((t) => [t.q, t.r]), ...(opts.extent || []).map(cellOf), ...[...(targets.cells || [])].map(cellOf)];
    this.focus = opts.focus || position.voyage?.cell || (opts.ghost && opts.ghost.cell) || this.targetsCentre(placed, targets);
    // a decision's targets always in sight; a finished game, a replay, evidence: all of it
    const box = this.layers.targets.childElementCount ? this.layers.targets.getBBox() : null;
    this.targetBox = box && box.width > 0 ? { x0: box.x, y0: box.y, x1: box.x + box.width, y1: box.y + box.height } : null;
    const asked = this.targetBox ? [...this.layers.targets.querySelectorAll(".target")].map(targetKey).join(" ") : "";
    this.newTargets = asked !== this.asked;
    this.asked = asked;
    this.whole = Boolean(opts.whole || position.phase === "ended") && !this.targetBox;
    this.follow(true);
  }

  /** Boats a player has planned (a landing being chosen), drawn faint in the free
   * slots of their beaches: ``planned`` maps "island:beach" to colours. */
  drawPlanned(planned, placed, position) {
    const by = new Map(placed.map((t) => [t.tile, t]));
    for (const [k, colours] of planned) {
      const [island, i] = k.split(":");
      const t = by.get(island);
      if (!t || !colours.length) continue;
      const data = this.tiles[island];
      const beach = data.beaches[Number(i)];
      const taken = (position.boats?.[island] ? parseBeaches(position.boats[island])[Number(i)] : null)?.length || 0;
      const place = beachPlace(t, beach, (e) => (e + t.rotation) % 6);
      const free = slotPlaces(place, beach.capacity).slice(taken);
      colours.forEach((colour, n) => {
        if (!free[n]) return;
        const dot = boatDot(free[n][0], free[n][1], colour);
        dot.classList.add("planned");
        dot.dataset.planned = k;
        this.layers.overlay.append(dot);
      });
    }
  }

  /** "Tonga: sail north towards Fidschi" or "…into unexplored sea": a jetty, what lies past it. */
  jettyWords(t, d) {
    const next = tileToward(this.position, t.key, d);
    const values = { island: this.tiles[t.tile].name, direction: DIRECTION[d] };
    return next ? _("{island}: sail {direction} towards {next}", { ...values, next: this.tiles[next].name }) : _("{island}: sail {direction} into unexplored sea", values);
  }

  /** Where the player's targets are (the middle of their cells), if any. */
  targetsCentre(placed, targets) {
    const by = new Map(placed.map((t) => [t.tile, t.key]));
    const cells = [
      ...[...(targets.beaches || []), ...(targets.jetties || []), ...(targets.islands || [])].map((k) => by.get(k.split(":")[0])),
      ...(targets.cells || []),
    ].filter(Boolean);
    if (!cells.length) return null;
    const pts = cells.map((k) => centre(...cellOf(k)));
    const x = pts.reduce((a, p) => a + p[0], 0) / pts.length;
    const y = pts.reduce((a, p) => a + p[1], 0) / pts.length;
    return { x, y };
  }

  drawGhost({ tile, cell, rotation }) {
    const [q, r] = cellOf(cell);
    const g = drawTile({ key: cell, tile, rotation, q, r }, this.tiles[tile], { boats: {}, kings: {} }, { className: "ghost" });
    g.setAttribute("aria-label", this.tiles[tile].name ? _("{tile} here, turned {rotation}", { tile: this.tiles[tile].name, rotation: number(rotation) }) : _("The drawn tile here, turned {rotation}", { rotation: number(rotation) }));
    this.layers.overlay.append(g);
  }

  drawOverlay(o, placed) {
    const layer = this.layers.overlay;
    if (o.route && o.route.length > 1) {
      const pts = o.route.map((k) => centre(...cellOf(k)).map((v) => v.toFixed(1)).join(",")).join(" ");
      layer.append(svg("polyline", { points: pts, class: `route${o.back ? " back" : ""}` }));
    }
    if (o.failed) {
      const [x, y] = centre(...cellOf(o.failed.cell));
      const [ax, ay] = towards(x, y, o.failed.entry, (S * SQ3) / 2);
      const [bx, by] = towards(x, y, o.failed.exit, (S * SQ3) / 2);
      layer.append(
        svg("path", { d: `M${ax},${ay} Q${x},${y} ${bx},${by}`, class: "failed-path" }, title(_("the fleet could not pass: danger {danger}", { danger: number(o.failed.danger) }))),
        svg("text", { x, y: y + 8, class: "failed-mark" }, title(_("expedition failed"))),
      );
      layer.lastChild.textContent = "✕";
    }
    if (o.lost) {
      const [x, y] = centre(...cellOf(o.lost));
      layer.append(svg("polygon", { points: hexPoints(x, y, S - 8), class: "lost" }, title(_("lost at sea: out of the game"))));
    }
    if (o.fleet && o.fleetCell) {
      const [x, y] = centre(...cellOf(o.fleetCell));
      const g = svg("g", { class: "fleet", "data-cell": o.fleetCell, "data-fleet": o.fleet.join(",") }, title(_("fleet: {colours}", { colours: list(o.fleet.map(colourName)) })));
      const n = o.fleet.length;
      const island = this.layers.tiles.querySelector(`.tile.island[data-cell="${o.fleetCell}"]`);
      if (island) {
        // on an island the name and value move up and the fleet sits below them, in rows
        // of three: both stay readable
        island.querySelector(".island-name")?.setAttribute("y", y - 9);
        island.querySelector(".island-value")?.setAttribute("y", y + 2);
        o.fleet.forEach((colour, i) => {
          const row = Math.floor(i / 3);
          const inRow = Math.min(3, n - row * 3);
          g.append(boatDot(x + ((i % 3) - (inRow - 1) / 2) * 11, y + 11 + row * 11, colour, 5));
        });
      } else {
        o.fleet.forEach((colour, i) => {
          const a = (2 * Math.PI * i) / n - Math.PI / 2;
          const ring = n > 1 ? 13 : 0;
          g.append(boatDot(x + ring * Math.cos(a), y + ring * Math.sin(a), colour, 6));
        });
      }
      layer.append(g);
    }
    if (o.home && o.home.island) {
      const t = placed.find((p) => p.tile === o.home.island);
      if (t) {
        const [x, y] = centre(t.q, t.r);
        const label = svg("text", { x, y: y - S * 0.62, class: "home-mark" }, title(_("boats going home to their supplies")));
        label.textContent = ngettext("↩ {n} home", "↩ {n} home", o.home.count);
        layer.append(label);
      }
    }
  }

  drawTargets(placed, targets, chosen) {
    const layer = this.layers.targets;
    const hit = (x, y, r, kind, attrs, label, action, picked = false, outline = null) => {
      const g = svg("g", { class: `target ${kind}-target${picked ? " chosen" : ""}`, ...attrs });
      g.append(svg("circle", { cx: x, cy: y, r, class: "hit-area", "data-hit-r": r }));
      if (outline) g.append(...outline);  // drawn around what it marks, never over it
      else g.append(svg("circle", { cx: x, cy: y, r: r - 1.5, class: "target-ring" }));
      focusable(g, label, action);
      layer.append(g);
      return g;
    };
    // a frame around a whole beach (its slots stay visible inside), as two rounded rects
    const around = (place, n) => {
      const half = ((n - 1) * SLOT_STEP) / 2 + 10;
      const turn = `rotate(${((place.angle * 180) / Math.PI + 90).toFixed(1)} ${place.x} ${place.y})`;
      const box = (cls, grow) =>
        svg("rect", { x: place.x - half - grow, y: place.y - 10 - grow, width: 2 * (half + grow), height: 20 + 2 * grow, rx: 10 + grow, class: cls, transform: turn });
      return [box("target-edge", 0), box("target-ring", -1.5)];
    };
    const by = new Map(placed.map((t) => [t.tile, t]));
    for (const name of targets.islands || []) {
      const t = by.get(name);
      if (!t) continue;
      const [x, y] = centre(t.q, t.r);
      const land = S * ring(LAND, name) + 4;
      const outline = [svg("circle", { cx: x, cy: y, r: land, class: "target-edge" }), svg("circle", { cx: x, cy: y, r: land - 1.5, class: "target-ring" })];
      hit(x, y, HIT.island, "island", { "data-island": name }, _("{island}: found a royal island", { island: this.tiles[name].name }), () => this.handlers.onIsland?.(name), false, outline);
    }
    for (const k of targets.beaches || []) {
      const [island, i] = k.split(":");
      const t = by.get(island);
      if (!t) continue;
      const data = this.tiles[island];
      const place = beachPlace(t, data.beaches[Number(i)], (e) => (e + t.rotation) % 6);
      const r = island === "tonga" ? HIT.beach.tonga : HIT.beach.other;
      const picks = chosen.get(`beach:${k}`) || 0;
      const g = hit(place.x, place.y, r, "beach", { "data-beach": k }, _("{island}, {beach}", { island: data.name, beach: beachWords(data, Number(i), t.rotation) }), () => this.handlers.onBeach?.(island, Number(i)), picks > 0, around(place, data.beaches[Number(i)].capacity));
      if (picks) {
        const badge = svg("text", { x: place.x, y: place.y - r - 6, class: "pick-count" });
        badge.textContent = `+${number(picks)}`;
        g.append(badge);
      }
    }
    for (const k of targets.jetties || []) {
      const [island, i, j] = k.split(":");
      const t = by.get(island);
      if (!t) continue;
      const [cx, cy] = centre(t.q, t.r);
      const [x, y] = towards(cx, cy, (Number(j) + t.rotation) % 6, ring(JETTY_RING, island) * S);
      const r = island === "tonga" ? HIT.jetty.tonga : HIT.jetty.other;
      hit(x, y, r, "jetty", { "data-jetty": k }, this.jettyWords(t, (Number(j) + t.rotation) % 6), () => this.handlers.onJetty?.(island, Number(i), Number(j)), chosen.get(`jetty:${k}`) > 0);
    }
    for (const k of targets.cells || []) {
      const [x, y] = centre(...cellOf(k));
      this.layers.targets.append(svg("polygon", { points: hexPoints(x, y, S - 4), class: "cell-outline" }));
      const g = hit(x, y, HIT.cell, "cell", { "data-cell": k }, _("place the tile at {cell}", { cell: k }), () => this.handlers.onCell?.(k), chosen.get(`cell:${k}`) > 0);
      g.addEventListener("pointerenter", () => this.handlers.onCellHover?.(k));
    }
  }

  // --- the view: zoom, pan, a frame that only grows ----------------------------

  grow(cells) {
    const xs = cells.map(([q, r]) => centre(q, r)[0]);
    const ys = cells.map(([q, r]) => centre(q, r)[1]);
    const pad = S * 1.05;
    const b = { x0: Math.min(...xs) - pad, y0: Math.min(...ys) - pad, x1: Math.max(...xs) + pad, y1: Math.max(...ys) + pad };
    this.bounds = this.bounds
      ? { x0: Math.min(this.bounds.x0, b.x0), y0: Math.min(this.bounds.y0, b.y0), x1: Math.max(this.bounds.x1, b.x1), y1: Math.max(this.bounds.y1, b.y1) }
      : b;
  }

  size() {
    const rect = this.root.getBoundingClientRect();
    return { w: Math.max(rect.width, 1), h: Math.max(rect.height, 1) };
  }

  /** The view the board takes by itself: all of it, unless that makes pieces too
   * small; then the legible size, centred on the action. */
  autoView() {
    const { w, h } = this.size();
    const b = this.bounds;
    const bw = b.x1 - b.x0;
    const bh = b.y1 - b.y0;
    let scale = Math.min(w / bw, h / bh, MAX_SCALE);
    let cx = (b.x0 + b.x1) / 2;
    let cy = (b.y0 + b.y1) / 2;
    if (scale < minScale(w) && !this.whole) {
      scale = minScale(w);
      const f = this.focus;
      const [fx, fy] = !f ? [0, 0] : typeof f === "string" ? centre(...cellOf(f)) : [f.x, f.y];
      const vw = w / scale;
      const vh = h / scale;
      cx = Math.min(Math.max(fx, b.x0 + vw / 2), b.x1 - vw / 2);
      cy = Math.min(Math.max(fy, b.y0 + vh / 2), b.y1 - vh / 2);
      if (vw > bw) cx = (b.x0 + b.x1) / 2;
      if (vh > bh) cy = (b.y0 + b.y1) / 2;
    }
    return this.contain({ x: cx - w / scale / 2, y: cy - h / scale / 2, w: w / scale, h: h / scale });
  }

  /** ``v`` moved as little as it takes (and zoomed out if it must) to hold every target,
   * clear of the board's edges and of the zoom buttons in its top right corner. */
  contain(v) {
    const box = this.targetBox;
    if (!box) return v;
    const { w, h } = this.size();
    const [edge, buttons] = [10, 56]; // screen px
    let scale = w / v.w;
    const fit = Math.min((w - edge - buttons) / Math.max(box.x1 - box.x0, 1), (h - 2 * edge) / Math.max(box.y1 - box.y0, 1));
    let [cx, cy] = [v.x + v.w / 2, v.y + v.h / 2];
    if (fit < scale) {
      scale = fit;
      [cx, cy] = [(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2];
    }
    const [vw, vh] = [w / scale, h / scale];
    const clamp = (n, lo, hi) => Math.min(Math.max(n, lo), hi);
    const x = clamp(cx - vw / 2, box.x1 + buttons / scale - vw, box.x0 - edge / scale);
    const y = clamp(cy - vh / 2, box.y1 + edge / scale - vh, box.y0 - edge / scale);
    return { x, y, w: vw, h: vh };
  }

  follow(animate) {
    if (!this.bounds) return;
    if (this.auto || !this.view) return this.setView(this.autoView(), animate && this.view !== null);
    // zoomed or panned by hand: keep the scale, but when the action moves somewhere
    // off screen (a fleet lands far away, a colonist's island), slide over to it
    const v = this.keepAspect(this.view);
    const f = this.focus && (typeof this.focus === "string" ? centre(...cellOf(this.focus)) : [this.focus.x, this.focus.y]);
    const key = f ? f.map((n) => n.toFixed(0)).join(",") : null;
    const moved = key !== this.lastFocus;
    this.lastFocus = key;
    const margin = S * 0.5;
    const away = f && (f[0] < v.x + margin || f[0] > v.x + v.w - margin || f[1] < v.y + margin || f[1] > v.y + v.h - margin);
    // a new decision brings its targets into sight, whatever the player did with the view
    const asked = this.newTargets;
    this.newTargets = false;
    if (moved && away) this.setView(this.contain({ ...v, x: f[0] - v.w / 2, y: f[1] - v.h / 2 }), animate);
    else if (asked) this.setView(this.contain(v), animate);
    else this.setView(v, false);
  }

  keepAspect(v) {
    const { w, h } = this.size();
    const scale = w / v.w;
    return { x: v.x + v.w / 2 - w / scale / 2, y: v.y + v.h / 2 - h / scale / 2, w: w / scale, h: h / scale };
  }

  setView(target, animate) {
    cancelAnimationFrame(this.tween);
    const apply = (v) => {
      // a board not laid out yet (hidden, no size: a game nobody sits at) has no view
      if (![v.x, v.y, v.w, v.h].every(Number.isFinite) || v.w <= 0 || v.h <= 0) return;
      this.view = v;
      this.root.setAttribute("viewBox", `${v.x.toFixed(1)} ${v.y.toFixed(1)} ${v.w.toFixed(1)} ${v.h.toFixed(1)}`);
      this.root.dataset.scale = (this.size().w / v.w).toFixed(3);
    };
    const from = this.view;
    delete this.root.dataset.moving; // set while the view slides (tests wait for it to settle)
    if (!animate || !from || matchMedia("(prefers-reduced-motion: reduce)").matches) return apply(target);
    const start = performance.now();
    const step = (now) => {
      const k = Math.min(1, (now - start) / 250);
      const e = k * (2 - k);
      apply({ x: from.x + (target.x - from.x) * e, y: from.y + (target.y - from.y) * e, w: from.w + (target.w - from.w) * e, h: from.h + (target.h - from.h) * e });
      if (k < 1) this.tween = requestAnimationFrame(step);
      else delete this.root.dataset.moving;
    };
    this.root.dataset.moving = "1";
    this.tween = requestAnimationFrame(step);
  }

  zoomBy(factor, at) {
    const v = this.view;
    if (!v) return;
    const { w } = this.size();
    const scale = Math.min(Math.max((w / v.w) * factor, 0.2), MAX_SCALE * 2);
    const [px, py] = at || [v.x + v.w / 2, v.y + v.h / 2];
    const nw = w / scale;
    const nh = (v.h * nw) / v.w;
    this.auto = false;
    this.setView({ x: px - ((px - v.x) * nw) / v.w, y: py - ((py - v.y) * nh) / v.h, w: nw, h: nh }, false);
  }

  fitAll() {
    const { w, h } = this.size();
    // the tiles themselves (not the ring of empty cells around them), a little margin
    const cells = this.tileCells?.length ? this.tileCells : [[0, 0]];
    const xs = cells.map(([q, r]) => centre(q, r)[0]);
    const ys = cells.map(([q, r]) => centre(q, r)[1]);
    const b = { x0: Math.min(...xs) - S * 1.02, y0: Math.min(...ys) - S * 0.95, x1: Math.max(...xs) + S * 1.02, y1: Math.max(...ys) + S * 0.95 };
    const scale = Math.min(w / (b.x1 - b.x0), h / (b.y1 - b.y0));
    const cx = (b.x0 + b.x1) / 2;
    const cy = (b.y0 + b.y1) / 2;
    this.auto = false;
    this.setView({ x: cx - w / scale / 2, y: cy - h / scale / 2, w: w / scale, h: h / scale }, true);
  }

  toBoard(clientX, clientY) {
    const rect = this.root.getBoundingClientRect();
    const v = this.view;
    const scale = Math.min(rect.width / v.w, rect.height / v.h);
    const ox = rect.left + (rect.width - v.w * scale) / 2;
    const oy = rect.top + (rect.height - v.h * scale) / 2;
    return [v.x + (clientX - ox) / scale, v.y + (clientY - oy) / scale];
  }

  listen() {
    const pointers = new Map();
    let moved = false;
    let pinch = null;
    this.root.addEventListener("wheel", (e) => {
      e.preventDefault();
      this.zoomBy(e.deltaY < 0 ? 1.15 : 1 / 1.15, this.toBoard(e.clientX, e.clientY));
    }, { passive: false });
    this.root.addEventListener("pointerdown", (e) => {
      pointers.set(e.pointerId, [e.clientX, e.clientY]);
      moved = false;
      if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        pinch = Math.hypot(a[0] - b[0], a[1] - b[1]);
      }
    });
    this.root.addEventListener("pointermove", (e) => {
      const last = pointers.get(e.pointerId);
      if (!last || !this.view) return;
      const dx = e.clientX - last[0];
      const dy = e.clientY - last[1];
      if (!moved && Math.hypot(dx, dy) < 5) return;
      if (!moved) this.root.setPointerCapture(e.pointerId);
      moved = true;
      pointers.set(e.pointerId, [e.clientX, e.clientY]);
      if (pointers.size === 2 && pinch) {
        const [a, b] = [...pointers.values()];
        const d = Math.hypot(a[0] - b[0], a[1] - b[1]);
        this.zoomBy(d / pinch, this.toBoard((a[0] + b[0]) / 2, (a[1] + b[1]) / 2));
        pinch = d;
        return;
      }
      const scale = this.size().w / this.view.w;
      this.auto = false;
      this.setView({ ...this.view, x: this.view.x - dx / scale, y: this.view.y - dy / scale }, false);
    });
    const up = (e) => {
      pointers.delete(e.pointerId);
      if (pointers.size < 2) pinch = null;
    };
    this.root.addEventListener("pointerup", up);
    this.root.addEventListener("pointercancel", up);
    // a drag is not a click on whatever it ended over
    this.root.addEventListener("click", (e) => {
      if (moved) {
        e.stopPropagation();
        e.preventDefault();
        moved = false;
      }
    }, true);
  }
}

/** A drawn tile on its own (the preview beside the decision), turned ``rotation``. */
export function tilePreview(tileData, tile, rotation) {
  const root = svg("svg", { class: "tile-preview", viewBox: `${-S - 4} ${-S - 4} ${2 * S + 8} ${2 * S + 8}`, role: "img" });
  root.setAttribute("aria-label", tileData.tiles[tile].name ? _("{tile}, turned {rotation}", { tile: tileData.tiles[tile].name, rotation: number(rotation) }) : _("ocean tile, turned {rotation}", { rotation: number(rotation) }));
  root.append(drawTile({ key: "0,0", tile, rotation, q: 0, r: 0 }, tileData.tiles[tile]));
  return root;
}

/** What a step shows happening, from its event and the position after it: the fleet
 * where it is and the way it came, a path it failed on, a fleet lost at sea, boats
 * going home. */
export function overlayFor(event, position) {
  if (!event) return null;
  const d = event.data;
  const voyage = position.voyage;
  const rotationAt = (cell) => position.tiles.find((t) => t[0] === cell)?.[2] ?? 0;
  const cellKey = (c) => (Array.isArray(c) ? `${c[0]},${c[1]}` : c);
  const islandCell = (island) => position.tiles.find((t) => t[1] === island)?.[0];
  switch (event.type) {
    case "EmigrationStarted":
    case "FleetSailed":
    case "TilePlaced":
      if (!voyage) return null;
      return { fleet: voyage.fleet, fleetCell: voyage.cell, route: [...voyage.route, voyage.cell] };
    case "ExpeditionFailed": {
      const cell = cellKey(d.cell);
      const r = rotationAt(cell);
      return { fleet: d.fleet, fleetCell: cell, failed: { cell, entry: (d.entry_edge + r) % 6, exit: (d.exit_edge + r) % 6, danger: d.danger } };
    }
    case "FleetReachedIsland":
      return { fleet: d.fleet, fleetCell: cellKey(d.cell) };
    case "FleetTurnedBack":
      return { fleet: d.fleet, fleetCell: cellKey(d.cell), route: [...d.route.map(cellKey)].reverse(), back: true };
    case "FleetLostAtSea":
      return { fleet: d.fleet, fleetCell: cellKey(d.cell), lost: cellKey(d.cell) };
    case "BoatsLanded":
      return d.returned && d.returned.length ? { home: { island: d.island, count: d.returned.length }, fleetCell: islandCell(d.island) } : null;
    default:
      return null;
  }
}
