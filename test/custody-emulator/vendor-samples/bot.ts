import type { Harness } from '../harness.js';

export interface Bot {
  /** What the bot did, in order: `activate`, `join <vaultID>`, `approve <kind> <operationID>`. */
  actions: string[];
  stop(): Promise<void>;
}

/**
 * The participant's bot, as the samples tell the user to run the vendor's BotSigner
 * (`-p <participant> -c <activation code>`): it activates when given a code, then joins every
 * vault and approves every operation waiting for this participant. Played through the
 * emulator-only routes; it asks for work every 50 ms, as a bot polls its service. `ready` holds
 * an operation back until the test lets it go (a person who answers once the client shows it).
 */
export function startBot(h: Harness, participantId: string, activationCode?: string, ready: (operationID: string) => boolean = () => true): Bot {
  const actions: string[] = [];
  let running = true;
  const fail = (what: string, res: { status: number; json: unknown }) => new Error(`bot ${what}: ${res.status} ${JSON.stringify(res.json)}`);
  const loop = (async () => {
    if (activationCode) {
      const res = await h.device('POST', `/participants/${participantId}/activate`, { activationCode });
      if (res.status !== 200) throw fail('activate', res);
      actions.push('activate');
    }
    while (running) {
      const res = await h.device('GET', `/participants/${participantId}/operations`);
      if (res.status !== 200) throw fail('list', res);
      for (const op of res.json as { operationID: string; vaultID: string; kind: string }[]) {
        if (!ready(op.operationID)) continue;
        const joining = op.kind === 'JOIN_POLICY_VAULT';
        const path = joining
          ? `/participants/${participantId}/vaults/${op.vaultID}/join`
          : `/participants/${participantId}/operations/${op.operationID}/approve`;
        const done = await h.device('POST', path);
        if (done.status !== 200) throw fail(joining ? 'join' : 'approve', done);
        actions.push(joining ? `join ${op.vaultID}` : `approve ${op.kind} ${op.operationID}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    actions,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}
