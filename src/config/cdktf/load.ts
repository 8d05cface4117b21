/**
 * A synthesized CDKTF stack (`cdk.tf.json`) to the same `DesiredState` that YAML gives, through the
 * same schema check and named rules (docs/cdktf.md). The JSON is read with the YAML parser (JSON is
 * YAML), so every problem has a line and column; its path starts with the construct path.
 *
 * - Resources: `tunnelgw_<kind>` of a collection has the address `<collection>.<logical id>`
 *   (`tunnelgw_api_key.ci` -> `api_keys.ci`); a module's address is its API path, as in YAML
 *   (`tunnelgw_tls_edge_backend` with `edge_id` -> `edges.tls.<edge id>.backend`).
 * - Meta-arguments: `lifecycle.prevent_destroy` is the `prevent_destroy` option;
 *   `lifecycle.create_before_destroy` is accepted (the engine orders replaces itself); the API key's
 *   `token_file` is the option of that name, relative to the CDKTF project directory.
 * - The stack is the CDKTF stack's name (or the provider's `stack`); `ownership` is the provider's.
 * - Refused, each with its construct path: data sources, locals, modules, import / moved / removed /
 *   check blocks, providers other than tunnelgw, provider aliases, `count`, `for_each`,
 *   `depends_on`, provisioners, the other lifecycle settings, and expressions (./values.ts).
 * - Ignored: `terraform.backend` (tgw has its own state), outputs, and the provider's `api_url` and
 *   `api_key` (tgw reads TGW_API_URL and TGW_API_KEY).
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages show Terraform's ${...} syntax
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { OWNERSHIP_MODES, type OwnershipMode, type ResourceOptions } from "../../model/desired.js";
import { collections, type KindDescriptor } from "../../model/index.js";
import type { SynthesizedStack } from "../../model/synthesized-stack.js";
import { desiredKinds, moduleParams, resourceType } from "../../model/terraform-names.js";
import { defaultTokenFile } from "../../model/token-file.js";
import { type Entry, toDesired } from "../../model/validation/entry.js";
import { explainId } from "../../model/validation/ids.js";
import { childPath } from "../../model/validation/paths.js";
import { ProblemList } from "../../model/validation/problems.js";
import { RULES } from "../../model/validation/rules/index.js";
import { checkSchema } from "../../model/validation/schema-check.js";
import { didYouMean, withArticle } from "../../model/words.js";
import { ConfigError } from "../errors.js";
import { fileRoots } from "../file-read.js";
import { displayPath } from "../files.js";
import type { FileRead } from "../interpolate.js";
import { STACK_PATTERN } from "../layout.js";
import type { LoadedConfig, LoadOptions } from "../load-types.js";
import { describeNode, type MapEntry, type MapNode, type Node, type Position, parseYaml } from "../source.js";
import { convertAttributes, type ValueContext, type Variable } from "./values.js";

const REFUSED_BLOCKS: Record<string, string> = {
  data: "a data source",
  locals: "a local value (TerraformLocal)",
  module: "a module call (TerraformHclModule)",
  import: "an import block (importFrom): adopt the object with `tgw import <address> <id>` instead",
  moved: "a moved block",
  removed: "a removed block",
  check: "a check block",
};
const REFUSED_META: Record<string, string> = {
  count: "count",
  for_each: "for_each",
  depends_on: "depends_on (tgw orders changes by the references between resources)",
  provisioner: "a provisioner",
  connection: "a connection",
};

/**
 * Loads and checks the stack in `stack.file`.
 * @param paths the `-f` arguments (one, naming the stack)
 * @throws ConfigError with every problem found
 */
