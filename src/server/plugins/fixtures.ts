/**
 * Loads the fixtures file (if any) into the store at start, before authentication sets up the admin
 * (so a fixture user with `admin: true` becomes the owner of the bootstrap key). See ../fixtures.ts.
 */
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { loadFixtures } from "../fixtures.js";

/** Options of this plugin (registered by ../app.ts). */
export interface FixturesPluginOptions {
  /** Path of the fixtures YAML file. */
  fixtures?: string | undefined;
}

async function fixturesPlugin(app: FastifyInstance, opts: FixturesPluginOptions): Promise<void> {
  if (opts.fixtures !== undefined) await loadFixtures(app, opts.fixtures);
}

export default fp(fixturesPlugin, { name: "tgw-fixtures", dependencies: ["tgw-store", "tgw-validation"] });
