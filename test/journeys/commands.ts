/**
 * The journey commands (fast-check `AsyncCommand`s over ./world.ts): what a user, a second workspace,
 * `tgw watch` or someone at the API does to a stack. Commands that pick an existing address take an
 * index, resolved when they run (so shrinking keeps them valid); `toString()` shows what they did.
 */
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import {
  ApplyFailedError,
  type EngineEvent,
  ImportError,
  reconcile,
  UnsafePlanError,
} from "../../src/engine/index.js";
import {
  applyAsDocumented,
  COLLECTIONS,
  checkConverged,
  checkTokens,
  desiredOf,
  InvariantError,
  importAs,
  interrupting,
  keepCopy,
  killing,
  kindOf,
  loseState,
  type Model,
  noteRecorded,
  noteReplaces,
  ownedObjects,
  restoreState,
  run,
  stateAddresses,
  stateMv,
  stateRm,
  storeOf,
  validMoves,
  type World,
} from "./world.js";

export type Command = fc.AsyncCommand<Model, World>;

/**
 * A command: `check` is true unless said otherwise; `done` says what the last run did. After it acts,
 * the ids the workspaces' states record are noted (./world.ts `Model.seen`).
 */
abstract class Base implements Command {
  protected done = "";
  check(_m: Readonly<Model>): boolean {
    return true;
  }
  async run(m: Model, w: World): Promise<void> {
    try {
      await this.act(m, w);
    } finally {
      await noteRecorded(w, m);
    }
  }
  abstract act(m: Model, w: World): Promise<void>;
  abstract describe(): string;
  toString(): string {
    return this.done ? `${this.describe()} [${this.done}]` : this.describe();
  }
}

const sorted = (m: Model) => [...m.desired.keys()].sort();
const pick = <T>(list: readonly T[], i: number): T => list[i % list.length] as T;
const renamed = (from: string, name: string) => `${from.slice(0, from.indexOf("."))}.${name}`;

/** Moves what the model knows about `from` to `to` (a rename that keeps the object). */
function rename(m: Model, from: string, to: string, keep: boolean): void {
  const description = m.desired.get(from) as string;
  m.desired.delete(from);
  readded(m, to);
  m.desired.set(to, description);
  const id = m.ids.get(from);
  m.ids.delete(from);
  if (keep && id !== undefined) m.ids.set(to, id);
  for (const set of [m.mayChange, m.unmarked]) if (set.delete(from) && keep) set.add(to);
}

/**
 * `address` is in the configuration again: `moved:` entries from it no longer apply (the configuration
 * would refuse them), so the object they renamed is the old address's again and the new one is made.
 */
function readded(m: Model, address: string): void {
  for (const move of validMoves(m)) if (move.from === address) m.mayChange.add(move.to);
  m.moved = m.moved.filter((move) => move.from !== address);
  m.removed.delete(address);
  // Configured again before its entry was applied, the kept object may be managed again.
  for (const [id, kept] of m.kept) if (kept === address) m.kept.delete(id);
}

/** Records that a state record may be gone: an unapplied `state mv`'s object is then pruned. */
function recordsLost(m: Model, addresses: Iterable<string> = m.unmarked): void {
  for (const a of addresses) {
    if (!m.unmarked.has(a)) continue;
    m.mayChange.add(a);
    // A removed: entry not applied yet keeps nothing then: the object's marker names the old address.
    for (const [id, kept] of m.kept) if (kept === a) m.kept.delete(id);
  }
}

export class Add extends Base {
  constructor(
    readonly address: string,
    readonly description: string,
  ) {
    super();
  }
  override check(m: Readonly<Model>) {
    return !m.desired.has(this.address);
  }
  async act(m: Model) {
    readded(m, this.address);
    m.desired.set(this.address, this.description);
  }
  describe() {
    return `add ${this.address} "${this.description}"`;
  }
}

export class Edit extends Base {
  constructor(
    readonly index: number,
    readonly description: string,
  ) {
    super();
  }
  override check(m: Readonly<Model>) {
    return m.desired.size > 0;
  }
  async act(m: Model) {
    const address = pick(sorted(m), this.index);
    m.desired.set(address, this.description);
    this.done = address;
  }
  describe() {
    return `edit #${this.index} description "${this.description}"`;
  }
}

