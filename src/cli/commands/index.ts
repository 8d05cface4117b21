/** Every `tgw` command, in the order `tgw --help` lists them. Each module registers one command. */
import type { RegisterCommand } from "../command.js";
import { registerApply } from "./apply.js";
import { registerDestroy } from "./destroy.js";
import { registerEndpoints } from "./endpoints.js";
import { registerImport } from "./import.js";
import { registerPlan } from "./plan.js";
import { registerServe } from "./serve.js";
import { registerState } from "./state.js";
import { registerTerraform } from "./terraform.js";
import { registerValidate } from "./validate.js";
import { registerWatch } from "./watch.js";

export const commands: RegisterCommand[] = [
  registerValidate,
  registerPlan,
  registerApply,
  registerWatch,
  registerDestroy,
  registerImport,
  registerEndpoints,
  registerState,
  registerServe,
  registerTerraform,
];
