/**
 * The planner as a pure function: desired + live + state -> changes. Live objects are written as the
 * reference server returns them; each scenario checks the actions, the fields and the ordering data.
 */
import { describe, expect, it } from "vitest";
import { pendingRecord } from "../../src/engine/pending.js";
import { makePlan } from "../../src/engine/plan.js";
import { encodeMetadata } from "../../src/model/index.js";
import { desired, live, marked, pathOf, recordOf, res, state } from "./builders.js";

const ts = "2024-01-01T00:00:00Z";
const key = (id: string, extra: Record<string, unknown> = {}) => ({
  kind: "api_key",
  id,
  uri: `/api_keys/${id}`,
  description: "",
  metadata: "",
  created_at: ts,
  token: null,
  owner_id: "usr_1",
  ...extra,
});
const actions = (p: ReturnType<typeof makePlan>) =>
  Object.fromEntries(p.changes.map((c) => [c.address, c.action]));

describe("plan", () => {
  it("creates what is not live, with the id unknown and the token file named", () => {
    const p = makePlan({
      desired: desired([res("api_keys.ci", { description: "CI" })]),
      live: live(),
      state: state(),
    });
    expect(p.changes).toHaveLength(1);
    expect(p.changes[0]).toMatchObject({
      address: "api_keys.ci",
      action: "create",
      after: { description: "CI", metadata: "" },
      tokenFile: ".tgw/secrets/ci.token",
    });
  });

  it("is a no-op when live equals desired after normalisation", () => {
    const d = desired([
      res("api_keys.ci", { description: "CI", metadata: { team: "infra", a: [1, 2] } }),
      res("event_subscriptions.s", {
        description: "alerts",
        sources: [{ type: "b_created.v0" }, { type: "a_created.v0" }],
        destination_ids: ["ed_2", "ed_1"],
      }),
      res("edges.https.edghts_1.routes.edghtsrt_1.response_headers", {
        add: { "X-Frame-Options": "DENY" },
        remove: ["Server", "X-Powered-By"],
      }),
      res("ssh_host_certificates.h", {
        ssh_certificate_authority_id: "sshca_1",
        public_key: "ssh-ed25519 AAAA host\n",
        valid_until: "2030-01-01T00:00:00+00:00",
      }),
    ]);
    const l = live(
      [
        key("ak_1", { description: "CI", metadata: marked("api_keys.ci", { a: [1, 2], team: "infra" }) }),
        {
          kind: "event_subscription",
          id: "esb_1",
          uri: "/event_subscriptions/esb_1",
          created_at: ts,
          description: "alerts",
          metadata: marked("event_subscriptions.s"),
          sources: [
            { type: "a_created.v0", uri: "/event_subscriptions/esb_1/sources/a_created.v0" },
            { type: "b_created.v0", uri: "/event_subscriptions/esb_1/sources/b_created.v0" },
          ],
          destinations: [
            { id: "ed_1", uri: "/event_destinations/ed_1" },
            { id: "ed_2", uri: "/event_destinations/ed_2" },
          ],
        },
        {
          kind: "ssh_host_certificate",
          id: "shcrt_1",
          description: "",
          metadata: marked("ssh_host_certificates.h"),
          ssh_certificate_authority_id: "sshca_1",
          public_key: "ssh-ed25519 AAAA host",
          principals: [],
          valid_after: "2024-01-01T00:00:00Z",
          valid_until: "2030-01-01T00:00:00.000Z",
          certificate: "ssh-ed25519-cert-v01@openssh.com AAAA",
          key_type: "ed25519",
        },
      ],
      [
        {
          kind: "response_headers",
          path: "/edges/https/edghts_1/routes/edghtsrt_1/response_headers",
          enabled: true,
          add: { "x-frame-options": "DENY" },
          remove: ["x-powered-by", "server"],
        },
      ],
    );
    const p = makePlan({ desired: d, live: l, state: state() });
    expect(actions(p)).toEqual({
      "api_keys.ci": "no-op",
      "edges.https.edghts_1.routes.edghtsrt_1.response_headers": "no-op",
      "event_subscriptions.s": "no-op",
      "ssh_host_certificates.h": "no-op",
    });
    expect(p.changes.filter((c) => c.adopted).map((c) => c.address)).toEqual([
      "api_keys.ci",
      "event_subscriptions.s",
      "ssh_host_certificates.h",
    ]);
  });

  it("updates only the changed fields; unset fields return to their schema defaults", () => {
    const d = desired([res("tunnel_group_backends.web", { labels: { app: "web" } })]);
    const l = live([
      {
        kind: "tunnel_group_backend",
        id: "bkdtg_1",
        description: "old text",
        metadata: marked("tunnel_group_backends.web"),
        labels: { app: "web" },
        tunnels: [{ id: "tn_1", uri: "/tunnels/tn_1" }],
      },
    ]);
    const [c] = makePlan({ desired: d, live: l, state: state() }).changes;
    expect(c).toMatchObject({ action: "update", id: "bkdtg_1", changedFields: ["description"] });
    expect(c?.before?.description).toBe("old text");
    expect(c?.after?.description).toBe("");
  });

  it("replaces when a field PATCH cannot change differs, delete first when nothing refers to it", () => {
    const d = desired([
      res("ssh_host_certificates.h", {
        ssh_certificate_authority_id: "sshca_1",
        public_key: "ssh-ed25519 AAAA",
        principals: ["a.example.com", "b.example.com"],
        description: "new",
      }),
    ]);
    const l = live([
      {
        kind: "ssh_host_certificate",
        id: "shcrt_1",
        description: "old",
        metadata: marked("ssh_host_certificates.h"),
        ssh_certificate_authority_id: "sshca_1",
        public_key: "ssh-ed25519 AAAA",
        principals: ["a.example.com"],
      },
    ]);
    const [c] = makePlan({ desired: d, live: l, state: state() }).changes;
    expect(c).toMatchObject({
      action: "replace",
      changedFields: ["description", "principals"],
      replaceFields: ["principals"],
      replaceOrder: "delete-first",
    });
  });

  it("compares a write-only private key by the digest the state kept", () => {
    const pem = "-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----";
    const r1 = res("tls_certificates.web", { certificate_pem: pem, private_key_pem: "KEY-1" });
    const liveCert = {
      kind: "tls_certificate",
      id: "cert_1",
      description: "",
      metadata: marked("tls_certificates.web"),
      certificate_pem: `${pem}\n`,
    };
    const st = state([recordOf(r1, "cert_1")]);
    expect(actions(makePlan({ desired: desired([r1]), live: live([liveCert]), state: st }))).toEqual({
      "tls_certificates.web": "no-op",
    });
    const r2 = res("tls_certificates.web", { certificate_pem: pem, private_key_pem: "KEY-2" });
    const p2 = makePlan({ desired: desired([r2]), live: live([liveCert]), state: st });
    expect(p2.changes[0]).toMatchObject({ action: "replace", replaceFields: ["private_key_pem"] });
    // Without a recorded digest (state lost) the key cannot be compared: not a change.
    expect(actions(makePlan({ desired: desired([r2]), live: live([liveCert]), state: state() }))).toEqual({
      "tls_certificates.web": "no-op",
    });
  });

  it("deletes the orphans the state records; leaves unrecorded and unmarked objects alone", () => {
    const gone = res("api_keys.old");
    const p = makePlan({
      desired: desired([res("api_keys.ci")]),
      live: live([
        key("ak_1", { metadata: marked("api_keys.ci") }),
        key("ak_2", { metadata: marked("api_keys.removed") }),
        key("ak_3", { metadata: "" }),
        key("ak_4", { metadata: encodeOther("api_keys.ci") }),
        key("ak_5"),
      ]),
      state: state([recordOf(gone, "ak_5"), recordOf(res("api_keys.vanished"), "ak_9")]),
    });
    expect(actions(p)).toEqual({
      "api_keys.ci": "no-op",
      "api_keys.old": "delete",
    });
    expect(p.forget).toEqual(["api_keys.vanished"]);
    expect(p.unmanaged).toEqual([{ id: "ak_2", kind: "api_key", address: "api_keys.removed" }]);
  });

  it("leaves alone an object the state records that another stack's marker now claims", () => {
    const r = res("api_keys.ci");
    const p = makePlan({
      desired: desired([r]),
      live: live([
        key("ak_1", { metadata: encodeOther("api_keys.ci") }),
        key("ak_2", { metadata: encodeOther("x") }),
      ]),
      state: state([recordOf(r, "ak_1"), recordOf(res("api_keys.gone"), "ak_2")]),
    });
    expect(p.changes.map((c) => [c.address, c.action, c.reason])).toEqual([
      ["api_keys.ci", "create", 'ak_1 now belongs to stack "another-stack"'],
    ]);
    expect(p.forget).toEqual(["api_keys.gone"]);
  });

  it("adds the ownership marker to an object matched through the state without it", () => {
    const r = res("api_keys.ci", { description: "x" });
    const p = makePlan({
      desired: desired([r]),
      live: live([key("ak_1", { description: "x", metadata: "" })]),
      state: state([recordOf(r, "ak_1")]),
    });
    expect(p.changes[0]).toMatchObject({
      action: "update",
      changedFields: ["metadata"],
      reason: "the ownership marker is missing",
    });
    // state-only: no marker wanted.
    const q = makePlan({
      desired: desired([r], "state-only"),
      live: live([key("ak_1", { description: "x", metadata: "" })]),
      state: state([recordOf(r, "ak_1")]),
    });
    expect(q.changes[0]?.action).toBe("no-op");
  });

  it("deletes the duplicates of one pending create: keeps the oldest, never another create's", () => {
    const r = res("tunnel_group_backends.web");
    const made = (id: string, create: string, created_at: string) => ({
      kind: "tunnel_group_backend",
      id,
      description: "",
      labels: {},
      tunnels: [],
      created_at,
      metadata: encodeMetadata(undefined, {
        stack: "demo",
        address: "tunnel_group_backends.web",
        lineage: "lineage-1",
        serial: 1,
        create,
      }),
    });
    const objects = [
      made("bkdtg_1", "c1", "2025-01-02T00:00:00Z"),
      made("bkdtg_2", "c1", "2025-01-01T00:00:00Z"),
      made("bkdtg_3", "c2", "2025-01-03T00:00:00Z"),
    ];
    const pending = pendingRecord(recordOf(r, "c1"), "c1");
    const p = makePlan({ desired: desired([r]), live: live(objects), state: state([pending]) });
    expect(p.changes.map((c) => [c.address, c.action, c.id])).toEqual([
      ["tunnel_group_backends.web", "no-op", "bkdtg_2"],
      ["tunnel_group_backends.web#duplicate:bkdtg_1", "delete", "bkdtg_1"],
    ]);
    expect(p.recover?.map((x) => [x.address, x.id])).toEqual([["tunnel_group_backends.web", "bkdtg_2"]]);
    expect(p.unmanaged?.map((u) => u.id)).toEqual(["bkdtg_3"]);
  });

  it("reports drift: a change behind tgw's back, and an object deleted behind its back", () => {
    const r = res("api_keys.ci", { description: "CI" });
    const r2 = res("api_keys.other", { description: "other" });
    const p = makePlan({
      desired: desired([r, r2]),
      live: live([key("ak_1", { description: "edited", metadata: marked("api_keys.ci") })]),
      state: state([recordOf(r, "ak_1"), recordOf(r2, "ak_2")]),
    });
    expect(p.changes.map((c) => [c.address, c.action, c.drift === true, c.reason])).toEqual([
      ["api_keys.ci", "update", true, "changed outside tgw (drift): description"],
      ["api_keys.other", "create", true, "deleted outside tgw (drift)"],
    ]);
    // A configuration change is not drift.
    const q = makePlan({
      desired: desired([res("api_keys.ci", { description: "new" })]),
      live: live([key("ak_1", { description: "CI", metadata: marked("api_keys.ci") })]),
      state: state([recordOf(r, "ak_1")]),
    });
    expect(q.changes[0]).toMatchObject({ action: "update", reason: "description changed" });
    expect(q.changes[0]?.drift).toBeUndefined();
  });

  it("orders by references: targets created first, referrers changed before targets are deleted", () => {
    const dest = res("event_destinations.new", {
      format: "json",
      target: { monitoring_target: { api_key: "secret" } },
    });
    const sub = res("event_subscriptions.s", {
      sources: [{ type: "api_key_created.v0" }],
      destination_ids: [{ $ref: "event_destinations.new" }],
    });
    const oldDest = res("event_destinations.old", {
      format: "json",
      target: { monitoring_target: { api_key: "k" } },
    });
    const p = makePlan({
      desired: desired([dest, sub]),
      live: live([
        {
          kind: "event_destination",
          id: "ed_old",
          description: "",
          metadata: marked("event_destinations.old"),
          format: "json",
          target: { monitoring_target: { api_key: "k" }, stream_target: null },
        },
        {
          kind: "event_subscription",
          id: "esb_1",
          description: "",
          metadata: marked("event_subscriptions.s"),
          sources: [{ type: "api_key_created.v0", uri: "x" }],
          destinations: [{ id: "ed_old", uri: "/event_destinations/ed_old" }],
        },
      ]),
      state: state([recordOf(oldDest, "ed_old")]),
    });
    const by = Object.fromEntries(p.changes.map((c) => [c.address, c]));
    expect(by["event_destinations.new"]?.action).toBe("create");
    expect(by["event_subscriptions.s"]).toMatchObject({
      action: "update",
      changedFields: ["destination_ids"],
      dependsOn: ["event_destinations.new"],
      after: { destination_ids: [{ $ref: "event_destinations.new" }] },
    });
    expect(by["event_destinations.old"]).toMatchObject({
      action: "delete",
      deleteAfter: ["event_subscriptions.s"],
    });
  });

  it("puts a module that is not set, and deletes one the state says tgw set", () => {
    const saml = res("edges.https.edghts_1.routes.edghtsrt_1.compression", { enabled: true });
    const gone = res("edges.tls.edgtls_1.backend", { backend_id: "bkdtg_1" });
    const p = makePlan({
      desired: desired([saml]),
      live: live(
        [],
        [
          {
            kind: "tls_edge_backend",
            path: pathOf(gone),
            enabled: true,
            backend: { id: "bkdtg_1", uri: "" },
          },
        ],
        [pathOf(saml)],
      ),
      state: state([recordOf(gone, pathOf(gone))]),
    });
    expect(p.changes.map((c) => [c.address, c.action, c.id])).toEqual([
      [
        "edges.https.edghts_1.routes.edghtsrt_1.compression",
        "put",
        "/edges/https/edghts_1/routes/edghtsrt_1/compression",
      ],
      ["edges.tls.edgtls_1.backend", "delete", "/edges/tls/edgtls_1/backend"],
    ]);
  });

  it("plans the deletion of everything the stack records for destroy, and nothing else", () => {
    const r = res("api_keys.ci");
    const p = makePlan({
      desired: desired([r]),
      live: live([
        key("ak_1", { metadata: marked("api_keys.ci") }),
        key("ak_2"),
        key("ak_3", { metadata: marked("api_keys.other") }),
      ]),
      state: state([recordOf(r, "ak_1")]),
      destroy: true,
    });
    expect(p.changes.map((c) => [c.address, c.action, c.id, c.reason])).toEqual([
      ["api_keys.ci", "delete", "ak_1", "tgw destroy"],
    ]);
  });

  it("finishes a replace cut off by a crash: the deposed old object goes, the new one is recorded", () => {
    const r = res("tunnel_group_backends.web");
    const deposed = { ...recordOf(r, "bkdtg_old"), address: "tunnel_group_backends.web#deposed" };
    const pending = pendingRecord(recordOf(r, "c1"), "c1");
    const backend = (id: string, create?: string) => ({
      kind: "tunnel_group_backend",
      id,
      description: "",
      labels: {},
      tunnels: [],
      metadata: encodeMetadata(undefined, {
        stack: "demo",
        address: "tunnel_group_backends.web",
        lineage: "lineage-1",
        serial: 1,
        ...(create ? { create } : {}),
      }),
    });
    const both = live([backend("bkdtg_old"), backend("bkdtg_new", "c1")]);
    // Killed after the POST, before the new id was recorded: the pending create finds it.
    const a = makePlan({
      desired: desired([r]),
      live: both,
      state: state([recordOf(r, "bkdtg_old"), deposed, pending]),
    });
    expect(a.changes.map((c) => [c.address, c.action, c.id])).toEqual([
      ["tunnel_group_backends.web", "no-op", "bkdtg_new"],
      ["tunnel_group_backends.web#deposed", "delete", "bkdtg_old"],
    ]);
    // Killed after the new id was recorded, before the old object was deleted.
    const b = makePlan({
      desired: desired([r]),
      live: both,
      state: state([recordOf(r, "bkdtg_new"), deposed]),
    });
    expect(b.changes.map((c) => [c.address, c.action, c.id])).toEqual([
      ["tunnel_group_backends.web", "no-op", "bkdtg_new"],
      ["tunnel_group_backends.web#deposed", "delete", "bkdtg_old"],
    ]);
    // Killed before the POST: only the old object exists; the deposed and pending records are forgotten.
    const c = makePlan({
      desired: desired([r]),
      live: live([backend("bkdtg_old")]),
      state: state([recordOf(r, "bkdtg_old"), deposed, pending]),
    });
    expect(c.changes.map((x) => [x.address, x.action, x.id])).toEqual([
      ["tunnel_group_backends.web", "no-op", "bkdtg_old"],
    ]);
    expect(c.forget).toEqual(["tunnel_group_backends.web#deposed", "tunnel_group_backends.web#pending"]);
  });

  it("is deterministic: the same inputs give the same plan", () => {
    const d = desired([res("api_keys.b"), res("api_keys.a", { description: "x" })]);
    const a = makePlan({ desired: d, live: live(), state: state() });
    const b = makePlan({ desired: d, live: live(), state: state() });
    expect(a).toEqual(b);
    expect(a.changes.map((c) => c.address)).toEqual(["api_keys.a", "api_keys.b"]);
  });
});

function encodeOther(address: string): string {
  return JSON.stringify({ tgw: { address, stack: "another-stack" } });
}
