/**
 * The service definitions the gRPC ports register, built at start-up from the .proto files'
 * `service` declarations alone (paths and streaming flags: a scan of a few kB). The message codecs
 * behind them come from the full parse (./protos.ts, proto-loader), which — module and parse —
 * took ~60 ms of every cold start before the ports could bind (issue #19). It now runs when a codec
 * is first used (the first call pays it once); every message is encoded and decoded by
 * proto-loader exactly as before.
 */
import type * as grpc from "@grpc/grpc-js";
import { readFileSync } from "node:fs";
import { PROTO_FILES, SERVICE, type SchemaName } from "./proto-files.ts";

type Protos = typeof import("./protos.ts");

let protos: Protos | undefined;

/**
 * ./protos.ts, loaded on first use. grpc-js calls codecs synchronously, so this is a synchronous
 * `require` rather than `import()`.
 */
function fullProtos(): Protos {
  protos ??= require("./protos.ts") as Protos;
  return protos;
}

/** One RPC as its service declares it. */
export interface RpcDeclaration {
  readonly name: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
}

/**
 * The RPCs of service `fullName` ("pkg.Service") declared in the .proto `source`. Reads only
 * what a server needs to route calls: the package, the service block and its `rpc` lines
 * (strings and comments are blanked first so neither can look like a declaration).
 */
export function rpcDeclarations(source: string, fullName: string): RpcDeclaration[] {
  const text = source
    .replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""')
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/\/\/[^\n]*/g, " ");
  const pkg = /\bpackage\s+([\w.]+)\s*;/.exec(text)?.[1];
  const dot = fullName.lastIndexOf(".");
  if (pkg !== fullName.slice(0, dot)) throw new Error(`${fullName} is not in package ${pkg ?? "(none)"}`);
  const start = new RegExp(`\\bservice\\s+${fullName.slice(dot + 1)}\\s*\\{`).exec(text);
  if (!start) throw new Error(`${fullName} is not declared`);
  let depth = 1;
  let end = start.index + start[0].length;
  for (; end < text.length && depth > 0; end++) depth += text[end] === "{" ? 1 : text[end] === "}" ? -1 : 0;
  const body = text.slice(start.index + start[0].length, end - 1);
  const rpc = /\brpc\s+(\w+)\s*\(\s*(stream\s+)?[\w.]+\s*\)\s*returns\s*\(\s*(stream\s+)?[\w.]+\s*\)/g;
  return [...body.matchAll(rpc)].map((m) => ({
    name: m[1]!,
    requestStream: m[2] !== undefined,
    responseStream: m[3] !== undefined,
  }));
}

/** lowerCamel of an RPC name, as proto-loader names `originalName` ("SynthesizeOnline" → "synthesizeOnline"). */
function lowerCamel(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/**
 * The definition of service `schema` for `server.addService`: routing from its declaration,
 * each codec handing over to proto-loader's on first use.
 */
export function grpcService(schema: SchemaName): grpc.ServiceDefinition {
  const fullName = SERVICE[schema];
  const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const rpc of rpcDeclarations(readFileSync(PROTO_FILES[schema], "utf8"), fullName)) {
    let parsed: grpc.MethodDefinition<unknown, unknown> | undefined;
    const codecs = () => {
      if (parsed) return parsed;
      const loaded = fullProtos();
      parsed = loaded.serviceDefinition(loaded.loadProtos()[schema], fullName)[rpc.name];
      if (!parsed) throw new Error(`${fullName}/${rpc.name} is not in its parsed schema`);
      return parsed;
    };
    definition[rpc.name] = {
      path: `/${fullName}/${rpc.name}`,
      requestStream: rpc.requestStream,
      responseStream: rpc.responseStream,
      originalName: lowerCamel(rpc.name),
      requestSerialize: (value: unknown) => codecs().requestSerialize(value),
      requestDeserialize: (bytes: Buffer) => codecs().requestDeserialize(bytes),
      responseSerialize: (value: unknown) => codecs().responseSerialize(value),
      responseDeserialize: (bytes: Buffer) => codecs().responseDeserialize(bytes),
    };
  }
  return definition;
}
