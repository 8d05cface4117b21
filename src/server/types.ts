/**
 * What the server's plugins add to Fastify's instance, request and route config (declaration merging).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Principal } from "./resources/context.js";
import type { ResourceStore } from "./store/resource-store.js";
import type { Validators } from "./validation.js";

/**
 * A check of every request, run by the `onRequest` hook after the request is recorded. It throws an
 * ApiProblem (or any error) to answer with it; it returns true when it answered the request itself
 * (`reply.send`, or `reply.hijack` and a closed socket), and then no later check runs.
 */
export type RequestCheck = (request: FastifyRequest, reply: FastifyReply) => unknown;

/** A step of the `onSend` hook, run before every answer is written (headers can still be set). */
export type SendStep = (request: FastifyRequest, reply: FastifyReply) => void;

/** One API request as the server saw it: what tests assert on (`startTestServer().requests`, `GET /debug/requests`). */
export interface RecordedRequest {
  method: string;
  /** URL path without the query string. */
  path: string;
  /** HTTP status answered; 0 while in flight, and for a request dropped by fault injection. */
  status: number;
}

/** The admin token of this run (see plugins/auth.ts). */
export interface Bootstrap {
  token: string;
  /** True when the server made the token and stored it as a new API key (print it once). */
  generated: boolean;
}

declare module "fastify" {
  interface FastifyInstance {
    store: ResourceStore;
    validators: Validators;
    bootstrap: Bootstrap;
    /** Requests received since start or the last reset, oldest first (bounded, see plugins/request-log.ts). */
    recordedRequests: RecordedRequest[];
    /** What the one `onRequest` hook checks, in order (see plugins/request-log.ts). */
    requestChecks: RequestCheck[];
    /** What the one `onSend` hook does besides recording the status (see plugins/request-log.ts). */
    sendSteps: SendStep[];
    /** The base of every `uri` and `next_page_uri` (`--public-url`, else the listen address, set by server.ts). */
    publicUrl: { base: string };
    /** Whether responses are checked against `$defs.response` (tests). */
    checkResponses: boolean;
  }
  interface FastifyRequest {
    principal: Principal;
    recorded: RecordedRequest | undefined;
    /** Whether the request's route is a debug route (`config.debug`), read once when it arrives. */
    debugRoute: boolean;
  }
  interface FastifyContextConfig {
    /** Debug routes: admin only, never subject to faults, rate limit or the Service-Version check. */
    debug?: boolean;
  }
}
