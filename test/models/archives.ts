/**
 * Pack archives for the install tests, made the way publishers make them (Debian's tar and bzip2
 * for sherpa-onnx's `.tar.bz2` with a top folder, README and test_wavs) and the way attackers
 * make them (tar-stream writing entries no honest `tar` would, a zip written byte by byte).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createGzip, crc32, deflateRawSync, gzipSync } from "node:zlib";
import { pipeline } from "node:stream/promises";
import { createWriteStream } from "node:fs";
import tarStream from "tar-stream";
import { encodeWav } from "../../src/audio/wav.ts";
import { testTool } from "../support/sawt.ts";

/** Runs a command; throws with its stderr when it fails. */
export function sh(argv: string[], cwd?: string): string {
  const proc = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${proc.stderr.toString()}`);
  return proc.stdout.toString();
}

/**
 * Dresses the pack folder `dir` as sherpa-onnx publishes it (a README.md and test_wavs/0.wav
 * beside the model files) and packs it as `<out>/<top>.tar.bz2` with `top` as its one folder.
 */
export function sherpaArchive(dir: string, out: string, top: string): string {
  testTool("bzip2", "bzip2");
  writeFileSync(
    join(dir, "README.md"),
    `# ${top}\n\nConverted for sherpa-onnx. See the licence of the original model.\n`,
  );
  mkdirSync(join(dir, "test_wavs"), { recursive: true });
  writeFileSync(join(dir, "test_wavs", "0.wav"), encodeWav(new Float32Array(1600), 16000));
  const archive = join(out, `${top}.tar.bz2`);
  sh(["tar", "--transform", `s,^\\.,${top},`, "-cjf", archive, "-C", dir, "."]);
  return archive;
}

/** `.tar.gz` of the folder `dir` (its name as the top folder), as an operator would make one. */
export function tarGzFolder(dir: string, out: string): string {
  const archive = join(out, `${dir.split("/").pop()}.tar.gz`);
  sh(["tar", "-czf", archive, "-C", dirname(dir), dir.split("/").pop()!]);
  return archive;
}

/** One raw tar entry: tar-stream writes whatever header it is given. */
export interface RawTarEntry {
  readonly header: Partial<tarStream.Header> & { readonly name: string };
  readonly body?: Uint8Array;
}

/** Writes a gzipped tar of exactly `entries` (hostile ones included) to `path`. */
export async function rawTarGz(path: string, entries: readonly RawTarEntry[]): Promise<string> {
  const pack = tarStream.pack();
  const done = pipeline(pack, createGzip(), createWriteStream(path));
  for (const { header, body } of entries) {
    await new Promise<void>((resolve, reject) =>
      pack.entry(header as tarStream.Header, Buffer.from(body ?? new Uint8Array()), (e) => (e ? reject(e) : resolve())),
    );
  }
  pack.finalize();
  await done;
  return path;
}

/**
 * A gzipped tar whose one member header declares `bytes` (GNU base-256 size, as GNU tar writes
 * sizes of 8 GiB and more) followed by one block of zeros: the claim is all there is.
 */
export function declaredSizeTarGz(path: string, name: string, bytes: number): string {
  const header = Buffer.alloc(512);
  header.write(name, 0, "utf8");
  header.write("0000644\0", 100, "latin1");
  header.write("0000000\0", 108, "latin1");
  header.write("0000000\0", 116, "latin1");
  header[124] = 0x80; // base-256: the remaining 11 bytes are the size, big-endian
  header.writeBigUInt64BE(BigInt(bytes), 128);
  header.write("00000000000\0", 136, "latin1");
  header.write("0", 156, "latin1");
  header.write("ustar  \0", 257, "latin1");
  header.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
  writeFileSync(path, gzipSync(Buffer.concat([header, Buffer.alloc(512)])));
  return path;
}

/** One zip entry: its bytes (deflated) and Unix mode (0o100644 a file, 0o120777 a symlink). */
export interface ZipEntry {
  readonly name: string;
  readonly data: Uint8Array;
  readonly mode?: number;
}

/** Writes a zip of `entries` (deflate, Unix attributes), byte by byte as APPNOTE lays it out. */
export function writeZip(path: string, entries: readonly ZipEntry[]): string {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const packed = deflateRawSync(entry.data, { level: 9 });
    const crc = crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(entry.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((entry.mode ?? 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  writeFileSync(path, Buffer.concat([...locals, directory, end]));
  return path;
}
