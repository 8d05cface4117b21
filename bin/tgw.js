#!/usr/bin/env node
// Entry point of the published CLI: runs the compiled code in dist/ (built by `npm ci` via `prepare`).
import "../dist/cli/main.js";
