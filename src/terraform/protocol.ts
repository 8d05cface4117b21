/**
 * The plugin protocol's messages and services (our own text of Terraform's plugin protocol 6 and
 * go-plugin's services, ./protocol/*.proto), read from the descriptor `npm run gen` builds from those
 * files (./protocol.gen.json, scripts/gen-protocol.ts) with `protobufjs/light`, which has no .proto
 * parser. Messages are plain objects: field names as in the .proto files, enums as names, 64-bit
 * integers as numbers, bytes as Buffers, unset fields with their defaults, a oneof's set member named
 * by the oneof.
 */
import protobuf from "protobufjs/light.js";
import descriptor from "./protocol.gen.json" with { type: "json" };

/** A message type's wire form: protobuf bytes to a plain object and back. */
export interface Codec {
  /**
   * @throws Error when the bytes are not a message of the type.
   */
  decode(bytes: Uint8Array): Record<string, unknown>;
  /**
   * Encodes a plain object (enums by name or number, bytes as Buffers or Uint8Arrays).
   * @throws Error when a field cannot be converted to its type.
   */
  encode(message: object): Uint8Array;
}

/** One method of a service, as the descriptor declares it. */
export interface ProtocolMethod {
  /** The method's name (`GetProviderSchema`). */
  name: string;
  /** Its gRPC path, `/<package>.<Service>/<Method>`. */
  path: string;
  /** The method streams its responses (go-plugin's `StreamStdio`); else it is unary. */
  responseStream: boolean;
  request: Codec;
  response: Codec;
}

/** The services the plugin serves, by full name. */
export type ProtocolService =
  | "tfplugin6.Provider"
  | "plugin.GRPCController"
  | "plugin.GRPCStdio"
  | "grpc.health.v1.Health";

const CONVERSION: protobuf.IConversionOptions = {
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

let root: protobuf.Root | undefined;

/** The descriptor's types, resolved (once). */
function protocolRoot(): protobuf.Root {
  if (!root) {
    root = protobuf.Root.fromJSON(descriptor as protobuf.INamespace);
    root.resolveAll();
  }
  return root;
}

/** The codec of a message type. */
function typeCodec(type: protobuf.Type): Codec {
  return {
    decode: (bytes) => type.toObject(type.decode(bytes), CONVERSION),
    encode: (message) => type.encode(type.fromObject(message)).finish(),
  };
}

/**
 * The codec of one message type, by full name (`tfplugin6.GetProviderSchema.Response`).
 * @throws Error when the descriptor has no such type.
 */
export function codec(typeName: string): Codec {
  return typeCodec(protocolRoot().lookupType(typeName));
}

/**
 * The methods of `service`, in the descriptor's order.
 * @throws Error when the descriptor has no such service (a stale ./protocol.gen.json).
 */
export function protocolMethods(service: ProtocolService): ProtocolMethod[] {
  return protocolRoot()
    .lookupService(service)
    .methodsArray.map((m) => ({
      name: m.name,
      path: `/${service}/${m.name}`,
      responseStream: Boolean(m.responseStream),
      request: typeCodec(m.resolvedRequestType as protobuf.Type),
      response: typeCodec(m.resolvedResponseType as protobuf.Type),
    }));
}
