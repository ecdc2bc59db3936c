import { z } from 'zod';
import { DEPOSIT_EVENT_TYPES } from '../../deposits/deposit-events.js';
import { WITHDRAWAL_EVENT_TYPES } from '../../withdrawals/store/outbox.js';
import { DELIVERY_STATUSES, type Delivery } from '../../webhooks/delivery-store.js';
import { withoutSecret } from '../../webhooks/subscription-store.js';
import type { WebhookService } from '../../webhooks/webhook-service.js';
import { defineRoute } from '../route.js';
import { decodeCursor, encodeCursor } from './cursor.js';

const EVENT_CHOICES = ['*', ...WITHDRAWAL_EVENT_TYPES, ...DEPOSIT_EVENT_TYPES];

const subscriptionSchema = z
  .object({ id: z.string(), url: z.string(), events: z.array(z.string()), description: z.string().optional(), createdAt: z.string() })
  .meta({ id: 'WebhookSubscription' });

const deliverySchema = z
  .object({
    id: z.string(),
    subscriptionId: z.string(),
    eventId: z.string(),
    type: z.string(),
    withdrawalId: z.string().optional(),
    sequence: z.number().optional(),
    operationID: z.string().optional(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number(),
    lastAttemptAt: z.string().optional(),
    lastResponseStatus: z.number().optional(),
    lastError: z.string().optional(),
    deliveredAt: z.string().optional(),
    createdAt: z.string(),
    event: z.unknown().describe('The event exactly as sent'),
  })
  .meta({ id: 'WebhookDelivery' });

function renderDelivery({ body, orderKey, ...d }: Delivery) {
  return { ...d, ...(d.sequence !== undefined ? { withdrawalId: orderKey } : {}), event: JSON.parse(body) as unknown };
}

const idParams = z.object({ id: z.string().min(1).max(64) });

/** Subscriptions get the events of every vault: only admin keys without vault or ledger limits manage them. */
export function webhookRoutes(service: WebhookService) {
  return [
    defineRoute({
      method: 'post',
      path: '/admin/webhooks',
      summary: 'Subscribe a URL to withdrawal events; the signing secret is shown in this answer only',
      tags: ['webhooks'],
      scope: 'admin',
      acrossVaults: 'unlimited-keys',
      status: 201,
      body: z.object({
        url: z.string().min(1).max(2048).describe('http(s) URL; loopback, link-local and private addresses are refused unless WEBHOOK_ALLOW_PRIVATE'),
        events: z
          .array(z.string())
          .min(1)
          .refine((es) => es.every((e) => EVENT_CHOICES.includes(e)), { message: `unknown event type. Valid values: ${EVENT_CHOICES.join(', ')}` })
          .describe(`Event types, or * for all: ${EVENT_CHOICES.join(', ')}`),
        secret: z.string().min(16, 'use at least 16 characters').max(256).optional().describe('HMAC secret; generated when absent'),
        description: z.string().max(200).optional(),
      }),
      response: subscriptionSchema.extend({ secret: z.string().describe('Shown once: keep it to verify X-Webhook-Signature') }),
      errors: [409, 422],
      responses: { 409: { description: 'WEBHOOK_MAX_SUBSCRIPTIONS subscriptions exist already (ERR_TOO_MANY_SUBSCRIPTIONS)' } },
      handler: async ({ body }) => service.subscribe(body),
    }),
    defineRoute({
      method: 'get',
      path: '/admin/webhooks',
      summary: 'Webhook subscriptions (without their secrets), in creation order, a page at a time',
      tags: ['webhooks'],
      scope: 'admin',
      acrossVaults: 'unlimited-keys',
      query: z.object({
        limit: z.coerce.number().int().min(1).max(200).default(50),
        cursor: z.string().max(300).optional().describe('nextCursor of the previous page'),
      }),
      response: z.object({ items: z.array(subscriptionSchema), nextCursor: z.string().optional().describe('Present while more follow') }),
      errors: [422],
      handler: async ({ query }) => {
        const { items, next } = await service.deps.subscriptions.page(query.limit, query.cursor === undefined ? undefined : decodeCursor(query.cursor));
        return { items: items.map(withoutSecret), ...(next ? { nextCursor: encodeCursor(next) } : {}) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/admin/webhooks/:id',
      summary: 'Delete a subscription; its undelivered events are cancelled',
      tags: ['webhooks'],
      scope: 'admin',
      acrossVaults: 'unlimited-keys',
      params: idParams,
      status: 204,
      response: z.null(),
      errors: [404],
      handler: async ({ params, res }) => {
        await service.unsubscribe(params.id);
        res.status(204).end();
      },
    }),
    defineRoute({
      method: 'post',
      path: '/admin/webhooks/:id/test',
      summary: 'Queue a signed webhook.test event to the subscription; follow it in its deliveries',
      tags: ['webhooks'],
      scope: 'admin',
      acrossVaults: 'unlimited-keys',
      params: idParams,
      status: 202,
      response: deliverySchema,
      errors: [404],
      handler: async ({ params }) => renderDelivery(await service.sendTest(params.id)),
    }),
    defineRoute({
      method: 'get',
      path: '/admin/webhooks/:id/deliveries',
      summary: "A subscription's deliveries, newest first, with attempts and the receiver's last answer",
      tags: ['webhooks'],
      scope: 'admin',
      acrossVaults: 'unlimited-keys',
      params: idParams,
      query: z.object({
        status: z.enum(DELIVERY_STATUSES).optional(),
        limit: z.coerce.number().int().min(1).max(200).default(50),
        cursor: z.string().max(200).optional().describe('nextCursor of the previous page'),
      }),
      response: z.object({ items: z.array(deliverySchema), nextCursor: z.string().optional() }),
      errors: [404, 422],
      handler: async ({ params, query }) => {
        await service.deps.subscriptions.get(params.id);
        const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
        const { items, next } = await service.deps.deliveries.list(params.id, { limit: query.limit, status: query.status, ...(before ? { before } : {}) });
        return { items: items.map(renderDelivery), ...(next ? { nextCursor: encodeCursor(next) } : {}) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/admin/webhooks/:id/deliveries/:deliveryId/retry',
      summary: 'Send a failed delivery again (a fresh retry schedule); later events of its withdrawal follow it',
      tags: ['webhooks'],
      scope: 'admin',
      acrossVaults: 'unlimited-keys',
      params: idParams.extend({ deliveryId: z.string().min(1).max(200) }),
      status: 202,
      response: deliverySchema,
      errors: [404, 409],
      handler: async ({ params }) => renderDelivery(await service.retry(params.id, params.deliveryId)),
    }),
  ];
}
