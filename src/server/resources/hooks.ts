/**
 * The behaviour of a kind beyond what its schema says. The generic route builders
 * (../routes/collection.ts, ../routes/module.ts) do everything the model describes: validation,
 * defaults, owner rule, reference checks, storage, pagination, rendering, events. A kind adds only its
 * special rules through these hooks (TLS parsing, SSH signing, abuse processing...).
 */
import type { StoredObject } from "../store/resource-store.js";
import type { RequestContext } from "./context.js";

/** A stored body: the request fields as kept, plus server-side data responses never show. */
export type Body = Record<string, unknown>;

/** The operations a kind may restrict. */
export type Access = "read" | "write";

/** What a create hook decides. */
export interface CreateResult {
  /** The body to store. Only the fields of `$defs.response` ever reach a response. */
  body: Body;
  /** Extra writes done in the same transaction as the insert (e.g. the token hash of an API key). */
  write?: (obj: StoredObject) => void;
  /** Fields shown in the create response only (the API key `token`; docs/api.md > API key). */
  response?: Record<string, unknown>;
}

/** Per-kind rules. Every hook may throw an ApiProblem; nothing is written when one does. */
export interface KindHooks {
  /** Throws 403 when the caller may not do this (users and bots: admins only; abuse reports: flag). */
  authorize?(ctx: RequestContext, access: Access): void;
  /**
   * Checks and completes a validated create (or module put) body. `id` is the id the object will
   * have (modules: their parent's id). `current` is the module being replaced, if any.
   */
  create?(
    input: Body,
    ctx: RequestContext,
    id: string,
    current?: StoredObject,
  ): CreateResult | Promise<CreateResult>;
  /** Merges a validated PATCH body into the stored body; default: top-level fields replace. */
  update?(current: StoredObject, patch: Body, ctx: RequestContext): Body;
  /** Last check before a delete (409 for an object that must stay). */
  beforeDelete?(obj: StoredObject, ctx: RequestContext): void;
  /** Response fields computed at read time, overriding stored ones (derived lists, null members). */
  present?(obj: StoredObject, ctx: RequestContext): Record<string, unknown>;
  /**
   * True when `present` reads nothing but the object and `ctx.baseUrl` (no other object, no clock,
   * no caller): the response of a cached object is then made once and kept (../render.ts).
   */
  presentOfObjectAlone?: boolean;
}
