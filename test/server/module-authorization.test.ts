/**
 * Who may read and write the routes and modules of an edge (issue 31 §4; docs/design.md section 5 >
 * Accounts; docs/server.md > Accounts and roles). The rule: the routes of an edge and the modules of
 * an edge or route are read and written by whoever may read and write the edge itself. Any key of the
 * account reads them; only the edge's owner and admins change them, whoever made the route or module;
 * another account gets 404, as for the edge.
 *
 * Generated from the model, not hand-picked: every module kind (`moduleKinds()`, path and parent from
 * its descriptor) and every write operation of the nested route kind, on three sets of edges (made by a
 * non-admin user, made by an admin, loaded from fixtures), for four callers (the user, a bot of the same
 * account, the admin, an admin of another account). A refused call must answer what the edge's own
 * collection answers the same caller (status and `error_code`) and change nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fillPath, getKind, type KindDescriptor, moduleKinds } from "../../src/model/index.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { type Answer, type Caller, caller, errorMessage } from "./http.js";

let server: TestServer;
/** The callers, by role. */
const callers = {} as Record<Role, Caller>;

/** `user` (usr_example01) and `bot` (bot_example01) are non-admin keys of the default account. */
type Role = "user" | "bot" | "admin" | "otherAccount";
const ROLES: Role[] = ["user", "bot", "admin", "otherAccount"];

/** Whose edges: made by the user's key, by the admin's, or loaded from fixtures (nobody's). */
type EdgeSet = "user-made" | "admin-made" | "fixture";
const EDGE_SETS: EdgeSet[] = ["user-made", "admin-made", "fixture"];

/** What a caller may do with an edge of a set (and so with everything under it). */
type Access = "write" | "read" | "none";
function accessOf(set: EdgeSet, role: Role): Access {
  if (role === "otherAccount") return "none";
  if (role === "admin" || (role === "user" && set === "user-made")) return "write";
  return "read";
}

/** Path parameters of each set: `edge_id` by parent kind, and the route of the HTTPS edge. */
interface Edges {
  https_edge: string;
  tls_edge: string;
  tcp_edge: string;
  route: string;
}
const edges = {} as Record<EdgeSet, Edges>;

/** Ids of objects a module body may refer to, by kind (made by the admin). */
const referable: Record<string, string> = { certificate_authority: "ca_example01" };

const ROUTE_KIND = getKind("https_edge_route");

/** The path of a module kind under a set's edge (and route). */
function modulePath(kind: KindDescriptor, set: EdgeSet): string {
  const parent = kind.module?.parent;
  if (parent === undefined) throw new Error(`${kind.kind} is not a module`);
  const ids = edges[set];
  const edgeId = parent === "https_edge_route" ? ids.https_edge : ids[parent];
  return fillPath(kind.path, { edge_id: edgeId, route_id: ids.route });
}

/**
 * A valid PUT body of a module kind from its descriptor: each required field, a reference as the id of
 * an object of its kind, a URI as a URL, another string as a word.
 */
function moduleBody(kind: KindDescriptor): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of kind.fields.filter((f) => f.required)) {
    const target = field.ref?.[0];
    if (target !== undefined) {
      const id = referable[target];
      if (id === undefined) throw new Error(`${kind.kind}.${field.name}: no ${target} to refer to`);
      body[field.name] = field.schema.type === "array" ? [id] : id;
    } else if (field.schema.type === "string") {
      body[field.name] = field.schema.format === "uri" ? "https://id.example.com" : `test-${field.name}`;
    } else {
      throw new Error(`${kind.kind}.${field.name}: no value for a required ${String(field.schema.type)}`);
    }
  }
  return body;
}

/** The edge of a set whose collection is asked what it answers a caller (the HTTPS edge). */
const edgePath = (set: EdgeSet) => `${getKind("https_edge").path}/${edges[set].https_edge}`;
const routesPath = (set: EdgeSet) => fillPath(ROUTE_KIND.path, { edge_id: edges[set].https_edge });

/**
 * What the edge's own collection answers `role` for a write it may not do: DELETE of the edge (refused,
 * so nothing is deleted) for a non-owner, GET of it for another account.
 */
