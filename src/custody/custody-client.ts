import type { Logger } from 'pino';
import type { z } from 'zod';
import { AppError, InvalidArgumentError, UnavailableError } from '../platform/errors.js';
import { apiKeyAuth, type CustodyAuth } from './custody-auth.js';
import { CustodyNotFoundError, CustodyNotOperationalError, CustodyRequestError, type CustodyProblem } from './errors.js';
import type { HttpAnswer, HttpFetch } from '../platform/http-client.js';
import {
  accountBackupSchema,
  problemSchema,
  serviceStatusSchema,
  signOperationSchema,
  signRequestResultSchema,
  summariseStatus,
  vaultPublicKeySchema,
  type AccountBackup,
  type ComponentHealth,
  type ServiceStatus,
  type SignOperation,
  type SignRequest,
  type SignRequestResult,
} from './types.js';

export interface CustodyClientOptions {
  /** The `{mng}` base: `{base_url}/custody/api/v1.0/mng`, or `/casp/api/v1.0/mng` on older deployments. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; never logged. Shorthand for `auth: apiKeyAuth(apiKey)`. */
  apiKey?: string;
  /** API key or user-and-password tokens; without it, calls go unauthenticated. */
  auth?: CustodyAuth;
  fetch: HttpFetch;
  logger: Logger;
  /** Per attempt. Default 10 000. */
  timeoutMs?: number;
  /** Further attempts after the first for transient failures. Default 3. */
  retries?: number;
  /** First backoff delay; doubles per attempt, with jitter. Default 200. */
  backoffMs?: number;
  /** Cap on one backoff delay (also on a Retry-After the service sends). Default 5 000. */
  maxBackoffMs?: number;
}

/** How one call reads answers beyond the usual ones. */
interface CallOptions {
  /** The route answers 500 when the service is not operational (the status route): a final answer, not a passing fault. */
  notOperationalOn500?: boolean;
}

/** One try: a value, or a transient failure worth retrying (refusals are thrown at once). */
type Attempt<T> =
  { ok: true; value: T } | { ok: false; reason: string; cause?: unknown; retryAfterMs?: number; unauthorized?: { used: string; problem: CustodyProblem } };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The outbound side of quorum signing: asks the custody service to sign, and reads
 * operations back when a callback is late. Transient failures (network, timeout, 429,
 * 5xx) are retried with backoff and end as UnavailableError; a refusal (4xx) is final
 * and surfaces as a typed error carrying the service's own title and details.
 */
