export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** Throws a JSON-RPC error the facade answers as it is. */
export const fail = (code: number, message: string, data?: unknown): never => {
  throw Object.assign(new Error(message), { rpc: { code, message, data } satisfies RpcError });
};
