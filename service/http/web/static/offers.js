// Offers at the table (docs/table.md, T1–T8): ask to take back your last decision,
// propose to end the game, and answer the other players' offers. Every offer is a
// command on the game's record; the other pages hear of it on the live stream.

import { el, me, ruleLink } from "./api.js";

function nameOf(names, id) {
  return names.byId[id]?.name || "A player";
}

function people(names, ids) {
  return ids.length ? ids.map((id) => nameOf(names, id)).join(", ") : "nobody";
}

/** An open offer in words, with the buttons its reader may press. */
function openOffer(kind, offer, names, send) {
  const mine = me()?.account_id;
  const asker = offer.player_id === mine ? "You" : nameOf(names, offer.player_id);
  const takeback = kind === "takeback";
  const what = takeback
    ? `${asker} asked to take back ${asker === "You" ? "your" : "their"} last decision: the board would go back to before it, and the moves after it are set aside. No tile has been drawn since (`
    : `${asker} proposed to end the game now, scored as it stands (`;
  const rule = takeback ? "T1" : "T6";
  const waiting = offer.waiting_for.includes(mine);
  const buttons = [];
  if (waiting) {
    const accept = takeback ? "AnswerTakeback" : "AnswerEnd";
    const final = takeback ? null : "End the game now, scored as it stands? If every other player still in the game has accepted, this is final.";
    buttons.push(
      el("button", { type: "button", id: `accept-${kind}`, class: "primary", onclick: () => send(accept, { accept: true }, final) }, "Accept"),
      el("button", { type: "button", id: `refuse-${kind}`, onclick: () => send(accept, { accept: false }) }, takeback ? "Refuse" : "Decline"),
    );
  }
  if (offer.player_id === mine) {
    buttons.push(el("button", { type: "button", id: `withdraw-${kind}`, onclick: () => send(takeback ? "WithdrawTakeback" : "WithdrawEnd") }, "Withdraw"));
  }
  return el(
    "div",
    { class: "offer", id: `offer-${kind}`, role: "status" },
    el("p", {}, what, ruleLink(rule), ").", waiting ? el("strong", {}, " Your answer is awaited.") : null),
    el("p", { class: "muted" }, `Accepted: ${people(names, offer.accepted.filter((id) => id !== offer.player_id))} · awaiting: ${people(names, offer.waiting_for)}`),
    buttons.length ? el("div", { class: "row" }, buttons) : null,
  );
}

/** The offers panel of a game page: ``offers`` as GET /games/{id} gives them; ``moved``:
 * whether the reader took a decision still in the history (else nothing to take back);
 * ``send(type, fields, question)`` sends a command for the reader's seat. */
export function offersPanel({ offers, players, names, running, moved, send }) {
  if (!running) return null;
  const mine = players.find((p) => p.player_id === me()?.account_id);
  const t = offers?.takeback;
  const e = offers?.end;
  if (!mine && !t && !e) return null;
  const parts = [];
  if (t) parts.push(openOffer("takeback", t, names, send));
  if (e) parts.push(openOffer("end", e, names, send));
  const buttons = [];
  if (mine && !t && !mine.bot && moved) {
    buttons.push(el("button", { type: "button", id: "ask-takeback", onclick: () => send("RequestTakeback") }, "Ask to take back my last move"));
  }
  if (mine && !e && mine.bot !== "resigned") {
    const question = "Propose to end the game now? It ends, scored as it stands, once every player still in the game accepts.";
    buttons.push(el("button", { type: "button", id: "propose-end", onclick: () => send("ProposeEnd", {}, question) }, "Propose to end the game"));
  }
  if (buttons.length) parts.push(el("div", { class: "row offer-actions" }, buttons));
  return el("section", { class: "offers", id: "offers", "aria-label": "Offers at the table" }, el("h3", {}, "Offers"), ...parts);
}
