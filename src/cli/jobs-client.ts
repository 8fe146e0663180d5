/** The REST client of `sawt jobs`: the service's URL and key from the flags, errors as one line. */
import { loadConfig, localServiceUrl } from "../config/config.ts";
import { stringFlag, UsageError, type ParsedArgs } from "./args.ts";

/** A client of one service. */
export interface JobsClient {
  readonly base: string;
  call(path: string, init?: RequestInit): Promise<any>;
  text(path: string): Promise<string>;
}

/** The service's URL and key from the flags (`--url`, `--key` or env `SAWT_API_KEY`). */
export function jobsClient(args: ParsedArgs, url = stringFlag(args, "url")): JobsClient {
  const base = url ?? localServiceUrl(loadConfig({ file: stringFlag(args, "config") }));
  const key = stringFlag(args, "key") ?? process.env.SAWT_API_KEY;
  if (!key) throw new UsageError("an API key is needed: --key KEY or env SAWT_API_KEY");
  const request = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(new URL(path, base), {
      ...init,
      headers: { "X-API-Key": key, ...(init.headers as Record<string, string> | undefined) },
    });
    const text = await response.text();
    if (!response.ok) {
      let detail = text;
      try {
        const body = JSON.parse(text);
        detail = body.errors ? `${body.detail}: ${JSON.stringify(body.errors)}` : body.detail;
      } catch {}
      throw new Error(`${response.status} ${detail}`);
    }
    return text;
  };
  return { base, call: async (path, init) => JSON.parse(await request(path, init)), text: request };
}
