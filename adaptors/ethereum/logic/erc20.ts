import { getAddress, Interface, zeroPadValue } from 'ethers';

/** The two parts of ERC-20 this adaptor uses: the call it sends and the event that proves it. */
export const ERC20 = new Interface([
  'function transfer(address to, uint256 amount) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

const TRANSFER_TOPIC = ERC20.getEvent('Transfer')!.topicHash;

export interface ReceiptLog {
  address: string;
  topics: string[];
}

/** The recipient of an ERC-20 `transfer` call, or undefined when `data` is not one (a plain ETH transfer). */
export function transferRecipient(data: string): string | undefined {
  if (data === '0x') return undefined;
  const call = ERC20.parseTransaction({ data });
  return call?.name === 'transfer' ? getAddress(call.args[0] as string) : undefined;
}

/**
 * Whether a receipt's logs carry the token's `Transfer` event from `from` to `to`. ERC-20
 * makes the event mandatory on every transfer, and it is the only proof on chain that tokens
 * moved: some tokens (older ones, some pausable ones) return `false` instead of reverting,
 * so their failed transfer is a successful transaction (status 1) that moved nothing. The
 * value is not compared: a fee-on-transfer token delivers less than was sent, and a
 * withdrawal whose tokens moved must never read as failed (a retry would pay twice).
 */
export function hasTransferEvent(logs: readonly ReceiptLog[], contract: string, from: string, to: string): boolean {
  const token = contract.toLowerCase();
  const fromTopic = zeroPadValue(from, 32).toLowerCase();
  const toTopic = zeroPadValue(to, 32).toLowerCase();
  return logs.some(
    (log) =>
      log.address.toLowerCase() === token &&
      log.topics[0]?.toLowerCase() === TRANSFER_TOPIC &&
      log.topics[1]?.toLowerCase() === fromTopic &&
      log.topics[2]?.toLowerCase() === toTopic,
  );
}
