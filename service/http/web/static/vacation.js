// Vacation on the account page (docs/vacation.md): days left this year (V1), the spells
// announced (V4), and the form to announce one, "away until …"; a refusal says why (V5).

import { api, el, problemText, ruleLink, toast } from "./api.js";

const when = (iso) => new Date(iso).toLocaleString([], { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });

/** The vacation card; ``reload`` draws the page again after an announcement. */
export function vacationCard(data, reload) {
  const from = el("input", { id: "vacation-from", type: "datetime-local", "aria-label": "Away from (empty: now)" });
  const until = el("input", { id: "vacation-until", type: "datetime-local", required: true, "aria-label": "Away until" });
  const problem = el("p", { id: "vacation-problem", class: "error", role: "alert", hidden: true });
  return el(
    "section",
    { class: "card", id: "vacation" },
    el("h2", {}, "Vacation"),
    el(
      "p",
      { id: "vacation-left" },
      `${data.days_left} of ${data.days_a_year} days left in ${data.year}. `,
      ...(data.years || []).filter((y) => y.year > data.year).map((y) => `${y.days_left} left in ${y.year}. `),
      "In games with vacation, your clocks stop while you are away, and when your own time runs out your vacation days extend it (",
      el("a", { href: "/docs/vacation" }, "how"),
      ").",
    ),
    data.announced.length
      ? el("ul", { id: "vacation-spells" }, data.announced.map((s) => el("li", {}, `Away from ${when(s.from)} until ${when(s.until)}`)))
      : el("p", { class: "muted", id: "vacation-spells" }, "No vacation announced."),
    el(
      "form",
      {
        id: "vacation-form",
        onsubmit: async (event) => {
          event.preventDefault();
          const body = { until: new Date(until.value).toISOString() };
          if (from.value) body.from = new Date(from.value).toISOString();
          const r = await api("POST", "/me/vacation", body);
          if (!r.ok) {
            problem.hidden = false;
            problem.replaceChildren(problemText(r.data), " ", r.data?.rule ? ruleLink(r.data.rule) : "");
            return;
          }
          toast("Vacation announced: your clocks stop while you are away.");
          reload();
        },
      },
      el("label", {}, "Away from ", from),
      el("label", {}, " until ", until),
      el("button", { type: "submit" }, "Announce"),
      problem,
    ),
  );
}
