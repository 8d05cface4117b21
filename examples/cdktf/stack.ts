/**
 * The objects of examples/complete, written with the constructs of `@tunnelgw/cdktf`: backends, API
 * keys, an SSH credential and host certificate, TLS certificates and IdP metadata read from files,
 * modules on the fixture edges and routes (examples/fixtures.yaml) with references, an IP
 * restriction, event destinations and subscriptions with a sensitive variable.
 */
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ApiKey,
  EventDestination,
  EventSubscription,
  HttpsEdgeMutualTls,
  HttpsEdgeRouteCompression,
  HttpsEdgeRouteOidc,
  HttpsEdgeRouteResponseHeaders,
  HttpsEdgeRouteSaml,
  HttpsEdgeRouteUserAgentFilter,
  IpRestriction,
  SshCredential,
  SshHostCertificate,
  TcpEdgeBackend,
  TlsCertificate,
  TlsEdgeBackend,
  TlsEdgeMutualTls,
  TunnelGroupBackend,
  TunnelgwProvider,
} from "@tunnelgw/cdktf";
import { App, Fn, TerraformStack, TerraformVariable } from "cdktf";
import { Construct } from "constructs";

const KEYS = fileURLToPath(new URL("../keys/", import.meta.url));

/**
 * `file("...")` of a file in examples/keys: Terraform and tgw read the path relative to the stack
 * directory (`<outdir>/stacks/<stack>`), and the file's content never enters cdk.tf.json.
 */
function keyFile(stack: TerraformStack, name: string): string {
  const stackDir = join(App.of(stack).outdir, "stacks", stack.node.id);
  return Fn.file(relative(stackDir, join(KEYS, name)));
}

/** The complete example as one CDKTF stack. */
export class CompleteStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new TunnelgwProvider(this, "tunnelgw", { ownership: "marker" });

    // Secrets come from the environment (TF_VAR_monitoring_api_key); the defaults are examples only.
    const monitoringApiKey = new TerraformVariable(this, "monitoring_api_key", {
      type: "string",
      sensitive: true,
      default: "example-not-a-secret",
    });
    const oidcClientSecret = new TerraformVariable(this, "oidc_client_secret", {
      type: "string",
      sensitive: true,
      default: "example-not-a-secret",
    });

    const web = new TunnelGroupBackend(this, "web", {
      description: "Production web tunnels",
      labels: { env: "prod", app: "web" },
      lifecycle: { preventDestroy: true },
    });
    const db = new TunnelGroupBackend(this, "db", { description: "Database tunnels", labels: { app: "db" } });

    new ApiKey(this, "ci", {
      description: "Deploys from CI",
      metadata: JSON.stringify({ team: "platform", "managed-by": "tgw" }),
      // Written once at creation (mode 0600), relative to this project; never stored in state.
      tokenFile: ".tgw/secrets/ci.token",
    });
    new ApiKey(this, "exporter", {
      description: "Metrics exporter, owned by a bot",
      ownerId: "bot_example01",
      metadata: "exporter v2",
    });
    new SshCredential(this, "deploy", {
      description: "Deploy key, may bind app.example.com only",
      publicKey: keyFile(this, "deploy_ed25519.pub"),
      acl: ["bind:app.example.com", "bind:*.app.example.com", "bind:env=prod"],
    });
    new SshHostCertificate(this, "bastion", {
      description: "Bastion host certificate",
      sshCertificateAuthorityId: "sshca_example01",
      publicKey: keyFile(this, "deploy_ecdsa.pub"),
      principals: ["bastion.example.com"],
      validAfter: "2026-01-01T00:00:00Z",
      validUntil: "2030-01-01T00:00:00Z",
    });
    new IpRestriction(this, "dashboard", {
      description: "Dashboard from the office networks (warnings only)",
      type: "dashboard",
      enforced: false,
      ipPolicyIds: ["ipp_example01", "ipp_example02"],
    });
    new TlsCertificate(this, "app", {
      description: "app.example.com",
      certificatePem: keyFile(this, "app.example.com.crt.pem"),
      privateKeyPem: keyFile(this, "app.example.com.key.pem"),
    });
    new TlsCertificate(this, "api", {
      description: "api.example.com",
      certificatePem: keyFile(this, "api.example.com.crt.pem"),
      privateKeyPem: keyFile(this, "api.example.com.key.pem"),
    });

    new Traffic(this, "traffic", { web, db, oidcClientSecret: oidcClientSecret.stringValue });

    const audit = new EventDestination(this, "audit", {
      description: "Audit stream",
      format: "json",
      target: {
        streamTarget: {
          streamArn: "arn:aws:kinesis:us-east-1:123456789012:stream/tgw-audit",
          auth: { role: { roleArn: "arn:aws:iam::123456789012:role/tgw-events" } },
        },
      },
    });
    const monitoring = new EventDestination(this, "monitoring", {
      description: "Monitoring service",
      format: "json",
      target: { monitoringTarget: { apiKey: monitoringApiKey.stringValue, service: "tunnelgw" } },
    });
    new EventSubscription(this, "changes", {
      description: "Every change to keys, credentials and certificates",
      metadata: JSON.stringify({ owner: "platform" }),
      sources: [
        { type: "api_key_created.v0" },
        { type: "api_key_deleted.v0" },
        { type: "ssh_credential_created.v0" },
        { type: "tls_certificate_created.v0" },
      ],
      destinationIds: [audit.id, monitoring.id],
    });
    new EventSubscription(this, "restrictions", {
      description: "IP restriction changes",
      sources: [{ type: "ip_restriction_updated.v0" }],
      destinationIds: [audit.id],
    });
  }
}

