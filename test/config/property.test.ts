/**
 * The validator never crashes: random mutations of valid configurations (types swapped, fields
 * dropped, keys misspelt, strings lengthened, refs broken, raw text damaged) always give either a
 * desired state or a ConfigError whose every problem is positioned inside the files.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: configuration text and messages contain ${...} on purpose
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import fc from "fast-check";
import { afterAll, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { ConfigError, loadDesiredState } from "../../src/config/index.js";
import { EXAMPLES, exampleConfigFiles } from "../helpers/examples.js";

/** The configuration files of one example, with `${file:../keys/...}` made absolute. */
function readExample(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of exampleConfigFiles(join(EXAMPLES, dir))) {
    out[basename(file)] = readFileSync(file, "utf8").replaceAll(
      "${file:../keys/",
      `\${file:${EXAMPLES}keys/`,
    );
  }
  return out;
}

const configs = [readExample("complete"), readExample("kinds")];
const work = mkdtempSync(join(tmpdir(), "tgw-config-prop-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every path to a value in `doc`. */
function paths(doc: Json, at: (string | number)[] = []): (string | number)[][] {
  const here = [at];
  if (Array.isArray(doc)) return [...here, ...doc.flatMap((v, i) => paths(v, [...at, i]))];
  if (doc && typeof doc === "object")
    return [...here, ...Object.entries(doc).flatMap(([k, v]) => paths(v, [...at, k]))];
  return here;
}

const replacements: Json[] = [
  null,
  true,
  0,
  -1,
  4294967296,
  1.5,
  "",
  "x",
  [],
  {},
  ["a"],
  { a: "b" },
  "${ref:",
  "${env:X}",
];

/** The longest string a `lengthen` mutation makes (characters). */
const LENGTHENED_MAX = 100_000;

type Mutation =
  | { kind: "replace"; pick: number; value: number }
  | { kind: "drop"; pick: number }
  | { kind: "rename"; pick: number; suffix: string }
  | { kind: "lengthen"; pick: number; times: number }
  | { kind: "break-ref"; pick: number; with: string }
  | { kind: "text"; at: number; insert: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant("replace" as const),
    pick: fc.nat(),
    value: fc.nat(replacements.length - 1),
  }),
  fc.record({ kind: fc.constant("drop" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("rename" as const), pick: fc.nat(), suffix: fc.string({ maxLength: 3 }) }),
  fc.record({
    kind: fc.constant("lengthen" as const),
    pick: fc.nat(),
    times: fc.integer({ min: 2, max: 400 }),
  }),
  fc.record({
    kind: fc.constant("break-ref" as const),
    pick: fc.nat(),
    with: fc.constantFrom(
      "${ref:nope.nope}",
      "${ref:api_keys.ci}",
      "${ref:x}",
      "a ${ref:api_keys.ci}",
      "$${ref:x}",
    ),
  }),
  fc.record({ kind: fc.constant("text" as const), at: fc.nat(), insert: fc.string({ maxLength: 6 }) }),
);

function apply(doc: Json, m: Exclude<Mutation, { kind: "text" }>): Json {
  const all = paths(doc).filter((p) => p.length > 0);
  if (all.length === 0) return doc;
  const path = all[m.pick % all.length] as (string | number)[];
  const parent = path
    .slice(0, -1)
    .reduce<Json>((node, key) => (node as Record<string, Json>)[key] as Json, doc) as
    | Json[]
    | Record<string, Json>;
  const key = path[path.length - 1] as string | number;
  const target = (parent as Record<string, Json>)[key] as Json;
  const set = (v: Json) => {
    (parent as Record<string, Json>)[key] = v;
  };
  switch (m.kind) {
    case "replace":
      set(replacements[m.value] as Json);
      break;
    case "drop":
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      break;
    case "rename":
      if (!Array.isArray(parent)) {
        delete parent[key];
        parent[`${key}${m.suffix}`] = target;
      }
      break;
    case "lengthen":
      // Far past every length limit (4,096), but bounded: lengthening the same long value (a PEM) up to
      // four times compounds, and once made a string of hundreds of MB that ran for many minutes.
      if (typeof target === "string")
        set(target.repeat(Math.max(1, Math.min(m.times, Math.floor(LENGTHENED_MAX / (target.length || 1))))));
      break;
    case "break-ref":
      set(m.with);
      break;
  }
  return doc;
}

it("never crashes on mutated configurations: valid, or every problem positioned", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.nat(configs.length - 1),
      fc.nat(),
      fc.array(mutation, { minLength: 1, maxLength: 4 }),
      async (which, fileIndex, mutations) => {
        const config = configs[which] as Record<string, string>;
        const names = Object.keys(config);
        const name = names[fileIndex % names.length] as string;
        let text = config[name] as string;
        for (const m of mutations) {
          if (m.kind === "text") {
            const at = m.at % (text.length + 1);
            text = text.slice(0, at) + m.insert + text.slice(at);
          } else {
            let doc: Json;
            try {
              doc = parse(text, { merge: true }) as Json;
            } catch {
              continue; // an earlier text mutation broke the YAML: that is the case under test
            }
            text = stringify(apply(doc, m));
          }
        }
        const dir = mkdtempSync(join(work, "c-"));
        mkdirSync(dir, { recursive: true });
        for (const n of names) writeFileSync(join(dir, n), n === name ? text : (config[n] as string));
        try {
          const desired = await loadDesiredState([dir], {
            cwd: dir,
            env: { TGW_FILE_ROOTS: join(EXAMPLES, "keys") },
          });
          expect(Array.isArray(desired.resources)).toBe(true);
        } catch (err) {
          if (!(err instanceof ConfigError)) throw err;
          expect(err.problems.length).toBeGreaterThan(0);
          for (const p of err.problems) {
            expect(names).toContain(p.file);
            const lines = (p.file === name ? text : (config[p.file] as string)).split("\n").length;
            expect(p.line).toBeGreaterThanOrEqual(1);
            expect(p.line).toBeLessThanOrEqual(lines);
            expect(p.col).toBeGreaterThanOrEqual(1);
            expect(p.message.length).toBeGreaterThan(0);
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    ),
    { numRuns: Number(process.env.TGW_PROPERTY_RUNS ?? 100) },
  );
});
