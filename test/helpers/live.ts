/**
 * What the API holds of one stack: the live objects carrying `stack`'s ownership marker, by the
 * address the marker names. Tests count them to prove that nothing was created twice or left out.
 */
import type { ApiClient } from "../../src/client/index.js";
import { decodeMetadata } from "../../src/model/index.js";

/** A list endpoint of the API and the field of its answer that holds the items. */
export interface Listed {
  path: string;
  items: string;
}

export const API_KEYS: Listed = { path: "/api_keys", items: "keys" };
export const TUNNEL_GROUP_BACKENDS: Listed = { path: "/backends/tunnel_group", items: "backends" };

export interface LiveOptions {
  /** The lists to read (default: tunnel group backends). */
  lists?: Listed[];
  /**
   * How many times to read a list whose read fails (default 1): a server that injects faults is read
   * until one read is clean, without the faults deciding the count.
   */
  attempts?: number;
}

async function listOf(api: ApiClient, { path, items }: Listed, attempts: number) {
  for (let i = 1; ; i++) {
    try {
      return await api.listAll<{ id: string; metadata: string }>(path, items);
    } catch (err) {
      if (i >= attempts) throw err;
    }
  }
}

/** Ids of the live objects carrying `stack`'s marker, by the marker's address (two ids: a duplicate). */
export async function liveIds(
  api: ApiClient,
  stack: string,
  { lists = [TUNNEL_GROUP_BACKENDS], attempts = 1 }: LiveOptions = {},
): Promise<Map<string, string[]>> {
  const byAddress = new Map<string, string[]>();
  for (const list of lists) {
    for (const item of await listOf(api, list, attempts)) {
      const m = decodeMetadata(item.metadata).marker;
      if (m?.stack === stack) byAddress.set(m.address, [...(byAddress.get(m.address) ?? []), item.id]);
    }
  }
  return byAddress;
}

/** How many live objects carry `stack`'s marker, by the marker's address. */
export async function liveAddresses(
  api: ApiClient,
  stack: string,
  options?: LiveOptions,
): Promise<Map<string, number>> {
  const ids = await liveIds(api, stack, options);
  return new Map([...ids].map(([address, of]) => [address, of.length]));
}
