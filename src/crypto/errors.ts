/**
 * The one error this library throws on purpose: the input (a PEM, a key, an SSH key line, signing
 * options) is not acceptable. Callers turn it into a 400 (reference server, docs/design.md section 5)
 * or a positioned validation error (config validator). Any other error escaping `src/crypto` is a bug.
 */
export class CryptoInputError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CryptoInputError";
  }
}
