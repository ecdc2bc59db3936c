import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

/** The wallet layer's error body (`{title, details, errCode, type}` and the figures some errors add). */
export type AppError = components['schemas']['AppError'];

export interface ByowClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the service runs, without a path: `https://byow.example.com`. */
  baseUrl: string;
  /** An API key; sent as `Authorization: Bearer <key>` on every request. */
  apiKey?: string;
}

export type ByowClient = Client<paths>;

/**
 * A typed client of the service: paths, parameters, bodies and answers come from its OpenAPI
 * document. Every call resolves to `{ data }` on success or `{ error }` (an `AppError`) otherwise;
 * nothing throws for an HTTP error status.
 *
 * ```ts
 * const byow = createByowClient({ baseUrl: 'http://127.0.0.1:8080', apiKey });
 * const { data, error } = await byow.POST('/api/v1.0/vaults/{vaultId}/withdrawals', {
 *   params: { path: { vaultId } },
 *   body: { recipientAddress, amount: '1.25', description: 'payout' },
 * });
 * ```
 */
export function createByowClient(options: ByowClientOptions): ByowClient {
  const { apiKey, headers, ...rest } = options;
  return createClient<paths>({
    ...rest,
    headers: { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...(headers as Record<string, string> | undefined) },
  });
}
