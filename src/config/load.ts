/**
 * Loading a configuration, stage by stage (changesets' config parsing is the model): find the files,
 * parse YAML keeping positions, read the layout of each document, merge documents, interpolate values,
 * validate each resource against its kind's schema, run the semantic rules. Every stage reports into
 * one problem list and later stages still run on what is usable, so one `ConfigError` carries every
 * problem; only a configuration without problems becomes a `DesiredState`.
 */
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import type { OwnershipMode } from "../model/desired.js";
import { optionsFor } from "../model/resource-options.js";
import { findSynthesizedStack } from "../model/synthesized-stack.js";
import { type Entry, toDesired } from "../model/validation/entry.js";
import { ProblemList } from "../model/validation/problems.js";
import { RULES } from "../model/validation/rules/index.js";
import { checkSchema } from "../model/validation/schema-check.js";
import { type ParseCache, parseLayouts } from "./cache.js";
import { loadSynthesizedStack } from "./cdktf/load.js";
import { ConfigError } from "./errors.js";
import { fileRoots } from "./file-read.js";
import { defaultStack, displayPath, findConfigFiles } from "./files.js";
import { checkImports, type ImportEntry } from "./imports.js";
import {
  type FileRead,
  type InterpolationContext,
  interpolateFields,
  interpolateString,
} from "./interpolate.js";
import { type RawEntry, type Setting, STACK_PATTERN } from "./layout.js";
import type { LoadedConfig, LoadOptions } from "./load-types.js";
import { checkMoved, type MovedEntry } from "./moved.js";
import { readOptions } from "./options.js";
import { checkRemoved, type RemovedEntry } from "./removed.js";
import { type MapEntry, type Position, preloadYamlParser } from "./source.js";
import { loopTurns } from "./turns.js";

export type { LoadedConfig, LoadOptions } from "./load-types.js";

/**
 * Loads and validates the configuration at `paths` (files or directories; none: the working directory).
 * @throws ConfigError with every problem found, sorted by position; nothing is returned partially
 */
export async function loadConfig(paths: readonly string[], opts: LoadOptions = {}): Promise<LoadedConfig> {
  const cwd = opts.cwd ?? process.cwd();
  // A synthesized CDKTF stack is another source of the same desired state (docs/cdktf.md).
  const synthesized = findSynthesizedStack(paths, cwd);
  if (synthesized) return loadSynthesizedStack(paths, synthesized, opts);
  const env = opts.env ?? process.env;
  const problems = new ProblemList();
  const display = (abs: string) => displayPath(cwd, abs);

  const { files, configDir } = findConfigFiles(paths, cwd, problems);
  const { texts, dirs } = readConfigFiles(files, display, problems);
  await preloadYamlParser([...texts.values()]);
  const turn = loopTurns();
  const documents = await collectLayouts(texts, problems, turn, opts.parseCache);
  const stack = settleStack(documents.stacks, files, configDir, display, problems);
  const ownership = settle("ownership", documents.ownerships, problems) ?? "marker";

  const ctx: InterpolationContext = {
    env,
    dirOf: (file) => dirs.get(file) ?? cwd,
    display,
    fileRoots: fileRoots([configDir, ...dirs.values()], env, cwd),
    filesRead: new Set(),
    fileCache: new Map<string, FileRead>(),
    filePaths: new Map(),
    problems,
  };
  const { states } = documents;
  const stateUrl = interpolateStateUrl(settle("state.url", states, problems), states[0]?.pos, ctx);
  const byAddress = await readEntries(documents.raw, configDir, ctx, turn);
  const entries = [...byAddress.values()];

  for (let i = 0; i < entries.length; i += SCHEMA_CHUNK) {
    checkSchema(entries.slice(i, i + SCHEMA_CHUNK), { stack, ownership, problems });
    await turn();
  }
  for (const rule of RULES) rule.check({ entries, byAddress, stack, ownership, problems, display });
  const moved = checkMoved(documents.moved, new Set(byAddress.keys()), problems);
  const movedFrom = new Set(documents.moved.map((m) => m.from));
  const removed = checkRemoved(documents.removed, new Set(byAddress.keys()), movedFrom, problems);
  const kindOf = new Map([...byAddress].map(([address, e]) => [address, e.kind.kind]));
  const movedTo = new Set(documents.moved.map((m) => m.to));
  const imports = checkImports(documents.imports, kindOf, movedTo, problems);
  if (problems.size > 0) throw new ConfigError(problems.items);

  // Addresses are unique (see readEntries): sorting them as strings, without a comparator called
  // from the sort, gives the order `a.address < b.address` gave.
  const byAddressSorted = [...byAddress.keys()].sort();
  const resources = byAddressSorted.map((a) => toDesired(byAddress.get(a) as Entry));
  const allFiles = [...new Set([...files, ...ctx.filesRead])].sort();
  return {
    desired: {
      stack,
      ownership,
      resources,
      files: allFiles,
      configDir,
      ...(moved.length > 0 ? { moved } : {}),
      ...(removed.length > 0 ? { removed } : {}),
      ...(imports.length > 0 ? { imports } : {}),
      ...(stateUrl === undefined ? {} : { stateUrl }),
    },
    configFiles: files,
  };
}

