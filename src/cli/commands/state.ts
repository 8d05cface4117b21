import { constructPaths } from "../../config/cdktf/labels.js";
import { parseDuration } from "../../duration.js";
import { UsageError } from "../../errors.js";
import { parseAddress } from "../../model/address.js";
import { getKind, MARKER_KEY } from "../../model/index.js";
import { closest } from "../../model/words.js";
import type { StateRecord, StateSnapshot, StateStore } from "../../state/index.js";
import type { RegisterCommand } from "../command.js";
import { withLocation } from "../options.js";
import { color, helpExamples } from "../output.js";
import { table } from "../render/table.js";
import { registerStateHistory } from "../state-history.js";
import { openCommandState } from "../state-location.js";

/** `rm` fails at once by default when another tgw holds the lock, naming it. */
const DEFAULT_LOCK_TIMEOUT = "0s";

interface LocateOptions {
  state?: string;
  file?: string[];
  stack?: string;
}

async function openStore(opts: LocateOptions, command: string): Promise<StateStore> {
  return (await openCommandState(opts, command)).store;
}

/** Registers `tgw state` and its subcommands. */
export const registerState: RegisterCommand = (program) => {
  const state = program
    .command("state")
    .description("inspect or edit the state store: what tgw manages (address -> id, fingerprints)");

  withLocation(
    state
      .command("list")
      .description("list the managed addresses, or those matching the given addresses or collections")
      .addHelpText("after", helpExamples("tgw state list -f infra/", "tgw state list api_keys --json"))
      .argument("[address...]", "addresses or collections (`api_keys`) to show")
      .option("--json", "print JSON (documented in docs/state.md)"),
  ).action(runList);

  withLocation(
    state
      .command("show")
      .description("show what the state records about one address")
      .addHelpText(
        "after",
        helpExamples("tgw state show api_keys.ci -f infra/", "tgw state show api_keys.ci --json"),
      )
      .argument("<address>", "e.g. api_keys.ci-deployer")
      .option("--json", "print the record as stored"),
  ).action(runShow);

  withLocation(
    state
      .command("rm")
      .description("forget addresses without deleting anything live (takes the state lock)")
      .addHelpText(
        "after",
        helpExamples(
          "tgw state rm api_keys.legacy -f infra/",
          "tgw state rm api_keys.a api_keys.b --lock-timeout 30s",
        ),
      )
      .argument("<address...>", "addresses to forget")
      .option(
        "--lock-timeout <duration>",
        "how long to wait for the state lock (e.g. 0, 30s, 5m)",
        DEFAULT_LOCK_TIMEOUT,
      ),
  ).action(runRm);

  withLocation(
    state
      .command("mv")
      .description("rename an address in the state, keeping its object (takes the state lock; no API call)")
      .addHelpText(
        "after",
        helpExamples(
          "tgw state mv api_keys.ci api_keys.deployer -f infra/",
          "# or, kept in Git: a moved: section in the configuration (docs/configuration.md)",
        ),
      )
      .argument("<old>", "the address in the state, e.g. api_keys.ci")
      .argument("<new>", "the new address, e.g. api_keys.deployer (same collection)")
      .option(
        "--lock-timeout <duration>",
        "how long to wait for the state lock (e.g. 0, 30s, 5m)",
        DEFAULT_LOCK_TIMEOUT,
      ),
  ).action(runMv);
  registerStateHistory(state);
};

/** `tgw state list [address...]`: a table, or `--json`. */
async function runList(filters: string[], opts: LocateOptions & { json?: boolean }): Promise<void> {
  const store = await openStore(opts, "tgw state list");
  const snapshot = await store.read();
  const records = Object.values(snapshot.resources)
    .filter(
      (r) => filters.length === 0 || filters.some((f) => r.address === f || r.address.startsWith(`${f}.`)),
    )
    .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  // A CDKTF stack: each address with its construct path (docs/cdktf.md).
  const labels = await constructPaths(opts.file);
  if (opts.json) {
    const exists = snapshot.serial > 0;
    const out = {
      state: store.location,
      stack: exists ? snapshot.stack : null,
      lineage: exists ? snapshot.lineage : null,
      serial: snapshot.serial,
      resources: records.map((r) => ({
        address: r.address,
        ...(labels.has(r.address) ? { label: labels.get(r.address) } : {}),
        kind: r.kind,
        id: r.id,
        appliedAt: r.appliedAt,
      })),
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return;
  }
  if (snapshot.serial === 0) {
    process.stdout.write(`No state at ${store.location}: nothing has been applied with it yet.\n`);
    return;
  }
  if (records.length === 0) {
    const what = filters.length === 0 ? "No resources" : `No resources matching ${filters.join(", ")}`;
    process.stdout.write(`${what} in state ${store.location}.\n`);
    return;
  }
  process.stdout.write(
    labels.size > 0
      ? table(
          ["ADDRESS", "CONSTRUCT", "KIND", "ID", "APPLIED AT"],
          records.map((r) => [r.address, labels.get(r.address) ?? "", r.kind, r.id, r.appliedAt]),
        )
      : table(
          ["ADDRESS", "KIND", "ID", "APPLIED AT"],
          records.map((r) => [r.address, r.kind, r.id, r.appliedAt]),
        ),
  );
  process.stdout.write(color.dim(`${summary(store.location, snapshot, records.length)}\n`));
}

/** `tgw state show ADDRESS`. */
async function runShow(address: string, opts: LocateOptions & { json?: boolean }): Promise<void> {
  const store = await openStore(opts, "tgw state show");
  const snapshot = await store.read();
  const record = snapshot.resources[address];
  if (record === undefined) throw notInState([address], store.location, snapshot, false);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
    return;
  }
  process.stdout.write(showRecord(record));
}

