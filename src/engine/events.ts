/**
 * What the engine reports while it works, as plain data through an `onEvent` callback: the engine
 * never writes to the console. Events carry addresses, ids, paths, counts and durations, never field
 * values, so no secret can leave through them.
 */
import type { Action, Plan } from "./action.js";

/** One API call of an apply (a replace has two: its create and its delete). */
export type StepOp = "create" | "update" | "put" | "delete" | "forget";

/** Everything the engine reports. */
export type EngineEvent =
  | { type: "refresh_started"; kinds: number; modules: number }
  | { type: "refreshed"; objects: number; modules: number; durationMs: number }
  | { type: "planned"; plan: Plan }
  /** The state lock is held by another run: waiting up to the lock timeout. */
  | { type: "lock_waiting"; location: string }
  | { type: "step_started"; address: string; action: Action; op: StepOp }
  | { type: "step_done"; address: string; action: Action; op: StepOp; id?: string; durationMs: number }
  | { type: "step_failed"; address: string; action: Action; op: StepOp; error: Error; durationMs: number }
  /** Every call of a change succeeded (one event per change; a replace has two calls). */
  | { type: "change_applied"; address: string; action: Action; id?: string; durationMs: number }
  /** A create whose response was lost was found again through its ownership marker. */
  | { type: "create_recovered"; address: string; id: string }
  /**
   * An API key created by this apply whose answer, and with it the only copy of its token, was lost:
   * the key `id` (never delivered, so unused) was deleted and is created again for a new token.
   */
  | { type: "token_reissued"; address: string; id: string }
  /**
   * A create failed and no object carries its marker: it was not created, and is sent again now
   * (`attempt` 2 is the first retry).
   */
  | { type: "create_retrying"; address: string; attempt: number }
  | { type: "token_written"; address: string; path: string }
  /** An API key's token was handed to the token command (./token-command.ts). */
  | { type: "token_delivered"; address: string }
  | { type: "state_written"; serial: number }
  /**
   * An API key's token file (and its sidecar) was found at `from`, not at its token file `path` (a
   * `moved:` rename, a state put back after `tgw state mv`, a key managed again), and moved there.
   */
  | { type: "token_moved"; address: string; from: string; path: string }
  /** An API key token that was left in a temporary file by a killed apply was moved into its token file. */
  | { type: "token_saved"; address: string }
  /**
   * An API key's token file (and its sidecar) was moved to `path` (absolute, under `removed/`):
   * `removed`, the key a `removed:` entry no longer manages lives on; `deleted`, the key was deleted
   * (its token is dead); `occupied`, the file held the token of `holder` (another key, which may still
   * work, maybe of another API) when a new key's token was to be written there; `lock_lost`, the key
   * was answered after this run's state lock was taken over (its token written there, not over the
   * new holder's token file).
   */
  | {
      type: "token_set_aside";
      address: string;
      path: string;
      reason: "removed" | "deleted" | "occupied" | "lock_lost";
      holder?: string;
    }
  /**
   * An API key exists but its token is lost (its create response was lost, or its token file is
   * missing): the API never shows it again; `tgw apply --replace ADDRESS` issues a new key.
   */
  | { type: "token_lost"; address: string; id: string; file: string }
  /** Something the user should know that does not stop the run (no field values). */
  | { type: "warning"; message: string };

/** Receives engine events; exceptions it throws are ignored. */
export type EventHandler = (event: EngineEvent) => void;

/** Calls `handler` without letting it disturb the engine. */
export function emitter(handler: EventHandler | undefined): EventHandler {
  return (event) => {
    try {
      handler?.(event);
    } catch {
      // Observing must not change a run.
    }
  };
}
