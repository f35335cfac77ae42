// Clear words for what the game shows: who plays which colour, what is awaited,
// how a game ended. Internal names (choose_emigration, last_island_drawn) never
// reach the screen.

import { colourName, ruleLink } from "./api.js";
import { _, list, ngettext, number } from "./i18n.js";

/** What the pages call a seat's player: their name; a bot's seat by its level (B1). */
export function seatName(p) {
  if (p.name) return p.name;
  return p.level ? _("Bot ({level})", { level: p.level }) : _("Seat {seat}", { seat: number(p.seat) });
}

/** Names by colour and by player id, from GET /games/{id} (players). */
export function people(players) {
  const byColour = {};
  const byId = {};
  for (const p of players || []) {
    const name = seatName(p);
    byId[p.player_id] = { name, colours: p.colours, seat: p.seat };
    for (const c of p.colours) byColour[c] = name;
  }
  return { byColour, byId };
}

/** "Ann (Blue)" or "Blue" when nobody is known to play it. */
export function who(names, colour) {
  const name = names.byColour[colour];
  return name ? _("{name} ({colour})", { name, colour: colourName(colour) }) : colourName(colour);
}

export function colourList(colours) {
  return list(colours.map(colourName));
}

/** A message as children for el(): its remaining {fields} replaced by ``nodes`` (chips,
 * links), and the ``rules`` it names ("rule R22", as ruleLink says it) made links. */
export function rich(text, nodes = {}, rules = []) {
  let pieces = text.split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/).map((part, i) => (i % 2 ? (part in nodes ? nodes[part] : `{${part}}`) : part));
  for (const rule of rules) pieces = pieces.flatMap((piece) => (typeof piece === "string" ? linkRule(piece, rule) : [piece]));
  return pieces.flat().filter((piece) => piece !== "" && piece !== null && piece !== undefined);
}

function linkRule(text, rule) {
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const phrase = ruleLink(rule).textContent;
  // the rule as the link says it ("rule R22"), else its id alone in a translation that words it otherwise
  const at = new RegExp(`(${escape(phrase)}|\\b${escape(rule)})(?![0-9])`);
  const out = [];
  let rest = text;
  for (let m = rest.match(at); m; m = rest.match(at)) {
    const link = ruleLink(rule);
    link.textContent = m[1];
    out.push(rest.slice(0, m.index), link);
    rest = rest.slice(m.index + m[1].length);
  }
  out.push(rest);
  return out;
}

/** What is awaited: [to the one who moves, the same with their colour, to everybody else]. */
function awaitedWords(decision, colour, actor) {
  switch (decision) {
    case "setup_placement":
      return [
        _("Your move: place a starting boat on Tonga."),
        _("Your move with {colour}: place a starting boat on Tonga.", { colour }),
        _("{actor} is placing a starting boat on Tonga.", { actor }),
      ];
    case "turn_start":
      return [
        _("Your move: expand on an island (click its beaches), or found a royal island, or start a new colonisation."),
        _("Your move with {colour}: expand on an island (click its beaches), or found a royal island, or start a new colonisation.", { colour }),
        _("{actor} is starting a turn.", { actor }),
      ];
    case "choose_emigration":
      return [
        _("Your move: choose which full beach emigrates, and by which jetty."),
        _("Your move with {colour}: choose which full beach emigrates, and by which jetty.", { colour }),
        _("{actor} is choosing an emigration.", { actor }),
      ];
    case "landing":
      return [
        _("Your move: land the arriving fleet: pick a colour, then the beaches (boats left out go home)."),
        _("Your move with {colour}: land the arriving fleet: pick a colour, then the beaches (boats left out go home).", { colour }),
        _("{actor} is landing a fleet.", { actor }),
      ];
    case "tile_placement":
      return [
        _("Your move: place the drawn tile: pick where, turn it, then Play."),
        _("Your move with {colour}: place the drawn tile: pick where, turn it, then Play.", { colour }),
        _("{actor} is placing a tile.", { actor }),
      ];
    case "colonist_placement":
      return [
        _("Your move: put your colonist on a free slot of the new island."),
        _("Your move with {colour}: put your colonist on a free slot of the new island.", { colour }),
        _("{actor} is placing a colonist.", { actor }),
      ];
    default:
      return [_("Your move: make your move."), _("Your move with {colour}: make your move.", { colour }), _("{actor} is moving.", { actor })];
  }
}

