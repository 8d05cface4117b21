/**
 * The human rendering of a plan, in the style of `terraform plan`:
 *
 * ```
 *   # api_keys.ci will be created (not in live state)
 *   + api_keys.ci (api_key)
 *       + description = "CI deployer"
 *       + id          = (known after apply)
 *       + token       = (sensitive, written to .tgw/secrets/api_keys.ci.token)
 *
 * Plan: 1 to create, 0 to update, 0 to replace, 0 to delete.
 * ```
 *
 * Symbols: `+` create, `~` update (and module put), `-/+` replace (the field that forces it is
 * marked `# forces replacement`), `-` delete, `.` forget (a `removed:` entry: the object stays). Only changed fields are listed for updates; multi-line
 * values (PEM, SAML XML) are shown as a block, and as a unified diff (the `diff` package) when they
 * change. Secrets are masked; ids of objects not created yet show `(known after apply)`. Drift is
 * reported in its own section before the actions. Documented in docs/plan.md.
 */
import { structuredPatch } from "diff";
import type { Colors } from "picocolors/types.js";
import { type Change, type Plan, summarize } from "../../engine/action.js";
import { maskValues, SENSITIVE } from "../../engine/mask.js";
import { canonicalJson, getKind } from "../../model/index.js";
import { formatValue, isMultiline, KNOWN_AFTER_APPLY } from "./values.js";

/** The summary line of a plan with changes. */
export function summaryLine(plan: Plan): string {
  const s = summarize(plan.changes);
  const forget = s.forget ? `, ${s.forget} to forget` : "";
  const imports = s.import ? `${s.import} to import, ` : "";
  return `Plan: ${imports}${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.delete} to delete${forget}.`;
}

/** The line printed when a plan has no changes. */
export const NO_CHANGES = "No changes. Live state matches the configuration.";

/**
 * The line printed instead of NO_CHANGES when the plan makes no API call but would take over objects
 * that another state lineage recorded (a lost state, or another workspace): not "no changes".
 */
export function noCallsLine(plan: Plan): string {
  const n = (plan.foreignLineages?.others ?? []).reduce((sum, o) => sum + o.objects, 0);
  return `No API calls, but the state would take over ${n} object${n === 1 ? "" : "s"} whose markers name another state lineage: a lost state, or another workspace's (see the warning; --takeover).`;
}

/** The last line of a plan without changes. */
export function unchangedLine(plan: Plan): string {
  return plan.foreignLineages ? noCallsLine(plan) : NO_CHANGES;
}

/** Renders `plan` as text for a terminal (colours from `c`; pass a disabled set for plain text). */
export function renderPlan(plan: Plan, c: Colors): string {
  let text = "";
  writePlan(plan, c, (chunk) => {
    text += chunk;
  });
  return text;
}

/** Lines of plan text gathered before they are handed to `writePlan`'s `write`. */
const CHUNK_LINES = 2048;

/**
 * Renders `plan` as `renderPlan` does, handing the text to `write` in chunks of whole lines as it is
 * made: a plan of thousands of creates is megabytes of text, which, held whole until the end, the
 * garbage collector would copy again at every young-generation collection during the rendering.
 */
