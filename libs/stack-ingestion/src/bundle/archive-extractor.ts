import * as path from 'node:path';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';

import * as tar from 'tar-stream';
import * as yauzl from 'yauzl';

import { IngestionError, IngestionProblem, formatBytes, MemoryBundle, bundleLimits } from '@libs/bundle-documents';

export type ArchiveKind = 'zip' | 'tar' | 'tar.gz';

/** Recognises an archive by its magic bytes, so a misnamed upload is still read correctly. */
export const detectArchiveKind = (content: Buffer): ArchiveKind | undefined => {
  if (content.length >= 4 && content.readUInt32LE(0) === 0x04034b50) {
    return 'zip';
  }
  if (content.length >= 2 && content[0] === 0x1f && content[1] === 0x8b) {
    return 'tar.gz';
  }
  if (content.length >= 262 && content.subarray(257, 262).toString('latin1') === 'ustar') {
    return 'tar';
  }
  return undefined;
};

const archiveProblem = (name: string, entry: string, message: string): IngestionProblem => ({
  file: entry ? `${name}!${entry}` : name,
  pointer: '',
  message,
});

/** Tracks totals across entries; throws as soon as an upload proves larger than any real bundle. */
class ExtractionBudget {
  private totalBytes = 0;
  readonly files = new Map<string, Buffer>();

  constructor(private readonly archiveName: string) {}

