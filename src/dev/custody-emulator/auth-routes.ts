import { Router, type Response } from 'express';
import { z } from 'zod';
import {
  API_KEY_SECONDS,
  ACCESS_TOKEN_SECONDS,
  basicCredentials,
  checkPassword,
  hashPassword,
  issueToken,
  passwordMustChange,
  principalOf,
  REFRESH_TOKEN_SECONDS,
  tokenHash,
  type Principal,
} from './auth.js';
import type { EmulatorContext, Revision } from './context.js';
import { ROLES, type ApiKeyRecord, type Role, type User } from './model.js';
import { badRequest, conflict, forbidden, notFound, parse, unauthorized } from './problem.js';

// 1.0.1811 named its roles ADMIN and USER.
const roleSchema = z.union([z.enum(ROLES), z.enum(['ADMIN', 'USER']).transform((r): Role => (r === 'ADMIN' ? 'Super_User' : 'Trader'))]);
const name = z.string().min(1).max(200);
const password = z.string().min(1).max(1_000);
const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

const tokenBody = z.object({
  grant_type: z.enum(['password', 'refresh_token']),
  username: name.optional(),
  password: password.optional(),
  client_id: z.string().max(200).optional(),
  scope: z.string().max(200).optional(),
  refreshtoken: z.string().max(200).optional(),
  refresh_token: z.string().max(200).optional(),
});

type Req = Parameters<Parameters<Router['post']>[1]>[0];

/** The peer's address, as failed logins are counted per address. */
const peerOf = (req: Req): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

/** The token result of a login or refresh: refresh token and role from 1.0.1905 on. */
async function issueTokens(ctx: EmulatorContext, revision: Revision, res: Response, user: User): Promise<void> {
  const access = await issueToken(ctx, 'access', user.name, user.role, ACCESS_TOKEN_SECONDS);
  const result: Record<string, unknown> = { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, scope: '/mng' };
  if (revision !== '1.0.1811') {
    result.role = user.role.toUpperCase();
    result.refresh_token = await issueToken(ctx, 'refresh', user.name, user.role, REFRESH_TOKEN_SECONDS);
  }
  res.status(201).json(result);
}

/** Exchanges a refresh token (used once) for new tokens. */
async function refreshLogin(ctx: EmulatorContext, revision: Revision, res: Response, refresh: string): Promise<void> {
  const record = await ctx.store.getToken(tokenHash(refresh));
  if (!record || record.kind !== 'refresh' || record.expiresAt <= ctx.now())
    throw unauthorized('The refresh token is invalid or expired.', 'invalid-refresh-token');
  const user = await ctx.store.get<User>('user', record.owner);
  if (!user?.enabled) throw unauthorized('The refresh token is invalid or expired.', 'invalid-refresh-token');
  await ctx.store.deleteToken(tokenHash(refresh));
  await issueTokens(ctx, revision, res, user);
}

/** `POST {mng}/auth/token(s)`: a password login (HTTP Basic or the body) or a refresh. */
function loginRoutes(r: Router, ctx: EmulatorContext, revision: Revision): void {
  r.post(['/auth/token', '/auth/tokens'], async (req: Req, res: Response) => {
    const body = parse(tokenBody, req.body);
    const refresh = body.refreshtoken ?? body.refresh_token;
    if (refresh) return refreshLogin(ctx, revision, res, refresh);
    if (body.grant_type !== 'password') throw badRequest("grant_type 'refresh_token' needs refreshtoken", 'invalid-arguments');
    const basic = basicCredentials(req);
    const creds = basic ?? (body.username && body.password ? { name: body.username, password: body.password } : undefined);
    if (!creds)
      throw unauthorized('Send the user name and password with HTTP Basic authentication (or username and password in the body).', 'invalid-credentials');
    const user = await checkPassword(ctx, creds.name, creds.password, peerOf(req));
    // 1.0.2106 answers 400 for a password that must change; the samples of earlier releases show 401.
    if (user.mustChangePassword) throw passwordMustChange(revision === '1.0.2106' ? 400 : 401);
    await issueTokens(ctx, revision, res, user);
  });
}

