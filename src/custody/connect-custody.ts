import type { Logger } from 'pino';
import type { Config } from '../config/load-config.js';
import { apiKeyAuth, TokenSession, type CustodyAuth } from './custody-auth.js';
import { CustodyClient } from './custody-client.js';
import type { HttpFetch } from '../platform/http-client.js';

type CustodyConfig = Pick<Config, 'custodyUrl' | 'custodyApiKey' | 'custodyUser' | 'custodyPassword' | 'custodyClientId'>;

/** The connector as configured: API key, user-and-password tokens, or (sandbox) no credentials. */
export function createCustodyClient(config: CustodyConfig, logger: Logger, fetchFn: HttpFetch = fetch): CustodyClient | undefined {
  if (!config.custodyUrl) return undefined;
  let auth: CustodyAuth | undefined;
  if (config.custodyUser && config.custodyPassword) {
    auth = new TokenSession({
      baseUrl: config.custodyUrl,
      user: config.custodyUser,
      password: config.custodyPassword,
      clientId: config.custodyClientId,
      fetch: fetchFn,
      logger,
    });
  } else if (config.custodyApiKey) auth = apiKeyAuth(config.custodyApiKey);
  return new CustodyClient({ baseUrl: config.custodyUrl, auth, fetch: fetchFn, logger });
}
