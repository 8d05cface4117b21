/**
 * SSH credential ACL rules of the form `bind:<host>:<port>` (docs/api.md > SSH credential) must name a
 * TCP port, 1 to 65535. The forms themselves are checked by the schema's ACL pattern.
 */
import { pointerChild, reportAt } from "../entry.js";
import type { Rule } from "./rule.js";

const HOST_PORT = /^bind:[^=*:]+:([0-9]+)$/;

export const aclPorts: Rule = {
  name: "acl-ports",
  check({ entries, problems }) {
    for (const entry of entries) {
      const acl = entry.fields.acl;
      // The value first: most entries have no acl, and the kind's fields need not be searched.
      if (!Array.isArray(acl) || !entry.kind.fields.some((f) => f.name === "acl")) continue;
      acl.forEach((rule, i) => {
        if (typeof rule !== "string") return;
        const port = HOST_PORT.exec(rule)?.[1];
        if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) {
          reportAt(problems, entry, pointerChild(pointerChild("", "acl"), i), "the port must be 1 to 65535");
        }
      });
    }
  },
};
