// The game page: the board, the scoreboard, whose turn, and the active player's
// choices, offered only from /legal and made by pointing at the board.

import { api, cap, el, LETTER, me, nav, newId, problemText, toast } from "./api.js";
import { drawBoard } from "./board.js";
import { follow } from "./live.js";

const gameId = document.body.dataset.game;
// how long each step of a chain reaction stays on screen (a preference kept in the browser)
const STEP_MS = Number(localStorage.getItem("tongiaki.stepMs") || 450);

const view = {
  tiles: null,
  version: 0,
  position: null,
  legal: null,
  selection: [],
  landColour: null,
  queue: [],
  animating: false,
  sending: false,
};

// --- commands as sets of board tokens -------------------------------------------

export function tokens(c) {
  switch (c.type) {
    case "PlaceStartingBoat":
      return [`beach:tonga:${c.beach}`];
    case "Expand":
      return [
        ...c.beaches.map((b) => `beach:${c.island}:${b}`),
        ...(c.take_from ? [`take:${c.take_from[0]}:${c.take_from[1]}`] : []),
      ];
    case "PlaceBoats":
      return c.beaches.map((b) => `beach:${c.island}:${b}`);
    case "Emigrate":
      return [`beach:${c.island}:${c.beach}`, `jetty:${c.island}:${c.beach}:${c.jetty}`];
    case "Land":
      return c.beaches.flatMap((colours, i) => colours.map((colour) => `land:${c.island}:${i}:${colour}`));
    case "PlaceTile":
      return [`cell:${c.cell[0]},${c.cell[1]}`, `rot:${c.rotation}`];
    case "FoundRoyalIsland":
      return [`royal:${c.island}`];
    case "NewColonisation":
      return ["newcol"];
    case "PlaceColonist":
      return [`beach:${c.island}:${c.beach}`];
    default:
      return [`other:${JSON.stringify(c)}`];
  }
}

function counts(list) {
  const m = new Map();
  for (const t of list) m.set(t, (m.get(t) || 0) + 1);
  return m;
}

function contains(big, small) {
  for (const [t, n] of small) if ((big.get(t) || 0) < n) return false;
  return true;
}

function same(a, b) {
  return a.size === b.size && contains(a, b) && contains(b, a);
}

export function choices(commands, selection) {
  const chosen = counts(selection);
  const compatible = commands.filter((c) => contains(counts(tokens(c)), chosen));
  const next = new Set();
  for (const c of compatible) {
    const left = counts(tokens(c));
    for (const [t, n] of chosen) left.set(t, left.get(t) - n);
    for (const [t, n] of left) if (n > 0) next.add(t);
  }
  const exact = compatible.filter((c) => same(counts(tokens(c)), chosen));
  return { compatible, next, exact, chosen };
}

// --- rendering ------------------------------------------------------------------

function colourChip(colour, text) {
  return el("span", { class: `chip colour-${colour}` }, el("b", {}, LETTER[colour]), ` ${text ?? cap(colour)}`);
}

function scoreboardPanel(board) {
  if (!board) return el("p", { class: "muted" }, "Scoreboard catching up…");
  const rows = board.seats.map((s) =>
    el(
      "tr",
      {},
      el("td", {}, ...s.colours.map((c) => colourChip(c.colour))),
      el("td", { class: "num" }, s.points),
      el("td", {}, s.colours.map((c) => c.islands.join(", ")).join(" / ") || "—"),
      el("td", { class: "num" }, s.colours.map((c) => c.on_board).join("/")),
      el("td", { class: "num" }, s.colours.map((c) => c.in_supply).join("/")),
      el("td", { class: "num" }, s.colours.map((c) => c.kings).join("/")),
      el("td", { class: "num" }, s.rank),
    ),
  );
  const final = board.final
    ? el("p", { class: "final" }, `Game over (${board.final.reason}); tie-break: ${board.final.tie_break}`)
    : null;
  return el(
    "div",
    {},
    el(
      "table",
      { class: "scores", "aria-label": "Scoreboard" },
      el("thead", {}, el("tr", {}, ...["Seat", "Points", "Islands", "Boats", "Supply", "Kings", "Rank"].map((h) => el("th", {}, h)))),
      el("tbody", {}, rows),
    ),
    final,
  );
}

