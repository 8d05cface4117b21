/**
 * API writes fenced by the state lock (src/engine/fencing.ts), through the real client: the lock is
 * confirmed before each write and again before each of its attempts, so a write that waited (for a
 * rate-limit slot, or a retry's delay) while the lock was lost never goes out; and one whose
 * confirmation ran out before its bytes reached the socket (the process frozen in between) is held
 * back and confirmed again.
 */
import { expect, it } from "vitest";
import { fencedApi } from "../../src/engine/fencing.js";
import { StateLockLostError } from "../../src/state/errors.js";
import { json, send, sequence, useHarness } from "../client/server.js";

const harness = useHarness({ apiKey: "k", retry: { baseDelayMs: 1, maxDelayMs: 1 } });

/**
 * A store's fencing whose lock is lost once `lose()` was called. With `frozen`, the first confirmation
 * is found run out right before its send, as after a freeze between the check and the send (`lost`:
 * and the lock was lost during it).
 */
function lock(frozen?: "held" | "lost") {
  const state = { lost: false, asked: 0, frozen };
  return {
    state,
    lose: () => {
      state.lost = true;
    },
    fencing: {
      assertLockHeld: async () => {
        state.asked++;
        if (state.lost) throw new StateLockLostError(".tgw/state.json", "taken over in this test");
      },
      lockStillConfirmed: () => {
        if (state.frozen === undefined) return !state.lost;
        state.lost = state.frozen === "lost";
        state.frozen = undefined;
        return false;
      },
    },
  };
}

it("does not send a write that waited for a rate-limit slot while the lock was lost", async () => {
  const server = await harness.server(json(201, { id: "ak_1" }));
  const client = harness.client({ baseUrl: server.url, rateLimit: { requests: 1, windowMs: 200 } });
  const held = lock();
  const api = fencedApi(client, held.fencing);
  await api.post("/api_keys", { description: "first" });
  // The second create is checked at once (held), then waits for the limiter's slot: lost meanwhile.
  const second = api.post("/api_keys", { description: "second" });
  held.lose();
  await expect(second).rejects.toBeInstanceOf(StateLockLostError);
  expect(server.seen.map((s) => JSON.parse(s.body).description)).toEqual(["first"]);
  // Reads are not fenced.
  await expect(api.get("/api_keys/ak_1")).resolves.toEqual({ id: "ak_1" });
});

it("checks again before a retry: a write retried after a 429 is not sent once the lock is lost", async () => {
  const held = lock();
  const server = await harness.server(
    sequence(
      (_req, res) => {
        held.lose();
        send(res, 429, { msg: "slow down" }, { "retry-after": "0" });
      },
      json(201, { id: "ak_1" }),
    ),
  );
  const api = fencedApi(harness.client({ baseUrl: server.url }), held.fencing);
  await expect(api.patch("/api_keys/ak_1", { description: "x" })).rejects.toBeInstanceOf(StateLockLostError);
  expect(server.seen).toHaveLength(1);
  expect(held.state.asked).toBe(3);
});

it("holds back an attempt whose confirmation ran out before it reached the socket, and confirms again", async () => {
  const server = await harness.server(json(201, { id: "ak_1" }));
  const client = harness.client({ baseUrl: server.url });
  // Found run out right before the send: held back, confirmed again (held), then sent once.
  const held = lock("held");
  await expect(fencedApi(client, held.fencing).post("/api_keys", {})).resolves.toEqual({ id: "ak_1" });
  expect(server.seen).toHaveLength(1);
  expect(held.state.asked).toBe(3);
  // Lost meanwhile: the confirmation asked again fails, and nothing is sent.
  const lost = lock("lost");
  await expect(fencedApi(client, lost.fencing).post("/api_keys", {})).rejects.toBeInstanceOf(
    StateLockLostError,
  );
  expect(server.seen).toHaveLength(1);
  expect(lost.state.asked).toBe(3);
});
