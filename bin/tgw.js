#!/usr/bin/env node
// Entry point of the published CLI: runs the bundle dist/tgw/tgw.cjs (scripts/bundle.ts) with a V8 code
// cache (src/launch/launch.ts, bundled as dist/tgw/launch.cjs). Both are built by `npm ci` via `prepare`.
// CommonJS (bin/package.json): an ES module entry point would start Node's ES module loader first.
"use strict";
const { join } = require("node:path");

require("../dist/tgw/launch.cjs").launch(
  join(__dirname, "..", "dist", "tgw", "tgw.cjs"),
  process.argv.slice(2),
);
