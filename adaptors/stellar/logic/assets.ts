import { Asset } from '@stellar/stellar-base';
import { unknownValue, UpstreamError } from '../../../src/platform/errors.js';
import type { AssetInfo } from '../../../src/ledger/adaptor.js';
import type { HorizonAccount, HorizonBalance } from '../network/horizon.js';

/** Every Stellar amount, native or credit, is an int64 count of 10^-7 units. */
export const STELLAR_DECIMALS = 7;

export const NATIVE_ASSET: AssetInfo = { symbol: 'XLM', decimals: STELLAR_DECIMALS, native: true };

/**
 * A credit asset's symbol is its bare `CODE` when no other configured asset (nor the native
 * `XLM`) shares that code, else `CODE:ISSUER`. `contract` always holds the issuer, and
 * `CODE:ISSUER` is accepted for every asset, so clients can always be exact.
 */
export function creditAssets(configured: { code: string; issuer: string }[]): AssetInfo[] {
  const counts = new Map<string, number>([['XLM', 1]]);
  for (const a of configured) counts.set(a.code, (counts.get(a.code) ?? 0) + 1);
  return configured.map((a) => ({
    symbol: (counts.get(a.code) ?? 0) > 1 ? `${a.code}:${a.issuer}` : a.code,
    decimals: STELLAR_DECIMALS,
    native: false,
    contract: a.issuer,
  }));
}

/** The configured asset `info` names, as an SDK asset; 422 naming the valid ones otherwise. */
export function toSdkAsset(all: AssetInfo[], info: AssetInfo): Asset {
  if (info.native) return Asset.native();
  const found = all.find(
    (a) =>
      !a.native &&
      (a.symbol === info.symbol ||
        `${codeOf(a)}:${a.contract}` === info.symbol ||
        (info.contract !== undefined && a.contract === info.contract && codeOf(a) === codeOf(info))),
  );
  if (!found?.contract)
    throw unknownValue(
      'Stellar asset',
      info.symbol,
      all.map((a) => a.symbol),
    );
  return new Asset(codeOf(found), found.contract);
}

function codeOf(a: AssetInfo): string {
  return a.symbol.split(':')[0] as string;
}

export function assetLabel(asset: Asset): string {
  return asset.isNative() ? 'XLM' : `${asset.getCode()}:${asset.getIssuer()}`;
}

/** Horizon's 7-decimal amount string as stroops, exactly. */
export function parseStroops(amount: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,7}))?$/.exec(amount);
  // Horizon's own figures: a text that is not one is the back end's fault, not the request's.
  if (!m) throw new UpstreamError(`Horizon sent '${amount}' where a Stellar amount (up to 7 decimals) belongs`, true);
  const units = BigInt((m[2] as string) + (m[3] ?? '').padEnd(STELLAR_DECIMALS, '0'));
  return m[1] ? -units : units;
}

/** Stroops as the SDK's decimal amount string. */
export function formatStroops(units: bigint): string {
  const s = units.toString().padStart(STELLAR_DECIMALS + 1, '0');
  return `${s.slice(0, -STELLAR_DECIMALS)}.${s.slice(-STELLAR_DECIMALS)}`;
}

export function findBalance(account: HorizonAccount, asset: Asset): HorizonBalance | undefined {
  if (asset.isNative()) return account.balances.find((b) => b.asset_type === 'native');
  return account.balances.find((b) => b.asset_code === asset.getCode() && b.asset_issuer === asset.getIssuer());
}
