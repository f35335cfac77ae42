// The game page: the board, whose move and what is awaited, the active player's
// choices (only from /legal, made by pointing at the board, each one confirmed with
// Play), the scoreboard, the move list, and what happens on the board as it happens.

import { api, cap, colourChip, colourName, el, LETTER, me, nav, newId, problemText, problemWords, ruleLink } from "./api.js";
import { Board, beachWords, DIRECTION, overlayFor, tilePreview, tileToward } from "./board.js";
import { mountChat } from "./chat.js";
import { mountDisputes } from "./disputing.js";
import { scoreExplained } from "./endscreen.js";
import { mountNotes } from "./notes.js";
import { follow } from "./live.js";
import { groupMoves, lastSeen, loadHistory, markSeen, moveList, sinceLastVisit } from "./moves.js";
import { awaited, colourOf, people, pointsWords, result, rich, seatName, who } from "./words.js";
import { controlText, startTicking, timeLeft, timeoutNotice, timeoutWarning, vacationNotices } from "./clocks.js";
import { mountLogCheck } from "./transparency.js";
import { offersPanel } from "./offers.js";
import { rematchPanel } from "./rematch.js";
import { tableInvitations } from "./invitations.js";
import { _, list, ngettext, number } from "./i18n.js";

const gameId = document.body.dataset.game;
const MAX_ANIMATED = 12; // more missed steps than this are shown at once, not one by one
const SPEEDS = [
  [150, _("Fast")],
  [450, _("Normal")],
  [1000, _("Slow")],
  [2000, _("Very slow")],
];

const view = {
  tiles: null,
  names: { byColour: {}, byId: {} },
  version: 0,
  position: null,
  legal: null,
  scoreboard: null,
  selection: [],
  landColour: null,
  tileCell: null,
  tileRot: null,
  hoverCell: null,
  confirm: null,
  queue: [],
  animating: false,
  sending: false,
  viewing: null, // {version, position, overlay}: a past position picked in the move list
  overlay: null, // what the step on screen shows happening (a fleet, a failed path…)
  stepText: "",
  history: { events: new Map(), steps: new Map() },
  turns: [],
  notice: null,
  connection: "live",
  seenAtLoad: lastSeen(gameId),
  loadedAt: null, // the version the page opened at: "since your last visit" ends there
  sinceDismissed: false,
  headLegal: null, // whose move it is at the newest version, while older steps play
  sendKey: null, // {body, key}: a move not sent (no connection) keeps its idempotency key
};
let board = null;
let disputes = null; // the disputes panel (disputing.js)

function stepMs() {
  return Number(localStorage.getItem("tongiaki.stepMs") || 450);
}

// --- commands as sets of board tokens -------------------------------------------