function decisionText(legal, position) {
  if (position.phase === "ended") return "The game is over.";
  if (!legal || !legal.decision) return position.phase === "open" ? "Waiting for players to join and start." : "No move is awaited.";
  const who = legal.player_id === me()?.account_id ? "Your" : `${cap(legal.colour)}'s`;
  const what = {
    setup_placement: "place a starting boat on Tonga",
    turn_start: "expand or emigrate",
    choose_emigration: "choose a beach and a jetty to emigrate from",
    landing: "distribute the landing fleet (the boats left out go home)",
    tile_placement: "place the drawn tile (cell and rotation)",
    colonist_placement: "place the colonist",
  }[legal.decision] || legal.decision;
  return `${who} move: ${what}.`;
}

function panelButtons(next, myMove) {
  const buttons = [];
  if (!myMove) return buttons;
  for (const t of [...next].sort()) {
    const [kind, a, b] = t.split(":");
    let label = null;
    if (kind === "rot") label = `Rotation ${a}`;
    else if (kind === "royal") label = `Found a royal island on ${a}`;
    else if (kind === "newcol") label = "Start a new colonisation";
    else if (kind === "take") label = `Take a boat from ${a}, beach ${b}`;
    if (label) buttons.push(el("button", { type: "button", "data-token": t, onclick: () => pick(t) }, label));
  }
  return buttons;
}

function landingColours(next) {
  const colours = new Set();
  for (const t of next) if (t.startsWith("land:")) colours.add(t.split(":")[3]);
  return [...colours].sort();
}

function render(description) {
  const main = document.getElementById("main");
  const { position, legal } = view;
  const myMove = legal && legal.decision && legal.player_id === me()?.account_id;
  const commands = myMove ? legal.commands : [];
  const { next, exact, compatible, chosen } = choices(commands, view.selection);
  const landing = legal?.decision === "landing";
  const colours = landing ? landingColours(next) : [];
  if (landing && !colours.includes(view.landColour)) view.landColour = colours[0] || null;
  const targets = { beaches: new Set(), jetties: new Set(), cells: new Set(), islands: new Set() };
  for (const t of next) {
    const p = t.split(":");
    if (p[0] === "beach") targets.beaches.add(`${p[1]}:${p[2]}`);
    if (p[0] === "land" && p[3] === view.landColour) targets.beaches.add(`${p[1]}:${p[2]}`);
    if (p[0] === "jetty") targets.jetties.add(`${p[1]}:${p[2]}:${p[3]}`);
    if (p[0] === "cell") targets.cells.add(p[1]);
    if (p[0] === "royal") targets.islands.add(p[1]);
  }
  const marks = new Map();
  for (const [t, n] of chosen) {
    const p = t.split(":");
    if (p[0] === "beach" || p[0] === "land") marks.set(`beach:${p[1]}:${p[2]}`, (marks.get(`beach:${p[1]}:${p[2]}`) || 0) + n);
    else marks.set(t, n);
  }
  const boardHost = el("div", { class: "board-host" });
  drawBoard(boardHost, position, view.tiles, {
    targets,
    chosen: marks,
    voyageCell: position.voyage?.cell,
    onBeach: (island, i) => pick(landing ? `land:${island}:${i}:${view.landColour}` : `beach:${island}:${i}`),
    onJetty: (island, i, j) => pick(`jetty:${island}:${i}:${j}`),
    onCell: (key) => pick(`cell:${key}`),
    onIsland: (island) => pick(`royal:${island}`),
  });
  const controls = [];
  if (myMove) {
    if (landing) {
      const fleet = position.pending?.fleet || [];
      controls.push(el("p", {}, "Fleet: ", ...fleet.map((c) => colourChip(c, ""))));
      controls.push(
        el(
          "div",
          { class: "row", role: "group", "aria-label": "Colour to land" },
          ...colours.map((c) =>
            el("button", { type: "button", class: `chip-button colour-${c}`, "aria-pressed": String(c === view.landColour), onclick: () => { view.landColour = c; render(); } }, `${LETTER[c]} ${cap(c)}`),
          ),
        ),
      );
    }
    controls.push(el("div", { class: "row" }, ...panelButtons(next, myMove)));
    controls.push(
      el(
        "div",
        { class: "row" },
        el("button", { type: "button", id: "play", class: "primary", disabled: exact.length === 0 || view.sending, onclick: () => send(exact[0]) }, "Play"),
        el("button", { type: "button", id: "clear", disabled: view.selection.length === 0, onclick: () => { view.selection = []; render(); } }, "Clear"),
        el("span", { class: "muted" }, `${compatible.length} matching move(s)`),
      ),
    );
  }
  const pile = position.pile;
  main.replaceChildren(
    el(
      "section",
      { class: "game" },
      el(
        "div",
        { class: "board-col" },
        el("p", { id: "step", class: "step", "aria-live": "polite" }, description || ""),
        boardHost,
      ),
      el(
        "aside",
        { class: "side" },
        el("h2", {}, `Game ${gameId}`),
        el("p", { id: "decision", class: myMove ? "your-move" : "" }, decisionText(legal, position)),
        el("p", {}, `Version ${view.version} · turn ${position.turn} · pile: ${pile.islands} islands, ${pile.oceans} oceans left`),
        ...controls,
        el("div", { id: "scoreboard" }, scoreboardPanel(view.scoreboard)),
        el("p", {}, el("a", { href: `/games/${gameId}/replay?v=${view.version}` }, "Replay"), " · ", el("a", { href: `/games/${gameId}/audit` }, "Audit")),
      ),
    ),
  );
  document.body.dataset.version = String(view.version);
  if (myMove && exact.length === 1 && compatible.length === 1 && view.selection.length > 0 && !view.sending) {
    send(exact[0]);
  }
}

