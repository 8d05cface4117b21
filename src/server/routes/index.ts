/**
 * Every route plugin of the server, one encapsulated plugin per resource (the layout of the official
 * fastify/demo app).
 */
import type { FastifyInstance } from "fastify";
import abuseReports from "./abuse-reports/index.js";
import apiKeys from "./api-keys/index.js";
import debug from "./debug/index.js";
import endpoints from "./endpoints/index.js";
import eventDestinations from "./event-destinations/index.js";
import eventSubscriptions from "./event-subscriptions/index.js";
import ipRestrictions from "./ip-restrictions/index.js";
import modules from "./modules/index.js";
import referenced from "./referenced/index.js";
import sshCredentials from "./ssh-credentials/index.js";
import sshHostCertificates from "./ssh-host-certificates/index.js";
import tlsCertificates from "./tls-certificates/index.js";
import tunnelGroupBackends from "./tunnel-group-backends/index.js";

/** Registers every route plugin. */
export default async function routes(app: FastifyInstance): Promise<void> {
  for (const plugin of [
    apiKeys,
    sshCredentials,
    sshHostCertificates,
    tunnelGroupBackends,
    tlsCertificates,
    endpoints,
    ipRestrictions,
    abuseReports,
    eventDestinations,
    eventSubscriptions,
    modules,
    referenced,
    debug,
  ]) {
    await app.register(plugin);
  }
}
