// Clear words for what the game shows: who plays which colour, what is awaited,
// how a game ended. Internal names (choose_emigration, last_island_drawn) never
// reach the screen.

import { cap } from "./api.js";

/** Names by colour and by player id, from GET /games/{id} (players). */
export function people(players) {
  const byColour = {};
  const byId = {};
  for (const p of players || []) {
    const name = p.name || `Seat ${p.seat}`;
    byId[p.player_id] = { name, colours: p.colours, seat: p.seat };
    for (const c of p.colours) byColour[c] = name;
  }
  return { byColour, byId };
}

/** "Ann (Blue)" or "Blue" when nobody is known to play it. */
export function who(names, colour) {
  const name = names.byColour[colour];
  return name ? `${name} (${cap(colour)})` : cap(colour);
}

export function colourList(colours) {
  const words = colours.map(cap);
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} and ${words.at(-1)}` : words[0] || "";
}

const AWAITED = {
  setup_placement: ["place a starting boat on Tonga", "is placing a starting boat on Tonga"],
  turn_start: [
    "expand on an island (click its beaches), or found a royal island, or start a new colonisation",
    "is starting a turn",
  ],
  choose_emigration: ["choose which full beach emigrates, and by which jetty", "is choosing an emigration"],
  landing: ["land the arriving fleet: pick a colour, then the beaches (boats left out go home)", "is landing a fleet"],
  tile_placement: ["place the drawn tile: pick where, turn it, then Play", "is placing a tile"],
  colonist_placement: ["put your colonist on a free slot of the new island", "is placing a colonist"],
};

/** The colour to name when a player has two (two colours each, R5): "" otherwise. */
export function colourOf(names, playerId, colour) {
  const player = names.byId[playerId];
  return player && player.colours.length > 1 && colour ? cap(colour) : "";
}

/** What the game waits for, said to the one who must act or to everybody else;
 * ``colour`` (when the player has two) says which of them moves. */
export function awaited(decision, mine, actor, colour = "") {
  const [yours, theirs] = AWAITED[decision] || ["make your move", "is moving"];
  return mine ? `Your move${colour ? ` with ${colour}` : ""}: ${yours}.` : `${actor} ${theirs}.`;
}

/** A player's points, and with two colours each colour's and why they add up (R5). */
export function pointsWords(seat) {
  if (seat.colours.length < 2) return `${seat.points}`;
  const parts = seat.colours.map((c) => `${cap(c.colour)} ${c.points}`).join(" + ");
  return `${seat.points} (${parts})`;
}

const ENDS = {
  last_island_drawn: "The last island tile was drawn",
  last_ocean_drawn: "The last ocean tile was drawn",
  abandoned: "Nobody was left to play: the bot had every seat",
  agreement: "Every player still in the game agreed to end it (T6)",
};
const TIE_BREAKS = {
  islands: " (equal points: decided by the number of islands, rule R23)",
  boats: " (equal points and islands: decided by fewer boats on the board, rule R23)",
  shared: " (a shared win: equal points, islands and boats, rule R23)",
  none: "",
};

/** The end of a game in words: why, who won, and the ranking (with each colour's
 * points when a player has two, from the scoreboard's ``seats``). */
export function result(final, names, seats = []) {
  const label = (id) => {
    const p = names.byId[id];
    return p ? `${p.name} (${colourList(p.colours)})` : id;
  };
  const winners = final.winners.map(label);
  const points = final.ranking.find((r) => final.winners.includes(r.player_id))?.points ?? 0;
  const won =
    winners.length > 1 ? `${winners.join(" and ")} share the win with ${points} points` : `${winners[0]} wins with ${points} points`;
  return {
    headline: `${ENDS[final.reason] || "The game is over"}: ${won}${TIE_BREAKS[final.tie_break] || ""}.`,
    ranking: final.ranking.map((r) => {
      const seat = seats.find((s) => s.player_id === r.player_id);
      const split = seat && seat.colours.length > 1 ? ` (${seat.colours.map((c) => `${cap(c.colour)} ${c.points}`).join(" + ")}: each colour scores as a seat and a player's two add up, R5)` : "";
      return `${r.rank}. ${label(r.player_id)}: ${r.points} points${split}${(final.resigned || []).includes(r.player_id) ? " (resigned: ranks last, C6)" : ""}`;
    }),
  };
}
