// The public log, checked by this browser (docs/transparency.md): the log's checkpoint
// signed by its key, every newer checkpoint an extension of the largest this browser
// has seen (kept in localStorage), the head this page shows included in it. A short
// fingerprint of the checkpoint lets two players compare what they were shown. An
// inconsistency is a loud banner that says what it means; nothing passes silently.
import { api, el } from "./api.js";
import { _, ngettext, number } from "./i18n.js";

const KEPT = "tongiaki.log.kept";
const EVIDENCE = "tongiaki.log.evidence";
const enc = new TextEncoder();

const b64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const equal = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const sha256 = async (bytes) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
const node = (l, r) => sha256(concat(Uint8Array.of(1), l, r));
export const leafHash = (entry) => sha256(concat(Uint8Array.of(0), enc.encode(entry)));

class LogError extends Error {
  constructor(message, forked = false) {
    super(message);
    this.forked = forked; // two histories shown, not merely a file that does not check
  }
}

/** The log's verifier key: name, id and the Ed25519 key, its id checked. */
async function verifierKey(text) {
  const [name, id, ...rest] = text.trim().split("+"); // base64 may hold "+" too
  const raw = b64(rest.join("+"));
  if (raw[0] !== 1 || raw.length !== 33) throw new LogError(_("the log's key is not an Ed25519 key"));
  const want = (await sha256(concat(enc.encode(`${name}\n`), raw))).slice(0, 4);
  if (hex(want) !== id) throw new LogError(_("the log's key id is not its key's"));
  const cryptoKey = await crypto.subtle.importKey("raw", raw.slice(1), { name: "Ed25519" }, false, ["verify"]);
  return { name, id: want, cryptoKey };
}

/** A signed checkpoint opened with the log's key: origin, size, root, its text. */
async function openCheckpoint(note, key) {
  const split = note.lastIndexOf("\n\n");
  if (split < 0) throw new LogError(_("the checkpoint is not a signed note"));
  const text = note.slice(0, split + 1);
  let signed = false;
  for (const line of note.slice(split + 2).split("\n").filter(Boolean)) {
    const [dash, name, sig] = line.split(" ");
    if (dash !== "—" || name !== key.name) continue;
    const raw = b64(sig);
    if (!equal(raw.slice(0, 4), key.id)) continue;
    if (!(await crypto.subtle.verify({ name: "Ed25519" }, key.cryptoKey, raw.slice(4), enc.encode(text)))) {
      throw new LogError(_("the log's signature on its checkpoint does not check"));
    }
    signed = true;
  }
  if (!signed) throw new LogError(_("the checkpoint is not signed by the log's key"));
  const [origin, size, root] = text.split("\n");
  if (origin !== key.name) throw new LogError(_("the checkpoint is {origin}'s, not {name}'s", { origin, name: key.name }));
  return { origin, size: Number(size), root: b64(root), note };
}

