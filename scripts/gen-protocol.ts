/**
 * Builds the text of src/terraform/protocol.gen.json (see scripts/gen.ts): the descriptor of the
 * plugin protocol's .proto files (src/terraform/protocol/: Terraform's tfplugin6, go-plugin's services,
 * the gRPC health check) in protobufjs's JSON form, field names as written (`keepCase`), no comments.
 * The provider reads it with `protobufjs/light` (src/terraform/protocol.ts), which has no .proto parser.
 */
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

/** The .proto files, relative to src/terraform/protocol/. */
export const PROTO_FILES = ["provider.proto", "go-plugin.proto", "health.proto"];

/**
 * The descriptor JSON (two-space indented, with a final newline).
 * @throws Error when a .proto file does not parse or names a type that does not exist.
 */
export function protocolDescriptorText(): string {
  const dir = fileURLToPath(new URL("../src/terraform/protocol/", import.meta.url));
  const root = new protobuf.Root().loadSync(
    PROTO_FILES.map((f) => dir + f),
    { keepCase: true },
  );
  root.resolveAll();
  return `${JSON.stringify(root.toJSON({ keepComments: false }), null, 2)}\n`;
}
