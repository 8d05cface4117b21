/**
 * The status page in a real browser: headless Chromium (Debian's `chromium`), driven by
 * puppeteer-core, loads `GET /` from the health port of a running `tgw watch` and reads what it shows
 * as the page refreshes itself: resources in sync with their ids, then a resource added by an edit,
 * then a change made by hand through the API shown as drifted and healed. No secret (the API key, a
 * created key's token) is on the page. A screenshot is kept in test-artifacts/ (printed). And markup in
 * the data (an address, a message) is shown as text, never made an element.
 * Without `chromium` on the PATH the test is skipped, and fails under `CI=true` saying so.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHealthServer } from "../../src/watch/health.js";
import { initialStatus } from "../../src/watch/status.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { callApi, keysDescribed, scratchConfig, startWatch } from "./child.js";

/** The little of the DOM the functions run in the page use (the type check has no DOM library). */
interface PageElement {
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): PageElement | null;
}
declare const document: {
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
  documentElement: { outerHTML: string };
  body: { textContent: string | null };
};

const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));

/** The Chromium executable, or undefined (skip) when it is not on the PATH; throws under CI=true. */
function findChromium(): string | undefined {
  const which = spawnSync("which", ["chromium"], { encoding: "utf8" });
  const path = which.status === 0 ? which.stdout.trim() : "";
  if (path === "" && process.env.CI === "true") {
    throw new Error(
      "chromium is missing: the status page's browser test needs it on the PATH (apt-get install -y chromium; .ci/run installs it)",
    );
  }
  return path || undefined;
}

const chromium = findChromium();

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const config = (keys: string[]) =>
  `stack: status-page\napi_keys:\n${keys.map((k) => `  ${k}:\n    description: status-${k}\n`).join("")}`;

/** Every token file under `dir` (the tokens of the keys the watcher created). */
function tokenFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(".token")) found.push(join(entry.parentPath, entry.name));
  }
  return found;
}

/** Waits until the row of `address` shows `sync` and an id (generous: reconciles run in a child). */
async function waitForRow(page: Page, address: string, sync: string): Promise<{ id: string; sync: string }> {
  await page.waitForFunction(
    (a, s) => {
      const row = document.querySelector(`tr[data-address="${a}"]`);
      const id = row?.querySelector(".id")?.textContent ?? "";
      return row?.getAttribute("data-sync") === s && id !== "" && id !== "not created";
    },
    { timeout: 60_000, polling: 100 },
    address,
    sync,
  );
  return page.$eval(`tr[data-address="${address}"]`, (row) => ({
    id: row.querySelector(".id")?.textContent ?? "",
    sync: row.querySelector(".sync")?.textContent ?? "",
  }));
}

/** The text of the summary's field `name` (Stack, Health, Role, State serial...). */
const field = (page: Page, name: string) =>
  page.$eval(`dd[data-field="${name}"]`, (dd) => dd.textContent ?? "");

