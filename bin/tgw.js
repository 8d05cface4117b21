#!/usr/bin/env node
// Entry point of the published CLI: runs the bundle dist/tgw/tgw.cjs (scripts/bundle.ts) with a V8 code
// cache (src/cli/launch.ts). Both are built by `npm ci` via `prepare`.
import { fileURLToPath } from "node:url";
import { launch } from "../dist/cli/launch.js";

launch(fileURLToPath(new URL("../dist/tgw/tgw.cjs", import.meta.url)), process.argv.slice(2));
