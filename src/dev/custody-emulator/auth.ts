import { createHash, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { EmulatorContext, PasswordHasher } from './context.js';
import type { Role, User } from './model.js';
import { ProblemError, unauthorized } from './problem.js';
import type { TokenRecord } from './store.js';

export const ACCESS_TOKEN_SECONDS = 20 * 60;
export const REFRESH_TOKEN_SECONDS = 20 * 60;
export const API_KEY_SECONDS = 365 * 24 * 60 * 60;

export interface Principal {
  owner: string;
  role: Role;
  kind: TokenRecord['kind'];
}

export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');
export const newToken = (): string => randomBytes(32).toString('base64url');

export const scryptHasher: PasswordHasher = (password, salt) => scryptSync(password, salt, 32);

export function hashPassword(password: string, salt = randomBytes(16).toString('hex')): { passwordHash: string; salt: string } {
  return { passwordHash: scryptHasher(password, salt).toString('hex'), salt };
}

/** What an unknown or disabled user's password is checked against, so that it costs one hash as a known user's does. */
const DUMMY_USER = { salt: randomBytes(16).toString('hex'), passwordHash: Buffer.alloc(32) };

/**
 * Exactly one hash and one comparison whoever the name is (known, unknown or disabled), so the
 * time of a failed login does not tell whether the user exists.
 */
function passwordMatches(hasher: PasswordHasher, user: User | undefined, password: string): boolean {
  const usable = user?.enabled === true;
  const given = hasher(password, usable ? user.salt : DUMMY_USER.salt);
  const expected = usable ? Buffer.from(user.passwordHash, 'hex') : DUMMY_USER.passwordHash;
  // timingSafeEqual needs equal lengths; a stored hash of another length never matches.
  const same = expected.length === given.length && timingSafeEqual(given, expected);
  return usable && same;
}

/** Constant-time text comparison (hashing first makes the lengths equal). */
export function sameText(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

export function basicCredentials(req: Request): { name: string; password: string } | undefined {
  const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(req.get('authorization') ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1] as string, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon < 0 ? undefined : { name: text.slice(0, colon), password: text.slice(colon + 1) };
}

export const passwordMustChange = (status: number) =>
  new ProblemError(
    status,
    'password-must-be-changed',
    'Password must be changed',
    'The password of this user must be changed before it can log in: PUT {mng}/auth/password.',
  );

/**
 * The user behind a name and password; 401 for anything wrong, without saying which part. The
 * failures count against the name and the peer address; 429 once either used up its limit.
 */
export async function checkPassword(ctx: EmulatorContext, name: string, password: string, peer: string): Promise<User> {
  ctx.loginLimiter.refuseIfBlocked(name, peer);
  const user = await ctx.store.get<User>('user', name);
  if (!passwordMatches(ctx.passwordHasher, user, password) || !user) {
    ctx.loginLimiter.failed(name, peer);
    throw unauthorized('Invalid user name or password.', 'invalid-credentials');
  }
  ctx.loginLimiter.succeeded(name);
  return user;
}

/** Stores a new token; the token text itself is never kept, only its SHA-256. */
export async function issueToken(ctx: EmulatorContext, kind: TokenRecord['kind'], owner: string, role: Role, seconds: number): Promise<string> {
  const token = newToken();
  await ctx.store.putToken(tokenHash(token), { kind, owner, role, expiresAt: ctx.now() + seconds * 1000 });
  return token;
}

/**
 * Who a bearer token speaks for. An API key keeps the role it was created with; an access token
 * acts with its user's role as stored now (the token result states the role at login only), so
 * a user demoted or disabled after logging in loses those rights at once.
 */
export async function principalOf(ctx: EmulatorContext, token: string): Promise<Principal | undefined> {
  const record = await ctx.store.getToken(tokenHash(token));
  if (!record || record.kind === 'refresh' || record.expiresAt <= ctx.now()) return undefined;
  if (record.kind === 'apikey') return { owner: record.owner, role: record.role as Role, kind: record.kind };
  const user = await ctx.store.get<User>('user', record.owner);
  return user?.enabled ? { owner: user.name, role: user.role, kind: record.kind } : undefined;
}

/** `Authorization: Bearer <access token | API key>` on every management call that the spec shows with it (roles.ts says which). */
export function requireToken(ctx: EmulatorContext): RequestHandler {
  return async (req, res, next) => {
    if (ctx.openAccess && !req.get('authorization')) {
      res.locals.principal = { owner: ctx.admin.user, role: 'Super_User', kind: 'access' } satisfies Principal;
      return next();
    }
    const m = /^Bearer (\S+)$/.exec(req.get('authorization') ?? '');
    const principal = m ? await principalOf(ctx, m[1] as string) : undefined;
    if (!principal) {
      return next(unauthorized('Invalid authentication data: send "Authorization: Bearer <ACCESS_TOKEN or API_KEY>"; access tokens last 20 minutes.'));
    }
    res.locals.principal = principal;
    next();
  };
}
