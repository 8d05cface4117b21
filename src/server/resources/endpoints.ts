/**
 * Endpoints (docs/api.md > Endpoint; docs/design.md section 5): read-only, derived at read time from the
 * objects that exist:
 * - each tunnel with a `public_url` is one `ephemeral` endpoint (its proto, its metadata, `tunnel` Ref);
 * - each hostport of an HTTPS, TLS or TCP edge is one `edge` endpoint (proto https, tls or tcp, the
 *   edge's metadata, `edge` Ref).
 * `domain` is the reserved domain whose name is the endpoint's host, `tcp_addr` the reserved address
 * equal to its hostport. Ids are stable: `ep_` + a hash of the source id and hostport. Newest source
 * first, like every list; `region` is `local`.
 */
import { createHash } from "node:crypto";
import type { StoredObject } from "../store/resource-store.js";
import { type RequestContext, refTo } from "./context.js";

/** An endpoint as the API returns it. */
export type Endpoint = Record<string, unknown> & { id: string };

const EDGE_PROTOS: Record<string, string> = { https_edge: "https", tls_edge: "tls", tcp_edge: "tcp" };
const DEFAULT_PORTS: Record<string, string> = { http: "80", https: "443", tls: "443" };
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function endpointId(sourceId: string, hostport: string): string {
  const digest = createHash("sha256").update(`${sourceId}|${hostport}`).digest();
  let out = "ep_";
  for (let i = 0; i < 27; i++) out += ALPHABET[(digest[i] ?? 0) % ALPHABET.length];
  return out;
}

/** `host:port` of a URL, the port defaulting by scheme; undefined when it has no host or port. */
function hostportOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const proto = parsed.protocol.replace(/:$/, "");
  const port = parsed.port || DEFAULT_PORTS[proto];
  return parsed.hostname === "" || port === undefined ? undefined : `${parsed.hostname}:${port}`;
}

/** Every endpoint, newest source first. */
export function deriveEndpoints(ctx: RequestContext): Endpoint[] {
  const domains = ctx.store.all("reserved_domain");
  const addrs = ctx.store.all("reserved_addr");
  const sources: StoredObject[] = ["tunnel", "https_edge", "tls_edge", "tcp_edge"]
    .flatMap((k) => ctx.store.all(k))
    .sort((a, b) => b.seq - a.seq);
  const out: Endpoint[] = [];
  for (const src of sources) {
    const pairs: { hostport: string; proto: string; publicUrl: string }[] = [];
    if (src.kind === "tunnel") {
      const publicUrl = String(src.body.public_url ?? "");
      const hostport = hostportOf(publicUrl);
      if (hostport !== undefined)
        pairs.push({ hostport, proto: String(src.body.proto ?? "https"), publicUrl });
    } else {
      const proto = EDGE_PROTOS[src.kind] ?? "https";
      for (const hostport of (src.body.hostports as string[] | undefined) ?? []) {
        const publicUrl =
          proto === "https" ? `https://${hostport.replace(/:443$/, "")}` : `${proto}://${hostport}`;
        pairs.push({ hostport, proto, publicUrl });
      }
    }
    for (const { hostport, proto, publicUrl } of pairs) {
      const host = hostport.replace(/:\d+$/, "").toLowerCase();
      const domain = domains.find((d) => String(d.body.domain ?? "").toLowerCase() === host);
      const addr = addrs.find((a) => a.body.addr === hostport);
      const id = endpointId(src.id, hostport);
      out.push({
        id,
        uri: `${ctx.baseUrl}/endpoints/${id}`,
        region: "local",
        created_at: src.createdAt,
        updated_at: src.updatedAt,
        public_url: publicUrl,
        proto,
        hostport,
        type: src.kind === "tunnel" ? "ephemeral" : "edge",
        metadata: String(src.body.metadata ?? ""),
        ...(domain ? { domain: refTo(ctx, domain.id) } : {}),
        ...(addr ? { tcp_addr: refTo(ctx, addr.id) } : {}),
        ...(src.kind === "tunnel" ? { tunnel: refTo(ctx, src.id) } : { edge: refTo(ctx, src.id) }),
      });
    }
  }
  return out;
}