/** `tgw state rm ADDRESS...`: all or nothing, under the lock. */
async function runRm(addresses: string[], opts: LocateOptions & { lockTimeout: string }): Promise<void> {
  const timeoutMs = parseDuration(opts.lockTimeout, "--lock-timeout");
  const store = await openStore(opts, "tgw state rm");
  const { removed, stack } = await removeRecords(store, addresses, timeoutMs);
  for (const r of removed) {
    process.stdout.write(
      `Removed ${color.bold(r.address)} (${r.kind} ${r.id}) from state ${store.location}.\n`,
    );
  }
  process.stdout.write(`\n${afterRemoval(removed, stack)}\n`);
}

/**
 * What `tgw state rm ADDRESS...` does, without its output: removes the records of `addresses` under
 * the state lock, all or nothing, and marks their kinds unrecorded (their objects keep this stack's
 * marker: the next refresh lists the kinds to find them, docs/state.md > What a refresh reads).
 * A pure rewrite of the state: token files stay (their sidecars say whose token they hold).
 * @returns the removed records and the state's stack.
 * @throws UsageError naming the addresses not in the state (nothing removed), LockTimeoutError, and
 *   the store's errors.
 */
export async function removeRecords(
  store: StateStore,
  addresses: string[],
  timeoutMs: number,
): Promise<{ removed: StateRecord[]; stack: string }> {
  // Without a state there is nothing to forget: say so before the lock creates `.tgw/`.
  const before = await store.read();
  if (before.serial === 0) throw notInState(addresses, store.location, before);
  const unlock = await store.lock({ timeoutMs, holder: "tgw state rm" });
  try {
    const snapshot = await store.read();
    const unique = [...new Set(addresses)];
    const missing = unique.filter((a) => snapshot.resources[a] === undefined);
    // All or nothing: one unknown address and nothing is removed.
    if (missing.length > 0) throw notInState(missing, store.location, snapshot);
    const removed = unique.map((a) => snapshot.resources[a] as StateRecord);
    // Forgotten: the objects are left alone (docs/state.md > Identity), so no kind needs a list.
    for (const a of unique) delete snapshot.resources[a];
    const written = await store.write(snapshot);
    return { removed, stack: written.stack };
  } finally {
    await unlock();
  }
}

/** `tgw state mv OLD NEW`: the record, under the lock. */
async function runMv(from: string, to: string, opts: LocateOptions & { lockTimeout: string }): Promise<void> {
  const timeoutMs = parseDuration(opts.lockTimeout, "--lock-timeout");
  const store = await openStore(opts, "tgw state mv");
  const record = await moveRecord(store, from, to, timeoutMs);
  process.stdout.write(
    `Moved ${color.bold(from)} to ${color.bold(to)} (${record.kind} ${record.id}) in state ${store.location}.\n`,
  );
  process.stdout.write(
    `\nRename it in the configuration too. With ownership markers, the next apply rewrites the object's marker to ${to} (one PATCH).\n`,
  );
}

/**
 * What `tgw state mv FROM TO` does, without its output: moves the record of `from` to `to` under the
 * state lock. A pure rewrite of the state: an API key's token file moves at the next apply, which
 * finds it by its sidecar (docs/plan.md > Token files). @returns the moved record.
 * @throws UsageError (bad address, not in the state, `to` taken, a module), LockTimeoutError, and the
 *   store's errors.
 */
export async function moveRecord(
  store: StateStore,
  from: string,
  to: string,
  timeoutMs: number,
): Promise<StateRecord> {
  if (from.split(".")[0] !== parseAddress(to)?.collection) {
    throw new UsageError(
      `tgw state mv ${from} ${to}: the new address must be <collection>.<name> of the same collection`,
    );
  }
  const before = await store.read();
  if (before.serial === 0) throw notInState([from], store.location, before);
  const unlock = await store.lock({ timeoutMs, holder: "tgw state mv" });
  let record: StateRecord;
  try {
    const snapshot = await store.read();
    const found = snapshot.resources[from];
    if (found === undefined) throw notInState([from], store.location, snapshot);
    if (getKind(found.kind).module)
      throw new UsageError(`${from} is a module: its identity is its path, it cannot move`);
    if (snapshot.resources[to] !== undefined)
      throw new UsageError(`${to} is already in state ${store.location} (${snapshot.resources[to]?.id})`);
    record = { ...found, address: to };
    delete snapshot.resources[from];
    snapshot.resources[to] = record;
    // Its object's marker still names `from` until the next apply rewrites it: the record decides.
    await store.write(snapshot);
  } finally {
    await unlock();
  }
  return record;
}

