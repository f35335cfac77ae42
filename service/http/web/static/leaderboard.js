// The leaderboard: by rating (docs/ratings.md G7, G8) or by wins; each a page of 100.

import { api, el, me, nav, problemText } from "./api.js";

const PAGE = 100;

function ratingRows(data) {
  const mine = me()?.account_id;
  return data.players.map((p) =>
    el(
      "tr",
      { "data-account": p.account_id, class: p.account_id === mine ? "to-move" : "" },
      el("td", { class: "num" }, String(p.position)),
      el("th", { scope: "row" }, p.name || p.account_id),
      el("td", { class: "num rating" }, p.rating.toFixed(1), p.provisional ? el("abbr", { class: "provisional", title: `provisional: fewer than ${data.provisional_games} rated games` }, "?") : null),
      el("td", { class: "num" }, String(p.games)),
    ),
  );
}

function winRows(data, offset) {
  return data.players.map((p, i) =>
    el(
      "tr",
      { "data-account": p.account_id },
      el("td", { class: "num" }, String(offset + i + 1)),
      el("th", { scope: "row" }, p.name || p.account_id),
      el("td", { class: "num" }, String(p.wins)),
      el("td", { class: "num" }, String(p.points)),
      el("td", { class: "num" }, String(p.games)),
      el("td", { class: "num" }, p.average_rank.toFixed(2)),
    ),
  );
}

const VIEWS = {
  rating: {
    label: "Rating",
    head: ["#", "Player", "Rating", "Rated games"],
    url: (offset, minGames) => `/ratings?min_games=${minGames}&limit=${PAGE}&offset=${offset}`,
    rows: (data) => ratingRows(data),
  },
  wins: {
    label: "Wins",
    head: ["#", "Player", "Wins", "Points", "Games", "Average rank"],
    url: (offset) => `/leaderboard?limit=${PAGE}&offset=${offset}`,
    rows: (data, offset) => winRows(data, offset),
  },
};

async function main() {
  nav();
  const main = document.getElementById("main");
  let view = new URLSearchParams(location.search).get("by") === "wins" ? "wins" : "rating";
  let offset = 0;
  const minGames = el("input", { type: "number", id: "min-games", min: 1, max: 1000, value: 5, "aria-label": "Minimum rated games" });
  const filter = el("label", { id: "min-games-label" }, "At least ", minGames, " rated games");
  const table = el("table", { class: "scores", id: "board" });
  const more = el("button", { type: "button", id: "more", hidden: true }, "More");
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
    const head = el("tr", {}, ...v.head.map((h) => el("th", { scope: "col", class: h === "Player" ? "" : "num" }, h)));
    const body = v.rows(r.data, offset);
    if (append) table.append(...body);
    else table.replaceChildren(el("caption", {}, view === "rating" ? "? marks a provisional rating (docs/ratings.md G8)." : "Shared wins count as wins."), head, ...body);
    const nobody = view === "rating" ? `Nobody has ${wanted} rated game${wanted === 1 ? "" : "s"} yet.` : "Nobody here yet.";
    status.textContent = !append && !body.length ? nobody : "";
    more.hidden = !r.data.has_more;
  }
  more.addEventListener("click", () => { offset += PAGE; show(true); });
  minGames.addEventListener("change", () => { offset = 0; show(); });
  main.replaceChildren(
    el(
      "section",
      { class: "card" },
      el("h1", {}, "Leaderboard"),
      el("p", { class: "muted" }, "Ratings move with rated games only. ", el("a", { href: "/docs/ratings" }, "How ratings work"), "."),
      el("div", { class: "row", role: "tablist", "aria-label": "Leaderboard by" }, ...tabs),
      filter,
      status,
      table,
      more,
    ),
  );
  await show();
}

main();