export function writePlan(plan: Plan, c: Colors, write: (chunk: string) => void): void {
  const out: string[] = [];
  if (plan.partial) out.push(partialWarning(plan.partial, c), "");
  const drifted = plan.changes.filter((ch) => ch.drift);
  if (drifted.length > 0) {
    out.push(c.bold("Objects changed outside tgw since the last apply (drift):"));
    for (const ch of drifted) {
      out.push(
        `  ${c.yellow("!")} ${ch.address}: ${ch.before ? `${ch.changedFields.join(", ")} changed` : "deleted"}`,
      );
    }
    out.push("");
  }
  const acting = plan.changes.filter((ch) => ch.action !== "no-op");
  if (acting.length > 0) {
    out.push(`tgw will perform the following actions${plan.destroy ? " (destroy)" : ""}:`, "");
    for (const ch of acting) {
      appendChange(out, ch, c);
      out.push("");
      if (out.length >= CHUNK_LINES) {
        out.push("");
        write(out.join("\n"));
        out.length = 0;
      }
    }
  }
  const adopted = plan.changes.filter((ch) => ch.adopted).length;
  if (adopted > 0) {
    out.push(
      c.dim(
        `${adopted} object${adopted === 1 ? " was" : "s were"} recovered from ownership markers; apply records ${adopted === 1 ? "it" : "them"} in the state.`,
      ),
    );
  }
  // A moved address's record is forgotten too, but its object lives on at the new address.
  const moved = new Set(plan.changes.map((ch) => ch.movedFrom));
  const pending = plan.forget.filter((a) => a.endsWith("#pending")).length;
  const gone = plan.forget.filter((a) => !moved.has(a) && !a.endsWith("#pending"));
  if (pending > 0) {
    const found = plan.recover?.length ?? 0;
    out.push(
      c.dim(
        `${pending} create${pending === 1 ? "" : "s"} an earlier run recorded before sending ${pending === 1 ? "was" : "were"} resolved by create id: ${found} made (recorded now), ${pending - found} never made.`,
      ),
    );
  }
  if (gone.length > 0) {
    out.push(
      c.dim(
        `${gone.length} state record${gone.length === 1 ? "" : "s"} (${gone.join(", ")}) point at objects that no longer exist; apply removes them from the state.`,
      ),
    );
  }
  if (adopted > 0 || gone.length > 0 || pending > 0) out.push("");
  out.push(
    acting.length > 0
      ? c.bold(summaryLine(plan))
      : plan.foreignLineages
        ? c.yellow(noCallsLine(plan))
        : c.green(NO_CHANGES),
  );
  write(`${out.join("\n")}\n`);
}

/** The warning of a plan narrowed by `--target` / `--exclude` (Terraform prints the same). */
export function partialWarning(partial: NonNullable<Plan["partial"]>, c: Colors): string {
  const flags = [
    ...partial.target.map((a) => `--target ${a}`),
    ...partial.exclude.map((a) => `--exclude ${a}`),
  ].join(" ");
  return `${c.yellow(c.bold("Warning:"))} this plan covers only part of the configuration (${flags}).\n  It may not hold every change the configuration needs: use targeting for exceptional cases\n  (recovering from a mistake, working around an API limit), then run tgw plan without it.`;
}

/** Where a field line's text starts (`      ~ `): multi-line values close their brackets there. */
const FIELD_INDENT = "        ";

const SYMBOL: Record<string, string> = {
  create: "  +",
  update: "  ~",
  put: "  ~",
  replace: "-/+",
  delete: "  -",
  forget: "  .",
};

function verb(ch: Change): string {
  switch (ch.action) {
    case "create":
      return "will be created";
    case "update":
      return ch.importId ? "will be imported and updated in place" : "will be updated in place";
    case "replace":
      return "must be replaced";
    case "put":
      return ch.before ? "will be updated in place (PUT)" : "will be set (PUT)";
    case "delete":
      return "will be deleted";
    case "forget":
      return "will no longer be managed by tgw; the object stays";
    default:
      return "is up to date";
  }
}

function paint(c: Colors, action: string): (s: string) => string {
  if (action === "create") return c.green;
  if (action === "delete") return c.red;
  if (action === "replace") return c.magenta;
  return c.yellow;
}

/** The lines of one change: comment, header and field lines. */
export function renderChange(ch: Change, c: Colors): string[] {
  const lines: string[] = [];
  appendChange(lines, ch, c);
  return lines;
}

/** One field's rows: its sign, name and text (continuation lines after the first). */
type Row = { sign: string; name: string; text: string[] };

