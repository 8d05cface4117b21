/**
 * SSH credentials (docs/api.md > SSH credential). The schema checks the forms of ACL rules; a port must
 * also be in 1..65535. The public key is stored trimmed (the schema normalises it so).
 */
import { problems } from "../../errors.js";
import type { Body, KindHooks } from "../hooks.js";

function checkAcl(acl: unknown): void {
  if (!Array.isArray(acl)) return;
  acl.forEach((rule, i) => {
    const port = /^bind:[^:=*]+:(\d+)$/.exec(String(rule))?.[1];
    if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) {
      throw problems.invalidFields([
        `acl[${i}]: port ${port} is not in 1..65535 (got ${JSON.stringify(rule)})`,
      ]);
    }
  });
}

const trimKey = (body: Body): Body =>
  typeof body.public_key === "string" ? { ...body, public_key: body.public_key.trim() } : body;

/** The rules of this file, as hooks of the generic builders. */
export const sshCredentialHooks: KindHooks = {
  create(input) {
    checkAcl(input.acl);
    return { body: trimKey(input) };
  },
  update(current, patch) {
    checkAcl(patch.acl);
    return { ...current.body, ...patch };
  },
};
