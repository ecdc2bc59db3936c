import { AbiCoder, getAddress, getBytes, Interface, keccak256, zeroPadValue } from 'ethers';

/** The two parts of ERC-20 this adaptor uses: the call it sends and the event that proves it. */
export const ERC20 = new Interface([
  'function transfer(address to, uint256 amount) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

const TRANSFER_TOPIC = ERC20.getEvent('Transfer')!.topicHash;

export interface ReceiptLog {
  address: string;
  topics: string[];
  data?: string;
}

/** The recipient of an ERC-20 `transfer` call, or undefined when `data` is not one (a plain ETH transfer). */
export function transferRecipient(data: string): string | undefined {
  if (data === '0x') return undefined;
  const call = ERC20.parseTransaction({ data });
  return call?.name === 'transfer' ? getAddress(call.args[0] as string) : undefined;
}

/** `from` and `to` of a `Transfer` log: indexed as ERC-20 declares them, or in the data as some early tokens declared the event. */
export function transferParties(log: ReceiptLog): [string, string] | undefined {
  if (log.topics[0]?.toLowerCase() !== TRANSFER_TOPIC) return undefined;
  if (log.topics.length === 3) return [log.topics[1] as string, log.topics[2] as string];
  if (log.topics.length === 1 && log.data && log.data.length === 2 + 3 * 64) {
    const [from, to] = AbiCoder.defaultAbiCoder().decode(['address', 'address', 'uint256'], log.data) as unknown as [string, string];
    return [zeroPadValue(from, 32), zeroPadValue(to, 32)];
  }
  return undefined;
}

/**
 * Whether a receipt's logs carry the token's `Transfer` event from `from` to `to`. ERC-20
 * makes the event mandatory on every transfer, and it is the only proof on chain that tokens
 * moved: some tokens (older ones, some pausable ones) return `false` instead of reverting,
 * so their failed transfer is a successful transaction (status 1) that moved nothing. The
 * value is not compared: a fee-on-transfer token delivers less than was sent, and a
 * withdrawal whose tokens moved must never read as failed (a retry would pay twice). The event
 * must come from the contract called (a proxy emits it from its own address).
 */
export function hasTransferEvent(logs: readonly ReceiptLog[], contract: string, from: string, to: string): boolean {
  const token = contract.toLowerCase();
  const fromTopic = zeroPadValue(from, 32).toLowerCase();
  const toTopic = zeroPadValue(to, 32).toLowerCase();
  return logs.some((log) => {
    if (log.address.toLowerCase() !== token) return false;
    const parties = transferParties(log);
    return parties !== undefined && parties[0].toLowerCase() === fromTopic && parties[1].toLowerCase() === toTopic;
  });
}

/**
 * Whether a receipt's `logsBloom` may hold a `Transfer` event of `contract` (the yellow paper's
 * bloom: three 11-bit indexes from the keccak of the address and of the topic). False is
 * certain; true may be a false positive.
 */
export function bloomMayHoldTransfer(logsBloom: string | undefined, contract: string): boolean {
  if (!logsBloom || !/^0x[0-9a-fA-F]{512}$/.test(logsBloom)) return true;
  const bloom = getBytes(logsBloom);
  const holds = (item: string) => {
    const h = getBytes(keccak256(item));
    return [0, 2, 4].every((i) => {
      const bit = (((h[i] as number) << 8) | (h[i + 1] as number)) & 2047;
      return ((bloom[255 - (bit >> 3)] as number) & (1 << (bit & 7))) !== 0;
    });
  };
  return holds(getAddress(contract)) && holds(TRANSFER_TOPIC);
}
