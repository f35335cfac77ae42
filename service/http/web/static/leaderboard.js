// The leaderboard: by rating (docs/ratings.md G7, G8) or by wins; each a page of 100.

import { api, el, me, nav, problemText } from "./api.js";
import { _, ngettext, number } from "./i18n.js";

const PAGE = 100;

/** A translated message with elements in it: each {field} named in ``parts`` becomes its element or text. */
function withElements(text, parts) {
  return text.split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/).map((piece, i) => (i % 2 ? (piece in parts ? parts[piece] : `{${piece}}`) : piece)).filter((piece) => piece !== "");
}

function ratingRows(data) {
  const mine = me()?.account_id;
  return data.players.map((p) =>
    el(
      "tr",
      { "data-account": p.account_id, class: p.account_id === mine ? "to-move" : "" },
      el("td", { class: "num" }, number(p.position)),
      el("th", { scope: "row" }, p.name || p.account_id),
      el("td", { class: "num rating" }, number(p.rating, { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false }), p.provisional ? el("abbr", { class: "provisional", title: ngettext("provisional: fewer than {n} rated game", "provisional: fewer than {n} rated games", data.provisional_games) }, "?") : null),
      el("td", { class: "num" }, number(p.games)),
    ),
  );
}

function winRows(data, offset) {
  return data.players.map((p, i) =>
    el(
      "tr",
      { "data-account": p.account_id },
      el("td", { class: "num" }, number(offset + i + 1)),
      el("th", { scope: "row" }, p.name || p.account_id),
      el("td", { class: "num" }, number(p.wins)),
      el("td", { class: "num" }, number(p.points)),
      el("td", { class: "num" }, number(p.games)),
      el("td", { class: "num" }, number(p.average_rank, { minimumFractionDigits: 2, maximumFractionDigits: 2 })),
    ),
  );
}

const VIEWS = {
  rating: {
    label: _("Rating"),
    head: ["#", _("Player"), _("Rating"), _("Rated games")],
    url: (offset, minGames) => `/ratings?min_games=${minGames}&limit=${PAGE}&offset=${offset}`,
    rows: (data) => ratingRows(data),
  },
  wins: {
    label: _("Wins"),
    head: ["#", _("Player"), _("Wins"), _("Points"), _("Games"), _("Average rank")],
    url: (offset) => `/leaderboard?limit=${PAGE}&offset=${offset}`,
    rows: (data, offset) => winRows(data, offset),
  },
};

async function main() {
  nav();
  const main = document.getElementById("main");
  let view = new URLSearchParams(location.search).get("by") === "wins" ? "wins" : "rating";
  let offset = 0;
  const minGames = el("input", { type: "number", id: "min-games", min: 1, max: 1000, value: 5, "aria-label": _("Minimum rated games") });
  const filter = el("label", { id: "min-games-label" }, withElements(_("At least {field} rated games"), { field: minGames }));
  const table = el("table", { class: "scores", id: "board" });
  const more = el("button", { type: "button", id: "more", hidden: true }, _("More"));
  const status = el("p", { class: "muted", id: "board-status", role: "status" });
  const tabs = Object.entries(VIEWS).map(([key, v]) =>
    el("button", { type: "button", role: "tab", id: `tab-${key}`, "aria-selected": String(key === view), onclick: () => { view = key; offset = 0; show(); } }, v.label),
  );
  let asked = 0; // only the latest request's answer is shown (a slower earlier one is dropped)
  async function show(append = false) {
    const mine = ++asked;
    const v = VIEWS[view];
    tabs.forEach((t) => t.setAttribute("aria-selected", String(t.id === `tab-${view}`)));
    filter.hidden = view !== "rating";
    const wanted = Math.min(1000, Math.max(1, Math.floor(Number(minGames.value)) || 5));
    if (String(wanted) !== minGames.value) minGames.value = String(wanted); // shown as asked for
    const r = await api("GET", v.url(offset, wanted));
    if (mine !== asked) return;
    if (!r.ok) {
      status.textContent = problemText(r.data);
      return;
    }
    const head = el("tr", {}, ...v.head.map((h, i) => el("th", { scope: "col", class: i === 1 ? "" : "num" }, h))); // the player's name is not a number
    const body = v.rows(r.data, offset);
    if (append) table.append(...body);
    else table.replaceChildren(el("caption", {}, view === "rating" ? _("? marks a provisional rating (docs/ratings.md G8).") : _("Shared wins count as wins.")), head, ...body);
    // the count as the field shows it (1000, not 1,000)
    const nobody = view === "rating" ? ngettext("Nobody has {n} rated game yet.", "Nobody has {n} rated games yet.", wanted, { n: number(wanted, { useGrouping: false }) }) : _("Nobody here yet.");
    status.textContent = !append && !body.length ? nobody : "";
    more.hidden = !r.data.has_more;
  }
  more.addEventListener("click", () => { offset += PAGE; show(true); });
  minGames.addEventListener("change", () => { offset = 0; show(); });
  main.replaceChildren(
    el(
      "section",
      { class: "card" },
      el("h1", {}, _("Leaderboard")),
      el("p", { class: "muted" }, withElements(_("Ratings move with rated games only. {link}."), { link: el("a", { href: "/docs/ratings" }, _("How ratings work")) })),
      el("div", { class: "row", role: "tablist", "aria-label": _("Leaderboard by") }, ...tabs),
      filter,
      status,
      table,
      more,
    ),
  );
  await show();
}

main();
