/**
 * The hooks of every kind that has rules beyond its schema; other kinds are handled by the generic
 * builders alone (see ../hooks.ts).
 */
import type { KindDescriptor } from "../../../model/index.js";
import type { KindHooks } from "../hooks.js";
import { abuseReportHooks } from "./abuse-report.js";
import { apiKeyHooks } from "./api-key.js";
import { eventDestinationHooks } from "./event-destination.js";
import { eventSubscriptionHooks } from "./event-subscription.js";
import { responseHeadersHooks } from "./response-headers.js";
import { samlHooks } from "./saml.js";
import { sshCertificateAuthorityHooks } from "./ssh-certificate-authority.js";
import { sshCredentialHooks } from "./ssh-credential.js";
import { sshHostCertificateHooks } from "./ssh-host-certificate.js";
import { tlsCertificateHooks } from "./tls-certificate.js";
import { tunnelGroupBackendHooks } from "./tunnel-group-backend.js";
import { botHooks, userHooks } from "./users.js";

const registry: Readonly<Record<string, KindHooks>> = {
  abuse_report: abuseReportHooks,
  api_key: apiKeyHooks,
  bot: botHooks,
  event_destination: eventDestinationHooks,
  event_subscription: eventSubscriptionHooks,
  response_headers: responseHeadersHooks,
  saml: samlHooks,
  ssh_certificate_authority: sshCertificateAuthorityHooks,
  ssh_credential: sshCredentialHooks,
  ssh_host_certificate: sshHostCertificateHooks,
  tls_certificate: tlsCertificateHooks,
  tunnel_group_backend: tunnelGroupBackendHooks,
  user: userHooks,
};

const none: KindHooks = {};

/** The hooks of a kind (an empty set when the generic behaviour is all there is). */
export function hooksFor(kind: KindDescriptor): KindHooks {
  return registry[kind.kind] ?? none;
}
