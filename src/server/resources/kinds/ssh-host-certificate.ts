/**
 * SSH host certificates (docs/api.md > SSH host certificate): a real OpenSSH host certificate signed by
 * the SSH certificate authority's private key (kept server-side), verifiable with `ssh-keygen -L`.
 * `valid_after` defaults to now, `valid_until` to one year after creation (docs/api.md); both are stored
 * as the whole seconds the certificate holds. The certificate's key id is the certificate's id.
 */
import { CryptoInputError } from "../../../crypto/errors.js";
import { parseSshPublicKey } from "../../../crypto/ssh.js";
import { signSshHostCertificate } from "../../../crypto/ssh-certificate.js";
import { problems } from "../../errors.js";
import { toTimestamp } from "../../ids.js";
import type { KindHooks } from "../hooks.js";

const YEAR_MS = 365 * 24 * 3600 * 1000;

/** The rules of this file, as hooks of the generic builders. */
export const sshHostCertificateHooks: KindHooks = {
  create(input, ctx, id) {
    const authority = ctx.store.get(String(input.ssh_certificate_authority_id));
    const caPrivateKey = authority?.body.private_key;
    if (typeof caPrivateKey !== "string") throw new Error("SSH certificate authority without a private key");
    const now = Date.now();
    const validAfter = new Date(typeof input.valid_after === "string" ? input.valid_after : now);
    const validBefore = new Date(typeof input.valid_until === "string" ? input.valid_until : now + YEAR_MS);
    if (validBefore.getTime() <= validAfter.getTime()) {
      throw problems.invalidValue(
        input.valid_until === undefined
          ? "valid_after is more than a year ahead: give valid_until too (it defaults to one year after creation)"
          : "valid_until must be later than valid_after",
      );
    }
    const publicKey = String(input.public_key).trim();
    const principals = (input.principals as string[] | undefined) ?? [];
    let certificate: string;
    try {
      certificate = signSshHostCertificate({
        caPrivateKey,
        publicKey,
        principals,
        validAfter,
        validBefore,
        keyId: id,
      });
    } catch (err) {
      if (err instanceof CryptoInputError) throw problems.invalidValue(err.message);
      throw err;
    }
    const seconds = (d: Date) => toTimestamp(new Date(Math.floor(d.getTime() / 1000) * 1000));
    return {
      body: {
        ...input,
        public_key: publicKey,
        key_type: parseSshPublicKey(publicKey).keyType,
        principals,
        valid_after: seconds(validAfter),
        valid_until: seconds(validBefore),
        certificate,
      },
    };
  },
};
