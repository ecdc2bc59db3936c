/* global process, console, setTimeout */
/* eslint-disable @typescript-eslint/no-require-imports -- the sample's modules are CommonJS */
'use strict';
/**
 * Drives the ERC-20 sample's custody client (`src/casp-client.js`, with the sample's own
 * `src/eth-util.js` for the Ethereum side) through the calls its `casp start` and `casp withdraw`
 * commands make, in their order, from the `config.json` of the current directory. The sample's
 * CLI itself is not run: it compiles and deploys a Solidity contract first (solc) and waits for
 * key presses between steps; what it asks of the custody service is all here.
 *
 * Per configured vault: find it by name, else build its payload and create it; when it is not
 * active, find its pending join request and wait until it is no longer PENDING, reading who
 * still has to approve from the operation's groups as the CLI does; read its default key and
 * address. Then, per vault, once its address holds ether (the test deposits it), withdraw
 * `WITHDRAW_ETH` to `WITHDRAW_TO` as `casp withdraw` does: build, sign with the raw transaction
 * included, wait for the approval, apply the signature and send; print the receipt.
 */
const path = require('node:path');
const fs = require('node:fs');

const CaspClient = require(path.join(process.cwd(), 'src', 'casp-client.js'));
const CaspEthUtil = require(path.join(process.cwd(), 'src', 'eth-util.js'));

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The CLI's waitForOp: done once the operation is no longer PENDING. */
async function waitForOp(casp, op) {
  for (;;) {
    if (op.status !== 'PENDING') return op;
    const pending = op.groups.flatMap((g) => g.members.filter((m) => !m.isApproved).map((m) => m.label));
    console.log(`Pending approval: ${pending.join(', ')}`);
    await delay(200);
    op = await casp.getOperation(op);
  }
}

async function main() {
  const config = JSON.parse(fs.readFileSync('config.json', 'utf8'));
  const casp = new CaspClient(config);
  const caspEth = new CaspEthUtil(casp);
  await casp.init();
  console.log(`Account ${casp.activeAccountId}; participants: ${Object.keys(casp.participantsByName).join(', ')}`);
  const vaults = [];
  for (const vaultData of config.vaults) {
    let vault = await casp.findVaultByName(vaultData.name);
    if (!vault) {
      vault = await casp.createVault(casp.getNewVaultPayload(vaultData));
      console.log(`Vault '${vault.name}' created (${vault.id}), ${vault.hierarchy}`);
    }
    if (!vault.isActive) {
      console.log(`Vault '${vault.name}' is not active yet: ${vault.statusText}`);
      const join = await casp.getPendingJoinOp(vault);
      if (!join) throw new Error(`no pending JOIN_VAULT operation for vault ${vault.id}`);
      console.log(`Join operation ${join.operationID || join.id}: ${join.description}`);
      const done = await waitForOp(casp, join);
      console.log(`Join operation ${done.status}`);
    }
    const addressData = await caspEth.getAddressData(vault);
    console.log(`Vault '${vault.name}' address: ${addressData.address}`);
    vaults.push({ ...vaultData, ...addressData, ...vault });
  }
  for (const vault of vaults) {
    console.log(`Waiting for Eth deposit to address ${vault.address}`);
    while (!(await caspEth.getBalanceEth(vault.address))) await delay(100);
    const rawTx = await caspEth.getEthTransaction(process.env.WITHDRAW_TO, process.env.WITHDRAW_ETH, vault);
    let signOp = await caspEth.createSignOperation(rawTx, { ...vault, includeRawTx: true }, `Withdraw from ${vault.name}`);
    console.log(`Sign operation ${signOp.operationID} ${signOp.status}`);
    await waitForOp(casp, signOp);
    signOp = await casp.getSignOperation(signOp);
    const signedTx = caspEth.getSignedTransactionFromCaspOp(signOp);
    const receipt = await caspEth.sendSignedTransaction(`0x${signedTx.serialize().toString('hex')}`);
    console.log(`Withdrawal from '${vault.name}': transaction ${receipt.transactionHash} status ${receipt.status}`);
  }
}

main().catch((e) => {
  console.log(`Failed: ${(e.response && e.response.text) || e.stack || e}`);
  process.exit(1);
});
