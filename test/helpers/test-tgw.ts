/** The `tgw` the tests start: the CLI bundled from the sources by test/global-setup.ts (run with plain `node`). */
import { fileURLToPath } from "node:url";

export const TEST_TGW = fileURLToPath(new URL("../../.test-build/tgw.cjs", import.meta.url));
