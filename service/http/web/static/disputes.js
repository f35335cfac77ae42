// The auditors' queue: disputes oldest first, filtered by status and reason
// (docs/disputes.md). Players see their own games' disputes on each game page.

import { api, el, me, nav, problemText } from "./api.js";
import { pieces, REASONS, STATUSES, when } from "./disputing.js";
import { _, ngettext } from "./i18n.js";

async function load(status, reason) {
  const query = new URLSearchParams();
  if (status) query.set("status", status);
  if (reason) query.set("reason", reason);
  query.set("limit", "200");
  return api("GET", `/disputes?${query}`);
}

/** How long ago, in words: "3 min", "5 h", "2 days". */
function age(iso) {
  const s = Math.max(0, (Date.now() - new Date(iso).getTime()) / 1000);
  if (s < 3600) {
    const minutes = Math.max(1, Math.round(s / 60));
    return ngettext("{n} min", "{n} min", minutes);
  }
  if (s < 86400) {
    const hours = Math.round(s / 3600);
    return ngettext("{n} h", "{n} h", hours);
  }
  const days = Math.round(s / 86400);
  return ngettext("{n} day", "{n} days", days);
}

/** One dispute of the queue, told apart from the others: reason, game, move, opener, age. */
function row(d) {
  const opener = d.opener_name || d.opened_by || "?";
  return el(
    "li",
    { class: `dispute ${d.status}`, "data-dispute": d.dispute_id },
    pieces(_("{dispute} — opened by {name}, {age} ago"), {
      dispute: el("a", { href: `/disputes/${d.dispute_id}` }, _("{reason}: game {game}, version {version}", { reason: REASONS[d.reason] || d.reason, game: d.game_id, version: d.version })),
      name: opener,
      age: age(d.opened_at),
    }),
    el("span", { class: "muted" }, " · ", STATUSES[d.status] || d.status, " · ", el("a", { href: `/games/${d.game_id}` }, _("the game")), " · ", when(d.opened_at)),
  );
}

async function main() {
  nav();
  const main = document.getElementById("main");
  const account = me();
  if (!account || account.kind !== "auditor") {
    main.replaceChildren(
      el("h1", {}, _("Disputes")),
      el("p", {}, pieces(_("The queue of disputes is for auditors: {signIn} first. Players find their disputes on each game's page."), { signIn: el("a", { href: "/" }, _("sign in with an auditor's token")) })),
    );
    return;
  }
  const status = el(
    "select",
    { id: "status", "aria-label": _("Status") },
    [["open", _("Open")], ["ruled", _("Ruled")], ["withdrawn", _("Withdrawn")], ["", _("All")]].map(([v, t]) => el("option", { value: v }, t)),
  );
  const reason = el(
    "select",
    { id: "reason", "aria-label": _("Reason") },
    el("option", { value: "" }, _("Every reason")),
    Object.entries(REASONS).map(([v, t]) => el("option", { value: v }, t)),
  );
  const list = el("ol", { id: "queue", class: "queue" });
  async function show() {
    const r = await load(status.value, reason.value);
    if (!r.ok) {
      list.replaceChildren(el("li", { class: "error" }, problemText(r.data)));
      return;
    }
    list.replaceChildren(...(r.data.disputes.length ? r.data.disputes.map(row) : [el("li", { class: "muted" }, _("Nothing here."))]));
  }
  status.addEventListener("change", show);
  reason.addEventListener("change", show);
  main.replaceChildren(
    el(
      "section",
      { class: "card" },
      el("h1", {}, _("Disputes")),
      el("p", { class: "muted" }, pieces(_("Oldest first. {link}."), { link: el("a", { href: "/docs/disputes" }, _("How disputes are settled")) })),
      el("div", { class: "row" }, el("label", {}, _("Status"), " ", status), el("label", {}, _("Reason"), " ", reason)),
      list,
    ),
  );
  await show();
}

main();
