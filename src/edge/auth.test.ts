import { describe, expect, test } from "bun:test";
import { keySubprotocol, type KeySources, presentedKey } from "./auth.ts";

const DEEPGRAM: KeySources = { schemes: ["Token"], subprotocols: [{ marker: "token" }, { marker: "bearer" }] };
const OPENAI: KeySources = { subprotocols: [{ prefix: "openai-insecure-api-key." }] };

describe("presentedKey", () => {
  test("does read X-API-Key and Bearer on every door, and nothing else by default", () => {
    expect(presentedKey(new Headers({ "x-api-key": " k1 " }))).toBe("k1");
    expect(presentedKey(new Headers({ authorization: "Bearer k2" }))).toBe("k2");
    expect(presentedKey(new Headers({ authorization: "bearer   k2 " }))).toBe("k2");
    expect(presentedKey(new Headers({ authorization: "Token k3" }))).toBeUndefined();
    expect(presentedKey(new Headers({ "sec-websocket-protocol": "token, k4" }))).toBeUndefined();
  });

  test("does read a door's own scheme and subprotocols when it lists them", () => {
    expect(presentedKey(new Headers({ authorization: "Token k3" }), DEEPGRAM)).toBe("k3");
    expect(presentedKey(new Headers({ authorization: "token k3" }), DEEPGRAM)).toBe("k3");
    expect(presentedKey(new Headers({ authorization: "Basic k3" }), DEEPGRAM)).toBeUndefined();
    const browser = new Headers({ "sec-websocket-protocol": "token, k4" });
    expect(presentedKey(browser, DEEPGRAM)).toBe("k4");
    expect(keySubprotocol(browser, DEEPGRAM)).toBe("token");
    expect(presentedKey(new Headers({ "sec-websocket-protocol": "bearer,k5" }), DEEPGRAM)).toBe("k5");
    // A marker with nothing after it carries no key.
    expect(presentedKey(new Headers({ "sec-websocket-protocol": "token" }), DEEPGRAM)).toBeUndefined();
    const openai = new Headers({ "sec-websocket-protocol": "realtime, openai-insecure-api-key.k6" });
    expect(presentedKey(openai, OPENAI)).toBe("k6");
    expect(keySubprotocol(openai, OPENAI)).toBeUndefined();
  });

  test("does prefer the headers to a subprotocol, and still name the marker for the 101", () => {
    const both = new Headers({ authorization: "Token header-key", "sec-websocket-protocol": "token, protocol-key" });
    expect(presentedKey(both, DEEPGRAM)).toBe("header-key");
    expect(keySubprotocol(both, DEEPGRAM)).toBe("token");
  });
});