/** The user a password change is for: HTTP Basic with the current password, or a user access token. */
async function passwordChanger(ctx: EmulatorContext, req: Req): Promise<string | undefined> {
  const basic = basicCredentials(req);
  if (basic) return (await checkPassword(ctx, basic.name, basic.password, peerOf(req))).name;
  const m = /^Bearer (\S+)$/.exec(req.get('authorization') ?? '');
  const p = m ? await principalOf(ctx, m[1] as string) : undefined;
  return p?.kind === 'access' ? p.owner : undefined;
}

/** `PUT {mng}/auth/password`: a user changes its own password. */
function ownPasswordRoutes(r: Router, ctx: EmulatorContext): void {
  const store = ctx.store;
  r.put(['/auth/password', '/auth/users/password'], async (req: Req, res: Response) => {
    const body = parse(z.object({ value: password }), req.body);
    const userName = await passwordChanger(ctx, req);
    if (!userName) throw unauthorized('Authenticate with HTTP Basic (user name and current password) or a user access token.');
    await store.exclusive(async () => {
      const user = await store.get<User>('user', userName);
      if (!user) throw unauthorized('Invalid user name or password.', 'invalid-credentials');
      await store.put('user', user.name, { ...user, ...hashPassword(body.value), mustChangePassword: false });
    });
    res.status(200).end();
  });
}

/** User management (a Super_User's: roles.ts): create, list, set password, enable or disable, change role, delete. */
function userRoutes(r: Router, ctx: EmulatorContext, revision: Revision): void {
  const store = ctx.store;

  async function updateUser(userName: string, change: (u: User) => User): Promise<void> {
    await store.exclusive(async () => {
      const user = await store.get<User>('user', userName);
      if (!user) throw notFound(`User ${userName} does not exist.`);
      const next = change(user);
      await store.put('user', user.name, next);
      if (!next.enabled) await store.revokeOwner(user.name, ['access', 'refresh']);
    });
  }
  const setUser = (active: boolean | undefined, role: Role | undefined) => (u: User) => ({ ...u, enabled: active ?? u.enabled, role: role ?? u.role });

  r.post('/auth/users', async (req, res) => {
    const body = parse(z.object({ name, password, role: revision === '1.0.1811' ? roleSchema.default('Trader') : roleSchema }), req.body);
    await store.exclusive(async () => {
      if (await store.get('user', body.name)) throw conflict(`User ${body.name} already exists.`, 'user-exists');
      const user: User = { name: body.name, ...hashPassword(body.password), role: body.role, enabled: true, mustChangePassword: false };
      await store.put('user', user.name, user);
    });
    res.status(201).end();
  });
  r.get('/auth/users', async (_req, res) => {
    const users = await store.list<User>('user');
    res.json(users.sort((a, b) => a.name.localeCompare(b.name)).map((u) => ({ name: u.name, enabled: u.enabled, role: u.role })));
  });
  r.put('/auth/users/:username/password', async (req, res) => {
    const body = parse(z.object({ password, mustChangePassword: flag }), req.body);
    await updateUser(String(req.params.username), (u) => ({ ...u, ...hashPassword(body.password), mustChangePassword: body.mustChangePassword }));
    res.status(200).end();
  });
  r.put('/auth/users/:username', async (req, res) => {
    const body = parse(z.object({ enabled: flag.optional(), active: flag.optional(), role: roleSchema.optional() }), req.body);
    await updateUser(String(req.params.username), setUser(body.enabled ?? body.active, body.role));
    res.status(200).end();
  });
  r.put('/auth/:username', async (req, res) => {
    const body = parse(z.object({ active: flag.optional(), role: roleSchema.optional() }), req.body);
    await updateUser(String(req.params.username), setUser(body.active, body.role));
    res.status(200).end();
  });
  r.delete('/auth/users/:username', async (req, res) => {
    await store.exclusive(async () => {
      const user = await store.get<User>('user', String(req.params.username));
      if (!user) throw notFound(`User ${String(req.params.username)} does not exist.`);
      const others = (await store.list<User>('user')).filter((u) => u.name !== user.name && u.enabled && u.role === 'Super_User');
      if (user.role === 'Super_User' && others.length === 0) throw badRequest('The last Super_User cannot be deleted.', 'last-super-user');
      await store.del('user', user.name);
      await store.revokeOwner(user.name);
    });
    res.status(200).end();
  });
}

