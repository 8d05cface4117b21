/**
 * Builds the per-kind sections of docs/configuration.md (between the `GENERATED: kinds` markers) from
 * the kind schemas and examples/kinds/, so the field tables never drift from schemas/ (see
 * scripts/gen.ts; test/config/config-docs.test.ts checks the file is up to date).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  collections,
  type FieldDescriptor,
  getKind,
  type JsonSchema,
  type KindDescriptor,
  moduleKinds,
} from "../src/model/index.js";
import { optionsFor } from "../src/model/resource-options.js";
import { withArticle } from "../src/model/words.js";

export const BEGIN = "<!-- BEGIN GENERATED: kinds (npm run gen) -->";
export const END = "<!-- END GENERATED: kinds -->";

const EXAMPLES = fileURLToPath(new URL("../examples/kinds/", import.meta.url));

const FORMATS: Record<string, string> = {
  "pem-certificate-chain": "PEM certificate chain, leaf first",
  "pem-private-key": "PEM private key",
  "ssh-public-key": "SSH public key (authorized_keys line)",
  "date-time": "RFC 3339 date-time",
  uri: "URI",
  regex: "regular expression",
};

/** A short human rendering of a schema's type. */
function typeOf(s: JsonSchema): string {
  const types = Array.isArray(s.type) ? (s.type as string[]).filter((t) => t !== "null") : [s.type as string];
  const t = types[0];
  if (Array.isArray(s.enum))
    return `one of ${(s.enum as unknown[]).map((v) => `\`${String(v)}\``).join(", ")}`;
  if (t === "string")
    return typeof s.format === "string" ? `string (${FORMATS[s.format] ?? s.format})` : "string";
  if (t === "integer")
    return typeof s.maximum === "number" && s.maximum === 4294967295 ? "integer (uint32)" : "integer";
  if (t === "array") {
    const item = typeOf((s.items ?? {}) as JsonSchema);
    return item === "string" ? "list of strings" : `list of ${item.replace(/^list of /, "lists of ")}`;
  }
  if (t === "object") {
    if (s.properties) {
      const names = Object.keys(s.properties as object);
      const one = s.exactlyOneOf ? "exactly one of " : "";
      return `mapping: ${one}${names.map((n) => `\`${n}\``).join(", ")}`;
    }
    return `mapping of name to ${typeOf((s.additionalProperties ?? {}) as JsonSchema)}`;
  }
  return t ?? "any";
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

function notes(kind: KindDescriptor, f: FieldDescriptor): string {
  const out: string[] = [];
  if (typeof f.schema.description === "string") out.push(f.schema.description);
  if (f.isMetadata)
    out.push("A mapping (sent as JSON text) or a string; the top-level key `tgw` is reserved.");
  if (f.ref) {
    const kinds = f.ref.map(getKind);
    const refs = kinds.filter((k) => k.collection).map((k) => `\`\${ref:${k.collection}.<name>}\``);
    out.push(
      `Id of ${kinds.map((k) => `${withArticle(k.title)} (\`${k.idPrefix}...\`)`).join(" or ")}${refs.length ? `, or ${refs.join(", ")}` : ""}.`,
    );
  }
  if (f.default !== undefined && !(Array.isArray(f.default) && f.default.length === 0) && f.default !== "") {
    out.push(`Default \`${JSON.stringify(f.default)}\`.`);
  }
  if (f.secret) out.push("Secret: masked in plan output, never in state.");
  if (f.writeOnly) out.push("Write-only: never returned by the API.");
  if (!kind.module && f.forcesReplace) out.push("Changing it replaces the resource.");
  return out.join(" ");
}

/** A markdown table with padded columns, as Biome formats it (so formatting the file changes nothing). */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
}

function section(kind: KindDescriptor): string {
  const heading = kind.collection
    ? `### \`${kind.collection}\`: ${kind.title}`
    : `### \`${kind.module?.configKey}\`: ${kind.title}`;
  const where = kind.collection
    ? `Address \`${kind.collection}.<name>\`.`
    : `Address \`${kind.path.slice(1).replaceAll("/", ".").replace("{edge_id}", "<edge id>").replace("{route_id}", "<route id>")}\`; written with one PUT.`;
  const rows = kind.fields.map((f) => [
    `\`${f.name}\``,
    cell(f.isMetadata ? "mapping or string" : typeOf(f.schema)),
    f.required ? "yes" : "",
    cell(notes(kind, f)),
  ]);
  for (const o of optionsFor(kind.kind)) rows.push([`\`${o.name}\``, o.type, "", cell(o.description)]);
  const example = readFileSync(`${EXAMPLES}${kind.kind}.yaml`, "utf8").split("\n").slice(1).join("\n").trim();
  return [
    heading,
    "",
    `${kind.description} ${where}`,
    "",
    ...table(["field", "type", "required", "notes"], rows),
    "",
    `Example (\`examples/kinds/${kind.kind}.yaml\`):`,
    "",
    "```yaml",
    example,
    "```",
    "",
  ].join("\n");
}

/** The markdown between the markers: one section per collection, then per module. */
export function generateKindSections(): string {
  const parts = [
    "## Collections",
    "",
    ...[...collections().values()].map(section),
    "## Modules",
    "",
    ...moduleKinds().map(section),
  ];
  return parts.join("\n").trimEnd();
}

/** `doc` with the generated region replaced. @throws Error if the markers are missing. */
export function withKindSections(doc: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start)
    throw new Error(`docs/configuration.md lacks the markers ${BEGIN} ... ${END}`);
  return `${doc.slice(0, start + BEGIN.length)}\n\n${generateKindSections()}\n\n${doc.slice(end)}`;
}
