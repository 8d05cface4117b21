/**
 * Endpoints (read-only, docs/api.md > Endpoint): the active endpoints, for `tgw endpoints`.
 */
import type { Api } from "../client/index.js";
import { getKind } from "../model/index.js";
import type { Endpoint } from "../model/types.gen.js";

/** Every active endpoint, newest first as the API lists them (one paginated list). */
export async function listEndpoints(api: Api, signal?: AbortSignal): Promise<Endpoint[]> {
  const kind = getKind("endpoint");
  return api.listAll<Endpoint>(kind.path, kind.listKey as string, {
    limit: 100,
    ...(signal ? { signal } : {}),
  });
}
