import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * What Docker Compose does with docker-compose.yml and an `.env` file, for the parts this
 * project uses: `.env` syntax (comments, single quotes literal, double quotes with escapes),
 * `${VAR}`, `${VAR:-default}` (a default may hold one nested `${…}`), `${VAR-default}`, `${VAR:?error}`, `${VAR?error}` and `$$`, and
 * YAML merge keys. No Docker engine runs here.
 */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    const [, name, rest] = m as unknown as [string, string, string];
    let value: string;
    if (rest.startsWith("'")) value = rest.slice(1, rest.indexOf("'", 1));
    else if (rest.startsWith('"')) value = JSON.parse(rest.slice(0, rest.lastIndexOf('"') + 1)) as string;
    else value = rest.replace(/\s+#.*$/, '').trim();
    out[name] = value;
  }
  return out;
}

export class InterpolationError extends Error {}

export function interpolate(text: string, vars: Record<string, string>): string {
  // A default may hold one nested `${VAR…}` (`${A:-http://api:${PORT:-8080}}`), as compose allows.
  return text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])((?:[^{}$]|\$\{[^}]*\}|\$)*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (all, name, colon, op, arg, bare) => {
      if (all === '$$') return '$';
      if (bare) return vars[bare] ?? '';
      const value = vars[name as string];
      const missing = colon ? !value : value === undefined;
      if (!op) return value ?? '';
      if (!missing) return value as string;
      if (op === '-') return interpolate(arg as string, vars);
      throw new InterpolationError(`required variable ${name} is missing a value: ${arg}`);
    },
  );
}

interface Service {
  command?: string[];
  environment?: Record<string, unknown>;
  healthcheck?: { test: string[] };
  profiles?: string[];
  build?: unknown;
}

export function loadCompose(file = 'docker-compose.yml'): { services: Record<string, Service> } {
  return parse(readFileSync(file, 'utf8'), { merge: true }) as { services: Record<string, Service> };
}

/** The environment compose gives a service's process, every value interpolated from `vars`. */
export function serviceEnv(service: Service, vars: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), vars)]));
}

/** A variable the image sets on a line of its own (`ENV NAME=value` or `ENV NAME="value"`), or ''. */
export function imageEnv(name: string, dockerfile = 'Dockerfile'): string {
  const m = new RegExp(`^\\s*ENV\\s+${name}=(?:"([^"]*)"|(\\S*))\\s*$`, 'm').exec(readFileSync(dockerfile, 'utf8'));
  return m?.[1] ?? m?.[2] ?? '';
}

/** The NODE_OPTIONS the image sets for every process it runs (its memory flags), or ''. */
export function imageNodeOptions(dockerfile = 'Dockerfile'): string {
  return imageEnv('NODE_OPTIONS', dockerfile);
}
