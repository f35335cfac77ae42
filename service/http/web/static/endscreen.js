// The end screen's explanation of the score (GET /games/{id}/score): for every island
// scored, its value, which colours are on it (boats, a king) and what each player gets
// there (R22; two colours each: both of a player's colours count, R5), then a line for
// every player: total, rank, and what placed them before the next one (R23, C6).
// The server counts (domain.scoring.island_scores): nothing is scored here.

import { api, cap, colourChip, colourName, el } from "./api.js";
import { _, ngettext, number } from "./i18n.js";
import { rich, seatName } from "./words.js";

let panel = null; // one panel per page, kept across the game page's renders
let loadedFor = null;

// what placed a player before the next one, and the rule that says so
const AHEAD = {
  points: (name) => [_("more points than {name}", { name }), null],
  islands: (name) => [_("the same points, but on more islands than {name} (rule R23)", { name }), "R23"],
  boats: (name) => [_("the same points and islands, but fewer boats on the board than {name} (rule R23)", { name }), "R23"],
  shared: (name) => [_("tied on points, islands and boats with {name}: the rank is shared (rule R23)", { name }), "R23"],
  resigned: (name) => [_("ahead of {name}, who resigned (rule C6)", { name }), "C6"],
};

function named(line) {
  return line.name || (line.level ? seatName(line) : line.player_id);
}

function islandRow(island) {
  const on = [
    ...island.boats.map((b) => colourChip(b.colour, _("{colour} {boats}", { colour: colourName(b.colour), boats: number(b.boats) }))),
    island.king ? el("span", { class: "king" }, " ", ...rich(_("king: {colour} (rule R16)"), { colour: colourChip(island.king, colourName(island.king)) }, ["R16"])) : null,
  ];
  const scorers = island.scorers.map((s) =>
    el(
      "li",
      {},
      s.colours.length > 1
        ? _("{name}: {points} ({colours}: {count} × {value})", { name: named(s), points: number(s.points), colours: s.colours.map(colourName).join(" + "), count: number(s.colours.length), value: number(island.value) })
        : _("{name}: {points}", { name: named(s), points: number(s.points) }),
    ),
  );
  return el(
    "tr",
    { "data-island": island.tile },
    el("th", { scope: "row" }, cap(island.tile.replaceAll("_", " "))),
    el("td", { class: "num", "data-label": _("Value") }, number(island.value)),
    el("td", { "data-label": _("On it") }, ...on),
    el("td", { "data-label": _("Scores") }, el("ul", { class: "scorers" }, scorers)),
  );
}

function playerLine(line, next) {
  const fields = {
    name: named(line),
    colours: line.colours.map(colourName).join(" + "),
    points: ngettext("{n} point", "{n} points", line.points),
    islands: ngettext("{n} island", "{n} islands", line.islands),
    boats: ngettext("{n} boat", "{n} boats", line.boats),
  };
  const summary = line.resigned
    ? _("{name} ({colours}): {points}, on {islands}, {boats} on the board — resigned, ranks after those who did not (rule C6)", fields)
    : _("{name} ({colours}): {points}, on {islands}, {boats} on the board", fields);
  const rules = line.resigned ? ["C6"] : [];
  let words = _("{summary}.", { summary });
  if (next && line.ahead_of_next && AHEAD[line.ahead_of_next]) {
    const [ahead, rule] = AHEAD[line.ahead_of_next](named(next));
    words = _("{summary}; {ahead}.", { summary, ahead });
    if (rule && !rules.includes(rule)) rules.push(rule);
  }
  return el("li", { "data-player": line.player_id, value: String(line.rank) }, ...rich(words, {}, rules));
}

function render(sheet) {
  const two = sheet.two_colours_each;
  const table = el(
    "table",
    { class: "scores islands-scored", "aria-label": _("Points per island") },
    el(
      "caption",
      { class: "muted" },
      ...rich(_("Each island gives its value to every player with a boat or a king on it (rule R22); Tonga is worth 0."), {}, ["R22"]),
      ...(two ? [" ", ...rich(_("Each colour scores as a seat: an island holding both of a player's colours counts twice (rule R5)."), {}, ["R5"])] : []),
    ),
    el("thead", {}, el("tr", {}, ...[_("Island"), _("Value"), _("On it"), _("Scores")].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, sheet.islands.map(islandRow)),
  );
  const players = el("ol", { id: "score-players", class: "score-players" }, sheet.players.map((line, i) => playerLine(line, sheet.players[i + 1])));
  const amended = sheet.amended
    ? el("p", { id: "score-amended" }, ...rich(sheet.amended.annulled ? _("A ruling annulled the game: it counts for nobody (rule D4).") : _("A ruling amended the ranking (rule D4)."), {}, ["D4"]))
    : null;
  panel.replaceChildren(...[el("h4", {}, _("How the score was made")), table, el("h4", {}, _("Every player")), players, amended].filter(Boolean));
}

/** The score's explanation for ``gameId``, loaded once per ``version`` (the same node each call). */
export function scoreExplained(gameId, version) {
  panel ||= el("section", { id: "score-explained", class: "score-explained", "aria-label": _("How the score was made") }, el("p", { class: "muted" }, _("Counting the score…")));
  if (loadedFor !== version) {
    loadedFor = version;
    api("GET", `/games/${gameId}/score`).then((r) => {
      if (r.ok && loadedFor === version) render(r.data);
      else if (!r.ok) panel.replaceChildren(el("p", { class: "muted" }, _("The score's explanation cannot be read right now.")));
    });
  }
  return panel;
}
