/**
 * API keys (docs/api.md > API key; docs/design.md section 5 > Auth): the token is made here, returned in
 * the create response only (null in every other response) and stored only as its SHA-256.
 */
import { newToken, tokenHash } from "../../ids.js";
import type { KindHooks } from "../hooks.js";

/** The rules of this file, as hooks of the generic builders. */
export const apiKeyHooks: KindHooks = {
  create(input, ctx) {
    const token = newToken();
    return {
      body: input,
      write: (obj) => ctx.store.putTokenHash(obj.id, tokenHash(token)),
      response: { token },
    };
  },
  present: () => ({ token: null }),
  presentOfObjectAlone: true,
};
