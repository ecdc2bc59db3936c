import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { dropPrefix, expectProblem, expectValidSignature, quorumVault, startHarness, startReceiver, type Harness } from './harness.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup(opts: Parameters<typeof startHarness>[0] = {}) {
  const receiver = await startReceiver();
  const h = await startHarness({ callbackBaseUrl: receiver.url, ...opts });
  cleanup.push(receiver.close, () => dropPrefix(h.redis, h.prefix), h.stop);
  return { h, receiver };
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();

/** A Bitcoin-style request: preimages and their double-SHA-256 digests. */
function signRequest(publicKey: string, entries = 2) {
  const raws = Array.from({ length: entries }, () => randomBytes(60));
  return {
    description: 'withdrawal',
    dataToSign: raws.map((r) => sha256(sha256(r)).toString('hex')),
    publicKeys: raws.map(() => publicKey),
    rawTransactions: raws.map((r) => r.toString('hex')),
    ledgerHashAlgorithm: 'DOUBLE_SHA256',
    ledger: 'BTCTEST',
    providerData: '{"ref":"w-1"}',
  };
}

async function approve(h: Harness, memberId: string, operationID: string, decision: 'approve' | 'decline' = 'approve') {
  return h.device('POST', `/participants/${memberId}/operations/${operationID}/${decision}`);
}

