import * as fs from 'node:fs';
import * as path from 'node:path';

import { IngestionError } from './ingestion.error';
import { bundleLimits } from './bundle-limits';

/**
 * The files of one stack bundle, addressed by bundle-relative POSIX paths. Every read goes through here so that
 * containment (nothing outside the bundle) and size limits are enforced in one place.
 */
export interface BundleFiles {
  /** Human-readable origin, e.g. the folder path or "upload.zip". */
  readonly description: string;
  list(): string[];
  has(file: string): boolean;
  read(file: string): Buffer;
}

/**
 * Joins a reference onto the file that holds it. Returns undefined when the result leaves the bundle (`../` past its
 * root or an absolute path), so callers can report the place of the offending reference.
 */
export const resolveBundlePath = (fromFile: string, reference: string, confined: boolean): string | undefined => {
  if (path.posix.isAbsolute(reference) || /^[a-zA-Z]:[\\/]/.test(reference)) {
    return undefined;
  }
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), decodeURI(reference)));
  if (confined && (joined === '..' || joined.startsWith('../'))) {
    return undefined;
  }
  return joined;
};

const skippedDirectories = new Set(['node_modules', '.git', '.mirror']);

/**
 * A bundle on local disk. `confined` bundles (a folder given as the bundle) refuse anything outside the folder;
 * a lone spec file follows relative references on disk the way vendor tools do, so multi-file specs that keep shared
 * parts in a sibling folder still ingest.
 */
export class DirectoryBundle implements BundleFiles {
  private readonly root: string;

  constructor(
    root: string,
    private readonly confined = true,
  ) {
    this.root = fs.realpathSync(root);
  }

  get description(): string {
    return this.root;
  }

  list(): string[] {
    const found: string[] = [];
    const walk = (directory: string, prefix: string): void => {
      for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
        if (found.length > bundleLimits.maxFiles) {
          throw IngestionError.single('BUNDLE_TOO_LARGE', {
            file: prefix,
            pointer: '',
            message: `the bundle holds more than ${bundleLimits.maxFiles} files`,
          });
        }
        const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
        if (entry.isDirectory() && !skippedDirectories.has(entry.name)) {
          walk(path.join(directory, entry.name), relative);
        } else if (entry.isFile()) {
          found.push(relative);
        }
      }
    };
    walk(this.root, '');
    return found.sort();
  }

  has(file: string): boolean {
    const absolute = this.absolute(file);
    return absolute !== undefined && fs.existsSync(absolute) && fs.statSync(absolute).isFile();
  }

  read(file: string): Buffer {
    const absolute = this.absolute(file);
    if (absolute === undefined) {
      throw IngestionError.single('REFERENCE_INVALID', { file, pointer: '', message: 'path is outside the bundle' });
    }
    let size: number;
    try {
      const stat = fs.statSync(absolute);
      if (!stat.isFile()) {
        throw new Error('not a file');
      }
      size = stat.size;
    } catch {
      throw IngestionError.single('REFERENCE_INVALID', { file, pointer: '', message: 'file does not exist' });
    }
    if (size > bundleLimits.maxFileBytes) {
      throw IngestionError.single('BUNDLE_TOO_LARGE', {
        file,
        pointer: '',
        message: `file is ${formatBytes(size)}; the limit is ${formatBytes(bundleLimits.maxFileBytes)}`,
      });
    }
    return fs.readFileSync(absolute);
  }

  private absolute(file: string): string | undefined {
    const absolute = path.resolve(this.root, file);
    if (!this.confined) {
      return absolute;
    }
    const real = fs.existsSync(absolute) ? fs.realpathSync(absolute) : absolute;
    // A symlink inside the folder may point anywhere; containment is judged on the real path.
    return real === this.root || real.startsWith(this.root + path.sep) ? real : undefined;
  }
}

/** A bundle held in memory, as extracted from an upload. Containment is structural: there is nothing else to read. */
export class MemoryBundle implements BundleFiles {
  constructor(
    readonly description: string,
    private readonly files: ReadonlyMap<string, Buffer>,
  ) {}

  list(): string[] {
    return [...this.files.keys()].sort();
  }

  has(file: string): boolean {
    return this.files.has(file);
  }

  read(file: string): Buffer {
    const content = this.files.get(file);
    if (content === undefined) {
      throw IngestionError.single('REFERENCE_INVALID', {
        file,
        pointer: '',
        message: 'file does not exist in the bundle',
      });
    }
    return content;
  }
}

export const formatBytes = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