/** API keys (list, create, revoke) and token revocation, with the 1.0.1811 body-addressed forms. */
function apiKeyRoutes(r: Router, ctx: EmulatorContext, revision: Revision): void {
  const store = ctx.store;

  r.get('/auth/apikeys', async (_req, res) => {
    const keys = await store.list<ApiKeyRecord>('apikey');
    res.json(
      keys.map((k) => ({ clientId: k.clientId, tokenType: 'BEARER', expiry_in: Math.max(0, Math.floor((k.expiresAt - ctx.now()) / 1000)), scope: k.scope })),
    );
  });
  r.post('/auth/apikeys', async (req, res) => {
    const role = revision === '1.0.2106' ? roleSchema : roleSchema.default('Trader');
    const body = parse(z.object({ client_id: name, client_role: role, scope: z.literal('/mng'), grant_type: z.literal('client_credentials') }), req.body);
    const token = await store.exclusive(async () => {
      if (await store.get('apikey', body.client_id)) throw conflict(`An API key for client ${body.client_id} exists already.`, 'apikey-exists');
      const token = await issueToken(ctx, 'apikey', body.client_id, body.client_role, API_KEY_SECONDS);
      const rec: ApiKeyRecord = {
        clientId: body.client_id,
        role: body.client_role,
        scope: body.scope,
        tokenHash: tokenHash(token),
        expiresAt: ctx.now() + API_KEY_SECONDS * 1000,
      };
      await store.put('apikey', rec.clientId, rec);
      return token;
    });
    const result: Record<string, unknown> = { access_token: token, token_type: 'Bearer', expires_in: API_KEY_SECONDS, scope: '/mng' };
    if (revision !== '1.0.1811') result.role = body.client_role.toUpperCase();
    res.status(201).json(result);
  });
  const revokeKey = async (clientId: string) => {
    await store.exclusive(async () => {
      const rec = await store.get<ApiKeyRecord>('apikey', clientId);
      if (!rec) throw notFound(`No API key for client ${clientId}.`);
      await store.deleteToken(rec.tokenHash);
      await store.del('apikey', clientId);
    });
  };
  r.delete('/auth/apikeys/:clientId', async (req, res) => {
    await revokeKey(String(req.params.clientId));
    res.status(200).end();
  });
  const revokeTokens = async (owner: string, p: Principal) => {
    if (p.role !== 'Super_User' && p.owner !== owner) throw forbidden("Revoking another owner's tokens needs the role Super_User.", 'role-not-allowed');
    await store.revokeOwner(owner, ['access', 'refresh']);
  };
  r.delete(['/auth/token/:owner', '/auth/tokens/:owner'], async (req, res) => {
    await revokeTokens(String(req.params.owner), res.locals.principal as Principal);
    res.status(200).end();
  });
  // 1.0.1811: revocation with the client id in the body.
  r.delete('/auth/apikeys', async (req, res) => {
    await revokeKey(parse(z.object({ client_id: name }), req.body).client_id);
    res.status(200).end();
  });
  r.delete('/auth/tokens', async (req, res) => {
    await revokeTokens(parse(z.object({ client_id: name }), req.body).client_id, res.locals.principal as Principal);
    res.status(200).end();
  });
}

/** Authentication operations, with the 1.0.1811 paths beside the current ones. Mounted behind `authorize` (roles.ts), which checks tokens and roles. */
export function authRoutes(ctx: EmulatorContext, revision: Revision): Router {
  const r = Router();
  loginRoutes(r, ctx, revision);
  ownPasswordRoutes(r, ctx);
  userRoutes(r, ctx, revision);
  apiKeyRoutes(r, ctx, revision);
  return r;
}
