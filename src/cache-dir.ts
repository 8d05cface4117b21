/**
 * The user's cache directory of tgw: `$TGW_CACHE_DIR`, else `$XDG_CACHE_HOME/tgw`, else `~/.cache/tgw`.
 * What lives there can be deleted at any time: rate-limit budgets (src/client/budget.ts), the page
 * cursors of lists (src/engine/pages.ts), the reads of a workspace's last plan (src/client/prefetch.ts)
 * and V8 code caches of the CLI bundle (src/launch/launch.ts).
 */
import { homedir } from "node:os";
import { join } from "node:path";

/** The cache directory for `env` (see above); not created here. */
export function userCacheDir(env: Record<string, string | undefined> = process.env): string {
  const cache = env.TGW_CACHE_DIR || (env.XDG_CACHE_HOME ? join(env.XDG_CACHE_HOME, "tgw") : undefined);
  return cache ?? join(homedir(), ".cache", "tgw");
}
