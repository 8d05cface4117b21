/**
 * Fixtures: referenced-only objects with fixed ids, loaded at start (`--fixtures FILE`, docs/design.md
 * section 5), plus the account's settings. Format (YAML), every section optional:
 *
 * ```yaml
 * account: { id: acct_example01, abuse_reports: true }
 * users: [{ id: usr_example01, description: ..., admin: false }]
 * bots: [{ id: bot_example01 }]
 * https_edges:
 *   - id: edghts_example01
 *     hostports: [app.example.com:443]
 *     routes: [{ id: edghtsrt_example01, match_type: path_prefix, match: / }]
 * tls_edges: [...]            # hostports
 * tcp_edges: [...]            # hostports
 * certificate_authorities: [{ id: ca_example01, ca_pem_file: keys/ca.pem }]   # or ca_pem: inline PEM
 * ssh_certificate_authorities: [{ id: sshca_example01 }]                        # key pair generated
 * ip_policies: [...]
 * reserved_domains: [{ id: rd_example01, domain: app.example.com }]
 * reserved_addrs: [{ id: ra_example01, addr: 1.tcp.example.com:20001 }]
 * tunnels: [{ id: tn_example01, labels: {env: prod}, public_url: https://app.example.com, proto: https }]
 * ```
 *
 * Section names are the list keys of `schemas/referenced`; an entry is `id` (with the kind's prefix)
 * plus the fields of the kind's create request, validated by its schema; `admin` (users), `routes`
 * (HTTPS edges) and `ca_pem_file` (path relative to the fixtures file) are fixture-only. The whole
 * file is checked before anything is written, so a mistake leaves the store untouched. An object is
 * loaded once per store: an id that exists, or was deleted through the API, is left alone, so a
 * `--data` store keeps what clients did to it across restarts.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { FastifyInstance } from "fastify";
import { isMap, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { TgwError } from "../errors.js";
import { allKinds, getKind, type KindDescriptor } from "../model/index.js";
import { loadAccount, saveAccount } from "./account.js";
import { ApiProblem } from "./errors.js";
import { isWellFormedId } from "./ids.js";
import type { RequestContext } from "./resources/context.js";
import { createObject } from "./resources/service.js";
import type { Validators } from "./validation.js";

/** Fixtures file error: names the file, the line and the entry. */
export class FixturesError extends TgwError {
  constructor(message: string) {
    super("fixtures", message);
  }
}

type Entry = Record<string, unknown>;

/**
 * Loads a fixtures file into the app's store.
 * @throws FixturesError naming `file:line`, the section and entry, and what is wrong
 */
export async function loadFixtures(app: FastifyInstance, file: string): Promise<void> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new FixturesError(`cannot read fixtures file ${file}: ${(err as Error).message}`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const at = (node: unknown) => {
    const offset = (node as Node | undefined)?.range?.[0];
    return offset === undefined ? file : `${file}:${lines.linePos(offset).line}`;
  };
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    throw new FixturesError(`${file}:${e?.linePos?.[0]?.line ?? "?"}: not valid YAML: ${e?.message ?? ""}`);
  }
  if (doc.contents !== null && !isMap(doc.contents))
    throw new FixturesError(`${file}: expected a mapping of sections`);
  const sections = new Map<string, KindDescriptor>();
  for (const kind of allKinds().values()) {
    if (kind.referencedOnly && kind.listKey && kind.parent === undefined) sections.set(kind.listKey, kind);
  }
  const planned: Planned[] = [];
  let account: { value: Entry | null; where: string } | undefined;
  const src: Reader = { validators: app.validators, file, at, planned, ids: new Set() };
  for (const pair of isMap(doc.contents) ? doc.contents.items : []) {
    const section = String((pair.key as { value?: unknown } | null)?.value ?? pair.key);
    const value = pair.value as Node | null;
    if (section === "account") {
      account = { value: value?.toJSON() as Entry | null, where: at(value) };
      checkAccount(account.value, account.where);
      continue;
    }
    const kind = sections.get(section);
    if (kind === undefined) {
      throw new FixturesError(
        `${at(pair.key)}: unknown section ${JSON.stringify(section)}; known: account, ${[...sections.keys()].join(", ")}`,
      );
    }
    if (value !== null && !isSeq(value)) throw new FixturesError(`${at(value)}: ${section} must be a list`);
    for (const [i, node] of (value?.items ?? []).entries())
      readEntry(src, kind, node as Node, `${section}[${i}]`);
  }

  // Everything was checked: now write (the only failures left would be bugs).
  if (account) applyAccount(app, account.value);
  const ctx: RequestContext = {
    store: app.store,
    principal: { keyId: "fixtures", ownerId: "usr_admin", admin: true, accountId: app.store.accountId },
    account: loadAccount(app.store),
    baseUrl: "",
    emitEvents: false,
  };
  for (const p of planned) {
    if (ctx.store.everSeen(p.id)) continue;
    try {
      const { obj } = await createObject(p.kind, p.input, ctx, { id: p.id, parentId: p.parentId });
      if (p.admin) ctx.store.update(obj.id, { ...obj.body, admin: true });
    } catch (err) {
      if (err instanceof ApiProblem) throw new FixturesError(`${p.where}: ${err.message}`);
      throw err;
    }
  }
}

