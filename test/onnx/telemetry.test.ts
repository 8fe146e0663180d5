/**
 * ONNX Runtime 1.29+ sends telemetry from Linux (1DS events to mobile.events.data.microsoft.com),
 * which an air-gapped appliance must never do (issue 39: the door fuzz's socket watch caught the
 * DNS lookups). Sawt sets ORT_DISABLE_TELEMETRY=1 in the C environment before the library loads
 * (src/onnx/ort-native.ts). Checked on the real server under strace: through start-up, synthesis
 * and recognition, the server and its threads never try to connect anywhere but loopback. Before
 * the fix the same run tried the machine's DNS server within seconds (and, inside the suite's
 * loopback-only namespace, still tried: strace sees the attempt the namespace refuses).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { dlopen, FFIType, CString } from "bun:ffi";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { disableOrtTelemetry } from "../../src/onnx/ort-native.ts";
import { installTestPacks } from "../grpc/client.ts";
import { uploadForm } from "../rest/support.ts";
import { startSawt, tempDir, testTool, type SawtProcess } from "../support/sawt.ts";
import { encodeWav } from "../../src/audio/wav.ts";
import { letterToneAudio } from "../support/models/ctc.ts";

const dir = tempDir("sawt-telemetry-");
let sawt: SawtProcess;

beforeAll(async () => {
  testTool("strace", "strace");
  await installTestPacks(join(dir.path, "models"), { voice: true });
  sawt = await startSawt({ env: { SAWT_MODELS_DIR: join(dir.path, "models") } });
}, 60_000);

afterAll(async () => {
  await sawt?.stop();
  dir.remove();
});

test("does put ORT_DISABLE_TELEMETRY=1 in the C environment, where the library reads it", () => {
  disableOrtTelemetry();
  const libc = dlopen("libc.so.6", { getenv: { args: [FFIType.cstring], returns: FFIType.ptr } });
  const value = libc.symbols.getenv(Buffer.from("ORT_DISABLE_TELEMETRY\0"));
  expect(value ? new CString(value).toString() : null).toBe("1");
  libc.close();
});

test("does not let the server connect anywhere but loopback while it synthesises and recognises", async () => {
  const created = await sawt.createKey({ name: "telemetry", rpm: 100_000 });
  const out = join(dir.path, "connects.txt");
  const trace = Bun.spawn(["strace", "-f", "-qq", "-p", String(sawt.proc.pid), "-e", "trace=connect", "-o", out], {
    stderr: "ignore",
  });
  await Bun.sleep(500);
  const wav = encodeWav(letterToneAudio("مرحبا", 16000), 16000);
  const until = performance.now() + 15_000;
  for (let i = 0; performance.now() < until; i++) {
    const speech = await fetch(`${sawt.baseUrl}/v1/tts/audio/speech`, {
      method: "POST",
      headers: { "x-api-key": created.key, "content-type": "application/json" },
      body: JSON.stringify({ input: `مرحبا ${i}` }),
    });
    expect(speech.status).toBe(200);
    await speech.arrayBuffer();
    const heard = await fetch(`${sawt.baseUrl}/v1/asr/audio/transcriptions`, {
      method: "POST",
      headers: { "x-api-key": created.key },
      body: uploadForm({ name: "a.wav", data: wav }),
    });
    expect(heard.status).toBe(200);
    await heard.arrayBuffer();
    await Bun.sleep(200);
  }
  trace.kill("SIGINT");
  await trace.exited;
  const outward = readFileSync(out, "utf8")
    .split("\n")
    .filter((line) => /sa_family=AF_INET6?/.test(line))
    .filter((line) => !/inet_addr\("127\.|inet_pton\(AF_INET6, "::1"|inet_pton\(AF_INET6, "::ffff:127\./.test(line));
  expect(outward).toEqual([]);
}, 60_000);
