import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { InvalidArgumentError, unknownValue } from '../../platform/errors.js';
import { formatAmount, parseAmount } from '../../ledger/amounts.js';
import { resolveAssets } from '../../ledger/registry.js';
import type { AppContext } from '../../http/app-context.js';
import { singleAddress } from '../../vaults/vault-addresses.js';
import { readVaultKey } from '../../vaults/custody-vault-keys.js';
import type { VaultRecord } from '../../vaults/vault-schema.js';
import { defineRoute, type AnyRouteSpec } from '../../http/route.js';
import type { LocalNodeMining, MiningAction } from '../../ledger/adaptor.js';
import type { Sandbox } from './sandbox.js';

const MINING_ACTIONS = ['pause', 'resume', 'mine', 'reorg'] as const satisfies readonly MiningAction[];

/** The actions a node's mining controls offer, in the order of MINING_ACTIONS. */
export const miningActions = (mining: LocalNodeMining | undefined): MiningAction[] => MINING_ACTIONS.filter((a) => mining?.[a] !== undefined);

/**
 * Sandbox-only shortcuts for the walk-through: a custody vault created and registered in one
 * call, a faucet, and control of the development nodes' block production.
 */
export function sandboxRoutes(core: Pick<AppContext, 'registry' | 'vaults' | 'custody'>, sandbox: Sandbox): AnyRouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/sandbox/vaults',
      summary: 'SANDBOX: create an initialized 2-of-3 vault in the custody emulator (account, participants, vault, joins) and register it here by id',
      tags: ['sandbox'],
      scope: 'admin',
      body: z.object({ ledgerId: z.string(), addressFormat: z.string().optional() }),
      status: 201,
      response: z.object({ vaultId: z.string(), ledgerId: z.string(), publicKey: z.string(), address: z.string() }),
      handler: async ({ body }) => {
        const adaptor = core.registry.get(body.ledgerId);
        // Checked before the custody side makes a key, so a refused request leaves nothing behind.
        const formats = adaptor.addressFormats();
        if (body.addressFormat !== undefined && !formats.includes(body.addressFormat)) {
          throw unknownValue('addressFormat', body.addressFormat, formats);
        }
        // Names are unique per custody account: requests in the same millisecond must not share one.
        const name = `${adaptor.ledgerId}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
        const { vaultId } = await sandbox.custody.createVault(adaptor.scheme === 'ed25519' ? 'EDDSA' : 'ECDSA', name);
        // Registered by id, as POST /admin/vaults {vaultId, ledgerId} does: the key comes from the custody service.
        const { publicKey } = (await readVaultKey(core.custody, vaultId)) as { publicKey: string };
        const record: VaultRecord = {
          vaultId,
          ledgerId: adaptor.ledgerId,
          kind: 'single',
          publicKey,
          ...(body.addressFormat ? { addressFormat: body.addressFormat } : {}),
          createdAt: new Date().toISOString(),
        };
        record.address = singleAddress(adaptor, record).address;
        await core.vaults.create(record);
        return { vaultId, ledgerId: record.ledgerId, publicKey, address: record.address };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/sandbox/faucet',
      summary: 'SANDBOX: send development funds to an address',
      tags: ['sandbox'],
      scope: 'admin',
      body: z.object({ ledgerId: z.string(), address: z.string(), asset: z.string().optional(), amount: z.union([z.string(), z.number()]) }),
      response: z.object({ ledgerId: z.string(), address: z.string(), asset: z.string(), amount: z.string(), reference: z.string() }),
      handler: async ({ body }) => {
        const adaptor = core.registry.get(body.ledgerId);
        const faucet = sandbox.faucets[adaptor.ledgerId];
        if (!faucet) throw new InvalidArgumentError(`No faucet for ${adaptor.ledgerId}. Valid values: ${Object.keys(sandbox.faucets).join(', ')}`);
        if (!adaptor.isValidAddress(body.address)) throw new InvalidArgumentError(`'${body.address}' is not a valid ${adaptor.ledgerId} address`);
        const [asset] = resolveAssets(adaptor, [body.asset ?? adaptor.nativeAsset.symbol]);
        if (!asset) throw new InvalidArgumentError('asset is required');
        const units = parseAmount(body.amount, asset.decimals);
        const reference = await faucet(body.address, asset.symbol, units);
        return { ledgerId: adaptor.ledgerId, address: body.address, asset: asset.symbol, amount: formatAmount(units, asset.decimals), reference };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/sandbox/mining',
      summary:
        "SANDBOX: pause or resume block production of a ledger's development node, mine blocks now, or reorganise the last blocks, where its node can (422 names what a ledger supports)",
      tags: ['sandbox'],
      scope: 'admin',
      body: z.object({
        ledgerId: z.string(),
        action: z.enum(MINING_ACTIONS),
        /** `mine`: blocks to mine; `reorg`: how many of the last blocks to replace. Default 1. */
        blocks: z.number().int().min(1).max(64).optional(),
      }),
      response: z.object({
        ledgerId: z.string(),
        action: z.enum(MINING_ACTIONS),
        paused: z.boolean(),
        height: z.number().int(),
        actions: z.array(z.enum(MINING_ACTIONS)),
      }),
      handler: async ({ body }) => {
        const adaptor = core.registry.get(body.ledgerId);
        const mining = sandbox.mining[adaptor.ledgerId];
        const actions = miningActions(mining);
        if (!mining || !actions.includes(body.action)) {
          const offered = Object.entries(sandbox.mining).map(([id, m]) => `${id} (${miningActions(m).join(', ')})`);
          throw new InvalidArgumentError(
            actions.length
              ? `${adaptor.ledgerId} supports the mining actions ${actions.join(', ')}, not '${body.action}'`
              : `${adaptor.ledgerId}'s development node has no mining controls; ledgers with them: ${offered.join('; ') || 'none'}`,
            { supported: actions },
          );
        }
        const blocks = body.blocks ?? 1;
        if (body.action === 'pause') await mining.pause?.();
        else if (body.action === 'resume') await mining.resume?.();
        else if (body.action === 'mine') await mining.mine?.(blocks);
        else await mining.reorg?.(blocks);
        return { ledgerId: adaptor.ledgerId, action: body.action, ...(await mining.state()), actions };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/sandbox/webhook-sink',
      summary: 'SANDBOX: a webhook receiver to subscribe (POST /admin/webhooks with this URL): keeps the latest 200 events it receives',
      tags: ['sandbox'],
      body: z.record(z.string(), z.unknown()),
      response: z.object({ received: z.string() }),
      handler: async ({ body, req }) => ({ received: sandbox.webhookSink.receive(req.headers, body).id }),
    }),
    defineRoute({
      method: 'get',
      path: '/sandbox/webhook-sink',
      summary: 'SANDBOX: the webhook events the sink received, newest first (of one type with ?type=)',
      tags: ['sandbox'],
      scope: 'read',
      query: z.object({ type: z.string().max(64).optional() }),
      response: z.object({
        items: z.array(
          z.object({
            receivedAt: z.string(),
            type: z.string(),
            id: z.string(),
            signed: z.boolean().describe('Came with X-Webhook-Timestamp and X-Webhook-Signature (not checked: the sink has no secret)'),
            body: z.unknown(),
          }),
        ),
      }),
      handler: async ({ query }) => ({ items: sandbox.webhookSink.list(query.type) }),
    }),
  ];
}
