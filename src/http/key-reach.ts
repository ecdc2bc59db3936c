import type { Request, RequestHandler } from 'express';
import { ForbiddenError, NotFoundError } from '../platform/errors.js';
import type { AuthContext } from './auth.js';

/**
 * API keys limited to some vaults and/or ledgers (API_KEYS `vaults`, `ledgers`), held to them
 * once, where routes are mounted, from the names a request carries:
 *
 * - a vault in the path (`:vaultId`) outside the key's reach answers 404, word for word what an
 *   unregistered vault answers, so the key learns nothing about vaults it may not see;
 *   For a key limited to ledgers, the path's vault must be registered on one of them;
 * - a vault or ledger named in the body (`vaultId`, `recipientVault`, `ledgerId`; a body vault
 *   by name only) or a ledger in the path (`:ledgerId`) outside its reach answers 403 naming
 *   what the key may use: the refusal does not depend on whether the vault exists, and
 *   ledgers are public (`GET /config`);
 * - a route spanning every vault declares `acrossVaults`: `'filter'` (its handler keeps to the
 *   key's vaults with `reachesVault`) or `'unlimited-keys'` (403 for a limited key).
 */
export type AcrossVaults = 'filter' | 'unlimited-keys';

const VAULT_PARAMS = ['vaultId'];
const VAULT_BODY_FIELDS = ['vaultId', 'recipientVault'];
const LEDGER_FIELDS = ['ledgerId'];

export function isLimitedKey(auth: AuthContext | undefined): auth is AuthContext {
  return Boolean(auth && (auth.vaults || auth.ledgers));
}

/** Whether the key may act on a vault (of `ledgerId`, when known). */
export function reachesVault(auth: AuthContext | undefined, vaultId: string, ledgerId?: string): boolean {
  if (!isLimitedKey(auth)) return true;
  if (auth.vaults && !auth.vaults.includes(vaultId)) return false;
  return !(auth.ledgers && ledgerId !== undefined && !auth.ledgers.includes(ledgerId));
}

export function reachesLedger(auth: AuthContext | undefined, ledgerId: string): boolean {
  return !isLimitedKey(auth) || !auth.ledgers || auth.ledgers.includes(ledgerId);
}

/**
 * A vault in the path: in the key's vaults, and for a key limited to ledgers, registered on one
 * of them (an unregistered vault is outside too, so that the answer does not tell the two apart).
 */
async function reachesPathVault(auth: AuthContext, vaultId: string): Promise<boolean> {
  if (!reachesVault(auth, vaultId)) return false;
  if (!auth.ledgers) return true;
  const ledgerId = await auth.vaultLedger?.(vaultId);
  return ledgerId !== undefined && auth.ledgers.includes(ledgerId);
}

function reachText(auth: AuthContext): string {
  return `vaults${auth.vaults ? ` ${auth.vaults.join(', ')}` : ''}${auth.ledgers ? ` of ledgers ${auth.ledgers.join(', ')}` : ''}`;
}

const strings = (source: unknown, names: string[]): [string, string][] =>
  source && typeof source === 'object'
    ? names.flatMap((n) => {
        const v = (source as Record<string, unknown>)[n];
        return typeof v === 'string' ? [[n, v] as [string, string]] : [];
      })
    : [];

async function check(auth: AuthContext, req: Request, acrossVaults: AcrossVaults | undefined): Promise<void> {
  if (acrossVaults === 'unlimited-keys') {
    throw new ForbiddenError(
      `The API key '${auth.keyName}' is limited to ${reachText(auth)}; this route spans every vault and needs a key without vaults or ledgers.`,
    );
  }
  for (const [, vaultId] of strings(req.params, VAULT_PARAMS)) {
    if (!(await reachesPathVault(auth, vaultId))) throw new NotFoundError(`Vault '${vaultId}' is not registered`);
  }
  const outside = (what: string) => new ForbiddenError(`The API key '${auth.keyName}' may act on ${reachText(auth)} only; ${what} is outside them.`);
  for (const [field, vaultId] of strings(req.body, VAULT_BODY_FIELDS)) {
    // By name only: a registration names a vault not registered yet (its ledgerId is checked below).
    if (!reachesVault(auth, vaultId)) throw outside(`${field} '${vaultId}'`);
  }
  for (const [field, ledgerId] of [...strings(req.params, LEDGER_FIELDS), ...strings(req.body, LEDGER_FIELDS)]) {
    if (!reachesLedger(auth, ledgerId)) throw outside(`${field} '${ledgerId}'`);
  }
}

/** The check, run after authentication: nothing to do for a key without limits. */
export function keyReach(acrossVaults: AcrossVaults | undefined): RequestHandler {
  return (req, res, next) => {
    const auth = res.locals.auth as AuthContext | undefined;
    if (!isLimitedKey(auth)) return next();
    check(auth, req, acrossVaults).then(() => next(), next);
  };
}
