# The configuration of examples/complete, written for Terraform with terraform-provider-tunnelgw:
# every collection and every module. The edges, routes, certificate authorities, SSH certificate
# authority and IP policies are the fixtures of examples/fixtures.yaml. See docs/terraform.md.
#
#   tgw terraform install            # once: the provider into a local mirror
#   export TGW_API_URL=... TGW_API_KEY=...
#   terraform init && terraform apply

terraform {
  required_version = ">= 1.11"
  required_providers {
    tunnelgw = {
      source  = "tunnelgw/tunnelgw"
      version = "0.1.0"
    }
  }
}

# api_url and api_key default to TGW_API_URL and TGW_API_KEY.
provider "tunnelgw" {}

locals {
  keys     = "${path.module}/../keys"
  prod_web = { env = "prod", app = "web" }
}

# --- main.yaml -----------------------------------------------------------------------------------

resource "tunnelgw_tunnel_group_backend" "web" {
  description = "Production web tunnels"
  labels      = local.prod_web
  # examples/complete sets prevent_destroy; in Terraform that is lifecycle { prevent_destroy = true },
  # left out here so that `terraform destroy` of the example works.
}

resource "tunnelgw_tunnel_group_backend" "db" {
  description = "Database tunnels"
  labels      = { app = "db" }
}

# --- access.yaml: who may use the API and the SSH gateway ------------------------------------------

resource "tunnelgw_api_key" "ci" {
  description = "Deploys from CI"
  metadata    = jsonencode({ team = "platform", "managed-by" = "tgw" })
  # The token is the sensitive attribute `token`, set once at creation:
  #   terraform output -raw ci_token
}

output "ci_token" {
  value     = tunnelgw_api_key.ci.token
  sensitive = true
}

resource "tunnelgw_api_key" "exporter" {
  description = "Metrics exporter, owned by a bot"
  owner_id    = "bot_example01"
  metadata    = "exporter v2"
}

resource "tunnelgw_ssh_credential" "deploy" {
  description = "Deploy key, may bind app.example.com only"
  public_key  = file("${local.keys}/deploy_ed25519.pub")
  acl         = ["bind:app.example.com", "bind:*.app.example.com", "bind:env=prod"]
}

resource "tunnelgw_ssh_host_certificate" "bastion" {
  description                  = "Bastion host certificate"
  ssh_certificate_authority_id = "sshca_example01"
  public_key                   = file("${local.keys}/deploy_ecdsa.pub")
  principals                   = ["bastion.example.com"]
  valid_after                  = "2026-01-01T00:00:00Z"
  valid_until                  = "2030-01-01T00:00:00Z"
}

resource "tunnelgw_ip_restriction" "dashboard" {
  description   = "Dashboard from the office networks (warnings only)"
  type          = "dashboard"
  enforced      = false
  ip_policy_ids = ["ipp_example01", "ipp_example02"]
}

# --- events.yaml: where events go, and which ones -----------------------------------------------
# Example credentials only: pass real ones as variables.

resource "tunnelgw_event_destination" "audit" {
  description = "Audit stream"
  format      = "json"
  target = {
    stream_target = {
      stream_arn = "arn:aws:kinesis:us-east-1:123456789012:stream/tgw-audit"
      auth       = { role = { role_arn = "arn:aws:iam::123456789012:role/tgw-events" } }
    }
  }
}

resource "tunnelgw_event_destination" "monitoring" {
  description = "Monitoring service"
  format      = "json"
  target = {
    monitoring_target = {
      api_key = "example-not-a-secret"
      service = "tunnelgw"
    }
  }
}

resource "tunnelgw_event_subscription" "changes" {
  description = "Every change to keys, credentials and certificates"
  metadata    = jsonencode({ owner = "platform" })
  sources = [
    { type = "api_key_created.v0" },
    { type = "api_key_deleted.v0" },
    { type = "ssh_credential_created.v0" },
    { type = "tls_certificate_created.v0" },
  ]
  destination_ids = [
    tunnelgw_event_destination.audit.id,
    tunnelgw_event_destination.monitoring.id,
  ]
}

resource "tunnelgw_event_subscription" "restrictions" {
  description     = "IP restriction changes"
  sources         = [{ type = "ip_restriction_updated.v0" }]
  destination_ids = [tunnelgw_event_destination.audit.id]
}

# --- traffic.yaml: certificates and the modules of the fixture edges and routes ------------------

resource "tunnelgw_tls_certificate" "app" {
  description     = "app.example.com"
  certificate_pem = file("${local.keys}/app.example.com.crt.pem")
  # write_only (Terraform 1.11): sent at creation, never stored in the state.
  private_key_pem = file("${local.keys}/app.example.com.key.pem")
}

resource "tunnelgw_tls_certificate" "api" {
  description     = "api.example.com"
  certificate_pem = file("${local.keys}/api.example.com.crt.pem")
  private_key_pem = file("${local.keys}/api.example.com.key.pem")
}

# edghts_example01: app.example.com:443
resource "tunnelgw_https_edge_mutual_tls" "app" {
  edge_id                   = "edghts_example01"
  certificate_authority_ids = ["ca_example01"]
}

# edghtsrt_example01: path prefix /
resource "tunnelgw_https_edge_route_saml" "root" {
  edge_id           = "edghts_example01"
  route_id          = "edghtsrt_example01"
  idp_metadata      = file("${local.keys}/idp-metadata.xml")
  authorized_groups = ["engineering"]
}

resource "tunnelgw_https_edge_route_response_headers" "root" {
  edge_id  = "edghts_example01"
  route_id = "edghtsrt_example01"
  add = {
    "Strict-Transport-Security" = "max-age=63072000"
    "X-Frame-Options"           = "DENY"
  }
  remove = ["Server"]
}

resource "tunnelgw_https_edge_route_compression" "root" {
  edge_id  = "edghts_example01"
  route_id = "edghtsrt_example01"
}

# edghtsrt_example02: path prefix /api
resource "tunnelgw_https_edge_route_oidc" "api" {
  edge_id       = "edghts_example01"
  route_id      = "edghtsrt_example02"
  issuer        = "https://accounts.example.com"
  client_id     = "tgw-complete"
  client_secret = "example-not-a-secret"
  scopes        = ["openid", "email"]
}

resource "tunnelgw_https_edge_route_user_agent_filter" "api" {
  edge_id  = "edghts_example01"
  route_id = "edghtsrt_example02"
  allow    = ["^curl/"]
  deny     = ["[Bb]ot"]
}

# edgtls_example01: tls.example.com:443
resource "tunnelgw_tls_edge_backend" "tls" {
  edge_id    = "edgtls_example01"
  backend_id = tunnelgw_tunnel_group_backend.web.id
}

resource "tunnelgw_tls_edge_mutual_tls" "tls" {
  edge_id                   = "edgtls_example01"
  certificate_authority_ids = ["ca_example02"]
}

# edgtcp_example01: 1.tcp.example.com:20001
resource "tunnelgw_tcp_edge_backend" "tcp" {
  edge_id    = "edgtcp_example01"
  backend_id = tunnelgw_tunnel_group_backend.db.id
}

# Referenced-only objects and the endpoint list are data sources.
data "tunnelgw_https_edge" "app" {
  id = "edghts_example01"
}

data "tunnelgw_endpoints" "all" {}

output "app_hostports" {
  value = data.tunnelgw_https_edge.app.hostports
}
