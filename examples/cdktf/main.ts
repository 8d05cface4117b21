/**
 * The CDKTF app of this example: `npm run synth` (or `cdktf synth`) writes
 * cdktf.out/stacks/complete-cdktf/cdk.tf.json, which `tgw plan` / `tgw apply -f` reconcile.
 */
import { App } from "cdktf";
import { CompleteStack } from "./stack.js";

const app = new App();
new CompleteStack(app, "complete-cdktf");
app.synth();
