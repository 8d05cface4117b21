/**
 * undici's `Agent` with its request API, without the rest of undici. The package's index also loads
 * fetch, WebSocket, the HTTP cache and the mocks, and through them Node's own copy of undici (they read
 * a global such as `File` at load): a noticeable part of every run's start-up for nothing the client
 * uses (bench/README.md). These are the modules the index combines into its `Agent` (undici 7 index.js:
 * `Object.assign(Dispatcher.prototype, api)`); test/client/agent.test.ts checks that they still are, and
 * package.json pins undici exactly (its "//undici" note).
 */
import type { Agent as UndiciAgent } from "undici";
import api from "undici/lib/api/index.js";
import AgentClass from "undici/lib/dispatcher/agent.js";
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";

Object.assign(Dispatcher.prototype, api);

/** undici's Agent: a keep-alive connection pool per origin, with `request()` (undici's docs). */
export const Agent: typeof UndiciAgent = AgentClass;
export type Agent = UndiciAgent;