/** The traffic modules of the fixture edges and routes, grouped in a construct of their own. */
class Traffic extends Construct {
  constructor(
    scope: Construct,
    id: string,
    props: { web: TunnelGroupBackend; db: TunnelGroupBackend; oidcClientSecret: string },
  ) {
    super(scope, id);
    const stack = TerraformStack.of(this);
    const app = { edgeId: "edghts_example01" };
    const root = { ...app, routeId: "edghtsrt_example01" }; // path prefix /
    const api = { ...app, routeId: "edghtsrt_example02" }; // path prefix /api

    new HttpsEdgeMutualTls(this, "app_mutual_tls", { ...app, certificateAuthorityIds: ["ca_example01"] });
    new HttpsEdgeRouteSaml(this, "root_saml", {
      ...root,
      idpMetadata: keyFile(stack, "idp-metadata.xml"),
      authorizedGroups: ["engineering"],
    });
    new HttpsEdgeRouteResponseHeaders(this, "root_headers", {
      ...root,
      add: { "Strict-Transport-Security": "max-age=63072000", "X-Frame-Options": "DENY" },
      remove: ["Server"],
    });
    new HttpsEdgeRouteCompression(this, "root_compression", root);
    new HttpsEdgeRouteOidc(this, "api_oidc", {
      ...api,
      issuer: "https://accounts.example.com",
      clientId: "tgw-complete",
      clientSecret: props.oidcClientSecret,
      scopes: ["openid", "email"],
    });
    new HttpsEdgeRouteUserAgentFilter(this, "api_user_agents", {
      ...api,
      allow: ["^curl/"],
      deny: ["[Bb]ot"],
    });

    new TlsEdgeBackend(this, "tls_backend", { edgeId: "edgtls_example01", backendId: props.web.id });
    new TlsEdgeMutualTls(this, "tls_mutual_tls", {
      edgeId: "edgtls_example01",
      certificateAuthorityIds: ["ca_example02"],
    });
    new TcpEdgeBackend(this, "tcp_backend", { edgeId: "edgtcp_example01", backendId: props.db.id });
  }
}
