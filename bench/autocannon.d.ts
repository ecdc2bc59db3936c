/** The part of autocannon's API the bench uses (the package ships no types). */
declare module 'autocannon' {
  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Options {
    url: string;
    method?: string;
    connections?: number;
    amount?: number;
    duration?: number;
    timeout?: number;
    headers?: Record<string, string>;
    body?: string;
    requests?: { setupRequest?: (req: Request) => Request }[];
  }
  interface Histogram {
    p50: number;
    p99: number;
    max: number;
    average: number;
  }
  interface Result {
    requests: Histogram & { total: number };
    latency: Histogram;
    duration: number;
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  interface Instance {
    on(event: 'done', cb: (r: Result) => void): void;
    on(event: 'response', cb: () => void): void;
  }
  function autocannon(opts: Options): Instance;
  export default autocannon;
}