/** The colour to name when a player has two (two colours each, R5): "" otherwise. */
export function colourOf(names, playerId, colour) {
  const player = names.byId[playerId];
  return player && player.colours.length > 1 && colour ? colourName(colour) : "";
}

/** What the game waits for, said to the one who must act or to everybody else;
 * ``colour`` (when the player has two) says which of them moves. */
export function awaited(decision, mine, actor, colour = "") {
  const [yours, yoursWith, theirs] = awaitedWords(decision, colour, actor);
  return mine ? (colour ? yoursWith : yours) : theirs;
}

/** "Blue 12 + Red 9": each colour's points. */
function colourPoints(colours) {
  return colours.map((c) => _("{colour} {points}", { colour: colourName(c.colour), points: number(c.points) })).join(" + ");
}

/** A player's points, and with two colours each colour's and why they add up (R5). */
export function pointsWords(seat) {
  if (seat.colours.length < 2) return number(seat.points);
  return _("{points} ({parts})", { points: number(seat.points), parts: colourPoints(seat.colours) });
}

const ENDS = {
  last_island_drawn: _("The last island tile was drawn"),
  last_ocean_drawn: _("The last ocean tile was drawn"),
  abandoned: _("Nobody was left to play: the bot had every seat"),
  agreement: _("Every player still in the game agreed to end it (T6)"),
};
const TIE_BREAKS = {
  islands: _("equal points: decided by the number of islands, rule R23"),
  boats: _("equal points and islands: decided by fewer boats on the board, rule R23"),
  shared: _("a shared win: equal points, islands and boats, rule R23"),
};

/** The end of a game in words: why, who won, and the ranking (with each colour's
 * points when a player has two, from the scoreboard's ``seats``). */
export function result(final, names, seats = []) {
  const label = (id) => {
    const p = names.byId[id];
    return p ? _("{name} ({colours})", { name: p.name, colours: colourList(p.colours) }) : id;
  };
  const winners = final.winners.map(label);
  const points = final.ranking.find((r) => final.winners.includes(r.player_id))?.points ?? 0;
  const won =
    winners.length > 1
      ? ngettext("{winners} share the win with {n} point", "{winners} share the win with {n} points", points, { winners: list(winners) })
      : ngettext("{winner} wins with {n} point", "{winner} wins with {n} points", points, { winner: winners[0] });
  const reason = ENDS[final.reason] || _("The game is over");
  const why = TIE_BREAKS[final.tie_break];
  return {
    headline: why ? _("{reason}: {outcome} ({why}).", { reason, outcome: won, why }) : _("{reason}: {outcome}.", { reason, outcome: won }),
    ranking: final.ranking.map((r) => {
      const seat = seats.find((s) => s.player_id === r.player_id);
      const fields = { rank: r.rank, player: label(r.player_id), points: ngettext("{n} point", "{n} points", r.points) };
      const split = seat && seat.colours.length > 1 ? colourPoints(seat.colours) : "";
      const resigned = (final.resigned || []).includes(r.player_id);
      if (split && resigned) return _("{rank}. {player}: {points} ({split}: each colour scores as a seat and a player's two add up, R5) (resigned: ranks last, C6)", { ...fields, split });
      if (split) return _("{rank}. {player}: {points} ({split}: each colour scores as a seat and a player's two add up, R5)", { ...fields, split });
      if (resigned) return _("{rank}. {player}: {points} (resigned: ranks last, C6)", fields);
      return _("{rank}. {player}: {points}", fields);
    }),
  };
}
