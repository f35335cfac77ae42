// The auditors' queue: disputes oldest first, filtered by status and reason
// (docs/disputes.md). Players see their own games' disputes on each game page.

import { api, el, me, nav, problemText } from "./api.js";
import { REASONS, when } from "./disputing.js";

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
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))} min`;
  if (s < 86400) return `${Math.round(s / 3600)} h`;
  const days = Math.round(s / 86400);
  return `${days} day${days === 1 ? "" : "s"}`;
}

/** One dispute of the queue, told apart from the others: reason, game, move, opener, age. */
function row(d) {
  const opener = d.opener_name || d.opened_by || "?";
  return el(
    "li",
    { class: `dispute ${d.status}`, "data-dispute": d.dispute_id },
    el("a", { href: `/disputes/${d.dispute_id}` }, `${REASONS[d.reason] || d.reason}: game ${d.game_id}, version ${d.version}`),
    ` — opened by ${opener}, ${age(d.opened_at)} ago`,
    el("span", { class: "muted" }, ` · ${d.status} · `, el("a", { href: `/games/${d.game_id}` }, "the game"), ` · ${when(d.opened_at)}`),
  );
}

async function main() {
  nav();
  const main = document.getElementById("main");
  const account = me();
  if (!account || account.kind !== "auditor") {
    main.replaceChildren(
      el("h1", {}, "Disputes"),
      el("p", {}, "The queue of disputes is for auditors: ", el("a", { href: "/" }, "sign in with an auditor's token"), " first. Players find their disputes on each game's page."),
    );
    return;
  }
  const status = el(
    "select",
    { id: "status", "aria-label": "Status" },
    [["open", "Open"], ["ruled", "Ruled"], ["withdrawn", "Withdrawn"], ["", "All"]].map(([v, t]) => el("option", { value: v }, t)),
  );
  const reason = el(
    "select",
    { id: "reason", "aria-label": "Reason" },
    el("option", { value: "" }, "Every reason"),
    Object.entries(REASONS).map(([v, t]) => el("option", { value: v }, t)),
  );
  const list = el("ol", { id: "queue", class: "queue" });
  async function show() {
    const r = await load(status.value, reason.value);
    if (!r.ok) {
      list.replaceChildren(el("li", { class: "error" }, problemText(r.data)));
      return;
    }
    list.replaceChildren(...(r.data.disputes.length ? r.data.disputes.map(row) : [el("li", { class: "muted" }, "Nothing here.")]));
  }
  status.addEventListener("change", show);
  reason.addEventListener("change", show);
  main.replaceChildren(
    el(
      "section",
      { class: "card" },
      el("h1", {}, "Disputes"),
      el("p", { class: "muted" }, "Oldest first. ", el("a", { href: "/docs/disputes" }, "How disputes are settled"), "."),
      el("div", { class: "row" }, el("label", {}, "Status ", status), el("label", {}, "Reason ", reason)),
      list,
    ),
  );
  await show();
}

main();
