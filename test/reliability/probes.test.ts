/**
 * The /proc readings the door fuzz relies on: a process's sockets with their addresses and
 * ports (what the socket watch and the RTP-port count read), and its children.
 */
import { expect, test } from "bun:test";
import { createSocket } from "node:dgram";
import { connect, createServer } from "node:net";
import { childrenOf, isLocal, socketsOf, udpPortsIn } from "./probes.ts";

test("does read this process's TCP and UDP sockets with their addresses", async () => {
  const server = createServer((socket) => socket.on("error", () => {}));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const client = connect(port, "127.0.0.1");
  await new Promise<void>((resolve) => client.once("connect", () => resolve()));
  const udp = createSocket("udp4");
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", () => resolve()));
  await new Promise<void>((resolve) => udp.connect(5004, "127.0.0.2", () => resolve()));
  const mine = socketsOf(process.pid);
  expect(mine.some((s) => s.proto === "tcp" && s.localPort === port && s.state === "0A")).toBe(true);
  expect(mine.some((s) => s.proto === "tcp" && s.remote === "127.0.0.1" && s.remotePort === port)).toBe(true);
  expect(mine.some((s) => s.proto === "udp" && s.remote === "127.0.0.2" && s.remotePort === 5004)).toBe(true);
  const udpPort = udp.address().port;
  expect(udpPortsIn(process.pid, { min: udpPort, max: udpPort })).toHaveLength(1);
  expect(["127.0.0.2", "0.0.0.0", "0:0:0:0:0:0:0:1"].every(isLocal)).toBe(true);
  expect(["192.0.2.1", "10.0.0.1", "2001:db8:0:0:0:0:0:1"].some(isLocal)).toBe(false);
  client.destroy();
  udp.close();
  server.close();
});

test("does list a process's children", async () => {
  const child = Bun.spawn(["sleep", "5"]);
  expect(childrenOf(process.pid)).toContain(child.pid);
  child.kill();
  await child.exited;
});