export class Remove extends Base {
  constructor(readonly index: number) {
    super();
  }
  override check(m: Readonly<Model>) {
    return m.desired.size > 0;
  }
  async act(m: Model) {
    const address = pick(sorted(m), this.index);
    m.desired.delete(address);
    m.ids.delete(address);
    this.done = address;
  }
  describe() {
    return `remove #${this.index}`;
  }
}

/** Stops managing an address with a `removed:` entry: its object stays live, unmanaged. */
export class StopManaging extends Base {
  constructor(readonly index: number) {
    super();
  }
  override check(m: Readonly<Model>) {
    return m.desired.size > 0;
  }
  async act(m: Model) {
    const address = pick(sorted(m), this.index);
    const id = m.ids.get(address);
    m.desired.delete(address);
    m.ids.delete(address);
    m.removed.add(address);
    // Kept for sure only when the model knows the object: not one that may be another by now, nor the
    // object of a rename onto this address not applied yet (its record and marker name the old one).
    const known = !m.mayChange.has(address) && !m.moved.some((move) => move.to === address);
    if (id !== undefined && known) m.kept.set(id, address);
    this.done = `${address}${id !== undefined && known ? ` keeps ${id}` : ""}`;
  }
  describe() {
    return `stop managing #${this.index} with removed:`;
  }
}

/** Renames in the configuration with a `moved:` entry. */
export class RenameMoved extends Base {
  constructor(
    readonly index: number,
    readonly name: string,
  ) {
    super();
  }
  override check(m: Readonly<Model>) {
    return m.desired.size > 0;
  }
  async act(m: Model, w: World) {
    const from = pick(sorted(m), this.index);
    const to = renamed(from, this.name);
    if (m.desired.has(to)) {
      this.done = `${to} is taken: nothing`;
      return;
    }
    // A move onto an address whose old object is still recorded is refused (MoveConflictError, tested
    // in test/cli/commands/rename.test.ts): a user applies the removal first.
    for (const workspace of [w.main, w.second])
      if ((await stateAddresses(w, workspace)).includes(to)) {
        this.done = `${to} is still in the state of ${workspace.name}: nothing`;
        return;
      }
    // Two entries moving onto one address are refused too (MoveConflictError) when both sources are
    // recorded: a user removes the stale entry; the model does not write a second one.
    if (m.moved.some((move) => move.to === to)) {
      this.done = `an entry already moves onto ${to}: nothing`;
      return;
    }
    rename(m, from, to, true);
    m.moved.push({ from, to });
    this.done = `${from} -> ${to}`;
  }
  describe() {
    return `rename #${this.index} to ${this.name} with moved:`;
  }
}

/** Renames in the configuration and with `tgw state mv` (the CLI refuses when FROM is not in the state). */
export class RenameStateMv extends Base {
  constructor(
    readonly index: number,
    readonly name: string,
  ) {
    super();
  }
  override check(m: Readonly<Model>) {
    return m.desired.size > 0;
  }
  async act(m: Model, w: World) {
    const from = pick(sorted(m), this.index);
    const to = renamed(from, this.name);
    if (m.desired.has(to)) {
      this.done = `${to} is taken: nothing`;
      return;
    }
    // Onto the target of a `moved:` entry whose source is recorded, the next plan refuses the entry
    // (MoveConflictError, tested in test/cli/commands/rename.test.ts): a user removes the entry first.
    if (m.moved.some((move) => move.to === to)) {
      this.done = `an entry moves onto ${to}: nothing`;
      return;
    }
    // `tgw state mv` moves the record, not the object: a record whose id is not the object the model
    // knows for `from` (another workspace made a new one since) moves that other id.
    const recorded = (await storeOf(w, w.main).read()).resources[from]?.id;
    const stale = recorded !== undefined && recorded !== m.ids.get(from);
    const moved = await stateMv(w, w.main, from, to);
    rename(m, from, to, moved);
    if (moved) m.unmarked.add(to);
    if (moved && stale) m.mayChange.add(to);
    this.done = `${from} -> ${to}${moved ? "" : ", state mv refused: config renamed only"}`;
  }
  describe() {
    return `rename #${this.index} to ${this.name} with state mv`;
  }
}