async function collectionRefusal(set: EdgeSet, role: Role): Promise<Answer> {
  const answer =
    role === "otherAccount"
      ? await callers[role]("GET", edgePath(set))
      : await callers[role]("DELETE", edgePath(set));
  expect(answer.status, `the edge collection lets ${role} change the ${set} edge`).toBeGreaterThanOrEqual(
    400,
  );
  return answer;
}

/** Checks that `answer` is the same refusal as the collection's (status, error shape and code). */
function expectRefusedLike(answer: Answer, refusal: Answer, what: string): void {
  errorMessage(answer, refusal.status);
  expect(answer.body.error_code, `${what}: ${answer.text}`).toBe(refusal.body.error_code);
}

beforeAll(async () => {
  server = await startTestServer();
  callers.admin = caller(server.url, server.token);
  const keyOf = async (owner: string) => {
    const answer = await callers.admin("POST", "/api_keys", { owner_id: owner });
    expect(answer.status, answer.text).toBe(201);
    return caller(server.url, answer.body.token as string);
  };
  callers.user = await keyOf("usr_example01");
  callers.bot = await keyOf("bot_example01");
  callers.otherAccount = caller(server.url, server.newAccount().token);

  const created = async (who: Caller, path: string, body: Record<string, unknown>) => {
    const answer = await who("POST", path, body);
    expect(answer.status, answer.text).toBe(201);
    return answer.body.id as string;
  };
  referable.tunnel_group_backend = await created(callers.admin, "/backends/tunnel_group", {});
  const edgesOf = async (who: Caller, n: number): Promise<Edges> => {
    const https = await created(who, "/edges/https", { hostports: [`h${n}.example.com:443`] });
    return {
      https_edge: https,
      tls_edge: await created(who, "/edges/tls", { hostports: [`t${n}.example.com:443`] }),
      tcp_edge: await created(who, "/edges/tcp", { hostports: [`${n}.tcp.example.com:20000`] }),
      route: await created(who, fillPath(ROUTE_KIND.path, { edge_id: https }), {
        match_type: "path_prefix",
        match: "/",
      }),
    };
  };
  edges["user-made"] = await edgesOf(callers.user, 1);
  edges["admin-made"] = await edgesOf(callers.admin, 2);
  edges.fixture = {
    https_edge: "edghts_example01",
    tls_edge: "edgtls_example01",
    tcp_edge: "edgtcp_example01",
    route: "edghtsrt_example01",
  };
});
afterAll(() => server.close());

const cases = EDGE_SETS.flatMap((set) => ROLES.map((role) => ({ set, role, access: accessOf(set, role) })));

test("the model has the modules and the nested route kind this file enumerates", () => {
  expect(moduleKinds().length).toBeGreaterThan(0);
  expect(ROUTE_KIND.parent).toBe("https_edge");
  expect(ROUTE_KIND.operations.has("create")).toBe(true);
});

describe.each(moduleKinds().map((kind) => ({ kind, name: kind.kind })))("module $name", ({ kind }) => {
  test.each(cases)(
    "on the $set edge, $role: GET, PUT, DELETE as the edge allows ($access)",
    async ({ set, role, access }) => {
      const path = modulePath(kind, set);
      const body = moduleBody(kind);
      const call = callers[role];
      // The module exists, set by the admin: it is the edge's, whoever set it.
      const put = await callers.admin("PUT", path, body);
      expect(put.status, put.text).toBe(200);
      const before = (await callers.admin("GET", path)).body;
      const refusal = access === "write" ? undefined : await collectionRefusal(set, role);

      const get = await call("GET", path);
      if (access === "none" && refusal) expectRefusedLike(get, refusal, `GET ${path}`);
      else expect(get.body, get.text).toEqual(before);

      const replaced = await call("PUT", path, { ...body, enabled: false });
      if (refusal) {
        expectRefusedLike(replaced, refusal, `PUT ${path}`);
        expect((await callers.admin("GET", path)).body).toEqual(before);
      } else {
        expect(replaced.status, replaced.text).toBe(200);
        expect(replaced.body.enabled).toBe(false);
      }

      const deleted = await call("DELETE", path);
      if (refusal) {
        expectRefusedLike(deleted, refusal, `DELETE ${path}`);
        expect((await callers.admin("GET", path)).status).toBe(200);
      } else {
        expect(deleted.status, deleted.text).toBe(204);
        errorMessage(await callers.admin("GET", path), 404);
      }

      // A first PUT (no module yet) is a write too.
      await callers.admin("DELETE", path);
      const first = await call("PUT", path, body);
      if (refusal) {
        expectRefusedLike(first, refusal, `first PUT ${path}`);
        errorMessage(await callers.admin("GET", path), 404);
      } else {
        expect(first.status, first.text).toBe(200);
      }
    },
  );
});