/** Appends the lines of `ch` to `lines` (a plan of 10,000 creates: no array per change to copy). */
function appendChange(lines: string[], ch: Change, c: Colors): void {
  const kind = getKind(ch.kind);
  const p = paint(c, ch.action === "put" && !ch.before ? "create" : ch.action);
  const label = ch.label ? ` [${ch.label}]` : "";
  lines.push(c.dim(`  # ${ch.address}${label} ${verb(ch)} (${ch.reason})`));
  const symbol = ch.action === "put" && !ch.before ? SYMBOL.create : SYMBOL[ch.action];
  lines.push(
    `${p(symbol ?? "   ")} ${c.bold(ch.address)} ${c.dim(`(${ch.kind})`)}${ch.id && !kind.module ? ` ${ch.id}` : ""}`,
  );
  const before = ch.before ? maskValues(kind, ch.before, ch.sensitive) : undefined;
  const after = ch.after ? maskValues(kind, ch.after, ch.sensitive) : undefined;
  const rows: Row[] = [];

  if (ch.action === "create" || (ch.action === "put" && !before)) {
    for (const name in after) rows.push(row("+", name, undefined, after[name]));
    if (!kind.module) rows.push({ sign: "+", name: "id", text: [KNOWN_AFTER_APPLY] });
  } else if (ch.action === "update" || ch.action === "put" || ch.action === "replace") {
    for (const name of ch.changedFields) {
      const elements = elementRows(name, before?.[name], after?.[name]);
      if (elements) {
        if (ch.replaceFields?.includes(name)) {
          const last = elements[elements.length - 1] as Row;
          last.text[last.text.length - 1] += c.dim(" # forces replacement");
        }
        rows.push(...elements);
        continue;
      }
      const marker = name === kind.metadataField ? markerNote(ch) : undefined;
      const r = row("~", name, before?.[name], after?.[name], marker);
      if (ch.replaceFields?.includes(name)) r.text[r.text.length - 1] += c.dim(" # forces replacement");
      rows.push(r);
    }
    if (ch.action === "replace")
      rows.push({ sign: "~", name: "id", text: [`${JSON.stringify(ch.id)} -> ${KNOWN_AFTER_APPLY}`] });
  } else if (ch.action === "delete") {
    // What goes away, as terraform plan lists it: every attribute of the object (secrets masked).
    for (const name in before) rows.push(row("+", name, undefined, before[name]));
    for (const r of rows) r.sign = "-";
  }
  if (ch.tokenFile)
    rows.push({ sign: "+", name: "token", text: [`${SENSITIVE.slice(0, -1)}, written to ${ch.tokenFile})`] });

  let width = 0;
  for (const r of rows) if (r.name.length > width) width = r.name.length;
  rows.sort(byName);
  for (const r of rows) {
    const color = paint(c, r.sign === "+" ? "create" : r.sign === "-" ? "delete" : "update");
    lines.push(`      ${color(r.sign)} ${r.name.padEnd(width)} = ${r.text[0] ?? ""}`);
    for (let i = 1; i < r.text.length; i++) lines.push(r.text[i] as string);
  }
}

function byName(a: Row, b: Row): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** A map key as part of a field name: `labels.env`, or `labels["app.kubernetes.io/name"]`. */
function keyName(field: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? `${field}.${key}` : `${field}[${JSON.stringify(key)}]`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Element-level rows of a changed map or list, as `terraform plan` shows them: a map as one row per
 * key added (`+ labels.env = "prod"`), changed (`~`) or removed (`-`); a list as one block of the
 * elements added and removed. Undefined when the value is not a map or list on both sides, or when only
 * the order of a list changed (the whole value is shown then).
 */
function elementRows(name: string, before: unknown, after: unknown): Row[] | undefined {
  if (canonicalJson(before ?? null) === canonicalJson(after ?? null)) return undefined;
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => {
      const b = before[key];
      const a = after[key];
      if (b === undefined) return [row("+", keyName(name, key), undefined, a)];
      if (a === undefined) return [{ ...row("+", keyName(name, key), undefined, b), sign: "-" }];
      if (canonicalJson(a) === canonicalJson(b)) return [];
      return [row("~", keyName(name, key), b, a)];
    });
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const count = (list: unknown[]) => {
      const m = new Map<string, number>();
      for (const v of list) m.set(canonicalJson(v), (m.get(canonicalJson(v)) ?? 0) + 1);
      return m;
    };
    const had = count(before);
    const has = count(after);
    const removed = before.filter((v) => (has.get(canonicalJson(v)) ?? 0) < (had.get(canonicalJson(v)) ?? 0));
    const added = after.filter((v) => (had.get(canonicalJson(v)) ?? 0) < (has.get(canonicalJson(v)) ?? 0));
    if (removed.length === 0 && added.length === 0) return undefined;
    const pad = `${FIELD_INDENT}  `;
    const unchanged = after.length - added.length;
    const text = [
      "[",
      ...added.map((v) => `${pad}+ ${formatValue(v, `${pad}  `)},`),
      ...removed.map((v) => `${pad}- ${formatValue(v, `${pad}  `)},`),
      ...(unchanged > 0
        ? [`${pad}  # (${unchanged} unchanged element${unchanged === 1 ? "" : "s"} hidden)`]
        : []),
      `${FIELD_INDENT}]`,
    ];
    return [{ sign: "~", name, text }];
  }
  return undefined;
}

