#!/usr/bin/env node
// Entry point of the published CLI: runs the bundle in dist/tgw/ (scripts/bundle.ts; built by `npm ci`
// via `prepare`).
import "../dist/tgw/main.js";
