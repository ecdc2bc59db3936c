/** A webhook the sandbox's sink received: when, what it said it is, whether it came signed, and its body. */
export interface ReceivedWebhook {
  receivedAt: string;
  /** The event's `type` (`deposit.detected`, …), from its body. */
  type: string;
  /** The event's id (`X-Webhook-Id`). */
  id: string;
  /** It carried `X-Webhook-Timestamp` and `X-Webhook-Signature` (the sink does not check them: it has no secret). */
  signed: boolean;
  body: unknown;
}

/**
 * Somewhere for the sandbox's webhooks to go without a receiver of one's own: a subscription
 * to `{API}/sandbox/webhook-sink` lands here, and `GET` on the same path lists what came, newest
 * first. In memory, the latest `keep` only: it lives as long as the sandbox process.
 */
export class WebhookSink {
  private readonly items: ReceivedWebhook[] = [];

  constructor(private readonly keep = 200) {}

  receive(headers: Record<string, string | string[] | undefined>, body: unknown): ReceivedWebhook {
    const header = (name: string): string | undefined => {
      const v = headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const type = body && typeof body === 'object' && typeof (body as { type?: unknown }).type === 'string' ? (body as { type: string }).type : 'unknown';
    const item: ReceivedWebhook = {
      receivedAt: new Date().toISOString(),
      type,
      id: header('x-webhook-id') ?? '',
      signed: Boolean(header('x-webhook-timestamp') && header('x-webhook-signature')),
      body,
    };
    this.items.unshift(item);
    this.items.length = Math.min(this.items.length, this.keep);
    return item;
  }

  /** Newest first, of `type` only when given. */
  list(type?: string): ReceivedWebhook[] {
    return type ? this.items.filter((i) => i.type === type) : [...this.items];
  }
}