export function loadSynthesizedStack(
  paths: readonly string[],
  stack: SynthesizedStack,
  opts: LoadOptions = {},
): LoadedConfig {
  const cwd = opts.cwd ?? process.cwd();
  const problems = new ProblemList();
  const display = (abs: string) => displayPath(cwd, abs);
  const doc = readDocument(paths, stack, display(stack.file), problems);
  const { name, ownership } = stackSettings(doc, stack, problems);
  for (const { key, value } of doc.entries) {
    const what = REFUSED_BLOCKS[key];
    if (what) refuseBlock(key, what, value, problems);
  }
  readRequiredProviders(get(get(doc, "terraform"), "required_providers"), problems);

  const env = opts.env ?? process.env;
  const valueCtx: ValueContext = {
    variables: readVariables(get(doc, "variable")),
    env,
    stackDir: stack.stackDir,
    display,
    refAddress,
    filesRead: new Set(),
    // file() reads inside the CDKTF project's tree, as ${file:} inside a configuration's.
    fileRoots: fileRoots([stack.projectDir], env, cwd),
    fileCache: new Map<string, FileRead>(),
    problems,
  };
  const byAddress = uniqueByAddress(readResources(get(doc, "resource"), stack, valueCtx), problems);
  const entries = [...byAddress.values()];
  checkSchema(entries, { stack: name, ownership, problems });
  for (const rule of RULES) rule.check({ entries, byAddress, stack: name, ownership, problems, display });
  if (problems.size > 0) {
    throw new ConfigError(problems.items.map((p) => ({ ...p, message: inTerraformWords(p.message) })));
  }

  const resources = entries
    .map((e) => ({ ...toDesired(e), label: constructPathOf(e) }))
    .sort((a, b) => (a.address < b.address ? -1 : 1));
  const files = [...new Set([stack.file, ...valueCtx.filesRead])].sort();
  return {
    desired: { stack: name, ownership, resources, files, configDir: stack.projectDir },
    configFiles: [stack.file],
  };
}

/** The top-level object of the stack file (empty after a problem). */
function readDocument(
  paths: readonly string[],
  stack: SynthesizedStack,
  file: string,
  problems: ProblemList,
): MapNode {
  const whole: Position = { file, line: 0, col: 0 };
  if (paths.length > 1) {
    problems.add(whole, "", "a synthesized stack is read on its own: give -f once, naming its directory");
  }
  let text = "";
  try {
    text = readFileSync(stack.file, "utf8");
  } catch (err) {
    problems.add(whole, "", `cannot read: ${(err as Error).message}`);
  }
  const root = parseYaml(file, text, problems)[0];
  if (root && root.type !== "map") problems.add(root.pos, "", "a synthesized stack must be a JSON object");
  return root?.type === "map" ? root : { type: "map", entries: [], pos: whole };
}

/** The stack name (the provider's `stack`, else the CDKTF stack's) and the ownership mode. */
function stackSettings(
  doc: MapNode,
  stack: SynthesizedStack,
  problems: ProblemList,
): { name: string; ownership: OwnershipMode } {
  const provider = readProvider(doc, problems);
  const synthesized = metadataString(doc, ["stackName"]) ?? defaultName(stack);
  const { value, pos } = provider.stack ?? { value: synthesized, pos: doc.pos };
  if (!new RegExp(STACK_PATTERN).test(value)) {
    problems.add(
      pos,
      "stack",
      `the stack name ${JSON.stringify(value)} is not valid: use 1 to 64 letters, digits, _, . or -, or set the provider's stack`,
    );
  }
  return { name: value, ownership: provider.ownership ?? "marker" };
}

/** The entries by address; a second resource configuring one address is a problem. */
function uniqueByAddress(entries: Entry[], problems: ProblemList): Map<string, Entry> {
  const byAddress = new Map<string, Entry>();
  for (const entry of entries) {
    const first = byAddress.get(entry.address);
    if (first) {
      problems.add(
        entry.keyPos,
        constructPathOf(entry),
        `configures ${entry.address} again: ${constructPathOf(first)} (line ${first.keyPos.line}) already does`,
      );
    } else byAddress.set(entry.address, entry);
  }
  return byAddress;
}

/**
 * A message of the shared rules in the words of a CDKTF app: `${ref:api_keys.ci}` is
 * `${tunnelgw_api_key.ci.id}`, and `api_keys.<name>` is a `tunnelgw_api_key`.
 */
function inTerraformWords(message: string): string {
  const typeOf = (collection: string) => {
    const kind = collections().get(collection);
    return kind ? resourceType(kind) : collection;
  };
  return message
    .replace(/\$\{ref:([a-z_]+)\.([^}\s]+)\}/g, (_, c: string, name: string) => `\${${typeOf(c)}.${name}.id}`)
    .replace(/\b([a-z_]+)\.<name>/g, (whole, c: string) => (collections().has(c) ? typeOf(c) : whole));
}

