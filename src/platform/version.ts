import { existsSync, readFileSync } from 'node:fs';

// Running from source (src/platform/) or from the build (dist/src/platform/): the manifest is two or three levels up.
const manifest = ['../../package.json', '../../../package.json'].map((rel) => new URL(rel, import.meta.url)).find((url) => existsSync(url));

/** The package version, read once at start. */
export const VERSION: string = manifest ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : 'unknown';
