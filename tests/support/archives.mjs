// Archives made for the submission reader's tests: zips as Finder, zip(1)
// or Windows write them (deflated or stored, with folders implicit or
// listed, with __MACOSX), and the hostile ones no tool writes on purpose
// (a link, a name that leaves the archive, a bomb whose entry inflates far
// past what it claims, an encrypted entry, too many entries). Tars come
// from the lesson's own writer (web/src/lesson/tar.js, what "Export my
// solutions" downloads) or from GNU tar; a link in a tar is made here.
import { deflateRawSync } from "node:zlib";
import { crc32 } from "../../cli/archive.js";

const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;

/**
 * A zip of `entries`: `[{ name, data?, link?, folder?, method?, size?, encrypted? }]`
 * (`data` a string or bytes; `link` makes a symbolic link to that target;
 * `method` 0 stored or 8 deflated, the default; `size` overrides the
 * uncompressed size the archive claims).
 */
export function makeZip(entries) {
  const local = [];
  const central = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.folder ? `${entry.name.replace(/\/$/, "")}/` : entry.name);
    const raw = Buffer.from(entry.link ?? entry.data ?? "");
    const method = entry.folder ? 0 : (entry.method ?? 8);
    const packed = method === 8 ? deflateRawSync(raw) : raw;
    const mode = entry.link ? S_IFLNK | 0o777 : entry.folder ? S_IFDIR | 0o755 : S_IFREG | 0o644;
    const size = entry.size ?? raw.length;
    const flags = (entry.encrypted ? 1 : 0) | 0x800;
    // The local header and the central record hold the same fields at different offsets.
    const fields = (buffer, at) => {
      buffer.writeUInt16LE(flags, at);
      buffer.writeUInt16LE(method, at + 2);
      buffer.writeUInt32LE(crc32(raw), at + 8);
      buffer.writeUInt32LE(packed.length, at + 12);
      buffer.writeUInt32LE(size, at + 16);
      buffer.writeUInt16LE(name.length, at + 20);
    };
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    fields(header, 6);
    local.push(header, name, packed);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE((3 << 8) | 20, 4);
    record.writeUInt16LE(20, 6);
    fields(record, 8);
    record.writeUInt32LE((mode << 16) >>> 0, 38);
    record.writeUInt32LE(offset, 42);
    central.push(record, name);
    offset += header.length + name.length + packed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...local, directory, end]);
}

/** A ustar tar of `entries`: `[{ name, data?, link? }]` (`link`: a symbolic link to that target). */
export function makeTarWithLinks(entries) {
  const blocks = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.link ? "" : (entry.data ?? ""));
    const header = Buffer.alloc(512);
    header.write(entry.name, 0);
    header.write("0000644\0", 100);
    header.write("0000000\0", 108);
    header.write("0000000\0", 116);
    header.write(`${data.length.toString(8).padStart(11, "0")}\0`, 124);
    header.write("00000000000\0", 136);
    header.write("        ", 148);
    header.write(entry.link ? "2" : "0", 156);
    if (entry.link) header.write(entry.link, 157);
    header.write("ustar\0", 257);
    header.write("00", 263);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
    blocks.push(header, Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}