  entryPath(raw: string): string {
    const normalized = path.posix.normalize(raw.replace(/\\/g, '/')).replace(/^\.\//, '');
    if (path.posix.isAbsolute(normalized) || normalized === '..' || normalized.startsWith('../')) {
      throw IngestionError.single(
        'ARCHIVE_INVALID',
        archiveProblem(this.archiveName, raw, 'archive entry points outside the bundle'),
      );
    }
    if (this.files.size >= bundleLimits.maxFiles) {
      throw IngestionError.single(
        'BUNDLE_TOO_LARGE',
        archiveProblem(this.archiveName, '', `archive holds more than ${bundleLimits.maxFiles} files`),
      );
    }
    return normalized;
  }

  /** Called as bytes inflate, so a bomb is stopped after at most one limit's worth of output. */
  grow(entry: string, entryBytes: number, added: number, compressedBytes?: number): void {
    this.totalBytes += added;
    if (entryBytes > bundleLimits.maxFileBytes) {
      throw IngestionError.single(
        'BUNDLE_TOO_LARGE',
        archiveProblem(this.archiveName, entry, `file exceeds ${formatBytes(bundleLimits.maxFileBytes)}`),
      );
    }
    if (this.totalBytes > bundleLimits.maxTotalBytes) {
      throw IngestionError.single(
        'BUNDLE_TOO_LARGE',
        archiveProblem(this.archiveName, entry, `archive expands beyond ${formatBytes(bundleLimits.maxTotalBytes)}`),
      );
    }
    if (
      compressedBytes !== undefined &&
      entryBytes > 1024 * 1024 &&
      entryBytes / Math.max(compressedBytes, 1) > bundleLimits.maxCompressionRatio
    ) {
      throw IngestionError.single(
        'BUNDLE_TOO_LARGE',
        archiveProblem(
          this.archiveName,
          entry,
          `entry inflates more than ${bundleLimits.maxCompressionRatio} times its compressed size (zip bomb?)`,
        ),
      );
    }
  }
}

const readZip = (name: string, content: Buffer): Promise<Map<string, Buffer>> =>
  new Promise((resolve, reject) => {
    const budget = new ExtractionBudget(name);
    // Names are decoded here rather than by yauzl so that an escaping entry gets our located error, not a generic one.
    yauzl.fromBuffer(
      content,
      { lazyEntries: true, validateEntrySizes: true, decodeStrings: false },
      (openError, zip) => {
        if (openError || !zip) {
          reject(
            IngestionError.single(
              'ARCHIVE_INVALID',
              archiveProblem(name, '', `not a readable zip: ${openError?.message}`),
            ),
          );
          return;
        }
        const fail = (error: unknown): void => {
          zip.close();
          reject(
            error instanceof IngestionError
              ? error
              : IngestionError.single('ARCHIVE_INVALID', archiveProblem(name, '', `zip is corrupt: ${String(error)}`)),
          );
        };
        zip.on('error', fail);
        zip.on('end', () => resolve(budget.files));
        zip.on('entry', (entry: yauzl.Entry) => {
          const fileName = (entry.fileName as unknown as Buffer).toString('utf8');
          if (fileName.endsWith('/')) {
            zip.readEntry();
            return;
          }
          let entryPath: string;
          try {
            entryPath = budget.entryPath(fileName);
            // The declared size is checked first; the streamed count below guards against lying headers.
            budget.grow(entryPath, entry.uncompressedSize, 0, entry.compressedSize);
          } catch (error) {
            fail(error);
            return;
          }
          zip.openReadStream(entry, (streamError, stream) => {
            if (streamError || !stream) {
              fail(streamError);
              return;
            }
            const chunks: Buffer[] = [];
            let bytes = 0;
            stream.on('data', (chunk: Buffer) => {
              bytes += chunk.length;
              try {
                budget.grow(entryPath, bytes, chunk.length, entry.compressedSize);
              } catch (error) {
                stream.destroy();
                fail(error);
                return;
              }
              chunks.push(chunk);
            });
            stream.on('error', fail);
            stream.on('end', () => {
              budget.files.set(entryPath, Buffer.concat(chunks));
              zip.readEntry();
            });
          });
        });
        zip.readEntry();
      },
    );
  });

const readTar = async (name: string, content: Buffer, gzipped: boolean): Promise<Map<string, Buffer>> => {
  const budget = new ExtractionBudget(name);
  const extract = tar.extract();
  const source = Readable.from([content]);
  let inflated = 0;
  const input = gzipped ? source.pipe(zlib.createGunzip()) : source;
  if (gzipped) {
    input.on('data', (chunk: Buffer) => {
      inflated += chunk.length;
      if (inflated > bundleLimits.maxTotalBytes + 1024 * 1024) {
        input.destroy(
          IngestionError.single(
            'BUNDLE_TOO_LARGE',
            archiveProblem(name, '', `archive expands beyond ${formatBytes(bundleLimits.maxTotalBytes)}`),
          ),
        );
      }
    });
  }
  return new Promise((resolve, reject) => {
    const fail = (error: unknown): void => {
      input.destroy();
      extract.destroy();
      reject(
        error instanceof IngestionError
          ? error
          : IngestionError.single('ARCHIVE_INVALID', archiveProblem(name, '', `archive is corrupt: ${String(error)}`)),
      );
    };
    input.on('error', fail);
    extract.on('error', fail);
    extract.on('entry', (header, stream, next) => {
      if (header.type !== 'file') {
        stream.on('end', next);
        stream.resume();
        return;
      }
      let entryPath: string;
      try {
        entryPath = budget.entryPath(header.name);
      } catch (error) {
        fail(error);
        return;
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on('data', (data: unknown) => {
        const chunk = data as Buffer;
        bytes += chunk.length;
        try {
          budget.grow(entryPath, bytes, chunk.length);
        } catch (error) {
          fail(error);
          return;
        }
        chunks.push(chunk);
      });
      stream.on('end', () => {
        budget.files.set(entryPath, Buffer.concat(chunks));
        next();
      });
    });
    extract.on('finish', () => resolve(budget.files));
    input.pipe(extract);
  });
};

/** Extracts an uploaded archive into memory under the bundle limits. Nothing touches the disk. */
export const extractArchive = async (name: string, content: Buffer): Promise<MemoryBundle> => {
  const kind = detectArchiveKind(content);
  let files: Map<string, Buffer>;
  switch (kind) {
    case 'zip':
      files = await readZip(name, content);
      break;
    case 'tar':
    case 'tar.gz':
      files = await readTar(name, content, kind === 'tar.gz');
      break;
    case undefined:
      throw IngestionError.single('ARCHIVE_INVALID', archiveProblem(name, '', 'not a zip or tar archive'));
  }
  return new MemoryBundle(name, stripCommonFolder(files));
};

/** Archives made with `zip -r bundle.zip bundle/` wrap everything in one folder; the bundle starts inside it. */
const stripCommonFolder = (files: Map<string, Buffer>): Map<string, Buffer> => {
  const names = [...files.keys()];
  const first = names[0]?.split('/')[0];
  if (!first || names.some((n) => !n.startsWith(`${first}/`))) {
    return files;
  }
  return new Map(names.map((n) => [n.slice(first.length + 1), files.get(n) as Buffer]));
};
