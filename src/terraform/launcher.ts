/**
 * The installed provider's entry point (`launch.cjs` in its folder, scripts/bundle.ts): runs
 * `provider.cjs` beside it through the launcher the CLI uses (src/launch/launch.ts), with a V8 code
 * cache in the user's cache directory, so that Terraform's three or four starts of the provider per
 * plan or apply do not each parse and compile the whole bundle again (issue 27 §2.4).
 */
import { dirname, join } from "node:path";
import { launch } from "../launch/launch.js";

// `process.argv[1]` is this script: the bundle is beside it.
launch(join(dirname(process.argv[1] ?? "."), "provider.cjs"), process.argv.slice(2));
