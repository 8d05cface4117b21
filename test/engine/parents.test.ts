/**
 * A module of an edge or route that does not exist (a mistyped id) is an error at plan time naming
 * the configuration line, not a PUT that apply fails on; a module that is merely not set still plans
 * a PUT. At most one extra GET per parent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UnknownParentError } from "../../src/engine/index.js";
import { res } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

describe("a module's parent", () => {
  it("that exists: a module not set plans a put", async () => {
    const { plan } = await bench.plan([
      res("edges.https.edghts_example01.routes.edghtsrt_example01.compression", { enabled: true }),
    ]);
    expect(plan.changes.map((c) => c.action)).toEqual(["put"]);
  });

  it("that does not exist: an error naming the address, the missing route and the line; one GET per parent", async () => {
    bench.server.resetRequests();
    const err = await bench
      .plan([
        res("edges.https.edghts_example01.routes.edghtsrt_typo.compression", { enabled: true }),
        res("edges.https.edghts_example01.routes.edghtsrt_typo.user_agent_filter", { allow: ["curl"] }),
        res("edges.tls.edgtls_typo.backend", { backend_id: "bkdtg_x" }),
      ])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownParentError);
    const { problems } = err as UnknownParentError;
    expect(problems).toEqual([
      "tgw.yaml:1:1: edges.https.edghts_example01.routes.edghtsrt_typo.compression: the route edghtsrt_typo of edge edghts_example01 does not exist (GET /edges/https/edghts_example01/routes/edghtsrt_typo answered 404): check the id",
      "tgw.yaml:1:1: edges.https.edghts_example01.routes.edghtsrt_typo.user_agent_filter: the route edghtsrt_typo of edge edghts_example01 does not exist (GET /edges/https/edghts_example01/routes/edghtsrt_typo answered 404): check the id",
      "tgw.yaml:1:1: edges.tls.edgtls_typo.backend: the edge edgtls_typo does not exist (GET /edges/tls/edgtls_typo answered 404): check the id",
    ]);
    const parentReads = bench.server.requests.filter(
      (r) => r.path === "/edges/https/edghts_example01/routes/edghtsrt_typo",
    );
    expect(parentReads).toHaveLength(1);
  });
});
