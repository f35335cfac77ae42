// The game page's rematch panel (docs/invitations.md, RM1–RM9): the game this one is a
// rematch of; at the end, the proposal with every player's answer, the buttons to
// propose, accept or decline, and the new game once every player accepted. The answer
// is read again every few seconds while a proposal waits (on a player's page, and less
// often on a spectator's, until the new game is opened), so the players' proposals and
// answers, sent from anywhere at any time, appear here.

import { api, el, me, problemText, ruleLink, toast, withNodes } from "./api.js";
import { _, number } from "./i18n.js";
import { seatName } from "./words.js";

const EVERY = 4000; // ms between looks while a proposal waits (or a player waits for one)
const SLOW = 12000; // ms between a spectator's looks for a proposal to come
let panel = null;
let shown = null; // the last answer drawn (GET /games/{id}/rematch)
let timer = null;
// a player's answer to the proposal, in words (the answer is for programs)
const ANSWERS = { waiting: _("waiting"), accepted: _("accepted"), declined: _("declined"), bot: _("a bot, seated again") };

/** Fresh entropy for the new deck, as a join may carry (RM5). */
function entropy() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function answer(gameId, path, body) {
  const r = await api("POST", `/games/${gameId}/rematch${path}`, body);
  if (!r.ok) toast(problemText(r.data), "error");
  await look(gameId);
}

function answers(proposal) {
  return el(
    "ul",
    { id: "rematch-answers", class: "plain" },
    proposal.players.map((p) => el("li", { "data-player": p.player_id, "data-answer": p.answer }, _("Seat {seat}: {name} — {answer}", { seat: number(p.new_seat), name: p.name || (p.level ? seatName(p) : "?"), answer: ANSWERS[p.answer] || p.answer }))),
  );
}

function proposalPart(gameId, proposal, seated) {
  const mine = me()?.account_id;
  const my = proposal.players.find((p) => p.player_id === mine);
  const parts = [];
  if (proposal.status === "opened") {
    parts.push(el("p", { id: "rematch-next" }, withNodes(_("Rematch: {game} (seats rotated, {rule})."), { game: el("a", { href: `/games/${proposal.next_game_id}`, id: "rematch-next-link" }, _("game {id}", { id: proposal.next_game_id })), rule: ruleLink("RM4") })));
  } else if (proposal.status === "declined") {
    parts.push(el("p", { id: "rematch-declined" }, withNodes(_("The rematch was declined ({rule})."), { rule: ruleLink("RM5") })));
  } else {
    parts.push(el("p", { id: "rematch-status" }, proposal.status === "open" ? _("A rematch is proposed: the same table, seats rotated.") : _("Every player accepted: the new game is being opened.")));
  }
  parts.push(answers(proposal));
  if (proposal.status === "open" && my?.answer === "waiting") {
    parts.push(
      el("p", { class: "row" },
        el("button", { type: "button", id: "rematch-accept", class: "primary", onclick: () => answer(gameId, "/accept", { entropy: entropy() }) }, _("Accept the rematch")),
        " ",
        el("button", { type: "button", id: "rematch-decline", onclick: () => answer(gameId, "/decline", {}) }, _("Decline")),
      ),
    );
  }
  if (proposal.status === "declined" && seated) parts.push(proposeButton(gameId, _("Propose again")));
  return parts;
}

function proposeButton(gameId, words) {
  return el("button", { type: "button", id: "rematch-propose", onclick: () => answer(gameId, "", { entropy: entropy() }) }, words);
}

function draw(gameId, data, ended, seated) {
  const parts = [];
  if (data.previous_game_id) parts.push(el("p", { id: "rematch-previous" }, withNodes(_("A rematch of {game}."), { game: el("a", { href: `/games/${data.previous_game_id}`, id: "rematch-previous-link" }, _("game {id}", { id: data.previous_game_id })) })));
  if (ended && data.proposal) parts.push(el("h4", {}, _("Rematch")), ...proposalPart(gameId, data.proposal, seated));
  else if (ended && seated) parts.push(el("h4", {}, _("Rematch")), el("p", { class: "muted" }, _("Play the same table again, the seats rotated: the others accept when they come.")), proposeButton(gameId, _("Propose a rematch")));
  panel.hidden = parts.length === 0;
  panel.replaceChildren(...parts);
}

async function look(gameId) {
  const r = await api("GET", `/games/${gameId}/rematch`);
  if (!r.ok) return;
  shown = r.data;
  draw(gameId, shown, panel.dataset.ended === "1", panel.dataset.seated === "1");
  // anyone looks for the answers to a proposal that waits, and (less often) for a
  // proposal to come, until the new game is opened: a spectator's page too
  const status = shown.proposal?.status;
  clearTimeout(timer);
  if (status === "opened" || panel.dataset.ended !== "1") return;
  const seated = panel.dataset.seated === "1";
  const every = ["open", "accepted"].includes(status) || seated ? EVERY : SLOW;
  timer = setTimeout(function again() {
    if (document.hidden) timer = setTimeout(again, every); // a tab in the background
    else look(gameId);
  }, every);
}

/** The rematch panel of ``gameId`` (the same node each call), drawn for the game as it
 * is now: ``ended``, and whether this browser's account sits at it. */
export function rematchPanel(gameId, ended, seated) {
  const first = panel === null;
  panel ||= el("section", { id: "rematch", class: "card rematch", "aria-label": _("Rematch"), "aria-live": "polite", hidden: true });
  const was = panel.dataset.ended;
  panel.dataset.ended = ended ? "1" : "";
  panel.dataset.seated = seated ? "1" : "";
  if (first || (ended && was !== "1")) look(gameId);
  else if (shown) draw(gameId, shown, ended, seated);
  return panel;
}
