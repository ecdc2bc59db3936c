/**
 * The reference point of the callback ingest figures: a bare Express 5 JSON echo route, run
 * as its own process on its own port (`node --import tsx bench/echo-server.ts <port>`), with
 * the same body limit as the service. No logging, no validation, no Redis.
 */
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.use(express.json({ limit: '4mb' }));
app.post('/echo', (req, res) => {
  res.json(req.body);
});
const server = app.listen(Number(process.argv[2]), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