/** The construct path a resource was synthesized from (kept on the entry's root index). */
function constructPathOf(entry: Entry): string {
  return entry.index.get("")?.path ?? entry.address;
}

function defaultName(stack: SynthesizedStack): string {
  return stack.stackDir.split(/[\\/]/).pop() ?? "stack";
}

function get(node: Node | undefined, key: string): Node | undefined {
  return node?.type === "map" ? node.entries.find((e) => e.key === key)?.value : undefined;
}

function scalar(node: Node | undefined): string | number | boolean | null | undefined {
  return node?.type === "scalar" ? node.value : undefined;
}

function metadataString(node: Node | undefined, keys: string[]): string | undefined {
  let n = get(get(node, "//"), "metadata");
  for (const k of keys) n = get(n, k);
  const v = scalar(n);
  return typeof v === "string" ? v : undefined;
}

/** A plain value of a node (variable defaults). */
function plainValue(node: Node): unknown {
  if (node.type === "scalar") return node.value;
  if (node.type === "seq") return node.items.map(plainValue);
  return Object.fromEntries(node.entries.map((e) => [e.key, plainValue(e.value)]));
}

function readVariables(node: Node | undefined): Map<string, Variable> {
  const out = new Map<string, Variable>();
  if (node?.type !== "map") return out;
  for (const { key, value } of node.entries) {
    const def = get(value, "default");
    const type = scalar(get(value, "type"));
    out.set(key, {
      name: key,
      ...(def ? { default: plainValue(def) } : {}),
      sensitive: scalar(get(value, "sensitive")) === true,
      ...(typeof type === "string" ? { type } : {}),
    });
  }
  return out;
}

interface ProviderSettings {
  stack?: { value: string; pos: Position };
  ownership?: OwnershipMode;
}

/** The `tunnelgw` provider block: `stack` and `ownership`; other providers and aliases are refused. */
function readProvider(doc: MapNode, problems: ProblemList): ProviderSettings {
  const settings: ProviderSettings = {};
  const providers = get(doc, "provider");
  if (providers?.type !== "map") return settings;
  for (const { key, keyPos, value } of providers.entries) {
    if (key !== "tunnelgw") {
      problems.add(
        keyPos,
        `provider.${key}`,
        `the provider ${key} is not supported: tgw reads tunnelgw only`,
      );
      continue;
    }
    const blocks = value.type === "seq" ? value.items : [value];
    blocks.forEach((block, i) => {
      const alias = get(block, "alias");
      if (i > 0 || alias) {
        problems.add(
          (alias ?? block).pos,
          "provider.tunnelgw",
          "provider aliases (a second TunnelgwProvider) are not supported: one stack talks to one API",
        );
        return;
      }
      if (block.type !== "map") return;
      for (const e of block.entries) readProviderSetting(e, settings, problems);
    });
  }
  return settings;
}

function readProviderSetting(e: MapEntry, settings: ProviderSettings, problems: ProblemList): void {
  const path = `provider.tunnelgw.${e.key}`;
  const v = scalar(e.value);
  if (e.key === "api_url" || e.key === "api_key" || e.key === "//") return;
  if (e.key === "stack") {
    if (typeof v === "string" && !v.includes("${")) settings.stack = { value: v, pos: e.value.pos };
    else problems.add(e.value.pos, path, "must be a literal string");
    return;
  }
  if (e.key === "ownership") {
    if (OWNERSHIP_MODES.includes(v as OwnershipMode)) settings.ownership = v as OwnershipMode;
    else problems.add(e.value.pos, path, `must be "marker" or "state-only"`);
    return;
  }
  problems.add(e.keyPos, path, "is not a setting of the tunnelgw provider");
}

function readRequiredProviders(node: Node | undefined, problems: ProblemList): void {
  if (node?.type !== "map") return;
  for (const { key, keyPos } of node.entries) {
    if (key !== "tunnelgw") {
      problems.add(
        keyPos,
        `terraform.required_providers.${key}`,
        `the provider ${key} is not supported: tgw reads tunnelgw only`,
      );
    }
  }
}