/** One object to create, checked. */
interface Planned {
  kind: KindDescriptor;
  id: string;
  parentId: string | null;
  input: Entry;
  admin: boolean;
  /** `file:line: section[i]` for messages. */
  where: string;
}

interface Reader {
  validators: Validators;
  file: string;
  /** `file:line` of a YAML node. */
  at: (node: unknown) => string;
  planned: Planned[];
  ids: Set<string>;
}

/** Checks one entry (and an HTTPS edge's routes) and adds it to the plan. @throws FixturesError */
function readEntry(
  src: Reader,
  kind: KindDescriptor,
  node: Node,
  where: string,
  parentId: string | null = null,
): void {
  const fail = (why: string) => new FixturesError(`${src.at(node)}: ${where}: ${why}`);
  const entry = node.toJSON() as Entry | null;
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) throw fail("must be a mapping");
  const { id, admin, routes, ca_pem_file: caPemFile, ...fields } = entry;
  if (typeof id !== "string" || !isWellFormedId(id, kind.idPrefix ?? "")) {
    throw fail(`id must be ${kind.idPrefix}<letters and digits> (got ${JSON.stringify(id)})`);
  }
  if (src.ids.has(id)) throw fail(`id ${id} is used twice`);
  src.ids.add(id);
  if (admin !== undefined && (kind.kind !== "user" || typeof admin !== "boolean")) {
    throw fail(kind.kind === "user" ? "admin must be true or false" : 'unknown field "admin" (users only)');
  }
  if (routes !== undefined && kind.kind !== "https_edge")
    throw fail('unknown field "routes" (HTTPS edges only)');
  if (caPemFile !== undefined) {
    if (kind.kind !== "certificate_authority")
      throw fail('unknown field "ca_pem_file" (certificate authorities only)');
    try {
      fields.ca_pem = readFileSync(resolve(dirname(src.file), String(caPemFile)), "utf8");
    } catch (err) {
      throw fail(`ca_pem_file: ${(err as Error).message}`);
    }
  }
  const result = src.validators.request(kind, "create")(fields);
  if ("error" in result) throw fail(result.error.message);
  src.planned.push({
    kind,
    id,
    parentId,
    input: result.value,
    admin: admin === true,
    where: `${src.at(node)}: ${where}`,
  });
  if (routes !== undefined) {
    const list = isMap(node) ? node.get("routes", true) : undefined;
    if (!isSeq(list)) throw fail("routes must be a list");
    const routeKind = getKind("https_edge_route");
    for (const [i, child] of list.items.entries())
      readEntry(src, routeKind, child as Node, `${where}.routes[${i}]`, id);
  }
}

/** Checks the `account` section. @throws FixturesError */
function checkAccount(value: Entry | null, where: string): void {
  if (value === null) return;
  if (typeof value !== "object" || Array.isArray(value))
    throw new FixturesError(`${where}: account must be a mapping`);
  const { id, abuse_reports: abuse, ...rest } = value;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) {
    throw new FixturesError(
      `${where}: account: unknown field ${JSON.stringify(unknown[0])} (known: id, abuse_reports)`,
    );
  }
  if (id !== undefined && (typeof id !== "string" || !isWellFormedId(id, "acct_"))) {
    throw new FixturesError(`${where}: account.id must be acct_<letters and digits>`);
  }
  if (abuse !== undefined && typeof abuse !== "boolean") {
    throw new FixturesError(`${where}: account.abuse_reports must be true or false`);
  }
}

/** Applies a checked `account` section to the store and the app. */
function applyAccount(app: FastifyInstance, value: Entry | null): void {
  if (value === null) return;
  const { id, abuse_reports: abuse } = value as { id?: string; abuse_reports?: boolean };
  saveAccount(app.store, {
    ...(id === undefined ? {} : { id }),
    ...(abuse === undefined ? {} : { abuseReports: abuse }),
  });
}
