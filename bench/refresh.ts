/**
 * Benchmark of what a plan reads in a big account (issue 30 §2): the requests `tgw plan` sends to
 * refresh a stack of one API key in an account holding 1,113 keys (goal: at most 2, where listing the
 * kind takes 12 pages), and how many a plan sends right after the apply that created the key (the
 * kind is listed once more then: a duplicate made meanwhile by another workspace must show).
 *
 *   npm run build && npx tsx bench/refresh.ts [--keys 1113] [--vs OTHER/bin/tgw.js]
 *
 * The reference server runs in this process; each build gets its own stack directory and runs
 * `apply`, `plan`, `apply`, `plan` (both applies with `--auto-approve`); the server's request log
 * counts each command's requests. With `--vs`, the other build runs the same commands on its own
 * stack, side by side.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pLimit from "p-limit";
import { type RunningServer, startServer } from "../src/server/server.js";

const TOKEN = "bench-refresh-token-0123456789";
const THIS_BUILD = fileURLToPath(new URL("../bin/tgw.js", import.meta.url));
const GOAL = 2;

/** Runs `node bin args...` in `cwd` against `url`; rejects unless it exits 0. */
function tgw(bin: string, args: string[], cwd: string, url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args, "-f", "."], {
      cwd,
      env: { ...process.env, NO_COLOR: "1", CI: "", TGW_API_URL: url, TGW_API_KEY: TOKEN },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`tgw ${args.join(" ")} exited ${code}: ${err}`)),
    );
  });
}

/** The requests of `bin`'s apply, plan, apply, plan on a stack of one key, by command. */
async function measure(server: RunningServer, bin: string, stack: string): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), "tgw-bench-refresh-"));
  try {
    writeFileSync(
      join(dir, "tgw.yaml"),
      `stack: ${stack}\napi_keys:\n  ci: {description: the stack's key}\n`,
    );
    const counts: number[] = [];
    for (const args of [["apply", "--auto-approve"], ["plan"], ["apply", "--auto-approve"], ["plan"]]) {
      const before = server.app.recordedRequests.length;
      await tgw(bin, args, dir, server.url);
      counts.push(server.app.recordedRequests.length - before);
    }
    return counts;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { keys: { type: "string" }, vs: { type: "string" } } });
  const total = Number(values.keys ?? 1113);
  const server = await startServer({ bootstrapToken: TOKEN, logger: false });
  try {
    const limit = pLimit(8);
    // The stack's own key is one of `total`: the others belong to no stack.
    await Promise.all(
      Array.from({ length: total - 1 }, (_, i) =>
        limit(async () => {
          const res = await fetch(`${server.url}/api_keys`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${TOKEN}`,
              "content-type": "application/json",
              "service-version": "2",
            },
            body: JSON.stringify({ description: `not managed ${i}` }),
          });
          if (res.status !== 201) throw new Error(`seeding: POST /api_keys answered ${res.status}`);
        }),
      ),
    );
    const rows: [string, number[]][] = [["this build", await measure(server, THIS_BUILD, "bench-a")]];
    if (values.vs) rows.push([values.vs, await measure(server, values.vs, "bench-b")]);
    process.stdout.write(
      `requests per command, one API key in an account of ${total.toLocaleString("en-US")} keys:\n`,
    );
    for (const [name, [apply1, plan1, apply2, plan2]] of rows) {
      process.stdout.write(
        `  ${name}: apply ${apply1}, plan after it ${plan1}, apply again ${apply2}, plan ${plan2}` +
          (name === "this build" ? ` (goal <= ${GOAL})` : "") +
          "\n",
      );
    }
  } finally {
    await server.close();
  }
}

await main();
