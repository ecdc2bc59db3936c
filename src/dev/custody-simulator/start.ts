import type { Server } from 'node:http';
import { freePort } from '../free-port.js';
import { createCustodySimulator, type CustodySimulator, type CustodySimulatorOptions } from './simulator.js';

export interface RunningCustodySimulator {
  /** The `{mng}` base the connector is configured with: `{baseUrl}/custody/api/v1.0/mng`. */
  url: string;
  /** `http://127.0.0.1:<port>`; fault injection is at `{baseUrl}/dev/faults`. */
  baseUrl: string;
  sim: CustodySimulator;
  stop(): Promise<void>;
}

/** Serves a simulator on 127.0.0.1 only: it holds keys in clear memory and must not be reachable from elsewhere. */
export async function startCustodySimulator(
  opts: CustodySimulatorOptions & { port?: number },
): Promise<RunningCustodySimulator> {
  const sim = createCustodySimulator(opts);
  const port = opts.port ?? (await freePort());
  const server = await new Promise<Server>((resolve, reject) => {
    const s = sim.app.listen(port, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    url: `${baseUrl}/custody/api/v1.0/mng`,
    baseUrl,
    sim,
    async stop() {
      await sim.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
