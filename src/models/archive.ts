/**
 * Unpacks a pack archive as publishers publish them — sherpa-onnx's `.tar.bz2`, `.tar.gz`, `.zip`
 * — into an empty staging folder, under {@link ArchiveLimits}. The format is told by magic bytes,
 * not the name. Readers are pure-JS streaming libraries (tar-stream, unbzip2-stream, yauzl, and
 * node:zlib for gzip), so the byte counts here see every byte before it is written and the same
 * code runs inside the compiled appliance binary without Debian's tar/bzip2/unzip. Only plain
 * files and folders are written; links, devices, FIFOs, sparse and unknown entry types are
 * refused, never skipped, because an archive carrying them is not a pack as published.
 */
import { createReadStream, createWriteStream, mkdirSync, openSync, readSync, closeSync } from "node:fs";
import { join } from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import tarStream from "tar-stream";
import unbzip2 from "unbzip2-stream";
import yauzl from "yauzl";
import { PackError, firstLine } from "./errors.ts";
import { safeEntryPath, UnpackBudget, type ArchiveLimits } from "./archive-limits.ts";

/** What a file holds, by its first bytes. */
export type ArchiveFormat = "tar.gz" | "tar.bz2" | "tar" | "zip";

/** The archive format of `path`, or undefined when it is none of them. */
export function sniffArchive(path: string): ArchiveFormat | undefined {
  const head = Buffer.alloc(512);
  const fd = openSync(path, "r");
  let read = 0;
  try {
    read = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (read >= 2 && head[0] === 0x1f && head[1] === 0x8b) return "tar.gz";
  if (read >= 3 && head.toString("latin1", 0, 3) === "BZh") return "tar.bz2";
  if (read >= 4 && head.readUInt32LE(0) === 0x04034b50) return "zip";
  if (read >= 262 && head.toString("latin1", 257, 262) === "ustar") return "tar";
  return undefined;
}

/** Writes one file entry at `segments` under `root`, counting its bytes; never overwrites. */
async function writeEntry(root: string, segments: string[], body: Readable, budget: UnpackBudget): Promise<void> {
  if (segments.length > 1) mkdirSync(join(root, ...segments.slice(0, -1)), { recursive: true, mode: 0o755 });
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        budget.add(chunk.length);
        done(null, chunk);
      } catch (error) {
        done(error as Error);
      }
    },
  });
  // `wx`: a second entry of the same name is refused, and nothing already there is followed.
  await pipeline(body, count, createWriteStream(join(root, ...segments), { flags: "wx", mode: 0o644 }));
}

/**
 * GNU sparse members: type `S` (tar-stream names no such type: its `type` is null, as for any
 * type it does not know) or PAX `GNU.sparse.*` records on a plain file.
 */
function isSparse(header: tarStream.Header): boolean {
  return header.type === null || Object.keys(header.pax ?? {}).some((k) => k.startsWith("GNU.sparse"));
}

const TAR_REFUSED: Readonly<Record<string, string>> = {
  symlink: "a symbolic link",
  link: "a hard link",
  "character-device": "a character device",
  "block-device": "a block device",
  fifo: "a FIFO",
};

async function unpackTar(path: string, format: ArchiveFormat, root: string, limits: ArchiveLimits): Promise<void> {
  let compressed = 0;
  const source = createReadStream(path).on("data", (chunk) => (compressed += chunk.length));
  const budget = new UnpackBudget(limits, () => compressed);
  const extract = tarStream.extract();
  const decompress = format === "tar.gz" ? createGunzip() : format === "tar.bz2" ? unbzip2() : undefined;
  const feeding = decompress ? pipeline(source, decompress, extract) : pipeline(source, extract);
  feeding.catch(() => undefined); // the entry loop below reports the failure
  try {
    for await (const entry of extract) {
      const { name, type, size } = entry.header;
      const refused = isSparse(entry.header)
        ? "a sparse file (or of a type tar-stream does not know)"
        : TAR_REFUSED[type ?? ""];
      if (refused)
        throw new PackError(`${name} is ${refused}${entry.header.linkname ? ` to ${entry.header.linkname}` : ""}`);
      const segments = safeEntryPath(name);
      budget.entry(name, size ?? 0);
      if (type === "directory") mkdirSync(join(root, ...segments), { recursive: true, mode: 0o755 });
      else if (type === "file" || type === "contiguous-file")
        await writeEntry(root, segments, entry as unknown as Readable, budget);
      else throw new PackError(`${name} is an entry of type ${type ?? "unknown"}: only files and folders make a pack`);
    }
    await feeding;
  } catch (error) {
    source.destroy();
    throw error;
  }
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

function openZip(path: string): Promise<yauzl.ZipFile> {
  const options = { lazyEntries: true, validateEntrySizes: true, strictFileNames: true, autoClose: true };
  return new Promise((resolve, reject) =>
    yauzl.open(path, options, (error, zip) => (error ? reject(error) : resolve(zip))),
  );
}

function openZipEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream))),
  );
}

async function unpackZip(path: string, root: string, limits: ArchiveLimits): Promise<void> {
  const zip = await openZip(path);
  const budget = new UnpackBudget(limits);
  try {
    const entries: yauzl.Entry[] = [];
    await new Promise<void>((resolve, reject) => {
      zip.on("entry", (entry: yauzl.Entry) => {
        entries.push(entry);
        zip.readEntry();
      });
      zip.on("end", resolve);
      zip.on("error", reject);
      zip.readEntry();
    });
    // The central directory declares every size up front: refuse a bomb before unpacking a byte.
    const declared = entries.reduce((sum, e) => sum + e.uncompressedSize, 0);
    budget.ratio(
      declared,
      entries.reduce((sum, e) => sum + e.compressedSize, 0),
    );
    for (const entry of entries) {
      const name = entry.fileName;
      const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
      const directory = name.endsWith("/") || mode === S_IFDIR;
      if (mode !== 0 && mode !== S_IFREG && mode !== S_IFDIR) {
        throw new PackError(`${name} is ${mode === 0o120000 ? "a symbolic link" : "not a plain file"}`);
      }
      const segments = safeEntryPath(name);
      budget.entry(name, entry.uncompressedSize);
      if (directory) mkdirSync(join(root, ...segments), { recursive: true, mode: 0o755 });
      else await writeEntry(root, segments, await openZipEntry(zip, entry), budget);
    }
  } finally {
    zip.close();
  }
}

/**
 * Unpacks `path` into the empty folder `root`. Throws {@link PackError} with one line naming
 * the offending entry (or the bound crossed); the caller removes `root` then.
 */
export async function unpackArchive(path: string, root: string, limits: ArchiveLimits): Promise<ArchiveFormat> {
  const format = sniffArchive(path);
  if (format === undefined) throw new PackError("not a .tar.bz2, .tar.gz, .tar or .zip archive");
  try {
    if (format === "zip") await unpackZip(path, root, limits);
    else await unpackTar(path, format, root, limits);
  } catch (error) {
    if (error instanceof PackError) throw error;
    throw new PackError(`cannot unpack the ${format} archive: ${firstLine(error)}`);
  }
  return format;
}
