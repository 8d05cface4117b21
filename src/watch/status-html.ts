/**
 * The status page of `tgw watch` (`GET /` on the health port, docs/watch.md > Status page): one static
 * HTML document with inline CSS and JS, no build step and no framework. The script polls
 * `GET /status.json` every POLL_MS and renders it with `textContent` and `createElement` only (never
 * `innerHTML` with data), so nothing the API or a configuration holds can become markup. The server
 * sends a Content-Security-Policy that allows exactly this script and style (by their SHA-256) and
 * fetches to the same origin, nothing else.
 */
import { createHash } from "node:crypto";

/** How often the page asks for `/status.json` (ms). */
export const POLL_MS = 2000;

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1b1f24;background:#f6f8fa}
h1{font-size:1.3rem;margin:0 0 .8rem}h2{font-size:1.05rem;margin:1.4rem 0 .5rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0}
dt{color:#57606a}dd{margin:0;font-family:ui-monospace,monospace;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:.3rem .6rem;border-bottom:1px solid #d0d7de;vertical-align:top}
td{font-family:ui-monospace,monospace;font-size:13px;overflow-wrap:anywhere}
.badge{display:inline-block;padding:0 .5rem;border-radius:1rem;font-family:system-ui,sans-serif}
.in_sync,.ok,.succeeded,.leader{background:#dafbe1;color:#116329}
.healed{background:#ddf4ff;color:#0550ae}
.drifted,.pending,.running,.degraded,.starting,.standby,.interrupted{background:#fff8c5;color:#7d4e00}
.failing,.failed,.invalid_config,.stopping{background:#ffebe9;color:#a40e26}
#stale{color:#a40e26}.muted{color:#57606a}
`;

const SCRIPT = `
"use strict";
const POLL_MS = ${POLL_MS};
const LABEL = {in_sync: "in sync", healed: "drifted, healed", drifted: "drifted", pending: "pending",
  failing: "failing", invalid_config: "invalid configuration"};
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}
function badge(value) { return el("span", LABEL[value] || value, "badge " + value); }
function cell(row, content) {
  const td = el("td");
  if (content instanceof Node) td.append(content); else td.textContent = content == null ? "" : String(content);
  row.append(td);
  return td;
}
function short(rev) { return rev ? String(rev).slice(0, 12) : "none"; }
function counts(c, drift) {
  const sym = {create: "+", update: "~", replace: "-/+", put: "~", delete: "-", forget: "."};
  const parts = Object.keys(c).map((k) => (sym[k] || k) + c[k] + " " + k);
  if (drift) parts.push(drift + " drift");
  return parts.length ? parts.join(", ") : "no change";
}
function role(h) {
  if (!h.role) return "leader (single watcher, no election)";
  if (h.role.role === "leader") return "leader";
  const l = h.role.leader;
  return l ? "standby (leader: " + l.holder + ", pid " + l.pid + " on " + l.hostname + ")" : "standby";
}
function summary(s) {
  const h = s.health, dl = document.getElementById("summary");
  const items = [
    ["Stack", s.stack || "not loaded yet"],
    ["Health", badge(h.status)],
    ["Role", role(h)],
    ["Revision applied", h.revision ? short(h.revision.applied) : "no Git source"],
    ["Revision fetched", h.revision ? short(h.revision.fetched) : "no Git source"],
    ["State serial", s.state ? s.state.serial : "none yet"],
    ["Last success", h.lastSuccessAt || "never"],
    ["Next run", h.nextRunAt || "not scheduled"],
  ];
  if (h.revision && h.revision.invalid) {
    items.push(["Invalid revision", short(h.revision.invalid.revision) + ": " + h.revision.invalid.problem]);
  }
  if (h.lastError) items.push(["Last error", h.lastError.at + " " + h.lastError.message]);
  const nodes = [];
  for (const [k, v] of items) {
    nodes.push(el("dt", k));
    const dd = el("dd");
    if (v instanceof Node) dd.append(v); else dd.textContent = String(v);
    dd.dataset.field = k;
    nodes.push(dd);
  }
  dl.replaceChildren(...nodes);
}
function resources(s) {
  const rows = s.resources.map((r) => {
    const tr = el("tr");
    tr.dataset.address = r.address;
    tr.dataset.sync = r.sync;
    cell(tr, r.address);
    cell(tr, r.id === null ? "not created" : r.id).className = "id";
    cell(tr, badge(r.sync)).className = "sync";
    const detail = r.error || (r.planned ? r.planned.action + (r.planned.drift ? " (drift)" : "") : "");
    cell(tr, detail);
    const c = r.lastChange;
    cell(tr, c ? c.action + (c.drift ? " (drift)" : "") + " in #" + c.run + " at " + c.at : "none");
    return tr;
  });
  document.getElementById("resources").replaceChildren(...rows);
  document.getElementById("no-resources").hidden = rows.length > 0;
}
function reconciles(s) {
  const rows = s.reconciles.map((r) => {
    const tr = el("tr");
    tr.dataset.run = String(r.run);
    tr.dataset.result = r.result;
    cell(tr, "#" + r.run);
    cell(tr, r.startedAt);
    cell(tr, r.trigger + (r.mode === "plan" ? " (drift check)" : ""));
    cell(tr, badge(r.result));
    cell(tr, r.durationMs === null ? "" : r.durationMs + " ms");
    cell(tr, r.result === "running" ? "" : counts(r.changes, r.drift));
    cell(tr, r.revision === null ? "" : short(r.revision));
    cell(tr, r.message || "");
    return tr;
  });
  document.getElementById("reconciles").replaceChildren(...rows);
}
async function refresh() {
  try {
    const res = await fetch("status.json", {cache: "no-store"});
    if (!res.ok) throw new Error("HTTP " + res.status);
    const s = await res.json();
    summary(s);
    resources(s);
    reconciles(s);
    document.getElementById("stale").textContent = "";
    document.getElementById("updated").textContent = "updated " + new Date().toISOString();
  } catch (err) {
    document.getElementById("stale").textContent = "cannot reach the watcher: " + err.message;
  } finally {
    setTimeout(refresh, POLL_MS);
  }
}
refresh();
`;

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

/** The page (HTML). */
export const STATUS_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tgw watch</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<h1>tgw watch <span class="muted" id="updated"></span> <span id="stale"></span></h1>
<dl id="summary"></dl>
<h2>Resources</h2>
<table>
<thead><tr><th>Address</th><th>Id</th><th>Sync</th><th>Planned / error</th><th>Last change</th></tr></thead>
<tbody id="resources"></tbody>
</table>
<p id="no-resources" class="muted">No resource yet.</p>
<h2>Recent reconciles</h2>
<table>
<thead><tr><th>Run</th><th>Started</th><th>Trigger</th><th>Result</th><th>Duration</th><th>Changes</th><th>Revision</th><th>Message</th></tr></thead>
<tbody id="reconciles"></tbody>
</table>
<script>${SCRIPT}</script>
</body>
</html>
`;

/** Headers of the page: only its own script and style run, only same-origin fetches, no framing. */
export const STATUS_PAGE_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy": [
    "default-src 'none'",
    `script-src ${sha256(SCRIPT)}`,
    `style-src ${sha256(STYLE)}`,
    "connect-src 'self'",
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};
