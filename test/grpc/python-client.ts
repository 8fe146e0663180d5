/**
 * An independent gRPC stack for interop tests: Debian's python3-grpcio with python3-protobuf, no
 * generated code. The script checks health with hand-encoded bytes, fetches the TTS schema through
 * server reflection, builds message classes from the returned descriptors and calls Synthesize.
 * It prints one JSON object; the test asserts on it.
 */
import { existsSync } from "node:fs";

/** Debian's interpreter (python3 on PATH may be a pyenv one without the Debian packages). */
export const SYSTEM_PYTHON = "/usr/bin/python3";

/** True when /usr/bin/python3 can import grpc and google.protobuf. */
export function pythonGrpcAvailable(): boolean {
  if (!existsSync(SYSTEM_PYTHON)) return false;
  return (
    Bun.spawnSync([SYSTEM_PYTHON, "-c", "import grpc, google.protobuf"], { stdout: "ignore", stderr: "ignore" })
      .exitCode === 0
  );
}

const SCRIPT = String.raw`
import hashlib, json, sys
import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, json_format

port, key, text = sys.argv[1], sys.argv[2], sys.argv[3]
channel = grpc.insecure_channel("127.0.0.1:" + port)
out = {}

def varint(data, i):
    shift = value = 0
    while True:
        b = data[i]; i += 1
        value |= (b & 0x7F) << shift; shift += 7
        if b < 0x80: return value, i

def fields(data):
    i, result = 0, []
    while i < len(data):
        tag, i = varint(data, i)
        num, wire = tag >> 3, tag & 7
        if wire == 0: value, i = varint(data, i)
        elif wire == 2:
            n, i = varint(data, i); value = data[i:i + n]; i += n
        elif wire == 1: value = data[i:i + 8]; i += 8
        elif wire == 5: value = data[i:i + 4]; i += 4
        else: raise ValueError("wire type %d" % wire)
        result.append((num, value))
    return result

def length_delimited(num, payload):
    tag, n, out = bytes([(num << 3) | 2]), len(payload), b""
    while True:
        if n < 0x80: out += bytes([n]); break
        out += bytes([(n & 0x7F) | 0x80]); n >>= 7
    return tag + out + payload

# grpc.health.v1.Health/Check: HealthCheckRequest{service=""} is the empty message;
# the response's field 1 is the ServingStatus enum (1 = SERVING).
check = channel.unary_unary("/grpc.health.v1.Health/Check")
resp = check(b"", timeout=10)
out["health"] = dict(fields(resp)).get(1, 0)
resp = check(length_delimited(1, b"sawt.tts.v1.TextToSpeech"), timeout=10)
out["health_tts"] = dict(fields(resp)).get(1, 0)

# Reflection v1: file_containing_symbol (field 4) → file_descriptor_response (field 4) whose
# repeated field 1 holds serialized FileDescriptorProtos, the requested file first.
reflect = channel.stream_stream("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo")
replies = list(reflect(iter([length_delimited(4, b"sawt.tts.v1.TextToSpeech")]), timeout=10))
files = [v for n, v in fields(dict(fields(replies[0]))[4]) if n == 1]
pool = descriptor_pool.DescriptorPool()
for raw in reversed(files):
    pool.Add(descriptor_pb2.FileDescriptorProto.FromString(raw))
factory = message_factory.MessageFactory(pool)
Request = factory.GetPrototype(pool.FindMessageTypeByName("sawt.tts.v1.SynthesizeRequest"))
Response = factory.GetPrototype(pool.FindMessageTypeByName("sawt.tts.v1.SynthesizeResponse"))
method = pool.FindServiceByName("sawt.tts.v1.TextToSpeech").FindMethodByName("Synthesize")
out["method_input"] = method.input_type.full_name

synthesize = channel.unary_unary("/sawt.tts.v1.TextToSpeech/Synthesize", request_serializer=Request.SerializeToString, response_deserializer=Response.FromString)
request = Request(text=text, voice="Yara", response_format="wav")
try:
    response = synthesize(request, metadata=[("authorization", "Bearer " + key)], timeout=60)
    out["synthesize"] = {"code": "OK", "content_type": response.content_type, "sample_rate_hz": response.sample_rate_hz,
                         "audio_head": response.audio[:4].decode("latin-1"), "audio_sha256": hashlib.sha256(response.audio).hexdigest(),
                         "resolution": json_format.MessageToDict(response.resolution, preserving_proto_field_name=True)}
except grpc.RpcError as error:
    out["synthesize"] = {"code": error.code().name, "details": error.details()}
try:
    synthesize(request, timeout=10)
    out["no_key"] = {"code": "OK"}
except grpc.RpcError as error:
    out["no_key"] = {"code": error.code().name, "details": error.details()}
print(json.dumps(out))
`;

/** Runs the Python client against a TTS port; resolves to its JSON report. */
export async function runPythonClient(port: number, key: string, text: string): Promise<Record<string, any>> {
  const proc = Bun.spawn([SYSTEM_PYTHON, "-c", SCRIPT, String(port), key, text], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`python client failed (${code}): ${stderr}`);
  return JSON.parse(stdout);
}