export function tokens(c) {
  switch (c.type) {
    case "PlaceStartingBoat":
      return [`beach:tonga:${c.beach}`];
    case "Expand":
      return [...c.beaches.map((b) => `beach:${c.island}:${b}`), ...(c.take_from ? [`take:${c.take_from[0]}:${c.take_from[1]}`] : [])];
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

// why the bot plays a seat (C5, C6; B2: a bot's own seat)
const BOT_TAGS = { absent: _("absent: the bot plays"), resigned: _("resigned: the bot plays"), bot: _("a bot: it plays at once") };
const DESTRUCTIVE = new Set(["NewColonisation", "FoundRoyalIsland"]);

/** The move in words, as the Play button and the confirmation say it. */
function describe(c) {
  const name = (island) => view.tiles.tiles[island]?.name || island;
  const placed = (island) => view.position.tiles.find(([, tile]) => tile === island);
  const beach = (island, i) => beachWords(view.tiles.tiles[island], i, placed(island)?.[2] ?? 0);
  const beaches = (island, indices) => {
    const counted = new Map();
    for (const i of indices) counted.set(i, (counted.get(i) || 0) + 1);
    const words = [...counted].map(([i, n]) => (n > 1 ? _("{n} on {beach}", { n: number(n), beach: beach(island, i) }) : beach(island, i)));
    return list(words);
  };
  switch (c.type) {
    case "PlaceStartingBoat":
      return _("a starting boat on Tonga, {beach}", { beach: beach("tonga", c.beach) });
    case "Expand":
      return c.take_from
        ? _("expand on {island}, {beaches} (moving your boat from {from}, {fromBeach})", { island: name(c.island), beaches: beaches(c.island, c.beaches), from: name(c.take_from[0]), fromBeach: beach(c.take_from[0], c.take_from[1]) })
        : _("expand on {island}, {beaches}", { island: name(c.island), beaches: beaches(c.island, c.beaches) });
    case "PlaceBoats":
      return _("boats on {island}, {beaches}", { island: name(c.island), beaches: beaches(c.island, c.beaches) });
    case "Emigrate": {
      const where = placed(c.island);
      const d = where ? (c.jetty + where[2]) % 6 : c.jetty;
      const next = where ? tileToward(view.position, where[0], d) : null;
      const fields = { island: name(c.island), beach: beach(c.island, c.beach), direction: DIRECTION[d] };
      return next
        ? _("emigrate from {island}, {beach}, sailing {direction} towards {next}", { ...fields, next: name(next) })
        : _("emigrate from {island}, {beach}, sailing {direction} into unexplored sea", fields);
    }
    case "Land": {
      const parts = c.beaches.map((cs, i) => (cs.length ? _("{letters} on {beach}", { letters: cs.map((x) => LETTER[x]).join(""), beach: beach(c.island, i) }) : null)).filter(Boolean);
      return parts.length ? _("land on {island}: {parts}", { island: name(c.island), parts: parts.join(", ") }) : _("land on {island}: no boat (all go home)", { island: name(c.island) });
    }
    case "PlaceTile": {
      // when the orientation was the player's to choose, say which they chose
      const turns = (view.legal?.commands || []).filter((o) => o.type === "PlaceTile" && o.cell[0] === c.cell[0] && o.cell[1] === c.cell[1]);
      if (turns.length < 2) return _("place {tile} where it is shown", { tile: name(c.tile) });
      return c.rotation
        ? _("place {tile} where it is shown, turned {degrees}° clockwise from how it was drawn", { tile: name(c.tile), degrees: number(c.rotation * 60) })
        : _("place {tile} where it is shown, as it was drawn, not turned", { tile: name(c.tile) });
    }
    case "FoundRoyalIsland":
      return _("found a royal island on {island}", { island: name(c.island) });
    case "NewColonisation":
      return _("start a new colonisation");
    case "PlaceColonist":
      return _("the colonist on {island}, {beach}", { island: name(c.island), beach: beach(c.island, c.beach) });
    default:
      return c.type;
  }
}

function warning(c) {
  const colour = view.legal?.colour;
  if (c.type === "NewColonisation") {
    const n = Object.entries(view.position.boats || {}).reduce((sum, [, text]) => sum + [...text].filter((l) => l === LETTER[colour]?.toLowerCase()).length, 0);
    return ngettext(
      "Your {n} {colour} boat on the board (kings stay) goes back to your supply, then tiles are drawn until an island turns up, where your colonist lands. This cannot be undone.",
      "All {n} of your {colour} boats on the board (kings stay) go back to your supply, then tiles are drawn until an island turns up, where your colonist lands. This cannot be undone.",
      n,
      { colour: colourName(colour) },
    );
  }
  if (c.type === "FoundRoyalIsland") {
    return _("One of your boats becomes the king of {island} and your other boats there go home. Nobody may land on or sail through a royal island again, and the king never moves. This cannot be undone.", { island: view.tiles.tiles[c.island].name });
  }
  return "";
}

// --- the panels ------------------------------------------------------------------

function myColours() {
  const account = me();
  const seat = account && view.position?.players.find((p) => p.player_id === account.account_id);
  return seat ? seat.colours : [];
}

function identity() {
  const account = me();
  const mine = myColours();
  if (mine.length) return el("p", { id: "identity", class: "identity" }, ...rich(_("You are {colours} ({name})", { name: account.name }), { colours: mine.map((c) => colourChip(c)) }));
  if (account) return el("p", { id: "identity", class: "identity muted" }, _("You are watching this game (signed in as {name}).", { name: account.name }));
  return el("p", { id: "identity", class: "identity muted" }, ...rich(_("You are watching this game. {signIn} to play."), { signIn: el("a", { href: "/" }, _("Sign in")) }));
}

/** The seats with their clocks (docs/clocks.md): time left, counting down for the seat
 * whose decision runs; the bot's seats; resign, or reclaim a seat the bot took. */
function running(position) {
  return position.phase === "setup" || position.phase === "playing";
}

/** Resign or reclaim the signed-in player's seat (C5, C6). */
async function seatCommand(type, question) {
  const mine = (view.players || []).find((p) => p.player_id === me()?.account_id);
  if (!mine || (question && !window.confirm(question))) return;
  const r = await api("POST", `/games/${gameId}/commands`, { type, player_id: mine.player_id }, { "Idempotency-Key": newId() });
  if (!r.ok) view.notice = { text: problemWords(r.data), rule: r.data?.rule };
  refresh(true);
}

/** Before and after a timeout, in words (C3–C5): the notice and the way back to the seat. */
function timeoutPanel() {
  const mine = (view.players || []).find((p) => p.player_id === me()?.account_id);
  if (!mine || !running(view.position) || mine.bot === "resigned") return null;
  return timeoutNotice(mine, view.timeControl?.absent_after ?? 3, () => seatCommand("ReclaimSeat"));
}

function clockPanel() {
  const players = view.players || [];
  const control = controlText(view.timeControl);
  const running = view.position.phase === "setup" || view.position.phase === "playing";
  const mine = players.find((p) => p.player_id === me()?.account_id);
  if (!control && !players.some((p) => p.bot) && !(mine && running)) return null;
  const act = seatCommand;
  return el(
    "section",
    { class: "clocks", id: "clocks", "aria-label": _("Clocks") },
    control ? el("p", { class: "muted" }, view.clock?.paused_at ? _("Clock: {control} · stopped while the game is paused", { control }) : _("Clock: {control}", { control })) : null,
    ...vacationNotices(view.vacation, players),
    el(
      "ul",
      { class: "seat-clocks" },
      players.map((p) =>
        el(
          "li",
          { "data-seat": p.seat },
          ...p.colours.map((c) => colourChip(c, "")),
          " ",
          seatName(p),
          " ",
          running && view.clock && p.bot !== "bot" ? timeLeft(view.clock, p.seat, view.clockAt) : null,
          p.bot ? el("span", { class: "tag bot" }, " ", BOT_TAGS[p.bot] || p.bot) : null,
          p.timeouts && !p.bot ? el("span", { class: "muted" }, " · ", ngettext("{n} timeout in a row", "{n} timeouts in a row", p.timeouts)) : null,
        ),
      ),
    ),
    mine && running && mine.bot !== "resigned"
      ? el("button", { type: "button", id: "resign", onclick: () => act("Resign", _("Resign this game? The bot plays on for you, and you rank last. This is final.")) }, _("Resign"))
      : null,
  );
}

/** Send an offer's command for my seat (docs/table.md); ``question``: confirm first. */
async function offer(type, fields = {}, question = null) {
  if (question && !window.confirm(question)) return;
  const r = await api("POST", `/games/${gameId}/commands`, { type, player_id: me().account_id, ...fields }, { "Idempotency-Key": newId() });
  view.notice = r.ok ? null : { text: problemWords(r.data), rule: r.data?.rule };
  refresh(true);
}

/** "to move", with the colour when the player has two. */
function toMove(playerId) {
  const colour = colourOf(view.names, playerId, view.legal.colour);
  return colour ? _("to move ({colour})", { colour }) : _("to move");
}

function scoreboardPanel() {
  const board = view.scoreboard;
  if (!board) return el("p", { class: "muted" }, _("The scoreboard is catching up…"));
  // whose turn it is: marked on their row (with the colour, when they have two)
  const moving = view.position?.phase === "ended" ? null : view.legal?.player_id;
  const rows = board.seats.map((s) =>
    el(
      "tr",
      { "data-player": s.player_id, class: s.player_id === moving ? "to-move" : "" },
      el(
        "th",
        { scope: "row" },
        s.player_id.startsWith("bot-") ? el("span", { class: "player-name" }, view.names.byId[s.player_id]?.name || seatName(s)) : el("a", { class: "player-name", href: `/players/${s.player_id}` }, s.name || _("Seat {seat}", { seat: s.seat })),
        " ",
        ...s.colours.map((c) => colourChip(c.colour, "")),
        s.player_id === moving ? el("span", { class: "tag to-move-tag" }, " ", toMove(s.player_id)) : null,
      ),
      el("td", { class: "num", "data-label": _("Points"), title: s.colours.length > 1 ? _("Each colour scores as a seat; a player's two colours add up (R5)") : null }, pointsWords(s)),
      el("td", { class: "num", "data-label": _("Islands"), title: s.colours.flatMap((c) => c.islands).join(", ") || _("none") }, number(s.islands)),
      el("td", { class: "num", "data-label": _("On board") }, s.colours.map((c) => number(c.on_board)).join(" + ")),
      el("td", { class: "num", "data-label": _("Supply") }, s.colours.map((c) => number(c.in_supply)).join(" + ")),
      el("td", { class: "num", "data-label": _("Kings") }, s.colours.map((c) => number(c.kings)).join(" + ")),
      el("td", { class: "num", "data-label": _("Rank") }, number(s.rank)),
    ),
  );
  return el(
    "table",
    { class: "scores", "aria-label": _("Scoreboard") },
    // with two colours each, why a player's points are a sum, in sight (not only on hover)
    board.seats.some((s) => s.colours.length > 1)
      ? el("caption", { id: "scores-why", class: "muted" }, ...rich(_("Each colour scores as a seat; a player's two colours add up (rule R5)."), {}, ["R5"]))
      : null,
    el("thead", {}, el("tr", {}, ...[_("Player"), _("Points"), _("Islands"), _("On board"), _("Supply"), _("Kings"), _("Rank")].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows),
  );
}

function resultPanel() {
  const final = view.scoreboard?.final;
  if (!final) return null;
  const words = result(final, view.names, view.scoreboard?.seats || []);
  const mine = me()?.account_id;
  const yours = mine && final.winners.includes(mine) ? (final.winners.length > 1 ? _("You share the win!") : _("You win!")) : "";
  return el(
    "section",
    { id: "result", class: "card result", "aria-live": "polite" },
    el("h3", {}, _("Game over")),
    el("p", { class: "headline" }, yours ? [el("strong", { id: "you-win" }, yours), " "] : null, words.headline),
    el("ol", { class: "ranking" }, words.ranking.map((line) => el("li", {}, line.replace(/^\d+\. /, "")))),
    scoreExplained(gameId, view.version),
    // the game is over: its players may analyse it, from any moment of its replay (docs/forks.md)
    seatedHere() ? el("p", {}, el("a", { id: "analyse-link", href: `/games/${gameId}/replay` }, _("Analyse the game: open the replay at a moment and choose “Analyse from here”"))) : null,
  );
}

function actionPanel(state) {
  const { legal, position } = view;
  const { myMove, next, exact, compatible } = state;
  const box = el("section", { id: "action-bar", class: `action-bar${myMove ? " mine" : ""}`, "aria-label": _("Your move") });
  if (view.viewing) {
    box.append(
      el("p", { class: "viewing" }, _("You are looking at the board {when}. The scoreboard below is today's.", { when: viewingWords() })),
      el("button", { type: "button", id: "back-to-game", class: "primary", onclick: backToGame }, _("Back to the game")),
    );
    return box;
  }
  if (position.phase === "ended") {
    box.append(el("p", { id: "decision" }, _("The game is over.")));
    return box;
  }
  if (!legal || !legal.decision) {
    const head = view.headLegal;
    let words = position.phase === "open" ? _("Waiting for players to join and start.") : _("Waiting…");
    if (view.queue.length || view.animating) {
      const mine = head?.decision && head.player_id === me()?.account_id;
      const withColour = mine ? colourOf(view.names, head.player_id, head.colour) : "";
      if (!mine) words = _("Showing the moves made meanwhile.");
      else if (withColour) words = _("Showing the moves made meanwhile — then it is your move with {colour}.", { colour: withColour });
      else words = _("Showing the moves made meanwhile — then it is your move.");
      box.append(
        el("p", { id: "decision", class: mine ? "your-move" : "" }, words),
        el("button", { type: "button", id: "skip-now", class: mine ? "primary" : "", onclick: skip }, _("Skip to now")),
      );
      return box;
    }
    box.append(el("p", { id: "decision" }, words));
    return box;
  }
  // the running clock where the decision is: on a phone the seats' clocks are a scroll away
  const clock = view.clock?.seat && !view.clock.paused_at && running(view.position) ? timeLeft(view.clock, view.clock.seat, view.clockAt) : null;
  box.append(
    el(
      "p",
      { id: "decision", class: myMove ? "your-move" : "" },
      awaited(legal.decision, myMove, who(view.names, legal.colour), colourOf(view.names, legal.player_id, legal.colour)),
      clock ? el("span", { class: "bar-clock", id: "bar-clock" }, " · ", ...rich(_("{time} left"), { time: clock })) : null,
    ),
    (myMove && clock && timeoutWarning(view.clock, view.clock.seat, view.clockAt, view.timeControl?.absent_after ?? 3)) || "",
  );
  if (!myMove) return box;
  if (view.confirm) {
    box.append(
      el(
        "div",
        { id: "confirm", class: "confirm", role: "alertdialog", "aria-label": _("Confirm your move") },
        el("p", { class: "warn" }, el("strong", {}, _("{move}?", { move: cap(describe(view.confirm)) })), " ", warning(view.confirm)),
        el(
          "div",
          { class: "row" },
          el("button", { type: "button", id: "confirm-yes", class: "primary danger", onclick: () => send(view.confirm) }, _("Yes, {move}", { move: describe(view.confirm) })),
          el("button", { type: "button", id: "confirm-no", onclick: clear }, _("Cancel")),
        ),
      ),
    );
    return box;
  }
  const controls = [];
  if (legal.decision === "tile_placement") controls.push(...tileControls(state));
  if (legal.decision === "landing") controls.push(...landingControls(next));
  const takes = [...new Set([...next, ...view.selection])].filter((t) => t.startsWith("take:")).sort();
  if (takes.length) {
    const col = colourOf(view.names, legal.player_id, legal.colour);
    const hint = col
      ? _("Your {colour} supply is empty (rule R7): the boat comes from one of your {colour} beaches on the board. Which one?", { colour: col })
      : _("Your supply is empty (rule R7): the boat comes from one of your beaches on the board. Which one?");
    controls.push(el("p", { class: "muted", id: "take-hint" }, ...rich(hint, {}, ["R7"])));
  }
  for (const t of [...next].sort()) {
    if (t === "newcol") controls.push(el("button", { type: "button", "data-token": t, onclick: () => pick(t) }, _("Start a new colonisation…")));
  }
  for (const t of takes) {
    const [, a, b] = t.split(":");
    const placed = view.position.tiles.find(([, tile]) => tile === a);
    const chosen = view.selection.includes(t);
    controls.push(el("button", { type: "button", "data-token": t, "aria-pressed": String(chosen), class: chosen ? "chosen-take" : "", onclick: () => pick(t) }, _("Move the boat from {island}, {beach}", { island: view.tiles.tiles[a].name, beach: beachWords(view.tiles.tiles[a], Number(b), placed?.[2] ?? 0) })));
  }
  const command = playable(state);
  box.append(
    el("div", { class: "row choices" }, controls),
    el(
      "div",
      { class: "row play-row" },
      el(
        "button",
        { type: "button", id: "play", class: "primary", disabled: !command || view.sending, onclick: () => play(command) },
        command ? _("Play: {move}", { move: describe(command) }) : _("Play"),
      ),
      el("button", { type: "button", id: "clear", disabled: view.selection.length === 0 && view.tileCell === null, onclick: clear }, _("Clear")),
      el("span", { id: "hint", class: "muted" }, exact.length ? "" : stillNeeded(state)),
    ),
  );
  return box;
}

/** What the choice still lacks, in words ("pick 2 more beaches"). */
function stillNeeded({ compatible, chosen }) {
  if (!compatible.length || view.legal.decision === "tile_placement") return "";
  const picked = [...chosen.values()].reduce((a, b) => a + b, 0);
  const fewest = Math.min(...compatible.map((c) => tokens(c).length - picked));
  if (fewest <= 0) return "";
  const kinds = new Set(compatible.flatMap((c) => tokens(c).map((t) => t.split(":")[0])));
  if (view.legal.decision === "choose_emigration") return picked ? _("Now pick the jetty the fleet leaves by.") : _("Pick a full beach.");
  if (view.legal.decision === "landing") return "";
  if (kinds.has("take") && picked) {
    // the boat from the board picked first, or the beach it goes to first: ask for the other
    return view.selection.some((t) => t.startsWith("take:")) ? _("Now pick the beach the boat goes to.") : _("Now pick the boat to move.");
  }
  return picked ? ngettext("Pick {n} more beach.", "Pick {n} more beaches.", fewest) : "";
}

function viewingWords() {
  const step = view.history.steps.get(view.viewing.version);
  return step ? _("after turn {turn}, step {step}", { turn: step.turn, step: step.step }) : ngettext("as it was {n} step ago", "as it was {n} steps ago", view.version - view.viewing.version);
}

function backToGame() {
  view.viewing = null;
  render();
  renderMoves();
  document.getElementById("board")?.scrollIntoView({ block: "nearest", behavior: "smooth" });
}

function tileControls(state) {
  const pending = view.position.pending;
  const rotations = tileRotations(state.commands);
  const rotation = view.tileRot ?? rotations[0] ?? 0;
  const turn = (by) => {
    if (!rotations.length) return;
    const i = rotations.indexOf(rotation);
    view.tileRot = rotations[(i + by + rotations.length) % rotations.length];
    render();
  };
  return [
    el(
      "div",
      { class: "tile-pick" },
      el("figure", { id: "tile-preview", class: "preview", "data-tile": pending.tile, "data-rotation": rotation }, tilePreview(view.tiles, pending.tile, rotation), el("figcaption", {}, _("Drawn: {tile}", { tile: view.tiles.tiles[pending.tile].name }))),
      el(
        "div",
        { class: "rotate" },
        el("p", { class: "muted" }, view.tileCell ? (rotations.length > 1 ? ngettext("Turn it with ⟲ ⟳ ({n} way fits), then Play.", "Turn it with ⟲ ⟳ ({n} ways fit), then Play.", rotations.length) : _("This is the only way it fits: Play.")) : _("Tap or point at a dashed cell to see the tile there; tap or click to choose it.")),
        el("button", { type: "button", id: "turn-left", "aria-label": _("Turn the tile left"), disabled: rotations.length < 2, onclick: () => turn(-1) }, "⟲"),
        el("button", { type: "button", id: "turn-right", "aria-label": _("Turn the tile right"), disabled: rotations.length < 2, onclick: () => turn(1) }, "⟳"),
      ),
    ),
  ];
}

function landColours(next) {
  return [...new Set([...next].filter((t) => t.startsWith("land:")).map((t) => t.split(":")[3]))].sort();
}

function landingControls(next) {
  const fleet = view.position.pending?.fleet || [];
  const colours = landColours(next);
  const placed = view.selection.filter((t) => t.startsWith("land:")).length;
  return [
    el(
      "p",
      {},
      ...rich(
        placed
          ? ngettext("Arriving fleet: {fleet} · {placed} of {n} boat placed; the others go home", "Arriving fleet: {fleet} · {placed} of {n} boats placed; the others go home", fleet.length, { placed: number(placed) })
          : _("Arriving fleet: {fleet}"),
        { fleet: fleet.map((c) => colourChip(c, "")) },
      ),
    ),
    el(
      "div",
      { class: "row", role: "group", "aria-label": _("Colour to land") },
      ...colours.map((c) =>
        el("button", { type: "button", class: `chip-button colour-${c}`, "aria-pressed": String(c === view.landColour), onclick: () => { view.landColour = c; render(); } }, `${LETTER[c]} ${colourName(c)}`),
      ),
    ),
  ];
}

function tileRotations(commands) {
  if (!view.tileCell) return [...new Set(commands.map((c) => c.rotation))].sort((a, b) => a - b);
  return commands.filter((c) => `${c.cell[0]},${c.cell[1]}` === view.tileCell).map((c) => c.rotation).sort((a, b) => a - b);
}

/** The one command the player's choices make (what Play sends), if they make one. */
function playable(state) {
  if (view.legal?.decision === "tile_placement") {
    if (!view.tileCell) return null;
    const rotations = tileRotations(state.commands);
    const rotation = view.tileRot ?? rotations[0];
    return state.commands.find((c) => `${c.cell[0]},${c.cell[1]}` === view.tileCell && c.rotation === rotation) || null;
  }
  return state.exact.length === 1 ? state.exact[0] : null;
}

// --- rendering ------------------------------------------------------------------

function computeState() {
  const legal = view.legal;
  const myMove = Boolean(legal && legal.decision && legal.player_id === me()?.account_id && !view.viewing);
  const commands = myMove ? legal.commands : [];
  const state = { myMove, commands, ...choices(commands, view.selection) };
  if (myMove && legal.decision === "landing") {
    // the colour being landed: the chosen one while it has boats left, else the next
    const colours = landColours(state.next);
    if (!colours.includes(view.landColour)) view.landColour = colours[0] || null;
  }
  return state;
}

function boardOptions(state) {
  const targets = { beaches: new Set(), jetties: new Set(), cells: new Set(), islands: new Set() };
  const marks = new Map();
  const planned = new Map();
  let ghost = null;
  if (state.myMove && !view.confirm) {
    if (view.legal.decision === "tile_placement") {
      const pending = view.position.pending;
      for (const c of state.commands) targets.cells.add(`${c.cell[0]},${c.cell[1]}`);
      if (targets.cells.size === 1 && !view.tileCell) view.tileCell = [...targets.cells][0];
      const cell = view.tileCell || view.hoverCell;
      if (cell) {
        const rotations = state.commands.filter((c) => `${c.cell[0]},${c.cell[1]}` === cell).map((c) => c.rotation);
        const rotation = view.tileCell && rotations.includes(view.tileRot) ? view.tileRot : rotations[0];
        if (view.tileCell && view.tileRot === null) view.tileRot = rotation;
        ghost = { tile: pending.tile, cell, rotation };
      }
      if (view.tileCell) marks.set(`cell:${view.tileCell}`, 1);
    } else {
      const landing = view.legal.decision === "landing";
      for (const t of state.next) {
        const p = t.split(":");
        if (p[0] === "beach") targets.beaches.add(`${p[1]}:${p[2]}`);
        if (p[0] === "land" && p[3] === view.landColour) targets.beaches.add(`${p[1]}:${p[2]}`);
        if (p[0] === "jetty") targets.jetties.add(`${p[1]}:${p[2]}:${p[3]}`);
        if (p[0] === "royal") targets.islands.add(p[1]);
      }
      for (const [t, n] of state.chosen) {
        const p = t.split(":");
        if (p[0] === "land") {
          // the landing planned so far: faint boats in their colours on the beaches
          const k = `${p[1]}:${p[2]}`;
          planned.set(k, [...(planned.get(k) || []), ...Array(n).fill(p[3])]);
        } else if (p[0] === "beach") {
          const k = `beach:${p[1]}:${p[2]}`;
          marks.set(k, (marks.get(k) || 0) + n);
          if (!landing) targets.beaches.add(`${p[1]}:${p[2]}`); // shown as chosen
        } else marks.set(t, n);
      }
    }
  }
  return { targets, chosen: marks, ghost, planned };
}

function render() {
  if (!view.position) return;
  const state = computeState();
  const shown = view.viewing ? view.viewing.position : view.position;
  const overlay = view.viewing ? view.viewing.overlay : view.overlay;
  if (!document.getElementById("board")) return;
  // a past position picked in the move list is shown whole, as the replay shows it
  board.render(shown, { ...boardOptions(state), overlay, focus: overlay?.fleetCell, owners: view.names.byColour, whole: Boolean(view.viewing) });
  document.getElementById("board").dataset.version = String(view.viewing ? view.viewing.version : view.version);
  const legend = el(
    "ul",
    { class: "legend", "aria-label": _("Who plays which colour") },
    (view.position.order.length ? view.position.order : Object.keys(view.names.byColour)).map((c) => el("li", {}, colourChip(c, view.names.byColour[c] || colourName(c)))),
  );
  document.getElementById("legend").replaceChildren(legend);
  const step = document.getElementById("step");
  step.textContent = view.viewing ? _("The board {when}", { when: viewingWords() }) : view.stepText;
  document.getElementById("skip").hidden = view.queue.length === 0;
  document.getElementById("board-back").hidden = !view.viewing;
  // on a phone the side panel is below the board: whose move it is, above it
  const status = document.getElementById("status-line");
  const decision = view.legal?.decision;
  status.textContent = view.viewing || state.myMove || !decision ? "" : awaited(decision, false, who(view.names, view.legal.colour));
  const side = document.getElementById("side");
  side.replaceChildren(
    ...[
    el("h1", {}, gameTitle()),
    identity(),
    actionPanel(state),
    timeoutPanel(),
    view.notice
      ? el("p", { id: "notice", class: "notice error", role: "alert" }, view.notice.text, view.notice.rule ? " (" : "", view.notice.rule ? ruleLink(view.notice.rule) : null, view.notice.rule ? ")" : "")
      : null,
    resultPanel(),
    rematchPanel(gameId, view.position.phase === "ended", seatedHere()),
    view.position.options?.private ? tableInvitations(gameId) : null,
    offersPanel({ offers: view.offers, players: view.players || [], names: view.names, running: running(view.position), moved: movedHere(), send: offer }),
    clockPanel(),
    view.position.paused ? el("p", { id: "paused", role: "status" }, ...rich(_("The game is paused while an auditor looks at a dispute (rule D7): no move can be made until it resumes."), {}, ["D7"])) : null,
    el(
      "p",
      { class: "facts", id: "rated-line" },
      ...rich(view.rated ? _("Rated game: the result moves the players' ratings ({ratings})") : _("Casual game: no rating moves ({ratings})"), { ratings: el("a", { href: "/docs/ratings#G1" }, _("ratings")) }),
    ),
    el("p", { class: "facts" }, pileWords()),
    el("div", { id: "scoreboard" }, scoreboardPanel()),
    el("p", {}, el("a", { href: `/games/${gameId}/replay?v=${view.version}` }, _("Replay")), " · ", el("a", { href: `/games/${gameId}/audit` }, _("Audit"))),
    ].filter(Boolean),
  );
  document.body.dataset.version = String(view.version);
  // while older steps play, the title already says when the newest one is my move
  const mineAtHead = state.myMove || Boolean(view.queue.length && view.headLegal?.decision && view.headLegal.player_id === me()?.account_id);
  const withColour = state.myMove ? colourOf(view.names, view.legal?.player_id, view.legal?.colour) : "";
  document.title = mineAtHead ? (withColour ? _("(1) Your move with {colour} · Tongiaki", { colour: withColour }) : _("(1) Your move · Tongiaki")) : `${gameTitle()} · Tongiaki`;
  document.querySelector("link[rel=icon]").setAttribute("href", mineAtHead ? "/static/favicon-move.svg" : "/favicon.ico");
  const bar = document.getElementById("action-bar");
  document.body.style.setProperty("--bar-height", `${bar && state.myMove ? bar.offsetHeight : 0}px`);
  document.body.dataset.myMove = state.myMove ? "1" : "";
  if (!view.viewing && !view.queue.length && !view.animating) markSeen(gameId, view.version);
}

/** "Turn 7 · pile: 9 islands and 8 oceans left". */
function pileWords() {
  const islands = ngettext("{n} island", "{n} islands", view.position.pile.islands);
  const oceans = ngettext("{n} ocean", "{n} oceans", view.position.pile.oceans);
  return _("Turn {turn} · pile: {islands} and {oceans} left", { turn: view.position.turn, islands, oceans });
}

function gameTitle() {
  const names = view.position.players.map((p) => view.names.byId[p.player_id]?.name || _("Seat {seat}", { seat: p.seat }));
  const table = names.length ? `${names.join(" · ")}` : _("Game {id}", { id: gameId });
  if (view.position.phase !== "ended") return table;
  const final = view.scoreboard?.final;
  const mine = me()?.account_id;
  if (final && mine && final.winners.includes(mine)) return _("You won · {table}", { table });
  const winner = final?.winners?.length === 1 ? view.names.byId[final.winners[0]]?.name : null;
  return winner ? _("Game over: {winner} won · {table}", { winner, table }) : _("Game over · {table}", { table });
}

function renderMoves() {
  const host = document.getElementById("moves");
  const current = view.viewing ? view.viewing.version : view.version;
  host.replaceChildren(moveList(view.turns, view.names, { current, onSelect: showVersion }));
  // keep the latest (or the one on the board) in sight inside the panel, not the page
  const mark = host.querySelector(".move.current") || [...host.querySelectorAll(".move")].at(-1);
  const panel = document.getElementById("moves-panel");
  if (mark && panel.scrollHeight > panel.clientHeight) {
    panel.scrollTop = mark.offsetTop - panel.offsetTop - panel.clientHeight / 2;
  }
  const since = document.getElementById("since-host");
  const before = view.turns
    .map((t) => ({ ...t, moves: t.moves.filter((m) => m.last <= (view.loadedAt ?? 0)) }))
    .filter((t) => t.moves.length);
  const card = view.sinceDismissed ? null : sinceLastVisit(before, view.names, view.seenAtLoad, {
    onDismiss: () => { view.sinceDismissed = true; renderMoves(); },
    onSelect: showVersion,
  });
  since.replaceChildren(...(card ? [card] : []));
}

function clear() {
  view.selection = [];
  view.tileCell = null;
  view.hoverCell = null;
  view.tileRot = null;
  view.confirm = null;
  render();
}

/** Add ``token`` to the move being built; a chosen target that cannot be chosen once
 * more is taken back instead (clicking a chosen beach again unselects it). */
function pick(token) {
  const state = computeState();
  const i = view.selection.lastIndexOf(token);
  if (!state.next.has(token) && i >= 0) view.selection = [...view.selection.slice(0, i), ...view.selection.slice(i + 1)];
  else view.selection = [...view.selection, token];
  view.notice = null;
  render();
}

function play(command) {
  if (!command) return;
  if (DESTRUCTIVE.has(command.type)) {
    view.confirm = command;
    render();
    document.getElementById("confirm-yes")?.focus();
    return;
  }
  send(command);
}

async function send(command) {
  view.sending = true;
  document.body.dataset.busy = "1";
  render();
  // the same move sent again (after a lost connection) keeps its key: if the first
  // attempt did reach the server, the second gets its answer instead of a new move
  const body = JSON.stringify(command);
  if (view.sendKey?.body !== body) view.sendKey = { body, key: newId() };
  // If-Match: judged against the position this page shows, or refused as stale
  const r = await api("POST", `/games/${gameId}/commands`, command, { "Idempotency-Key": view.sendKey.key, "If-Match": `"${view.version}"` });
  view.sending = false;
  const unsent = r.status === 0 || r.status >= 500 || r.status === 429;
  if (unsent) {
    // nothing was decided: keep the move as chosen, to send again
    view.notice = { text: _("Your move was not sent: {problem} It is kept: press Play again in a moment.", { problem: problemWords(r.data) }) };
    document.body.dataset.unsent = "1";
    delete document.body.dataset.busy;
    render();
    return;
  }
  delete document.body.dataset.unsent;
  view.sendKey = null;
  view.selection = [];
  view.tileCell = null;
  view.hoverCell = null;
  view.tileRot = null;
  view.confirm = null;
  if (!r.ok) {
    view.notice = { text: problemWords(r.data), rule: r.data?.rule };
    document.body.dataset.rejected = r.data?.rule || r.data?.code || "rejected";
  } else {
    view.notice = null;
  }
  await refresh();
  delete document.body.dataset.busy;
}

// --- what happens on the board -------------------------------------------------------

function overlayAt(version, position) {
  return overlayFor(view.history.events.get(version), position);
}

/** Whether the signed-in account has a seat at this game. */
function seatedHere() {
  return Boolean(me() && view.position?.players.some((p) => p.player_id === me().account_id));
}

// the events of a player's own decisions (not an offer's, a seat's or the bot's)
const DECIDED = new Set(["StartingBoatPlaced", "BoatsAdded", "BoatsPlaced", "EmigrationStarted", "TilePlaced", "BoatsLanded", "RoyalIslandFounded", "NewColonyFounded"]);

/** Whether I took a decision still in the history (T1: something to take back). */
function movedHere() {
  const mine = me()?.account_id;
  return [...view.history.steps.values()].some((s) => s.actor === mine && !s.superseded && DECIDED.has(s.type));
}

/** The move at ``version`` in words, for the dispute form (D1). */
function moveWords(version) {
  if (!Number.isInteger(version) || version < 1 || version > view.version) return _("no move: the game's versions are 1 to {version}", { version: view.version });
  const step = view.history.steps.get(version);
  if (!step) return _("the move at version {version}", { version });
  return _("turn {turn}, step {step}: {move} (version {version})", { turn: step.turn, step: step.step, move: step.description, version });
}

async function showVersion(version) {
  disputes?.setVersion(Math.min(version, view.version));
  if (version >= view.version) {
    view.viewing = null;
    render();
    renderMoves();
    return;
  }
  const state = await api("GET", `/games/${gameId}/state?at=${version}`);
  if (!state.ok) return;
  view.viewing = { version, position: state.data.position, overlay: overlayAt(version, state.data.position) };
  render();
  renderMoves();
  document.getElementById("board")?.scrollIntoView({ block: "nearest", behavior: "smooth" });
}

// --- loading and following --------------------------------------------------------

async function refresh(jump = false) {
  const [state, legal, scores] = await Promise.all([
    api("GET", `/games/${gameId}`),
    api("GET", `/games/${gameId}/legal`),
    api("GET", `/games/${gameId}/scoreboard`),
  ]);
  if (!state.ok) {
    // an unknown game (or nothing shown yet) says so; otherwise keep the page as it
    // is: the connection banner tells, and the next answer brings it up to date
    if (state.status === 404 || !view.position) {
      document.getElementById("main").replaceChildren(el("p", { class: "error" }, problemText(state.data)));
    }
    return;
  }
  view.names = people(state.data.players);
  view.players = state.data.players;
  view.offers = state.data.offers;
  view.clock = state.data.clock;
  view.clockAt = Date.now();
  view.timeControl = state.data.time_control;
  view.rated = state.data.rated === true;
  view.vacation = state.data.vacation || [];
  if (view.loadedAt === null) view.loadedAt = state.data.version;
  if (state.data.version < view.version) return;
  if (!jump && state.data.version > view.version) {
    for (let v = view.version + 1; v <= state.data.version; v++) if (!view.queue.includes(v)) view.queue.push(v);
    view.queue.sort((a, b) => a - b);
    view.headLegal = legal.ok && legal.data.version === state.data.version ? legal.data : view.headLegal;
    animate();
    return;
  }
  view.version = state.data.version;
  view.position = state.data.position;
  view.legal = legal.ok && legal.data.version === view.version ? legal.data : null;
  view.scoreboard = scores.ok ? scores.data : view.scoreboard;
  render();
  disputes?.refresh();
}

async function catchUpHistory() {
  const last = Math.max(0, ...view.history.events.keys());
  await loadHistory(gameId, view.history, last, view.queue.at(-1) || 0);
  await fillInSteps();
}

// timeline lines may arrive after their events (the read model lags them): fill in the
// ones missing, and while some still are, look again shortly (a last event, such as a
// refused takeback, has no later one to bring its line: the list stayed without it)
async function fillInSteps(tries = 0) {
  const lacking = () => [...view.history.events.keys()].filter((v) => !view.history.steps.has(v));
  const missing = lacking();
  if (missing.length) await loadHistory(gameId, view.history, Math.min(...missing) - 1);
  view.turns = groupMoves(view.history, view.names);
  renderMoves();
  if (lacking().length && tries < 40 && !view.fillingIn) {
    view.fillingIn = setTimeout(() => {
      view.fillingIn = null;
      fillInSteps(tries + 1);
    }, 500);
  }
}

// What the newest step will ask (so the title and the action bar can say "then it is
// your move" while older steps play); asked again whenever newer steps arrive.
function lookAhead() {
  const head = view.queue.at(-1);
  if (!head) return;
  api("GET", `/games/${gameId}/legal`).then((r) => {
    if (r.ok && r.data.version >= head && r.data.version >= (view.headLegal?.version || 0)) {
      view.headLegal = r.data;
      render();
    }
  });
}

// Steps made since the board's version, queued. Shown one by one while they are few;
// whenever more than MAX_ANIMATED wait (at the start, or because more keep coming
// faster than they are shown) the board jumps to now and the move list has them all:
// the page is never more than a few steps behind the game for long.
async function animate() {
  if (view.animating) {
    lookAhead();
    return;
  }
  view.animating = true;
  await catchUpHistory();
  lookAhead();
  while (view.queue.length) {
    if (view.queue.length > MAX_ANIMATED) {
      const missed = view.queue.length;
      view.queue = [];
      view.animating = false;
      view.headLegal = null;
      view.overlay = null;
      view.stepText = ngettext("{n} step was made meanwhile: see the move list.", "{n} steps were made meanwhile: see the move list.", missed);
      await refresh(true);
      await catchUpHistory();
      upToDate();
      return;
    }
    const version = view.queue.shift();
    if (version <= view.version) continue;
    const state = await api("GET", `/games/${gameId}/state?at=${version}`);
    if (!state.ok && (view.retries = (view.retries || 0) + 1) <= 5) {
      view.queue.unshift(version); // try again shortly rather than skip a step
      await new Promise((done) => setTimeout(done, 200));
      continue;
    }
    view.retries = 0;
    if (!state.ok) continue;
    view.version = version;
    view.position = state.data.position;
    view.legal = null;
    if (view.selection.length || view.tileCell !== null || view.confirm) {
      // a move being chosen here that the game moved past (made in another tab, say):
      // it goes, and the page says so rather than let it vanish
      view.notice = { text: _("The move you were choosing is gone: the game moved on before it was played (perhaps from another tab). Choose again when it is your move.") };
      view.tileCell = null;
      view.tileRot = null;
      view.confirm = null;
    }
    view.selection = [];
    view.overlay = overlayAt(version, view.position);
    const step = view.history.steps.get(version);
    const actor = step?.colour ? who(view.names, step.colour) : "";
    view.stepText = !step ? "" : actor ? _("Turn {turn} · {actor}: {move}", { turn: step.turn, actor, move: step.description }) : _("Turn {turn}: {move}", { turn: step.turn, move: step.description });
    render();
    if (view.queue.length) await new Promise((done) => setTimeout(done, stepMs()));
  }
  view.animating = false;
  view.headLegal = null;
  await refresh();
  renderMoves();
  upToDate();
}

// The stream is live again: say the page is up to date only once the board shows the
// game's newest step (while steps made meanwhile play, it says it is catching up).
function upToDate() {
  if (!view.backOnline || view.queue.length || view.animating || view.connection !== "live") return;
  view.backOnline = false;
  document.body.dataset.connection = "live";
  const box = document.getElementById("connection");
  box.textContent = _("The live connection is back: this page is up to date.");
  box.className = "banner ok";
  box.hidden = false;
  clearTimeout(banner.timer);
  banner.timer = setTimeout(() => (box.hidden = true), 3000);
}

function skip() {
  const last = view.queue.at(-1);
  view.queue = [];
  view.headLegal = null;
  if (last) {
    view.overlay = null;
    view.stepText = "";
    refresh(true);
  }
}

function banner(status) {
  if (status === "ended") return; // the game is over: its stream ended with its last event
  const box = document.getElementById("connection");
  const previous = view.connection;
  view.connection = status;
  // every state but "live" means this page may show an older position than the game's
  const words = {
    reconnecting: _("The live connection was lost: reconnecting… This page may be behind the game until it is back."),
    silent: _("No word from the server for a while: reconnecting… This page may be behind the game."),
    offline: _("You are offline: this page may be behind the game. It catches up as soon as the connection is back."),
    "catching-up": _("Catching up with the moves made meanwhile…"),
    polling: _("The server is busy: this page checks for new moves every 2 seconds."),
  }[status];
  document.body.dataset.connection = status; // for tests and styles: "live" when up to date
  if (words) {
    box.textContent = words;
    box.className = `banner ${status === "polling" || status === "catching-up" ? "info" : "warning"}`;
    box.hidden = false;
  } else if (previous !== "live") {
    view.backOnline = true;
    box.textContent = _("The live connection is back: catching up with the moves made meanwhile…");
    box.className = "banner info";
    box.hidden = false;
    document.body.dataset.connection = "catching-up"; // "live" once the board is at the game's newest step
    refresh().then(upToDate);
  }
}

function skeleton() {
  const speed = el(
    "select",
    { id: "speed", "aria-label": _("Step speed"), onchange: (e) => localStorage.setItem("tongiaki.stepMs", e.target.value) },
    SPEEDS.map(([ms, label]) => el("option", { value: ms }, label)),
  );
  speed.value = String(SPEEDS.find(([ms]) => ms >= stepMs())?.[0] ?? 450);
  document.getElementById("main").replaceChildren(
    el(
      "section",
      { class: "game" },
      el(
        "div",
        { class: "board-col" },
        el("div", { id: "connection", class: "banner", role: "status", hidden: true }),
        el("div", { id: "since-host" }),
        el("p", { id: "status-line", class: "status-line", "aria-hidden": "true" }),
        el("div", { id: "board", class: "board-host" }),
        el("div", { id: "legend" }),
        el(
          "div",
          { class: "row steps" },
          el("p", { id: "step", class: "step", "aria-live": "polite" }),
          el("label", {}, ...rich(_("Steps: {speed}"), { speed })),
          el("button", { type: "button", id: "skip", hidden: true, onclick: skip }, _("Skip to now")),
          el("button", { type: "button", id: "board-back", class: "primary", hidden: true, onclick: backToGame }, _("Back to the game")),
        ),
      ),
      el("aside", { id: "side", class: "side" }),
      el("section", { id: "moves-panel", class: "moves-panel", "aria-label": _("Move list") }, el("h3", {}, _("Moves")), el("div", { id: "moves" })),
      el("section", { id: "disputes-panel", class: "disputes-panel", "aria-label": _("Disputes") }),
      el("section", { id: "notes-panel", class: "notes-panel", "aria-label": _("My notes"), hidden: true }),
      el("section", { id: "log-panel", class: "log-panel", "aria-label": _("Public log") }),
    ),
  );
}

async function main() {
  nav(gameId);
  startTicking();
  const tiles = await api("GET", "/tiles");
  view.tiles = tiles.data;
  skeleton();
  board = new Board(document.getElementById("board"), view.tiles, {
    onBeach: (island, i) => pick(view.legal?.decision === "landing" ? `land:${island}:${i}:${view.landColour}` : `beach:${island}:${i}`),
    onJetty: (island, i, j) => pick(`jetty:${island}:${i}:${j}`),
    onCell: (k) => {
      view.tileCell = k;
      view.tileRot = null;
      render();
    },
    onCellHover: (k) => {
      if (view.hoverCell !== k && !view.tileCell) {
        view.hoverCell = k;
        render();
      }
    },
    onIsland: (island) => pick(`royal:${island}`),
  });
  await refresh(true);
  if (!view.position) return;
  await catchUpHistory();
  render();
  disputes = mountDisputes(document.getElementById("disputes-panel"), gameId, () => ({
    seated: seatedHere(),
    version: view.viewing ? view.viewing.version : view.version,
    describe: moveWords,
  }));
  mountChat(document.getElementById("disputes-panel"), gameId);
  mountNotes(document.getElementById("notes-panel"), gameId, document.getElementById("board"), seatedHere);
  const log = mountLogCheck(document.getElementById("log-panel"), gameId, () => ({ version: view.version }));
  follow(gameId, view.version, (version) => {
    view.queue.push(version);
    animate();
    log.recheck();
  }, banner);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && (view.selection.length || view.confirm || view.tileCell)) clear();
  });
}

main();
