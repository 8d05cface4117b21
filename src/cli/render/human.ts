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
 * marked `# forces replacement`), `-` delete. Only changed fields are listed for updates; multi-line
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
  return `Plan: ${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.delete} to delete.`;
}

/** The line printed when a plan has no changes. */
export const NO_CHANGES = "No changes. Live state matches the configuration.";

/** Renders `plan` as text for a terminal (colours from `c`; pass a disabled set for plain text). */
export function renderPlan(plan: Plan, c: Colors): string {
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
    for (const ch of acting) out.push(...renderChange(ch, c), "");
  }
  const adopted = plan.changes.filter((ch) => ch.adopted).length;
  if (adopted > 0) {
    out.push(
      c.dim(
        `${adopted} object${adopted === 1 ? " was" : "s were"} recovered from ownership markers; apply records ${adopted === 1 ? "it" : "them"} in the state.`,
      ),
    );
  }
  if (plan.forget.length > 0) {
    out.push(
      c.dim(
        `${plan.forget.length} state record${plan.forget.length === 1 ? "" : "s"} (${plan.forget.join(", ")}) point at objects that no longer exist; apply removes them from the state.`,
      ),
    );
  }
  if (adopted > 0 || plan.forget.length > 0) out.push("");
  out.push(acting.length > 0 ? c.bold(summaryLine(plan)) : c.green(NO_CHANGES));
  return `${out.join("\n")}\n`;
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
};

function verb(ch: Change): string {
  switch (ch.action) {
    case "create":
      return "will be created";
    case "update":
      return "will be updated in place";
    case "replace":
      return "must be replaced";
    case "put":
      return ch.before ? "will be updated in place (PUT)" : "will be set (PUT)";
    case "delete":
      return "will be deleted";
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
  const kind = getKind(ch.kind);
  const p = paint(c, ch.action === "put" && !ch.before ? "create" : ch.action);
  const lines = [c.dim(`  # ${ch.address} ${verb(ch)} (${ch.reason})`)];
  const symbol = ch.action === "put" && !ch.before ? SYMBOL.create : SYMBOL[ch.action];
  lines.push(
    `${p(symbol ?? "   ")} ${c.bold(ch.address)} ${c.dim(`(${ch.kind})`)}${ch.id && !kind.module ? ` ${ch.id}` : ""}`,
  );
  const before = ch.before ? maskValues(kind, ch.before) : undefined;
  const after = ch.after ? maskValues(kind, ch.after) : undefined;
  const rows: { sign: string; name: string; text: string[] }[] = [];

  if (ch.action === "create" || (ch.action === "put" && !before)) {
    for (const name of Object.keys(after ?? {}).sort()) rows.push(row("+", name, undefined, after?.[name]));
    if (!kind.module) rows.push({ sign: "+", name: "id", text: [KNOWN_AFTER_APPLY] });
  } else if (ch.action === "update" || ch.action === "put" || ch.action === "replace") {
    for (const name of ch.changedFields) {
      const r = row("~", name, before?.[name], after?.[name], name === kind.metadataField);
      if (ch.replaceFields?.includes(name)) r.text[r.text.length - 1] += c.dim(" # forces replacement");
      rows.push(r);
    }
    if (ch.action === "replace")
      rows.push({ sign: "~", name: "id", text: [`${JSON.stringify(ch.id)} -> ${KNOWN_AFTER_APPLY}`] });
  }
  if (ch.tokenFile)
    rows.push({ sign: "+", name: "token", text: [`${SENSITIVE.slice(0, -1)}, written to ${ch.tokenFile})`] });

  const width = Math.max(0, ...rows.map((r) => r.name.length));
  for (const r of rows.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const [first = "", ...rest] = r.text;
    lines.push(
      `      ${paint(c, r.sign === "+" ? "create" : "update")(r.sign)} ${r.name.padEnd(width)} = ${first}`,
    );
    lines.push(...rest);
  }
  return lines;
}

/** One field line (plus continuation lines for blocks), values already masked. */
function row(
  sign: "+" | "~",
  name: string,
  before: unknown,
  after: unknown,
  carriesMarker = false,
): { sign: string; name: string; text: string[] } {
  const pad = "        ";
  if (sign === "+") {
    if (isMultiline(after))
      return { sign, name, text: ["<<-EOT", ...block(after, `${pad}    `), `${pad}EOT`] };
    return { sign, name, text: [formatValue(after, FIELD_INDENT)] };
  }
  if (canonicalJson(before) === canonicalJson(after)) {
    // Equal once masked: a secret changed, or only the ownership marker (removed before comparing).
    const note = containsSensitive(after)
      ? "(sensitive value changed)"
      : carriesMarker
        ? "(ownership marker added)"
        : "(changed)";
    return { sign, name, text: [`${formatValue(after, FIELD_INDENT)} ${note}`] };
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