/** One problem per declared data source, local, module... naming its construct path. */
function refuseBlock(key: string, what: string, node: Node, problems: ProblemList): void {
  const refuse = (pos: Position, path: string) =>
    problems.add(pos, path, `${what} is not supported by tgw (docs/cdktf.md > What tgw reads)`);
  if (node.type === "seq") {
    for (const item of node.items) refuse(item.pos, key);
    return;
  }
  if (node.type !== "map") {
    refuse(node.pos, key);
    return;
  }
  for (const e of node.entries) {
    if (key === "data") {
      for (const inner of e.value.type === "map" ? e.value.entries : []) {
        refuse(inner.keyPos, metadataString(inner.value, ["path"]) ?? `data.${e.key}.${inner.key}`);
      }
    } else if (key === "locals") refuse(e.keyPos, `locals.${e.key}`);
    else refuse(e.keyPos, metadataString(e.value, ["path"]) ?? `${key}.${e.key}`);
  }
}

let byType: Map<string, KindDescriptor> | undefined;
function kindOfType(type: string): KindDescriptor | undefined {
  byType ??= new Map(desiredKinds().map((k) => [resourceType(k), k]));
  return byType.get(type);
}

/** The address a reference `${<type>.<name>.id}` names. */
function refAddress(type: string, name: string): { address: string } | { error: string } {
  const kind = kindOfType(type);
  if (!kind) {
    byType ??= new Map(desiredKinds().map((k) => [resourceType(k), k]));
    return { error: `unknown resource type ${type}${didYouMean(type, byType.keys())}` };
  }
  if (!kind.collection) return { error: `${kind.title} is a module: it has no id to refer to` };
  return { address: `${kind.collection}.${name}` };
}

function readResources(node: Node | undefined, stack: SynthesizedStack, ctx: ValueContext): Entry[] {
  const entries: Entry[] = [];
  if (node?.type !== "map") return entries;
  for (const { key: type, keyPos: typePos, value: byName } of node.entries) {
    const kind = kindOfType(type);
    if (!kind) {
      const message = type.startsWith("tunnelgw_")
        ? `unknown resource type${didYouMean(type, byType?.keys() ?? [])}`
        : `a resource of the provider ${type.split("_")[0]} is not supported: tgw reads tunnelgw only`;
      for (const e of byName.type === "map" ? byName.entries : []) {
        ctx.problems.add(e.keyPos, metadataString(e.value, ["path"]) ?? `${type}.${e.key}`, message);
      }
      if (byName.type !== "map") ctx.problems.add(typePos, type, message);
      continue;
    }
    if (byName.type !== "map") continue;
    for (const { key: name, keyPos, value } of byName.entries) {
      if (value.type !== "map") {
        ctx.problems.add(value.pos, `${type}.${name}`, `must be an object (got ${describeNode(value)})`);
        continue;
      }
      const entry = readResource(kind, name, keyPos, value, stack, ctx);
      if (entry) entries.push(entry);
    }
  }
  return entries;
}

function readResource(
  kind: KindDescriptor,
  name: string,
  keyPos: Position,
  body: MapNode,
  stack: SynthesizedStack,
  ctx: ValueContext,
): Entry | undefined {
  const path = metadataString(body, ["path"]) ?? `${resourceType(kind)}.${name}`;
  const { attributes, options } = readMetaArguments(kind, body, path, stack, ctx.problems);
  if (kind.kind === "api_key" && options.token_file === undefined) {
    options.token_file = defaultTokenFile(stack.projectDir, name);
  }
  const params = new Set(moduleParams(kind).map((p) => p.name));
  const fieldEntries = attributes.filter((e) => !params.has(e.key));
  const converted = convertAttributes(kind, fieldEntries, keyPos, path, ctx);
  const pathParams = kind.module ? modulePathParams(kind, attributes, keyPos, path, ctx) : undefined;
  if (kind.module && !pathParams) return undefined;
  return {
    address: pathParams ? moduleAddress(kind, pathParams) : `${kind.collection}.${name}`,
    kind,
    keyPos,
    body,
    ...(pathParams ? { pathParams } : {}),
    ...converted,
    fields: metadataAsData(kind, converted.fields),
    options,
  };
}

