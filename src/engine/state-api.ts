/**
 * Which API a state belongs to (docs/state.md > Which API a state belongs to). A state records the API
 * its objects live in; a run against another API would see none of them and plan to create them all
 * again (and overwrite token files), so it is refused unless the user says it is intended.
 *
 * - No recorded API (no state yet, or a state written before tgw recorded it): accepted; the next
 *   write records the API of the run.
 * - Another URL: refused with `ApiMismatchError` naming both, unless `allowApiChange`.
 * - Same URL, another key fingerprint: a warning only. Keys are rotated and each member of a team may
 *   use their own, so a new key is normal; the API has no call that names the account to tell a key
 *   of another account apart.
 */
import type { StateApi, StateSnapshot } from "../state/store.js";
import { ApiMismatchError } from "./errors.js";

/** `the embedded reference server` or `the API at URL (key fingerprint K)`. */
export function describeApi(api: StateApi): string {
  if (api.url === "embedded") return "the embedded reference server";
  return `the API at ${api.url}${api.key ? ` (key fingerprint ${api.key})` : ""}`;
}

/** True when `a` and `b` are the same API reached with the same key fingerprint. */
export function sameApi(a: StateApi | undefined, b: StateApi | undefined): boolean {
  return a?.url === b?.url && a?.key === b?.key;
}

/**
 * Checks that `state` may be used against `api`.
 * @returns warnings to show (another key of the same API).
 * @throws ApiMismatchError when the state records another API and `allowApiChange` is not set.
 */
export function checkStateApi(
  state: StateSnapshot,
  api: StateApi,
  opts: { allowApiChange?: boolean; location: string },
): string[] {
  const recorded = state.api;
  if (recorded === undefined || sameApi(recorded, api)) return [];
  if (recorded.url !== api.url) {
    if (opts.allowApiChange) {
      return [
        `the state ${opts.location} belongs to ${describeApi(recorded)}; this run uses ${describeApi(api)} (--allow-api-change), and the next apply records it`,
      ];
    }
    throw new ApiMismatchError(opts.location, recorded, api, describeApi);
  }
  if (recorded.key === undefined || api.key === undefined) return [];
  return [
    `the state ${opts.location} was last written with another key of ${api.url} (fingerprint ${recorded.key}; this run: ${api.key})`,
  ];
}
