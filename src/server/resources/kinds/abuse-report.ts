/**
 * Abuse reports (docs/api.md > Abuse report): only accounts with the abuse-report flag may use them
 * (403 otherwise; the flag is set in the fixtures file). Reports are processed at once, by a
 * deterministic rule (docs/api.md leaves processing "not shown"; docs/server.md documents it):
 *
 * - `hostnames` are the distinct host names of the reported URLs (lower-cased, in order);
 * - a host name equal to or under a reserved domain of this account is `BANNED`; any other is
 *   `IGNORE` (it is not served by this account);
 * - the report is `PARTIALLY_PROCESSED` when some host names were banned and others ignored,
 *   `PROCESSED` otherwise (all banned, all ignored, or no host name).
 */
import { problems } from "../../errors.js";
import type { RequestContext } from "../context.js";
import type { KindHooks } from "../hooks.js";

/** The status of one reported host name under the rule above. */
export function hostnameAction(hostname: string, ctx: RequestContext): "BANNED" | "IGNORE" {
  const ours = ctx.store.all("reserved_domain").some((rd) => {
    const domain = String(rd.body.domain ?? "").toLowerCase();
    return domain !== "" && (hostname === domain || hostname.endsWith(`.${domain}`));
  });
  return ours ? "BANNED" : "IGNORE";
}

/** The rules of this file, as hooks of the generic builders. */
export const abuseReportHooks: KindHooks = {
  authorize(ctx) {
    if (!ctx.account.abuseReports) throw problems.abuseReportsNotAllowed();
  },
  create(input, ctx) {
    const names: string[] = [];
    for (const url of (input.urls as string[]) ?? []) {
      let host = "";
      try {
        host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, "");
      } catch {
        // The schema's `uri` format accepts a few forms URL does not parse; they name no host.
      }
      if (host !== "" && !names.includes(host)) names.push(host);
    }
    const hostnames = names.map((hostname) => ({ hostname, status: hostnameAction(hostname, ctx) }));
    const banned = hostnames.filter((h) => h.status === "BANNED").length;
    const status = banned > 0 && banned < hostnames.length ? "PARTIALLY_PROCESSED" : "PROCESSED";
    return { body: { ...input, status, hostnames } };
  },
};
