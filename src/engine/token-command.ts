/**
 * The token command (docs/ci.md > Tokens): where a new API key's token goes when no file should keep
 * it, as on a CI runner that is thrown away or in a watcher's container. The command, chosen by whoever
 * runs tgw (`TGW_TOKEN_COMMAND`, never the configuration), runs once per new key through `sh -c` with
 * the token and a newline on its standard input, and `TGW_TOKEN_ADDRESS`, `TGW_TOKEN_ID` and
 * `TGW_STACK` in its environment; for example `vault kv put secret/tgw/$TGW_TOKEN_ADDRESS token=-`.
 * The token is never an argument, an environment variable or in a message.
 */
import { spawn } from "node:child_process";

/** How long a token command may run before it counts as failed (ms). */
export const TOKEN_COMMAND_TIMEOUT_MS = 60_000;

/** The key whose token is handed over. */
export interface TokenOwner {
  address: string;
  id: string;
  stack: string;
}

/**
 * Runs `command` with `token` on its standard input.
 * @throws Error naming the command's exit status (or signal, or timeout), never its output: a
 *   command may echo what it read.
 */
export function runTokenCommand(command: string, owner: TokenOwner, token: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", command], {
      env: {
        ...process.env,
        TGW_TOKEN_ADDRESS: owner.address,
        TGW_TOKEN_ID: owner.id,
        TGW_STACK: owner.stack,
      },
      stdio: ["pipe", "ignore", "ignore"],
      timeout: TOKEN_COMMAND_TIMEOUT_MS,
    });
    child.on("error", (err) => reject(new Error(`the token command could not start: ${err.message}`)));
    child.on("close", (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new Error(
            signal
              ? `the token command was ended by ${signal}`
              : `the token command exited with status ${code}`,
          ),
        );
    });
    child.stdin.on("error", () => {}); // a command that does not read its input fails by its status
    child.stdin.end(`${token}\n`);
  });
}
