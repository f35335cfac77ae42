// The replay: a slider over every version, step back and forward, play and pause
// with a speed, jump to a turn; the URL keeps the version (?v=123) to share a moment.
// For a live game the slider grows as events arrive.

import { api, el, nav, problemText } from "./api.js";
import { drawBoard } from "./board.js";
import { follow } from "./live.js";

const gameId = document.body.dataset.game;
const r = { head: 0, version: 0, steps: new Map(), turns: [], timer: null, tiles: null, token: 0, extent: [] };

async function loadSteps(after) {
  let cursor = after;
  for (;;) {
    const page = await api("GET", `/games/${gameId}/timeline?after=${cursor}&limit=1000`);
    if (!page.ok || !page.data.steps.length) return page;
    for (const s of page.data.steps) r.steps.set(s.version, s);
    r.turns = page.data.turns;
    cursor = page.data.next_after;
  }
}

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
  document.getElementById("where").textContent = `Version ${version} of ${r.head}`;
  const step = r.steps.get(version);
  document.getElementById("description").textContent = step
    ? `Turn ${step.turn}, step ${step.step}: ${step.description}${step.rule ? ` (${step.rule})` : ""}`
    : "";
  if (state.ok) {
    // the frame of the whole game, so scrubbing never rescales the board
    drawBoard(document.getElementById("replay-board"), state.data.position, r.tiles, { extent: r.extent });
    document.body.dataset.version = String(version);
  } else {
    document.getElementById("description").textContent = problemText(state.data);
  }
}

function play() {
  const button = document.getElementById("play");
  if (r.timer) {
    clearInterval(r.timer);
    r.timer = null;
    button.textContent = "▶ Play";
    button.setAttribute("aria-pressed", "false");
    return;
  }
  button.textContent = "⏸ Pause";
  button.setAttribute("aria-pressed", "true");
  const speed = Number(document.getElementById("speed").value);
  r.timer = setInterval(() => {
    if (r.version >= r.head) return play();
    show(r.version + 1);
  }, 1000 / speed);
}

function turnOptions() {
  const select = document.getElementById("turn");
  select.replaceChildren(el("option", { value: "" }, "Jump to turn…"), ...r.turns.map((t) => el("option", { value: t.first_version }, t.turn === 0 ? "Setup" : `Turn ${t.turn}`)));
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
  r.extent = game.data.position.tiles.map((t) => t[0]);
  await loadSteps(0);
  const wanted = Number(new URL(location.href).searchParams.get("v")) || r.head;
  document.getElementById("main").replaceChildren(
    el(
      "section",
      { class: "replay" },
      el("h2", {}, `Replay of game ${gameId}`),
      el(
        "div",
        { class: "row controls" },
        el("button", { type: "button", id: "back", "aria-label": "Step back", onclick: () => show(r.version - 1) }, "◀ Back"),
        el("button", { type: "button", id: "play", "aria-pressed": "false", onclick: play }, "▶ Play"),
        el("button", { type: "button", id: "forward", "aria-label": "Step forward", onclick: () => show(r.version + 1) }, "Forward ▶"),
        el("label", {}, "Speed ", el("select", { id: "speed", onchange: () => { if (r.timer) { play(); play(); } } }, ...[1, 2, 4, 8].map((n) => el("option", { value: n }, `${n}×`)))),
        el("select", { id: "turn", "aria-label": "Jump to turn", onchange: (e) => e.target.value && show(Number(e.target.value)) }),
      ),
      el("input", { type: "range", id: "slider", min: 1, max: r.head, value: wanted, "aria-label": "Version", oninput: (e) => show(Number(e.target.value)) }),
      el("p", { id: "where" }),
      el("p", { id: "description", class: "step", "aria-live": "polite" }),
      el("div", { id: "replay-board", class: "board-host" }),
    ),
  );
  turnOptions();
  await show(wanted);
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowLeft") show(r.version - 1);
    if (e.key === "ArrowRight") show(r.version + 1);
  });
  follow(gameId, r.head, async (version) => {
    const atEnd = r.version === r.head;
    r.head = Math.max(r.head, version);
    const latest = await api("GET", `/games/${gameId}`);
    if (latest.ok) r.extent = latest.data.position.tiles.map((t) => t[0]);
    await loadSteps(version - 1);
    turnOptions();
    document.getElementById("slider").max = String(r.head);
    document.getElementById("where").textContent = `Version ${r.version} of ${r.head}`;
    if (atEnd && !r.timer) show(r.head);
  });
}

main();