export class StateRm extends Base {
  constructor(readonly index: number) {
    super();
  }
  async act(m: Model, w: World) {
    const addresses = await stateAddresses(w, w.main);
    if (addresses.length === 0) {
      this.done = "state empty: nothing";
      return;
    }
    const address = pick(addresses, this.index);
    await stateRm(w, w.main, address);
    // The record's address may have been renamed since in the configuration (a `moved:` entry): the
    // object whose record is gone is then the new address's.
    let current = address;
    for (
      let move = m.moved.find((mv) => mv.from === current);
      move;
      move = m.moved.find((mv) => mv.from === current)
    )
      current = move.to;
    recordsLost(m, [address, current]);
    // Another workspace's object may carry the address's marker too: the next apply adopts the
    // oldest (docs/state.md > Identity), which may not be the one the model knew.
    if ((await ownedObjects(w)).filter((o) => o.address === current).length > 1) m.mayChange.add(current);
    this.done = address;
  }
  describe() {
    return `state rm #${this.index}`;
  }
}

/** Creates an object through the API without a marker, adds its address and `tgw import`s it. */
export class Import extends Base {
  constructor(
    readonly address: string,
    readonly description: string,
  ) {
    super();
  }
  /** Not onto the target of a `moved:` entry: both would be the address's object (MoveConflictError). */
  override check(m: Readonly<Model>) {
    return !m.desired.has(this.address) && !m.moved.some((move) => move.to === this.address);
  }
  async act(m: Model, w: World) {
    const kind = kindOf(this.address);
    const created = await w.api.post<{ id: string }>(kind.path, { description: this.description });
    w.unmanaged.push({ path: kind.path, id: created.id });
    readded(m, this.address);
    m.desired.set(this.address, this.description);
    try {
      await importAs(w, m, this.address, created.id);
      m.ids.set(this.address, created.id);
      this.done = created.id;
    } catch (err) {
      if (!(err instanceof ImportError)) throw err;
      this.done = `refused: ${err.message}`;
    }
  }
  describe() {
    return `import an unmanaged object as ${this.address} "${this.description}"`;
  }
}

export class Apply extends Base {
  async act(m: Model, w: World) {
    const applied = await applyAsDocumented(w, m, w.main);
    this.done = applied.refused.length ? `refused (${applied.refused}), then as documented` : "";
    await checkConverged(w, m, w.main, applied);
    await keepCopy(w);
  }
  describe() {
    return "apply";
  }
}

/** An apply whose signal is aborted as its `after`-th API call starts (Ctrl-C, a kill). */
export class InterruptedApply extends Base {
  constructor(readonly after: number) {
    super();
  }
  async act(m: Model, w: World) {
    const controller = new AbortController();
    const api = interrupting(w.api, this.after, controller);
    try {
      const applied = await run(
        w,
        m,
        w.main,
        { mode: "apply" },
        {
          api,
          signal: controller.signal,
        },
      );
      this.done = "finished before the interruption";
      await checkConverged(w, m, w.main, applied);
      await keepCopy(w);
    } catch (err) {
      if (err instanceof InvariantError) throw err;
      const reason = controller.signal.reason;
      const expected =
        (err instanceof ApplyFailedError && err.interrupted) ||
        err === reason ||
        (err instanceof Error && err.cause === reason) ||
        err instanceof UnsafePlanError;
      if (!expected) throw err;
      this.done = err instanceof UnsafePlanError ? "refused" : "interrupted";
    }
  }
  describe() {
    return `apply interrupted at API call ${this.after}`;
  }
}

/**
 * An apply killed (SIGKILL) as its `after`-th API call is sent: that call happens, nothing after it,
 * and no state write after the kill (./world.ts `killing`). The next apply must resolve what was cut
 * off (docs/state.md > Pending creates).
 */
