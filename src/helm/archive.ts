/**
 * Reads a packed chart (`charts/NAME-VERSION.tgz`): gzip, then tar (ustar with GNU long names and
 * PAX paths). Returns the regular files with the top directory stripped, as Helm's LoadArchive does.
 */
import { gunzipSync } from 'node:zlib';
import { posix } from 'node:path';

export interface ArchiveFile {
  name: string;
  data: Buffer;
}

const BLOCK = 512;

function cString(b: Buffer, start: number, len: number): string {
  const end = b.indexOf(0, start);
  return b.toString('utf8', start, end >= 0 && end < start + len ? end : start + len);
}

function octal(b: Buffer, start: number, len: number): number {
  const s = cString(b, start, len).trim();
  return s ? parseInt(s, 8) : 0;
}

function paxPath(data: Buffer): string | undefined {
  // records: "LEN key=value\n"
  let i = 0;
  let path: string | undefined;
  while (i < data.length) {
    const sp = data.indexOf(0x20, i);
    if (sp < 0) break;
    const len = parseInt(data.toString('utf8', i, sp), 10);
    if (!(len > 0)) break;
    const rec = data.toString('utf8', sp + 1, i + len - 1);
    const eq = rec.indexOf('=');
    if (eq > 0 && rec.slice(0, eq) === 'path') path = rec.slice(eq + 1);
    i += len;
  }
  return path;
}

const stripBom = (b: Buffer): Buffer => (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? b.subarray(3) : b);

/** Every regular file of a .tgz, named without its first path component. Throws on a corrupt archive. */
export function readChartArchive(tgz: Buffer, source: string): ArchiveFile[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(tgz);
  } catch (e) {
    throw new Error(`${source}: not a gzip archive: ${(e as Error).message}`, { cause: e });
  }
  const out: ArchiveFile[] = [];
  let longName: string | undefined;
  for (let off = 0; off + BLOCK <= tar.length; ) {
    const header = tar.subarray(off, off + BLOCK);
    if (header.every((b) => b === 0)) break;
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] ?? 0);
    const body = tar.subarray(off + BLOCK, off + BLOCK + size);
    off += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'L') {
      longName = cString(body, 0, body.length);
      continue;
    }
    if (type === 'x') {
      longName = paxPath(body) ?? longName;
      continue;
    }
    let name = longName ?? cString(header, 0, 100);
    longName = undefined;
    const prefix = header.toString('utf8', 257, 262) === 'ustar' ? cString(header, 345, 155) : '';
    if (prefix && name === cString(header, 0, 100)) name = `${prefix}/${name}`;
    if (type !== '0' && type !== '\0' && type !== '7') continue; // directories, links, devices
    const clean = posix.normalize(name.replace(/\\/g, '/'));
    if (clean.startsWith('/') || clean === '.' || clean.startsWith('..')) throw new Error(`${source}: chart illegally contains content outside the base directory: ${name}`);
    const parts = clean.split('/');
    if (parts[0] === 'Chart.yaml') throw new Error(`${source}: chart yaml not in base directory`);
    if (parts.length < 2) continue;
    out.push({ name: parts.slice(1).join('/'), data: stripBom(Buffer.from(body)) });
  }
  return out;
}
