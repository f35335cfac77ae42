// The rating section of a player's page (docs/profiles.md, docs/ratings.md G2, G8): the
// rating now, provisional or not, and its history as a small chart of the rating after
// each rated game (oldest left), from GET /accounts/{id}/ratings (newest first, paged).
// The figures are also said in words (the chart is an image to a screen reader).

import { api, el, problemText } from "./api.js";
import { _, ngettext, number } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 320;
const HEIGHT = 80;
const PAD = 4;
const MOST = 200; // rated games drawn: the latest 200 (one page of the API)

/** A rating as the reader writes it, one decimal ("25.3", "25,3"). */
const rated = (x) => number(x, { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false });

/** A translated message with elements in it: each {field} named in ``parts`` becomes its element or text. */
function withElements(text, parts) {
  return text.split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/).map((piece, i) => (i % 2 ? (piece in parts ? parts[piece] : `{${piece}}`) : piece)).filter((piece) => piece !== "");
}

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/** A polyline of ``values`` (oldest first) scaled into the chart's box. */
export function chart(values) {
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || 1;
  const step = values.length > 1 ? (WIDTH - 2 * PAD) / (values.length - 1) : 0;
  const points = values.map((v, i) => {
    const x = PAD + i * step;
    const y = HEIGHT - PAD - ((v - low) / span) * (HEIGHT - 2 * PAD);
    return `${x.toFixed(1)},${y.toFixed(1)}`;
  });
  const image = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: WIDTH, height: HEIGHT, role: "img", class: "rating-chart" });
  image.setAttribute("aria-label", ngettext("Rating after the last {n} rated game, from {from} to {to}", "Rating after each of the last {n} rated games, from {from} to {to}", values.length, { from: rated(values[0]), to: rated(values[values.length - 1]) }));
  image.append(svg("polyline", { points: points.join(" "), fill: "none", stroke: "currentColor", "stroke-width": 2 }));
  return image;
}

/** The card: the rating now and its chart; "no rated game yet" without one. */
export async function ratingCard(playerId) {
  const card = el("section", { class: "card", id: "rating" }, el("h2", {}, _("Rating")));
  const r = await api("GET", `/accounts/${encodeURIComponent(playerId)}/ratings?limit=${MOST}`);
  if (!r.ok) {
    card.append(el("p", { class: "warning" }, problemText(r.data)));
    return card;
  }
  const rating = r.data.rating;
  if (!rating) {
    card.append(el("p", { class: "muted" }, _("No rated game yet.")));
    return card;
  }
  const until = ngettext("{n} rated game", "{n} rated games", r.data.provisional_games);
  const now = rating.provisional
    ? ngettext("{rating} after {n} rated game (provisional until {until}). {link}", "{rating} after {n} rated games (provisional until {until}). {link}", rating.games, { until })
    : ngettext("{rating} after {n} rated game. {link}", "{rating} after {n} rated games. {link}", rating.games);
  card.append(el("p", { id: "rating-now" }, withElements(now, { rating: el("strong", {}, rated(rating.rating)), link: el("a", { href: "/docs/ratings" }, _("How ratings work")) })));
  const after = r.data.games.map((g) => g.after.rating).reverse();
  if (after.length > 1) {
    const values = [r.data.games[r.data.games.length - 1].before.rating, ...after];
    card.append(chart(values), el("p", { class: "muted", id: "rating-range" }, ngettext("Lowest {low}, highest {high} over the last {n} rated game.", "Lowest {low}, highest {high} over the last {n} rated games.", after.length, { low: rated(Math.min(...values)), high: rated(Math.max(...values)) })));
  }
  return card;
}
