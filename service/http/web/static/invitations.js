// Private tables and invitations (docs/invitations.md, I1–I8). On the lobby: the fields
// that make the new table private (invitees, a link), the invitations waiting for this
// account with Join and Decline, and the card an invitation link opens. On the game
// page: a private table's invitations and answers, and its link for its opener.

import { api, colourName, COLOURS, el, me, problemText, ruleLink, toast, withNodes } from "./api.js";
import { _, ngettext, number } from "./i18n.js";

// an invitee's answer so far, in words (the status is for programs)
const ANSWERS = { invited: _("invited"), declined: _("declined") };

/** The create form's private part: ``target(body)`` is where and what to POST. */
export function privateFields() {
  const on = el("input", { type: "checkbox", id: "private-table" });
  const invite = el("input", { id: "invitees", maxlength: 400, placeholder: _("names or account ids, comma separated"), "aria-label": _("Invite") });
  const link = el("input", { type: "checkbox", id: "invitation-link" });
  const details = el("span", { class: "row", id: "private-details", hidden: true }, el("label", {}, _("Invite:"), " ", invite), el("label", {}, link, " ", _("make an invitation link")));
  on.addEventListener("change", () => { details.hidden = !on.checked; });
  const node = el("div", { class: "private-fields" }, el("label", {}, on, " ", withNodes(_("private table (not in the lobby: {rule})"), { rule: ruleLink("I1") })), details);
  const target = (body) => {
    if (!on.checked) return { path: "/games", body };
    const names = invite.value.split(",").map((s) => s.trim()).filter(Boolean);
    return { path: "/tables", body: { ...body, invite: names, link: link.checked }, private: true };
  };
  return { node, target };
}

function seatBody(taken, two, value) {
  const free = COLOURS.filter((c) => !taken.includes(c));
  return two ? { colours: free.slice(0, 2) } : { colour: value || free[0] };
}

function picker(id, taken) {
  const free = COLOURS.filter((c) => !taken.includes(c));
  return el("select", { id, "aria-label": _("Your colour") }, ...free.map((c) => el("option", { value: c }, colourName(c))));
}

async function sit(gameId, body) {
  const r = await api("POST", `/games/${gameId}/seats`, body);
  if (!r.ok) return toast(problemText(r.data), "error");
  location.href = `/games/${gameId}`;
}

/** The invitations waiting for this account (GET /me/invitations), or null. */
export function invitationsCard(data, reload) {
  const items = data?.invitations || [];
  if (!items.length) return null;
  const row = (inv) => {
    const colour = inv.two_colours_each ? null : picker(`invite-colour-${inv.game_id}`, inv.taken);
    return el(
      "li",
      { "data-game": inv.game_id, class: "invitation" },
      el("a", { href: `/games/${inv.game_id}` }, inv.opener_name ? _("{name}'s table", { name: inv.opener_name }) : _("Someone's table"), ` #${inv.game_id.slice(0, 4)}`),
      " · ",
      ngettext("{taken} of {n} seat taken", "{taken} of {n} seats taken", inv.max_players, { taken: number(inv.seats) }),
      " ",
      colour,
      " ",
      el("button", { type: "button", "data-action": "accept-invitation", class: "primary", onclick: () => sit(inv.game_id, seatBody(inv.taken, inv.two_colours_each, colour?.value)) }, _("Join")),
      " ",
      el("button", {
        type: "button",
        "data-action": "decline-invitation",
        onclick: async () => {
          const r = await api("POST", `/games/${inv.game_id}/invitations/decline`, {});
          if (!r.ok) return toast(problemText(r.data), "error");
          toast(_("Invitation declined: the table's opener sees it."));
          reload();
        },
      }, _("Decline")),
    );
  };
  return el("section", { class: "card", id: "my-invitations" }, el("h2", {}, _("Invitations for you")), el("ul", { class: "plain" }, items.map(row)));
}

/** The card an invitation link (``/?game=…&invitation=…``) opens, or null. */
export function linkCard() {
  const params = new URLSearchParams(location.search);
  const gameId = params.get("game");
  const token = params.get("invitation");
  if (!gameId || !token) return null;
  const card = el("section", { class: "card", id: "invitation-link-card" }, el("h2", {}, _("You hold an invitation")), el("p", { class: "muted" }, _("Loading the table…")));
  api("GET", `/games/${gameId}`).then((r) => {
    if (!r.ok) return card.replaceChildren(el("h2", {}, _("You hold an invitation")), el("p", {}, problemText(r.data)));
    const taken = r.data.players.flatMap((p) => p.colours);
    const two = r.data.position?.options?.two_colours_each;
    const colour = two ? null : picker("link-colour", taken);
    const join = el("button", {
      type: "button",
      id: "join-by-link",
      class: "primary",
      disabled: !me(),
      onclick: () => sit(gameId, { ...seatBody(taken, two, colour?.value), invitation: token }),
    }, _("Take a seat"));
    card.replaceChildren(
      el("h2", {}, _("You hold an invitation")),
      el("p", {}, withNodes(ngettext("To a private table: {game} · {n} seat taken.", "To a private table: {game} · {n} seats taken.", r.data.players.length), { game: el("a", { href: `/games/${gameId}` }, _("game {id}", { id: gameId })) })),
      me() ? el("p", { class: "row" }, colour, " ", join) : el("p", {}, _("Sign up or sign in below, then take your seat.")),
    );
  });
  return card;
}

let tablePanel = null;
let tableFor = null;

/** A private table's invitations on its game page, for its opener and players (I7). */
export function tableInvitations(gameId) {
  tablePanel ||= el("section", { id: "table-invitations", class: "card", "aria-label": _("Invitations"), hidden: true });
  if (tableFor !== gameId && me()) {
    tableFor = gameId;
    api("GET", `/games/${gameId}/invitations`).then((r) => {
      if (!r.ok) return;
      const link = r.data.link ? new URL(r.data.link, location.origin).href : null;
      tablePanel.replaceChildren(
        el("h4", {}, withNodes(_("Private table ({rule})"), { rule: ruleLink("I1") })),
        link ? el("p", {}, _("Invitation link:"), " ", el("input", { id: "invitation-link-text", readonly: true, value: link, "aria-label": _("Invitation link"), size: 40 })) : null,
        el("ul", { class: "plain", id: "invitation-answers" }, r.data.invitations.map((i) => el("li", { "data-answer": i.status }, _("{name}: {answer}", { name: i.name || i.account_id, answer: ANSWERS[i.status] || i.status })))),
      );
      tablePanel.hidden = false;
    });
  }
  return tablePanel;
}