describe.skipIf(chromium === undefined)("status page in Chromium", () => {
  it("shows resources in sync, a resource an edit adds, and a drift healed; no secret", async () => {
    const scratch = scratchConfig("tgw-watch-status-page-", { "config/main.yaml": config(["a", "b"]) });
    const w = startWatch({
      dir: scratch.dir,
      api: server,
      args: ["--log-format", "json", "--interval", "1s", "--health-port", "0"],
    });
    let browser: Browser | undefined;
    try {
      await w.waitForEvent((e) => e.event === "reconcile_succeeded", { timeoutMs: 30_000 });
      const pageUrl = String(w.events()[0]?.healthUrl).replace(/\/healthz$/, "/");
      browser = await puppeteer.launch({
        executablePath: chromium as string,
        args: ["--no-sandbox", "--headless=new"],
      });
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on("pageerror", (err) => problems.push(`page error: ${String(err)}`));
      page.on("console", (m) => {
        if (m.type() === "error") problems.push(`console: ${m.text()}`);
      });
      await page.setViewport({ width: 1400, height: 900 });
      await page.goto(pageUrl, { waitUntil: "load" });

      // Resources in sync, with the ids the API gave them.
      const [liveA] = await keysDescribed(server, "status-a");
      expect((await waitForRow(page, "api_keys.a", "in_sync")).id).toBe(liveA?.id);
      await waitForRow(page, "api_keys.b", "in_sync");
      expect(await field(page, "Stack")).toBe("status-page");
      expect(await field(page, "Health")).toBe("ok");
      expect(await field(page, "Role")).toMatch(/^leader/);
      const serialBefore = Number(await field(page, "State serial"));
      expect(await page.$$eval('tr[data-result="succeeded"]', (rows) => rows.length)).toBeGreaterThan(0);

      // An edit: the new resource, in sync with its id, a newer state, and the reconcile that created it.
      scratch.write("config/main.yaml", config(["a", "b", "c"]));
      const { id: idC } = await waitForRow(page, "api_keys.c", "in_sync");
      expect(idC).toBe((await keysDescribed(server, "status-c"))[0]?.id);
      expect(Number(await field(page, "State serial"))).toBeGreaterThan(serialBefore);
      // The create is in the reconcile the edit caused, or in an interval one that read the edit
      // before the file watcher reported it (the interval is 1 s); the file change is listed either way.
      await page.waitForFunction(
        () => {
          const rows = [...document.querySelectorAll('tr[data-result="succeeded"]')];
          return (
            rows.some((r) => r.textContent?.includes("+1 create")) &&
            rows.some((r) => r.textContent?.includes("file change: config/main.yaml"))
          );
        },
        { timeout: 60_000, polling: 100 },
      );

      // Drift: key b changed by hand is reverted by the next interval reconcile: drifted, healed.
      const [liveB] = await keysDescribed(server, "status-b");
      expect(
        (await callApi(server, "PATCH", `/api_keys/${liveB?.id}`, { description: "by hand" })).status,
      ).toBe(200);
      expect((await waitForRow(page, "api_keys.b", "healed")).sync).toBe("drifted, healed");
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('tr[data-result="succeeded"]')].some(
            (r) => r.textContent?.includes("interval") && r.textContent.includes("1 drift"),
          ),
        { timeout: 60_000, polling: 100 },
      );
      expect(await page.$eval('tr[data-address="api_keys.a"]', (r) => r.getAttribute("data-sync"))).toBe(
        "in_sync",
      );

      // No secret: neither the API key the watcher uses nor a created key's token is on the page.
      const text = await page.evaluate(() => document.documentElement.outerHTML);
      const json = await (await fetch(new URL("status.json", pageUrl))).text();
      const secrets = [server.token, ...tokenFiles(scratch.root).map((f) => readFileSync(f, "utf8").trim())];
      expect(secrets.length).toBeGreaterThan(1);
      for (const secret of secrets) {
        expect(text).not.toContain(secret);
        expect(json).not.toContain(secret);
      }
      expect(problems).toEqual([]);

      mkdirSync(ARTIFACTS, { recursive: true });
      const shot = join(ARTIFACTS, "status-page.png");
      await page.screenshot({ path: shot, fullPage: true });
      console.log(`status page screenshot: ${shot}`);
      expect(await w.stop()).toBe(0);
    } finally {
      await browser?.close();
      await w.stop();
      scratch.cleanup();
    }
  });

  it("shows markup in the data as text: nothing it holds becomes an element", async () => {
    const markup = '<img src=x onerror="document.title=1">';
    const health = await startHealthServer({
      host: "127.0.0.1",
      port: 0,
      status: initialStatus,
      page: () => ({
        stack: markup,
        state: null,
        resources: [
          {
            address: `api_keys.${markup}`,
            id: null,
            sync: "failing",
            planned: null,
            lastChange: null,
            error: markup,
          },
        ],
        reconciles: [],
        health: { ...initialStatus(), lastError: { at: "now", kind: "reconcile", message: markup } },
      }),
    });
    const browser = await puppeteer.launch({
      executablePath: chromium as string,
      args: ["--no-sandbox", "--headless=new"],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${health.url}/`, { waitUntil: "load" });
      await page.waitForFunction(() => document.querySelector("tr[data-sync=failing]") !== null, {
        timeout: 30_000,
      });
      expect(await page.$$eval("img", (imgs) => imgs.length)).toBe(0);
      expect(await page.title()).toBe("tgw watch");
      const text = await page.evaluate(() => document.body.textContent ?? "");
      expect(text.split(markup).length - 1).toBe(4);
    } finally {
      await browser.close();
      await health.close();
    }
  });
});