export class CustodyClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly log: Logger;
  private readonly auth: CustodyAuth | undefined;

  constructor(private readonly opts: CustodyClientOptions) {
    this.auth = opts.auth ?? (opts.apiKey ? apiKeyAuth(opts.apiKey) : undefined);
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.retries = Math.max(0, opts.retries ?? 3);
    this.backoffMs = opts.backoffMs ?? 200;
    this.maxBackoffMs = opts.maxBackoffMs ?? 5_000;
    this.log = opts.logger.child({ component: 'custody-client' });
  }

  /**
   * Starts quorum signing. Retrying this POST after a timeout may start a second
   * operation for the same digests; that is safe (same transaction, the receiver checks
   * digests against the stored operation) and better than a withdrawal that never starts.
   */
  async requestSign(vaultId: string, req: SignRequest): Promise<SignRequestResult> {
    const body = { ...req, ledger: req.ledger.toUpperCase() };
    return this.call('POST', `/vaults/${pathSegment(vaultId)}/sign`, '/vaults/{id}/sign', signRequestResultSchema, body);
  }

  async getSignOperation(operationID: string): Promise<SignOperation> {
    return this.call('GET', `/operations/sign/${pathSegment(operationID)}`, '/operations/sign/{id}', signOperationSchema);
  }

  /** Asks the service to send the signing callback again (400 from it: not completed yet). */
  async resend(operationID: string): Promise<void> {
    await this.call('POST', `/operations/sign/${pathSegment(operationID)}/resend`, '/operations/sign/{id}/resend', undefined);
  }

  /**
   * Asks the service to cancel a pending operation (`POST {mng}/operations/{id}/cancel`).
   * 409 from it (already finished) surfaces as CustodyRequestError with upstreamStatus 409.
   */
  async cancelOperation(operationID: string): Promise<void> {
    await this.call('POST', `/operations/${pathSegment(operationID)}/cancel`, '/operations/{id}/cancel', undefined);
  }

  /** The public part of a BIP44 account: key, chain code, depth, parent fingerprint, child number. */
  async accountBackup(vaultId: string, coin: string, account: string): Promise<AccountBackup> {
    return this.call(
      'GET',
      `/vaults/${pathSegment(vaultId)}/coins/${pathSegment(coin)}/accounts/${pathSegment(account)}/backup`,
      '/vaults/{id}/coins/{coin}/accounts/{account}/backup',
      accountBackupSchema,
    );
  }

  async vaultPublicKey(vaultId: string): Promise<{ publicKey: string }> {
    const r = await this.call('GET', `/vaults/${pathSegment(vaultId)}/publickey`, '/vaults/{id}/publickey', vaultPublicKeySchema);
    return { publicKey: r.publicKey };
  }

  /**
   * `GET {mng}/status`, in either revision's shape. A 500 (the service is not operational) is
   * thrown at once as CustodyNotOperationalError carrying the service's words, not retried.
   */
  status(): Promise<ServiceStatus> {
    return this.call('GET', '/status', '/status', serviceStatusSchema, undefined, { notOperationalOn500: true });
  }

  /**
   * The longest one call can take: every attempt running to its timeout, with the longest
   * backoff between them (the time to obtain a token is not counted). A call started longer
   * ago than this has been answered or given up.
   */
  get longestCallMs(): number {
    return (this.retries + 1) * this.timeoutMs + this.retries * this.maxBackoffMs;
  }

  /** For the `/status` route: never throws, a failure is reported as unhealthy. */
  async health(): Promise<ComponentHealth> {
    try {
      return summariseStatus(await this.status());
    } catch (e) {
      return { healthy: false, errorMessage: (e as Error).message };
    }
  }

  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    template: string,
    schema: z.ZodType<T> | undefined,
    body?: unknown,
    options: CallOptions = {},
  ): Promise<T> {
    const operation = `${method} ${template}`;
    let last: Attempt<T> | undefined;
    let renewed = false;
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0 && last && !last.ok && !last.unauthorized) {
        const delay = this.backoff(attempt, last);
        this.log.warn({ operation, attempt, delayMs: delay, reason: last.reason }, 'custody call failed; retrying');
        await sleep(delay);
      }
      last = await this.attempt(method, path, operation, schema, body, options);
      if (last.ok) return last.value;
      if (last.unauthorized) {
        // A 401 renews the credentials once and tries again; a second 401 is final.
        if (renewed || !this.auth || !(await this.auth.renew(last.unauthorized.used))) {
          this.log.warn({ operation, status: 401, title: last.unauthorized.problem.upstreamTitle }, 'custody refused the credentials');
          throw new CustodyRequestError(last.unauthorized.problem, 'ERR_CUSTODY_AUTH');
        }
        renewed = true;
        this.log.info({ operation }, 'custody answered 401; credentials renewed, trying again');
        attempt--;
      }
    }
    const failure = last as Extract<Attempt<T>, { ok: false }>;
    this.log.error({ operation, attempts: this.retries + 1, reason: failure.reason }, 'custody service unavailable');
    throw new UnavailableError(`custody ${operation} failed after ${this.retries + 1} attempts: ${failure.reason}`, failure.cause, 'ERR_CUSTODY_UNAVAILABLE');
  }

  private async attempt<T>(
    method: string,
    path: string,
    operation: string,
    schema: z.ZodType<T> | undefined,
    body: unknown,
    options: CallOptions,
  ): Promise<Attempt<T>> {
    const headers: Record<string, string> = { accept: 'application/json, application/problem+json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let used = '';
    try {
      if (this.auth) headers.authorization = used = await this.auth.header();
    } catch (e) {
      // Obtaining a token failed: transient (service down) is retried, a refusal is final.
      if (e instanceof AppError && e.retryable) return { ok: false, reason: e.details, cause: e };
      throw e;
    }
    let res: HttpAnswer;
    let text: string;
    try {
      res = await this.opts.fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await res.text();
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      const reason = err.name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : (err.cause?.code ?? err.message);
      return { ok: false, reason, cause: e };
    }
    if (res.status === 500 && options.notOperationalOn500) {
      const problem = notOperationalProblem(operation, res.status, text);
      this.log.warn({ operation, status: res.status, details: problem.upstreamDetails }, 'custody service not operational');
      throw new CustodyNotOperationalError(problem);
    }
    if (res.status === 429 || res.status >= 500) {
      return { ok: false, reason: `HTTP ${res.status}`, retryAfterMs: retryAfter(res) };
    }
    if (res.status >= 400) {
      const problem = toProblem(operation, res.status, text);
      if (res.status === 401 && this.auth) return { ok: false, reason: 'HTTP 401', unauthorized: { used, problem } };
      this.log.warn({ operation, status: res.status, title: problem.upstreamTitle }, 'custody refused the request');
      if (res.status === 404) throw new CustodyNotFoundError(problem);
      throw new CustodyRequestError(problem, res.status === 401 || res.status === 403 ? 'ERR_CUSTODY_AUTH' : undefined);
    }
    if (!schema) return { ok: true, value: undefined as T };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new CustodyRequestError({ operation, upstreamStatus: res.status, upstreamDetails: 'answer is not JSON' }, 'ERR_CUSTODY_BAD_RESPONSE', e);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const details = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
      throw new CustodyRequestError({ operation, upstreamStatus: res.status, upstreamDetails: `unexpected answer: ${details}` }, 'ERR_CUSTODY_BAD_RESPONSE');
    }
    return { ok: true, value: parsed.data };
  }

  /** Exponential with "equal jitter": never less than half the step, so retries stay spread out. */
  private backoff(attempt: number, last: { retryAfterMs?: number }): number {
    const step = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (attempt - 1));
    const jittered = step / 2 + Math.random() * (step / 2);
    return Math.round(Math.min(this.maxBackoffMs, Math.max(jittered, last.retryAfterMs ?? 0)));
  }
}

