import { UnavailableError, UpstreamError } from '../../../src/platform/errors.js';
import type { HttpFetch, HttpInit, HttpAnswer as HttpResponse } from '../../../src/platform/http-client.js';

export interface HttpAnswer {
  status: number;
  text: string;
}

/**
 * One HTTP exchange with a back end. Transport failures, 5xx and 429 are UnavailableError
 * (retryable); every other status is handed back for the caller to judge.
 */
export async function httpRequest(fetchFn: HttpFetch, what: string, url: string, init: HttpInit = {}, timeoutMs = 15_000): Promise<HttpAnswer> {
  let res: HttpResponse;
  try {
    res = await fetchFn(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    throw new UnavailableError(`${what} unreachable: ${(e as Error).message}`, e, 'ERR_NODE_UNAVAILABLE');
  }
  const text = await res.text().catch(() => '');
  if (res.status >= 500 || res.status === 429) {
    throw new UnavailableError(`${what} answered HTTP ${res.status}: ${text.slice(0, 200)}`, undefined, 'ERR_NODE_UNAVAILABLE');
  }
  return { status: res.status, text };
}

export function parseJson<T>(what: string, text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    throw new UpstreamError(`${what} answered with non-JSON: ${text.slice(0, 200)}`, true, e, 'ERR_NODE_UNAVAILABLE');
  }
}
