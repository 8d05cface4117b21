/**
 * Authentication (docs/design.md section 5 > Auth). Every request but those to unknown paths carries
 * `Authorization: Bearer <token>`; the token's SHA-256 is looked up among the API keys' hashes and
 * compared in constant time. Tokens are never stored in clear.
 *
 * The admin of a fresh store: the first user with the admin flag (fixtures), or a user `usr_admin`
 * made at first start. The bootstrap admin token:
 * - given (`bootstrapToken`, `TGW_BOOTSTRAP_TOKEN`): valid for this run only, held in memory as a hash,
 *   even when the store already holds keys;
 * - else, when the store has no API key at all: generated, stored as an API key owned by the admin
 *   (hash only) and reported as `generated` so `tgw serve` prints it once;
 * - else: a random token valid for this run only, for programmatic callers of startServer (not printed).
 * A key's caller is admin when the key's owner is a user with the admin flag. The caller works in the
 * key's account (the bootstrap token: the default account), see ../account.ts.
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { ensureAdminUser, mintAdminKey } from "../account.js";
import { problems } from "../errors.js";
import { newToken, sameDigest, tokenDigest } from "../ids.js";
import type { Principal } from "../resources/context.js";
import { setAccountOfRecord } from "./request-log.js";

/** Options of this plugin (registered by ../app.ts). */
export interface AuthPluginOptions {
  bootstrapToken?: string | undefined;
}

async function authPlugin(app: FastifyInstance, opts: AuthPluginOptions): Promise<void> {
  const store = app.store;
  const adminId = ensureAdminUser(store);
  let memoryHash: string | undefined;
  let token: string;
  let generated = false;
  if (opts.bootstrapToken !== undefined && opts.bootstrapToken !== "") {
    token = opts.bootstrapToken;
    memoryHash = tokenDigest(token);
  } else if (store.count("api_key") === 0) {
    token = mintAdminKey(store, "bootstrap admin key (made at first start)").token;
    generated = true;
  } else {
    token = newToken();
    memoryHash = tokenDigest(token);
  }
  app.decorate("bootstrap", { token, generated });
  app.decorateRequest("principal", undefined as unknown as Principal);

  /** The caller of a request, from its `Authorization` header. @throws ApiProblem 401 */
  const principalOf = (header: string | undefined): Principal => {
    if (header === undefined || header.trim() === "") throw problems.missingCredential();
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m?.[1]) throw problems.malformedCredential();
    const hash = tokenDigest(m[1]);
    if (memoryHash !== undefined && sameDigest(hash, memoryHash)) {
      return { keyId: "bootstrap", ownerId: adminId, admin: true, accountId: store.accountId };
    }
    const found = store.findTokenHash(hash);
    const key = found && sameDigest(hash, found.digest) ? store.getInAnyAccount(found.keyId) : undefined;
    if (key === undefined) throw problems.invalidCredential();
    const ownerId = String(key.obj.body.owner_id);
    const owner = store.forAccount(key.accountId).get(ownerId);
    return {
      keyId: key.obj.id,
      ownerId,
      admin: owner?.kind === "user" && owner.body.admin === true,
      accountId: key.accountId,
    };
  };
  app.requestChecks.push((request) => {
    request.principal = principalOf(request.headers.authorization);
    if (request.recorded) setAccountOfRecord(request.recorded, request.principal.accountId);
  });
}

export default fp(authPlugin, { name: "tgw-auth", dependencies: ["tgw-store", "tgw-request-log"] });