function pick(token) {
  view.selection = [...view.selection, token];
  render();
}

async function send(command) {
  view.sending = true;
  document.body.dataset.busy = "1";
  const r = await api("POST", `/games/${gameId}/commands`, command, { "Idempotency-Key": newId() });
  view.sending = false;
  view.selection = [];
  if (!r.ok) {
    toast(problemText(r.data), "error");
    document.body.dataset.rejected = r.data?.rule || r.data?.code || "rejected";
  }
  await refresh();
  delete document.body.dataset.busy;
}

// --- loading and following --------------------------------------------------------

/** Load the game; with ``jump`` show its latest version at once, otherwise play the
 * versions not shown yet one step at a time (nobody misses a step of a chain). */
async function refresh(jump = false) {
  const [state, legal, board] = await Promise.all([
    api("GET", `/games/${gameId}`),
    api("GET", `/games/${gameId}/legal`),
    api("GET", `/games/${gameId}/scoreboard`),
  ]);
  if (!state.ok) {
    document.getElementById("main").replaceChildren(el("p", { class: "error" }, problemText(state.data)));
    return;
  }
  if (state.data.version < view.version) return;
  if (!jump && state.data.version > view.version) {
    for (let v = view.version + 1; v <= state.data.version; v++) {
      if (!view.queue.includes(v)) view.queue.push(v);
    }
    view.queue.sort((a, b) => a - b);
    animate();
    return;
  }
  view.version = state.data.version;
  view.position = state.data.position;
  view.legal = legal.ok ? legal.data : null;
  if (view.legal && view.legal.version !== view.version) view.legal = null;
  view.scoreboard = board.ok ? board.data : view.scoreboard;
  render(view.lastStep);
}

async function animate() {
  if (view.animating) return;
  view.animating = true;
  while (view.queue.length) {
    const version = view.queue.shift();
    if (version <= view.version) continue;
    const [state, step] = await Promise.all([
      api("GET", `/games/${gameId}/state?at=${version}`),
      api("GET", `/games/${gameId}/timeline?after=${version - 1}&limit=1&min_version=${version}`),
    ]);
    if (!state.ok && (view.retries = (view.retries || 0) + 1) <= 5) {
      view.queue.unshift(version); // try again shortly rather than skip a step
      await new Promise((done) => setTimeout(done, 200));
      continue;
    }
    view.retries = 0;
    if (!state.ok) {
      toast(problemText(state.data), "error");
      continue;
    }
    view.version = version;
    view.position = state.data.position;
    view.legal = null;
    view.selection = [];
    view.lastStep = step.ok && step.data.steps[0] ? step.data.steps[0].description : "";
    render(view.lastStep);
    if (view.queue.length) await new Promise((done) => setTimeout(done, STEP_MS));
  }
  view.animating = false;
  await refresh();
}

async function main() {
  nav(gameId);
  const tiles = await api("GET", "/tiles");
  view.tiles = tiles.data;
  await refresh(true);
  if (!view.position) return;
  follow(gameId, view.version, (version) => {
    view.queue.push(version);
    animate();
  });
}

main();