/**
 * Reads each configuration file as text, keyed by its displayed path, with the directory it is in
 * (for relative `${file:}` paths). A file that cannot be read is a problem, and is left out.
 */
function readConfigFiles(
  files: readonly string[],
  display: (abs: string) => string,
  problems: ProblemList,
): { texts: Map<string, string>; dirs: Map<string, string> } {
  const dirs = new Map<string, string>();
  const texts = new Map<string, string>();
  for (const abs of files) {
    const file = display(abs);
    dirs.set(file, dirname(abs));
    try {
      texts.set(file, readFileSync(abs, "utf8"));
    } catch (err) {
      problems.add({ file, line: 0, col: 0 }, "", `cannot read: ${(err as Error).message}`);
    }
  }
  return { texts, dirs };
}

/** What the documents of every file declare, merged in file and document order. */
interface Documents {
  stacks: Setting<string>[];
  ownerships: Setting<OwnershipMode>[];
  states: Setting<string>[];
  raw: RawEntry[];
  moved: MovedEntry[];
  removed: RemovedEntry[];
  imports: ImportEntry[];
}

/** Resources checked against their schema between two chances of a turn of the event loop. */
const SCHEMA_CHUNK = 200;

/**
 * Parses each text's documents (through `cache` when given) and merges their layouts; YAML problems go
 * to `problems`. `turn` is awaited between files (./turns.ts).
 */
async function collectLayouts(
  texts: Map<string, string>,
  problems: ProblemList,
  turn: () => Promise<void> | undefined,
  cache?: ParseCache,
): Promise<Documents> {
  const documents: Documents = {
    stacks: [],
    ownerships: [],
    states: [],
    raw: [],
    moved: [],
    removed: [],
    imports: [],
  };
  for (const [file, text] of texts) {
    for (const layout of parseLayouts(file, text, problems, cache)) {
      if (layout.stack) documents.stacks.push(layout.stack);
      if (layout.state) documents.states.push({ value: layout.state.url, pos: layout.state.pos });
      if (layout.ownership) documents.ownerships.push(layout.ownership);
      documents.raw.push(...layout.entries);
      documents.moved.push(...layout.moved);
      documents.removed.push(...layout.removed);
      documents.imports.push(...layout.imports);
    }
    await turn();
  }
  return documents;
}

/**
 * Reads each resource's fields (interpolated) and options, keyed by address in definition order. A
 * second definition of an address is a problem naming the first, which is kept. `turn` is awaited
 * between entries (./turns.ts).
 */
