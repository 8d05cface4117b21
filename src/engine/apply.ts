/**
 * Apply: executes a plan against the API, recording every result in the state as soon as it
 * happens (./journal.ts). The plan is followed exactly; nothing is re-planned here.
 *
 * - Calls run with bounded concurrency (`parallelism`, default 4, p-limit) in dependency order
 *   (./steps.ts); the API client's rate limiter paces them further.
 * - After the first failure (or when `signal` is aborted) nothing new starts; calls in flight finish
 *   and are recorded; the outcome of every change is returned in an `ApplyFailedError`.
 * - Before any call, the state is brought in line with what the plan found without calls: records of
 *   objects recovered from their markers are written, records of vanished objects dropped.
 * - Creates carry the ownership marker in the create call itself. A create whose outcome is unknown
 *   (5xx, connection lost) is never sent again blindly: the kind is listed and an object with the
 *   marker is adopted. A replace that creates first records the old object as deposed before the
 *   POST, so that a crash in between leaves nothing untracked.
 * - API key tokens are written to their token file (mode 0600) before the state records the key.
 */
import pLimit from "p-limit";
import { type Api, ApiError, NetworkError } from "../client/index.js";
import type { DesiredResource, DesiredState } from "../config/desired.js";
import { getKind, type KindDescriptor, type OwnershipMarker } from "../model/index.js";
import { type Change, isChange, type Plan } from "./action.js";
import { ApplyFailedError, type ChangeOutcome, CreateFailedError } from "./errors.js";
import { type EventHandler, emitter, type StepOp } from "./events.js";
import type { StateJournal } from "./journal.js";
import { liveMetadataOf } from "./live.js";
import { DEPOSED_SUFFIX } from "./ownership.js";
import { buildRecord, deposedRecord, sameRecord } from "./records.js";
import { resolveRefs } from "./refs.js";
import { createBody, patchBody, putBody } from "./requests.js";
import { buildSteps, type Step } from "./steps.js";
import { tokenFilePath, writeTokenFile } from "./tokens.js";

/** Options of `applyPlan`. */
export interface ApplyOptions {
  /** Calls in flight at once; default 4. */
  parallelism?: number;
  /** Once aborted, nothing new starts; calls in flight finish. */
  signal?: AbortSignal;
  onEvent?: EventHandler;
  /** Clock for `appliedAt` (tests). */
  now?: () => Date;
}

/** A token an API key create returned (kept in memory only, for `apply --json --show-tokens`). */
export interface IssuedToken {
  address: string;
  id: string;
  /** Absolute path of the token file it was written to. */
  file: string;
  token: string;
}

/** What an apply did. */
export interface ApplyResult {
  /** One per change of the plan that calls the API, in plan order. */
  outcomes: ChangeOutcome[];
  tokens: IssuedToken[];
}

/**
 * Applies `plan` (made from `desired`).
 * @throws ApplyFailedError when a call failed or the run was aborted; the state holds everything done.
 * @throws the state store's errors if the state cannot be written (nothing further is started).
 */
