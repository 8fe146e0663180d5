import { describe, expect, test } from "bun:test";
import { SERVICE } from "../../src/grpc/proto-files.ts";
import { loadProtos, serviceDefinition } from "../../src/grpc/protos.ts";
import { grpcService, rpcDeclarations } from "../../src/grpc/services.ts";

/** What grpc-js routes by: everything of a method definition but its codecs. */
function routing(definition: Record<string, { path: string; requestStream: boolean; responseStream: boolean }>) {
  return Object.fromEntries(
    Object.entries(definition).map(([name, m]) => [
      name,
      { path: m.path, requestStream: m.requestStream, responseStream: m.responseStream },
    ]),
  );
}

describe("service definitions from declarations", () => {
  for (const schema of Object.keys(SERVICE) as (keyof typeof SERVICE)[]) {
    test(`does route ${SERVICE[schema]} as proto-loader's full parse does`, () => {
      const full = serviceDefinition(loadProtos()[schema], SERVICE[schema]);
      const declared = grpcService(schema);
      expect(routing(declared)).toEqual(routing(full));
      for (const name of Object.keys(full)) expect(declared[name]!.originalName).toBe(full[name]!.originalName);
    });
  }

  test("does encode and decode with proto-loader's codecs", () => {
    const declared = grpcService("tts").Synthesize!;
    const full = serviceDefinition(loadProtos().tts, SERVICE.tts).Synthesize!;
    const request = { text: "مرحبا", voice: "yara", speed: 1.5, encoding: "MULAW" };
    const bytes = declared.requestSerialize(request);
    expect(Buffer.from(bytes)).toEqual(Buffer.from(full.requestSerialize(request)));
    expect(declared.requestDeserialize(bytes)).toEqual(full.requestDeserialize(bytes));
  });

  test("does ignore rpc lines in comments, strings and other services when reading a declaration", () => {
    const source = `syntax = "proto3";
      package a.b; // package x.y;
      option note = "rpc Fake(X) returns (Y)";
      /* service S { rpc Hidden(X) returns (Y); } */
      service Other { rpc Elsewhere(X) returns (Y); }
      service S {
        // rpc Commented(X) returns (Y);
        rpc Plain(a.X) returns (Y);
        rpc Up(stream X) returns (Y) { option deprecated = true; }
        rpc Both ( stream X ) returns ( stream .a.Y );
      }`;
    expect(rpcDeclarations(source, "a.b.S")).toEqual([
      { name: "Plain", requestStream: false, responseStream: false },
      { name: "Up", requestStream: true, responseStream: false },
      { name: "Both", requestStream: true, responseStream: true },
    ]);
    expect(() => rpcDeclarations(source, "c.S")).toThrow("not in package a.b");
  });
});
