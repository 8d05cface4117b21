/**
 * The engine: refresh -> ownership -> normalize -> diff -> plan -> safety -> apply (docs/design.md
 * sections 2 to 4). It knows neither YAML nor HTTP: it takes a `DesiredState`, talks to the API through
 * the client's `Api` interface and records results in a `StateStore`; progress goes to an `onEvent`
 * callback, never to the console.
 *
 * Entry points:
 * - `reconcile({ desired, api, store, options, signal, onEvent })`: refresh, plan, check safety and
 *   (mode `apply`) apply; used by `tgw plan/apply/destroy` and by `tgw watch`.
 * - `importResource(...)`: `tgw import ADDRESS ID`.
 * - `listEndpoints(api)`: `tgw endpoints`.
 * The pure steps (`makePlan`, `checkPlanSafety`, `checkSavedPlan`...) are exported for tests and tools.
 */
export {
  ACTIONS,
  type Action,
  type Change,
  destroys,
  hasChanges,
  isChange,
  type Plan,
  type PlanBasis,
  type PlanSummary,
  summarize,
  type Values,
} from "./action.js";
export { type ImportInput, type ImportResult, importResource } from "./adopt.js";
export {
  type ApplyOptions,
  type ApplyResult,
  applyPlan,
  type CreateRetry,
  DEFAULT_CREATE_RETRY,
  type IssuedToken,
} from "./apply.js";
export { listEndpoints } from "./endpoints.js";
export {
  ApiMismatchError,
  ApplyFailedError,
  type ChangeOutcome,
  CreateFailedError,
  describeError,
  ImportError,
  NotConfirmedError,
  SharedRecordError,
  StalePlanError,
  UnknownParentError,
  UnsafePlanError,
  type UnsafeReason,
} from "./errors.js";
export type { EngineEvent, EventHandler, StepOp } from "./events.js";
export { StateJournal } from "./journal.js";
export { emptyLiveState, type LiveObject, type LiveState, liveFingerprint, liveObject } from "./live.js";
export { maskValues, SENSITIVE } from "./mask.js";
export { desiredValues, liveValues } from "./normalize.js";
export { desiredFingerprint, makePlan, type PlanInput } from "./plan.js";
export {
  needsApply,
  type ReconcileInput,
  type ReconcileOptions,
  type ReconcileResult,
  reconcile,
} from "./reconcile.js";
export { type RefreshOptions, type RefreshScope, refresh, refreshScope } from "./refresh.js";
export {
  type RefreshOnlyInput,
  type RefreshOnlyPlan,
  refreshOnly,
  refreshOnlyPlan,
  refreshOnlyWrites,
} from "./refresh-only.js";
export { checkPlanSafety, type SafetyOptions } from "./safety.js";
export { checkSavedPlan, planDigest, type SavedPlanCheck } from "./saved-plan.js";
export { checkStateApi, describeApi, sameApi } from "./state-api.js";
export { matchesAddress, selectTargets, type TargetOptions } from "./targets.js";
export { describeLostToken, type LostToken } from "./tokens.js";
