// The replay: a slider over every version, step back and forward, play and pause
// with a speed, jump to a turn, the move list beside the board (click a move to see
// the board after it); what each step does is drawn on the board (the fleet and its
// route, a failed path, boats going home). The URL keeps the version (?v=123).
// For a live game the slider and the list grow as events arrive.

import { api, el, nav, problemText, toast } from "./api.js";
import { Board, overlayFor } from "./board.js";
import { _, number } from "./i18n.js";
import { follow } from "./live.js";
import { groupMoves, loadHistory, moveList } from "./moves.js";
import { mountNotes } from "./notes.js";
import { mountLogCheck } from "./transparency.js";
import { people, who } from "./words.js";

const gameId = document.body.dataset.game;
const r = { head: 0, version: 0, timer: null, tiles: null, token: 0, extent: [], names: people([]), history: { events: new Map(), steps: new Map() } };
let board = null;
let logCheck = null; // the public log's panel: it checks the version shown

async function show(version) {
  version = Math.max(1, Math.min(r.head, version));
  r.version = version;
  const token = ++r.token;
  const state = await api("GET", `/games/${gameId}/state?at=${version}`);
  if (token !== r.token) return; // a later request won
  const url = new URL(location.href);
  url.searchParams.set("v", String(version));
  history.replaceState(null, "", url);
  document.getElementById("slider").value = String(version);
  document.getElementById("slider").max = String(r.head);
  document.getElementById("where").textContent = _("Version {version} of {head}", { version, head: r.head });
  const step = r.history.steps.get(version);
  document.getElementById("description").textContent = step ? stepWords(step) : "";
  if (state.ok) {
    // the frame of the whole game, so scrubbing never rescales the board
    board.render(state.data.position, { whole: true, extent: r.extent, overlay: overlayFor(r.history.events.get(version), state.data.position) });
    document.body.dataset.version = String(version);
    renderMoves();
    logCheck?.recheck();
  } else {
    document.getElementById("description").textContent = problemText(state.data);
  }
}

/** What a step does: its turn and step, who, what, the rule; a superseded one says so. */
function stepWords(step) {
  const actor = step.colour ? who(r.names, step.colour) : "";
  const values = { turn: step.turn, step: step.step, actor, description: step.rule ? _("{description} ({rule})", { description: step.description, rule: step.rule }) : step.description };
  const said = actor ? _("Turn {turn}, step {step} · {actor}: {description}", values) : _("Turn {turn}, step {step}: {description}", values);
  return step.superseded ? _("Superseded (a ruling's rewind or a takeback) — {step}", { step: said }) : said;
}

function renderMoves() {
  const host = document.getElementById("moves");
  host.replaceChildren(moveList(groupMoves(r.history, r.names), r.names, { current: r.version, onSelect: show }));
  const mark = host.querySelector(".move.current");
  const panel = document.getElementById("moves-panel");
  if (mark && panel.scrollHeight > panel.clientHeight) panel.scrollTop = mark.offsetTop - panel.offsetTop - panel.clientHeight / 2;
}

async function analyse() {
  const opened = await api("POST", `/games/${gameId}/forks`, { version: r.version });
  if (!opened.ok) return toast(problemText(opened.data), "error");
  location.assign(`/forks/${opened.data.fork_id}`);
}

function play() {
  const button = document.getElementById("play");
  if (r.timer) {
    clearInterval(r.timer);
    r.timer = null;
    button.textContent = _("▶ Play");
    button.setAttribute("aria-pressed", "false");
    return;
  }
  button.textContent = _("⏸ Pause");
  button.setAttribute("aria-pressed", "true");
  const speed = Number(document.getElementById("speed").value);
  r.timer = setInterval(() => {
    if (r.version >= r.head) return play();
    show(r.version + 1);
  }, 1000 / speed);
}

function turnOptions() {
  const turns = new Map();
  for (const s of r.history.steps.values()) if (!turns.has(s.turn) || turns.get(s.turn) > s.version) turns.set(s.turn, s.version);
  const select = document.getElementById("turn");
  select.replaceChildren(
    el("option", { value: "" }, _("Jump to turn…")),
    ...[...turns.entries()].sort((a, b) => a[0] - b[0]).map(([turn, first]) => el("option", { value: first }, turn === 0 ? _("Setup") : _("Turn {turn}", { turn }))),
  );
}