/** RFC 9162 2.1.4.2: the tree of `old` (oldRoot) is a prefix of the tree of `size` (root). */
export async function verifyConsistency(old, size, oldRoot, root, proof) {
  if (old === size) return equal(oldRoot, root) && proof.length === 0;
  if (old === 0) return true;
  if (old > size || proof.length === 0) return false;
  const path = (old & (old - 1)) === 0 ? [oldRoot, ...proof] : [...proof];
  let fn = old - 1;
  let sn = size - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = await node(c, fr);
      sr = await node(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = await node(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(fr, oldRoot) && equal(sr, root);
}

/** RFC 9162 2.1.3.2: `leaf` is at `index` of the tree of `size` whose root is `root`. */
export async function verifyInclusion(index, size, leaf, proof, root) {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await node(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = await node(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(r, root);
}

/** Four groups of four hex digits of the root: what two players read to each other. */
export function fingerprint(point) {
  const h = hex(point.root).slice(0, 16).toUpperCase();
  return `${h.slice(0, 4)}-${h.slice(4, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}`;
}

function kept() {
  try {
    const k = JSON.parse(localStorage.getItem(KEPT));
    return k && { origin: k.origin, size: k.size, root: b64(k.root), note: k.note };
  } catch {
    return null;
  }
}

function keep(point) {
  const root = btoa(String.fromCharCode(...point.root));
  localStorage.setItem(KEPT, JSON.stringify({ origin: point.origin, size: point.size, root, note: point.note }));
}

/** The checkpoint kept after seeing `point`: the larger of the two, once the smaller is
 * proven a prefix of the larger (else a LogError: two histories). One kept per site, not
 * per origin: after a key rotation the same tree goes on under a new name. */
async function extend(point) {
  const before = kept();
  if (!before) {
    keep(point);
    return point;
  }
  const [small, large] = point.size < before.size ? [point, before] : [before, point];
  const r = await api("GET", `/log/consistency?old=${small.size}&new=${large.size}`);
  const proof = r.ok ? r.data.proof.map(b64) : [];
  if (!(await verifyConsistency(small.size, large.size, small.root, large.root, proof))) {
    const evidence = { at: new Date().toISOString(), kept: before.note, shown: point.note };
    localStorage.setItem(EVIDENCE, JSON.stringify(evidence));
    throw new LogError(
      point.size < before.size
        ? ngettext(
            "the log's checkpoint of {n} entry is not a prefix of the one of {size} this browser saw before",
            "the log's checkpoint of {n} entries is not a prefix of the one of {size} this browser saw before",
            point.size,
            { size: number(before.size) },
          )
        : ngettext(
            "the log's checkpoint of {n} entry is not an extension of the one of {size} this browser saw before",
            "the log's checkpoint of {n} entries is not an extension of the one of {size} this browser saw before",
            point.size,
            { size: number(before.size) },
          ),
      true,
    );
  }
  if (large === point) keep(point);
  return large;
}

/** A panel that checks the head `headOf()` names ({version}) against the public log. */
export function mountLogCheck(host, gameId, headOf) {
  let key = null;
  let timer = null;
  const state = (name, words, at) => {
    document.body.dataset.log = name;
    const fp = at
      ? el("code", { id: "log-fingerprint", title: _("Everyone shown this move sees the same fingerprint: compare it with the other players") }, fingerprint(at))
      : null;
    host.replaceChildren(
      el("h3", {}, _("Public log")),
      el("p", { class: "muted" }, words),
      at ? el("p", {}, _("Fingerprint of the log at this move:"), " ", fp) : "",
      el("p", {}, el("a", { href: "/docs/transparency" }, _("What this means"))),
    );
  };
  const alarm = (error) => {
    document.body.dataset.log = "inconsistent";
    const words = error.forked
      ? _(
          "This server has shown two different histories: {problem}. The game's record may have been rewritten after the fact. Keep this page open, tell the other players and the auditors, and compare fingerprints; the evidence is kept in this browser.",
          { problem: error.message },
        )
      : _("This server's public log does not check: {problem}. Do not trust the history shown here until it is explained; tell the auditors.", { problem: error.message });
    document.getElementById("log-alarm")?.remove();
    document.getElementById("main").prepend(el("div", { id: "log-alarm", class: "banner error", role: "alert" }, words));
    state("inconsistent", _("The log is inconsistent (see the banner above)."));
  };
  let waited = 0;
  async function check() {
    if (!globalThis.crypto?.subtle) {
      state("unchecked", _("This page cannot check the public log here: the browser allows it only over HTTPS."));
      return;
    }
    try {
      if (!key) key = await verifierKey(await (await fetch("/log/key")).text());
      await extend(await openCheckpoint(await (await fetch("/log/checkpoint")).text(), key));
      const shown = headOf();
      if (!shown?.version) {
        state("ok", _("The log's checkpoint checks."));
        return;
      }
      const proof = await api("GET", `/games/${gameId}/proof?version=${shown.version}`);
      if (!proof.ok) {
        waited += 1;
        state(
          "pending",
          waited > 40
            ? _("Version {version} is still not in the public log after a minute: the server is not adding its moves to the log. Tell the auditors.", { version: shown.version })
            : _("Version {version} is not in the public log yet (it is added within a second).", { version: shown.version }),
        );
        timer = setTimeout(check, 1500);
        return;
      }
      waited = 0;
      const p = proof.data;
      const events = await api("GET", `/games/${gameId}/events?after=${p.entry_version - 1}&limit=1`);
      const split = p.bundle.indexOf("\n\n");
      const hashes = p.bundle.slice(0, split).split("\n").slice(3).map(b64);
      const proven = await extend(await openCheckpoint(p.bundle.slice(split + 2), key));
      const lines = p.entry.split("\n");
      const head = events.ok && events.data.events.length ? events.data.events[0].hash : null;
      if (lines[1] !== `game/${gameId}` || Number(lines[2]) !== p.entry_version || lines[3] !== head) {
        throw new LogError(_("the log records another history for version {version} of this game than the server shows", { version: p.entry_version }), true);
      }
      const tree = await openCheckpoint(p.bundle.slice(split + 2), key);
      if (!(await verifyInclusion(p.index, tree.size, await leafHash(p.entry), hashes, tree.root))) {
        throw new LogError(_("version {version} is not in the log's tree its checkpoint signs", { version: p.entry_version }));
      }
      const at = { size: p.index + 1, root: b64(p.root_at_entry) };
      if (!(await verifyConsistency(at.size, tree.size, at.root, tree.root, p.since_entry.map(b64)))) {
        throw new LogError(_("the log's tree at this move's entry is not a prefix of its checkpoint"));
      }
      const place = { version: shown.version, commit: p.entry_version, entry: number(p.index + 1), size: number(Math.max(tree.size, proven.size)) };
      const words =
        p.entry_version === shown.version
          ? _("Version {version} is in the public log, entry {entry} of {size}.", place)
          : _("Version {version} (in the commit ending at {commit}) is in the public log, entry {entry} of {size}.", place);
      state("ok", words, at);
    } catch (error) {
      if (error instanceof LogError) alarm(error);
      else state("unchecked", _("The public log could not be reached; checking again shortly."));
    }
  }
  state("checking", _("Checking the public log…"));
  check();
  return {
    recheck() {
      clearTimeout(timer);
      timer = setTimeout(check, 1200);
    },
  };
}
