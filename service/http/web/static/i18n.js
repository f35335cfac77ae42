// The reader's language on the pages (docs/i18n.md). The page shell names it
// (<html lang>) and the version of its catalog (data-catalog); this module loads the
// catalog (GET /i18n/<lang>.json, compiled from the same gettext catalogs as the
// server's) before any page script runs, then gives the words:
//
//   _("Your move.")                          a message
//   _("{name} joined", { name })             with named values
//   ngettext("{n} boat", "{n} boats", n)     by count ({n} is the count, in the locale)
//
// Only string literals go into _() and ngettext(): pybabel extracts them
// (python -m service.i18n.refresh). Dates and numbers use the reader's locale.

const root = document.documentElement;
export const lang = root.lang || "en";
let catalog = { plural: { one: 0, other: 1 }, messages: {} };
if (lang !== "en") {
  try {
    const r = await fetch(`/i18n/${lang}.json?v=${root.dataset.catalog || ""}`, { credentials: "same-origin" });
    if (r.ok) catalog = await r.json();
  } catch {
    // no catalog: the page speaks English rather than nothing
  }
}
const plurals = new Intl.PluralRules(lang);

function fill(text, values) {
  if (!values) return text;
  return text.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (field, name) => (name in values ? String(values[name]) : field));
}

/** A message in the reader's language (its English when the catalog lacks it). */
export function _(msgid, values) {
  const found = catalog.messages[msgid];
  return fill(typeof found === "string" ? found : msgid, values);
}

/** The form of a message for the count ``n`` (``{n}`` is the count, written in the locale). */
export function ngettext(singular, plural, n, values) {
  const forms = catalog.messages[singular];
  let text = n === 1 ? singular : plural;
  if (Array.isArray(forms)) text = forms[Math.min(catalog.plural[plurals.select(n)] ?? 0, forms.length - 1)];
  return fill(text, { n: number(n), ...values });
}

/** A number as the reader writes it (1 234,5 in French). */
export function number(n, options) {
  return typeof n === "number" ? new Intl.NumberFormat(lang, options).format(n) : String(n);
}

/** A moment (ISO text or Date) as the reader writes it; the text as given if it is none. */
export function moment(value, options = { dateStyle: "medium", timeStyle: "short" }) {
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? String(value) : d.toLocaleString(lang, options);
}

/** A list as the reader says it ("Blue, Red and Green"; "Bleu, Rouge et Vert"): the
 * English as the rest of the service writes it, without a serial comma (en-GB). */
export function list(items) {
  return new Intl.ListFormat(lang === "en" ? "en-GB" : lang, { style: "long", type: "conjunction" }).format(items);
}
