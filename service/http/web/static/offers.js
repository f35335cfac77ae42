// Offers at the table (docs/table.md, T1–T8): ask to take back your last decision,
// propose to end the game, and answer the other players' offers. Every offer is a
// command on the game's record; the other pages hear of it on the live stream.

import { el, me, ruleLink, withNodes } from "./api.js";
import { _, list } from "./i18n.js";

function nameOf(names, id) {
  return names.byId[id]?.name || _("A player");
}

function people(names, ids) {
  return ids.length ? list(ids.map((id) => nameOf(names, id))) : _("nobody");
}

/** An open offer in words, with the buttons its reader may press. */
function openOffer(kind, offer, names, send) {
  const mine = me()?.account_id;
  const asker = nameOf(names, offer.player_id);
  const takeback = kind === "takeback";
  const rule = ruleLink(takeback ? "T1" : "T6");
  const what = offer.player_id === mine
    ? takeback
      ? _("You asked to take back your last decision: the board would go back to before it, and the moves after it are set aside. No tile has been drawn since ({rule}).")
      : _("You proposed to end the game now, scored as it stands ({rule}).")
    : takeback
      ? _("{name} asked to take back their last decision: the board would go back to before it, and the moves after it are set aside. No tile has been drawn since ({rule}).")
      : _("{name} proposed to end the game now, scored as it stands ({rule}).");
  const waiting = offer.waiting_for.includes(mine);
  const buttons = [];
  if (waiting) {
    const accept = takeback ? "AnswerTakeback" : "AnswerEnd";
    const final = takeback ? null : _("End the game now, scored as it stands? If every other player still in the game has accepted, this is final.");
    buttons.push(
      el("button", { type: "button", id: `accept-${kind}`, class: "primary", onclick: () => send(accept, { accept: true }, final) }, _("Accept")),
      el("button", { type: "button", id: `refuse-${kind}`, onclick: () => send(accept, { accept: false }) }, takeback ? _("Refuse") : _("Decline")),
    );
  }
  if (offer.player_id === mine) {
    buttons.push(el("button", { type: "button", id: `withdraw-${kind}`, onclick: () => send(takeback ? "WithdrawTakeback" : "WithdrawEnd") }, _("Withdraw")));
  }
  return el(
    "div",
    { class: "offer", id: `offer-${kind}`, role: "status" },
    el("p", {}, withNodes(what, { name: asker, rule }), waiting ? el("strong", {}, " ", _("Your answer is awaited.")) : null),
    el("p", { class: "muted" }, _("Accepted: {accepted} · awaiting: {waiting}", { accepted: people(names, offer.accepted.filter((id) => id !== offer.player_id)), waiting: people(names, offer.waiting_for) })),
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
    buttons.push(el("button", { type: "button", id: "ask-takeback", onclick: () => send("RequestTakeback") }, _("Ask to take back my last move")));
  }
  if (mine && !e && mine.bot !== "resigned") {
    const question = _("Propose to end the game now? It ends, scored as it stands, once every player still in the game accepts.");
    buttons.push(el("button", { type: "button", id: "propose-end", onclick: () => send("ProposeEnd", {}, question) }, _("Propose to end the game")));
  }
  if (buttons.length) parts.push(el("div", { class: "row offer-actions" }, buttons));
  return el("section", { class: "offers", id: "offers", "aria-label": _("Offers at the table") }, el("h3", {}, _("Offers")), ...parts);
}
