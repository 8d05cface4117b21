/**
 * Ownership and drift against the reference server: changes made behind tgw's back are shown by plan
 * and corrected by apply; a lost state is refused, then rebuilt from markers with --takeover without
 * creating anything; objects without this stack's marker, or not recorded, are never deleted; import
 * adopts one; the refresh uses lists.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hasChanges, importResource } from "../../src/engine/index.js";
import { collections, encodeMetadata } from "../../src/model/index.js";
import { desired, res, STACK } from "./builders.js";
import { type Bench, startBench } from "./harness.js";

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());
// Each test starts from an empty stack: whatever carries its marker is deleted through the API (an
// unrecorded object is never deleted by tgw), then the state is dropped. Tests remove their unmarked
// objects.
afterEach(async () => {
  for (const kind of collections().values()) {
    if (!kind.listKey) continue;
    for (const o of await bench.api.listAll<{ id: string; metadata?: string }>(kind.path, kind.listKey)) {
      if (typeof o.metadata === "string" && o.metadata.includes(`"stack":"${STACK}"`))
        await bench.api.delete(`${kind.path}/${o.id}`);
    }
  }
  await bench.apply([], { allowEmpty: true, takeover: true });
  await bench.loseState();
  bench.reset();
});

const ci = res("api_keys.ci", { description: "CI" });
const web = res("tunnel_group_backends.web", { labels: { app: "web" } });
const compression = res("edges.https.edghts_example01.routes.edghtsrt_example01.compression", {
  enabled: true,
});

describe("drift", () => {
  it("a PATCH behind tgw's back is shown as drift and corrected with one PATCH", async () => {
    const { result } = await bench.apply([ci]);
    const id = result?.outcomes[0]?.id as string;
    await bench.api.patch(`/api_keys/${id}`, { description: "edited by hand" });
    const { plan } = await bench.plan([ci]);
    expect(plan.changes[0]).toMatchObject({ action: "update", drift: true, changedFields: ["description"] });
    bench.reset();
    await bench.apply([ci]);
    expect(bench.calls()).toEqual(["PATCH /api_keys/:id"]);
    expect(hasChanges((await bench.plan([ci])).plan)).toBe(false);
  });

  it("a DELETE behind tgw's back is shown as drift and the object created again", async () => {
    const { result } = await bench.apply([web]);
    await bench.api.delete(`/backends/tunnel_group/${result?.outcomes[0]?.id}`);
    const { plan } = await bench.plan([web]);
    expect(plan.changes[0]).toMatchObject({
      action: "create",
      drift: true,
      reason: "deleted outside tgw (drift)",
    });
    bench.reset();
    await bench.apply([web]);
    expect(bench.calls()).toEqual(["POST /backends/tunnel_group"]);
  });

  it("a module removed through the API is put back", async () => {
    await bench.apply([compression]);
    await bench.api.delete("/edges/https/edghts_example01/routes/edghtsrt_example01/compression");
    const { plan } = await bench.plan([compression]);
    expect(plan.changes[0]).toMatchObject({ action: "put", drift: true });
    bench.reset();
    await bench.apply([compression]);
    expect(bench.calls()).toEqual([
      "PUT /edges/https/edghts_example01/routes/edghtsrt_example01/compression",
    ]);
  });
});

describe("ownership", () => {
  it("refuses a lost state's markers, then rebuilds it with --takeover: no creates, no calls, records written", async () => {
    await bench.apply([ci, web, compression]);
    await bench.loseState();
    await expect(bench.plan([ci, web, compression])).rejects.toThrow(
      /2 objects carry ownership markers this state .* has not seen: .*--takeover/,
    );
    const { plan } = await bench.plan([ci, web, compression], { takeover: true });
    expect(plan.changes.map((c) => [c.address, c.action, c.adopted === true])).toEqual([
      ["api_keys.ci", "no-op", true],
      ["edges.https.edghts_example01.routes.edghtsrt_example01.compression", "no-op", false],
      ["tunnel_group_backends.web", "no-op", true],
    ]);
    bench.reset();
    await bench.apply([ci, web, compression], { takeover: true });
    expect(bench.calls()).toEqual([]);
    expect(Object.keys((await bench.store.read()).resources).sort()).toEqual([
      "api_keys.ci",
      "edges.https.edghts_example01.routes.edghtsrt_example01.compression",
      "tunnel_group_backends.web",
    ]);
    // The claims are the state's now: the next plan needs no --takeover.
    expect(hasChanges((await bench.plan([ci, web, compression])).plan)).toBe(false);
  });

  it("after a lost state and --takeover, an object no longer configured is left alone and reported", async () => {
    await bench.apply([ci, web]);
    await bench.loseState();
    bench.reset();
    // A lost state's refresh lists every kind: the key is seen, reported, and left alone.
    const { plan } = await bench.apply([web], { takeover: true });
    expect(bench.calls()).toEqual([]);
    expect(plan.unmanaged?.map((u) => u.address)).toEqual(["api_keys.ci"]);
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([["tunnel_group_backends.web", "no-op"]]);
  });

  it("never touches objects without this stack's marker", async () => {
    const unmarked = await bench.api.post<{ id: string }>("/backends/tunnel_group", {
      description: "made by hand",
    });
    const other = await bench.api.post<{ id: string }>("/backends/tunnel_group", {
      description: "made by another stack",
      metadata: encodeMetadata(undefined, { stack: "other", address: "tunnel_group_backends.web" }),
    });
    await bench.apply([web]);
    bench.reset();
    await bench.apply([], { allowEmpty: true });
    expect(bench.calls()).toEqual(["DELETE /backends/tunnel_group/:id"]);
    const left = (await bench.api.listAll<{ id: string }>("/backends/tunnel_group", "backends")).map(
      (b) => b.id,
    );
    expect(left.sort()).toEqual([unmarked.id, other.id].sort());
    await bench.api.delete(`/backends/tunnel_group/${unmarked.id}`);
    await bench.api.delete(`/backends/tunnel_group/${other.id}`);
  });

  it("when two unrecorded objects carry one address's marker, adopts the oldest and leaves the other", async () => {
    const metadata = encodeMetadata(undefined, { stack: STACK, address: "tunnel_group_backends.web" });
    const a = await bench.api.post<{ id: string }>("/backends/tunnel_group", { metadata });
    const b = await bench.api.post<{ id: string }>("/backends/tunnel_group", { metadata });
    const { plan } = await bench.plan([web]);
    // The oldest by `created_at` (whole seconds), then by id, compared as the engine does (localeCompare:
    // a code-unit sort put "PV..." before "Po..." and failed): read, not assumed created in one second.
    const made = await Promise.all(
      [a.id, b.id].map((id) =>
        bench.api.get<{ id: string; created_at: string }>(`/backends/tunnel_group/${id}`),
      ),
    );
    const [kept, extra] = made
      .sort((x, y) => x.created_at.localeCompare(y.created_at) || x.id.localeCompare(y.id))
      .map((o) => o.id);
    expect(plan.changes).toMatchObject([{ address: "tunnel_group_backends.web", id: kept, adopted: true }]);
    expect(plan.unmanaged).toEqual([
      { id: extra, kind: "tunnel_group_backend", address: "tunnel_group_backends.web" },
    ]);
    bench.reset();
    await bench.apply([web]);
    expect(bench.calls().filter((c) => c.startsWith("DELETE"))).toEqual([]);
    const left = await bench.api.listAll<{ id: string }>("/backends/tunnel_group", "backends");
    expect(left.map((o) => o.id).sort()).toEqual([kept, extra].sort());
    expect((await bench.store.read()).resources["tunnel_group_backends.web"]?.id).toBe(kept);
    expect(hasChanges((await bench.plan([web])).plan)).toBe(false);
  });

  it("import adopts an object: one PATCH writes the marker, the user's metadata stays", async () => {
    const made = await bench.api.post<{ id: string }>("/backends/tunnel_group", {
      description: "made by hand",
      metadata: '{"team":"web"}',
    });
    bench.reset();
    const { record, markerWritten } = await importResource({
      desired: desired([web], "marker", bench.dir),
      api: bench.api,
      store: bench.store,
      address: "tunnel_group_backends.web",
      id: made.id,
    });
    expect(markerWritten).toBe(true);
    expect(record).toMatchObject({ address: "tunnel_group_backends.web", id: made.id });
    expect(bench.calls()).toEqual(["PATCH /backends/tunnel_group/:id"]);
    const live = await bench.api.get<{ metadata: string }>(`/backends/tunnel_group/${made.id}`);
    expect(JSON.parse(live.metadata)).toEqual({
      team: "web",
      tgw: {
        address: "tunnel_group_backends.web",
        lineage: (await bench.store.read()).lineage,
        serial: (await bench.store.read()).serial, // the import's own state write
        stack: STACK,
      },
    });
    // The configuration's differences are updates (not drift): description, labels and metadata.
    const { plan } = await bench.plan([web]);
    expect(plan.changes[0]).toMatchObject({
      action: "update",
      id: made.id,
      changedFields: ["description", "labels", "metadata"],
    });
    expect(plan.changes[0]?.drift).toBeUndefined();
    await expect(
      importResource({
        desired: desired([web], "marker", bench.dir),
        api: bench.api,
        store: bench.store,
        address: "api_keys.ci",
        id: made.id,
      }),
    ).rejects.toThrow("api_keys.ci is not in the configuration: add it there first, then import it");
  });
});

describe("refresh and order", () => {
  it("reads live state with one list per collection kind and one GET per module, whatever the count", async () => {
    const many = Array.from({ length: 30 }, (_, i) =>
      res(`tunnel_group_backends.b${i}`, { description: `b${i}` }),
    );
    // Without a state every kind is listed: objects of a lost state are found by their markers.
    await bench.loseState();
    bench.reset();
    await bench.plan([...many, compression]);
    const first = bench.server.requests.filter((r) => r.method === "GET").map((r) => r.path);
    expect(first.filter((p) => !p.startsWith("/edges")).sort()).toEqual(
      [...collections().values()].map((k) => k.path).sort(),
    );
    await bench.apply([...many, compression]);
    bench.reset();
    // After the creates, their kind is listed (one page costs less than 30 GETs); no other kind.
    await bench.plan([...many, compression]);
    const reads = bench.server.requests.filter((r) => r.method === "GET").map((r) => r.path);
    expect(reads.sort()).toEqual(
      [
        "/backends/tunnel_group",
        "/edges/https/edghts_example01/routes/edghtsrt_example01/compression",
      ].sort(),
    );
  });

  it("deletes a subscription before the destination it uses", async () => {
    const dest = res("event_destinations.d", {
      format: "json",
      target: { monitoring_target: { api_key: "k" } },
    });
    const sub = res("event_subscriptions.s", {
      sources: [{ type: "api_key_created.v0" }],
      destination_ids: [{ $ref: "event_destinations.d" }],
    });
    await bench.apply([dest, sub]);
    bench.reset();
    await bench.apply([], { allowEmpty: true, parallelism: 8 });
    expect(bench.calls()).toEqual(["DELETE /event_subscriptions/:id", "DELETE /event_destinations/:id"]);
  });
});
