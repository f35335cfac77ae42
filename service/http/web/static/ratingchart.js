// The rating section of a player's page (docs/profiles.md, docs/ratings.md G2, G8): the
// rating now, provisional or not, and its history as a small chart of the rating after
// each rated game (oldest left), from GET /accounts/{id}/ratings (newest first, paged).
// The figures are also said in words (the chart is an image to a screen reader).

import { api, el, problemText } from "./api.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 320;
const HEIGHT = 80;
const PAD = 4;
const MOST = 200; // rated games drawn: the latest 200 (one page of the API)

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
  image.setAttribute("aria-label", `Rating after each of the last ${values.length} rated games, from ${values[0].toFixed(1)} to ${values[values.length - 1].toFixed(1)}`);
  image.append(svg("polyline", { points: points.join(" "), fill: "none", stroke: "currentColor", "stroke-width": 2 }));
  return image;
}

/** The card: the rating now and its chart; "no rated game yet" without one. */
export async function ratingCard(playerId) {
  const card = el("section", { class: "card", id: "rating" }, el("h2", {}, "Rating"));
  const r = await api("GET", `/accounts/${encodeURIComponent(playerId)}/ratings?limit=${MOST}`);
  if (!r.ok) {
    card.append(el("p", { class: "warning" }, problemText(r.data)));
    return card;
  }
  const rating = r.data.rating;
  if (!rating) {
    card.append(el("p", { class: "muted" }, "No rated game yet."));
    return card;
  }
  const provisional = rating.provisional ? ` (provisional until ${r.data.provisional_games} rated games)` : "";
  card.append(
    el("p", { id: "rating-now" }, el("strong", {}, rating.rating.toFixed(1)), ` after ${rating.games} rated game${rating.games === 1 ? "" : "s"}${provisional}. `, el("a", { href: "/docs/ratings" }, "How ratings work")),
  );
  const after = r.data.games.map((g) => g.after.rating).reverse();
  if (after.length > 1) {
    const values = [r.data.games[r.data.games.length - 1].before.rating, ...after];
    card.append(chart(values), el("p", { class: "muted", id: "rating-range" }, `Lowest ${Math.min(...values).toFixed(1)}, highest ${Math.max(...values).toFixed(1)} over the last ${after.length} rated games.`));
  }
  return card;
}
