/**
 * `npm run prepare` (run by `npm ci`, and by `npx tgw` in a checkout: npx links the checkout into its
 * cache and prepares it; `npm pack` runs it too, and packages/cdktf runs it before it is packed): builds
 * dist/ and packages/cdktf/dist/ unless they were built from these very sources. The sources'
 * digest (src/, schemas/, the build scripts and configuration, the lockfile) is kept in
 * dist/.build-digest, so the first `npx tgw` after `npm ci` starts at once instead of rebuilding for
 * 13 to 21 s without a word; a build says what it is doing.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const INPUTS = [
  "src",
  "schemas",
  "scripts/bundle.ts",
  "tsconfig.json",
  "tsconfig.build.json",
  "package.json",
  "package-lock.json",
];
const STAMP = join(ROOT, "dist", ".build-digest");

/** SHA-256 over the path and content of every input file, in sorted order. */
function digest() {
  const hash = createHash("sha256");
  const files = [];
  for (const input of INPUTS) {
    const path = join(ROOT, input);
    if (!existsSync(path)) continue;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path, { recursive: true })) {
        const file = join(path, String(name));
        if (statSync(file).isFile()) files.push(file);
      }
    } else files.push(path);
  }
  for (const file of files.sort())
    hash
      .update(`${relative(ROOT, file)}\0`)
      .update(readFileSync(file))
      .update("\0");
  return hash.digest("hex");
}

const wanted = digest();
const built = existsSync(STAMP) ? readFileSync(STAMP, "utf8").trim() : "";
const OUTPUTS = [join(ROOT, "dist", "tgw", "tgw.cjs"), join(ROOT, "packages", "cdktf", "dist", "index.js")];
if (built !== wanted || !OUTPUTS.every((file) => existsSync(file))) {
  process.stderr.write("tgw: building dist/ from the sources (tsc, then the bundle; about 15 s)...\n");
  execFileSync(process.platform === "win32" ? "npm.cmd" : "npm", ["run", "build", "--silent"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  writeFileSync(STAMP, `${wanted}\n`);
}
