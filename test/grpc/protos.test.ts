import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadProtos, SERVICE, serviceDefinition } from "../../src/grpc/protos.ts";
import { ROOT } from "../support/sawt.ts";

const FILES = ["proto/sawt/tts/v1/tts.proto", "proto/sawt/asr/v1/asr.proto", "proto/grpc/health/v1/health.proto"];
/** Lines that declare something a reader needs explained: fields, enum values, messages, enums, services, rpcs, oneofs. */
const DECLARATION =
  /^\s*(message|enum|service|rpc|oneof)\s|^\s*(optional\s+|repeated\s+)?[\w.]+(<[\w, ]+>)?\s+\w+\s*=\s*\d+;|^\s*[A-Z_0-9]+\s*=\s*\d+;/;

describe("proto files", () => {
  for (const file of FILES) {
    test(`does comment every declaration when reading ${file}`, async () => {
      const lines = (await Bun.file(join(ROOT, file)).text()).split("\n");
      const undocumented = lines.flatMap((line, i) => {
        if (!DECLARATION.test(line)) return [];
        const previous =
          lines
            .slice(0, i)
            .reverse()
            .find((l) => l.trim() !== "") ?? "";
        return previous.trim().startsWith("//") ? [] : [`${file}:${i + 1}: ${line.trim()}`];
      });
      expect(undocumented).toEqual([]);
    });
  }

  test("does name every speech method in the README when documenting the gRPC interface", async () => {
    const readme = await Bun.file(join(ROOT, "README.md")).text();
    const protos = loadProtos();
    for (const [pkg, name] of [
      [protos.tts, SERVICE.tts],
      [protos.asr, SERVICE.asr],
    ] as const) {
      const short = name.split(".").at(-1)!;
      for (const method of Object.keys(serviceDefinition(pkg, name))) expect(readme).toContain(`${short}/${method}`);
    }
    expect(readme).toMatch(/grpcurl -plaintext localhost:9102 list/);
  });
});
