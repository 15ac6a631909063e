import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Writes a bundle (file path → content) into a fresh temporary folder and returns the folder. */
export const writeBundle = (files: Record<string, string | Buffer>): string => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-bundle-'));
  for (const [file, content] of Object.entries(files)) {
    const target = path.join(root, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, content);
  }
  return root;
};

export const minimalSpec = (extra = ''): string => `openapi: 3.0.3
info:
  title: Minimal
  version: '1'
paths:
  /things:
    get:
      operationId: listThings
      responses:
        '200':
          description: ok
${extra}`;

/** The shared real-world specs beside the repository (../shared/specs). */
export const sharedSpecsDir = (): string => {
  const dir = process.env.MIRROR_SHARED_SPECS ?? path.resolve(__dirname, '..', '..', '..', 'shared', 'specs');
  if (!fs.existsSync(path.join(dir, 'manifest.json'))) {
    throw new Error(`shared specs not found at ${dir}; set MIRROR_SHARED_SPECS to the folder holding manifest.json`);
  }
  return dir;
};
