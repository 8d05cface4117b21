/**
 * Event destinations (docs/api.md > Event destination): a target holds exactly one member (the schema
 * checks it); responses show the other members as null, and in a cloud `auth` the unused member as
 * null too. PATCH replaces `target` whole. Deleting one that a subscription uses is a 409 (the
 * generic reference check, docs/design.md section 5).
 */
import type { KindHooks } from "../hooks.js";

const MEMBERS = ["delivery_stream_target", "stream_target", "log_group_target", "monitoring_target"];

function showTarget(target: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const member of MEMBERS) {
    const value = target?.[member] as Record<string, unknown> | null | undefined;
    if (value && typeof value.auth === "object" && value.auth !== null) {
      const auth = value.auth as Record<string, unknown>;
      out[member] = { ...value, auth: { role: auth.role ?? null, creds: auth.creds ?? null } };
    } else {
      out[member] = value ?? null;
    }
  }
  return out;
}

/** The rules of this file, as hooks of the generic builders. */
export const eventDestinationHooks: KindHooks = {
  present: (obj) => ({ target: showTarget(obj.body.target as Record<string, unknown> | undefined) }),
};
