/**
 * The layers of src/ (docs/design.md section 4), checked by `npm run lint`:
 *   cli -> watch -> engine -> state / client -> model -> crypto;  cli -> config -> model;
 *   the reference server and the Terraform provider beside them, sharing the model and crypto (and, for
 *   the provider, the engine and the client). No import cycles.
 * Lint fails on any violation.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Modules depend on each other one way; a cycle hides which one is the lower layer.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "model-is-the-base",
      severity: "error",
      comment: "src/model (kinds, DesiredState, per-kind facts) imports only src/crypto.",
      from: { path: "^src/model/" },
      to: { path: "^src/", pathNot: "^src/(model|crypto)/|^src/errors\\.ts$" },
    },
    {
      name: "crypto-is-a-leaf",
      severity: "error",
      from: { path: "^src/crypto/" },
      to: { path: "^src/", pathNot: "^src/crypto/|^src/errors\\.ts$" },
    },
    {
      name: "engine-knows-no-source",
      severity: "error",
      comment: "The engine and the sources (YAML, CDKTF) are siblings that meet only in src/model.",
      from: { path: "^src/engine/" },
      to: { path: "^src/(config|cli|watch|server|terraform|cdktf)/" },
    },
    {
      name: "sources-know-no-engine",
      severity: "error",
      comment: "A source only builds a DesiredState; it never plans, stores or calls the API.",
      from: { path: "^src/config/" },
      to: { path: "^src/(engine|cli|watch|server|state|client|terraform)/" },
    },
    {
      name: "state-below-engine",
      severity: "error",
      comment: "The state store imports neither the sources nor the engine.",
      from: { path: "^src/state/" },
      to: { path: "^src/(config|engine|cli|watch|server|terraform|client)/" },
    },
    {
      name: "client-below-engine",
      severity: "error",
      from: { path: "^src/client/" },
      to: { path: "^src/(config|engine|cli|watch|server|terraform|state)/" },
    },
    {
      name: "watch-below-cli",
      severity: "error",
      comment: "Drivers below the CLI never import it: only the CLI entry point prints and exits.",
      from: { path: "^src/watch/" },
      to: { path: "^src/(cli|server|terraform)/" },
    },
    {
      name: "server-apart",
      severity: "error",
      comment:
        "The reference server shares only the model and crypto with the rest (docs/design.md section 4).",
      from: { path: "^src/server/" },
      to: { path: "^src/", pathNot: "^src/(server|model|crypto)/|^src/(errors|cache-dir)\\.ts$" },
    },
    {
      name: "provider-apart",
      severity: "error",
      comment: "The Terraform provider drives the model, engine and client, never the CLI or a source.",
      from: { path: "^src/terraform/" },
      to: { path: "^src/(cli|watch|server|config)/" },
    },
    {
      name: "commands-import-no-command",
      severity: "error",
      comment: "Each command is loaded on demand: no command imports another, nor the list.",
      from: { path: "^src/cli/commands/", pathNot: "^src/cli/commands/index\\.ts$" },
      to: { path: "^src/cli/commands/" },
    },
    {
      name: "only-main-imports-commands",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/cli/main\\.ts$|^src/cli/commands/" },
      to: { path: "^src/cli/commands/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^src/(cdktf/gen)/" },
  },
};