async function readEntries(
  raw: readonly RawEntry[],
  configDir: string,
  ctx: InterpolationContext,
  turn: () => Promise<void> | undefined,
): Promise<Map<string, Entry>> {
  const byAddress = new Map<string, Entry>();
  const optionsByKind = new Map<string, Set<string>>();
  for (const r of raw) {
    const earlier = byAddress.get(r.address);
    if (earlier) {
      ctx.problems.add(r.keyPos, r.address, `is defined twice: also at ${where(earlier.keyPos)}`);
      continue;
    }
    const optionNames =
      optionsByKind.get(r.kind.kind) ?? new Set<string>(optionsFor(r.kind.kind).map((o) => o.name));
    optionsByKind.set(r.kind.kind, optionNames);
    byAddress.set(r.address, readEntry(r, optionNames, configDir, ctx));
    await turn();
  }
  return byAddress;
}

/** One resource's entry: its body split into fields (interpolated) and the kind's options (read). */
function readEntry(
  r: RawEntry,
  optionNames: Set<string>,
  configDir: string,
  ctx: InterpolationContext,
): Entry {
  const fieldEntries: MapEntry[] = [];
  const optionEntries: MapEntry[] = [];
  for (const e of r.body.entries) (optionNames.has(e.key) ? optionEntries : fieldEntries).push(e);
  const { fields, index, refs, fromFile, fromEnv } = interpolateFields(
    fieldEntries,
    r.keyPos,
    r.address,
    ctx,
  );
  // Written out rather than spread (`{...r, ...interpolated}`, or a conditional spread): object
  // spread is a slow copy, once per entry; the properties and their order are the same.
  const entry = {
    address: r.address,
    kind: r.kind,
    name: r.name,
    keyPos: r.keyPos,
    body: r.body,
  } as Entry & { name: string };
  if (r.pathParams !== undefined) entry.pathParams = r.pathParams;
  entry.fields = fields;
  entry.index = index;
  entry.refs = refs;
  entry.fromFile = fromFile;
  entry.fromEnv = fromEnv;
  entry.options = readOptions(optionEntries, {
    kind: r.kind.kind,
    name: r.name,
    path: r.address,
    configDir,
    dirOf: ctx.dirOf,
    problems: ctx.problems,
  });
  return entry;
}

/**
 * The stack name: the one `stack:` setting, or the configuration directory's name, which is a problem
 * (on the first file) when it is not a valid stack name.
 */
function settleStack(
  stacks: Setting<string>[],
  files: readonly string[],
  configDir: string,
  display: (abs: string) => string,
  problems: ProblemList,
): string {
  const stack = settle("stack", stacks, problems) ?? defaultStack(configDir);
  if (stacks.length === 0 && files.length > 0 && !new RegExp(STACK_PATTERN).test(stack)) {
    problems.add(
      { file: display(files[0] as string), line: 0, col: 0 },
      "stack",
      "the stack name defaults to the configuration directory's name, which is not a valid stack name: set stack: (letters, digits, _, . or -)",
    );
  }
  return stack;
}

/** One value for a setting written in several documents; differing values are problems. */
function settle<T extends string>(
  name: string,
  settings: Setting<T>[],
  problems: ProblemList,
): T | undefined {
  const [first, ...rest] = settings;
  if (!first) return undefined;
  for (const s of rest) {
    if (s.value !== first.value) {
      problems.add(
        s.pos,
        name,
        `is ${JSON.stringify(s.value)} here but ${JSON.stringify(first.value)} at ${where(first.pos)}: set it once, or the same everywhere`,
      );
    }
  }
  return first.value;
}

function where(pos: Position): string {
  return `${pos.file}:${pos.line}:${pos.col}`;
}

/** The `state:` URL with `${env:}` / `${file:}` substituted (a password may come from them). */
function interpolateStateUrl(
  raw: string | undefined,
  pos: Position | undefined,
  ctx: InterpolationContext,
): string | undefined {
  if (raw === undefined || pos === undefined) return undefined;
  const { value } = interpolateString(raw, pos, "state.url", ctx);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}
