/**
 * Users and bots (referenced-only, docs/design.md section 5): anyone may read them; only an admin may
 * create or delete them. A user is an admin only when the fixtures file says so (`admin: true`, kept
 * server-side). The user that owns the bootstrap admin key cannot be deleted (409).
 */
import { ADMIN_USER_META } from "../../account.js";
import { problems } from "../../errors.js";
import type { KindHooks } from "../hooks.js";

const adminWrites: KindHooks["authorize"] = (ctx, access) => {
  if (access === "write" && !ctx.principal.admin) throw problems.adminOnly("create or delete users and bots");
};

/** Users: admins write; the bootstrap key's owner stays. */
export const userHooks: KindHooks = {
  authorize: adminWrites,
  beforeDelete(obj, ctx) {
    if (ctx.store.getMeta(ADMIN_USER_META) === obj.id) {
      throw problems.inUse("user", obj.id, ["the bootstrap admin key"]);
    }
  },
};

/** Bots: admins write. */
export const botHooks: KindHooks = { authorize: adminWrites };
