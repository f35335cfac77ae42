// An analysis fork (docs/forks.md): the board of its position, every legal move in
// the notation's words (docs/notation.md) to play for whichever seat decides, the
// bot's appraisal of each, undo, branch, and the link to share. Only its owner plays;
// anyone with the link looks, and may branch it into a fork of their own.

import { api, colourName, el, me, nav, problemText, toast } from "./api.js";
import { Board } from "./board.js";
import { _, number } from "./i18n.js";

const forkId = location.pathname.split("/").pop();
const f = { view: null, tiles: null, board: null, appraisals: null };

function mine() {
  return me()?.account_id === f.view?.owner;
}

async function act(method, path, body) {
  const r = await api(method, path, body);
  if (!r.ok) {
    toast(problemText(r.data), "error");
    if (r.status === 409) await load();
    return null;
  }
  return r.data;
}

async function play(command) {
  const done = await act("POST", `/forks/${forkId}/commands`, { ...command, expected_version: f.view.version });
  if (done) show(done);
}

async function undo() {
  const done = await act("POST", `/forks/${forkId}/undo`, { steps: 1 });
  if (done) show(done);
}

async function branch() {
  const done = await act("POST", `/forks/${forkId}/branch`, {});
  if (done) location.assign(`/forks/${done.fork_id}`);
}

async function appraise() {
  const button = document.getElementById("appraise");
  button.disabled = true;
  const r = await api("GET", `/forks/${forkId}/analysis?playouts=${document.getElementById("playouts").value}`);
  button.disabled = false;
  if (!r.ok) return toast(problemText(r.data), "error");
  f.appraisals = r.data;
  renderMoves();
}

function renderMoves() {
  const host = document.getElementById("legal");
  const values = new Map((f.appraisals?.version === f.view.version ? f.appraisals.appraisals : []).map((a) => [JSON.stringify(a.command), a]));
  const items = f.view.legal.map((item, i) => {
    const seen = values.get(JSON.stringify(item.command));
    const label = [item.words];
    if (seen) label.push(el("span", { class: "muted" }, " · ", _("{percent} after {visits} tries", { percent: number(Math.round(seen.value * 100)) + "%", visits: number(seen.visits) })));
    if (seen && f.appraisals.choice && JSON.stringify(f.appraisals.choice.command) === JSON.stringify(item.command)) label.push(el("strong", {}, " · ", _("the bot's choice")));
    return el("li", {}, mine() ? el("button", { type: "button", class: "link", "data-move": String(i), onclick: () => play(item.command) }, ...label) : el("span", {}, ...label));
  });
  host.replaceChildren(items.length ? el("ol", { class: "legal" }, ...items) : el("p", { class: "muted" }, _("The game is over: {result}", { result: f.view.result || "" })));
}

function show(view) {
  f.view = view;
  document.body.dataset.version = String(view.version);
  f.board.render(view.position, { whole: true });
  const anchor = view.anchor;
  document.getElementById("anchor").replaceChildren(
    _("From version {version} of ", { version: number(anchor.version) }),
    el("a", { href: `/games/${anchor.game_id}/replay?v=${anchor.version}` }, _("the game")),
    " · ",
    view.deck === "true" ? _("the true order of the tiles left") : _("the tiles left, dealt afresh"),
    " · ",
    _("{n} moves made", { n: number(view.version) }),
  );
  document.getElementById("decision").textContent = view.colour ? _("{colour} decides", { colour: colourName(view.colour) }) : "";
  document.getElementById("made").replaceChildren(...view.moves.map((m) => el("li", {}, m.words)));
  document.getElementById("undo").hidden = !mine() || view.version === 0;
  renderMoves();
}

async function load() {
  const r = await api("GET", `/forks/${forkId}`);
  if (!r.ok) {
    document.getElementById("main").replaceChildren(el("p", { class: "error" }, problemText(r.data)));
    return;
  }
  show(r.data);
}

async function main() {
  nav();
  const [tiles, first] = await Promise.all([api("GET", "/tiles"), api("GET", `/forks/${forkId}`)]);
  if (!first.ok) {
    document.getElementById("main").replaceChildren(el("p", { class: "error" }, problemText(first.data)));
    return;
  }
  f.tiles = tiles.data;
  document.getElementById("main").replaceChildren(
    el(
      "section",
      { class: "replay replay-layout fork" },
      el(
        "div",
        {},
        el("h1", {}, _("Analysis")),
        el("p", { id: "anchor", class: "muted" }),
        el("p", { id: "decision", class: "step", "aria-live": "polite" }),
        el("div", { id: "fork-board", class: "board-host" }),
      ),
      el(
        "section",
        { class: "moves-panel", "aria-label": _("Legal moves") },
        el("h3", {}, _("Legal moves")),
        el(
          "div",
          { class: "row controls" },
          el("label", {}, _("Bot's effort"), " ", el("select", { id: "playouts" }, ...[100, 400, 1000].map((n) => el("option", { value: n }, number(n))))),
          el("button", { type: "button", id: "appraise", onclick: appraise }, _("Ask the bot")),
          el("button", { type: "button", id: "undo", onclick: undo }, _("Undo")),
          el("button", { type: "button", id: "branch", onclick: branch }, _("Branch here")),
        ),
        el("div", { id: "legal" }),
        el("h3", {}, _("Moves made")),
        el("ol", { id: "made" }),
        el("p", { class: "muted" }, _("Share this page's address: anyone may look, and branch it.")),
        el("p", { class: "muted" }, el("a", { id: "fork-notation", href: `/api/v1/forks/${forkId}/notation` }, _("The game in TGN, this fork as a variation"))),
      ),
    ),
  );
  document.getElementById("playouts").value = "400";
  f.board = new Board(document.getElementById("fork-board"), f.tiles);
  show(first.data);
}

main();
