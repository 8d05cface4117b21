/**
 * Issue 27 §2.2: the Terraform conformance matrix. Every resource type and data source of the provider
 * schema, with values generated from `schemas/` (./conformance-values.ts), so a new kind is covered
 * without writing its test. With the real `terraform` against the reference server, in one workspace
 * that holds every type (so the number of terraform runs does not grow with the number of types):
 *
 * 1. create every type with every optional attribute, read every data source (every value the API
 *    returns is set), then an empty re-plan;
 * 2. update step k changes the k-th updatable attribute of every type at once (references to other
 *    resources included): in place, no error (no "Provider produced inconsistent result"), empty
 *    re-plan; there are as many steps as the most updatable attributes of one type;
 * 3. one replacing change per type (every attribute that requires a replace): replaced, empty re-plan;
 * 4. `terraform state rm`, then import through `import {}` blocks, empty plan; `state rm` again, then
 *    `terraform import` by id (a module's id is its path), empty plan;
 * 5. destroy: the reference server holds none of the objects.
 *
 * A failure names the resource type and the attribute of the step.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, ApiError } from "../../src/client/index.js";
import { liveMetadata } from "../../src/engine/normalize.js";
import { allKinds, getKind, type KindDescriptor } from "../../src/model/index.js";
import { loadProviderSchema } from "../../src/terraform/schema.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import {
  buildMatrix,
  configuration,
  type ImportBlock,
  MAIN,
  type Matrix,
  type RefSource,
  requiredBody,
  schemaValue,
  unsetValues,
  type Value,
  type Variant,
} from "./conformance-values.js";
import { APPLY, PLAN, TerraformHome, type TfResult, terraformAvailable } from "./harness.js";

const available = terraformAvailable();
const PARALLELISM = "-parallelism=20";
/** `terraform import` runs at once (each starts the provider; the CI machines have two cores). */
const IMPORTS_AT_ONCE = 4;
/**
 * The number of update steps: the most updatable attributes of one type. Counted before the server
 * starts, with stand-in ids (the values do not matter, only which attributes have two).
 */
const UPDATE_STEPS = Math.max(
  0,
  ...buildMatrix(loadProviderSchema(), { ids: () => ["x0", "x1"] }).types.map((t) => t.updates.length),
);
type Raw = Record<string, unknown>;

/** What each address stands for in a step, for failure messages: `type.attribute` or `type (create)`. */
type Blame = Map<string, string>;

