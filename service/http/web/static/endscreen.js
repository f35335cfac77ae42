// The end screen's explanation of the score (GET /games/{id}/score): for every island
// scored, its value, which colours are on it (boats, a king) and what each player gets
// there (R22; two colours each: both of a player's colours count, R5), then a line for
// every player: total, rank, and what placed them before the next one (R23, C6).
// The server counts (domain.scoring.island_scores): nothing is scored here.

import { api, cap, colourChip, el, ruleLink } from "./api.js";

let panel = null; // one panel per page, kept across the game page's renders
let loadedFor = null;

const AHEAD = {
  points: () => ["more points than ", null],
  islands: () => ["the same points, but on more islands than ", "R23"],
  boats: () => ["the same points and islands, but fewer boats on the board than ", "R23"],
  shared: () => ["tied on points, islands and boats with ", "R23"],
  resigned: () => ["ahead of ", "C6"],
};

function named(line) {
  return line.name || line.player_id;
}

function islandRow(island) {
  const on = [
    ...island.boats.map((b) => colourChip(b.colour, `${cap(b.colour)} ${b.boats}`)),
    island.king ? el("span", { class: "king" }, " king: ", colourChip(island.king, cap(island.king)), " (", ruleLink("R16"), ")") : null,
  ];
  const scorers = island.scorers.map((s) =>
    el(
      "li",
      {},
      `${named(s)}: ${s.points}`,
      s.colours.length > 1 ? ` (${s.colours.map(cap).join(" + ")}: ${s.colours.length} × ${island.value})` : "",
    ),
  );
  return el(
    "tr",
    { "data-island": island.tile },
    el("th", { scope: "row" }, cap(island.tile.replaceAll("_", " "))),
    el("td", { class: "num", "data-label": "Value" }, String(island.value)),
    el("td", { "data-label": "On it" }, ...on),
    el("td", { "data-label": "Scores" }, el("ul", { class: "scorers" }, scorers)),
  );
}

function playerLine(line, next) {
  const words = [`${named(line)} (${line.colours.map(cap).join(" + ")}): ${line.points} points, on ${line.islands} islands, ${line.boats} boats on the board`];
  if (line.resigned) words.push(" — resigned, ranks after those who did not (", ruleLink("C6"), ")");
  if (next && line.ahead_of_next && AHEAD[line.ahead_of_next]) {
    const [why, rule] = AHEAD[line.ahead_of_next]();
    words.push(`; ${why}${named(next)}${line.ahead_of_next === "resigned" ? ", who resigned" : ""}`);
    if (line.ahead_of_next === "shared") words.push(": the rank is shared");
    if (rule) words.push(" (", ruleLink(rule), ")");
  }
  words.push(".");
  return el("li", { "data-player": line.player_id, value: String(line.rank) }, ...words);
}

function render(sheet) {
  const two = sheet.two_colours_each;
  const table = el(
    "table",
    { class: "scores islands-scored", "aria-label": "Points per island" },
    el(
      "caption",
      { class: "muted" },
      "Each island gives its value to every player with a boat or a king on it (",
      ruleLink("R22"),
      "); Tonga is worth 0.",
      two ? " Each colour scores as a seat: an island holding both of a player's colours counts twice (" : "",
      two ? ruleLink("R5") : "",
      two ? ")." : "",
    ),
    el("thead", {}, el("tr", {}, ...["Island", "Value", "On it", "Scores"].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, sheet.islands.map(islandRow)),
  );
  const players = el("ol", { id: "score-players", class: "score-players" }, sheet.players.map((line, i) => playerLine(line, sheet.players[i + 1])));
  const amended = sheet.amended
    ? el("p", { id: "score-amended" }, sheet.amended.annulled ? "A ruling annulled the game: it counts for nobody (" : "A ruling amended the ranking (", ruleLink("D4"), ").")
    : null;
  panel.replaceChildren(...[el("h4", {}, "How the score was made"), table, el("h4", {}, "Every player"), players, amended].filter(Boolean));
}

/** The score's explanation for ``gameId``, loaded once per ``version`` (the same node each call). */
export function scoreExplained(gameId, version) {
  panel ||= el("section", { id: "score-explained", class: "score-explained", "aria-label": "How the score was made" }, el("p", { class: "muted" }, "Counting the score…"));
  if (loadedFor !== version) {
    loadedFor = version;
    api("GET", `/games/${gameId}/score`).then((r) => {
      if (r.ok && loadedFor === version) render(r.data);
      else if (!r.ok) panel.replaceChildren(el("p", { class: "muted" }, "The score's explanation cannot be read right now."));
    });
  }
  return panel;
}
