/**
 * The shared secret of the Git webhook (`POST /hooks/git` on the health port, `TGW_GIT_WEBHOOK_SECRET`).
 * Accepted proofs, as the common Git hosts send them:
 * - `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the body>` (GitHub, Gitea, Forgejo);
 * - `X-Gitlab-Token: <secret>` (GitLab);
 * - `Authorization: Bearer <secret>` (anything else, curl).
 * Comparisons are constant-time; the secret is never logged or echoed.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** True if the request proves it knows `secret` (see the module comment). */
export function verifyWebhook(
  secret: string,
  body: Buffer,
  headers: Record<string, string | string[] | undefined>,
): boolean {
  const signature = header(headers, "x-hub-signature-256");
  if (signature !== undefined) {
    return same(signature, `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`);
  }
  const gitlab = header(headers, "x-gitlab-token");
  if (gitlab !== undefined) return same(gitlab, secret);
  const auth = header(headers, "authorization");
  if (auth?.startsWith("Bearer ")) return same(auth.slice(7), secret);
  return false;
}
