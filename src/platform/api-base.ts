/**
 * Where the wallet layer lives (`{base}/api/v1.0` in the custody service's spec): the routes,
 * the OpenAPI document, error types, job descriptions and the callback URL all take it from here.
 */
export const API_BASE = '/api/v1.0';

/** The signing callback's path under API_BASE. */
export const SIGN_CALLBACK_PATH = '/sign_complete_callback';

/** The URL the custody service calls back with `ledgerId`'s signatures, under the service's public URL. */
export function signCallbackUrl(publicUrl: string, ledgerId: string): string {
  return `${publicUrl.replace(/\/$/, '')}${API_BASE}${SIGN_CALLBACK_PATH}?ledgerId=${encodeURIComponent(ledgerId)}`;
}