describe("routes of an HTTPS edge", () => {
  test.each(cases)(
    "on the $set edge, $role: list, GET and every write of a route as the edge allows ($access)",
    async ({ set, role, access }) => {
      const call = callers[role];
      const routeBody = { match_type: "exact_path", match: `/${role}` };
      const listed = async () => (await callers.admin("GET", routesPath(set))).body;
      // A route the admin made: it is the edge's, whoever made it.
      const route = await callers.admin("POST", routesPath(set), routeBody);
      expect(route.status, route.text).toBe(201);
      const routePath = `${routesPath(set)}/${route.body.id}`;
      const refusal = access === "write" ? undefined : await collectionRefusal(set, role);

      const list = await call("GET", routesPath(set));
      const get = await call("GET", routePath);
      if (access === "none" && refusal) {
        expectRefusedLike(list, refusal, `GET ${routesPath(set)}`);
        expectRefusedLike(get, refusal, `GET ${routePath}`);
      } else {
        expect(list.body, list.text).toEqual(await listed());
        expect(get.body, get.text).toEqual(route.body);
      }

      let writes = 0;
      for (const op of ["create", "update", "delete"] as const) {
        if (!ROUTE_KIND.operations.has(op)) continue;
        writes++;
        const before = await listed();
        const answer =
          op === "create"
            ? await call("POST", routesPath(set), routeBody)
            : op === "update"
              ? await call("PATCH", routePath, { description: `${role} was here` })
              : await call("DELETE", routePath);
        if (refusal) {
          expectRefusedLike(answer, refusal, `${op} of a route`);
          expect(await listed(), `a refused ${op} changed the routes`).toEqual(before);
        } else {
          expect(answer.status, answer.text).toBe({ create: 201, update: 200, delete: 204 }[op]);
        }
      }
      expect(writes).toBeGreaterThan(0);
    },
  );
});

describe("deleting an edge", () => {
  test("only who may change the edge deletes it, and with it its routes and modules", async () => {
    const set: EdgeSet = "user-made";
    const mtls = moduleKinds().find((k) => k.module?.parent === "https_edge");
    const routeModule = moduleKinds().find((k) => k.module?.parent === "https_edge_route");
    if (mtls === undefined || routeModule === undefined) throw new Error("no HTTPS edge or route module");
    for (const kind of [mtls, routeModule]) {
      // Nobody else can hang a module under the user's edge: what it holds is the user's. The
      // refusal names the edge, whose owner decides.
      const refused = await callers.bot("PUT", modulePath(kind, set), moduleBody(kind));
      expect(errorMessage(refused, 403)).toBe(
        `HTTPS edge ${edges[set].https_edge} belongs to someone else: a non-admin key may change or delete only what its user or bot owns`,
      );
      expect((await callers.admin("PUT", modulePath(kind, set), moduleBody(kind))).status).toBe(200);
    }
    errorMessage(await callers.bot("DELETE", edgePath(set)), 403);
    errorMessage(await callers.otherAccount("DELETE", edgePath(set)), 404);
    expect((await callers.user("GET", modulePath(mtls, set))).status).toBe(200);

    const deleted = await callers.user("DELETE", edgePath(set));
    expect(deleted.status, deleted.text).toBe(204);
    for (const kind of [mtls, routeModule])
      errorMessage(await callers.admin("GET", modulePath(kind, set)), 404);
    errorMessage(await callers.admin("GET", routesPath(set)), 404);
  });
});