describe('custody emulator vault lifecycle and sign operations', () => {
  it('keeps a 2-of-3 vault NOT_INITIALIZED until every member joined, then serves its key', async () => {
    const { h } = await setup();
    const { vaultId, members } = await quorumVault(h, {}, false);
    const before = await h.api('GET', `/vaults/${vaultId}`);
    expect(before.json).toMatchObject({ status: 'NOT_INITIALIZED', isActive: false, kind: 'QUORUM', cryptoKind: 'ECDSA', hierarchy: 'NONE' });
    expect(before.json.groups[0]).toMatchObject({ name: 'approvers', requiredApprovals: 2 });
    expectProblem(await h.api('GET', `/vaults/${vaultId}/publickey`), 400, 'vault-not-initialized');
    // Reactivation is refused while the participant has a pending join request.
    expectProblem(await h.api('POST', `/participants/${members[0]!.id}/reactivate`), 403, 'pending-join-request');

    const pending = await h.device('GET', `/participants/${members[0]!.id}/operations`);
    expect(pending.json).toHaveLength(1);
    expect(pending.json[0]).toMatchObject({ kind: 'JOIN_POLICY_VAULT', status: 'PENDING', groupNameToJoin: 'approvers' });
    const joinOp = await h.api('GET', `/operations/joinpolicyvault/${pending.json[0].operationID}`);
    expect(joinOp.json.policies[0].groups[0].requiredApprovals).toBe(2);

    for (const [i, m] of members.entries()) {
      expect((await h.device('POST', `/participants/${m.id}/vaults/${vaultId}/join`)).status).toBe(200);
      const v = await h.api('GET', `/vaults/${vaultId}`);
      expect(v.json.status).toBe(i < 2 ? 'NOT_INITIALIZED' : 'INITIALIZED');
    }
    expectProblem(await h.device('POST', `/participants/${members[0]!.id}/vaults/${vaultId}/join`), 409);
    expect((await h.api('GET', `/operations/joinpolicyvault/${pending.json[0].operationID}`)).json.status).toBe('COMPLETED');
    const key = await h.api('GET', `/vaults/${vaultId}/publickey`);
    expect(key.json.publicKey).toMatch(/^3056301006072A8648CE3D020106052B8104000A03420004[0-9A-F]{128}$/);

    // Activated vaults are not deleted; a vault update needs the quorum (202, an operation).
    expectProblem(await h.api('DELETE', `/vaults/${vaultId}`), 403, 'vault-not-deletable');
    const update = await h.api('PUT', `/vaults/${vaultId}`, { name: 'hot-2', description: 'renamed' });
    expect(update.status).toBe(202);
    expect(update.json).toMatchObject({ kind: 'UPDATE_VAULT', status: 'PENDING' });
    await approve(h, members[1]!.id, update.json.operationID);
    await approve(h, members[2]!.id, update.json.operationID);
    expect((await h.api('GET', `/vaults/${vaultId}`)).json).toMatchObject({ name: 'hot-2', description: 'renamed' });

    // A vault not yet activated is deleted at once, and has no quorum that holds its members back.
    const other = await quorumVault(h, { name: 'cold' }, false);
    expect((await h.api('PUT', `/vaults/${other.vaultId}/members/${other.members[0]!.id}/status`, { status: 'DEACTIVATED' })).status).toBe(200);
    expect((await h.api('PUT', `/participants/${other.members[1]!.id}`, { status: 'DEACTIVATED' })).status).toBe(200);
    expect((await h.api('DELETE', `/vaults/${other.vaultId}`)).status).toBe(200);
    expectProblem(await h.api('GET', `/vaults/${other.vaultId}`), 404);
  });

  it('signs once two of three approve, then calls back with verifiable signatures and no HMAC headers', async () => {
    const { h, receiver } = await setup();
    const { vaultId, members } = await quorumVault(h);
    const publicKey = (await h.api('GET', `/vaults/${vaultId}/publickey`)).json.publicKey as string;
    const req = signRequest(publicKey);
    const signed = await h.api('POST', `/vaults/${vaultId}/sign`, req);
    expect(signed.status).toBe(200);
    const id = signed.json.operationID as string;

    const first = await approve(h, members[0]!.id, id);
    expect(first.json).toMatchObject({ status: 'PENDING', isApproved: false });
    expect(first.json.groups[0].members.map((m: { status: string }) => m.status)).toEqual(['DONE', 'STARTED', 'STARTED']);
    expectProblem(await approve(h, members[0]!.id, id), 409, 'already-answered');
    expect((await h.api('GET', `/operations/sign/${id}`)).json).toMatchObject({ status: 'PENDING', signatures: [], v: [] });

    const second = await approve(h, members[2]!.id, id);
    expect(second.json).toMatchObject({ status: 'COMPLETED', isApproved: true });
    const op = (await h.api('GET', `/operations/sign/${id}`)).json;
    expect(op).toMatchObject({
      operationID: id,
      kind: 'SIGN',
      status: 'COMPLETED',
      dataToSign: req.dataToSign,
      publicKeys: req.publicKeys,
      providerData: req.providerData,
    });
    expect(op.signatures).toHaveLength(2);
    expectProblem(await approve(h, members[1]!.id, id), 409, 'operation-not-pending');

    const [cb] = await receiver.waitFor(1);
    expect(cb!.ledgerId).toBe('btctest');
    expect(cb!.headers['x-callback-signature']).toBeUndefined();
    expect(cb!.headers['x-callback-timestamp']).toBeUndefined();
    expect(cb!.body).toEqual({ publicKeys: req.publicKeys, providerData: req.providerData, dataToSign: req.dataToSign, signatures: op.signatures, v: op.v });
    cb!.body.dataToSign.forEach((digest, i) => expectValidSignature(publicKey, digest, cb!.body.signatures[i]!, cb!.body.v[i]!));

    // Resend sends the same callback again.
    expect((await h.api('POST', `/operations/sign/${id}/resend`)).status).toBe(200);
    const [, again] = await receiver.waitFor(2);
    expect(again!.body).toEqual(cb!.body);
  });

  it('declines on one decline and cancels on request; neither calls back; resend refuses both', async () => {
    const { h, receiver } = await setup();
    const { vaultId, members } = await quorumVault(h);
    const publicKey = (await h.api('GET', `/vaults/${vaultId}/publickey`)).json.publicKey as string;

    const declined = (await h.api('POST', `/vaults/${vaultId}/sign`, signRequest(publicKey))).json.operationID;
    await approve(h, members[0]!.id, declined);
    const answer = await approve(h, members[1]!.id, declined, 'decline');
    expect(answer.json).toMatchObject({ status: 'DECLINED' });
    expect(answer.json.groups[0].members[1].status).toBe('DECLINED');
    expectProblem(await approve(h, members[2]!.id, declined), 409);

    const canceled = (await h.api('POST', `/vaults/${vaultId}/sign`, signRequest(publicKey))).json.operationID;
    expect((await h.api('POST', `/operations/${canceled}/cancel`)).status).toBe(200);
    expect((await h.api('GET', `/operations/sign/${canceled}`)).json.status).toBe('CANCELED');
    expectProblem(await h.api('POST', `/operations/${canceled}/cancel`), 409, 'cannot-cancel');
    expectProblem(await approve(h, members[2]!.id, canceled), 409);

    for (const id of [declined, canceled]) expectProblem(await h.api('POST', `/operations/sign/${id}/resend`), 400, 'cannot-resend');
    await h.running.emulator.settled();
    expect(receiver.received).toHaveLength(0);
    const listed = await h.api('GET', `/accounts/${(await h.api('GET', `/vaults/${vaultId}`)).json.accountID}/operations?status=DECLINED`);
    expect(listed.json.items.map((o: { operationID: string }) => o.operationID)).toEqual([declined]);
  });

  it("does not count a reactivated participant's approvals from its old device toward a pending quorum", async () => {
    const { h, receiver } = await setup();
    const { vaultId, members } = await quorumVault(h);
    const [alice, bob] = [members[0]!, members[1]!];
    const publicKey = (await h.api('GET', `/vaults/${vaultId}/publickey`)).json.publicKey as string;
    const id = (await h.api('POST', `/vaults/${vaultId}/sign`, signRequest(publicKey))).json.operationID as string;
    expect((await approve(h, alice.id, id)).json.groups[0].members[0].status).toBe('DONE');

    // alice reports her phone lost: a new code, and her new device activates with it.
    const code = (await h.api('POST', `/participants/${alice.id}/reactivate`)).json.activationCode as string;
    expect((await h.api('GET', `/operations/sign/${id}`)).json.groups[0].members[0]).toMatchObject({ status: 'STARTED', isApproved: false });
    expect((await h.device('POST', `/participants/${alice.id}/activate`, { activationCode: code })).status).toBe(200);

    // bob's approval is the only one that counts now: one of two.
    const after = await approve(h, bob.id, id);
    expect(after.json).toMatchObject({ status: 'PENDING', isApproved: false });
    expect(after.json.groups[0].members.map((m: { status: string }) => m.status)).toEqual(['STARTED', 'DONE', 'STARTED']);
    // The new device answers afresh, and completes the quorum.
    expect((await h.device('GET', `/participants/${alice.id}/operations`)).json.map((o: { operationID: string }) => o.operationID)).toEqual([id]);
    expect((await approve(h, alice.id, id)).json).toMatchObject({ status: 'COMPLETED', isApproved: true });
    await receiver.waitFor(1);
  });

  it('serves the operations of a deleted vault as the account listing shows them', async () => {
    const { h } = await setup();
    const { account, vaultId, members } = await quorumVault(h, {}, false);
    expect((await h.device('POST', `/participants/${members[0]!.id}/vaults/${vaultId}/join`)).status).toBe(200);
    expect((await h.api('DELETE', `/vaults/${vaultId}`)).status).toBe(200);
    expectProblem(await h.api('GET', `/vaults/${vaultId}`), 404);

    const listed = (await h.api('GET', `/accounts/${account.id}/operations`)).json.items as Record<string, unknown>[];
    expect(listed.map((o) => o.status).sort()).toEqual(['CANCELED', 'CANCELED', 'COMPLETED']);
    for (const item of listed) {
      const id = item.operationID as string;
      for (const path of [`/operations/${id}`, `/operations/joinpolicyvault/${id}`]) {
        const one = await h.api('GET', path);
        expect(one.status, JSON.stringify(one.json)).toBe(200);
        expect(one.json).toMatchObject(item);
      }
      expect((await h.device('GET', `/operations/${id}`)).json).toMatchObject({ ...item, deliveries: { delivered: 0, failed: 0, dropped: 0 } });
      // What the deleted vault left behind still names it.
      expect(item).toMatchObject({ kind: 'JOIN_POLICY_VAULT', vaultID: vaultId, vaultName: 'hot' });
    }
    expectProblem(await h.api('GET', '/operations/no-such-operation'), 404);
  });

  it('applies the quorum rule to member suspension unless forced, and adds a member through an operation', async () => {
    const { h } = await setup();
    const { vaultId, members, account } = await quorumVault(h);
    expect((await h.api('PUT', `/vaults/${vaultId}/members/${members[0]!.id}/status`, { status: 'DEACTIVATED' })).json).toMatchObject({
      id: members[0]!.id,
      status: 'DEACTIVATED',
      isActive: false,
    });
    // Two active members remain for a quorum of two: the next suspension would break it.
    expectProblem(await h.api('PUT', `/vaults/${vaultId}/members/${members[1]!.id}/status`, { status: 'DEACTIVATED' }), 403, 'quorum-too-small');
    expectProblem(await h.api('PUT', `/participants/${members[1]!.id}`, { status: 'DEACTIVATED' }), 409, 'cannot-deactivate');
    expectProblem(await h.api('PUT', `/vaults/${vaultId}/policies/nope/members/${members[1]!.id}/status?force=true`, { status: 'DEACTIVATED' }), 404);
    const policyId = (await h.api('GET', `/vaults/${vaultId}`)).json.policyDetails.id;
    const joinOps = await h.api('GET', `/accounts/${account.id}/operations?status=COMPLETED`);
    expect((await h.api('GET', `/operations/joinpolicyvault/${joinOps.json.items[0].operationID}`)).json.policies[0].id).toBe(policyId);
    expect(
      (await h.api('PUT', `/vaults/${vaultId}/policies/${policyId}/members/${members[1]!.id}/status?force=true`, { status: 'DEACTIVATED' })).json.status,
    ).toBe('DEACTIVATED');
    for (const m of members.slice(0, 2)) expect((await h.api('PUT', `/vaults/${vaultId}/members/${m.id}/status`, { status: 'ACTIVE' })).status).toBe(200);

    const dave = (await h.api('POST', `/accounts/${account.id}/participants`, { name: 'dave', email: 'dave@example.com', role: 'bot' })).json;
    await h.device('POST', `/participants/${dave.id}/activate`, { activationCode: dave.activationCode });
    const added = await h.api('POST', `/vaults/${vaultId}/approval_groups/approvers/members`, { participantID: dave.id, description: 'add dave' });
    expect(added.status).toBe(200);
    expect(added.json.operation).toMatchObject({ kind: 'ADD_MEMBER', status: 'PENDING' });
    expect(added.json.participant).toMatchObject({ id: dave.id, deviceType: 'BOT', isActive: true });
    const opId = added.json.operation.operationID;
    await approve(h, members[0]!.id, opId);
    await approve(h, members[1]!.id, opId);
    expect((await h.api('GET', `/operations/addmember/${opId}`)).json).toMatchObject({ status: 'COMPLETED', participantID: dave.id, groupName: 'approvers' });
    expectProblem(await h.api('GET', `/operations/joinpolicyvault/${opId}`), 404);
    expect((await h.device('POST', `/participants/${dave.id}/vaults/${vaultId}/join`)).status).toBe(200);
    expect((await h.api('GET', `/vaults/${vaultId}`)).json.groups[0].members).toHaveLength(4);
  });

  it('names the join request per revision (CREATE_VAULT, JOIN_VAULT, JOIN_POLICY_VAULT) and records the key calculation (1.0.2106)', async () => {
    const { h } = await setup();
    const { account, vaultId, members } = await quorumVault(h, {}, false);
    await h.device('POST', `/participants/${members[0]!.id}/vaults/${vaultId}/join`);
    const pending = `/accounts/${account.id}/operations?limit=10&status=PENDING&sort=createdAt:desc`;
    expect((await h.api('GET', pending)).json.items.map((o: { kind: string }) => o.kind)).toEqual(['JOIN_POLICY_VAULT', 'JOIN_POLICY_VAULT']);
    const legacy = (await h.api('GET', pending, undefined, { base: 'legacy' })).json.items as { kind: string; operationID: string; vaultID: string }[];
    expect(legacy.map((o) => o.kind)).toEqual(['JOIN_VAULT', 'JOIN_VAULT']);
    // Before 1.0.2106 the details carry the vault's groups: a member is approved once joined.
    const details = (await h.api('GET', `/operations/${legacy[0]!.operationID}`, undefined, { base: 'legacy' })).json;
    expect(details).toMatchObject({ kind: 'JOIN_VAULT', vaultID: vaultId, status: 'PENDING' });
    expect(details).not.toHaveProperty('policies');
    expect(details.groups[0].members.map((m: { id: string; isApproved: boolean; label: string }) => [m.id, m.isApproved, m.label])).toEqual(
      members.map((m, i) => [m.id, i === 0, 'approver']),
    );
    expectProblem(await h.api('GET', `/operations/joinpolicyvault/${legacy[0]!.operationID}`, undefined, { base: 'legacy' }), 404);
    expect((await h.api('GET', `/operations/${legacy[0]!.operationID}`)).json).toMatchObject({
      kind: 'JOIN_POLICY_VAULT',
      policies: [expect.objectContaining({ groups: expect.any(Array) })],
    });

    for (const m of members.slice(1)) await h.device('POST', `/participants/${m.id}/vaults/${vaultId}/join`);
    const done = (await h.api('GET', `/accounts/${account.id}/operations?status=COMPLETED`)).json.items as { kind: string; operationID: string }[];
    const calc = done.find((o) => o.kind === 'CALCULATE_PUBLIC_KEY');
    const publicKey = (await h.api('GET', `/vaults/${vaultId}/publickey`)).json.publicKey as string;
    expect((await h.api('GET', `/operations/calculatePublicKey/${calc!.operationID}`)).json).toMatchObject({
      kind: 'CALCULATE_PUBLIC_KEY',
      status: 'COMPLETED',
      vaultID: vaultId,
      publicKeys: [publicKey],
      totsParams: [{ index: 0, numberOfFragments: 3 }],
    });
    expectProblem(await h.api('GET', `/operations/calculatePublicKey/${done.find((o) => o.kind !== 'CALCULATE_PUBLIC_KEY')!.operationID}`), 404);
    // Not in the older revisions: neither listed nor readable there.
    expect((await h.api('GET', `/accounts/${account.id}/operations`, undefined, { base: 'legacy' })).json.items.map((o: { kind: string }) => o.kind)).toEqual([
      'JOIN_VAULT',
      'JOIN_VAULT',
      'JOIN_VAULT',
    ]);
    expectProblem(await h.api('GET', `/operations/${calc!.operationID}`, undefined, { base: 'legacy' }), 404);
  });

  it('serves BIP44 accounts, backups, addresses and signs with an address key; signs for an ed25519 vault', async () => {
    const { h, receiver } = await setup();
    const { vaultId, members } = await quorumVault(h, { name: 'hd', hierarchy: 'BIP44', coinType: 1, firstAccountName: 'main', subAccountsToDerive: 0 });
    expectProblem(await h.api('GET', `/vaults/${vaultId}/publickey`), 406, 'not-single-key');
    const backup = (await h.api('GET', `/vaults/${vaultId}/coins/1/accounts/0/backup`)).json;
    expect(backup).toMatchObject({
      vaultId,
      bipLevel: 3,
      childNumber: 0x80000000,
      cpar: expect.stringMatching(/^[0-9a-f]{64}$/),
      parentFingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
    expect((await h.api('GET', `/vaults/${vaultId}/coins/1/accounts/main/backup`)).json).toEqual(backup);
    const second = await h.api('POST', `/vaults/${vaultId}/coins/1/accounts`, { accountName: 'savings' });
    expect(second.json).toMatchObject({ accountName: 'savings', accountIndex: 1 });
    expectProblem(await h.api('POST', `/vaults/${vaultId}/coins/1/accounts`, { accountName: 'savings' }), 409);
    expect((await h.api('GET', `/vaults/${vaultId}/coins/1/accounts/find?accountName=savings`)).json).toEqual({ index: 1 });

    const address = (await h.api('POST', `/vaults/${vaultId}/coins/1/accounts/0/chains/external/addresses`)).json.publicKey as string;
    // The address key is the backup's account key derived at 0/0, as a registrant would derive it.
    const { BIP32Factory } = await import('bip32');
    const ecc = await import('tiny-secp256k1');
    const { parsePublicKey, toCustodyKeyId } = await import('../../src/ledger/public-key.js');
    const account = BIP32Factory(ecc).fromPublicKey(Buffer.from(parsePublicKey(backup.publicKey, 'secp256k1').bytes), Buffer.from(backup.cpar, 'hex'));
    expect(address).toBe(toCustodyKeyId({ scheme: 'secp256k1', bytes: Uint8Array.from(account.derive(0).derive(0).publicKey) }));
    expect((await h.api('GET', `/vaults/${vaultId}/coins/1/accounts/0/chains/all/addresses`)).json).toMatchObject({
      totalItems: 1,
      items: { publicKeys: [address] },
    });
    // subAccountsToDerive: the first addresses exist at creation; lastUpdatedAt:desc lists the newest first; each base in its revision's shape.
    const derived = await quorumVault(h, { name: 'hd2', hierarchy: 'BIP44', coinType: 60, firstAccountName: 'Default', subAccountsToDerive: 2 });
    const path = `/vaults/${derived.vaultId}/coins/60/accounts/0/chains/external/addresses`;
    const both = (await h.api('GET', path)).json.items.publicKeys as string[];
    expect(both).toHaveLength(2);
    expect((await h.api('GET', `${path}?limit=1&sort=lastUpdatedAt:desc`)).json).toEqual({
      totalItems: 2,
      items: { publicKeys: [both[1]], accountName: 'Default', accountIndex: 0 },
    });
    expect((await h.api('GET', `${path}?limit=1&sort=lastUpdatedAt:desc`, undefined, { base: 'legacy' })).json).toEqual({ totalItems: 2, items: [both[1]] });
    expectProblem(await h.api('GET', `${path}?sort=colour:desc`), 400);

    const req = signRequest(address, 1);
    const id = (await h.api('POST', `/vaults/${vaultId}/sign`, req)).json.operationID;
    await approve(h, members[0]!.id, id);
    await approve(h, members[1]!.id, id);
    const [cb] = await receiver.waitFor(1);
    expectValidSignature(address, req.dataToSign[0]!, cb!.body.signatures[0]!, cb!.body.v[0]!);
    expect((await h.api('GET', `/vaults/${vaultId}/coins/1/accounts/0/operations`)).json.totalItems).toBe(1);

    const ed = await quorumVault(h, { name: 'stellar', cryptoKind: 'EDDSA' });
    const edKey = (await h.api('GET', `/vaults/${ed.vaultId}/publickey`)).json.publicKey as string;
    expect(edKey).toMatch(/^[0-9A-F]{64}$/);
    const digest = sha256(randomBytes(40)).toString('hex');
    const edOp = (
      await h.api('POST', `/vaults/${ed.vaultId}/sign`, {
        description: 'xlm',
        dataToSign: [digest],
        publicKeys: [edKey],
        ledger: 'STELLARTEST',
        providerData: '',
      })
    ).json.operationID;
    await approve(h, ed.members[1]!.id, edOp);
    await approve(h, ed.members[2]!.id, edOp);
    const [, edCb] = await receiver.waitFor(2);
    expectValidSignature(edKey, digest, edCb!.body.signatures[0]!, 0, 'ed25519');
  });
});
