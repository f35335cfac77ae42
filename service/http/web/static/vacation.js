// Vacation on the account page (docs/vacation.md): days left this year (V1), the spells
// announced (V4), and the form to announce one, "away until …"; a refusal says why (V5).

import { api, el, problemText, ruleLink, toast } from "./api.js";
import { _, moment, ngettext, number } from "./i18n.js";

const when = (iso) => moment(iso, { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });

/** A translated message with elements in it: each {field} named in ``parts`` becomes its element or text. */
function withElements(text, parts) {
  return text.split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/).map((piece, i) => (i % 2 ? (piece in parts ? parts[piece] : `{${piece}}`) : piece)).filter((piece) => piece !== "");
}

/** The vacation card; ``reload`` draws the page again after an announcement. */
export function vacationCard(data, reload) {
  const from = el("input", { id: "vacation-from", type: "datetime-local", "aria-label": _("Away from (empty: now)") });
  const until = el("input", { id: "vacation-until", type: "datetime-local", required: true, "aria-label": _("Away until") });
  const problem = el("p", { id: "vacation-problem", class: "error", role: "alert", hidden: true });
  return el(
    "section",
    { class: "card", id: "vacation" },
    el("h2", {}, _("Vacation")),
    el(
      "p",
      { id: "vacation-left" },
      ngettext("{left} of {n} day left in {year}.", "{left} of {n} days left in {year}.", data.days_a_year, { left: number(data.days_left), year: data.year }),
      " ",
      ...(data.years || []).filter((y) => y.year > data.year).flatMap((y) => [ngettext("{n} left in {year}.", "{n} left in {year}.", y.days_left, { year: y.year }), " "]),
      withElements(_("In games with vacation, your clocks stop while you are away, and when your own time runs out your vacation days extend it ({link})."), { link: el("a", { href: "/docs/vacation" }, _("how")) }),
    ),
    data.announced.length
      ? el("ul", { id: "vacation-spells" }, data.announced.map((s) => el("li", {}, _("Away from {from} until {until}", { from: when(s.from), until: when(s.until) }))))
      : el("p", { class: "muted", id: "vacation-spells" }, _("No vacation announced.")),
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
          toast(_("Vacation announced: your clocks stop while you are away."));
          reload();
        },
      },
      el("label", {}, _("Away from"), " ", from),
      el("label", {}, " ", _("until"), " ", until),
      el("button", { type: "submit" }, _("Announce")),
      problem,
    ),
  );
}
