import type { RequestHandler } from 'express';
import { ForbiddenError, UnauthorizedError } from '../platform/errors.js';
import { findApiKey, isLimited, type ApiKeyRecord, type Scope } from '../security/api-keys.js';
import type { AuthThrottle } from './auth-throttle.js';

export interface AuthContext {
  keyName: string;
  scopes: Scope[];
  /** The vaults and ledgers the key is limited to, when it is (`key-reach.ts` holds it to them). */
  vaults?: string[];
  ledgers?: string[];
  /** The ledger of a registered vault, for a key limited to ledgers. */
  vaultLedger?: (vaultId: string) => Promise<string | undefined>;
}

/**
 * Bearer API-key authentication; 401 for a missing or unknown key, 403 for a missing scope,
 * 429 once the client's failures are throttled (`auth-throttle.ts`).
 */
export function bearerAuth(
  records: readonly ApiKeyRecord[],
  throttle?: AuthThrottle,
  vaultLedger?: AuthContext['vaultLedger'],
): (scope: Scope) => RequestHandler {
  return (scope) => async (req, res, next) => {
    try {
      const header = req.headers.authorization;
      const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
      if (!m) {
        await throttle?.failed(req, 'missing_key', undefined);
        return next(new UnauthorizedError());
      }
      const presented = m[1] as string;
      throttle?.refuseIfBlocked(req, presented);
      const record = findApiKey(records, presented);
      if (!record) return next((await throttle?.failed(req, 'unknown_key', presented)) ?? new UnauthorizedError('The API key is not valid.'));
      if (!record.scopes.includes(scope)) {
        return next(new ForbiddenError(`The API key '${record.name}' lacks the '${scope}' scope this route needs.`));
      }
      res.locals.auth = {
        keyName: record.name,
        scopes: record.scopes,
        ...(isLimited(record) ? { vaults: record.vaults, ledgers: record.ledgers, vaultLedger } : {}),
      } satisfies AuthContext;
      next();
    } catch (e) {
      next(e);
    }
  };
}