export class KilledApply extends Base {
  constructor(readonly after: number) {
    super();
  }
  async act(m: Model, w: World) {
    const killed = killing(w.api, storeOf(w, w.main), this.after);
    const events: EngineEvent[] = [];
    const applied = reconcile({
      desired: desiredOf(w, m, w.main),
      api: killed.api,
      store: killed.store,
      options: { mode: "apply" },
      onEvent: (e) => events.push(e),
    }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    const outcome = await Promise.race([applied, killed.dead.then(() => "killed" as const)]);
    noteReplaces(m, events);
    if (outcome === "killed") {
      // What the process had started locally (a token file being written) ends as a kill could find it.
      await sleep(50);
      this.done = `killed at API call ${this.after}`;
      return;
    }
    if ("error" in outcome) {
      if (!(outcome.error instanceof UnsafePlanError)) throw outcome.error;
      this.done = "refused";
      return;
    }
    this.done = "finished before the kill";
    await checkConverged(w, m, w.main, { result: outcome.result, events });
    await keepCopy(w);
  }
  describe() {
    return `apply killed at API call ${this.after}`;
  }
}

/** The state file is deleted; then `tgw apply --takeover`, as docs/state.md says. */
export class LoseStateTakeover extends Base {
  async act(m: Model, w: World) {
    await loseState(w.main);
    recordsLost(m);
    // Objects left alone earlier (a state rm, an older takeover) may carry the marker of an address
    // too: the takeover adopts the oldest, which may not be the one the model knew.
    const owned = await ownedObjects(w);
    if (owned.length > m.desired.size) for (const a of m.desired.keys()) m.mayChange.add(a);
    // So may an object a `moved:` entry renames onto an address whose old marker another object still
    // carries (an unapplied `tgw state mv` away from it): two claims, the oldest adopted.
    const moves = new Map(validMoves(m).map((move) => [move.from, move.to]));
    const claims = new Map<string, number>();
    for (const o of owned) {
      const to = moves.get(o.address) ?? o.address;
      claims.set(to, (claims.get(to) ?? 0) + 1);
    }
    for (const [a, n] of claims) if (n > 1 && m.desired.has(a)) m.mayChange.add(a);
    const applied = await applyAsDocumented(w, m, w.main, { takeover: true });
    await checkConverged(w, m, w.main, applied);
    await keepCopy(w);
  }
  describe() {
    return "lose the state, apply --takeover";
  }
}

/** An older copy of the state file is put back by hand (the journal moved away). */
export class OlderState extends Base {
  constructor(readonly index: number) {
    super();
  }
  async act(m: Model, w: World) {
    if (w.copies.length === 0) {
      this.done = "no copy yet: nothing";
      return;
    }
    const k = this.index % w.copies.length;
    const copy = w.copies[k] as string;
    // A copy recording both ends of a moved: entry makes the next apply refuse the entry
    // (MoveConflictError, tested in test/cli/commands/rename.test.ts): a user would not put it back.
    const records = (JSON.parse(copy) as { resources: Record<string, unknown> }).resources;
    if (m.moved.some((move) => move.from in records && move.to in records)) {
      this.done = `copy ${k + 1} records both ends of a moved: entry: nothing`;
      return;
    }
    await restoreState(w.main, copy);
    recordsLost(m);
    // The copy's records decide again (after the refusal, --takeover): an object made or renamed
    // since is left alone, and the copy's record of an address may name another object, or none.
    for (const a of m.desired.keys()) m.mayChange.add(a);
    m.kept.clear();
    this.done = `copy ${k + 1} of ${w.copies.length}`;
  }
  describe() {
    return `restore an older state copy #${this.index}`;
  }
}

export class HandEdit extends Base {
  constructor(
    readonly index: number,
    readonly description: string,
  ) {
    super();
  }
  async act(_m: Model, w: World) {
    const owned = await ownedObjects(w);
    if (owned.length === 0) {
      this.done = "no object: nothing";
      return;
    }
    const o = pick(owned, this.index);
    await w.api.patch(`${o.path}/${o.id}`, { description: this.description });
    this.done = `${o.address} ${o.id}`;
  }
  describe() {
    return `edit object #${this.index} by hand: description "${this.description}"`;
  }
}

export class HandDelete extends Base {
  constructor(readonly index: number) {
    super();
  }
  async act(m: Model, w: World) {
    const owned = await ownedObjects(w);
    if (owned.length === 0) {
      this.done = "no object: nothing";
      return;
    }
    const o = pick(owned, this.index);
    await w.api.delete(`${o.path}/${o.id}`);
    for (const [address, id] of m.ids) if (id === o.id) m.mayChange.add(address);
    m.kept.delete(o.id); // a removed: entry not applied yet: its object still carries the marker
    this.done = `${o.address} ${o.id}`;
  }
  describe() {
    return `delete object #${this.index} by hand`;
  }
}

/** Another checkout of the configuration, with its own state file, applies with `--takeover`. */
export class SecondWorkspace extends Base {
  async act(m: Model, w: World) {
    recordsLost(m);
    const applied = await applyAsDocumented(w, m, w.second, { takeover: true });
    await checkConverged(w, m, w.second, applied);
    // Another state writes the stack: it may delete or replace what the main state records (its own
    // records decide there), and the main workspace takes its claims over when refused.
    for (const a of m.desired.keys()) m.mayChange.add(a);
    m.kept.clear();
  }
  describe() {
    return "second workspace: apply --takeover";
  }
}

/** One reconcile of `tgw watch` (src/watch/engine-deps.ts): lock only to apply, restartLineage. */
export class WatchTick extends Base {
  async act(m: Model, w: World) {
    const tick = async () => {
      w.watch.store ??= storeOf(w, w.main);
      const applied = await run(
        w,
        m,
        w.main,
        {
          mode: "apply",
          lockScope: "apply",
          lockHolder: "tgw watch",
          ...(w.watch.version ? { restartVersion: w.watch.version } : {}),
        },
        { store: w.watch.store },
      );
      w.watch.version = { lineage: applied.result.state.lineage, serial: applied.result.state.serial };
      return applied;
    };
    let applied: Awaited<ReturnType<typeof tick>>;
    try {
      applied = await tick();
    } catch (err) {
      // A refused plan (an empty configuration) is reported and waits for the next edit.
      if (err instanceof UnsafePlanError) {
        this.done = `refused (${err.reasons.map((r) => r.rule)})`;
        return;
      }
      // The watch reports the failure and reconciles again: the next tick must succeed.
      this.done = `failed (${err instanceof Error ? err.message.split("\n")[0] : String(err)}), ticked again`;
      applied = await tick();
    }
    await checkConverged(w, m, w.main, applied);
    await keepCopy(w);
  }
  describe() {
    return "watch tick";
  }
}

const NAMES = ["a", "b", "c", "d"];
/** An address of the journeys: `<collection>.<a|b|c|d>`. */
export const address = fc
  .tuple(fc.constantFrom(...COLLECTIONS), fc.constantFrom(...NAMES))
  .map(([c, n]) => `${c}.${n}`);
export const description = fc.constantFrom("one", "two", "three");
const index = fc.nat({ max: 7 });

/** Every command, weighted towards configuration edits and applies. */
export const commandArbitraries: fc.Arbitrary<Command>[] = [
  fc.tuple(address, description).map(([a, d]) => new Add(a, d)),
  fc.tuple(address, description).map(([a, d]) => new Add(a, d)),
  fc.tuple(index, description).map(([i, d]) => new Edit(i, d)),
  index.map((i) => new Remove(i)),
  index.map((i) => new StopManaging(i)),
  fc.tuple(index, fc.constantFrom(...NAMES)).map(([i, n]) => new RenameMoved(i, n)),
  fc.tuple(index, fc.constantFrom(...NAMES)).map(([i, n]) => new RenameStateMv(i, n)),
  index.map((i) => new StateRm(i)),
  fc.tuple(address, description).map(([a, d]) => new Import(a, d)),
  fc.constant(0).map(() => new Apply()),
  fc.constant(0).map(() => new Apply()),
  fc.integer({ min: 1, max: 12 }).map((n) => new InterruptedApply(n)),
  fc.integer({ min: 1, max: 12 }).map((n) => new KilledApply(n)),
  fc.constant(0).map(() => new LoseStateTakeover()),
  index.map((i) => new OlderState(i)),
  fc.tuple(index, fc.constantFrom("by hand", "")).map(([i, d]) => new HandEdit(i, d)),
  index.map((i) => new HandDelete(i)),
  fc.constant(0).map(() => new SecondWorkspace()),
  fc.constant(0).map(() => new WatchTick()),
];

/**
 * Not a random command: a plan in the main workspace, then the token invariant (./world.ts
 * checkTokens) over it, as after every apply.
 */
export class StrictTokens extends Base {
  async act(m: Model, w: World) {
    const planned = await run(w, m, w.main, { mode: "plan" });
    await checkTokens(w, m, w.main, planned, "plan");
  }
  describe() {
    return "every token file holds its key's token, or the key is reported lost";
  }
}
