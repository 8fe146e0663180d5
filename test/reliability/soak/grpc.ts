/** The soak's gRPC rows: Synthesize and Recognize, OK or (under load) UNAVAILABLE/RESOURCE_EXHAUSTED. */
import * as grpc from "@grpc/grpc-js";
import { bearer } from "../../grpc/client.ts";
import { Breach, type SoakRow } from "./row.ts";

function outcome(what: string, error: grpc.ServiceError | null): string {
  if (!error) return "OK";
  if (error.code === grpc.status.UNAVAILABLE || error.code === grpc.status.RESOURCE_EXHAUSTED) return "busy";
  throw new Breach(`${what} ended ${grpc.status[error.code]}: ${error.details}`);
}

export const grpcSynthesize: SoakRow = {
  name: "gRPC Synthesize",
  call: (box, i) =>
    new Promise((resolve, reject) =>
      box.grpc.tts.Synthesize(
        { text: `مرحبا ${i % 10}`, response_format: "pcm" },
        bearer(box.key),
        (error: grpc.ServiceError | null) => {
          try {
            resolve(outcome("Synthesize", error));
          } catch (breach) {
            reject(breach);
          }
        },
      ),
    ),
};

export const grpcRecognize: SoakRow = {
  name: "gRPC Recognize",
  call: (box) =>
    new Promise((resolve, reject) =>
      box.grpc.asr.Recognize(
        { config: { encoding: "LINEAR_PCM", sample_rate_hz: 16000 }, audio: box.pcm },
        bearer(box.key),
        (error: grpc.ServiceError | null) => {
          try {
            resolve(outcome("Recognize", error));
          } catch (breach) {
            reject(breach);
          }
        },
      ),
    ),
};
