import { describe, expect, test } from "bun:test";
import { newJobId } from "./ids.ts";

describe("job ids", () => {
  test("does sort ids made in the same millisecond in the order they were made", () => {
    const ids = Array.from({ length: 50 }, () => newJobId("box1"));
    expect([...ids].sort()).toEqual(ids);
  });
});
