// Disputes on the game page: the game's disputes and their rulings, and a form for a
// seated player to dispute a move (docs/disputes.md, D1). Shared words for the pages.

import { api, el, me, problemText, toast } from "./api.js";
import { _, moment, ngettext } from "./i18n.js";

export const REASONS = {
  rule_applied_wrongly: _("A rule was applied wrongly"),
  unfair_draw: _("An unfair draw"),
  misclick: _("A misclick or the interface"),
  connection_or_timing: _("Connection or timing"),
  other: _("Something else"),
};

export const DECISIONS = {
  stands: _("The record stands"),
  rewind: _("Rewound"),
  result_amended: _("Result amended"),
};

/** A dispute's status in words (the status itself is a code: open, ruled, withdrawn). */
export const STATUSES = {
  open: _("open"),
  ruled: _("ruled"),
  withdrawn: _("withdrawn"),
};

/** A message whose ``{fields}`` are elements or texts, as pieces for el(). */
export function pieces(text, fields) {
  return text.split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/).map((part, i) => (i % 2 ? (part in fields ? fields[part] : `{${part}}`) : part)).filter((part) => part !== "");
}

/** A server time as the reader's local date and time. */
export function when(iso) {
  if (!iso) return "";
  return moment(iso, { dateStyle: "medium", timeStyle: "short" });
}

/** A ruling in words. */
export function rulingWords(r) {
  if (!r) return "";
  let what = DECISIONS[r.decision] || r.decision;
  if (r.decision === "rewind") what = _("Rewound to version {version}", { version: r.to_version });
  if (r.decision === "result_amended") {
    const n = (r.ranking || []).length;
    what = r.annulled ? _("Result amended: annulled") : ngettext("Result amended: {n} player re-ranked", "Result amended: {n} players re-ranked", n);
  }
  return _("{decision} — {reasoning} ({rules})", { decision: what, reasoning: r.reasoning, rules: (r.rules || []).join(", ") });
}

function disputeLine(d) {
  return el(
    "li",
    { class: `dispute ${d.status}`, "data-dispute": d.dispute_id },
    el("a", { href: `/disputes/${d.dispute_id}` }, _("{reason} (version {version})", { reason: REASONS[d.reason] || d.reason, version: d.version })),
    el("span", { class: "muted" }, " · ", STATUSES[d.status] || d.status),
    d.ruling ? el("div", { class: "ruling" }, rulingWords(d.ruling)) : null,
  );
}

/**
 * The disputes panel of a game page. ``context()`` gives {seated, version, describe}:
 * whether the signed-in account sits at the game, the version the player is looking at,
 * and ``describe(v)``, the move at version v in words. Picking a move in the move list
 * calls ``setVersion``: the form then disputes that move (D1).
 */
export function mountDisputes(host, gameId, context) {
  let open = false;
  let form = null; // {at, words} while the form is open

  async function show() {
    const account = me();
    if (!account) {
      host.replaceChildren();
      return;
    }
    const { seated, version } = context();
    if (!seated && account.kind !== "auditor") {
      host.replaceChildren(); // a game's disputes are for its players and auditors (D1)
      return;
    }
    const r = await api("GET", `/games/${gameId}/disputes`);
    if (!r.ok) {
      host.replaceChildren();
      return;
    }
    const items = r.data.disputes;
    const shown = open && seated ? disputeForm(form ? Number(form.at.value) : version) : null;
    host.replaceChildren(
      ...[
        el("h3", {}, _("Disputes")),
        items.length ? el("ul", { id: "dispute-list", class: "disputes" }, items.map(disputeLine)) : el("p", { class: "muted" }, _("None.")),
        seated && !open ? el("button", { type: "button", id: "open-dispute", onclick: () => ((open = true), (form = null), show()) }, _("Dispute a move…")) : null,
        shown,
      ].filter(Boolean), // replaceChildren writes a null as the text "null"
    );
  }

  function setVersion(version) {
    if (!form) return;
    form.at.value = String(version);
    form.words.textContent = context().describe(version);
  }

  function disputeForm(version) {
    const reason = el("select", { id: "dispute-reason", "aria-label": _("Reason") }, Object.entries(REASONS).map(([v, t]) => el("option", { value: v }, t)));
    const at = el("input", { id: "dispute-version", type: "number", min: "1", value: String(version), "aria-label": _("Version disputed") });
    const words = el("strong", { id: "dispute-move" }, context().describe(version));
    at.addEventListener("input", () => (words.textContent = context().describe(Number(at.value))));
    form = { at, words };
    const text = el("textarea", { id: "dispute-text", maxlength: "2000", rows: "3", placeholder: _("What happened, in your words"), "aria-label": _("What happened") });
    const send = async () => {
      const r = await api("POST", `/games/${gameId}/disputes`, { reason: reason.value, version: Number(at.value), text: text.value });
      if (!r.ok) {
        toast(problemText(r.data), "error");
        return;
      }
      open = false;
      form = null;
      toast(_("Dispute opened: an auditor will look at it."));
      await show();
    };
    return el(
      "form",
      { id: "dispute-form", class: "dispute-form", onsubmit: (e) => (e.preventDefault(), send()) },
      el("p", { class: "muted" }, _("An auditor will see the move, the board before and after it and the record. Pick a move in the list to dispute it, or give its version.")),
      el("p", { role: "status" }, pieces(_("You are disputing: {move}"), { move: words })),
      el("label", {}, _("Reason"), " ", reason),
      el("label", {}, _("Version"), " ", at),
      text,
      el("div", { class: "row" }, el("button", { type: "submit", id: "dispute-send", class: "primary" }, _("Open the dispute")), el("button", { type: "button", onclick: () => ((open = false), (form = null), show()) }, _("Cancel"))),
    );
  }

  show();
  return { refresh: show, setVersion };
}