export async function applyPlan(
  plan: Plan,
  desired: DesiredState,
  api: Api,
  journal: StateJournal,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const emit = emitter(options.onEvent);
  const now = options.now ?? (() => new Date());
  const resources = new Map(desired.resources.map((r) => [r.address, r]));
  const ids = new Map<string, string>();
  for (const c of plan.changes)
    if (c.id && c.action !== "create" && !getKind(c.kind).module) ids.set(c.address, c.id);
  const idOf = (address: string) => ids.get(address);
  const markerOf = (kind: KindDescriptor, address: string): OwnershipMarker | undefined =>
    desired.ownership === "marker" && !kind.module ? { stack: desired.stack, address } : undefined;
  const tokens: IssuedToken[] = [];

  // State-only updates first: forget vanished objects, record adopted ones and stale fingerprints.
  const records = journal.records;
  const adopted = plan.changes.flatMap((c) => {
    const resource = resources.get(c.address);
    if (c.action !== "no-op" || !c.id || !resource) return [];
    const record = buildRecord(getKind(c.kind), resource, c.id, resolveRefs(resource.fields, idOf), now());
    return sameRecord(records[c.address], record) ? [] : [record];
  });
  const forget = plan.forget.filter((a) => a in records);
  if (adopted.length > 0 || forget.length > 0) {
    await journal.update((recs) => {
      for (const address of forget) delete recs[address];
      for (const record of adopted) recs[record.address] = record;
    });
  }

  // With markers, a result not yet written is found again through its marker after a crash, so calls
  // do not wait for the state write (writes are coalesced and keep up in the background); without
  // markers the state is the only record, and each call waits until its result is written.
  const waitForWrites = desired.ownership !== "marker";
  const record = (written: Promise<void>): Promise<void> => {
    if (waitForWrites) return written;
    written.catch(() => {}); // reported by `journal.flush()` and `journal.failed`
    return Promise.resolve();
  };

  const need = (address: string): DesiredResource => {
    const r = resources.get(address);
    if (!r) throw new Error(`${address} is not in the desired state the plan was made from`);
    return r;
  };

  async function create(c: Change, kind: KindDescriptor): Promise<string> {
    const resource = need(c.address);
    const fields = resolveRefs(resource.fields, idOf);
    const marker = markerOf(kind, c.address);
    const oldId = c.action === "replace" ? c.id : undefined;
    if (oldId && c.replaceOrder === "create-first")
      await journal.set(deposedRecord(c.address, kind.kind, oldId, now()));
    let created: Record<string, unknown>;
    try {
      created = await api.post<Record<string, unknown>>(
        kind.path,
        createBody(kind, c.address, fields, marker),
      );
    } catch (err) {
      if (!marker || !mayHaveBeenCreated(err)) throw err;
      const found = await findByMarker(api, kind, marker, oldId);
      if (found === false) throw err;
      if (found === undefined) throw new CreateFailedError(err);
      emit({ type: "create_recovered", address: c.address, id: found });
      await record(journal.set(buildRecord(kind, resource, found, fields, now())));
      ids.set(c.address, found);
      return found;
    }
    const id = String(created.id);
    let tokenError: unknown;
    if (c.tokenFile && typeof created.token === "string") {
      const file = tokenFilePath(c.tokenFile, desired.configDir);
      try {
        await writeTokenFile(file, created.token);
        tokens.push({ address: c.address, id, file, token: created.token });
        emit({ type: "token_written", address: c.address, path: file });
      } catch (err) {
        tokenError = err;
      }
    }
    await record(journal.set(buildRecord(kind, resource, id, fields, now())));
    ids.set(c.address, id);
    if (tokenError !== undefined) {
      throw new Error(
        `created ${id}, but its token could not be written to ${c.tokenFile}: ${(tokenError as Error).message}; the token is lost (delete the key and apply again for a new one)`,
      );
    }
    return id;
  }

  async function runStep(step: Step): Promise<string | undefined> {
    const c = step.change;
    const kind = getKind(c.kind);
    switch (step.op) {
      case "create":
        return create(c, kind);
      case "update": {
        const resource = need(c.address);
        const fields = resolveRefs(resource.fields, idOf);
        const id = c.id as string;
        await api.patch(
          objectPath(kind, id),
          patchBody(kind, c.address, fields, c.changedFields, markerOf(kind, c.address)),
        );
        await record(journal.set(buildRecord(kind, resource, id, fields, now())));
        return id;
      }
      case "put": {
        const resource = need(c.address);
        const fields = resolveRefs(resource.fields, idOf);
        const path = c.id as string;
        await api.put(path, putBody(kind, c.address, fields));
        await record(journal.set(buildRecord(kind, resource, path, fields, now())));
        return path;
      }
      case "delete": {
        const id = c.id as string;
        try {
          await api.delete(kind.module ? id : objectPath(kind, id));
        } catch (err) {
          if (!(err instanceof ApiError && err.status === 404)) throw err;
        }
        const address =
          c.action === "replace" && c.replaceOrder === "create-first"
            ? c.address + DEPOSED_SUFFIX
            : c.address;
        await record(
          journal.update((records) => {
            if (records[address]?.id === id) delete records[address];
          }),
        );
        return id;
      }
    }
  }

  const steps = buildSteps(plan.changes);
  const limit = pLimit(Math.max(1, options.parallelism ?? 4));
  const status = new Map<string, "done" | "failed" | "skipped">();
  const errors = new Map<string, Error>();
  const resultIds = new Map<string, string>();
  let stopped = false;
  const started = new Map<string, Promise<void>>();
  const byKey = new Map(steps.map((s) => [s.key, s]));
  const stepsOf = new Map<Change, string[]>();
  for (const st of steps) stepsOf.set(st.change, [...(stepsOf.get(st.change) ?? []), st.key]);
  const changeStart = new Map<Change, number>();

  const run = (step: Step): Promise<void> => {
    let p = started.get(step.key);
    if (p) return p;
    p = (async () => {
      await Promise.all(step.deps.map((d) => run(byKey.get(d) as Step)));
      if (step.deps.some((d) => status.get(d) !== "done")) {
        status.set(step.key, "skipped");
        return;
      }
      await limit(async () => {
        if (stopped || options.signal?.aborted || journal.failed) {
          status.set(step.key, "skipped");
          return;
        }
        const t0 = performance.now();
        if (!changeStart.has(step.change)) changeStart.set(step.change, t0);
        const base = { address: step.change.address, action: step.change.action, op: step.op as StepOp };
        emit({ type: "step_started", ...base });
        try {
          const id = await runStep(step);
          if (id) resultIds.set(step.key, id);
          status.set(step.key, "done");
          emit({ type: "step_done", ...base, ...(id ? { id } : {}), durationMs: performance.now() - t0 });
          const siblings = stepsOf.get(step.change) ?? [];
          if (siblings.every((k) => status.get(k) === "done")) {
            const created = siblings.find((k) => k.startsWith("create:"));
            const changeId = (created && resultIds.get(created)) || step.change.id;
            emit({
              type: "change_applied",
              address: step.change.address,
              action: step.change.action,
              ...(changeId ? { id: changeId } : {}),
              durationMs: performance.now() - (changeStart.get(step.change) ?? t0),
            });
          }
        } catch (err) {
          stopped = true;
          const error = err instanceof Error ? err : new Error(String(err));
          status.set(step.key, "failed");
          errors.set(step.key, error);
          emit({ type: "step_failed", ...base, error, durationMs: performance.now() - t0 });
        }
      });
    })();
    started.set(step.key, p);
    return p;
  };
  await Promise.all(steps.map(run));
  // Every result is written before apply returns; a state write failure is an error of the apply.
  await journal.flush();

  const outcomes: ChangeOutcome[] = [];
  for (const c of plan.changes) {
    if (!isChange(c.action)) continue;
    const own = steps.filter((s) => s.change === c);
    const states = own.map((s) => status.get(s.key));
    const failedStep = own.find((s) => status.get(s.key) === "failed");
    const createStep = own.find((s) => s.op === "create");
    const id = createStep ? resultIds.get(createStep.key) : c.id;
    const outcome: ChangeOutcome = {
      change: c,
      status: states.every((s) => s === "done")
        ? "done"
        : failedStep
          ? "failed"
          : states.some((s) => s === "done")
            ? "partial"
            : "not-started",
      ...(id ? { id } : {}),
      ...(failedStep ? { error: errors.get(failedStep.key) as Error } : {}),
    };
    outcomes.push(outcome);
  }
  if (outcomes.some((o) => o.status !== "done")) {
    const interrupted = !outcomes.some((o) => o.status === "failed") && options.signal?.aborted === true;
    throw new ApplyFailedError(outcomes, interrupted, interrupted ? options.signal?.reason : undefined);
  }
  return { outcomes, tokens };
}

/** Path of one object of a collection kind. */
export function objectPath(kind: KindDescriptor, id: string): string {
  return `${kind.path}/${encodeURIComponent(id)}`;
}

function mayHaveBeenCreated(err: unknown): boolean {
  return (err instanceof ApiError || err instanceof NetworkError) && err.mayHaveBeenCreated;
}

/**
 * Lists `kind` for an object carrying `marker` (other than `exclude`): its id, undefined when there is
 * none, false when the list itself failed (the outcome stays unknown).
 */
async function findByMarker(
  api: Api,
  kind: KindDescriptor,
  marker: OwnershipMarker,
  exclude: string | undefined,
): Promise<string | undefined | false> {
  try {
    for await (const item of api.list<Record<string, unknown>>(kind.path, kind.listKey as string, {
      limit: 100,
    })) {
      if (item.id === exclude) continue;
      const m = liveMetadataOf(kind, item)?.marker;
      if (m?.stack === marker.stack && m.address === marker.address) return String(item.id);
    }
  } catch {
    // The API is still failing: the next plan finds the object through its marker.
    return false;
  }
  return undefined;
}