/** One field line (plus continuation lines for blocks), values already masked. */
/** What a metadata change that only writes the ownership marker says: a rename names both addresses. */
function markerNote(ch: Change): string {
  return ch.movedFrom
    ? `ownership marker rewritten: ${ch.movedFrom} -> ${ch.address}`
    : "ownership marker written";
}

/**
 * One field line (plus continuation lines for blocks), values already masked. `marker`: the note of
 * the metadata field when only its ownership marker changes (removed before comparing).
 */
function row(sign: "+" | "~", name: string, before: unknown, after: unknown, marker?: string): Row {
  const pad = "        ";
  if (sign === "+") {
    if (isMultiline(after))
      return { sign, name, text: ["<<-EOT", ...block(after, `${pad}    `), `${pad}EOT`] };
    return { sign, name, text: [formatValue(after, FIELD_INDENT)] };
  }
  if (canonicalJson(before) === canonicalJson(after)) {
    // Equal once masked: a secret changed, or only the ownership marker (removed before comparing).
    if (containsSensitive(after))
      return { sign, name, text: [`${formatValue(after, FIELD_INDENT)} (sensitive value changed)`] };
    if (marker === undefined) return { sign, name, text: [`${formatValue(after, FIELD_INDENT)} (changed)`] };
    // No user metadata: the marker is all that changes, and `""` would read as a value.
    const empty = after === undefined || after === "" || canonicalJson(after) === "{}";
    return { sign, name, text: [empty ? `(${marker})` : `${formatValue(after, FIELD_INDENT)} (${marker})`] };
  }
  if (
    (isMultiline(before) || isMultiline(after)) &&
    typeof before === "string" &&
    typeof after === "string"
  ) {
    return { sign, name, text: ["<<-EOT", ...unifiedDiff(before, after, `${pad}  `), `${pad}EOT`] };
  }
  const from = before === undefined ? "null" : formatValue(before, FIELD_INDENT);
  return { sign, name, text: [`${from} -> ${formatValue(after, FIELD_INDENT)}`] };
}

function containsSensitive(v: unknown): boolean {
  return canonicalJson(v ?? null).includes(JSON.stringify(SENSITIVE));
}

function block(text: string, indent: string): string[] {
  return text
    .replace(/\n$/, "")
    .split("\n")
    .map((l) => `${indent}${l}`);
}

/** Hunks of a unified diff of two texts (3 lines of context), each line indented. */
export function unifiedDiff(before: string, after: string, indent: string): string[] {
  const patch = structuredPatch("before", "after", `${before.trimEnd()}\n`, `${after.trimEnd()}\n`, "", "", {
    context: 3,
  });
  const lines: string[] = [];
  for (const h of patch.hunks) {
    lines.push(`${indent}@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
    for (const l of h.lines) lines.push(`${indent}${l}`);
  }
  return lines;
}