function summary(location: string, snapshot: StateSnapshot, shown: number): string {
  const total = Object.keys(snapshot.resources).length;
  const count =
    shown === total ? `${total} resource${total === 1 ? "" : "s"}` : `${shown} of ${total} resources`;
  // A PostgreSQL state's location names its stack already: `... (stack ci)`.
  const stack = location.endsWith(`(stack ${snapshot.stack})`) ? "" : `stack ${snapshot.stack}, `;
  return `${count} in state ${location} (${stack}serial ${snapshot.serial}, lineage ${snapshot.lineage})`;
}

function showRecord(r: StateRecord): string {
  const rows: [string, string][] = [
    ["address", r.address],
    ["kind", r.kind],
    ["id", r.id],
    ["fingerprint", `sha256:${r.fingerprint}`],
  ];
  for (const [field, digest] of Object.entries(r.writeOnly ?? {}).sort()) {
    rows.push([`writeOnly.${field}`, `sha256:${digest}`]);
  }
  if (r.dependsOn !== undefined && r.dependsOn.length > 0) rows.push(["dependsOn", r.dependsOn.join(", ")]);
  rows.push(["appliedAt", r.appliedAt]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${color.dim(k.padEnd(width))}  ${v}\n`).join("");
}

function notInState(
  addresses: string[],
  location: string,
  snapshot: StateSnapshot,
  changing = true,
): UsageError {
  if (snapshot.serial === 0) {
    return new UsageError(
      `no state at ${location}: nothing has been applied with it yet (use --state or -f?)`,
    );
  }
  const known = Object.keys(snapshot.resources);
  const parts = addresses.map((a) => {
    // Addresses share long prefixes: only a near miss (3 edits at most) is a likely typo.
    const near = closest(a, known, 3);
    return near === undefined ? `"${a}"` : `"${a}" (did you mean "${near}"?)`;
  });
  const noun = addresses.length === 1 ? "address" : "addresses";
  return new UsageError(
    `${noun} ${parts.join(", ")} not in state ${location}${changing ? "; nothing was changed" : ""} (\`tgw state list\` shows the addresses)`,
  );
}

/**
 * What happens next to the forgotten resources (docs/design.md section 3): nothing live was deleted;
 * a resource with metadata keeps its ownership marker and is found again from it; a module is
 * identified by its path; a kind without metadata has no marker.
 */
function afterRemoval(removed: StateRecord[], stack: string): string {
  const marked: string[] = [];
  const modules: string[] = [];
  const unmarked: string[] = [];
  for (const r of removed) {
    const kind = safeKind(r.kind);
    if (kind?.module !== undefined) modules.push(r.address);
    else if (kind !== undefined && !kind.fields.some((f) => f.isMetadata)) unmarked.push(r.address);
    else marked.push(r.address);
  }
  const notes = [
    "Nothing was deleted: tgw no longer records these addresses, and the live resources are untouched.",
  ];
  if (marked.length > 0) {
    notes.push(
      `${list(marked)} still carr${marked.length === 1 ? "ies" : "y"} the ownership marker of stack "${stack}" in ` +
        `metadata (key "${MARKER_KEY}"), so the next plan adopts ${marked.length === 1 ? "it" : "them"} again from ` +
        "the marker if the configuration still has the address, and deletes it if the configuration does not. " +
        `To stop managing a resource for good, remove the "${MARKER_KEY}" key from its metadata through the API ` +
        "and remove it from the configuration. (With `ownership: state-only` there are no markers: an address " +
        "still in the configuration is created again.)",
    );
  }
  if (modules.length > 0) {
    notes.push(
      `${list(modules)}: a module is identified by its path; if the configuration still names it, the next apply ` +
        "manages it again, and if not, tgw leaves it in place (it no longer records having put it there).",
    );
  }
  if (unmarked.length > 0) {
    notes.push(
      `${list(unmarked)}: this kind has no metadata, hence no ownership marker; if the configuration still has ` +
        "the address, the next apply creates a second one (use `tgw import ADDRESS ID` to take the existing one back).",
    );
  }
  return notes.join("\n\n");
}

function list(addresses: string[]): string {
  return addresses.join(", ");
}

function safeKind(kind: string): ReturnType<typeof getKind> | undefined {
  try {
    return getKind(kind);
  } catch {
    return undefined;
  }
}