/**
 * One path segment of a custody URL. `encodeURIComponent` leaves `.` alone, and a segment
 * `.` or `..` walks up the URL (`/vaults/../publickey`), so those are refused here whatever
 * the caller checked, as is a `/` (defence in depth: callers validate ids first).
 */
export function pathSegment(segment: string): string {
  if (segment === '' || segment === '.' || segment === '..' || /[/\\]/.test(segment)) {
    throw new InvalidArgumentError(`'${segment}' cannot be a path segment of a custody URL (empty, '.', '..' or containing '/' or '\\')`);
  }
  return encodeURIComponent(segment);
}

function retryAfter(res: HttpAnswer): number | undefined {
  const value = res.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * The status route's 500: a problem body, as every management error, or the service status
 * itself; then the parts it reports broken are the details.
 */
function notOperationalProblem(operation: string, status: number, text: string): CustodyProblem {
  const problem = toProblem(operation, status, text);
  if (problem.upstreamDetails) return problem;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return problem;
  }
  const reported = serviceStatusSchema.safeParse(json);
  return reported.success ? { ...problem, upstreamDetails: summariseStatus({ ...reported.data, healthy: false }).errorMessage } : problem;
}

function toProblem(operation: string, status: number, text: string): CustodyProblem {
  let parsed: z.infer<typeof problemSchema> | undefined;
  try {
    const r = problemSchema.safeParse(JSON.parse(text));
    if (r.success) parsed = r.data;
  } catch {
    // Not JSON (a proxy's HTML page, say): keep a short excerpt as the details.
  }
  return {
    operation,
    upstreamStatus: status,
    upstreamType: parsed?.type,
    upstreamTitle: parsed?.title,
    upstreamDetails: parsed ? (parsed.details ?? parsed.detail) : text.slice(0, 200) || undefined,
  };
}