/** Splits a resource body into its attributes and the meta-arguments tgw reads (or refuses). */
function readMetaArguments(
  kind: KindDescriptor,
  body: MapNode,
  path: string,
  stack: SynthesizedStack,
  problems: ProblemList,
): { attributes: MapEntry[]; options: ResourceOptions } {
  const options: ResourceOptions = { prevent_destroy: false };
  const attributes: MapEntry[] = [];
  for (const e of body.entries) {
    const at = childPath(path, e.key);
    const refused = REFUSED_META[e.key];
    if (e.key === "//") continue;
    if (refused) {
      problems.add(e.keyPos, at, `${refused} is not supported by tgw (docs/cdktf.md > What tgw reads)`);
    } else if (e.key === "lifecycle") {
      readLifecycle(e.value, at, options, problems);
    } else if (e.key === "provider") {
      if (scalar(e.value) !== "tunnelgw") {
        problems.add(e.value.pos, at, "provider aliases are not supported: use the one tunnelgw provider");
      }
    } else if (e.key === "token_file" && kind.kind === "api_key") {
      const v = scalar(e.value);
      if (typeof v !== "string" || v.trim() === "" || v.includes("${")) {
        problems.add(e.value.pos, at, "must be a literal file path");
      } else options.token_file = resolve(stack.projectDir, v);
    } else attributes.push(e);
  }
  return { attributes, options };
}

/** A metadata string holding a JSON object is that object, as a YAML mapping would be. */
function metadataAsData(kind: KindDescriptor, fields: Record<string, unknown>): Record<string, unknown> {
  const out = { ...fields };
  for (const f of kind.fields) {
    const v = out[f.name];
    if (!f.isMetadata || typeof v !== "string") continue;
    try {
      const parsed: unknown = JSON.parse(v);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) out[f.name] = parsed;
    } catch {
      // A plain string: kept as written.
    }
  }
  return out;
}

/** A module's address is its API path, as in YAML: /edges/tls/{edge_id}/backend -> edges.tls.<id>.backend */
function moduleAddress(kind: KindDescriptor, pathParams: Record<string, string>): string {
  return kind.path
    .split("/")
    .filter(Boolean)
    .map((s) => s.replace(/^\{(\w+)\}$/, (_, param: string) => pathParams[param] ?? ""))
    .join(".");
}

/** A module's `edge_id` (and `route_id`), each an id of its parent's kind; undefined after a problem. */
function modulePathParams(
  kind: KindDescriptor,
  attributes: MapEntry[],
  keyPos: Position,
  path: string,
  ctx: ValueContext,
): Record<string, string> | undefined {
  const params = moduleParams(kind);
  const written = attributes.filter((e) => params.some((p) => p.name === e.key));
  const values = convertAttributes(kind, written, keyPos, path, ctx).fields;
  const out: Record<string, string> = {};
  for (const p of params) {
    const at = childPath(path, p.name);
    const entry = written.find((e) => e.key === p.name);
    const v = values[p.name];
    const why = !entry
      ? "is required"
      : typeof v === "string"
        ? explainId(v, [p.kind])
        : `must be ${withArticle(p.kind.title)} id written as a string`;
    if (why) ctx.problems.add(entry?.value.pos ?? keyPos, at, why);
    else out[p.name] = v as string;
  }
  return Object.keys(out).length === params.length ? out : undefined;
}

function readLifecycle(node: Node, path: string, options: ResourceOptions, problems: ProblemList): void {
  if (node.type !== "map") return;
  for (const e of node.entries) {
    const at = `${path}.${e.key}`;
    const v = scalar(e.value);
    if (e.key === "prevent_destroy") {
      if (typeof v === "boolean") options.prevent_destroy = v;
      else problems.add(e.value.pos, at, "must be true or false");
    } else if (e.key === "create_before_destroy") {
      if (typeof v !== "boolean") problems.add(e.value.pos, at, "must be true or false");
      // Accepted: the engine creates first whenever something refers to the object, else deletes first.
    } else {
      problems.add(
        e.keyPos,
        at,
        `lifecycle ${e.key} is not supported by tgw (docs/cdktf.md > What tgw reads)`,
      );
    }
  }
}
