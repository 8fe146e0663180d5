/**
 * Calls to Sawt's API with the operator's key. The key lives in sessionStorage (this tab, until it
 * closes) and goes only into the `X-API-Key` header — or, for the realtime WebSocket, which a
 * browser cannot give headers, its `openai-insecure-api-key.` subprotocol: never into a URL.
 */

const STORE = "sawt.console.key";

/** The signed-in key, if any. */
export function apiKey(): string | undefined {
  return sessionStorage.getItem(STORE) ?? undefined;
}

/** Remembers the key for this tab. */
export function signIn(key: string): void {
  sessionStorage.setItem(STORE, key);
}

/** Forgets the key. */
export function signOut(): void {
  sessionStorage.removeItem(STORE);
}

/** An API answer that was not 2xx: its status and the body's `detail`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
  }
}

/** Fetches `path` with the key; throws ApiError for a non-2xx answer. */
export async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const key = apiKey();
  if (key) headers.set("x-api-key", key);
  const response = await fetch(path, { ...init, headers, credentials: "omit", cache: "no-store" });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { detail?: string };
    throw new ApiError(response.status, body.detail ?? response.statusText);
  }
  return response;
}

/** `call` with a JSON body (if any) and a JSON answer. */
export async function json<T>(path: string, method = "GET", body?: unknown): Promise<T> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "content-type": "application/json" };
  }
  return (await call(path, init)).json() as Promise<T>;
}

/** POSTs `body` with upload progress (XMLHttpRequest: fetch reports none); resolves to the JSON answer. */
export function upload<T>(path: string, body: Blob | FormData, onProgress: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", path);
    const key = apiKey();
    if (key) xhr.setRequestHeader("x-api-key", key);
    if (body instanceof Blob) xhr.setRequestHeader("content-type", "application/octet-stream");
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      let parsed: { detail?: string } = {};
      try {
        parsed = JSON.parse(xhr.responseText);
      } catch {}
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(parsed as T);
      } else reject(new ApiError(xhr.status, parsed.detail ?? xhr.statusText));
    };
    xhr.onerror = () => reject(new ApiError(0, "network error"));
    xhr.send(body);
  });
}