async function main() {
  nav(gameId);
  const [tiles, game] = await Promise.all([api("GET", "/tiles"), api("GET", `/games/${gameId}`)]);
  if (!game.ok) {
    document.getElementById("main").replaceChildren(el("p", { class: "error" }, problemText(game.data)));
    return;
  }
  r.tiles = tiles.data;
  r.head = game.data.version;
  r.names = people(game.data.players);
  r.extent = game.data.position.tiles.map((t) => t[0]);
  await loadHistory(gameId, r.history);
  const wanted = Number(new URL(location.href).searchParams.get("v")) || r.head;
  const players = game.data.players.map((p) => p.name || _("Seat {seat}", { seat: p.seat })).join(" · ");
  document.getElementById("main").replaceChildren(
    el(
      "section",
      { class: "replay replay-layout" },
      el(
        "div",
        {},
        el("h1", {}, _("Replay: {players}", { players: players || gameId })),
        el(
          "div",
          { class: "row controls" },
          el("button", { type: "button", id: "back", "aria-label": _("Step back"), onclick: () => show(r.version - 1) }, _("◀ Back")),
          el("button", { type: "button", id: "play", "aria-pressed": "false", onclick: play }, _("▶ Play")),
          el("button", { type: "button", id: "forward", "aria-label": _("Step forward"), onclick: () => show(r.version + 1) }, _("Forward ▶")),
          el("label", {}, _("Speed"), " ", el("select", { id: "speed", onchange: () => { if (r.timer) { play(); play(); } } }, ...[1, 2, 4, 8].map((n) => el("option", { value: n }, `${number(n)}×`)))),
          el("select", { id: "turn", "aria-label": _("Jump to turn"), onchange: (e) => e.target.value && show(Number(e.target.value)) }),
        ),
        el("input", { type: "range", id: "slider", min: 1, max: r.head, value: wanted, "aria-label": _("Version"), oninput: (e) => show(Number(e.target.value)) }),
        el("p", { id: "where" }),
        el("p", { id: "description", class: "step", "aria-live": "polite" }),
        el("div", { id: "replay-board", class: "board-host" }),
      ),
      el(
        "section",
        { id: "moves-panel", class: "moves-panel", "aria-label": _("Move list") },
        el("h3", {}, _("Moves")),
        el("div", { id: "moves" }),
        // the whole game as text, one line a decision (docs/notation.md)
        el("p", { class: "muted" }, el("a", { id: "notation-link", href: `/api/v1/games/${gameId}/notation` }, _("Notation (TGN)")), " · ", el("a", { href: "/docs/notation" }, _("what it says"))),
        // a sandbox from the version shown: every seat, the bot's advice, undo (docs/forks.md)
        el("p", {}, el("button", { type: "button", id: "analyse", onclick: analyse }, _("Analyse from here")), " ", el("a", { href: "/docs/forks", class: "muted" }, _("what a fork is"))),
      ),
      el("section", { id: "notes-panel", class: "notes-panel", "aria-label": _("My notes"), hidden: true }),
      el("section", { id: "log-panel", class: "log-panel", "aria-label": _("Public log") }),
    ),
  );
  logCheck = mountLogCheck(document.getElementById("log-panel"), gameId, () => ({ version: r.version }));
  board = new Board(document.getElementById("replay-board"), r.tiles);
  turnOptions();
  await show(wanted);
  mountNotes(document.getElementById("notes-panel"), gameId, document.body);
  document.addEventListener("keydown", (e) => {
    if (["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
    if (e.key === "ArrowLeft") show(r.version - 1);
    if (e.key === "ArrowRight") show(r.version + 1);
  });
  follow(gameId, r.head, async (version) => {
    const atEnd = r.version === r.head;
    r.head = Math.max(r.head, version);
    const latest = await api("GET", `/games/${gameId}`);
    if (latest.ok) {
      r.extent = latest.data.position.tiles.map((t) => t[0]);
      r.names = people(latest.data.players);
    }
    await loadHistory(gameId, r.history, version - 1, version);
    turnOptions();
    document.getElementById("slider").max = String(r.head);
    document.getElementById("where").textContent = _("Version {version} of {head}", { version: r.version, head: r.head });
    if (atEnd && !r.timer) show(r.head);
    else renderMoves();
    logCheck.recheck();
  });
}

main();