/** `# address action` lines of a plan or apply output, with the lines of each change. */
function plannedChanges(stdout: string): Map<string, { action: string; text: string }> {
  const out = new Map<string, { action: string; text: string }>();
  const chunks = stdout.split(/\n(?= {2}# [^(\s])/);
  for (const chunk of chunks) {
    const m = /^ {2}# (\S+) (.+)$/m.exec(chunk);
    if (!m?.[1] || !m[2] || m[1].startsWith("(")) continue;
    // A data source that reads a resource being made or replaced is read at apply: not a change.
    if (m[1].startsWith("data.") && m[2] === "will be read during apply") continue;
    out.set(m[1], { action: m[2], text: chunk.split(/\n\n/)[0]?.slice(0, 1500) ?? "" });
  }
  return out;
}

/** Every `Error:` of a terraform run, each with the address it names and the blamed attribute. */
function errorsOf(result: TfResult, blame: Blame): string[] {
  if (result.code === 0 && result.stderr === "") return [];
  const blocks = result.stderr.split(/(?=Error: )/).filter((b) => b.startsWith("Error: "));
  if (blocks.length === 0) return [`terraform exited ${result.code}: ${result.stderr || result.stdout}`];
  return blocks.map((b) => {
    const address = /with ([\w.]+),/.exec(b)?.[1] ?? "";
    const text = b.replace(/[│╵╷]/g, "").replace(/\s+/g, " ").slice(0, 600);
    return `${blame.get(address) ?? (address || "?")}: ${text}`;
  });
}

/** Problems of a re-plan that must be empty: each change names its type and the step's attribute. */
function replanProblems(plan: TfResult, blame: Blame, what: string): string[] {
  if (plan.code === 0) return [];
  if (plan.code !== 2) return errorsOf(plan, blame);
  const changes = [...plannedChanges(plan.stdout)].map(
    ([address, c]) => `${blame.get(address) ?? address}: ${what}: ${c.action}\n${c.text}`,
  );
  return changes.length > 0 ? changes : [`${what}: ${plan.stdout.slice(-1500)}`];
}

/** Problems where an apply did not do `expected` (e.g. "will be updated in-place") to each blamed address. */
function actionProblems(apply: TfResult, blame: Blame, expected: string): string[] {
  const changes = plannedChanges(apply.stdout);
  const problems = [...blame].flatMap(([address, what]) => {
    const action = changes.get(address)?.action ?? "no change";
    return action === expected ? [] : [`${what}: expected "${expected}", the plan says "${action}"`];
  });
  for (const [address, c] of changes) {
    if (!blame.has(address)) problems.push(`${address}: unexpected "${c.action}"\n${c.text}`);
  }
  return problems;
}

/**
 * Problems of an apply of `import {}` blocks: each address is imported, and changed in place only in
 * its config-only attributes (which the API does not hold).
 */
function importProblems(apply: TfResult, blame: Blame, configOnly: ReadonlyMap<string, string[]>): string[] {
  const changes = plannedChanges(apply.stdout);
  return [...blame].flatMap(([address, what]) => {
    const c = changes.get(address);
    if (!c) return [`${what}: not imported`];
    const changed = [...c.text.matchAll(/^ {6}[~+-] (\w+)/gm)].map((m) => m[1] as string);
    const unexpected = changed.filter((n) => !(configOnly.get(address) ?? []).includes(n));
    if (c.action === "will be imported") return [];
    const onlyConfigOnly = changed.length > 0 && unexpected.length === 0;
    if (/# \(imported from /.test(c.text) && c.action === "will be updated in-place" && onlyConfigOnly)
      return [];
    return [`${what}: imported with changes to ${unexpected.join(", ") || c.action}\n${c.text}`];
  });
}

/** `raw` with its metadata as data sources show it: the user's part, without the ownership marker. */
function userMetadata(raw: Raw): Raw {
  return typeof raw.metadata === "string" ? { ...raw, metadata: liveMetadata(raw.metadata) } : raw;
}

/** Ids of the objects of referenced-only kinds, two of each at least (made through the API if need be). */
async function referencedObjects(api: ApiClient): Promise<RefSource> {
  const pools = new Map<string, string[]>();
  const key = (kind: string, parentId?: string) => (parentId ? `${kind}/${parentId}` : kind);
  const refs: RefSource = { ids: (kind, parentId) => pools.get(key(kind, parentId)) ?? [] };
  const referenced = [...allKinds().values()].filter((k) => k.referencedOnly);
  const fill = async (kind: KindDescriptor, parentId?: string) => {
    const path = parentId ? kind.path.replace(/\{\w+\}/, parentId) : kind.path;
    const ids = (await api.listAll<Raw>(path, kind.listKey as string)).map((o) => String(o.id));
    for (let v = ids.length; v < 2; v++) {
      ids.push(String((await api.post<Raw>(path, requiredBody(kind, v as Variant, refs))).id));
    }
    pools.set(key(kind.kind, parentId), ids.sort());
  };
  for (const kind of referenced.filter((k) => !k.parent)) await fill(kind);
  for (const kind of referenced.filter((k) => k.parent)) {
    for (const parentId of refs.ids(kind.parent as string)) await fill(kind, parentId);
  }
  return refs;
}

describe("conformance values", () => {
  const ctx = { where: "tunnelgw_x.pem", refs: { ids: () => [] }, targets: new Set<string>() };

  it("asks for examples, naming the type and attribute, where no value can be derived", () => {
    expect(() => schemaValue({ type: "string", format: "ssh-public-key" }, 0, ctx)).toThrow(
      "tunnelgw_x.pem: cannot derive a ssh-public-key value: add examples to the schema",
    );
    expect(schemaValue({ type: "string", format: "ssh-public-key", examples: ["a", "b"] }, 1, ctx)).toBe("b");
  });

  it("gives every updatable attribute of every type two distinct values", () => {
    const matrix = buildMatrix(loadProviderSchema(), { ids: () => ["x0", "x1"] });
    expect(matrix.types.length).toBe(Object.keys(loadProviderSchema().resources).length);
    for (const t of matrix.types) {
      for (const u of t.updates)
        expect(u.value, `${t.type}.${u.attribute}`).not.toEqual(t.create[u.attribute]);
    }
  });
});

describe.skipIf(!available)("terraform conformance matrix from the provider schema (issue 27 §2.2)", () => {
  let server: TestServer;
  let home: TerraformHome;
  let api: ApiClient;
  let matrix: Matrix;
  let dir: string;
  let runs = 0;
  const started = Date.now();
  /** The current attribute values of `main` of every type. */
  const values = new Map<string, Record<string, Value>>();

  const timings: string[] = [];
  const tf = async (...args: string[]) => {
    runs++;
    const t0 = Date.now();
    const result = await home.tf(dir, ...args);
    timings.push(`${args[0]} ${((Date.now() - t0) / 1000).toFixed(1)}`);
    return result;
  };
  const write = (imports: ImportBlock[] = []) =>
    writeFileSync(join(dir, "main.tf.json"), JSON.stringify(configuration(matrix, values, imports), null, 2));
  const address = (type: string) => `${type}.${MAIN}`;
  /** The config-only attributes of each `main` (an import cannot know them). */
  const configOnly = new Map<string, string[]>();
  const blameAll = (what: (type: string) => string): Blame =>
    new Map(matrix.types.map((t) => [address(t.type), what(t.type)]));

  beforeAll(async () => {
    server = await startTestServer();
    home = new TerraformHome(server.url, server.token);
    api = new ApiClient({ baseUrl: server.url, apiKey: server.token });
    matrix = buildMatrix(loadProviderSchema(), await referencedObjects(api));
    for (const t of matrix.types) values.set(t.type, { ...t.create });
    for (const t of matrix.types) configOnly.set(address(t.type), t.configOnly);
    dir = home.workspace("matrix");
    write();
    const init = await tf("init", "-input=false", "-no-color");
    expect(init.code, init.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    if (matrix) console.log(summary(matrix, runs, Date.now() - started));
    if (matrix && process.env.TGW_CONFORMANCE_TIMINGS) console.log(timings.join(", "));
    await api?.close();
    home?.close();
    await server?.close();
  });

  /** The local state: the managed resources (address to attributes) and the outputs' values. */
  function state(file = join(dir, "terraform.tfstate")): { resources: Map<string, Raw>; outputs: Raw } {
    const doc = JSON.parse(readFileSync(file, "utf8")) as {
      outputs?: Record<string, { value: unknown }>;
      resources: { mode: string; type: string; name: string; instances: { attributes: Raw }[] }[];
    };
    const resources = new Map(
      doc.resources
        .filter((r) => r.mode === "managed")
        .map((r) => [`${r.type}.${r.name}`, r.instances[0]?.attributes ?? {}] as const),
    );
    const outputs = Object.fromEntries(Object.entries(doc.outputs ?? {}).map(([k, v]) => [k, v.value]));
    return { resources, outputs };
  }

  /** Applies the current configuration; problems: errors, actions other than `expected`, a non-empty re-plan. */
  async function applyAndReplan(blame: Blame, expected: string): Promise<string[]> {
    write();
    const apply = await tf(...APPLY, PARALLELISM);
    const problems = [...errorsOf(apply, blame), ...actionProblems(apply, blame, expected)];
    const plan = await tf(...PLAN, PARALLELISM);
    return [...problems, ...replanProblems(plan, blame, "the re-plan is not empty")];
  }

  it("creates every resource type with every optional attribute and reads every data source; the re-plan is empty", async () => {
    const blame = blameAll((type) => `${type} (create with every optional attribute)`);
    for (const type of matrix.refTargets.keys()) {
      for (const name of ["ref0", "ref1"]) blame.set(`${type}.${name}`, `${type} (create, ${name})`);
    }
    expect(await applyAndReplan(blame, "will be created")).toEqual([]);
    const { outputs } = state();
    const unset: Record<string, string[]> = {};
    for (const d of matrix.dataSources) {
      const shown = outputs[d.type] as Raw | undefined;
      const path = d.pathOf ? d.pathOf(String(shown?.id)) : d.path;
      const expected = d.list
        ? { [d.list.attribute]: (await api.listAll<Raw>(path, d.list.listKey)).map(userMetadata) }
        : userMetadata(await api.get<Raw>(path));
      const lost = unsetValues(expected, shown);
      if (lost.length > 0) unset[d.type] = lost;
    }
    expect(unset).toEqual({});
  }, 180_000);

  for (let step = 0; step < UPDATE_STEPS; step++) {
    it(`update step ${step + 1}: updatable attribute ${step + 1} of every type, in place; the re-plan is empty`, async (ctx) => {
      const changing = matrix.types.flatMap((t) => {
        const u = t.updates[step];
        return u ? [{ t, u }] : [];
      });
      if (changing.length === 0) return ctx.skip();
      for (const { t, u } of changing) values.set(t.type, { ...values.get(t.type), [u.attribute]: u.value });
      const blame: Blame = new Map(
        changing.map(({ t, u }) => [address(t.type), `${t.type}.${u.attribute} (update)`]),
      );
      expect(await applyAndReplan(blame, "will be updated in-place")).toEqual([]);
    }, 180_000);
  }

  it("replaces every type through the attributes that require a replace; the re-plan is empty", async () => {
    const replacing = matrix.types.filter((t) => Object.keys(t.replace).length > 0);
    for (const t of replacing) values.set(t.type, { ...values.get(t.type), ...t.replace });
    const blame: Blame = new Map(
      replacing.map((t) => [address(t.type), `${t.type}.${Object.keys(t.replace).join("+")} (replace)`]),
    );
    expect(await applyAndReplan(blame, "must be replaced")).toEqual([]);
  }, 180_000);

  it("imports every resource through import {} blocks, then by id with terraform import: the same state, an empty plan", async () => {
    const { resources } = state();
    const imports = [...resources].map(([to, v]) => ({ to, id: String(v.id) }));
    const blame: Blame = new Map(imports.map((i) => [i.to, `${i.to.split(".")[0]} (import ${i.id})`]));
    const rm = await tf("state", "rm", "-no-color", ...imports.map((i) => i.to));
    expect(rm.code, rm.stderr).toBe(0);
    write(imports);
    server.resetRequests();
    const viaBlocks = await tf(...APPLY, PARALLELISM);
    const problems = [...errorsOf(viaBlocks, blame), ...importProblems(viaBlocks, blame, configOnly)];
    problems.push(...server.mutations().map((r) => `an import changed the server: ${r.method} ${r.path}`));
    write();
    problems.push(
      ...replanProblems(await tf(...PLAN, PARALLELISM), blame, "the plan after import {} is not empty"),
    );
    // terraform import takes one address a run: the main resource of each type, each into a state file
    // of its own, side by side; it must write the state the empty plan above was made from.
    const imported = state().resources;
    const mains = imports.filter((i) => i.to.endsWith(`.${MAIN}`));
    await inBatches(mains, IMPORTS_AT_ONCE, async (i) => {
      const file = join(dir, `import-${i.to}.tfstate`);
      const run = await tf("import", "-input=false", "-no-color", `-state=${file}`, i.to, i.id);
      problems.push(...errorsOf(run, blame));
      if (run.code !== 0) return;
      const ignore = configOnly.get(i.to) ?? [];
      const [got, want] = [state(file).resources.get(i.to), imported.get(i.to)].map((a) =>
        without(a, ignore),
      );
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        problems.push(
          `${blame.get(i.to)}: terraform import wrote ${JSON.stringify(got)}, not ${JSON.stringify(want)}`,
        );
      }
    });
    expect(problems).toEqual([]);
  }, 300_000);

  it("destroys everything: the reference server holds none of the objects", async () => {
    const { resources } = state();
    const destroy = await tf("destroy", "-auto-approve", "-input=false", "-no-color", PARALLELISM);
    expect(errorsOf(destroy, new Map())).toEqual([]);
    const left: string[] = [];
    for (const [addr, v] of resources) {
      const kind = getKind(kindOfType(addr.split(".")[0] as string, matrix));
      const path = kind.module ? String(v.id) : `${kind.path}/${String(v.id)}`;
      const found = await api.get(path).then(
        () => true,
        (err: unknown) => !(err instanceof ApiError && err.status === 404),
      );
      if (found) left.push(`${addr}: ${path} still exists`);
    }
    expect(left).toEqual([]);
  }, 180_000);
});

/** What the matrix covered: types, data sources, steps, runs, time, and what no step could change. */
function summary(matrix: Matrix, runs: number, ms: number): string {
  const steps = Math.max(...matrix.types.map((t) => t.updates.length));
  const noReplace = matrix.types.filter((t) => Object.keys(t.replace).length === 0).map((t) => t.type);
  const fixed = matrix.types.flatMap((t) => t.fixed.map((a) => `${t.type}.${a}`));
  return [
    `terraform conformance matrix: ${matrix.types.length} resource types, ${matrix.dataSources.length} data sources, ${steps} update steps, ${runs} terraform runs, ${(ms / 1000).toFixed(1)} s`,
    `  no attribute requires a replace: ${noReplace.join(", ") || "-"}`,
    `  one valid value only, not updated: ${fixed.join(", ") || "-"}`,
  ].join("\n");
}

/** `attributes` without the `names`, for comparisons. */
function without(attributes: Raw | undefined, names: string[]): Raw | undefined {
  return attributes && Object.fromEntries(Object.entries(attributes).filter(([k]) => !names.includes(k)));
}

/** Runs `work` on every item, `size` at a time. */
async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work));
}

/** The kind of a resource type of the matrix. */
function kindOfType(type: string, matrix: Matrix): string {
  const t = matrix.types.find((x) => x.type === type);
  if (!t) throw new Error(`${type}: not in the matrix`);
  return t.kind.kind;
}
