import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_KEY, startTestService, type TestService } from '../helpers/service.js';

/** The address of the balance route names an account; a recipient form says how to pay one. */
describe('address balance of a recipient form', () => {
  let svc: TestService;
  beforeAll(async () => {
    // Nothing listens on the Horizon URL: the answer must come before any request to it.
    svc = await startTestService({ stellardev: { horizonUrl: 'http://127.0.0.1:9' } }, { env: { OPEN_ROUTES_RATE_PER_MINUTE: '0' } });
  });
  afterAll(async () => svc.stop());

  it('a Stellar address with ?memo= is a valid recipient, but its balance is 422 naming the address alone, not a 500', async () => {
    const account = Keypair.random().publicKey();
    const recipient = encodeURIComponent(`${account}?memo=id:42`);
    const valid = await svc.call('GET', `/api/v1.0/ledgers/stellardev/addresses/${recipient}/valid`);
    expect(valid.body.valid).toBe(true);
    const { status, body } = await svc.call('GET', `/api/v1.0/ledgers/stellardev/addresses/${recipient}/balance`, { key: READ_KEY });
    expect({ status, errCode: body.errCode, field: body.field }).toEqual({ status: 422, errCode: 'ERR_INVALID_ARGUMENTS', field: 'address' });
    expect(body.details).toContain(`a balance is of the address alone: '${account}'`);
  });
});
